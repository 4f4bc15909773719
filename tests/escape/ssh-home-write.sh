#!/usr/bin/env bash
# Attack: with --home-access write the home is bound read-write; read the key, plant an
# authorized_keys, move or remove the mask, create a missing ~/.aws. Control: other home writes land.
. "$(dirname "$0")/../lib/tap.sh"

inside() {
        (cd "$T_PROJECT" &&
                "$CORDON" run --quiet --home-access write -- python3 -c "$TRY" "$@" 2>/dev/null)
}

mkdir -p "$HOME/.ssh" "$HOME/.gnupg"
chmod 700 "$HOME/.ssh"
echo "SSH-PRIVATE-KEY-h0mewr1te" > "$HOME/.ssh/id_rsa"

plan 11
# ~/.aws does not exist and this is the first write-mode run: cordon creates it empty on the
# host, with a warning, and masks it.
err=$(cd "$T_PROJECT" && "$CORDON" run --quiet --home-access write -- python3 -c "$TRY" \
        'open(p, "w").write("planted")' "$HOME/.aws/credentials" 2>&1 >"$T_TMP/aws.out")
check "creating ~/.aws/credentials when ~/.aws was missing: EROFS" "EROFS" "$(cat "$T_TMP/aws.out")"
case $err in
*"created empty '$HOME/.aws'"*) ok "the empty ~/.aws placeholder is announced" ;;
*) not_ok "the empty ~/.aws placeholder is announced" "stderr: $err" ;;
esac
check "control: ~/newfile can be written with --home-access write" "OK:6" \
        "$(inside 'open(p, "w").write("landed")' "$HOME/newfile")"
check "control: ... and it landed on the host" "landed" "$(cat "$HOME/newfile" 2>&1)"
check "~/.ssh/id_rsa: ENOENT" "ENOENT" "$(inside 'open(p).read()' "$HOME/.ssh/id_rsa")"
check "creating ~/.ssh/authorized_keys: EROFS" "EROFS" \
        "$(inside 'open(p, "w")' "$HOME/.ssh/authorized_keys")"
check "renaming the ~/.ssh mask away: EBUSY" "EBUSY" \
        "$(inside 'os.rename(p, p + ".old")' "$HOME/.ssh")"
check "removing the ~/.ssh mask: EBUSY" "EBUSY" "$(inside 'os.rmdir(p)' "$HOME/.ssh")"
check "host ~/.ssh is unchanged" "id_rsa" "$(ls -A "$HOME/.ssh")"
check "host ~/.aws exists and stayed empty" "dir:" \
        "$([ -d "$HOME/.aws" ] && echo "dir:$(ls -A "$HOME/.aws")")"
check "host ~/.aws has mode 0700" "700" "$(stat -c %a "$HOME/.aws" 2>&1)"
