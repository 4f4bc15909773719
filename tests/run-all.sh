#!/usr/bin/env bash
# Runs every test suite against BUILD_DIR and ends with one line "N passed, N failed":
# the Criterion unit tests (as TAP), the fuzz corpora replays, and the TAP shell suites (as root
# and as an unprivileged user when started as root).
set -u
build=${1:?usage: run-all.sh BUILD_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skipped=0

count() { # count OUTPUT NAME STATUS: add a TAP stream's results to the totals
        local p n s planned
        p=$(printf '%s\n' "$1" | grep -cE '^ok( |$)')
        s=$(printf '%s\n' "$1" | grep -cE '^ok.*# SKIP')
        n=$(printf '%s\n' "$1" | grep -cE '^not ok')
        planned=$(printf '%s\n' "$1" | sed -n 's/^1\.\.\([0-9]*\).*/\1/p' | head -1)
        pass=$((pass + p - s)); fail=$((fail + n)); skipped=$((skipped + s))
        if [ "$3" -ne 0 ] && [ "$n" -eq 0 ] || [ -n "$planned" ] && [ $((p + n)) -ne "$planned" ]; then
                echo "not ok - $2 ended early (status $3, ran $((p + n)) of ${planned:-?})"
                fail=$((fail + 1))
        fi
}

echo "## unit tests"
for t in "$build"/tests/unit/test-*; do
        [ -f "$t" ] && [ -x "$t" ] || continue
        out=$("$t" --tap=- 2>&1); st=$?
        printf '%s\n' "$out" | grep -E '^(not ok|ok|#   |  - )' | sed "s|^|$(basename "$t"): |"
        count "$out" "$(basename "$t")" $st
done

echo "## fuzz corpora"
for r in "$build"/tests/fuzz/replay-*; do
        [ -f "$r" ] && [ -x "$r" ] || continue
        name=${r##*/replay-}
        out=$("$r" "$src/tests/fuzz/corpus/$name" 2>&1); st=$?
        printf '%s\n' "$out" | grep -E '^not ok' | sed "s|^|replay-$name: |"
        echo "replay-$name: $(printf '%s\n' "$out" | grep -cE '^ok') inputs"
        count "$out" "replay-$name" $st
done

echo "## lint"
if command -v clang-format >/dev/null; then
        files=$(cd "$src" && git ls-files '*.c' '*.h' 2>/dev/null)
        lint="1..$(printf '%s\n' "$files" | grep -c .)"
        for f in $files; do
                if (cd "$src" && clang-format --dry-run -Werror "$f" >/dev/null 2>&1); then
                        lint+=$'\n'"ok - clang-format $f"
                else
                        lint+=$'\n'"not ok - clang-format $f"; echo "not ok - clang-format $f (run: make format)"
                fi
        done
        count "$lint" lint 0
else
        echo "# clang-format not installed; formatting not checked"
fi

echo "## shell suites"
out=$("$src/tests/run-tap.sh" "$build" 2>&1); st=$?
printf '%s\n' "$out"
line=$(printf '%s\n' "$out" | tail -1)
if [[ $line =~ ^tap:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
        pass=$((pass + BASH_REMATCH[1])); fail=$((fail + BASH_REMATCH[2])); skipped=$((skipped + BASH_REMATCH[3]))
else
        echo "not ok - shell suites did not finish"; fail=$((fail + 1))
fi

echo "$pass passed, $fail failed, $skipped skipped"
[ $fail -eq 0 ]
