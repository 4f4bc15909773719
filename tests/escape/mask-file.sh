#!/usr/bin/env bash
# Attack: read, overwrite, remove or rename a file hidden with --mask (a secret in the project).
# Expected: it reads as empty, writes fail with EROFS, the mount cannot be moved (EBUSY), and
# the host file is untouched. Control: without --mask the secret is readable inside.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }
masked() { inside --mask "$T_PROJECT/secret.env" -- python3 -c "$TRY" "$1" secret.env; }

echo "API_SECRET=m4skf1le" > "$T_PROJECT/secret.env"

plan 8
check "control: without --mask the file is readable inside" "OK:API_SECRET=m4skf1le" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' secret.env)"
check "masked file reads empty" "OK:" "$(masked 'open(p).read()')"
check "opening the masked file for writing: EROFS" "EROFS" "$(masked 'open(p, "w")')"
check "truncating the masked file: EROFS" "EROFS" "$(masked 'os.truncate(p, 0)')"
check "unlinking the masked file: EBUSY" "EBUSY" "$(masked 'os.unlink(p)')"
check "renaming the masked file: EBUSY" "EBUSY" "$(masked 'os.rename(p, "moved")')"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --mask "$T_PROJECT/secret.env" -- \
        sh -c 'cat secret.env; grep -r m4skf1le . /proc/self/mountinfo; true' 2>&1)
case $out in
*m4skf1le*) not_ok "the secret is nowhere in the project inside" "output: $out" ;;
*) ok "the secret is nowhere in the project inside" ;;
esac
check "host file is untouched" "API_SECRET=m4skf1le" "$(cat "$T_PROJECT/secret.env")"
