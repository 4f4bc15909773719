#!/usr/bin/env bash
# Attack: lift the floor with exceptions: SMTP submission, DoT and r-service ports on a live
# test-internet host, link-local (the cloud metadata address), multicast, unspecified, and the
# spec's built-in exfiltration hosts, each excepted every way the rules allow. No exception lifts
# them. Controls: the host answers on those ports outside, and the same exceptions on an
# ordinary port let the tunnel through.
. "$(dirname "$0")/../lib/net.sh"
net_require

ok=$NET_OK_NAME S=$NET_SMTP_PORT E=$NET_TCP_ECHO_PORT
plan 23
host_probe tcp "$NET_OK_ADDR" "$S"
check "control: $NET_OK_ADDR:$S (SMTP) answers on the host" "OK:ping" "$out"
lift=(--allow-host "$ok:$S" --allow-host "$NET_OK_ADDR:$S" --allow-host "$S" --allow-host "*:$S"
      --allow-host "$NET_NET:$S" --allow-host "$ok" --allow-host "*")
decide connect "SMTP port $S excepted every way" "${lift[@]}" -- \
        "$ok:$S=deny" "$NET_OK_ADDR:$S=deny" "$ok:$E=allow"
decide socks "SMTP port $S excepted every way" "${lift[@]}" -- \
        "$ok:$S=deny" "$NET_OK_ADDR:$S=deny" "$ok:$E=allow"
decide connect "the other floor ports, excepted" \
        --allow-host 465 --allow-host 587 --allow-host 2525 --allow-host 24 --allow-host 853 \
        --allow-host 23 --allow-host 513 -- \
        "$ok:465=deny" "$ok:587=deny" "$ok:2525=deny" "$ok:24=deny" "$ok:853=deny" "$ok:23=deny" "$ok:513=deny"
decide connect "link-local, multicast and unspecified, excepted" \
        --allow-host 169.254.0.0/16 --allow-host 169.254.169.254 --allow-host "$NET_REBIND_LINKLOCAL" \
        --allow-host 224.0.0.0/4 --allow-host fe80::/10 --allow-host ff00::/8 --allow-host 0.0.0.0 -- \
        "169.254.169.254:80=deny" "$NET_REBIND_LINKLOCAL:80=deny" "224.0.0.1:$E=deny" \
        "[fe80::1]:$E=deny" "[ff02::1]:$E=deny" "0.0.0.0:$E=deny"
decide connect "the built-in exfiltration hosts, excepted" \
        --allow-host api.sendgrid.com --allow-host dns.google --allow-host transfer.sh -- \
        "api.sendgrid.com:443=deny" "dns.google:443=deny" "transfer.sh:443=deny"
