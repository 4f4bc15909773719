# Helpers of the tests/escape/net-proxied-landlock*.sh files: proxied mode under the landlock
# backend (no network namespace), against the test internet. Source it after net.sh (each file
# names lib/net.sh itself: that is how tests/run-tap.sh knows to bring the test internet up),
# then call landlock_proxied_plan instead of plan.
#
# The attacks of those files each have a control under --net open (the host's network, the same
# backend). Landlock's TCP rule and the socket rule answer EACCES.

# landlock_proxied_plan N: loads the test internet (net_require), sets P (the proxied options),
# O (the controls' options) and E (the test internet's TCP echo port), prints the plan of N
# tests, and skips all N when this kernel cannot deliver proxied under the landlock backend
# (no Landlock ABI 4 or no seccomp: cordon refuses the mode naming the kernel). Any other
# refusal is no reason to skip: the tests run and fail with it.
landlock_proxied_plan() {
        local i
        net_require
        P=(--backend landlock --net proxied --proxy-dns "$NET_DNS")
        O=(--backend landlock --net open)
        E=$NET_TCP_ECHO_PORT
        plan "$1"
        in_cordon "${P[@]}" -- true
        case $rc:$out in
        0:*) ;;
        *"this kernel"*)
                for i in $(seq "$1"); do skip "proxied cannot run under the landlock backend here: $out" "landlock proxied ($i)"; done
                exit 0 ;;
        esac
}

# SOCK KIND [ARG...]: one socket operation, OK or the errno name.
SOCK='import errno, socket, sys
k = sys.argv[1]
try:
    if k == "udp":
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    elif k == "bind":
        socket.socket().bind(("127.0.0.1", 0))
    elif k == "listen":
        socket.socket().listen(1)
    elif k == "fastopen":
        s = socket.socket()
        s.sendto(b"ping", 0x20000000, (sys.argv[2], int(sys.argv[3])))
        print("OK:" + s.recv(4).decode())
        sys.exit(0)
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])'

# UCONNECT PATH: connect to the unix socket at PATH, OK:<what it read> or the errno name (of
# socket() too).
UCONNECT='import errno, socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    print("OK:" + s.recv(16).decode())
except OSError as e:
    print(errno.errorcode[e.errno])'

# in_open CMD...: the controls, under --net open, stdout only (open warns about the host's unix
# sockets it can see, on stderr).
in_open() {
        out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet "${O[@]}" -- "$@" 2>/dev/null); rc=$?
}
