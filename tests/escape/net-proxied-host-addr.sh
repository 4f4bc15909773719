#!/usr/bin/env bash
# Attack: through the egress proxy, reach a service the host binds to every address (:: with
# IPv4 too, as a server on 0.0.0.0 would be): by the host's address on the test internet's veth,
# by a name that resolves to it, by the host's address on another interface (IPv4 and IPv6), and
# by a NAT64 spelling of it; with exceptions that would lift any rule (`*`, the address itself,
# fc00::/7), over CONNECT, SOCKS5 and absolute-URI HTTP, under both backends. The proxy refuses
# every address of the host: 403 "... by floor: the host's own address ..." (SOCKS5 reply 2). Control: the
# service answers at each of those addresses on the host, and the proxy reaches the test
# internet in the same sandbox.
. "$(dirname "$0")/../lib/net.sh"
net_require

SERVE='import os, socket, sys, threading
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", 0))
s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def echo(c):
    try:
        c.sendall(c.recv(64))
    finally:
        c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=echo, args=(c,), daemon=True).start()'
python3 -c "$SERVE" "$T_TMP/port" 2>/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/port" ] && break; sleep 0.05; done
port=$(cat "$T_TMP/port")

# The host's address on another interface, one per family (not the test internet's ranges).
other4=$(ip -o -4 addr show scope global | awk '{sub("/.*", "", $4); print $4}' |
        grep -vE '^198\.1[89]\.' | head -1)
other6=$(ip -o -6 addr show scope global | awk '{sub("/.*", "", $4); print $4}' |
        grep -viE '^fd00:198:' | head -1)

targets=("$NET_HOST_ADDR" "$NET_HOST_NAME")
[ -n "$other4" ] && targets+=("$other4")
[ -n "$other6" ] && targets+=("[$other6]")
# 64:ff9b::/96 carrying the host's address on the veth
nat64=$(python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b::")) + int(ipaddress.IPv4Address(sys.argv[1]))))' "$NET_HOST_ADDR")

plan 17
host_probe tcp "$NET_HOST_ADDR" "$port"
check "control: the service answers on the host at $NET_HOST_ADDR:$port" "OK:ping" "$out"
if [ -n "$other4" ]; then
        host_probe tcp "$other4" "$port"
        check "control: ... and at $other4:$port (another interface)" "OK:ping" "$out"
else skip "this host has no other global IPv4 address" "control other4"; fi
if [ -n "$other6" ]; then
        host_probe tcp "$other6" "$port"
        check "control: ... and at [$other6]:$port (another interface)" "OK:ping" "$out"
else skip "this host has no other global IPv6 address" "control other6"; fi

LIFT=(--allow-host "*" --allow-host "$NET_HOST_ADDR" --allow-host "$NET_HOST_NAME"
      --allow-host fc00::/7 --allow-host 64:ff9b::/96 --allow-host "$NET_NET")
[ -n "$other4" ] && LIFT+=(--allow-host "$other4")
WANT="403|cordon proxy: cordon refused * by floor: the host's own address; no setting lifts it"

# Runs NET_PROBE (given as the first argument) with " PORT " in its specs replaced by the port
# of the proxy the variables name (3128 in a namespace, a random one under landlock).
WRAP='import os, sys
code = sys.argv.pop(1)
p = os.environ["HTTP_PROXY"].rstrip("/").rsplit(":", 1)[1]
sys.argv = [a.replace(" PORT ", " " + p + " ") for a in sys.argv]
exec(compile(code, "probe", "exec"))'

# host_refused LABEL OPTION...: one sandbox, a CONNECT per target and to the NAT64 spelling, and
# a control to the test internet last.
host_refused() {
        local label=$1 specs=() t i
        shift
        for t in "${targets[@]}" "[$nat64]"; do specs+=("connect 127.0.0.1 PORT $t:$port"); done
        specs+=("connect 127.0.0.1 PORT $NET_OK_ADDR:$NET_TCP_ECHO_PORT")
        in_cordon "$@" -- python3 -c "$WRAP" "$NET_PROBE" multi "${specs[@]}"
        mapfile -t lines <<<"$out"
        i=0
        for t in "${targets[@]}" "[$nat64]"; do
                check_like "$label: CONNECT $t:$port refused" "$WANT" "${lines[$i]:-}"
                i=$((i + 1))
        done
        check "$label, control: CONNECT $NET_OK_ADDR:$NET_TCP_ECHO_PORT through the same proxy" \
                "200|ping" "${lines[$i]:-}"
}
host_refused "proxied (ns)" --net proxied --proxy-dns "$NET_DNS" "${LIFT[@]}"
n=$((${#targets[@]} + 2))
# The landlock backend: the proxy listens on the host's loopback, at a random port.
in_cordon --backend landlock --net proxied --proxy-dns "$NET_DNS" -- true
case $rc:$out in
0:*) host_refused "proxied (landlock)" --backend landlock --net proxied --proxy-dns "$NET_DNS" "${LIFT[@]}" ;;
*"this kernel"*) for i in $(seq "$n"); do skip "proxied cannot run under the landlock backend here: $out" "landlock $i"; done ;;
*) for i in $(seq "$n"); do not_ok "proxied (landlock) starts" "$out"; done ;;
esac
# For the planned count: pad the targets that are missing here.
for i in $(seq $((2 * (4 - ${#targets[@]})))); do skip "an interface address this host lacks" "pad $i"; done

# SOCKS5 and absolute-URI HTTP to the veth address (ns backend).
decide socks "SOCKS5 to the host's own address" "${LIFT[@]}" -- "$NET_HOST_ADDR:$port=deny"
decide http "HTTP to the host's own address" "${LIFT[@]}" -- "$NET_HOST_ADDR:$port=deny"
