#!/usr/bin/env bash
# Attack: slip a blocked name past the proxy by spelling: upper case, a trailing dot, a NUL
# byte, lenient numeric forms of an address (which are not addresses), userinfo in the URI, a
# Host header that names another host than the URI, and SOCKS5 commands other than CONNECT.
# Controls: the allowed host passes in the same sandbox, in the canonical spelling.
. "$(dirname "$0")/../lib/net.sh"
net_require

ok=$NET_OK_NAME other=$NET_OTHER_NAME E=$NET_TCP_ECHO_PORT H=$NET_HTTP_PORT
# Lenient forms of NET_OK_ADDR: one number, hex, three parts, octal.
read -r dec hex three oct <<<"$(python3 -c 'import sys
a, b, c, d = map(int, sys.argv[1].split("."))
print((a << 24 | b << 16 | c << 8 | d), "0x%02x%02x%02x%02x" % (a, b, c, d), "%d.%d.%d" % (a, b, c << 8 | d),
      "0%o.0%o.0%o.0%o" % (a, b, c, d))' "$NET_OK_ADDR")"

plan 28
decide connect "spelling, $ok blocked" --block "$ok" -- \
        "$other:$E=allow" "OK.TEST.EXAMPLE:$E=deny" "$ok.:$E=deny" "Ok.Test.Example.:$E=deny" \
        "$other\\x00.$ok:$E=bad" "$ok\\x00:$E=bad"
decide socks "spelling, $ok blocked" --block "$ok" -- \
        "$other:$E=allow" "OK.TEST.EXAMPLE:$E=deny" "$ok.:$E=deny" "$other\\x00.x:$E=bad"
decide http "spelling, $ok blocked" --block "$ok" -- \
        "$other:$H=allow" "OK.TEST.EXAMPLE:$H=deny" "$ok.:$H=deny"
decide connect "lenient numeric forms of $NET_OK_ADDR, only it allowed" --block "*" --allow-host "$NET_OK_ADDR" -- \
        "$NET_OK_ADDR:$E=allow" "$dec:$E=bad" "$hex:$E=bad" "$three:$E=bad" "$oct:$E=bad"
decide socks "lenient numeric forms of $NET_OK_ADDR, only it allowed" --block "*" --allow-host "$NET_OK_ADDR" -- \
        "$NET_OK_ADDR:$E=allow" "$dec:$E=bad" "$hex:$E=bad"

# Plain HTTP by hand: userinfo, Host header disagreeing with the URI (403 with a reason).
req() { printf 'http %s %s GET\\x20%s\\x20HTTP/1.1\\r\\nHost:\\x20%s\\r\\nConnection:\\x20close\\r\\n\\r\\n' \
        "${NET_PROXY%:*}" "${NET_PROXY##*:}" "$1" "$2"; }
in_cordon --net proxied --proxy-dns "$NET_DNS" --block "$ok" -- python3 -c "$NET_PROBE" multi \
        "$(req "http://$other/echo" "$other")" \
        "$(req "http://$other@$ok/echo" "$ok")" \
        "$(req "http://$ok:$H@$other/echo" "$other")" \
        "$(req "http://$other/echo" "$ok")" \
        "$(req "http://$other/echo" "$other:$H")" \
        "$(req "http://$other/echo" "$other\\x00.$ok")"
mapfile -t l <<<"$out"
case ${l[0]:-} in "200|method=GET "*"host=$other local=$NET_OTHER_ADDR"*) ok "control: plain HTTP to $other" ;;
*) not_ok "control: plain HTTP to $other" "rc=$rc" "${l[@]}" ;; esac
case ${l[1]:-} in "403|"*) ok "userinfo naming an allowed host before the blocked one: 403" ;;
*) not_ok "userinfo naming an allowed host before the blocked one: 403" "${l[@]}" ;; esac
case ${l[2]:-} in "403|"*) ok "userinfo in front of an allowed host: 403" ;;
*) not_ok "userinfo in front of an allowed host: 403" "${l[@]}" ;; esac
case ${l[3]:-} in "403|"*) ok "Host: $ok under a URI naming $other: 403" ;;
*) not_ok "Host: $ok under a URI naming $other: 403" "${l[@]}" ;; esac
case ${l[4]:-} in "200|method=GET "*) ok "control: Host: $other:$H agrees with the URI" ;;
*) not_ok "control: Host: $other:$H agrees with the URI" "${l[@]}" ;; esac
case ${l[5]:-} in "400|"*) ok "a NUL byte in the Host header: 400" ;;
*) not_ok "a NUL byte in the Host header: 400" "${l[@]}" ;; esac

probe --net proxied --proxy-dns "$NET_DNS" -- multi \
        "socks ${NET_PROXY%:*} ${NET_PROXY##*:} $ok $E 2" "socks ${NET_PROXY%:*} ${NET_PROXY##*:} $ok $E 3"
check "SOCKS5 BIND and UDP ASSOCIATE: reply 7 (command not supported)" "REP:7
REP:7" "$out"
