#!/usr/bin/env bash
# tap: exclusive (it counts the /tmp/cordon-XXXXXX of its user before and after: a run beside it,
# as the same user in another stream, would add its own)
# The sandbox dies with its supervisor: SIGKILL to cordon (which cannot forward anything) must
# take every process of the sandbox with it, also one that detached into its own session, and
# leave no mount (ns backend) and no private TMPDIR (landlock backend) behind.
# Controls: before the kill, those processes and the TMPDIR are there.
. "$(dirname "$0")/../lib/tap.sh"

marker="cordon-dies-$$-$RANDOM"
marked() { pgrep -f -- "$marker" | sort | tr '\n' ' '; }
mounts() { sed 's/^[0-9]* [0-9]* //' /proc/self/mountinfo | sort; }
tmpdirs() { find /tmp -maxdepth 1 -name 'cordon-??????' -user "$(id -u)" 2>/dev/null | sort; }
shmdirs() { find /dev/shm -maxdepth 1 -name 'cordon-shm-*' -user "$(id -u)" 2>/dev/null | sort; }

plan 9
mounts_before=$(mounts)
tmp_before=$(tmpdirs)
shm_before=$(shmdirs)
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
# ns: cordon, the sandbox's PID 1, the command, the detached shell; landlock: the reaper (a
# fork of cordon, outside the sandbox) instead of PID 1.
check "control: cordon, its $(on_backend "PID 1" reaper), the command and the detached shell" \
        "4" "$(marked | wc -w)"
new_tmp=$(comm -13 <(echo "$tmp_before") <(tmpdirs))
check "control: the landlock backend has a private TMPDIR while it runs" \
        "$(on_backend no yes)" "$([ -n "$new_tmp" ] && echo yes || echo no)"
new_shm=$(comm -13 <(echo "$shm_before") <(shmdirs))
if [ "$(on_backend ns landlock)" = ns ]; then
        check "control: the ns backend makes no private /dev/shm directory on the host" "" "$new_shm"
elif [ -n "$new_shm" ]; then
        ok "control: the landlock backend has a private /dev/shm directory while it runs"
else
        skip "no private /dev/shm directory here (its seccomp notifications are unavailable)" \
                "control: the landlock backend has a private /dev/shm directory while it runs"
fi
exec 3>&2 2>/dev/null # bash's own "Killed" notice for the job
kill -KILL "$sup"
wait "$sup"
exec 2>&3 3>&-
for _ in $(seq 100); do
        [ -z "$(marked)" ] && break
        sleep 0.05
done
check "after SIGKILL of cordon no sandboxed process is left" "" "$(marked)"
check "cordon itself is gone" "gone" "$(kill -0 "$sup" 2>/dev/null && echo alive || echo gone)"
check "the host's mount table is as before" "$mounts_before" "$(mounts)"
for _ in $(seq 50); do
        [ -z "$new_tmp" ] || [ ! -e "$new_tmp" ] && break
        sleep 0.05
done
check "no private TMPDIR is left behind" "" "$([ -n "$new_tmp" ] && [ -e "$new_tmp" ] && echo "$new_tmp")"
for _ in $(seq 50); do
        [ -z "$new_shm" ] || [ ! -e "$new_shm" ] && break
        sleep 0.05
done
check "no private /dev/shm directory is left behind" "" "$([ -n "$new_shm" ] && [ -e "$new_shm" ] && echo "$new_shm")"
