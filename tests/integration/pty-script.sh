#!/usr/bin/env bash
# Must still work: a pseudo-terminal from the sandbox's own devpts, via script(1) from util-linux.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "no private devpts: the host's ptys are not granted"

plan 3
run_sandboxed script -qc 'tty' /dev/null
check "script runs tty on a pty" "0:/dev/pts/0" "$(printf '%s' "$rc:$out" | tr -d '\r')"
run_sandboxed python3 -c 'import os, pty; m, s = pty.openpty(); print(os.ttyname(s))'
check "python opens a pty pair" "0:/dev/pts/0" "$rc:$out"
run_sandboxed sh -c 'ls /dev/pts'
check "only the sandbox's own ptys exist" "0:ptmx" "$rc:$out"
