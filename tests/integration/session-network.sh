#!/usr/bin/env bash
# A live session's network rules changed while a connection is held (cordon/session.h,
# through tests/helpers/session-probe): the held connection to a destination the new rules
# refuse is cut, new connections follow the new rules, a weaker mode is refused, and the
# session can be isolated live. Proxied mode
# under both backends; filtered mode (its firewall replaced inside the namespace) under ns.
. "$(dirname "$0")/../lib/net.sh"
net_require
export NET_OK_ADDR NET_OTHER_ADDR NET_NET NET_TCP_ECHO_PORT

probe() {
        local out rc
        out=$(cd "$T_PROJECT" && timeout 120 "$SESSION_PROBE" "$@" 2>&1); rc=$?
        while IFS= read -r line; do
                case $line in "ok: "*) ok "${line#ok: }" ;; esac
        done <<<"$out"
        if [ $rc -ne 0 ]; then
                not_ok "session-probe $* exited $rc" "$(grep -v '^cordon:' <<<"$out" | tail -5)"
        fi
}

plan $(on_backend 8 4)
probe network proxied
[ "${SANDBOX_BACKEND:-}" = landlock ] || probe network filtered
