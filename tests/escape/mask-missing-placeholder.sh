#!/usr/bin/env bash
# Attack: --mask of a file that does not exist yet, so the sandbox could create it (a .env the
# host later trusts). cordon must create an empty placeholder, say so, and keep it read-only.
# Control: the same create succeeds inside when the path is not masked.
. "$(dirname "$0")/../lib/tap.sh"

write='open(p, "w").write("PLANTED")'

plan 9
check "control: creating .env-control in the project works inside" "OK:7" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$write" .env-control 2>&1)"
err=$(cd "$T_PROJECT" && "$CORDON" run --quiet --mask "$T_PROJECT/.env" -- \
        python3 -c "$TRY" "$write" .env 2>&1 >"$T_TMP/out"); rc=$?
check "the run with a missing --mask file succeeds" "0" "$rc"
check "exactly one warning names the placeholder" \
        "cordon: warning: BLOCKED_FILES: created empty placeholder '$T_PROJECT/.env' (from --mask), to be hidden inside" \
        "$err"
check "writing the placeholder inside: EROFS" "EROFS" "$(cat "$T_TMP/out")"
check "the placeholder exists on the host, empty" "file:0" \
        "$([ -f "$T_PROJECT/.env" ] && echo "file:$(stat -c %s "$T_PROJECT/.env")")"
check "the placeholder reads empty inside" "OK:" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet --mask "$T_PROJECT/.env" -- \
                python3 -c "$TRY" 'open(p).read()' .env 2>&1)"
# A missing parent directory is created too, and announced.
err=$(cd "$T_PROJECT" && "$CORDON" run --quiet --mask "$T_PROJECT/conf/key.pem" -- true 2>&1); rc=$?
check "a missing parent: the run succeeds" "0" "$rc"
case $err in
*"created missing directory '$T_PROJECT/conf'"*"created empty placeholder '$T_PROJECT/conf/key.pem'"*)
        ok "a missing parent: directory and placeholder are announced" ;;
*) not_ok "a missing parent: directory and placeholder are announced" "stderr: $err" ;;
esac
check "a second run with the placeholder in place is silent" "" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet --mask "$T_PROJECT/.env" -- true 2>&1)"
