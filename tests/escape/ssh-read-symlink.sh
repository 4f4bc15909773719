#!/usr/bin/env bash
# Attack: symlinks planted in the project (relative, absolute, to the directory) that point at
# ~/.ssh, and such a symlink passed to --ro. Control: the links lead to the key outside.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }

# .aws and .gnupg exist so that --home-access write has no warnings to print.
mkdir -p "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg"
chmod 700 "$HOME/.ssh"
echo "SSH-PRIVATE-KEY-syml1nk" > "$HOME/.ssh/id_rsa"
ln -s ../.ssh/id_rsa "$T_PROJECT/rel-key"
ln -s "$HOME/.ssh/id_rsa" "$T_PROJECT/abs-key"
ln -s "$HOME/.ssh" "$T_PROJECT/ssh-dir"

plan 7
check "control: the relative link reads the key outside" "OK:SSH-PRIVATE-KEY-syml1nk" \
        "$(cd "$T_PROJECT" && python3 -c "$TRY" 'open(p).read()' rel-key 2>&1)"
check "control: the directory link reads the key outside" "OK:SSH-PRIVATE-KEY-syml1nk" \
        "$(cd "$T_PROJECT" && python3 -c "$TRY" 'open(p).read()' ssh-dir/id_rsa 2>&1)"
check "relative link ../.ssh/id_rsa: ENOENT" "ENOENT" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' rel-key)"
check "absolute link \$HOME/.ssh/id_rsa: ENOENT" "ENOENT" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' abs-key)"
check "directory link \$HOME/.ssh: ENOENT" "ENOENT" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' ssh-dir/id_rsa)"
check "absolute link with --home-access write: ENOENT" "ENOENT" \
        "$(inside --home-access write -- python3 -c "$TRY" 'open(p).read()' abs-key)"
# A link in the project, handed to --ro, is one a sandbox could have planted: refused (it was
# bound at its target, where the credential mask covered it).
out=$(inside --ro "$T_PROJECT/ssh-dir" -- python3 -c "$TRY" 'open(p).read()' ssh-dir/id_rsa)
case "$?:$out" in
"125:"*"symlink '$T_PROJECT/ssh-dir'"*) ok "--ro of the planted directory link: refused (125)" ;;
*) not_ok "--ro of the planted directory link: refused (125)" "output: $out" ;;
esac
