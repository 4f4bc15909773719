#!/usr/bin/env bash
# Must still work: the sandbox has its own UTS namespace with the hostname "cordon"; the host's
# hostname is unchanged and setting it inside fails (no capabilities).
. "$(dirname "$0")/../lib/tap.sh"
ns_only "no uts namespace: the hostname is the host's"

host=$(cat /proc/sys/kernel/hostname)

plan 4
run_sandboxed hostname
check "hostname inside" "0:cordon" "$rc:$out"
run_sandboxed python3 -c 'import os; print(os.uname().nodename)'
check "uname nodename inside" "0:cordon" "$rc:$out"
run_sandboxed python3 -c 'import errno, socket
try:
    socket.sethostname("changed")
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])'
check "sethostname inside: EPERM" "EPERM" "$out"
check "the host hostname is unchanged" "$host" "$(cat /proc/sys/kernel/hostname)"
