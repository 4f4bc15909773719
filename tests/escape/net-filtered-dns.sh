#!/usr/bin/env bash
# Attack: in filtered mode under NETWORK_BLOCKLIST=("*"), use DNS as a channel: resolve a name
# no rule allows, or carry data out in the names of queries, straight to the host's resolver
# (the firewall used to accept it before every rule) or through the sandbox's own resolver.
# Now the sandbox's resolver is cordon's (127.0.0.53, served by the supervisor): it answers a
# refused name REFUSED (rcode 5) without asking anybody, and the firewall refuses port 53
# everywhere else (UDP send EPERM, TCP connect EHOSTUNREACH); TCP to cordon's resolver is
# refused (ECONNREFUSED). The test resolver's query log shows that a refused name never reached
# it. Controls: an exception for the name lets it resolve, through getent and a raw query; an
# answer into a blocked range is refused like the proxy refuses it.
#
# As root every sandbox starts in a private mount namespace where the host's /etc/resolv.conf
# names the test internet's resolver (the sandbox used to share that file and reach that
# resolver past the rules); the unprivileged run names it with --proxy-dns instead, and the
# checks against the host's resolver itself are skipped.
. "$(dirname "$0")/../lib/net.sh"
ns_only "the filtered network needs a network namespace"
net_require

tag=dns-$$-$RANDOM
BLOCKED=leak-$tag.$NET_ZONE # only ever asked inside the sandbox, and refused there
ALLOWED=ok-$tag.$NET_ZONE   # allowed by an exception
PORTED=port-$tag.$NET_ZONE  # allowed by an exception with a port
CONTROL=ctl-$tag.$NET_ZONE  # asked on the host, the control
F=(--net filtered --block '*')
fake=
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
        fake=$T_TMP/resolv.conf
        echo "nameserver $NET_DNS" >"$fake"
        chmod 644 "$fake"
else
        F+=(--proxy-dns "$NET_DNS")
fi

# sandbox OPTION... -- CMD...: cordon run in the scratch project (as root: on the fake host);
# its output in $out, its warnings (host-name exceptions are not applied to connections) apart;
# $rc.
sandbox() {
        if [ -n "$fake" ]; then
                out=$(cd "$T_PROJECT" && timeout 60 unshare -m sh -c \
                        'mount --bind "$0" /etc/resolv.conf && exec "$@"' "$fake" \
                        "$CORDON" run --quiet "$@" 2>"$T_TMP/stderr"); rc=$?
        else
                out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet "$@" 2>"$T_TMP/stderr"); rc=$?
        fi
}
asked() { grep -c "query\[[A-Z]*\] $1 " "$NET_DNS_LOG" 2>/dev/null; }

plan 15
host_probe dns "$NET_DNS" "$CONTROL"
check "control: the test resolver answers a name of the zone on the host" "OK:$NET_OK_ADDR" "$out"

log=$T_TMP/net.log
sandbox "${F[@]}" --net-log "$log" -- python3 -c "$NET_PROBE" multi "dns $NET_RESOLVER $BLOCKED" \
        "dns $NET_RESOLVER $BLOCKED AAAA" "tcp $NET_RESOLVER 53" "udp $NET_DNS 53" "tcp $NET_DNS 53"
mapfile -t l <<<"$out"
check "* blocked: cordon's resolver answers the name REFUSED" "RCODE:5" "${l[0]:-$out}"
check "* blocked: ... for AAAA too" "RCODE:5" "${l[1]:-}"
check "TCP to cordon's resolver: ECONNREFUSED" "ECONNREFUSED" "${l[2]:-}"
check "UDP to the test resolver's port 53: EPERM" "EPERM" "${l[3]:-}"
check "TCP to the test resolver's port 53: EHOSTUNREACH" "EHOSTUNREACH" "${l[4]:-}"
case $(cat "$log" 2>/dev/null) in
*'"protocol":"dns","host":"'"$BLOCKED"'","port":null,"address":null,"rule":"*"'*'"verdict":"deny"'*)
        ok "NETWORK_LOG names the refused name and the rule" ;;
*) not_ok "NETWORK_LOG names the refused name and the rule" "$(cat "$log" 2>&1)" ;; esac

if [ -n "$fake" ]; then
        sandbox "${F[@]}" -- python3 -c "$NET_PROBE" dns "$NET_DNS" "$BLOCKED"
        check "* blocked: a query straight to the host's resolver is refused by the firewall" \
                "EPERM" "$out"
else
        # Not a kernel gap: as a user the host's resolver is the machine's own, never a test
        # target; the firewall rule is the same for every user, and root's run checks it.
        ok "a query straight to the host's resolver # SKIP root only (a private mount namespace names the test resolver as the host's)"
fi
sandbox "${F[@]}" -- getent hosts "$BLOCKED"
check "* blocked: getent hosts fails (status 2)" "2" "$rc"
check "the refused name never reached the test resolver" "0" "$(asked "$BLOCKED")"

sandbox "${F[@]}" --allow-host "$ALLOWED" --allow-host "$PORTED:443" -- sh -c \
        'getent hosts "$1"; python3 -c "$2" multi "dns '"$NET_RESOLVER"' $3" "dns '"$NET_RESOLVER"' $4"' \
        sh "$ALLOWED" "$NET_PROBE" "$ALLOWED" "$PORTED"
mapfile -t l <<<"$out"
check "an exception for the name: getent hosts resolves it" "$NET_OK_ADDR $ALLOWED" \
        "$(echo "${l[0]:-$out}" | tr -s ' ')"
check "... and so does a raw query" "OK:$NET_OK_ADDR" "${l[1]:-}"
check "an exception with a port (name:443) lets the name resolve" "OK:$NET_OK_ADDR" "${l[2]:-}"
check "control: the allowed name reached the test resolver" "yes" \
        "$([ "$(asked "$ALLOWED")" -gt 0 ] && echo yes || echo no)"

sandbox "${F[@]}" --allow-host "$NET_REBIND_PRIVATE" --allow-host api.sendgrid.com -- \
        python3 -c "$NET_PROBE" multi "dns $NET_RESOLVER $NET_REBIND_PRIVATE" "dns $NET_RESOLVER api.sendgrid.com"
check "an allowed name whose answer is in a blocked range (10.0.0.0/8), and a floor host: REFUSED" \
        "RCODE:5
RCODE:5" "$out"
