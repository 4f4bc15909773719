#!/usr/bin/env bash
# Attack: reach a host session service through a unix socket under $XDG_RUNTIME_DIR (the way a
# D-Bus or agent socket is found). Control: the same connect works outside.
. "$(dirname "$0")/../lib/tap.sh"

export XDG_RUNTIME_DIR=$T_TMP/run
mkdir -m 700 "$XDG_RUNTIME_DIR"
sock=$XDG_RUNTIME_DIR/bus
export DBUS_SESSION_BUS_ADDRESS=unix:path=$sock
python3 -c "$UNIX_LISTEN" "$sock" "$T_TMP/ready" &
listener=$!
trap 'kill "$listener" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/ready" ] && break; sleep 0.05; done

plan 4
check "control: the socket answers outside" "OK:HOST-SERVICE" "$(python3 -c "$UNIX_CONNECT" "$sock" 2>&1)"
run_sandboxed sh -c 'python3 -c "$1" "$XDG_RUNTIME_DIR/bus"' sh "$UNIX_CONNECT"
check "connecting to \$XDG_RUNTIME_DIR/bus inside: ENOENT" "ENOENT" "$out"
run_sandboxed python3 -c "$UNIX_CONNECT" "$sock"
check "connecting to its absolute path inside: ENOENT" "ENOENT" "$out"
run_sandboxed sh -c 'echo "${DBUS_SESSION_BUS_ADDRESS-unset}"'
check "DBUS_SESSION_BUS_ADDRESS is not passed in" "unset" "$out"
