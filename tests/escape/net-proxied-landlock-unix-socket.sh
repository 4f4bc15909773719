#!/usr/bin/env bash
# Attack (proxied mode, landlock backend): a host service's unix socket under the project, a
# granted path, as a way out past the proxy. On a kernel whose Landlock cannot keep the socket out
# by path, the supervisor connects the command's unix sockets only to sockets the command bound
# itself: EACCES, with one line naming the gap (every other way of naming the socket:
# landlock-unix-own-sockets.sh; network mode open keeps it out the same way:
# landlock-open-unix.sh). Control: outside the sandbox the same user's connect reaches the
# service.
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/proxied-landlock.sh"
landlock_proxied_plan 3

python3 -c "$UNIX_LISTEN" "$T_PROJECT/host.sock" "$T_TMP/uready" &
usrv=$!
trap 'kill "$usrv" 2>/dev/null; rm -f "$T_PROJECT/host.sock"' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/uready" ] && break; sleep 0.05; done
chmod 666 "$T_PROJECT/host.sock" 2>/dev/null

in_cordon "${P[@]}" -- python3 -c "$UCONNECT" "$T_PROJECT/host.sock"
take_unix_note
check "connect to the host unix socket $T_PROJECT/host.sock: EACCES (not a socket it bound)" "EACCES" "$out"
check "the refusal comes with one line naming the gap" 1 "$notes"
check "control: outside the sandbox the same connect reaches it" "OK:HOST-SERVICE" \
        "$(python3 -c "$UCONNECT" "$T_PROJECT/host.sock")"
