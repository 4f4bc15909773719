#!/usr/bin/env bash
# Attack: ~/.ssh is a symlink to a directory elsewhere in the home (~/.config/keys); reach the
# keys through the link or through the target. Control: both paths read the key outside.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }

mkdir -p "$HOME/.config/keys" "$HOME/.aws" "$HOME/.gnupg"
chmod 700 "$HOME/.config/keys"
echo "SSH-PRIVATE-KEY-l1nkd1r" > "$HOME/.config/keys/id_rsa"
ln -s .config/keys "$HOME/.ssh"

plan 6
check "control: ~/.ssh/id_rsa (through the link) is readable outside" "OK:SSH-PRIVATE-KEY-l1nkd1r" \
        "$(python3 -c "$TRY" 'open(p).read()' "$HOME/.ssh/id_rsa" 2>&1)"
check "~/.ssh/id_rsa: ENOENT" "ENOENT" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' "$HOME/.ssh/id_rsa")"
check "--rw ~/.config: the link target ~/.config/keys/id_rsa ENOENT" "ENOENT" \
        "$(inside --rw "$HOME/.config" -- python3 -c "$TRY" 'open(p).read()' \
                "$HOME/.config/keys/id_rsa")"
check "--ro ~/.config/keys: ENOENT" "ENOENT" \
        "$(inside --ro "$HOME/.config/keys" -- python3 -c "$TRY" 'open(p).read()' \
                "$HOME/.config/keys/id_rsa")"
# With the whole home bound, a mount cannot cover the symlink itself; cordon must either hide
# the target or refuse to run (125). Either way the key must not come out.
for mode in read write; do
        out=$(inside --home-access "$mode" -- python3 -c "$TRY" \
                'open(p).read() + " " + open(sys.argv[3]).read()' "$HOME/.ssh/id_rsa" \
                "$HOME/.config/keys/id_rsa"); rc=$?
        case "$rc:$out" in
        *l1nkd1r*) not_ok "--home-access $mode: key hidden or run refused" "rc=$rc" "output: $out" ;;
        0:ENOENT | 125:*) ok "--home-access $mode: key hidden or run refused (rc=$rc)" ;;
        *) not_ok "--home-access $mode: key hidden or run refused" "rc=$rc" "output: $out" ;;
        esac
done
