#!/usr/bin/env bash
# Attack: climb out of the project with ".." to ~/.ssh/id_rsa (relative to the cwd, and through
# the scratch dir that holds $HOME). Control: the same relative path reads the key outside.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }

mkdir -p "$HOME/.ssh"
chmod 700 "$HOME/.ssh"
echo "SSH-PRIVATE-KEY-d0td0t" > "$HOME/.ssh/id_rsa"
home_name=$(basename "$HOME")

plan 5
check "control: ../.ssh/id_rsa from the project is readable outside" "OK:SSH-PRIVATE-KEY-d0td0t" \
        "$(cd "$T_PROJECT" && python3 -c "$TRY" 'open(p).read()' ../.ssh/id_rsa 2>&1)"
check "../.ssh/id_rsa from the project: ENOENT" "ENOENT" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' ../.ssh/id_rsa)"
check "../../$home_name/.ssh/id_rsa (through the parent of \$HOME): ENOENT" "ENOENT" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' "../../$home_name/.ssh/id_rsa")"
check "proj/../.ssh/id_rsa spelled absolutely: ENOENT" "ENOENT" \
        "$(inside -- python3 -c "$TRY" 'open(p).read()' "$T_PROJECT/../.ssh/id_rsa")"
check "../.ssh/id_rsa with --home-access read (home bound, mask must hold): ENOENT" "ENOENT" \
        "$(inside --home-access read -- python3 -c "$TRY" 'open(p).read()' ../.ssh/id_rsa)"
