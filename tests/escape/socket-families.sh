#!/usr/bin/env bash
# Attack: reach outside an isolated network through a socket family that no network namespace
# confines. AF_VSOCK talks to the hypervisor (or, on a host, to its VMs) whatever the namespace:
# socket() and bind() to any port (never connect) show the family is reachable. The seccomp
# layer answers EAFNOSUPPORT for every family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK.
# Control: with the layers off (--profile unrestricted) the ns backend makes and binds the vsock
# (the machines these tests run on are VMs with vsock; without it the control is skipped).
# AF_ALG, AF_KEY, AF_PACKET... are refused the same way, but they are no control: the test
# machines' kernel lacks AF_ALG, AF_KEY, AF_BLUETOOTH and AF_TIPC (EAFNOSUPPORT either way), and
# AF_PACKET and AF_XDP need capabilities the sandbox has not (EPERM without the filter). The
# landlock backend refuses socket() for every family (EPERM), layers or not.
. "$(dirname "$0")/../lib/tap.sh"

# FAMILY [TYPE]: OK once created (and bound, for AF_VSOCK), or the errno name.
SOCK='import errno, socket, sys
fam, typ = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else socket.SOCK_STREAM
try:
    s = socket.socket(fam, typ)
    if fam == socket.AF_VSOCK:
        s.bind((socket.VMADDR_CID_ANY, socket.VMADDR_PORT_ANY))
    elif fam == socket.AF_INET:
        s.bind(("127.0.0.1", 0))
    elif fam == socket.AF_INET6:
        s.bind(("::1", 0))
    elif fam == socket.AF_NETLINK:
        s.bind((0, 0))
    elif fam == socket.AF_UNIX:
        s.bind("\0cordon-socket-families-%d" % s.fileno())
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])'

sock() { # sock [CORDON-ARGS...] -- FAMILY [TYPE]
        local args=()
        while [ "$1" != -- ]; do args+=("$1"); shift; done
        shift
        (cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated "${args[@]}" -- python3 -c "$SOCK" "$@" 2>&1)
}

AF_VSOCK=40 SOCK_DGRAM=2 SOCK_RAW=3
plan 12
check "AF_VSOCK socket+bind: EAFNOSUPPORT inside" EAFNOSUPPORT "$(sock -- $AF_VSOCK)"
ctl=$(sock --profile unrestricted -- $AF_VSOCK)
if [ "$ctl" = EAFNOSUPPORT ] && [ ! -e /dev/vsock ]; then
        skip "this machine has no vsock (the kernel answers EAFNOSUPPORT itself)" \
                "control: AF_VSOCK socket+bind with the layers off: OK"
else
        check "control: AF_VSOCK socket+bind with the layers off: OK" OK "$ctl"
fi
check "AF_VSOCK with the landlock backend: EPERM (socket() refused)" EPERM \
        "$(sock --backend landlock -- $AF_VSOCK)"

# Refused whatever the kernel would have said (name:number:type).
for f in AF_ALG:38:5 AF_KEY:15:3 AF_PACKET:17:2 AF_BLUETOOTH:31:3 AF_TIPC:30:2 AF_XDP:44:3 \
        AF_UNSPEC:0:1; do
        IFS=: read -r name num typ <<<"$f"
        check "$name: EAFNOSUPPORT inside" EAFNOSUPPORT "$(sock -- "$num" "$typ")"
done

# What an isolated network needs keeps working.
# UDP for the internet families: Landlock governs TCP binds.
got=$(sock -- 1; sock -- 2 $SOCK_DGRAM; sock -- 10 $SOCK_DGRAM; sock -- 16 $SOCK_RAW)
check "AF_UNIX, AF_INET, AF_INET6, AF_NETLINK: socket+bind inside" "OK OK OK OK" "$(echo $got)"
check "socketpair(AF_UNIX) inside" OK "$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated -- python3 -c \
        'import socket; socket.socketpair(); print("OK")' 2>&1)"
