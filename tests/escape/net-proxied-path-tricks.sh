#!/usr/bin/env bash
# Attack: slip a plain HTTP request past a NETWORK_BLOCKLIST path entry by spelling the path (or
# the host) another way a server may read as the blocked path: a percent-encoded letter, case,
# an empty segment, a dot segment (plain and encoded), an encoded '/' or '\', a literal '\',
# double encoding, path parameters, a trailing dot or an encoded NUL, the host in capitals with
# a trailing dot and an explicit port. Each is refused with 403: blocked by the rule once decoded,
# or refused as a path servers read two ways ("for ..."). A query is no part of the path.
# Controls: a path beside the blocked one passes in the same sandbox, and without the path entry
# every one of these spellings reaches the origin (so the refusals are the entry's doing).
. "$(dirname "$0")/../lib/net.sh"
net_require

ok=$NET_OK_NAME
rule="$ok/echo/blocked"
req() { printf 'http %s %s GET\\x20%s\\x20HTTP/1.1\\r\\nConnection:\\x20close\\r\\n\\r\\n' \
        "${NET_PROXY%:*}" "${NET_PROXY##*:}" "$1"; }
# target|expected answer with the rule in place (BY: refused by the rule; FOR why: refused as a
# path servers read two ways; PASS: forwarded to the origin).
cases=(
        "http://$ok/echo/open|PASS"
        "http://$ok/echo/blocked|BY"
        "http://$ok/echo/%62locked|BY"
        "http://$ok/echo/BLOCKED/1|BY"
        "http://$ok/echo/blocked?x=1|BY"
        "http://OK.TEST.EXAMPLE.:80/echo/blocked|BY"
        "http://$ok/echo//blocked|FOR an empty segment (\"//\") in the request path"
        "http://$ok//echo/blocked|FOR an empty segment (\"//\") in the request path"
        "http://$ok/echo/x/../blocked|FOR a \".\" or \"..\" segment in the request path"
        "http://$ok/echo/./blocked|FOR a \".\" or \"..\" segment in the request path"
        "http://$ok/echo/x/%2e%2E/blocked|FOR a \".\" or \"..\" segment in the request path"
        "http://$ok/echo%2fblocked|FOR an encoded \"/\" or \"\\\" in the request path (servers read it differently)"
        "http://$ok/echo%5Cblocked|FOR an encoded \"/\" or \"\\\" in the request path (servers read it differently)"
        "http://$ok/echo\\\\blocked|FOR a \"\\\" in the request path (some servers read it as \"/\")"
        "http://$ok/echo/%2562locked|FOR double percent-encoding (\"%25\") in the request path"
        "http://$ok/echo;a=b/blocked|FOR path parameters (\";\") in the request path (servers read them differently)"
        "http://$ok/echo/blocked./x|FOR a segment of the request path that ends in \".\" or a space"
        "http://$ok/echo/blocked%00|FOR an encoded control or non-ASCII byte in the request path"
        "http://$ok/echo?/blocked|PASS"
)
specs=()
for c in "${cases[@]}"; do specs+=("$(req "${c%%|*}")"); done

plan $((2 * ${#cases[@]}))
in_cordon --net proxied --proxy-dns "$NET_DNS" --block "$rule" -- python3 -c "$NET_PROBE" multi "${specs[@]}"
mapfile -t got < <(printf '%s\n' "$out" | grep -v '^cordon: ')
for i in "${!cases[@]}"; do
        t=${cases[$i]%%|*} want=${cases[$i]#*|} g=${got[$i]:-}
        case $want in
        PASS) check_like "control: $t is forwarded" "200|method=GET *" "$g" ;;
        BY) check_like "$t: 403 by rule $rule" "403|cordon proxy: cordon refused $ok:80 path \"*\" by rule \"$rule\" *" "$g" ;;
        FOR*)
                why=${want#FOR }
                want_like="403|cordon proxy: cordon refused $ok:80 path \"*\" for ${why//\\/\\\\}, and rule \"$rule\" *"
                check_like "$t: 403, $why" "$want_like" "$g" ;;
        esac
done

# The positive control: without the path entry each of them reaches the origin (the test
# internet's server answers every path that starts with /echo).
in_cordon --net proxied --proxy-dns "$NET_DNS" -- python3 -c "$NET_PROBE" multi "${specs[@]}"
mapfile -t got < <(printf '%s\n' "$out" | grep -v '^cordon: ')
for i in "${!cases[@]}"; do
        check_like "control without the entry: ${cases[$i]%%|*} reaches the origin" \
                "200|method=GET *" "${got[$i]:-}"
done
