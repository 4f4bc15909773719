#!/usr/bin/env bash
# Attack: connect to a host service on an abstract unix socket (no file to mask: abstract names
# belong to the network namespace). Control: the same connect works outside.
. "$(dirname "$0")/../lib/tap.sh"

CONNECT='import errno, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect("\0" + sys.argv[1])
    print("OK:" + s.recv(16).decode())
except OSError as e:
    print(errno.errorcode[e.errno])'

name="cordon-escape-$$-$RANDOM"
python3 -c "$ABSTRACT_LISTEN" "$name" "$T_TMP/ready" &
listener=$!
trap 'kill "$listener" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/ready" ] && break; sleep 0.05; done

plan 2
check "control: the abstract socket answers outside" "OK:HOST-SERVICE" \
        "$(python3 -c "$CONNECT" "$name" 2>&1)"
run_sandboxed python3 -c "$CONNECT" "$name"
check "connecting to it inside: ECONNREFUSED" "ECONNREFUSED" "$out"
