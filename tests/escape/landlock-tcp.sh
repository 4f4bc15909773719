#!/usr/bin/env bash
# Attack (landlock backend, which shares the host's network namespace): listen on a TCP port of
# the host's loopback (where other programs of the host would reach it), or connect to a
# service of the host there. Landlock handles TCP bind and connect and grants no port but the
# proxy's: EACCES. Control: with --net open both work.
# Under the ns backend the sandbox's own network namespace is the isolation: a test suite's
# server and client on its loopback work in isolated and proxied mode, and nothing beyond it is
# reachable (ENETUNREACH).
. "$(dirname "$0")/../lib/tap.sh"

NET='import errno, socket, sys
try:
    if sys.argv[1] == "bind":
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); print("OK")
    elif sys.argv[1] == "connect":
        socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=5); print("OK")
    elif sys.argv[1] == "loop":
        srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
        c = socket.create_connection(srv.getsockname(), timeout=5)
        a, _ = srv.accept(); a.sendall(b"pong"); print("OK:" + c.recv(4).decode())
    elif sys.argv[1] == "out":
        socket.create_connection(("192.0.2.1", 80), timeout=5); print("OK")
except OSError as e:
    print(errno.errorcode[e.errno] if e.errno else type(e).__name__)'
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet "$@" 2>&1); }

plan 10
# A service of the host on its loopback, for the whole file.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8); print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); c.close()' >"$T_TMP/port" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$T_TMP/port" ] && break; sleep 0.1; done
port=$(cat "$T_TMP/port")

ll() { inside --backend landlock "$@"; }
check "landlock, proxied: TCP listen on the host's loopback: EACCES" "EACCES" \
        "$(ll --net proxied -- python3 -c "$NET" bind)"
check "landlock, proxied: TCP connect to a service of the host: EACCES" "EACCES" \
        "$(ll --net proxied -- python3 -c "$NET" connect "$port")"
check "landlock, isolated: no TCP socket at all (seccomp): EPERM" "EPERM" \
        "$(ll --net isolated -- python3 -c "$NET" bind)"
check "control: landlock with --net open listens" "OK" "$(ll --net open -- python3 -c "$NET" bind)"
check "control: landlock with --net open reaches the host's service" "OK" \
        "$(ll --net open -- python3 -c "$NET" connect "$port")"

ns() { inside --backend ns "$@"; }
for mode in isolated proxied; do
        check "ns, $mode: a TCP server and client on the sandbox's own loopback work" "OK:pong" \
                "$(ns --net "$mode" -- python3 -c "$NET" loop)"
done
check "ns, isolated: the host's service is out of reach (its own loopback)" "ECONNREFUSED" \
        "$(ns --net isolated -- python3 -c "$NET" connect "$port")"
check "ns, isolated: nothing beyond the loopback: ENETUNREACH" "ENETUNREACH" \
        "$(ns --net isolated -- python3 -c "$NET" out)"
check "ns, proxied: nothing beyond the loopback but through the proxy: ENETUNREACH" "ENETUNREACH" \
        "$(ns --net proxied -- python3 -c "$NET" out)"
