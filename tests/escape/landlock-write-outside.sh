#!/usr/bin/env bash
# Attack (landlock backend: no namespaces, the command sees the host's own files): write outside
# the project, into $T_TMP and $HOME, which are real host directories here. Expected: EACCES
# from Landlock and nothing on the host. Control: the project is writable, and the same writes
# work with --profile unrestricted (Landlock and seccomp off).
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock "$@" 2>&1) | drop_net_fallback; }
create='open(p, "x").write("evil")'

echo "host data" > "$T_TMP/existing"

plan 9
check "control: creating a file in the project works" "OK:4" \
        "$(inside -- python3 -c "$TRY" "$create" "$T_PROJECT/made-inside")"
check "... and it is on the host" "evil" "$(cat "$T_PROJECT/made-inside" 2>&1)"
check "creating \$T_TMP/evil: EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" "$create" "$T_TMP/evil")"
check "... and \$T_TMP/evil does not exist on the host" "absent" \
        "$([ -e "$T_TMP/evil" ] && echo present || echo absent)"
check "appending to \$T_TMP/existing: EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" 'open(p, "a")' "$T_TMP/existing")"
check "creating \$HOME/evil (home not granted): EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" "$create" "$HOME/evil")"
check "... and the host file is untouched" "host data" "$(cat "$T_TMP/existing")"
check "control: with --profile unrestricted the write to \$T_TMP works" "OK:4" \
        "$(inside --profile unrestricted -- python3 -c "$TRY" "$create" "$T_TMP/evil")"
check "control: ... and lands on the host" "evil" "$(cat "$T_TMP/evil" 2>&1)"
