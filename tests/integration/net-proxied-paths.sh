#!/usr/bin/env bash
# Must work: NETWORK_BLOCKLIST entries with a URL path, host globs and an IPv6 CIDR with a port
# written as agent-sandbox's sandbox.conf writes them, against the test internet. In proxied mode
# a plain HTTP request under a blocked path is refused (403, naming the path and the rule) while
# another path of the same host is forwarded; a tunnel to that host is not restricted by the path
# entry (its path is not seen), and a path exception lifts nothing there; a glob decides by name
# as bash matches it (`*` across dots). In filtered mode (ns backend) cordon's resolver decides
# a glob the same way and a path entry leaves its host resolvable, and the start says so in one
# line. Under the landlock backend the proxy is the same; filtered mode is the ns backend's.
. "$(dirname "$0")/../lib/net.sh"
net_require

ok=$NET_OK_NAME other=$NET_OTHER_NAME E=$NET_TCP_ECHO_PORT E2=$NET_TCP_ECHO_PORT2
P=(--net proxied --proxy-dns "$NET_DNS")
# VIA PROBE SPEC...: NET_PROBE's multi with @PROXY@ in each spec replaced by the proxy the
# sandbox's HTTP_PROXY names (127.0.0.1:3128 in the ns backend, a random port in the landlock one).
VIA='import os, sys
port = os.environ["HTTP_PROXY"].rstrip("/").rsplit(":", 1)[1]
specs = [s.replace("@PROXY@", "127.0.0.1 " + port) for s in sys.argv[2:]]
os.execvp("python3", ["python3", "-c", sys.argv[1], "multi"] + specs)'
get() { printf 'http @PROXY@ GET\\x20http://%s\\x20HTTP/1.1\\r\\nConnection:\\x20close\\r\\n\\r\\n' "$1"; }
tunnel() { printf 'connect @PROXY@ %s' "$1"; }
# answers OPTION...: runs the specs in $specs through the proxy; the answers in l[], cordon's
# own lines apart in $notes.
answers() {
        in_cordon "${P[@]}" "$@" -- python3 -c "$VIA" "$NET_PROBE" "${specs[@]}"
        mapfile -t l < <(printf '%s\n' "$out" | grep -v '^cordon: ')
        notes=$(printf '%s\n' "$out" | grep '^cordon: ' || true)
}

# Filtered mode is the ns backend's: its three tests are not planned under landlock.
n=20
[ "${SANDBOX_BACKEND:-}" = landlock ] && n=17
plan $n
in_cordon "${P[@]}" -- true
if [ "$rc" != 0 ] && [[ $out == *"this kernel"* ]]; then
        for i in $(seq $n); do skip "proxied mode cannot run here: $out" "proxied paths ($i)"; done
        exit 0
fi

# A path entry: plain HTTP under the path refused, beside it forwarded, a tunnel not restricted.
specs=("$(get "$ok/echo/blocked")" "$(get "$ok/echo/blocked/123?x=1")" "$(get "$ok/echo/open")"
        "$(get "$ok/echo/blockedX")" "$(tunnel "$ok:$E")")
answers --block "$ok/echo/blocked"
check_like "GET $ok/echo/blocked: 403 naming the path and the rule" \
        "403|cordon proxy: cordon refused $ok:80 path \"/echo/blocked\" by rule \"$ok/echo/blocked\" (NETWORK_BLOCKLIST from --block); to allow it: NETWORK_BLOCKLIST_EXCEPT+=('$ok/echo/blocked')" \
        "${l[0]:-$out}"
check_like "GET $ok/echo/blocked/123?x=1: 403" "403|*by rule \"$ok/echo/blocked\"*" "${l[1]:-}"
check_like "GET $ok/echo/open on the same host: forwarded" "200|method=GET path=/echo/open host=$ok *" "${l[2]:-}"
check_like "GET $ok/echo/blockedX (not on a segment boundary): forwarded" "200|method=GET path=/echo/blockedX *" "${l[3]:-}"
check "CONNECT $ok:$E: the path entry does not block the host's tunnels" "200|ping" "${l[4]:-}"
check_like "the start says, in one line, that the path entry holds for plain HTTP only" \
        "cordon: warning: proxied mode: 1 NETWORK_BLOCKLIST entry with a URL path applies to plain HTTP requests only, not to HTTPS or other tunnels to its host; listed by cordon config explain NETWORK_BLOCKLIST" \
        "$notes"

