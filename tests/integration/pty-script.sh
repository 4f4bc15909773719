#!/usr/bin/env bash
# Must still work: a pseudo-terminal via script(1) from util-linux and Python's pty module. The ns
# backend has a devpts of its own; the landlock backend opens the host's /dev/ptmx and gets the
# other end from the supervisor (TIOCGPTPEER answered on its behalf), with /dev/pts closed.
. "$(dirname "$0")/../lib/tap.sh"

plan 8
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

# tmux inside: its server's socket goes to $TMUX_TMPDIR (the private TMPDIR under the landlock
# backend), and its panes are ptys from openpty(). The landlock backend's isolated network
# refuses socket() altogether, tmux's unix socket included, with one line that says why; with
# --net open it works, and under the proxied network too (the landlock backend's supervisor
# lets the client reach the server the command started, and nothing of the host's).
TMUX_TRY='tmux new-session -d -s t "sleep 30" && tmux list-sessions -F "#{session_name}:#{pane_tty}"; tmux kill-server'
out=$(cd "$T_PROJECT" && timeout 30 "$CORDON" run --quiet --net open -- sh -c "$TMUX_TRY" 2>&1); rc=$?
check "tmux starts a session on a pty (--net open)" "0:t:/dev/pts/N" \
        "$(sed -E 's|/dev/pts/[0-9]+$|/dev/pts/N|' <<<"$rc:$out")"
out=$(cd "$T_PROJECT" && timeout 30 "$CORDON" run --quiet --net proxied -- sh -c "$TMUX_TRY" 2>&1); rc=$?
check "tmux starts a session on a pty (--net proxied), without a line" "0:t:/dev/pts/N" \
        "$(sed -E 's|/dev/pts/[0-9]+$|/dev/pts/N|' <<<"$rc:$out")"
out=$(cd "$T_PROJECT" && timeout 30 "$CORDON" run --quiet --net isolated -- sh -c "$TMUX_TRY" 2>&1); rc=$?
take_unix_note
out=$(sed -E 's|/dev/pts/[0-9]+$|/dev/pts/N|; s|connecting to .*/tmux-[0-9]+/default|connecting to SOCKET|' <<<"$out" | head -1)
check "tmux under the isolated network" \
        "$(on_backend "t:/dev/pts/N" "error connecting to SOCKET (Operation not permitted)")" "$out"
check "tmux under the isolated network: $(on_backend "no line about unix sockets" "one line naming the gap")" \
        "$(on_backend 0 1)" "$notes"
