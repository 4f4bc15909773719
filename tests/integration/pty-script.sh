#!/usr/bin/env bash
# Must still work: a pseudo-terminal via script(1) from util-linux and Python's pty module. The ns
# backend has a devpts of its own; the landlock backend opens the host's /dev/ptmx and gets the
# other end from the supervisor (TIOCGPTPEER answered on its behalf), with /dev/pts closed.
. "$(dirname "$0")/../lib/tap.sh"

plan 4
landlock=$(on_backend no yes)
# pty_name STATUS:OUTPUT: the ns backend's first pty is /dev/pts/0; the host's devpts numbers
# the landlock backend's among everyone else's.
pty_name() {
        if [ "$landlock" = yes ]; then sed -E 's|^0:/dev/pts/[0-9]+$|0:/dev/pts/N|' <<<"$1"
        else echo "$1"; fi
}
want=$(on_backend "0:/dev/pts/0" "0:/dev/pts/N")
run_sandboxed script -qc 'tty' /dev/null
check "script runs tty on a pty" "$want" "$(pty_name "$(printf '%s' "$rc:$out" | tr -d '\r')")"
run_sandboxed script -qec tty /dev/null
check "script -e returns tty's status on a pty" "$want" "$(pty_name "$(printf '%s' "$rc:$out" | tr -d '\r')")"
run_sandboxed python3 -c 'import os, pty; m, s = pty.openpty(); print(os.ttyname(s))'
check "python opens a pty pair" "$want" "$(pty_name "$rc:$out")"
if [ "$landlock" = yes ]; then
        # The host's devpts holds the user's terminals: not even listed.
        run_sandboxed python3 -c "$TRY" 'os.listdir(p)' /dev/pts
        check "the host's /dev/pts cannot be listed" "0:EACCES" "$rc:$out"
else
        run_sandboxed sh -c 'ls /dev/pts'
        check "only the sandbox's own ptys exist" "0:ptmx" "$rc:$out"
fi
