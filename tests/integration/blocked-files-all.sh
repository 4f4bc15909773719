#!/usr/bin/env bash
# Must still work: when BLOCKED_FILES entries cannot be protected the run is refused once, with
# every such entry named and its reason, not only the first; entries that can be protected do
# not hide the others.
. "$(dirname "$0")/../lib/tap.sh"

proj=$(realpath "$T_PROJECT")
: >"$proj/f1"; : >"$proj/f2"
plan 4
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --mask "$proj/f1/x" \
        --mask "$proj/fine.md" --mask "$proj/f2/y" -- true 2>&1); rc=$?
check "two entries below files: refused" "125" "$rc"
check "both entries are named, with their reason" "1:1" \
        "$(printf '%s\n' "$out" | grep -c "'$proj/f1/x' (from --mask): Not a directory.*'$proj/f2/y' (from --mask): Not a directory"):$(
        printf '%s\n' "$out" | grep -c 'cannot protect 2 blocked files')"
rm -f "$proj/fine.md"
if [ "$(id -u)" = 0 ]; then
        ok "# SKIP as root /etc is writable: placeholders there would be created"
        ok "# SKIP as root /etc is writable: placeholders there would be created"
        exit 0
fi
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --mask /etc/cordon-test-blocked-a \
        --mask /etc/cordon-test-blocked-b -- true 2>&1); rc=$?
check "two entries in /etc (not writable): refused" "125" "$rc"
check "both are named, with the reason" "1" \
        "$(printf '%s\n' "$out" | grep -c "'/etc/cordon-test-blocked-a' (.*): Permission denied; '/etc/cordon-test-blocked-b' (.*): Permission denied")"
