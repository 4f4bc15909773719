#!/usr/bin/env bash
# Attack (proxied mode, landlock backend): a TCP service on the host's loopback, on a port other
# than the proxy's (no network namespace: the sandbox shares the host's 127.0.0.1). Landlock's TCP
# rule grants connect to the proxy's port only: EACCES. Control: under --net open (the same
# backend) the same connect reaches the service.
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/proxied-landlock.sh"
landlock_proxied_plan 2

python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept(); c.sendall(c.recv(4)); c.close()' "$T_TMP/lport" &
lsrv=$!
trap 'kill "$lsrv" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$T_TMP/lport" ] && break; sleep 0.05; done
lport=$(cat "$T_TMP/lport")

probe "${P[@]}" -- tcp 127.0.0.1 "$lport"
check "TCP to the host's 127.0.0.1:$lport: EACCES" "EACCES" "$out"
in_open python3 -c "$NET_PROBE" tcp 127.0.0.1 "$lport"
check "control: --net open reaches it" "OK:ping" "$out"
