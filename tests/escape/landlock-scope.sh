#!/usr/bin/env bash
# Attack (landlock backend: no pid or network namespace, so host processes and the host's
# abstract unix sockets are in reach): signal a process the test started outside, and connect to
# a host service on an abstract unix socket. Landlock's scopes (ABI 6) refuse both with EPERM.
# The landlock backend's seccomp filter already refuses socket() in isolated mode, so the attack
# uses an unconnected socket created outside and handed in as stdin: only connect() is tried.
# Control: the same with --profile unrestricted.
. "$(dirname "$0")/../lib/tap.sh"

# Runs argv[1:] with an unconnected AF_UNIX stream socket as stdin.
WITH_SOCKET='import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
os.dup2(s.fileno(), 0)
os.execvp(sys.argv[1], sys.argv[1:])'
CONNECT='import errno, socket, sys
s = socket.socket(fileno=0)
try:
    s.connect("\0" + sys.argv[1])
    print("OK:" + s.recv(16).decode())
except OSError as e:
    print(errno.errorcode[e.errno])'

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --backend landlock "$@" 2>&1); }
# TRY with the socket module at hand.
TRY="import socket
$TRY"

sleep 273 &
pid=$!
name="cordon-escape-ll-$$-$RANDOM"
python3 -c "$ABSTRACT_LISTEN" "$name" "$T_TMP/ready" &
listener=$!
trap 'kill "$pid" "$listener" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/ready" ] && break; sleep 0.05; done

plan 9
check "control: kill($pid, 0) works outside" "OK:None" \
        "$(python3 -c "$TRY" 'os.kill(int(p), 0)' "$pid" 2>&1)"
check "kill($pid, 0) inside: EPERM" "EPERM" \
        "$(inside -- python3 -c "$TRY" 'os.kill(int(p), 0)' "$pid")"
check "kill($pid, SIGKILL) inside: EPERM" "EPERM" \
        "$(inside -- python3 -c "$TRY" 'os.kill(int(p), signal.SIGKILL)' "$pid")"
sleep 0.2
check "the host process survived" "alive" "$(kill -0 "$pid" 2>/dev/null && echo alive || echo dead)"
check "control: with --profile unrestricted kill($pid, 0) works" "OK:None" \
        "$(inside --profile unrestricted -- python3 -c "$TRY" 'os.kill(int(p), 0)' "$pid")"

check "control: the abstract socket answers outside" "OK:HOST-SERVICE" \
        "$(python3 -c "$WITH_SOCKET" python3 -c "$CONNECT" "$name" 2>&1)"
check "connecting to it inside: EPERM" "EPERM" \
        "$(cd "$T_PROJECT" && python3 -c "$WITH_SOCKET" "$CORDON" run --quiet --net isolated --backend landlock -- \
                python3 -c "$CONNECT" "$name" 2>&1)"
out=$(inside -- python3 -c "$TRY" 'socket.socket(socket.AF_UNIX).close()' 2>&1)
take_unix_note
check "creating a socket inside: EPERM (seccomp, isolated network), and one line naming the gap" \
        "EPERM 1" "$out $notes"
check "control: with --profile unrestricted the connect works" "OK:HOST-SERVICE" \
        "$(cd "$T_PROJECT" && python3 -c "$WITH_SOCKET" "$CORDON" run --quiet --net isolated --backend landlock \
                --profile unrestricted -- python3 -c "$CONNECT" "$name" 2>&1)"
