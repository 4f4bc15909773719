#!/usr/bin/env bash
# Must work: --network-policy FILE.json (harn's NetworkPolicy): "limited" is the proxied mode with
# `*` blocked and allowed_hosts as the exceptions, an empty list denies everything, "type" is
# accepted for "mode", "unrestricted" is the open network; unknown modes, unknown fields and
# malformed hosts are refused naming the JSON pointer.
. "$(dirname "$0")/../lib/net.sh"
ns_only "proxied mode gives the sandbox its own network namespace"
net_require

E=$NET_TCP_ECHO_PORT
pol() { printf '%s\n' "$2" >"$T_TMP/$1.json"; echo "$T_TMP/$1.json"; }
plan 14
DECIDE_NO_MODE=1 decide connect "limited to $NET_OK_NAME" \
        --network-policy "$(pol limited "{\"mode\":\"limited\",\"allowed_hosts\":[\"$NET_OK_NAME\"]}")" -- \
        "$NET_OK_NAME:$E=allow" "$NET_OTHER_NAME:$E=deny" "$NET_OTHER_ADDR:$E=deny"
DECIDE_NO_MODE=1 decide connect "limited, \"type\" for \"mode\"" \
        --network-policy "$(pol type "{\"type\":\"limited\",\"allowed_hosts\":[\"*.$NET_ZONE\"]}")" -- \
        "a.$NET_ZONE:$E=allow" "$NET_OK_NAME:$E=deny"
DECIDE_NO_MODE=1 decide connect "limited, empty allowed_hosts" \
        --network-policy "$(pol empty '{"mode":"limited","allowed_hosts":[]}')" -- \
        "$NET_OK_NAME:$E=deny" "$NET_OK_ADDR:$E=deny" "$NET_FAR_NAME:$E=deny"
in_cordon --network-policy "$(pol open '{"mode":"unrestricted"}')" -- \
        python3 -c "$NET_PROBE" multi "tcp $NET_OK_ADDR $E" "udp $NET_OK_ADDR $NET_UDP_ECHO_PORT"
check "unrestricted: the open network, TCP and UDP straight to the test internet" "OK:ping
OK:ping" "$out"
in_cordon --network-policy "$T_TMP/open.json" -- python3 -c 'import socket; print(" ".join(n for _, n in socket.if_nameindex()))'
case " $out " in
*" ctn${NET_STATE##*/}h "*) ok "unrestricted: the host's interfaces (its end of the test veth)" ;;
*) not_ok "unrestricted: the host's interfaces (its end of the test veth)" "$out" ;;
esac

# refused DESCRIPTION JSON POINTER: exit 125 or 2 (a usage error), naming the pointer.
refused() {
        in_cordon --network-policy "$(pol bad "$2")" -- true
        case $rc:$out in
        125:*"$3"* | 2:*"$3"*) ok "$1: refused naming $3" ;;
        *) not_ok "$1: refused naming $3" "rc=$rc" "$out" ;;
        esac
}
refused "an unknown mode" '{"mode":"everything"}' /mode
refused "an unknown field" '{"mode":"limited","allowed_hosts":[],"bogus":1}' /bogus
refused "a malformed host" '{"mode":"limited","allowed_hosts":["ok.test.example","bad host"]}' /allowed_hosts/1
refused "a NUL in a host" '{"mode":"limited","allowed_hosts":["ok\u0000.test.example"]}' /allowed_hosts/0
