#!/usr/bin/env bash
# Must still work: SIGTERM (and SIGINT, SIGHUP) sent to cordon reach the sandboxed command, whose
# handler runs (it leaves a marker in the project) and whose exit status comes back.
. "$(dirname "$0")/../lib/tap.sh"

# forward SIGNAL: starts a command that traps SIGNAL, sends it to cordon, reports "rc:marker".
forward() {
        local sig=$1 pid rc
        rm -f "$T_PROJECT/ready" "$T_PROJECT/marker"
        (cd "$T_PROJECT" && exec "$CORDON" run --quiet -- sh -c "
                trap 'echo got-$sig > marker; exit 7' $sig
                echo > ready
                while :; do sleep 0.05; done") &
        pid=$!
        for _ in $(seq 200); do [ -e "$T_PROJECT/ready" ] && break; sleep 0.02; done
        kill -s "$sig" "$pid"
        wait "$pid"; rc=$?
        echo "$rc:$(cat "$T_PROJECT/marker" 2>/dev/null)"
}

plan 4
check "SIGTERM reaches the command's handler" "7:got-TERM" "$(forward TERM)"
check "SIGHUP reaches the command's handler" "7:got-HUP" "$(forward HUP)"
check "SIGINT reaches the command's handler" "7:got-INT" "$(forward INT)"
# Without a handler the command dies of the signal and cordon reports 128+15.
rm -f "$T_PROJECT/ready"
(cd "$T_PROJECT" && exec "$CORDON" run --quiet -- sh -c 'echo > ready; exec sleep 30') &
pid=$!
for _ in $(seq 200); do [ -e "$T_PROJECT/ready" ] && break; sleep 0.02; done
sleep 0.1
kill -TERM "$pid"
wait "$pid"
check "an unhandled SIGTERM: 143" "143" "$?"
