#!/usr/bin/env bash
# Must work: an exception alone restricts nothing, and cordon says so; --allow-only is the allow
# list. --allow-host HOST with no block that covers it warns once at the start, naming the
# pattern, where it came from and the fix (--block '*'), and everything stays reachable;
# --allow-only HOST allows HOST and refuses the rest, in proxied mode (the proxy) and in
# filtered mode (cordon's resolver answers REFUSED for the other names), with no warning.
# A refusal names the destination, the rule, its origin and the fix: in the HTTP answer, in the
# NETWORK_LOG line (all a SOCKS5 client gets is reply 2), and in one line at the end of the run.
. "$(dirname "$0")/../lib/net.sh"
ns_only "proxied and filtered mode give the sandbox its own network namespace"
net_require

E=$NET_TCP_ECHO_PORT
ok_name=$NET_OK_NAME other=$NET_OTHER_NAME
plan 18

# loud OPTION... -- CMD...: cordon with its warnings; stdout in $out, stderr in $err, $rc.
loud() {
        out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet "$@" 2>"$T_TMP/stderr"); rc=$?
        err=$(cat "$T_TMP/stderr")
}

loud --net proxied --allow-host "$ok_name" -- true
check "--allow-host alone: the start goes on" 0 "$rc"
case $err in
*"NETWORK_BLOCKLIST_EXCEPT \"$ok_name\" (--allow-host) restricts nothing"*"--block '*'"*)
        ok "--allow-host alone: one warning names it, its origin and --block '*'" ;;
*) not_ok "--allow-host alone: one warning names it, its origin and --block '*'" "$err" ;;
esac
check "... one line" 1 "$(printf '%s\n' "$err" | grep -c 'restricts nothing')"
decide connect "--allow-host alone restricts nothing" --allow-host "$ok_name" -- \
        "$ok_name:$E=allow" "$other:$E=allow"

loud --net proxied --block "*.test.example" --allow-host "$ok_name" -- true
check "an exception to a block: no warning" "0:" "$rc:$(printf '%s\n' "$err" | grep 'restricts nothing')"

loud --net proxied --allow-only "$ok_name" -- true
check "--allow-only: no warning" "0:" "$rc:$(printf '%s\n' "$err" | grep 'restricts nothing')"
decide connect "--allow-only, proxied" --allow-only "$ok_name" -- \
        "$ok_name:$E=allow" "$other:$E=deny" "$NET_OK_ADDR:$E=deny"
decide connect "--allow-only twice" --allow-only "$ok_name" --allow-only "$other" -- \
        "$ok_name:$E=allow" "$other:$E=allow"

# What a refusal says, where.
log="$T_TMP/net.log"
rm -f "$log"
loud --net proxied --proxy-dns "$NET_DNS" --allow-only "$ok_name" --net-log "$log" -- python3 -c "$NET_PROBE" multi \
        "connect ${NET_PROXY%:*} ${NET_PROXY##*:} $other:$E" "socks ${NET_PROXY%:*} ${NET_PROXY##*:} $other $E"
why="cordon refused $other:$E by rule \"*\" (NETWORK_BLOCKLIST from --allow-only); to allow it: NETWORK_BLOCKLIST_EXCEPT+=('$other')"
check "the HTTP refusal's body names the destination, the rule, its origin and the fix; SOCKS5 gets reply 2" \
        "403|cordon proxy: $why
REP:2" "$out"
check "NETWORK_LOG's line for the SOCKS5 refusal says the same" "$why" \
        "$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1])][-1].get("message"))' "$log")"
case $err in
*"cordon: the proxy refused 2 connections ($other:$E); allow a host with --allow-host HOST"*) ok "at the end, one line counts the refusals and names the first destinations" ;;
*) not_ok "at the end, one line counts the refusals and names the first destinations" "$err" ;;
esac

# A request the proxy cannot serve names nothing: the line says what it was.
loud --net proxied -- python3 -c "$NET_PROBE" http "${NET_PROXY%:*}" "${NET_PROXY##*:}" 'NOT HTTP\r\n\r\n'
case $err in
*"cordon: the proxy refused 1 request it cannot serve (malformed or unsupported) (--net-log FILE records each refusal)"*)
        ok "a malformed request: the end line says the proxy could not serve it" ;;
*) not_ok "a malformed request: the end line says the proxy could not serve it" "$out" "$err" ;;
esac

# Filtered mode, where pasta is usable: the resolver answers the allowed name only.
probe --net filtered --proxy-dns "$NET_DNS" --allow-only "$ok_name" -- \
        multi "dns $NET_RESOLVER $ok_name" "dns $NET_RESOLVER $other"
if [ "$rc" = 125 ]; then
        skip "filtered mode cannot be delivered here: $(printf '%s\n' "$out" | tail -n 1)" "--allow-only, filtered: names"
else
        mapfile -t lines < <(printf '%s\n' "$out" | grep -v '^cordon: ')
        check "--allow-only, filtered: the allowed name resolves, the other is REFUSED" \
                "OK:$NET_OK_ADDR RCODE:5" "${lines[0]%%,*} ${lines[1]:-}"
fi
# ... and at the end one line counts the resolver's refusals and names the first names.
loud --net filtered --set NETWORK_FILTER_FALLBACK=strict --proxy-dns "$NET_DNS" --allow-only "$ok_name" -- \
        python3 -c "$NET_PROBE" multi "dns $NET_RESOLVER $other" "dns $NET_RESOLVER $other" "dns $NET_RESOLVER $ok_name"
if [ "$rc" = 125 ]; then
        skip "filtered mode cannot be delivered here: $(printf '%s\n' "$err" | tail -n 1)" "filtered: the end line names the refused names"
else
        case $err in
        *"cordon: the sandbox's resolver refused 2 names ($other); allow a host with --allow-host HOST"*)
                ok "filtered: at the end, one line counts the resolver's refusals and names the first names" ;;
        *) not_ok "filtered: at the end, one line counts the resolver's refusals and names the first names" "$err" ;;
        esac
fi
