#!/usr/bin/env bash
# Runs every test suite against each BUILD_DIR and ends with one line "N passed, N failed, N
# skipped": the Criterion unit tests (as TAP), the fuzz corpus replays, and the TAP shell suites
# (as root and as an unprivileged user when started as root); then the formatting check and a
# warning-free build with gcc and clang, once.
# Sanitizer findings are failures: UBSan halts, and LeakSanitizer runs for the unit tests and
# the replays (not inside sandboxes, whose processes are killed rather than exiting).
set -u
[ $# -ge 1 ] || { echo "usage: run-all.sh BUILD_DIR..." >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skipped=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# failed TEXT: says "not ok - TEXT", also in the list of what failed printed at the end (CI shows
# only the end of the output).
failed() {
        echo "not ok - $1"
        echo "not ok - $1" >>"$bg/failed"
}

# count NAME STATUS OUTPUT: adds a TAP stream's results; a crash or a short run is a failure.
count() {
        local name=$1 status=$2 out=$3 p n s planned
        p=$(printf '%s\n' "$out" | grep -cE '^ok( |$)')
        s=$(printf '%s\n' "$out" | grep -cE '^ok.*# SKIP')
        n=$(printf '%s\n' "$out" | grep -cE '^not ok')
        planned=$(printf '%s\n' "$out" | sed -n 's/^1\.\.\([0-9]*\).*/\1/p' | head -1)
        pass=$((pass + p - s)); fail=$((fail + n)); skipped=$((skipped + s))
        printf '%s\n' "$out" | grep -E '^not ok' | awk -v n="$name" '{print n ": " $0}' >>"$bg/failed"
        if [ "${CORDON_TESTS_MUST_RUN:-0}" = 1 ] && [ "$s" -gt 0 ]; then
                failed "$name: $s skipped, but CORDON_TESTS_MUST_RUN=1"
                skipped=$((skipped - s)); fail=$((fail + s))
        fi
        if [ -z "$planned" ] || [ $((p + n)) -ne "$planned" ]; then
                failed "$name: ran $((p + n)) of ${planned:-?} planned (status $status)"
                fail=$((fail + 1))
        elif [ "$status" -ne 0 ] && [ "$n" -eq 0 ]; then
                failed "$name: exit status $status with no failing test"
                fail=$((fail + 1))
        fi
}

# The shell suites spend much of their time waiting (for sandboxes, terminals, timeouts), so
# compiling goes on beside them, niced: every build after the first is built while the one
# before it is tested (each must be configured already, as make check does), and the warnings
# builds follow. Their results are counted where they would have been run.
bg=$(mktemp -d /tmp/cordon-run-all.XXXXXX)
bg_pid=''
cleanup() {
        [ -n "$bg_pid" ] && [ ! -e "$bg/warnings.rc" ] && kill -- "-$bg_pid" 2>/dev/null
        rm -rf "$bg"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# build_is BUILD_DIR: "COMPILER BUILDTYPE WERROR" of a configured build directory (gcc
# debugoptimized true), from meson's introspection files
build_is() {
        python3 - "$1" <<'PY' 2>/dev/null
import json, re, sys
d = sys.argv[1]
opts = {o["name"]: o["value"] for o in json.load(open(d + "/meson-info/intro-buildoptions.json"))}
log = open(d + "/meson-logs/meson-log.txt").read()
cc = re.search(r"^C compiler for the host machine: \S+ \((\w+) ", log, re.M).group(1)
print(cc, opts["buildtype"], str(opts["werror"]).lower())
PY
}

# The normal builds hide compiler output; warnings are checked once, with both compilers:
#   gcc at the default optimisation: the build under test itself, when it was configured with
#     -Werror (make check does that; it then could not have been built with a warning);
#   gcc at the release optimisation, in a build directory of its own (-O3 finds
#     maybe-uninitialized paths that -O2 does not);
#   clang, in a build directory of its own, unoptimised: its warnings come from the front end,
#     the same at every optimisation level, and an unoptimised build takes half the time.
# Writes its TAP to $bg/warnings.tap and what failed to $bg/warnings.out.
warnings_builds() {
        local lint="" n=0 b cc type name dir cxx log
        for b in "gcc debugoptimized" "gcc release" "clang plain"; do
                cc=${b% *} type=${b#* }
                n=$((n + 1))
                name="$cc $type build with -Werror"
                if [ "$(build_is "$first")" = "$b true" ]; then
                        lint+=$'\n'"ok - $name (the build under test, $first)"
                        continue
                fi
                if ! command -v "$cc" >/dev/null; then
                        lint+=$'\n'"not ok - $name: $cc is not installed (make test-deps)"
                        echo "not ok - $name: $cc is not installed (make test-deps)"
                        continue
                fi
                dir=$(mktemp -d /tmp/cordon-warnings.XXXXXX)
                # and C++ with the same compiler family (agent-toml.cc)
                cxx=g++; [ "$cc" = clang ] && cxx=clang++
                if log=$(CC=$cc CXX=$cxx meson setup "$dir" "$src" --buildtype="$type" \
                        -Dwerror=true -Dtests=enabled 2>&1 && ninja -C "$dir" 2>&1); then
                        lint+=$'\n'"ok - $name"
                else
                        lint+=$'\n'"not ok - $name"
                        echo "not ok - $name:"
                        printf '%s\n' "$log" | grep -E ': (warning|error)|^cc1' | head -20 | sed 's/^/    /'
                fi
                rm -rf "$dir"
        done
        printf '1..%s%s\n' "$n" "$lint" >"$bg/warnings.tap"
}

first=$1
# Started in a process group of its own (set -m), so that an interrupted run ends it whole.
set -m
(
        renice -n 19 -p "$BASHPID" >/dev/null
        i=0
        for build in "$@"; do
                i=$((i + 1))
                [ $i -eq 1 ] && continue
                ninja -C "$build" >"$bg/build-$i.log" 2>&1
                echo $? >"$bg/build-$i.rc"
        done
        warnings_builds >"$bg/warnings.out" 2>&1
        echo finished >"$bg/warnings.rc"
) &
bg_pid=$!
set +m

# wait_for FILE: until the background job has written it (or has died without doing so)
wait_for() {
        while [ ! -e "$1" ]; do
                kill -0 "$bg_pid" 2>/dev/null || [ -e "$1" ] || return 1
                sleep 1
        done
}

i=0
for build in "$@"; do
        i=$((i + 1))
        if [ $i -gt 1 ]; then
                echo "## building $build (at $SECONDS s)"
                if ! wait_for "$bg/build-$i.rc" || [ "$(cat "$bg/build-$i.rc")" != 0 ]; then
                        failed "building $build failed:"
                        grep -E ': (warning|error)|^FAILED' "$bg/build-$i.log" | head -20 | sed 's/^/    /'
                        fail=$((fail + 1))
                        continue
                fi
        fi
        export ASAN_OPTIONS=detect_leaks=1
        echo "## unit tests ($build) (at $SECONDS s)"
        if ! compgen -G "$build/tests/unit/test-*" >/dev/null; then
                failed "no unit tests were built in $build (is Criterion installed?)"
                fail=$((fail + 1))
        fi
        for t in "$build"/tests/unit/test-*; do
                [ -f "$t" ] && [ -x "$t" ] || continue
                out=$("$t" --tap=- 2>&1); st=$?
                printf '%s\n' "$out" | grep -E '^(not ok|ok|#   |  - )' | sed "s|^|${t##*/}: |"
                count "${t##*/}" $st "$out"
        done

        echo "## exported symbols ($build) (at $SECONDS s)"
        out=$("$src/tests/check-lib-symbols.sh" "$src" "$build/src/lib/libcordon.so" 2>&1); st=$?
        printf '%s\n' "$out" | grep -E '^(not ok|#   )'
        count "exported symbols" $st "$out"

        echo "## fuzz corpora ($build) (at $SECONDS s)"
        for r in "$build"/tests/fuzz/replay-*; do
                [ -f "$r" ] && [ -x "$r" ] || continue
                name=${r##*/replay-}
                out=$("$r" "$src/tests/fuzz/corpus/$name" 2>&1); st=$?
                printf '%s\n' "$out" | grep -vE '^(ok|1\.\.)' | sed "s|^|${r##*/}: |"
                echo "${r##*/}: $(printf '%s\n' "$out" | grep -cE '^ok') inputs"
                count "${r##*/}" $st "$out"
        done

        export ASAN_OPTIONS=detect_leaks=0
        echo "## shell suites ($build) (at $SECONDS s)"
        # The builds after the first (the sanitizer build) share the shell suites' runs out
        # between the two users rather than running each in both (T_TAP_SPLIT, run-tap.sh).
        split=0; [ $i -gt 1 ] && split=1
        out=$(T_TAP_SPLIT=$split "$src/tests/run-tap.sh" "$build" 2>&1)
        printf '%s\n' "$out"
        # each failing check with its file and run, for the list at the end, and the first lines of
        # what it printed (expected and actual), indented
        printf '%s\n' "$out" | awk -v b="$build" '/^# tests\//{f=$0; sub(/ [0-9.]+ s$/, "", f); sub(/^# /, "", f)}
                d > 0 && /^    #/{d--; print "    " substr($0, 6); next} {d = 0}
                /^    not ok/{print b ": " f ": " substr($0, 5); d = 4} /^not ok/{print b ": " $0}' >>"$bg/failed"
        line=$(printf '%s\n' "$out" | tail -1)
        if [[ $line =~ ^tap:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
                pass=$((pass + BASH_REMATCH[1])); fail=$((fail + BASH_REMATCH[2]))
                skipped=$((skipped + BASH_REMATCH[3]))
        else
                failed "shell suites of $build did not finish"; fail=$((fail + 1))
        fi
done

echo "## formatting (at $SECONDS s)"
if command -v clang-format >/dev/null && files=$(cd "$src" && git ls-files '*.c' '*.cc' '*.h' 2>/dev/null); then
        lint="1..$(printf '%s\n' "$files" | grep -c .)"
        # One clang-format for all files (one per file took half a minute); it names each
        # file that differs ("FILE:LINE:COL: error: ..."). Should it fail without naming one,
        # each file is checked on its own.
        # shellcheck disable=SC2086 # the file names are git's, without blanks
        if out=$(cd "$src" && clang-format --dry-run -Werror $files 2>&1 >/dev/null); then
                bad=""
        else
                bad=$(printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
                [ -n "$bad" ] || bad=$files
        fi
        for f in $files; do
                if ! grep -qxF -- "$f" <<<"$bad" ||
                        (cd "$src" && clang-format --dry-run -Werror "$f" >/dev/null 2>&1); then
                        lint+=$'\n'"ok - clang-format $f"
                else
                        lint+=$'\n'"not ok - clang-format $f"
                        echo "not ok - clang-format $f (run: make format)"
                fi
        done
        count formatting 0 "$lint"
else
        echo "# clang-format or git not available; formatting not checked"
fi

# src/cli is a client of libcordon: nothing but public, shared and system headers. (The build
# checks the converted files; this checks every file, with no exceptions.)
echo "## public API boundary (at $SECONDS s)"
out=$("$src/tests/check-cli-includes.sh" "$src" 2>&1); st=$?
printf '%s\n' "$out" | grep -E '^(not ok|#   )'
count "public API boundary" $st "$out"

# libcordon's layers include downwards only (policy below launch/mech/resolve, profiles below
# settings).
echo "## layers (at $SECONDS s)"
out=$("$src/tests/check-layers.sh" "$src" 2>&1); st=$?
printf '%s\n' "$out" | grep -E '^(not ok|#   )'
count "layers" $st "$out"

# libcordon's messages name variables, never the cordon program's options or commands.
echo "## library messages (at $SECONDS s)"
out=$("$src/tests/check-lib-no-cli.sh" "$src" 2>&1); st=$?
printf '%s\n' "$out" | grep -E '^(not ok|#   )'
count "library messages" $st "$out"

# docs/agent-sandbox-spec.md against the registry: every variable of agent-sandbox's index has a
# row, and only the Slurm ones are held.
echo "## mission table (at $SECONDS s)"
out=$("$src/tests/check-spec-table.sh" "$src" 2>&1); st=$?
grep -q '^not ok' <<<"$out" && st=1
printf '%s\n' "$out" | grep -E '^(not ok|#   )'
count "mission table" $st "$out"

echo "## warnings (at $SECONDS s)"
if wait_for "$bg/warnings.rc" && [ -f "$bg/warnings.tap" ]; then
        cat "$bg/warnings.out"
        count warnings 0 "$(cat "$bg/warnings.tap")"
else
        failed "the warnings builds did not finish"
        fail=$((fail + 1))
fi

echo "# all suites took $SECONDS s"
if [ -s "$bg/failed" ]; then
        echo "# what failed (the first 40):"
        awk '/^ /{print; next} !seen[$0]++' "$bg/failed" | head -40 | sed 's/^/#   /'
fi
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