# A path exception lifts a host block under its path, for plain HTTP only.
specs=("$(get "$other/echo/public/x")" "$(get "$other/echo/private")" "$(get "$other/ECHO/PUBLIC")"
        "$(tunnel "$other:$E")")
answers --block "$other" --allow-host "$other/echo/public"
check_like "exception $other/echo/public: GET under it forwarded" "200|method=GET path=/echo/public/x *" "${l[0]:-$out}"
check_like "exception $other/echo/public: GET beside it refused by the host block" "403|*by rule \"$other\"*" "${l[1]:-}"
check_like "exception $other/echo/public: another case of its letters is not it" "403|*by rule \"$other\"*" "${l[2]:-}"
check_like "exception $other/echo/public: a tunnel to the host stays refused" "403|*by rule \"$other\"*" "${l[3]:-}"

# Host globs, as bash matches them: `?` one character, `*` across dots.
specs=("$(tunnel "$other:$E")" "$(tunnel "$ok:$E")" "$(tunnel "a.$NET_ZONE:$E")"
        "$(tunnel "b.a.$NET_ZONE:$E")" "$(tunnel "a.x.y.test.example:$E")")
answers --block 'o?her.test.*' --block 'a.*.test.example'
check_like "glob o?her.test.*: $other refused" "403|*by rule \"o?her.test.*\"*" "${l[0]:-$out}"
check "glob o?her.test.*: $ok allowed" "200|ping" "${l[1]:-}"
check_like "glob a.*.test.example: a.$NET_ZONE refused" "403|*by rule \"a.*.test.example\"*" "${l[2]:-}"
check "glob a.*.test.example: b.a.$NET_ZONE allowed" "200|ping" "${l[3]:-}"
check_like "glob a.*.test.example: * spans dots (a.x.y.test.example refused)" "403|*by rule \"a.*.test.example\"*" "${l[4]:-}"

# An IPv6 CIDR with a port, the length after the brackets.
if [ "$NET_V6" = 1 ]; then
        specs=("$(tunnel "[$NET_OK_ADDR6]:$E2")" "$(tunnel "[$NET_OK_ADDR6]:$E")")
        answers --block "[${NET_V6_NET%/*}]/64:$E2" --allow-host "$NET_V6_NET"
        check_like "[${NET_V6_NET%/*}]/64:$E2 refuses that port" "403|*by rule \"\\[${NET_V6_NET%/*}\\]/64:$E2\"*" "${l[0]:-$out}"
        check "[${NET_V6_NET%/*}]/64:$E2 leaves port $E" "200|ping" "${l[1]:-}"
else
        skip "no IPv6 on the test veth" "[v6]/len:port refuses that port"
        skip "no IPv6 on the test veth" "[v6]/len:port leaves the other port"
fi

# Filtered mode (ns backend): the resolver decides globs by the same matcher; a path entry
# leaves its host resolvable; one line counts the host-name entries.
if [ "${SANDBOX_BACKEND:-}" != landlock ]; then
        in_cordon --net filtered --proxy-dns "$NET_DNS" --block 'o?her.test.*' --block "$ok/echo/blocked" -- \
                python3 -c "$NET_PROBE" multi "dns $NET_RESOLVER $other" "dns $NET_RESOLVER $ok"
        if [ "$rc" = 125 ]; then
                for d in 1 2 3; do
                        skip "filtered mode cannot be delivered here: $(printf '%s\n' "$out" | tail -n 1)" "filtered ($d)"
                done
        else
                mapfile -t l < <(printf '%s\n' "$out" | grep -v '^cordon: ')
                check "filtered: glob o?her.test.* refuses $other at the resolver" "RCODE:5" "${l[0]:-$out}"
                check "filtered: $ok resolves (its path entry does not block it)" "OK:$NET_OK_ADDR" "${l[1]:-}"
                check "filtered: one line counts the host-name entries" \
                        "cordon: warning: filtered mode: 2 NETWORK_BLOCKLIST host-name entries apply to the names its resolver answers, not to connections by address (1 with a path: not at all); NETWORK_FILTER_MODE=proxied applies them to connections; listed by cordon config explain NETWORK_BLOCKLIST" \
                        "$(printf '%s\n' "$out" | grep '^cordon: ')"
        fi
fi
