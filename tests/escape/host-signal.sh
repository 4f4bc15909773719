#!/usr/bin/env bash
# Attack: signal host processes from inside: kill(hostpid, SIGKILL) and kill(-1, SIGKILL).
# Control: the host process is signalable outside and survives both attempts.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$@" 2>&1); }

sleep 272 &
pid=$!
trap 'kill "$pid" 2>/dev/null' EXIT

plan 6
check "control: kill($pid, 0) works outside" "OK:None" \
        "$(python3 -c "$TRY" 'os.kill(int(p), 0)' "$pid" 2>&1)"
check "kill($pid, SIGKILL) inside: ESRCH" "ESRCH" "$(inside 'os.kill(int(p), signal.SIGKILL)' "$pid")"
check "kill(-$pid, SIGKILL) (its process group) inside: ESRCH" "ESRCH" \
        "$(inside 'os.kill(-int(p), signal.SIGKILL)' "$pid")"
# kill(-1) reaches every process the caller may signal except itself and init; a child of the
# caller gives it a target inside, so success proves the signal was sent somewhere.
KILLALL='import os, signal, subprocess
child = subprocess.Popen(["sleep", "30"])
os.kill(-1, signal.SIGKILL)
print(child.wait())'
run_sandboxed python3 -c "$KILLALL"
check "kill(-1, SIGKILL) inside kills the sandbox's own child" "-9" "$out"
sleep 0.2
check "the host process survived" "alive" "$(kill -0 "$pid" 2>/dev/null && echo alive || echo dead)"
check "the host process is still a sleep" "sleep" "$(cat "/proc/$pid/comm" 2>&1)"
