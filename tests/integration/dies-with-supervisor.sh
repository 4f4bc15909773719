#!/usr/bin/env bash
# The sandbox dies with its supervisor: SIGKILL to cordon (which cannot forward anything) must
# take every process of the sandbox with it, also one that detached into its own session.
# Control: before the kill, those processes are there.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "no pid namespace: once cordon itself is SIGKILLed, nothing is left to end what the command detached (a documented gap of the landlock backend)"

marker="cordon-dies-$$-$RANDOM"
marked() { pgrep -f -- "$marker" | sort | tr '\n' ' '; }

plan 4
# The marker is $0 of both shells (and so also in cordon's own command line).
(cd "$T_PROJECT" && exec "$CORDON" run --quiet -- sh -c \
        'setsid sh -c "sleep 300; :" "$0-detached" </dev/null >/dev/null 2>&1 & sleep 301; :' \
        "$marker") &
sup=$!
for _ in $(seq 100); do
        pgrep -f -- "$marker-detached" >/dev/null && break
        sleep 0.05
done
check "control: the detached process runs" "yes" \
        "$(pgrep -f -- "$marker-detached" >/dev/null && echo yes || echo no)"
check "control: cordon, its PID 1, the command and the detached shell" "4" "$(marked | wc -w)"
kill -KILL "$sup"
wait "$sup" 2>/dev/null
for _ in $(seq 100); do
        [ -z "$(marked)" ] && break
        sleep 0.05
done
check "after SIGKILL of cordon no sandboxed process is left" "" "$(marked)"
check "cordon itself is gone" "gone" "$(kill -0 "$sup" 2>/dev/null && echo alive || echo gone)"
