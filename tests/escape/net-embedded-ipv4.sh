#!/usr/bin/env bash
# Attack: spell a floor or private IPv4 address as an IPv6 address that carries it -- NAT64
# (64:ff9b::/96 and the local-use 64:ff9b:1::/48), 6to4 (2002::/16), Teredo (2001::/32, the
# client address inverted), IPv4-compatible and IPv4-translated -- and ask the proxy for it,
# with the IPv6 prefixes excepted; a translator or relay on the path would deliver it to the
# loopback, the cloud metadata address or the LAN. The proxy judges the address inside too: 403
# with the floor's (or the private range's) reason, under both backends. In filtered mode the
# firewall refuses the same forms by payload: EACCES (the IPv6 reject). Controls: the same
# forms carrying a public test-internet address pass the rules (the dial then fails: 502, no
# NAT64 here), and the test internet answers in the same sandboxes.
. "$(dirname "$0")/../lib/net.sh"
net_require

E=$NET_TCP_ECHO_PORT
# embed FORM IPV4: the IPv6 spelling of IPV4 in FORM.
embed() {
        python3 - "$1" "$2" <<'PY'
import ipaddress, sys
form, v4 = sys.argv[1], int(ipaddress.IPv4Address(sys.argv[2]))
b = v4.to_bytes(4, "big")
if form == "nat64":
    x = ipaddress.IPv6Address("64:ff9b::").packed[:12] + b
elif form == "nat64-local":
    x = ipaddress.IPv6Address("64:ff9b:1::").packed[:6] + b[:2] + b"\0" + b[2:] + b"\0" * 5
elif form == "6to4":
    x = b"\x20\x02" + b + b"\0" * 9 + b"\x01"
elif form == "teredo":
    x = bytes.fromhex("200100004136e378800063bf") + bytes(255 - c for c in b)
elif form == "compat":
    x = b"\0" * 12 + b
elif form == "translated":
    x = b"\0" * 8 + b"\xff\xff\0\0" + b
print(ipaddress.IPv6Address(x))
PY
}
FORMS=(nat64 nat64-local 6to4 teredo compat translated)
LIFT=(--allow-host 64:ff9b::/96 --allow-host 64:ff9b:1::/48 --allow-host 2002::/16
      --allow-host 2001::/32 --allow-host ::/96 --allow-host ::ffff:0:0:0/96 --allow-host "*")

WRAP='import os, sys
code = sys.argv.pop(1)
p = os.environ["HTTP_PROXY"].rstrip("/").rsplit(":", 1)[1]
sys.argv = [a.replace(" PORT ", " " + p + " ") for a in sys.argv]
exec(compile(code, "probe", "exec"))'

plan 43
# proxied LABEL OPTION...: per form, CONNECT to 127.0.0.1 and 169.254.169.254 inside it (the
# floor), to 10.1.2.3 inside it (a default-blocked range), to the test internet's address
# inside it (control: allowed by the rules, no route), then the test internet itself.
proxied() {
        local label=$1 specs=() f lines i=0
        shift
        for f in "${FORMS[@]}"; do
                specs+=("connect 127.0.0.1 PORT [$(embed "$f" 127.0.0.1)]:$E"
                        "connect 127.0.0.1 PORT [$(embed "$f" 169.254.169.254)]:80")
        done
        specs+=("connect 127.0.0.1 PORT [$(embed nat64 10.1.2.3)]:$E"
                "connect 127.0.0.1 PORT [$(embed 6to4 10.1.2.3)]:$E"
                "connect 127.0.0.1 PORT [$(embed teredo 10.1.2.3)]:$E"
                "connect 127.0.0.1 PORT [$(embed nat64 "$NET_OK_ADDR")]:$E"
                "connect 127.0.0.1 PORT $NET_OK_ADDR:$E")
        in_cordon "$@" "${LIFT[@]}" -- python3 -c "$WRAP" "$NET_PROBE" multi "${specs[@]}"
        mapfile -t lines <<<"$out"
        for f in "${FORMS[@]}"; do
                check_like "$label: $f form of 127.0.0.1 refused by the floor" \
                        "403|cordon proxy: cordon refused *by the built-in floor, rule \"127.0.0.0/8\" (floor: loopback); no setting lifts it" "${lines[$i]:-}"
                check_like "$label: $f form of 169.254.169.254 refused by the floor" \
                        "403|cordon proxy: cordon refused *by the built-in floor, rule \"169.254.0.0/16\" (floor: link-local); no setting lifts it" "${lines[$((i + 1))]:-}"
                i=$((i + 2))
        done
        for f in nat64 6to4 teredo; do
                check_like "$label: $f form of 10.1.2.3 refused as a private range, liftable by an exception for 10.1.2.3" \
                        "403|cordon proxy: cordon refused *private range (liftable by an exception); to allow it: NETWORK_BLOCKLIST_EXCEPT+=('10.1.2.3')" "${lines[$i]:-}"
                i=$((i + 1))
        done
        case ${lines[$i]:-} in
        403*) not_ok "$label, control: the NAT64 form of $NET_OK_ADDR passes the rules" "${lines[$i]}" ;;
        *) ok "$label, control: the NAT64 form of $NET_OK_ADDR passes the rules (${lines[$i]:-})" ;;
        esac
        check "$label, control: $NET_OK_ADDR:$E through the same proxy" "200|ping" "${lines[$((i + 1))]:-}"
}
proxied "proxied (ns)" --net proxied --proxy-dns "$NET_DNS"
in_cordon --backend landlock --net proxied -- true
case $rc:$out in
0:*) proxied "proxied (landlock)" --backend landlock --net proxied --proxy-dns "$NET_DNS" ;;
*"this kernel"*) for i in $(seq 17); do skip "proxied cannot run under the landlock backend here" "landlock $i"; done ;;
*) for i in $(seq 17); do not_ok "proxied (landlock) starts" "$out"; done ;;
esac

# Filtered: the firewall refuses the forms carrying the loopback and the metadata address.
specs=()
for f in nat64 nat64-local 6to4 teredo; do
        specs+=("tcp $(embed "$f" 127.0.0.1) $E" "tcp $(embed "$f" 169.254.169.254) 80")
done
specs+=("tcp $NET_OK_ADDR $E")
in_cordon --net filtered "${LIFT[@]}" -- python3 -c "$NET_PROBE" multi "${specs[@]}"
mapfile -t lines <<<"$out"
i=0
for f in nat64 nat64-local 6to4 teredo; do
        check "filtered: $f form of 127.0.0.1: EACCES" EACCES "${lines[$i]:-}"
        check "filtered: $f form of 169.254.169.254: EACCES" EACCES "${lines[$((i + 1))]:-}"
        i=$((i + 2))
done
check "filtered, control: $NET_OK_ADDR:$E answers" "OK:ping" "${lines[$i]:-}"
