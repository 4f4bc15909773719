#!/usr/bin/env bash
# Must still work: when BLOCKED_FILES entries cannot be protected the run is refused once, naming
# BLOCKED_FILES, every such entry with its reason (not only the first) and the fix (remove the
# entry, or the mkdir -p and touch that create it once outside), before anything is created;
# entries that can be protected do not hide the others. A start that materialises entries says
# so, one line per placeholder and per directory made, naming BLOCKED_FILES.
. "$(dirname "$0")/../lib/tap.sh"

proj=$(realpath "$T_PROJECT")
: >"$proj/f1"; : >"$proj/f2"
plan 10
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --mask "$proj/f1/x" \
        --mask "$proj/fine.md" --mask "$proj/f2/y" -- true 2>&1); rc=$?
check "two entries below files: refused" "125" "$rc"
check "both entries are named, with their reason, and the variable" "1:1" \
        "$(printf '%s\n' "$out" | grep -c "'$proj/f1/x' (from --mask): Not a directory.*'$proj/f2/y' (from --mask): Not a directory"):$(
        printf '%s\n' "$out" | grep -c 'cannot protect 2 BLOCKED_FILES entries')"
check "nothing was created for the entry that could be protected" "absent" \
        "$([ -e "$proj/fine.md" ] && echo present || echo absent)"

# A start that makes them: one line per placeholder and per directory, naming the variable.
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --mask "$proj/new/deep/key.pem" \
        -- true 2>&1); rc=$?
check "materialised: a line per directory made and for the placeholder, naming BLOCKED_FILES" \
        "0:2:1" "$rc:$(printf '%s\n' "$out" | grep -c "^cordon: warning: BLOCKED_FILES: created missing directory '$proj/new\(/deep\)\?' for '$proj/new/deep/key.pem' (from --mask)$"):$(
        printf '%s\n' "$out" | grep -c "^cordon: warning: BLOCKED_FILES: created empty placeholder '$proj/new/deep/key.pem' (from --mask)")"
rm -rf "$proj/new"

if [ "$(id -u)" = 0 ]; then
        # Root writes /etc: a read-only file system stands in for the parent it may not write.
        ro=$T_TMP/ro
        mkdir -p "$ro"
        if ! unshare -m true 2>/dev/null; then
                for i in 1 2 3 4 5 6; do skip "no private mount namespace here" "read-only file system $i"; done
                exit 0
        fi
        out=$(cd "$T_PROJECT" && unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" &&
                shift && exec "$@"' sh "$ro" "$CORDON" run --quiet --net isolated --rw "$ro" \
                --mask "$ro/a/x" --mask "$proj/good.md" --mask "$ro/b" -- true 2>&1); rc=$?
        a="'$ro/a/x' (from --mask): cannot create '$ro/a' in '$ro': Read-only file system"
        b="'$ro/b' (from --mask): cannot create '$ro/b' in '$ro': Read-only file system"
        fix="(remove them from BLOCKED_FILES, or create them once outside the sandbox, as a user who may write there: mkdir -p $ro/a && touch $ro/a/x; touch $ro/b)"
else
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated \
                --set BLOCKED_FILES=/etc/cordon-nonexistent-dir/x --mask "$proj/good.md" \
                --mask /etc/cordon-test-blocked-b -- true 2>&1); rc=$?
        a="'/etc/cordon-nonexistent-dir/x' (from --set BLOCKED_FILES): cannot create '/etc/cordon-nonexistent-dir' in '/etc': Permission denied"
        b="'/etc/cordon-test-blocked-b' (from --mask): cannot create '/etc/cordon-test-blocked-b' in '/etc': Permission denied"
        fix="(remove them from BLOCKED_FILES, or create them once outside the sandbox, as a user who may write there: mkdir -p /etc/cordon-nonexistent-dir && touch /etc/cordon-nonexistent-dir/x; touch /etc/cordon-test-blocked-b)"
fi
check "two entries whose directory may not be written: refused" "125" "$rc"
check_like "the refusal names BLOCKED_FILES and counts both" "cordon: cannot protect 2 BLOCKED_FILES entries: *" "$out"
check_like "the first entry with its origin and reason" "*$a*" "$out"
check_like "the second entry with its origin and reason" "*$b*" "$out"
check_like "the fix: remove them, or the commands that create each" "*; refusing to run with them unprotected $fix" "$out"
check "the entry that could be protected was not created" "absent" \
        "$([ -e "$proj/good.md" ] && echo present || echo absent)"
