#!/usr/bin/env bash
# Must work: proxied mode's one proxy port speaks plain HTTP (absolute URI), HTTP CONNECT and
# SOCKS5 (by name, IPv4 and IPv6), each allowed and denied; curl through the proxy variables
# set inside, through -x, -p (a CONNECT tunnel) and --socks5-hostname; a refusal is a 403 with a
# one-line reason; --net-log writes one JSON line per decision with the documented fields.
. "$(dirname "$0")/../lib/net.sh"
ns_only "proxied mode gives the sandbox its own network namespace"
net_require

ok=$NET_OK_NAME other=$NET_OTHER_NAME E=$NET_TCP_ECHO_PORT H=$NET_HTTP_PORT
plan 20
decide http "plain HTTP" --block "$other" -- "$ok:$H=allow" "$NET_OK_ADDR:$H=allow" "$other:$H=deny"
decide connect "CONNECT" --block "$other" -- "$ok:$E=allow" "$other:$E=deny"
v6=()
[ "$NET_V6" = 1 ] && v6=(--allow-host "$NET_V6_NET")
decide socks "SOCKS5" --block "$other" --block "$NET_OTHER_ADDR" "${v6[@]}" -- \
        "$ok:$E=allow" "$other:$E=deny" "$NET_OK_ADDR:$E=allow" "$NET_OTHER_ADDR:$E=deny"
if [ "$NET_V6" = 1 ]; then
        decide socks "SOCKS5 by IPv6 address" "${v6[@]}" -- "[$NET_OK_ADDR6]:$E=allow"
else
        skip "no IPv6 on the test veth" "SOCKS5 by IPv6 address"
fi

# curl every way in one sandbox: one line per call, "STATUS|OUTPUT" (newlines folded).
CURLS='c() { o=$(curl -sS --max-time 15 "$@" 2>&1); echo "$?|$o" | tr "\n" " "; echo; }
x=http://$1
c "http://$2/echo"
c -x "$x" -o /dev/null -w "%{http_code}" "http://$3/echo"
c -x "$x" "http://$3/echo"
c -p -x "$x" "http://$2/echo"
c -p -x "$x" "http://$3/echo"
c --socks5-hostname "$1" "http://$2/echo"
c --socks5-hostname "$1" "http://$3/echo"
env -u http_proxy -u HTTP_PROXY curl -sS --max-time 15 "http://$2/echo"'
in_cordon --net proxied --proxy-dns "$NET_DNS" --block "$other" -- sh -c "$CURLS" curls "$NET_PROXY" "$ok" "$other"
mapfile -t l <<<"$out"
echo_ok="method=GET path=/echo host=$ok local=$NET_OK_ADDR port=$H"
case ${l[0]:-} in "0|$echo_ok ") ok "curl through http_proxy" ;;
*) not_ok "curl through http_proxy" "rc=$rc" "${l[@]}" ;; esac
check "curl -x, denied: 403" "0|403 " "${l[1]:-}"
case ${l[2]:-} in "0|"?*) ok "curl -x, denied: a one-line reason in the body (${l[2]})" ;;
*) not_ok "curl -x, denied: a one-line reason in the body" "${l[@]}" ;; esac
case ${l[3]:-} in "0|$echo_ok ") ok "curl -p (CONNECT tunnel)" ;;
*) not_ok "curl -p (CONNECT tunnel)" "${l[@]}" ;; esac
case ${l[4]:-} in "56|"*403*) ok "curl -p, denied: exit 56, CONNECT answered 403" ;;
*) not_ok "curl -p, denied: exit 56, CONNECT answered 403" "${l[@]}" ;; esac
case ${l[5]:-} in "0|$echo_ok ") ok "curl --socks5-hostname" ;;
*) not_ok "curl --socks5-hostname" "${l[@]}" ;; esac
case ${l[6]:-} in "97|"*) ok "curl --socks5-hostname, denied: exit 97 (the proxy refused)" ;;
*) not_ok "curl --socks5-hostname, denied: exit 97 (the proxy refused)" "${l[@]}" ;; esac
check "curl without http_proxy goes through ALL_PROXY (socks5h)" "$echo_ok" "${l[7]:-}"

# The log: one JSON line per decision.
LOG='import json, sys
keys = ["time", "client", "protocol", "host", "port", "address", "rule", "origin", "verdict",
        "bytes_up", "bytes_down"]
for line in open(sys.argv[1]):
    e = json.loads(line)
    missing = [k for k in keys if k not in e]
    print(e["protocol"], e["host"], e["port"], e["address"], e["verdict"], e["rule"],
          "up>=4" if (e["bytes_up"] or 0) >= 4 else "up<4", "missing:%s" % missing if missing else "")'
probe --net proxied --proxy-dns "$NET_DNS" --block "$other" --net-log "$T_TMP/net.log" -- multi \
        "connect ${NET_PROXY%:*} ${NET_PROXY##*:} $ok:$E" "connect ${NET_PROXY%:*} ${NET_PROXY##*:} $other:$E"
check "--net-log: the probes ran" "200|ping
403|" "$(printf '%s\n' "$out" | sed 's/^403|.*/403|/')"
# Sorted: an allowed tunnel's line is written when it closes (with its byte counts), which may
# come after the refusal of the next request.
got=$(python3 -c "$LOG" "$T_TMP/net.log" 2>&1 | LC_ALL=C sort)
check "--net-log: one line each, every field, the rule that denied" \
        "connect $ok $E $NET_OK_ADDR allow None up>=4 
connect $other $E None deny $other up<4 " "$got"
