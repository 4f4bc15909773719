#!/usr/bin/env bash
# `--proxy-dns` made an admin-allowed name resolve to an attacker's address (issue 22): the
# proxy asks the resolver the user names. NETWORK_PROXY_DNS, SANDBOX_BACKEND and
# NETWORK_FILTER_HELPER are pinned by an admin's value now, and PROTECT_GIT_CONFIG is
# harden-only: the command line and the environment get the admin's value back, with a warning
# line naming both. Controls: without the baseline the user's values hold.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/config.sh"

plan 6
cd "$T_PROJECT" || exit 1
if host_admin_baseline >/dev/null; then
        for i in $(seq 6); do skip "this host has an admin baseline" "admin-proxy-dns $i"; done
        exit 0
fi
cfg_reset
echo 'NETWORK_PROXY_DNS=203.0.113.66' >"$cfg_dir/sandbox.conf"
check "control: without an admin, the user's NETWORK_PROXY_DNS holds" 203.0.113.66 \
        "$(cfg_value NETWORK_PROXY_DNS)"
check "control: without an admin, SANDBOX_BACKEND from the environment holds" landlock \
        "$(SANDBOX_BACKEND=landlock cfg_value SANDBOX_BACKEND)"

admin=$(admin_fixture admin-pinned)
if [ -z "$admin" ]; then
        for i in $(seq 4); do skip "fixtures not owned by root (run the suite as root)" "admin pin $i"; done
        exit 0
fi
export CORDON_ADMIN_CONF=$admin
check "the user file's NETWORK_PROXY_DNS gets the admin's resolver back" 192.0.2.53 \
        "$(cfg_value NETWORK_PROXY_DNS)"
rm "$cfg_dir/sandbox.conf"
out=$("$CORDON" run --net isolated --proxy-dns 203.0.113.66 -- true 2>&1 >/dev/null)
case $out in
*"changed admin-pinned NETWORK_PROXY_DNS=192.0.2.53 (from $admin:"*") to 203.0.113.66 (from --proxy-dns): restored"*)
        ok "--proxy-dns gets the admin's value back, with a warning line naming both" ;;
*) not_ok "--proxy-dns: a warning line naming both" "$out" ;;
esac
check "SANDBOX_BACKEND from the environment gets the admin's ns back" ns \
        "$(SANDBOX_BACKEND=landlock cfg_value SANDBOX_BACKEND)"
check "PROTECT_GIT_CONFIG=false from the environment gets the admin's true back" true \
        "$(PROTECT_GIT_CONFIG=false cfg_value PROTECT_GIT_CONFIG)"
