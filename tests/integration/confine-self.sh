#!/usr/bin/env bash
# cordon_confine_self(): a process confines itself with the landlock backend's steps and execs
# its command, as a Slurm task will (tests/helpers/confine-self, $CONFINE_SELF: the settings
# resolved for the project, the call, the exec; --control resolves without the call). Inside:
# a planted ~/.ssh key unreadable, writes outside the project refused, a seccomp-denied call
# and the isolated network refused with the landlock backend's own errno, the environment the
# landlock backend gives; a policy that needs a process of cordon's refused, naming the variable,
# before the command runs. Every refusal has its control.
. "$(dirname "$0")/../lib/tap.sh"

plan 14
# What needs no helper: an isolated network (the seccomp socket rule), the host's /tmp, no mail
# stubs, no check of the repositories after the run.
settings=(NETWORK_FILTER_MODE=isolated PRIVATE_TMP=false NETWORK_MAIL_BLOCK=off
          PROTECT_GIT_CONFIG=false)
reason=""
if [ -z "${CONFINE_SELF:-}" ] || [ ! -x "$CONFINE_SELF" ]; then
        reason="no confine-self helper (CONFINE_SELF='${CONFINE_SELF:-}', set by tests/run-tap.sh)"
elif [ -z "${SYSPROBE:-}" ] || ! cp "$SYSPROBE" "$T_PROJECT/sysprobe" 2>/dev/null; then
        reason="no sysprobe to copy (SYSPROBE='${SYSPROBE:-}', set by tests/run-tap.sh)"
elif ! out=$(cd "$T_PROJECT" && "$CORDON" run --backend landlock --quiet -- true 2>&1); then
        reason="the landlock backend does not run here: ${out//$'\n'/ }"
fi
if [ -n "$reason" ]; then
        for i in $(seq 14); do skip "$reason" "confine-self check $i"; done
        exit 0
fi

# confined [--control] [SETTING...] -- COMMAND...: what the command prints (the helper's own
# lines, such as the host actions' "created ...", are on stderr, kept in $T_TMP/stderr).
confined() {
        local pre=()
        [ "$1" = --control ] && { pre=(--control); shift; }
        (cd "$T_PROJECT" && "$CONFINE_SELF" "${pre[@]}" "${settings[@]}" "$@" 2>"$T_TMP/stderr")
}
# landlock_backend COMMAND...: what the same command prints under `cordon run --backend
# landlock` (its warnings on stderr left out).
landlock_backend() {
        (cd "$T_PROJECT" && "$CORDON" run --backend landlock --quiet --net isolated -- "$@" \
                2>/dev/null)
}

mkdir -p "$HOME/.ssh"
echo 'PRIVATE KEY' >"$HOME/.ssh/id_x"
chmod 600 "$HOME/.ssh/id_x"

check "control: the planted ~/.ssh/id_x is readable without the call" OK \
        "$(confined --control -- ./sysprobe open-read "$HOME/.ssh/id_x")"
check "~/.ssh/id_x after cordon_confine_self(): EACCES" EACCES \
        "$(confined -- ./sysprobe open-read "$HOME/.ssh/id_x")"

check "control: a file outside the project can be created without the call" OK \
        "$(confined --control -- ./sysprobe open-create "$HOME/outside")"
rm -f "$HOME/outside"
check "a file outside the project after the call: EACCES" EACCES \
        "$(confined -- ./sysprobe open-create "$HOME/outside")"
check "nothing was created outside the project" "" "$(ls -A "$HOME/outside" 2>/dev/null)"
check "a file inside the project after the call: OK" OK \
        "$(confined -- ./sysprobe open-create "$T_PROJECT/inside")"

# The landlock backend's own answer, whatever it is, is the one to match.
want=$(landlock_backend ./sysprobe ptrace)
check "ptrace after the call: the landlock backend's answer ($want)" "$want" \
        "$(confined -- ./sysprobe ptrace)"
check "control: ptrace without the call reaches the kernel: ESRCH" ESRCH \
        "$(confined --control -- ./sysprobe ptrace)"
want=$(landlock_backend ./sysprobe socket)
check "socket() in the isolated network after the call: the landlock backend's answer ($want)" \
        "$want" "$(confined -- ./sysprobe socket)"
check "control: socket() without the call: OK" OK "$(confined --control -- ./sysprobe socket)"

# The environment: the landlock backend's (CORDON_CONFINE_ENVIRON), a blocked variable dropped.
env_out=$(cd "$T_PROJECT" && AWS_SECRET_ACCESS_KEY=planted "$CONFINE_SELF" "${settings[@]}" -- \
        sh -c 'echo "backend=$SANDBOX_BACKEND key=${AWS_SECRET_ACCESS_KEY:-unset}"' 2>/dev/null)
check "the command's environment is the landlock backend's" "backend=landlock key=unset" "$env_out"

# Refused before anything runs: the command would create the marker.
marker="$T_PROJECT/ran"
out=$(confined NETWORK_FILTER_MODE=proxied -- ./sysprobe open-create "$marker"
        echo "status=$?"; cat "$T_TMP/stderr")
check_like "proxied needs the proxy: EOPNOTSUPP naming NETWORK_FILTER_MODE, status 125" \
        "status=125 confine-self: EOPNOTSUPP: cordon_confine_self: NETWORK_FILTER_MODE cannot be applied*" \
        "${out//$'\n'/ }"
out=$(confined PRIVATE_TMP=true -- ./sysprobe open-create "$marker"
        echo "status=$?"; cat "$T_TMP/stderr")
check_like "a private /tmp needs its TMPDIR removed: EOPNOTSUPP naming PRIVATE_TMP, status 125" \
        "status=125 confine-self: EOPNOTSUPP: cordon_confine_self: PRIVATE_TMP cannot be applied*" \
        "${out//$'\n'/ }"
check "the refused command never ran" "" "$(ls -A "$marker" 2>/dev/null)"
