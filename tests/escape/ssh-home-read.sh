#!/usr/bin/env bash
# Attack: with --home-access read the whole home is bound; ~/.ssh, ~/.aws, ~/.gnupg must still
# be masked. Control: in the same mode another dotfile directory of the home is readable.
. "$(dirname "$0")/../lib/tap.sh"

inside() {
        (cd "$T_PROJECT" && "$CORDON" run --quiet --home-access read -- python3 -c "$TRY" "$@" 2>&1)
}

mkdir -p "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg" "$HOME/.config/tool"
chmod 700 "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg"
echo "SSH-PRIVATE-KEY-h0mer34d" > "$HOME/.ssh/id_rsa"
echo "AWS-SECRET-h0mer34d" > "$HOME/.aws/credentials"
echo "tool-settings" > "$HOME/.config/tool/settings"

plan 6
check "control: ~/.config/tool/settings is readable with --home-access read" "OK:tool-settings" \
        "$(inside 'open(p).read()' "$HOME/.config/tool/settings")"
check "~/.ssh/id_rsa: ENOENT" "ENOENT" "$(inside 'open(p).read()' "$HOME/.ssh/id_rsa")"
check "~/.ssh lists empty" "OK:[]" "$(inside 'os.listdir(p)' "$HOME/.ssh")"
check "~/.aws/credentials: ENOENT" "ENOENT" "$(inside 'open(p).read()' "$HOME/.aws/credentials")"
check "~/.gnupg lists empty" "OK:[]" "$(inside 'os.listdir(p)' "$HOME/.gnupg")"
check "creating ~/.ssh/authorized_keys: EROFS" "EROFS" \
        "$(inside 'open(p, "w")' "$HOME/.ssh/authorized_keys")"
