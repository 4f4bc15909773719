#!/usr/bin/env bash
# The test internet (tests/lib/testnet.sh) takes /24s of 198.18.0.0/15 that nothing else uses:
# in a network namespace of this test's own, standing in for the host, a foreign address or
# route in a slot's 198.18.N.0/24 or 198.19.N.0/24 moves it to the next free slot, and only a
# range with no free slot left is refused. Then a whole test internet comes up beside foreign
# /24s and answers. Root only (network namespaces); nothing here touches the host's interfaces.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "runs no sandbox, once per user is enough"

plan 7
descs=("the slot taken is one nothing uses"
        "a foreign 198.18.N.0/24 moves it on"
        "a foreign 198.19.N.0/24 (the second subnet) moves it on too"
        "a foreign route covering a slot's /24 moves it on"
        "a range with no free slot is refused, naming what uses it"
        "up beside foreign /24s takes a free one"
        "... and its services answer")
if [ "$(id -u)" != 0 ]; then
        for d in "${descs[@]}"; do ok "$d # SKIP needs root to create network namespaces"; done
        exit 0
fi

testnet=$T_SRC/tests/lib/testnet.sh
ns=cordon-tnrange-$$
env_file=
cleanup() {
        [ -n "$env_file" ] && ip netns exec "$ns" "$testnet" down "$env_file"
        ip netns del "$ns" 2>/dev/null
}
trap cleanup EXIT
ip netns add "$ns" || { not_ok "create a network namespace $ns"; exit 0; }
ip -n "$ns" link set lo up
in_ns() { ip netns exec "$ns" "$@"; }
# pick: the slot up would take in the namespace; $slot, $err.
pick() { slot=$(in_ns "$testnet" pick 2>"$T_TMP/err"); err=$(cat "$T_TMP/err"); }
slot_in_use() { # slot_in_use N: whether an address or route of the namespace is in either /24
        in_ns ip -o -4 addr show | grep -qE " 198\.1[89]\.$1\." ||
                in_ns ip -4 route show table all | grep -qE "(^|[ /])198\.1[89]\.$1\."
}

pick
first=$slot
if [[ $first =~ ^[0-9]+$ ]] && ! slot_in_use "$first"; then ok "${descs[0]} ($first)"
else not_ok "${descs[0]}" "slot: $slot" "$err"; fi

in_ns ip addr add "198.18.$first.7/24" dev lo
pick
if [[ $slot =~ ^[0-9]+$ ]] && [ "$slot" != "$first" ] && ! slot_in_use "$slot"; then
        ok "${descs[1]} ($first to $slot)"
else not_ok "${descs[1]}" "occupied 198.18.$first.0/24, slot: $slot" "$err"; fi

second=$slot
in_ns ip addr add "198.19.$second.7/24" dev lo
pick
if [[ $slot =~ ^[0-9]+$ ]] && [ "$slot" != "$first" ] && [ "$slot" != "$second" ] && ! slot_in_use "$slot"; then
        ok "${descs[2]} ($second to $slot)"
else not_ok "${descs[2]}" "occupied 198.19.$second.0/24, slot: $slot" "$err"; fi

third=$slot
# A /23 whose first /24 is the slot's: both of its /24s are in use.
in_ns ip route add "198.18.$((third / 2 * 2)).0/23" dev lo
pick
if [[ $slot =~ ^[0-9]+$ ]] && [ "$slot" != "$third" ] && [ "$slot" != $((third / 2 * 2 + 1)) ] &&
        ! slot_in_use "$slot"; then
        ok "${descs[3]} ($third to $slot)"
else not_ok "${descs[3]}" "routed 198.18.$((third / 2 * 2)).0/23, slot: $slot" "$err"; fi

in_ns ip addr add 198.18.200.1/15 dev lo
pick
if [ -z "$slot" ] && [[ $err == "testnet: no slot N in 0-250 has both"*"198.18.200.1/15"* ]]; then
        ok "${descs[4]}"
else not_ok "${descs[4]}" "slot: $slot" "$err"; fi
in_ns ip addr del 198.18.200.1/15 dev lo

env_file=$(in_ns "$testnet" up --owner $$ 2>"$T_TMP/err")
if [ -r "$env_file" ]; then
        . "$env_file"
        n=${NET_STATE##*/}
        if ! in_ns ip -o -4 addr show dev lo | grep -qE " 198\.1[89]\.$n\." &&
                ! in_ns ip -4 route show dev lo | grep -qE "(^|[ /])198\.1[89]\.$n\."; then
                ok "${descs[5]} ($NET_NET, $NET_FAR_NET)"
        else
                not_ok "${descs[5]}" "took slot $n" "$(in_ns ip -o -4 addr show dev lo)"
        fi
        out=$(in_ns timeout 20 python3 -c 'import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(b"ping")
print("OK:" + s.recv(64).decode())' "$NET_OK_ADDR" "$NET_TCP_ECHO_PORT" 2>&1)
        check "${descs[6]}" "OK:ping" "$out"
else
        env_file=
        not_ok "${descs[5]}" "$(cat "$T_TMP/err")"
        not_ok "${descs[6]}" "no test internet"
fi
