#!/usr/bin/env bash
# The egress proxy alone (tests/helpers/proxy-harness): the floor holds against exceptions that
# try to lift it. A server on the host's loopback answers directly (the control) and is refused
# through the proxy by HTTP forwarding, CONNECT and SOCKS5, by address, by name (localhost) and
# by lenient numeric forms, each refusal logged as one JSON line.
. "$(dirname "$0")/../lib/tap.sh"
plan 9

if [ -z "${PROXY_HARNESS:-}" ] || [ ! -x "$PROXY_HARNESS" ]; then
        for i in $(seq 9); do skip "no proxy-harness (PROXY_HARNESS, set by tests/run-tap.sh)" "proxy floor $i"; done
        exit 0
fi

mkdir -p "$T_TMP/www" && echo direct-ok >"$T_TMP/www/index.html"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$T_TMP/www" >"$T_TMP/www.out" 2>&1 &
www_pid=$!
"$PROXY_HARNESS" --listen 127.0.0.1:0 --allow 127.0.0.1 --allow 127.0.0.0/8 --allow localhost \
        --allow '*' --allow ::1 --log "$T_TMP/net.log" >"$T_TMP/proxy.out" 2>&1 &
proxy_pid=$!
trap 'kill $www_pid $proxy_pid 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do
        www_port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$T_TMP/www.out" | head -1)
        proxy_port=$(sed -n 's/^listening 127.0.0.1:\([0-9]*\)$/\1/p' "$T_TMP/proxy.out")
        [ -n "$www_port" ] && [ -n "$proxy_port" ] && break
        sleep 0.05
done

# raw REQUEST: sends the bytes (Python escapes) to the proxy and prints what comes back.
raw() {
        python3 - "$proxy_port" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
out = b""
try:
    while True:
        d = s.recv(4096)
        if not d:
            break
        out += d
except OSError:
    pass
print(out.decode("latin-1").replace("\r", ""))
PY
}
socks_reply() { # HEX-REQUEST: the SOCKS5 reply code to greeting 05 01 00 and the request
        python3 - "$proxy_port" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(bytes.fromhex("050100") + bytes.fromhex(sys.argv[2]))
r = b""
while len(r) < 4:
    d = s.recv(16)
    if not d:
        break
    r += d
print(r[3] if len(r) > 3 else "short")
PY
}

check "control: the loopback server answers directly" direct-ok \
        "$(curl -sS -m 5 "http://127.0.0.1:$www_port/" 2>&1)"
out=$(curl -sS -m 5 -x "http://127.0.0.1:$proxy_port" "http://127.0.0.1:$www_port/" 2>&1)
check_like "HTTP forward to 127.0.0.1 is refused though excepted, and says nothing lifts it" \
        "cordon proxy: cordon refused 127.0.0.1:$www_port by the built-in floor, rule \"127.0.0.0/8\" (floor: loopback); no setting lifts it" "$out"
out=$(raw "CONNECT 127.0.0.1:$www_port HTTP/1.1\r\n\r\n" | head -1)
check_like "CONNECT to 127.0.0.1 is refused" "HTTP/1.1 403 cordon refused *floor: loopback); no setting lifts it*" "$out"
out=$(raw "CONNECT [::ffff:127.0.0.1]:$www_port HTTP/1.1\r\n\r\n" | head -1)
check_like "CONNECT to the IPv4-mapped form is refused" "HTTP/1.1 403 cordon refused *floor: loopback); no setting lifts it*" "$out"
out=$(raw "CONNECT localhost:$www_port HTTP/1.1\r\n\r\n" | head -1)
check_like "CONNECT to localhost (a name resolving into the floor) is refused" "HTTP/1.1 403 cordon refused *floor: loopback); no setting lifts it*" "$out"
out=$(raw "GET http://2130706433:$www_port/ HTTP/1.1\r\n\r\n" | head -1)
check "a lenient numeric host is refused, not resolved" "HTTP/1.1 403 Forbidden" "$out"
port_hex=$(printf '%04x' "$www_port")
check "SOCKS5 CONNECT to 127.0.0.1 gets reply 0x02" 2 "$(socks_reply "050100017f000001$port_hex")"
check "SOCKS5 BIND gets reply 0x07" 7 "$(socks_reply "050200017f000001$port_hex")"

sleep 0.2
denies=$(python3 - "$T_TMP/net.log" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
keys = {"time", "client", "protocol", "host", "port", "address", "rule", "origin", "verdict",
        "reason", "bytes_up", "bytes_down"}
# A refusal by the rules says why in a message too (one the request itself earned does not).
print(sum(1 for l in lines if l["verdict"] == "deny" and set(l) - {"message"} == keys and
          ("message" not in l or l["message"].startswith("cordon refused "))))
PY
)
check "every refusal is one complete JSON log line" 7 "$denies"
