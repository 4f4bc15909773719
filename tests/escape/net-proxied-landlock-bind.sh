#!/usr/bin/env bash
# Attack (proxied mode, landlock backend): bind() a TCP socket to the host's loopback, to serve
# from the sandbox on the host's 127.0.0.1 (no network namespace). Landlock's TCP rule grants no
# bind: EACCES. Control: under --net open (the same backend) the bind works.
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/proxied-landlock.sh"
landlock_proxied_plan 2

in_cordon "${P[@]}" -- python3 -c "$SOCK" bind
check "TCP bind to 127.0.0.1:0: EACCES" "EACCES" "$out"
in_open python3 -c "$SOCK" bind
check "control: --net open binds" "OK" "$out"
