#!/usr/bin/env bash
# Attack: reach a service on the host's 127.0.0.1 from a sandbox in every network mode that
# has a namespace of its own: isolated, filtered (pasta started with its loopback forwarding and
# gateway mapping off, the host's own addresses refused by the sandbox's firewall: the gateway
# and the host's address on the test veth lead nowhere near it) and proxied (the proxy refuses loopback in every spelling and through every name,
# however the rules are written). Control: the service answers on the host.
. "$(dirname "$0")/../lib/net.sh"
net_require

SERVE='import http.server, os, sys
os.chdir(sys.argv[1])
srv = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
open(sys.argv[2] + ".tmp", "w").write(str(srv.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
srv.serve_forever()'
mkdir "$T_TMP/www"
echo "l00pback-s3cret" >"$T_TMP/www/secret.txt"
python3 -c "$SERVE" "$T_TMP/www" "$T_TMP/port" 2>/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/port" ] && break; sleep 0.05; done
port=$(cat "$T_TMP/port")
GET='GET\x20/secret.txt\x20HTTP/1.0\r\n\r\n'
# The default gateway of the sandbox, read from /proc/net/route inside.
GW='import socket, struct
for l in open("/proc/net/route").read().splitlines()[1:]:
    f = l.split()
    if f[1] == "00000000":
        print(socket.inet_ntoa(struct.pack("<I", int(f[2], 16))))'

plan 29
host_probe http 127.0.0.1 "$port" "$GET"
check "control: the host service answers on 127.0.0.1:$port" "200|l00pback-s3cret" "$out"

in_cordon --net isolated --profile unrestricted -- python3 -c "$NET_PROBE" http 127.0.0.1 "$port" "$GET"
check "isolated: 127.0.0.1:$port is the sandbox's own loopback: ECONNREFUSED" "ECONNREFUSED" "$out"

F=(--net filtered --profile unrestricted)
in_cordon "${F[@]}" -- python3 -c "$NET_PROBE" http 127.0.0.1 "$port" "$GET"
check "filtered: 127.0.0.1:$port is the sandbox's own loopback: ECONNREFUSED" "ECONNREFUSED" "$out"
in_cordon "${F[@]}" -- python3 -c "$NET_PROBE" http "$NET_HOST_ADDR" "$port" "$GET"
check "filtered: the host's own address $NET_HOST_ADDR:$port, refused by the firewall: EHOSTUNREACH" \
        "EHOSTUNREACH" "$out"
in_cordon "${F[@]}" -- python3 -c "$NET_PROBE" tcp "$NET_OK_ADDR" "$NET_TCP_ECHO_PORT"
check "filtered, control: the test internet answers ($NET_OK_ADDR:$NET_TCP_ECHO_PORT)" "OK:ping" "$out"
in_cordon "${F[@]}" -- sh -c 'gw=$(python3 -c "$1") && [ -n "$gw" ] && python3 -c "$2" http "$gw" "$3" "$4"' \
        gw "$GW" "$NET_PROBE" "$port" "$GET"
case $out in
*l00pback-s3cret*) not_ok "filtered: the default gateway is not mapped to the host's loopback" "got: $out" ;;
*) ok "filtered: the default gateway is not mapped to the host's loopback ($out)" ;;
esac

# proxied: straight to the own loopback first, then through the proxy in every spelling.
probe --net proxied --proxy-dns "$NET_DNS" --profile unrestricted -- http 127.0.0.1 "$port" "$GET"
check "proxied: 127.0.0.1:$port is the sandbox's own loopback: ECONNREFUSED" "ECONNREFUSED" "$out"
probe --net proxied --proxy-dns "$NET_DNS" -- http 127.0.0.1 "$port" "$GET"
check "proxied: 127.0.0.1:$port with every layer: still the sandbox's own loopback: ECONNREFUSED" "ECONNREFUSED" "$out"
spellings=("127.0.0.1:$port=deny" "localhost:$port=deny" "LOCALHOST.:$port=deny" "127.0.0.2:$port=deny"
        "[::1]:$port=deny" "[::ffff:127.0.0.1]:$port=deny" "0.0.0.0:$port=deny"
        "$NET_REBIND_LOOP:$port=deny" "$NET_REBIND_MAPPED:$port=deny" "$NET_REBIND_LOOP6:$port=deny"
        "$NET_REBIND_ZERO:$port=deny")
lenient=("127.1:$port=bad" "2130706433:$port=bad" "0x7f000001:$port=bad" "0177.0.0.1:$port=bad")
lift=(--allow-host 127.0.0.1 --allow-host 127.0.0.0/8 --allow-host ::1 --allow-host localhost
      --allow-host "*" --allow-host "$port" --allow-host "127.0.0.1:$port" --allow-host "*.test.example")
decide connect "proxied, exceptions for loopback do not lift the floor" "${lift[@]}" -- \
        "${spellings[@]}" "${lenient[@]}"
decide socks "proxied, SOCKS5" "${lift[@]}" -- "127.0.0.1:$port=deny" "[::1]:$port=deny" "localhost:$port=deny"
decide http "proxied, plain HTTP" "${lift[@]}" -- "127.0.0.1:$port=deny" "localhost:$port=deny"
# A name with a good and a loopback address: whatever the proxy does, never the loopback one.
decide connect "proxied, $NET_MIXED_NAME (an address on the test internet and 127.0.0.1)" "${lift[@]}" -- \
        "$NET_MIXED_NAME:$port=notallow"
