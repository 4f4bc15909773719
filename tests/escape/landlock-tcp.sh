#!/usr/bin/env bash
# Attack (ns backend, isolated network): TCP on the loopback of the sandbox's own network
# namespace, e.g. a server that other sandboxed code could reach. Landlock handles TCP bind and
# connect and grants no port: EACCES. UDP and unix sockets are not TCP and keep working.
# Control: with --profile unrestricted (no Landlock) bind works and connect is refused by the
# (empty) loopback.
. "$(dirname "$0")/../lib/tap.sh"

NET='import errno, socket, sys
s = socket.socket()
try:
    if sys.argv[1] == "bind":
        s.bind(("127.0.0.1", 0)); print("OK")
    elif sys.argv[1] == "bind-port":
        s.bind(("127.0.0.1", 8080)); print("OK")
    elif sys.argv[1] == "connect":
        s.connect(("127.0.0.1", 9)); print("OK")
    elif sys.argv[1] == "udp":
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
        u.sendto(b"ping", u.getsockname()); print("OK:" + u.recv(4).decode())
except OSError as e:
    print(errno.errorcode[e.errno])'
inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --backend ns "$@" 2>&1); }

plan 7
if ! out=$(inside -- true); then
        for t in 1 2 3 4 5 6 7; do skip "the ns backend does not run here: $out" "TCP under Landlock ($t)"; done
        exit 0
fi
check "TCP bind to 127.0.0.1:0 inside: EACCES" "EACCES" "$(inside -- python3 -c "$NET" bind)"
check "TCP bind to 127.0.0.1:8080 inside: EACCES" "EACCES" "$(inside -- python3 -c "$NET" bind-port)"
check "TCP connect to 127.0.0.1:9 inside: EACCES" "EACCES" "$(inside -- python3 -c "$NET" connect)"
check "control: UDP over the loopback inside works" "OK:ping" "$(inside -- python3 -c "$NET" udp)"
check "control: with --profile unrestricted TCP bind works" "OK" \
        "$(inside --profile unrestricted -- python3 -c "$NET" bind)"
check "control: with --profile unrestricted bind to :8080 works" "OK" \
        "$(inside --profile unrestricted -- python3 -c "$NET" bind-port)"
check "control: with --profile unrestricted connect is refused" "ECONNREFUSED" \
        "$(inside --profile unrestricted -- python3 -c "$NET" connect)"
