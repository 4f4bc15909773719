#!/usr/bin/env bash
# Attack: lift an admin baseline's port blocks with user exceptions that name no port. The admin
# blocks "*:2222" and "*.test.example:7"; the user excepts the test host's address and its name
# (--allow-host ADDR, --allow-host NAME), which outrank a port rule in the ordinary order and
# only partly overlap the admin's patterns, so the baseline's covered-exception check keeps them.
# Admin blocks are a tier no user exception lifts: the proxy refuses with 403 (both backends),
# filtered mode's firewall with EHOSTUNREACH. Controls: without the baseline the same exceptions
# let both through; with it, what the admin did not block still passes. The baseline is the
# fixture tests/fixtures/config/admin-net-tier.conf, given through CORDON_ADMIN_CONF (honoured
# only while no real admin baseline exists, and only when root owns it).
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/config.sh"
net_require

A=$NET_OK_ADDR N=$NET_OK_NAME E=$NET_TCP_ECHO_PORT E2=$NET_TCP_ECHO_PORT2
USER_EXC=(--allow-host "$A" --allow-host "$N")
WANT="403|cordon proxy: cordon refused *: blocked by an admin rule (no exception lifts it); only the admin baseline can lift it"
WRAP='import os, sys
code = sys.argv.pop(1)
p = os.environ["HTTP_PROXY"].rstrip("/").rsplit(":", 1)[1]
sys.argv = [a.replace(" PORT ", " " + p + " ") for a in sys.argv]
exec(compile(code, "probe", "exec"))'
SPECS=("connect 127.0.0.1 PORT $A:$E2" "connect 127.0.0.1 PORT $N:$E"
       "connect 127.0.0.1 PORT $A:$E" "connect 127.0.0.1 PORT $N:$E2")

plan 15
admin=$(admin_fixture admin-net-tier)
if host_admin_baseline >/dev/null || [ -z "$admin" ]; then
        for i in $(seq 15); do skip "no admin baseline can be staged here (root-owned fixtures, no real admin baseline)" "admin tier $i"; done
        exit 0
fi
cfg_reset

# Controls without the baseline: the user's exceptions let both through.
in_cordon --net proxied --proxy-dns "$NET_DNS" "${USER_EXC[@]}" -- python3 -c "$WRAP" "$NET_PROBE" multi "${SPECS[@]:0:2}"
mapfile -t lines <<<"$out"
check "control, no admin: CONNECT $A:$E2 allowed" "200|ping" "${lines[0]:-}"
check "control, no admin: CONNECT $N:$E allowed" "200|ping" "${lines[1]:-}"
in_cordon --net filtered --allow-host "$A" -- python3 -c "$NET_PROBE" tcp "$A" "$E2"
check "control, no admin: filtered $A:$E2 answers" "OK:ping" "$out"

export CORDON_ADMIN_CONF=$admin
printf 'NETWORK_BLOCKLIST_EXCEPT+=("%s" "%s")\n' "$A" "$N" >"$cfg_dir/sandbox.conf"
check "the user's exceptions stay (the admin patterns only partly overlap them)" "$A $N" \
        "$(cfg_value NETWORK_BLOCKLIST_EXCEPT | tr '\n' ' ' | sed 's/ $//')"
cfg_reset

# proxied LABEL OPTION...: the two admin blocks refused, what they do not cover allowed.
proxied() {
        local label=$1
        shift
        in_cordon "$@" "${USER_EXC[@]}" -- python3 -c "$WRAP" "$NET_PROBE" multi "${SPECS[@]}"
        mapfile -t lines <<<"$out"
        check_like "$label: admin *:$E2 beats the user's $A" "$WANT" "${lines[0]:-}"
        check_like "$label: admin *.test.example:$E beats the user's $N" "$WANT" "${lines[1]:-}"
        check "$label, control: $A:$E (no admin block) allowed" "200|ping" "${lines[2]:-}"
        case ${lines[3]:-} in
        $WANT) ok "$label: ... and $N:$E2 (its address falls under *:$E2 too)" ;;
        *) not_ok "$label: $N:$E2 refused by the admin's *:$E2" "${lines[3]:-}" ;;
        esac
}
proxied "proxied (ns)" --net proxied --proxy-dns "$NET_DNS"
in_cordon --backend landlock --net proxied -- true
case $rc:$out in
0:*) proxied "proxied (landlock)" --backend landlock --net proxied --proxy-dns "$NET_DNS" ;;
*"this kernel"*) for i in $(seq 4); do skip "proxied cannot run under the landlock backend here" "landlock $i"; done ;;
*) for i in $(seq 4); do not_ok "proxied (landlock) starts" "$out"; done ;;
esac

# Filtered: the admin's chain refuses the port whatever the user excepted.
in_cordon --net filtered --allow-host "$A" -- python3 -c "$NET_PROBE" multi "tcp $A $E2" "tcp $A $E"
mapfile -t lines < <(grep -v '^cordon: warning' <<<"$out")
check "filtered: admin *:$E2 beats the user's $A: EHOSTUNREACH" EHOSTUNREACH "${lines[0]:-}"
check "filtered, control: $A:$E answers" "OK:ping" "${lines[1]:-}"
# The admin tier adds to the user's rules: a user block still holds below it.
in_cordon --net proxied --proxy-dns "$NET_DNS" --block "$A" -- python3 -c "$WRAP" "$NET_PROBE" multi "connect 127.0.0.1 PORT $A:$E"
check_like "the user's own block still applies under the admin tier" "403|cordon proxy: cordon refused * (NETWORK_BLOCKLIST from --block); to allow it: *" "$out"
