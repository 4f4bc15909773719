#!/usr/bin/env bash
# Attack (proxied mode, landlock backend): a UDP socket, a way out past the proxy (which carries
# TCP only). The socket rule refuses socket(AF_INET, SOCK_DGRAM): EACCES. Control: under --net
# open (the same backend) the socket is made.
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/proxied-landlock.sh"
landlock_proxied_plan 2

in_cordon "${P[@]}" -- python3 -c "$SOCK" udp
check "UDP socket: EACCES" "EACCES" "$out"
in_open python3 -c "$SOCK" udp
check "control: --net open makes it" "OK" "$out"
