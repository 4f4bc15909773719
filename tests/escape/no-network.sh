#!/usr/bin/env bash
# Attack: reach anything beyond loopback (a TEST-NET address, which cannot leave the sandbox's
# network namespace either way). Control: loopback inside the sandbox works.
. "$(dirname "$0")/../lib/tap.sh"

NET='import errno, socket, sys
try:
    if sys.argv[1] == "loop":
        srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
        c = socket.create_connection(srv.getsockname(), timeout=5)
        a, _ = srv.accept(); a.sendall(b"pong"); print("OK:" + c.recv(4).decode())
    elif sys.argv[1] == "tcp":
        socket.create_connection(("192.0.2.1", 80), timeout=5); print("OK")
    elif sys.argv[1] == "udp":
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("192.0.2.1", 53)); print("OK")
    elif sys.argv[1] == "tcp6":
        socket.create_connection(("2001:db8::1", 80), timeout=5); print("OK")
except OSError as e:
    print(errno.errorcode[e.errno] if e.errno else type(e).__name__)'

plan 6
# The network namespace is the isolation (Landlock leaves TCP to it under the ns backend; the
# landlock backend's TCP rules: landlock-tcp.sh).
run_view_only python3 -c "$NET" loop
check "control: a TCP round trip over the sandbox's loopback" "OK:pong" "$out"
run_view_only python3 -c "$NET" tcp
check "TCP connect to 192.0.2.1:80, namespace alone: ENETUNREACH" "ENETUNREACH" "$out"
run_sandboxed python3 -c "$NET" tcp
check "TCP connect to 192.0.2.1:80, all layers: ENETUNREACH" "ENETUNREACH" "$out"
run_sandboxed python3 -c "$NET" loop
check "all layers: a TCP round trip over the sandbox's own loopback works" "OK:pong" "$out"
run_sandboxed python3 -c "$NET" udp
check "UDP send to 192.0.2.1:53: ENETUNREACH" "ENETUNREACH" "$out"
run_view_only python3 -c "$NET" tcp6
check "TCP connect to [2001:db8::1]:80, namespace alone: ENETUNREACH" "ENETUNREACH" "$out"
