#!/usr/bin/env bash
# Attack: find and probe a host process (a sleep started outside) from inside: its /proc entry,
# kill(pid, 0). Control: outside, both show the process.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$TRY" "$@" 2>&1); }

sleep 271 &
pid=$!
trap 'kill "$pid" 2>/dev/null' EXIT

plan 6
check "control: /proc/$pid exists outside" "OK:True" \
        "$(python3 -c "$TRY" 'os.path.isdir("/proc/" + p)' "$pid" 2>&1)"
check "control: kill($pid, 0) works outside" "OK:None" \
        "$(python3 -c "$TRY" 'os.kill(int(p), 0)' "$pid" 2>&1)"
check "stat(/proc/$pid) inside: ENOENT" "ENOENT" "$(inside 'os.stat("/proc/" + p)' "$pid")"
check "kill($pid, 0) inside: ESRCH" "ESRCH" "$(inside 'os.kill(int(p), 0)' "$pid")"
# The command (under sh, so the pid namespace holds init, sh and python) sees only those.
check "only the sandbox's own processes are in /proc" "OK:[1, 2, 3]" \
        "$(cd "$T_PROJECT" && "$CORDON" run --quiet -- sh -c 'python3 -c "$1" "$2"; true' sh "$TRY" \
                'sorted(int(d) for d in os.listdir("/proc") if d.isdigit())' 2>&1)"
run_sandboxed sh -c 'cat /proc/[0-9]*/cmdline | tr "\0" " "'
case $out in
*"sleep 271"*) not_ok "no cmdline inside mentions the host sleep" "output: $out" ;;
*) ok "no cmdline inside mentions the host sleep" ;;
esac
