#!/usr/bin/env bash
# --timeout kills the whole sandbox, also a double-forked daemon in a session of its own, says so
# and exits 124; a SIGTERM the command ignores is followed by a kill of the whole sandbox after
# the grace period; a daemon left behind by a command that exits is not left running (under the
# landlock backend it would otherwise outlive the sandbox). Controls: the same daemon pattern
# outside cordon outlives its parent; a command within its time is untouched.
. "$(dirname "$0")/../lib/tap.sh"

marker="cordon-teardown-$$-$RANDOM"
marked() { pgrep -f -- "$1" | sort | tr '\n' ' '; }
gone_within() { # gone_within PATTERN: waits up to 2 s for no process to match
        for _ in $(seq 40); do
                [ -z "$(marked "$1")" ] && return 0
                sleep 0.05
        done
        return 1
}
# A shell that starts a daemon (double fork, own session) named $1 and then waits a long time.
daemonize='setsid sh -c "sleep 300; :" "$0-daemon" </dev/null >/dev/null 2>&1 & sleep 301; :'

plan 10

# Control: outside cordon, the daemon outlives the shell that started it.
sh -c 'setsid sh -c "sleep 300; :" "$0-daemon" </dev/null >/dev/null 2>&1 & :' "$marker-ctl"
for _ in $(seq 40); do [ -n "$(marked "$marker-ctl-daemon")" ] && break; sleep 0.05; done
check "control: the daemon pattern outlives its parent" "yes" \
        "$([ -n "$(marked "$marker-ctl-daemon")" ] && echo yes || echo no)"
# The daemon leads its own session: its sleep goes with the group.
for p in $(marked "$marker-ctl-daemon"); do kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p"; done

start=$(date +%s%N)
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --timeout 1 -- sh -c "$daemonize" "$marker-a" 2>&1)
rc=$?
take_net_fallback
took=$((($(date +%s%N) - start) / 1000000))
check "--timeout: exit status 124" "124" "$rc"
check "--timeout: one line says so" "cordon: timed out after 1 s; the whole sandbox was killed" \
        "$out"
check "--timeout: it took about a second" "yes" \
        "$([ "$took" -ge 900 ] && [ "$took" -lt 10000 ] && echo yes || echo "no: ${took} ms")"
gone_within "$marker-a"
check "--timeout: the command and its daemon are gone" "" "$(marked "$marker-a")"

out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --timeout 30 -- sh -c 'echo in time; exit 3' 2>&1)
rc=$?
take_net_fallback
check "a command within its time: its output and status" "in time:3" "$out:$rc"

# A command that exits leaving a daemon behind: the sandbox ends with it.
(cd "$T_PROJECT" && "$CORDON" run --quiet -- sh -c \
        'setsid sh -c "sleep 300; :" "$0-daemon" </dev/null >/dev/null 2>&1 & sleep 0.2' \
        "$marker-b")
gone_within "$marker-b"
check "a daemon left behind by the command does not outlive the sandbox" "" \
        "$(marked "$marker-b")"

# SIGTERM that the command ignores: forwarded, then the whole sandbox is killed after the grace
# period (5 s), with a line saying so.
rm -f "$T_PROJECT/ready"
(cd "$T_PROJECT" && exec "$CORDON" run --quiet -- sh -c \
        "trap '' TERM; $daemonize & echo > ready; while :; do sleep 0.1; done" "$marker-c" \
        2>"$T_TMP/grace.err") &
sup=$!
for _ in $(seq 200); do [ -e "$T_PROJECT/ready" ] && break; sleep 0.02; done
sleep 0.2
kill -TERM "$sup"
wait "$sup"
rc=$?
check "an ignored SIGTERM: killed after the grace period (137)" "137" "$rc"
check "an ignored SIGTERM: one line says so" \
        "cordon: the command did not exit within 5 s of the signal; the whole sandbox was killed" \
        "$(drop_net_fallback <"$T_TMP/grace.err")"
gone_within "$marker-c"
check "after the grace period nothing of the sandbox is left, daemon included" "" \
        "$(marked "$marker-c")"
