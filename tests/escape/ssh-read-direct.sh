#!/usr/bin/env bash
# Attack: read the credential stores (~/.ssh, ~/.aws, ~/.gnupg) at their own paths from inside.
# Control: the very same reads succeed outside the sandbox.
. "$(dirname "$0")/../lib/tap.sh"

# Evaluates a Python expression on p = argv[2]: prints OK:<result> or the errno name.
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$@" 2>&1); }

mkdir -p "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg/private-keys-v1.d"
chmod 700 "$HOME/.ssh" "$HOME/.aws" "$HOME/.gnupg"
echo "SSH-PRIVATE-KEY-d1r3ct" > "$HOME/.ssh/id_rsa"
echo "AWS-SECRET-d1r3ct" > "$HOME/.aws/credentials"
echo "GPG-KEY-d1r3ct" > "$HOME/.gnupg/private-keys-v1.d/key.key"

plan 7
check "control: ~/.ssh/id_rsa is readable outside" "OK:SSH-PRIVATE-KEY-d1r3ct" \
        "$(python3 -c "$TRY" 'open(p).read()' "$HOME/.ssh/id_rsa" 2>&1)"
check "control: ~/.aws/credentials is readable outside" "OK:AWS-SECRET-d1r3ct" \
        "$(python3 -c "$TRY" 'open(p).read()' "$HOME/.aws/credentials" 2>&1)"
check "~/.ssh/id_rsa: ENOENT inside" "ENOENT" "$(inside 'open(p).read()' "$HOME/.ssh/id_rsa")"
check "listing ~/.ssh: ENOENT inside" "ENOENT" "$(inside 'os.listdir(p)' "$HOME/.ssh")"
check "~/.aws/credentials: ENOENT inside" "ENOENT" "$(inside 'open(p).read()' "$HOME/.aws/credentials")"
check "~/.gnupg private key: ENOENT inside" "ENOENT" \
        "$(inside 'open(p).read()' "$HOME/.gnupg/private-keys-v1.d/key.key")"
# A shell glob over the whole of $HOME: none of the secrets may come out.
run_sandboxed sh -c 'cat "$HOME"/.ssh/* "$HOME"/.aws/* "$HOME"/.*/* "$HOME"/.gnupg/*/* 2>/dev/null; true'
case $out in
*-d1r3ct*) not_ok "no secret reachable by globbing \$HOME" "output: $out" ;;
*) ok "no secret reachable by globbing \$HOME" ;;
esac
