#!/usr/bin/env bash
# Must work: every rule kind of NETWORK_BLOCKLIST / NETWORK_BLOCKLIST_EXCEPT (--block,
# --allow-host) and every precedence case, decided by cordon's proxy for HTTP CONNECT to the test
# internet's TCP echo: exact host > longer *.suffix > shorter > *; with a port > without; longer
# prefix > shorter; an exception beats a block of equal specificity; a name rule decides the name,
# then its addresses meet the address rules (an excepted name into a blocked range is refused
# unless an address exception covers it). Each case has its allowed counterpart in the same run.
. "$(dirname "$0")/../lib/net.sh"
ns_only "proxied mode gives the sandbox its own network namespace"
net_require

E=$NET_TCP_ECHO_PORT E2=$NET_TCP_ECHO_PORT2
ok=$NET_OK_NAME other=$NET_OTHER_NAME zone=$NET_ZONE
plan 52
decide connect "no rule" -- \
        "$ok:$E=allow" "$NET_OK_ADDR:$E=allow" "$NET_FAR_NAME:$E2=allow"
decide connect "host" --block "$ok" -- \
        "$ok:$E=deny" "$ok:$E2=deny" "$other:$E=allow"
decide connect "*.suffix matches the names below it, not the suffix itself" --block "*.$zone" -- \
        "a.$zone:$E=deny" "b.a.$zone:$E=deny" "$zone:$E=allow" "$ok:$E=allow"
decide connect "longer suffix exception beats shorter block" --block "*.test.example" --allow-host "*.$zone" -- \
        "a.$zone:$E=allow" "$ok:$E=deny"
decide connect "longer suffix block beats shorter exception" --allow-host "*.test.example" --block "*.$zone" -- \
        "a.$zone:$E=deny" "$ok:$E=allow"
decide connect "exact host exception beats *.suffix block" --block "*.test.example" --allow-host "$ok" -- \
        "$ok:$E=allow" "$other:$E=deny"
decide connect "exact host block beats *.suffix exception" --allow-host "*.test.example" --block "$ok" -- \
        "$ok:$E=deny" "$other:$E=allow"
decide connect "* blocks everything" --block "*" -- \
        "$ok:$E=deny" "$NET_OK_ADDR:$E=deny"
decide connect "a host exception beats *" --block "*" --allow-host "$ok" -- \
        "$ok:$E=allow" "$other:$E=deny"
decide connect "host:port" --block "$ok:$E2" -- \
        "$ok:$E2=deny" "$ok:$E=allow" "$other:$E2=allow"
decide connect "a rule with a port beats the same without" --block "$ok" --allow-host "$ok:$E" -- \
        "$ok:$E=allow" "$ok:$E2=deny"
decide connect "bare port" --block "$E2" -- \
        "$ok:$E2=deny" "$NET_OTHER_ADDR:$E2=deny" "$ok:$E=allow"
decide connect "an address rule applies to an address literal and to what a name resolves to" --block "$NET_OK_ADDR" -- \
        "$NET_OK_ADDR:$E=deny" "$ok:$E=deny" "$NET_OTHER_ADDR:$E=allow" "$other:$E=allow"
decide connect "CIDR" --block "$NET_FAR_NET" -- \
        "$NET_FAR_ADDR:$E=deny" "$NET_FAR_NAME:$E=deny" "$NET_FAR2_ADDR:$E=deny" "$ok:$E=allow"
decide connect "a longer prefix exception beats a shorter block" --block "$NET_FAR_NET" --allow-host "$NET_FAR2_ADDR/32" -- \
        "$NET_FAR2_NAME:$E=allow" "$NET_FAR_NAME:$E=deny"
decide connect "a longer prefix block beats a shorter exception" --allow-host "$NET_FAR_NET" --block "$NET_FAR_ADDR" -- \
        "$NET_FAR_NAME:$E=deny" "$NET_FAR2_NAME:$E=allow"
decide connect "CIDR:port" --block "$NET_FAR_NET:$E2" -- \
        "$NET_FAR_ADDR:$E2=deny" "$NET_FAR_ADDR:$E=allow"
decide connect "an exception wins over a block of equal specificity" \
        --block "$ok" --allow-host "$ok" --block "$E2" --allow-host "$E2" -- \
        "$ok:$E=allow" "$other:$E2=allow"
decide connect "an excepted name whose address is blocked is refused" --block "$NET_OK_ADDR" --allow-host "$ok" -- \
        "$ok:$E=deny"
decide connect "an address exception lifts it" --block "$NET_OK_ADDR" --allow-host "$ok" --allow-host "$NET_OK_ADDR" -- \
        "$ok:$E=allow"
if [ "$NET_V6" = 1 ]; then
        # fd00::/7 (ULA) is blocked by default, liftable: the name alone does not lift it.
        decide connect "a default-blocked range (fc00::/7) behind an excepted name" --allow-host "$NET_V6_NAME" -- \
                "$NET_V6_NAME:$E=deny" "[$NET_OK_ADDR6]:$E=deny"
        decide connect "an address exception lifts a default-blocked range" --allow-host "$NET_V6_NET" -- \
                "$NET_V6_NAME:$E=allow" "[$NET_OK_ADDR6]:$E=allow"
else
        for d in "a default-blocked range behind an excepted name" "an address exception lifts it"; do
                skip "no IPv6 on the test veth" "$d"; skip "no IPv6 on the test veth" "$d"
        done
fi
