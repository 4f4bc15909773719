#!/usr/bin/env bash
# Attack (proxied mode, landlock backend): Landlock's TCP rule grants connect() by port only, so
# any address at the proxy's port would do: 127.0.0.2, or a host of the test internet. The
# sandbox reads the port from its proxy variables; the test then listens on 127.0.0.2 at that
# port (an echo) and the sandbox connects there, blocking and non-blocking, and to the test
# internet's address at the same port (nothing listens there: the old code got ECONNREFUSED
# from it, a packet that left the machine). The supervisor confines the destination: EACCES for
# both. io_uring's IORING_OP_CONNECT, a way around the filter, is refused as a whole (EPERM); a
# TCP send with an address and without MSG_FASTOPEN (which the filter refuses) connects nothing.
# Without the notifications (--profile unrestricted: no Landlock and seccomp layers) proxied
# mode is refused under this backend, naming NETWORK_FILTER_MODE. Controls: the proxy itself
# still connects (blocking), curl goes through it, and the same connect to 127.0.0.2 succeeds
# outside the sandbox.
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/proxied-landlock.sh"
landlock_proxied_plan 9

ATTACK='import ctypes, errno, os, socket, sys, time
port = int(os.environ["http_proxy"].rsplit(":", 1)[1])
with open("port.tmp", "w") as f:
    f.write(str(port))
os.rename("port.tmp", "port")
for _ in range(200):
    if os.path.exists("ready"):
        break
    time.sleep(0.05)

def probe(host, timeout):
    s = socket.socket()
    if timeout:
        s.settimeout(timeout)  # non-blocking underneath
    try:
        s.connect((host, port))
        s.sendall(b"ping")
        return "OK:" + s.recv(4).decode()
    except socket.timeout:
        return "TIMEOUT"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))

def proxy():
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", port))
        return "OK"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))

def send_to():
    # An address on a TCP send without MSG_FASTOPEN (refused by the filter) is ignored: no SYN.
    s = socket.socket()
    try:
        s.sendmsg([b"ping"], [], 0, ("127.0.0.2", port))
        return "OK"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))

def uring():
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 4, params)  # io_uring_setup, x86_64 and aarch64
    return "OK" if fd >= 0 else errno.errorcode[ctypes.get_errno()]

print(probe("127.0.0.2", None), probe("127.0.0.2", 5), probe(sys.argv[1], 5), proxy(), uring(),
      send_to())'

# The listener on 127.0.0.2 at the port the sandbox reports; "ready" once it listens.
ECHO='import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.2", int(sys.argv[1]))); s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept(); c.sendall(c.recv(4)); c.close()'

rm -f "$T_PROJECT/port" "$T_PROJECT/ready"
(
        for _ in $(seq 400); do [ -s "$T_PROJECT/port" ] && break; sleep 0.05; done
        exec python3 -c "$ECHO" "$(cat "$T_PROJECT/port")" "$T_PROJECT/ready"
) &
lsrv=$!
trap 'kill "$lsrv" 2>/dev/null' EXIT

in_cordon "${P[@]}" -- python3 -c "$ATTACK" "$NET_OK_ADDR"
port=$(cat "$T_PROJECT/port" 2>/dev/null)
read -r blocking nonblocking remote proxy uring send <<<"$out"
check "blocking connect to 127.0.0.2 at the proxy's port $port: EACCES" "EACCES" "$blocking"
check "non-blocking connect to 127.0.0.2 at the proxy's port: EACCES" "EACCES" "$nonblocking"
check "connect to $NET_OK_ADDR at the proxy's port: EACCES" "EACCES" "$remote"
check "io_uring (IORING_OP_CONNECT) refused as a whole: EPERM" "EPERM" "$uring"
check "sendmsg() with 127.0.0.2 on an unconnected TCP socket connects nothing: EPIPE" "EPIPE" "$send"
check "control: a blocking connect to the proxy itself" "OK" "$proxy"
host_probe tcp 127.0.0.2 "$port"
check "control: outside the sandbox 127.0.0.2:$port answers" "OK:ping" "$out"

in_cordon "${P[@]}" -- "${CURL[@]}" "http://$NET_OK_NAME/echo"
case $rc:$out in
"0:method=GET "*"host=$NET_OK_NAME "*) ok "control: curl by name through the proxy" ;;
*) not_ok "control: curl by name through the proxy" "rc=$rc" "out: $out" ;;
esac

in_cordon "${P[@]}" --profile unrestricted -- true
case $rc:$out in
*"notifications"*NETWORK_FILTER_MODE*) [ "$rc" != 0 ] && ok "without the notifications proxied is refused, naming NETWORK_FILTER_MODE" ||
        not_ok "without the notifications proxied is refused" "rc=$rc" "$out" ;;
*) not_ok "without the notifications proxied is refused, naming NETWORK_FILTER_MODE" "rc=$rc" "$out" ;;
esac
