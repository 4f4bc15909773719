#!/usr/bin/env bash
# proxied mode under the landlock backend (no network namespace), against the test internet.
# Must work: an allowed host through the proxy the variables name (a random port of the host's
# loopback), a blocked host refused by the proxy. Attacks, each with a control under --net open
# (the host's network, the same backend): direct TCP to the test internet and to a loopback
# port of the host other than the proxy's (Landlock's TCP rule: EACCES), UDP, bind(), listen()
# (autobind past the bind rule), TCP Fast Open (a connect inside sendto(), past the connect
# rule), and a host unix socket under the project (socket(AF_UNIX) refused on a kernel whose
# Landlock cannot keep it out by path, with one line naming the gap). The socket rule answers
# EACCES.
. "$(dirname "$0")/../lib/net.sh"
net_require

P=(--backend landlock --net proxied --proxy-dns "$NET_DNS")
O=(--backend landlock --net open)
E=$NET_TCP_ECHO_PORT

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

plan 17
if ! in_cordon "${P[@]}" -- true; then
        for i in $(seq 17); do skip "proxied cannot run under the landlock backend here: $out" "landlock proxied ($i)"; done
        exit 0
fi

# The port is the proxy variables', random per run.
in_cordon "${P[@]}" -- sh -c 'echo "$HTTP_PROXY $HTTPS_PROXY $ALL_PROXY"'
case $out in "http://127.0.0.1:"*" http://127.0.0.1:"*" socks5h://127.0.0.1:"*) ok "the proxy variables name 127.0.0.1 ($out)" ;;
*) not_ok "the proxy variables name 127.0.0.1" "$out" ;; esac
port=${out%% *}; port=${port##*:}
in_cordon "${P[@]}" -- sh -c 'echo "${HTTP_PROXY##*:}"'
if [ "$out" != "$port" ]; then ok "another run gets another port ($port, $out)"
else
        in_cordon "${P[@]}" -- sh -c 'echo "${HTTP_PROXY##*:}"'
        [ "$out" != "$port" ] && ok "another run gets another port" || not_ok "another run gets another port" "$port three times"
fi

# Must work: through the proxy by name; a blocked name refused by it.
in_cordon "${P[@]}" -- "${CURL[@]}" "http://$NET_OK_NAME/echo"
case $rc:$out in
"0:method=GET "*"host=$NET_OK_NAME "*) ok "curl by name through the proxy variables" ;;
*) not_ok "curl by name through the proxy variables" "rc=$rc" "out: $out" ;;
esac
in_cordon "${P[@]}" -- sh -c 'python3 -c "$1" connect 127.0.0.1 "${HTTP_PROXY##*:}" "$2"' sh "$NET_PROBE" "$NET_OK_NAME:$E"
check "CONNECT $NET_OK_NAME:$E through the proxy" "200|ping" "$out"
in_cordon "${P[@]}" --block "$NET_OTHER_NAME" -- sh -c 'python3 -c "$1" connect 127.0.0.1 "${HTTP_PROXY##*:}" "$2"' sh "$NET_PROBE" "$NET_OTHER_NAME:$E"
check "CONNECT to a blocked host: refused by the proxy" "403" "${out%%|*}"
in_cordon "${P[@]}" -- sh -c 'python3 -c "$1" connect 127.0.0.1 "${HTTP_PROXY##*:}" "$2"' sh "$NET_PROBE" "127.0.0.1:22"
check "CONNECT to the host's loopback through the proxy: refused (the floor)" "403" "${out%%|*}"

# Direct egress.
probe "${P[@]}" -- tcp "$NET_OK_ADDR" "$E"
check "direct TCP to $NET_OK_ADDR:$E: EACCES" "EACCES" "$out"
in_open python3 -c "$NET_PROBE" tcp "$NET_OK_ADDR" "$E"
check "control: --net open reaches it" "OK:ping" "$out"

# A loopback service of the host on another port.
python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept(); c.sendall(c.recv(4)); c.close()' "$T_TMP/lport" &
lsrv=$!
python3 -c "$UNIX_LISTEN" "$T_PROJECT/host.sock" "$T_TMP/uready" &
usrv=$!
trap 'kill "$lsrv" "$usrv" 2>/dev/null; rm -f "$T_PROJECT/host.sock"' EXIT
for _ in $(seq 100); do [ -s "$T_TMP/lport" ] && [ -e "$T_TMP/uready" ] && break; sleep 0.05; done
chmod 666 "$T_PROJECT/host.sock" 2>/dev/null
lport=$(cat "$T_TMP/lport")
probe "${P[@]}" -- tcp 127.0.0.1 "$lport"
check "TCP to the host's 127.0.0.1:$lport: EACCES" "EACCES" "$out"
in_open python3 -c "$NET_PROBE" tcp 127.0.0.1 "$lport"
check "control: --net open reaches it" "OK:ping" "$out"

# Host unix socket under the project (a granted path).
in_cordon "${P[@]}" -- python3 -c "$UCONNECT" "$T_PROJECT/host.sock"
take_unix_note
check "connect to the host unix socket $T_PROJECT/host.sock: EACCES (socket refused)" "EACCES" "$out"
check "the refusal comes with one line naming the gap" 1 "$notes"
in_open python3 -c "$UCONNECT" "$T_PROJECT/host.sock"
check "control: --net open reaches it" "OK:HOST-SERVICE" "$out"

# UDP, bind, listen, Fast Open.
got=$(for k in udp bind listen; do in_cordon "${P[@]}" -- python3 -c "$SOCK" $k; echo "$out"; done)
check "UDP socket, TCP bind, listen(): EACCES" "EACCES EACCES EACCES" "$(echo $got)"
got=$(for k in udp bind listen; do in_open python3 -c "$SOCK" $k; echo "$out"; done)
check "control: --net open makes all three" "OK OK OK" "$(echo $got)"
in_cordon "${P[@]}" -- python3 -c "$SOCK" fastopen "$NET_OK_ADDR" "$E"
check "TCP Fast Open sendto $NET_OK_ADDR:$E: EACCES" "EACCES" "$out"
in_open python3 -c "$SOCK" fastopen "$NET_OK_ADDR" "$E"
check "control: --net open connects inside the send" "OK:ping" "$out"
