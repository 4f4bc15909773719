#!/usr/bin/env bash
# Attack (proxied mode, landlock backend): direct TCP to the test internet, past the proxy.
# Landlock's TCP rule grants connect to the proxy's port only: EACCES. Control: under --net open
# (the host's network, the same backend) the same connect reaches the echo service.
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/proxied-landlock.sh"
landlock_proxied_plan 2

probe "${P[@]}" -- tcp "$NET_OK_ADDR" "$E"
check "direct TCP to $NET_OK_ADDR:$E: EACCES" "EACCES" "$out"
in_open python3 -c "$NET_PROBE" tcp "$NET_OK_ADDR" "$E"
check "control: --net open reaches it" "OK:ping" "$out"
