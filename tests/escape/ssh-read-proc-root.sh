#!/usr/bin/env bash
# Attack: reach ~/.ssh through the magic links /proc/self/root, /proc/1/root and /proc/1/cwd.
# Control: /proc/self/root leads to the key outside the sandbox.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$@" 2>&1); }

mkdir -p "$HOME/.ssh"
chmod 700 "$HOME/.ssh"
echo "SSH-PRIVATE-KEY-pr0cr00t" > "$HOME/.ssh/id_rsa"

plan 5
check "control: /proc/self/root\$HOME/.ssh/id_rsa is readable outside" "OK:SSH-PRIVATE-KEY-pr0cr00t" \
        "$(python3 -c "$TRY" 'open(p).read()' "/proc/self/root$HOME/.ssh/id_rsa" 2>&1)"
check "/proc/self/root\$HOME/.ssh/id_rsa: ENOENT" "ENOENT" \
        "$(inside 'open(p).read()' "/proc/self/root$HOME/.ssh/id_rsa")"
# PID 1 (cordon's init) is not dumpable, so its root and cwd links are closed to the command.
check "/proc/1/root\$HOME/.ssh/id_rsa: EACCES" "EACCES" \
        "$(inside 'open(p).read()' "/proc/1/root$HOME/.ssh/id_rsa")"
check "listing /proc/1/root: EACCES" "EACCES" "$(inside 'os.listdir(p)' /proc/1/root)"
check "/proc/1/cwd: EACCES" "EACCES" "$(inside 'os.listdir(p)' /proc/1/cwd)"
