#!/usr/bin/env bash
# Attack: with --home-access write the home is bound read-write; read the key, plant an
# authorized_keys, move or remove the mask, create a missing ~/.aws. Control: writes to the
# home's existing entries land.
. "$(dirname "$0")/../lib/tap.sh"

inside() {
        (cd "$T_PROJECT" &&
                "$CORDON" run --quiet --home-access write -- python3 -c "$TRY" "$@" 2>/dev/null)
}

mkdir -p "$HOME/.ssh" "$HOME/.gnupg"
chmod 700 "$HOME/.ssh"
echo "SSH-PRIVATE-KEY-h0mewr1te" > "$HOME/.ssh/id_rsa"

plan 11
# ~/.aws does not exist: the home is carved (read-only, each entry read-write), so the sandbox
# cannot create it, and nothing is made on the host for it.
check "creating ~/.aws/credentials when ~/.aws was missing: ENOENT" "ENOENT" \
        "$(inside 'open(p, "w").write("planted")' "$HOME/.aws/credentials")"
check "creating ~/.aws: EROFS" "EROFS" "$(inside 'os.mkdir(p)' "$HOME/.aws")"
echo "notes" > "$HOME/notes.txt"
check "control: ~/notes.txt can be written with --home-access write" "OK:6" \
        "$(inside 'open(p, "w").write("landed")' "$HOME/notes.txt")"
check "control: ... and it landed on the host" "landed" "$(cat "$HOME/notes.txt" 2>&1)"
check "~/.ssh/id_rsa: ENOENT" "ENOENT" "$(inside 'open(p).read()' "$HOME/.ssh/id_rsa")"
check "creating ~/.ssh/authorized_keys: EROFS" "EROFS" \
        "$(inside 'open(p, "w")' "$HOME/.ssh/authorized_keys")"
check "renaming the ~/.ssh mask away: EROFS (the home is read-only)" "EROFS" \
        "$(inside 'os.rename(p, p + ".old")' "$HOME/.ssh")"
check "removing the ~/.ssh mask: EROFS" "EROFS" "$(inside 'os.rmdir(p)' "$HOME/.ssh")"
check "host ~/.ssh is unchanged" "id_rsa" "$(ls -A "$HOME/.ssh")"
check "no ~/.aws was created on the host" "absent" \
        "$([ -e "$HOME/.aws" ] && echo present || echo absent)"
check "no ~/.gnupg placeholder either (it existed)" "dir:" \
        "$([ -d "$HOME/.gnupg" ] && echo "dir:$(ls -A "$HOME/.gnupg")")"
