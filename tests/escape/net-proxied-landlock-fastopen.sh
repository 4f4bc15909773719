#!/usr/bin/env bash
# Attack (proxied mode, landlock backend): TCP Fast Open, sendto() with MSG_FASTOPEN to the test
# internet: a connect inside the send, past the connect rule. Refused: EACCES. Control: under
# --net open (the same backend) the send connects and the echo answers.
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/proxied-landlock.sh"
landlock_proxied_plan 2

in_cordon "${P[@]}" -- python3 -c "$SOCK" fastopen "$NET_OK_ADDR" "$E"
check "TCP Fast Open sendto $NET_OK_ADDR:$E: EACCES" "EACCES" "$out"
in_open python3 -c "$SOCK" fastopen "$NET_OK_ADDR" "$E"
check "control: --net open connects inside the send" "OK:ping" "$out"
