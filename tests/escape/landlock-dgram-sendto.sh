#!/usr/bin/env bash
# Attack (landlock backend, a network mode with a socket rule): send a datagram to a host
# service's pathname datagram socket (/dev/log, journald, systemd's notify socket are such
# sockets) from one end of socketpair(AF_UNIX, SOCK_DGRAM). socket() is refused, but an
# unconnected datagram end from a pair can sendto() any path, and Landlock on this kernel does
# not govern pathname unix sockets (LANDLOCK_ACCESS_FS_RESOLVE_UNIX came later). The socket here
# sits in the project, a path the sandbox can see. Expected: the pair itself is refused with
# EACCES (only SOCK_STREAM and SOCK_SEQPACKET pairs are admitted) and nothing arrives.
# Control: the same sendto outside the sandbox is received.
. "$(dirname "$0")/../lib/tap.sh"

# A datagram receiver at argv[1] that appends what it gets to argv[2]; creates argv[3] once bound.
RECV='import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
open(sys.argv[3], "w").close()
while True:
    d = s.recv(64)
    with open(sys.argv[2], "a") as f:
        f.write(d.decode() + "\n")'
# socketpair(AF_UNIX, TYPE) and a sendto(argv[2]) of argv[3] from one end: OK or the errno name.
SEND='import errno, socket, sys
try:
    a, b = socket.socketpair(socket.AF_UNIX, getattr(socket, sys.argv[1]))
    if sys.argv[1] == "SOCK_DGRAM":
        a.sendto(sys.argv[3].encode(), sys.argv[2])
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])'

sock="$T_PROJECT/host-dgram.sock"
got="$T_TMP/received"
rm -f "$sock"
python3 -c "$RECV" "$sock" "$got" "$T_TMP/ready" &
receiver=$!
trap 'kill "$receiver" 2>/dev/null; rm -f "$sock"' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/ready" ] && break; sleep 0.05; done
# The test user must be able to write to it, as a host service's socket would let it.
chmod 666 "$sock" 2>/dev/null

inside() { # inside MODE ARGS...
        local mode=$1
        shift
        (cd "$T_PROJECT" && "$CORDON" run --quiet --backend landlock --net "$mode" -- \
                python3 -c "$SEND" "$@" 2>&1)
}
received() { sleep 0.2; grep -qx "$1" "$got" 2>/dev/null && echo received || echo none; }

plan 8
check "control: a datagram pair sends to the socket outside" "OK" \
        "$(python3 -c "$SEND" SOCK_DGRAM "$sock" outside)"
check "control: the host service received it" "received" "$(received outside)"
for mode in isolated proxied; do
        check "--net $mode: socketpair(AF_UNIX, SOCK_DGRAM) + sendto inside: EACCES" "EACCES" \
                "$(inside "$mode" SOCK_DGRAM "$sock" "inside-$mode")"
        check "--net $mode: nothing arrived" "none" "$(received "inside-$mode")"
done
check "a SOCK_STREAM pair still works inside" "OK" "$(inside isolated SOCK_STREAM)"
check "a SOCK_SEQPACKET pair still works inside" "OK" "$(inside isolated SOCK_SEQPACKET)"
