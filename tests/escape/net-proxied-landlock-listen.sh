#!/usr/bin/env bash
# Attack (proxied mode, landlock backend): listen() on an unbound TCP socket, which autobinds a
# port past Landlock's bind rule, to serve on the host's addresses (no network namespace).
# Refused: EACCES. Control: under --net open (the same backend) the socket listens.
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/proxied-landlock.sh"
landlock_proxied_plan 2

in_cordon "${P[@]}" -- python3 -c "$SOCK" listen
check "listen() on an unbound TCP socket: EACCES" "EACCES" "$out"
in_open python3 -c "$SOCK" listen
check "control: --net open listens" "OK" "$out"
