#!/usr/bin/env bash
# Attack: DNS rebinding through the proxy: names on the test internet's DNS that resolve into
# blocked ranges (RFC 1918, 100.64/10, loopback, link-local, 0.0.0.0, an IPv4-mapped loopback,
# ::1), with the names themselves excepted, by name and by suffix. The name rule decides the name;
# the address it resolves to is still refused. Control: an excepted name that resolves to the
# test internet goes through in the same sandbox.
. "$(dirname "$0")/../lib/net.sh"
net_require

E=$NET_TCP_ECHO_PORT
names=("$NET_REBIND_PRIVATE" "$NET_REBIND_CGNAT" "$NET_REBIND_LOOP" "$NET_REBIND_LINKLOCAL"
       "$NET_REBIND_ZERO" "$NET_REBIND_MAPPED" "$NET_REBIND_LOOP6")
lift=(--block "*")
targets=("$NET_OK_NAME:$E=allow")
for n in "${names[@]}"; do lift+=(--allow-host "$n"); targets+=("$n:$E=deny"); done
plan 24
decide connect "excepted by name" "${lift[@]}" --allow-host "$NET_OK_NAME" -- "${targets[@]}"
decide socks "excepted by name" "${lift[@]}" --allow-host "$NET_OK_NAME" -- "${targets[@]}"
decide connect "excepted by suffix" --allow-host "*.test.example" -- "${targets[@]}"
