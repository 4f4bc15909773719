# shellcheck shell=bash disable=SC2034 # sourced: SLURM_* are for the caller
# A real single-node Slurm for the tests (issue 27): munged, slurmctld and slurmd for this
# machine as one node, started by the test itself as root, without systemd, every file of theirs
# (configuration, key, sockets, state, spool, logs, pid files) in one scratch directory of its
# own. Source it instead of tap.sh, then:
#
#   slurm_require           (before the plan) starts the cluster, or prints the whole file's
#                           TAP: a skip saying why it cannot start here (not root, the packages
#                           missing; a failure under CORDON_TESTS_MUST_RUN=1), or one "not ok"
#                           with the daemons' logs when it did not come up
#   slurm_start             the start alone: 0 once the node is idle, else 1 with the reason and
#                           the logs on stderr and nothing left running; slurm_stop is added to
#                           the EXIT trap (after whatever the file had there)
#   slurm_stop              cancels the jobs, ends exactly the processes the start started (by
#                           pid) and whatever job steps are left of them, unmounts what a job
#                           container left mounted in the directory, removes it
#   slurm_wait_job ID STATE SECONDS
#                           polls `scontrol show job` until job ID is in STATE (0), reaches
#                           another final state or the time runs out (1, the reason on stderr);
#                           the last state seen is in $SLURM_JOB_STATE
#   slurm_as_user CMD...    runs CMD as the unprivileged test user ($SLURM_TEST_USER, from
#                           T_USER) in $SLURM_USER_DIR with SLURM_CONF set, as a user submits
#   slurm_job_pids ID       the pids of job ID's processes, one a line
#   slurm_dump_logs         the end of each daemon's log, for a diagnosis
#   slurm_why_not           prints why the cluster cannot start here, or nothing
#
# Set before the start (all optional): SLURM_PLUGSTACK, the lines of the cluster's
# plugstack.conf (empty by default; slurm_set_plugstack TEXT rewrites it later: srun and
# slurmstepd read it at each start); SLURM_EXTRA_PARTITIONS, names of more partitions of the
# node beside the default one; SLURM_SLURMD_DEBUG, slurmd's log level (SlurmdDebug, default
# info; slurmstepd and the SPANK plugins in it log at it too); SLURM_JOB_CONTAINER=1, Slurm's
# job container: JobContainerType=job_container/tmpfs (PrologFlags=Contain), each job in a mount
# namespace of its own with a private /tmp and /dev/shm, their directories below $SLURM_DIR/jobs
# (job_container.conf beside slurm.conf: AutoBasePath=true, BasePath=$SLURM_DIR/jobs). Its
# plugin refuses a BasePath below /tmp and its jobs cannot see the host's /tmp: with it the
# scratch directory is made in /var/tmp instead. slurm_stop and slurm_start again start another
# cluster with other settings.
#
# After the start: SLURM_CONF (exported) the cluster's slurm.conf; SLURM_DIR its scratch
# directory; SLURM_NODE the node's name; SLURM_PARTITION the default partition; SLURM_USER_DIR
# a directory of the test user's for scripts and job output; SLURM_START_MS how long the start
# took. Jobs are submitted with the client commands the packages install (sbatch, srun, squeue,
# scancel, scontrol, sinfo), which read SLURM_CONF.
#
# How the pieces find each other without the host's /etc/slurm, /etc/munge or /run/munge:
# libmunge has no environment variable for its socket (the compiled-in /run/munge/munge.socket.2
# unless the caller sets MUNGE_OPT_SOCKET), but Slurm's auth/munge and cred/munge plugins set
# it from `AuthInfo=socket=PATH` in slurm.conf, and every Slurm command reads slurm.conf: so
# a client that has SLURM_CONF reaches this cluster's munged, and a munged of the host's is
# neither used nor touched. munged gets its own key, socket, pid, log and seed files.
#
# Slurm 22.05's quirks this works around (docs/ARCHITECTURE.md, "Test fixtures"):
# - SchedulerParameters is matched by substring: any word containing "defer" makes every srun
#   wait for a scheduling pass (~3 s); batch_sched_delay=0 (default 3) and sched_min_interval=0
#   take the delays off. A batch job still waits for the controller's background pass, once a
#   second: sbatch to COMPLETED takes about 0.9 s, srun true about 0.1 s.
# - `sbatch --wait` sleeps 2 s before its first poll: slurm_wait_job polls scontrol instead.
# - slurmd re-parents slurmstepd (and so every job) away from itself: ending slurmd leaves the
#   steps running, so the stop cancels the jobs first, then ends the slurmstepd processes that
#   carry this cluster's mark in their environment, and their children.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

SLURM_TEST_USER=${T_USER:-cordon-test}
SLURM_PARTITION=debug
SLURM_START_TIMEOUT=${SLURM_START_TIMEOUT:-30}
_slurm_pids=() # munged, slurmctld, slurmd, the watchdog: what slurm_stop ends by pid
_slurm_last_try=

slurm_why_not() {
        local b
        [ "$(id -u)" = 0 ] || { echo "the test cluster needs root (slurmd runs the jobs as their users)"; return; }
        for b in munged munge slurmctld slurmd sbatch srun squeue scancel scontrol sinfo setpriv; do
                command -v "$b" >/dev/null || {
                        echo "$b is not installed (make test-deps: slurm-wlm, munge)"
                        return
                }
        done
        id -u "$SLURM_TEST_USER" >/dev/null 2>&1 || echo "the test user $SLURM_TEST_USER does not exist"
}

# The "pid:starttime" of a live process, or nothing (pids wrap quickly here: pid_max 32768).
_slurm_proc_id() {
        local stat pid=$1
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
        stat=${stat##*) }
        # shellcheck disable=SC2086
        set -- $stat
        echo "$pid:${20}"
}

# Two TCP ports below the ephemeral range that nothing listens on or is bound to now.
_SLURM_PORTS='import random, socket
ports = []
while len(ports) < 2:
    p = random.randrange(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", p))
        if p not in ports:
            ports.append(p)
    except OSError:
        pass
    finally:
        s.close()
print(*ports)'

_slurm_write_conf() { # _slurm_write_conf CTLD_PORT SLURMD_PORT
        local d=$SLURM_DIR host node_line p
        host=$(hostname -s)
        # The node as slurmd sees it ("NodeName=vm CPUs=2 Boards=1 ... RealMemory=24105").
        node_line=$(slurmd -C 2>/dev/null | head -1)
        case $node_line in NodeName=*) ;; *) echo "slurm: slurmd -C printed no node line: $node_line" >&2; return 1 ;; esac
        node_line="NodeName=$SLURM_NODE ${node_line#NodeName=* }"
        cat >"$d/slurm.conf" <<EOF
# Written by tests/lib/slurm.sh for one test run; removed with it.
ClusterName=cordontest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/run/munge.socket
StateSaveLocation=$d/ctld
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=${SLURM_SLURMD_DEBUG:-info}
PlugStackConfig=$d/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
ReturnToService=2
SlurmctldTimeout=10
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=600
MailProg=/bin/true
$node_line NodeHostname=$host NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=$SLURM_PARTITION Nodes=$SLURM_NODE Default=YES MaxTime=INFINITE State=UP
EOF
        for p in ${SLURM_EXTRA_PARTITIONS:-}; do
                echo "PartitionName=$p Nodes=$SLURM_NODE MaxTime=INFINITE State=UP" >>"$d/slurm.conf"
        done
        printf '%s' "${SLURM_PLUGSTACK:-}" >"$d/plugstack.conf"
        chmod 644 "$d/slurm.conf" "$d/plugstack.conf"
        if [ -n "${SLURM_JOB_CONTAINER:-}" ]; then
                printf '%s\n' JobContainerType=job_container/tmpfs PrologFlags=Contain >>"$d/slurm.conf"
                printf '%s\n' AutoBasePath=true "BasePath=$d/jobs" >"$d/job_container.conf"
                chmod 644 "$d/job_container.conf"
        fi
}

# slurm_set_plugstack TEXT: the cluster's plugstack.conf from now on (mode 0644).
slurm_set_plugstack() {
        printf '%s\n' "$1" >"$SLURM_DIR/plugstack.conf"
}

# Prints the end of every log of the cluster, for a start or a test that went wrong.
slurm_dump_logs() {
        local f
        for f in "$SLURM_DIR"/munge/munged.log "$SLURM_DIR"/log/*.log "$SLURM_DIR"/log/*.out; do
                [ -s "$f" ] || continue
                echo "--- ${f#"$SLURM_DIR"/} (last 25 lines)"
                tail -n 25 "$f"
        done
}

# _slurm_wait SECONDS CMD...: runs CMD every 50 ms until it succeeds (0), fails with status 2
# (something died: 1 at once) or SECONDS pass (1).
_slurm_wait() {
        local end=$(($(date +%s%N) + $1 * 1000000000)) r
        shift
        while :; do
                "$@"; r=$?
                [ $r = 0 ] && return 0
                [ $r = 2 ] && return 1
                [ "$(date +%s%N)" -gt "$end" ] && return 1
                sleep 0.05
        done
}

_slurm_alive() { kill -0 "$1" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; }

_slurm_munge_up() {
        [ -S "$SLURM_DIR/run/munge.socket" ] && return 0
        _slurm_alive "${_slurm_pids[0]}" || return 2
        return 1
}

_slurm_node_idle() {
        local state
        # (bounded: a sinfo that reached a foreign server on a port taken meanwhile would wait
        # the MessageTimeout, 10 s, for an answer)
        state=$(timeout 2 sinfo -h -n "$SLURM_NODE" -o %t 2>/dev/null)
        [ "$state" = idle ]
}

# shellcheck disable=SC2120 # (its "set --" is the EXIT trap's words, not arguments)
slurm_start() {
        local why t0 r try prev=
        why=$(slurm_why_not)
        [ -z "$why" ] || { echo "slurm: cannot start: $why" >&2; return 1; }
        t0=$(date +%s%N)
        # The stop: added to whatever EXIT trap the file set, run on the signals that end it too.
        eval "set -- $(trap -p EXIT)"
        [ $# -ge 3 ] && prev="$3; "
        case $prev in *slurm_stop*) ;; *) trap -- "${prev}slurm_stop" EXIT ;; esac
        trap 'exit 130' INT TERM HUP
        # A port taken between the check and the bind (by a start beside this one): again, with
        # other ports.
        for try in 1 2 3; do
                _slurm_last_try=$([ $try = 3 ] && echo 1)
                _slurm_start_once; r=$?
                [ $r = 2 ] && continue
                [ $r = 0 ] || return 1
                SLURM_START_MS=$((($(date +%s%N) - t0) / 1000000))
                return 0
        done
        return 1
}

_slurm_start_once() {
        local ports d owner
        # job_container/tmpfs refuses a BasePath below /tmp, and its jobs see a /tmp of their own:
        # the cluster of a job container lives in /var/tmp, where its jobs can reach it.
        local base=/tmp
        [ -n "${SLURM_JOB_CONTAINER:-}" ] && base=/var/tmp
        SLURM_DIR=$(mktemp -d "$base/cordon-slurm.XXXXXX") || return 1
        d=$SLURM_DIR
        chmod 755 "$d"
        mkdir -m 700 "$d/munge" "$d/ctld"
        mkdir -m 755 "$d/run" "$d/spool" "$d/log" "$d/user"
        chown "$SLURM_TEST_USER:" "$d/user"
        SLURM_USER_DIR=$d/user
        SLURM_NODE=$(hostname -s)
        ports=$(python3 -S -c "$_SLURM_PORTS") || { rm -rf "$d"; return 1; }
        # shellcheck disable=SC2086
        _slurm_write_conf $ports || { rm -rf "$d"; return 1; }
        export SLURM_CONF=$d/slurm.conf
        head -c 1024 /dev/urandom >"$d/munge/munge.key"
        chmod 400 "$d/munge/munge.key"

        # Every daemon in the foreground of its own background job: $! is its pid. The mark in
        # their environment is how the stop finds the slurmstepd processes slurmd leaves behind.
        # Each is disowned: no "Killed" notice from bash in the TAP when the stop ends one so.
        local mark=CORDON_TEST_SLURM=$d
        env "$mark" munged --foreground --socket="$d/run/munge.socket" --key-file="$d/munge/munge.key" \
                --pid-file="$d/munge/munged.pid" --log-file="$d/munge/munged.log" \
                --seed-file="$d/munge/munged.seed" </dev/null >"$d/log/munged.out" 2>&1 &
        _slurm_pids=($!)
        disown $!
        if ! _slurm_wait 5 _slurm_munge_up; then
                _slurm_fail "munged did not create its socket"
                return
        fi
        env "$mark" slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$d/log/slurmctld.out" 2>&1 &
        _slurm_pids+=($!)
        disown $!
        env "$mark" slurmd -D -N "$SLURM_NODE" -f "$SLURM_CONF" </dev/null >"$d/log/slurmd.out" 2>&1 &
        _slurm_pids+=($!)
        disown $!

        # The watchdog: when the test is gone without its EXIT trap (SIGKILL), it stops the cluster.
        owner=$(_slurm_proc_id $$)
        (
                trap '' INT TERM HUP
                while [ "$(_slurm_proc_id "${owner%%:*}")" = "$owner" ]; do sleep 1; done
                slurm_stop # (its _slurm_pids has the three daemons: it was forked before its own pid was added)
        ) </dev/null >/dev/null 2>&1 &
        _slurm_pids+=($!)
        disown $!

        if ! _slurm_wait "$SLURM_START_TIMEOUT" _slurm_ready; then
                _slurm_fail "the node $SLURM_NODE was not idle within ${SLURM_START_TIMEOUT}s"
                return
        fi
        return 0
}

# Ready: the node idle (1 while it is not; 2 when a daemon died, which ends the wait).
_slurm_ready() {
        local p
        for p in "${_slurm_pids[@]:0:3}"; do
                _slurm_alive "$p" || return 2
        done
        _slurm_node_idle
}

# _slurm_fail REASON: stops what was started; 2 when a daemon could not bind its port and
# another try is left, else 1, with the reason and the logs on stderr.
_slurm_fail() {
        local reason=$1 names=(munged slurmctld slurmd) i
        if [ -z "$_slurm_last_try" ] && grep -qs "Address already in use" "$SLURM_DIR"/log/*; then
                slurm_stop
                return 2
        fi
        for i in 0 1 2; do
                [ -n "${_slurm_pids[$i]:-}" ] && ! _slurm_alive "${_slurm_pids[$i]}" &&
                        reason+="; ${names[$i]} exited"
        done
        {
                echo "slurm: the test cluster did not start: $reason"
                echo "slurm: sinfo says: $(sinfo -h -N -o '%N %t %E' 2>&1 | head -3)"
                slurm_dump_logs
        } >&2
        slurm_stop
        return 1
}

# _SLURM_PROCS: a python3 program printing the pids (one a line) of the processes whose
# environment holds every VAR=VALUE given, [--comm NAME] only those whose name is NAME,
# [--tree] with every process below them. One pass over /proc (a shell loop took 0.5 s).
_SLURM_PROCS='import os, sys
args = sys.argv[1:]
comm = tree = None
if "--tree" in args:
    args.remove("--tree"); tree = True
if "--comm" in args:
    i = args.index("--comm"); comm = args[i + 1]; del args[i:i + 2]
want = [a.encode() for a in args]
found, parent = set(), {}
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        stat = open("/proc/%s/stat" % p, "rb").read()
        parent[int(p)] = int(stat[stat.rindex(b")") + 2:].split()[1])
        if comm and open("/proc/%s/comm" % p).read().strip() != comm:
            continue
        env = open("/proc/%s/environ" % p, "rb").read().split(b"\0")
    except (OSError, ValueError):
        continue
    if all(w in env for w in want):
        found.add(int(p))
while tree:
    more = {p for p, pp in parent.items() if pp in found and p not in found}
    found |= more
    tree = bool(more)
for p in sorted(found):
    print(p)'

# The pids of this cluster's slurmstepd processes (marked through slurmd's environment) and of
# every process below them (the jobs).
_slurm_step_pids() { python3 -S -c "$_SLURM_PROCS" --comm slurmstepd --tree "CORDON_TEST_SLURM=$SLURM_DIR"; }

_slurm_end() { # _slurm_end PID...: SIGTERM, up to 2 s (a slurmd still registering ignores it), then SIGKILL
        local p left i
        [ $# -eq 0 ] && return 0
        kill -TERM "$@" 2>/dev/null
        for i in $(seq 40); do
                left=()
                for p; do _slurm_alive "$p" && left+=("$p"); done
                [ ${#left[@]} -eq 0 ] && return 0
                sleep 0.05
        done
        kill -KILL "${left[@]}" 2>/dev/null
}

slurm_stop() {
        local d=${SLURM_DIR:-} ids i steps p
        [ -n "$d" ] && [ -d "$d" ] || return 0
        # The jobs first, while the controller can still tell slurmstepd to end them.
        if [ -n "${_slurm_pids[1]:-}" ] && _slurm_alive "${_slurm_pids[1]}"; then
                ids=$(squeue -h -o %i 2>/dev/null)
                if [ -n "$ids" ]; then
                        # shellcheck disable=SC2086
                        scancel $ids 2>/dev/null
                        for i in $(seq 100); do
                                [ -z "$(_slurm_step_pids)" ] && break
                                sleep 0.05
                        done
                fi
        fi
        # The watchdog (when this is not it), slurmd, slurmctld, munged: by the pids $! gave.
        [ -n "${_slurm_pids[3]:-}" ] && [ "${_slurm_pids[3]}" != "${BASHPID:-}" ] &&
                kill -KILL "${_slurm_pids[3]}" 2>/dev/null
        for i in 2 1 0; do
                p=${_slurm_pids[$i]:-}
                [ -n "$p" ] && _slurm_end "$p"
        done
        # What slurmd left running: steps it could not end, and their jobs.
        steps=$(_slurm_step_pids)
        # shellcheck disable=SC2086
        [ -n "$steps" ] && kill -KILL $steps 2>/dev/null
        # job_container/tmpfs's mounts of a job it did not end (the job's directory, its
        # namespace's file): off, deepest first, before the removal.
        findmnt -rn -o TARGET | awk -v d="$d/" 'index($0, d) == 1' | sort -r | while read -r p; do
                umount -l "$p"
        done
        _slurm_pids=()
        rm -rf "$d"
        SLURM_DIR=
}

# slurm_wait_job ID STATE SECONDS
slurm_wait_job() {
        local id=$1 want=$2 end=$(($(date +%s%N) + $3 * 1000000000)) line
        SLURM_JOB_STATE=
        while :; do
                line=$(scontrol -o show job "$id" 2>&1)
                SLURM_JOB_STATE=$(sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p' <<<"$line")
                [ "$SLURM_JOB_STATE" = "$want" ] && return 0
                case $SLURM_JOB_STATE in
                BOOT_FAIL | CANCELLED | COMPLETED | DEADLINE | FAILED | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED | TIMEOUT)
                        echo "slurm: job $id is $SLURM_JOB_STATE, not $want: $line" >&2
                        return 1 ;;
                esac
                if [ "$(date +%s%N)" -gt "$end" ]; then
                        echo "slurm: job $id not $want within $3s (last: ${SLURM_JOB_STATE:-$line})" >&2
                        return 1
                fi
                sleep 0.05
        done
}

# slurm_job_pids ID [CONF]: the pids of job ID's processes of the cluster of CONF (default: this
# one), found by their environment (job ids start at 1 in every cluster), one a line.
slurm_job_pids() { python3 -S -c "$_SLURM_PROCS" "SLURM_JOB_ID=$1" "SLURM_CONF=${2:-$SLURM_CONF}"; }

slurm_as_user() {
        (cd "$SLURM_USER_DIR" && setpriv --reuid="$SLURM_TEST_USER" --regid="$SLURM_TEST_USER" --init-groups \
                --reset-env -- env SLURM_CONF="$SLURM_CONF" "$@")
}

# spank_require: a file of the SPANK plugin's runs once (the ns pass: the plugin always confines
# with the landlock backend's steps), as root (its jobs run as the test user), in a build that
# has the plugin ($CORDON_SPANK; a sanitized build has none: Slurm's programs load it, and a
# sanitizer's runtime must come first). Otherwise the file ends here: a skip, or a failure where
# CORDON_TESTS_MUST_RUN=1 and the plugin was not built.
spank_require() {
        ns_only "the plugin always confines with the landlock backend's steps; once is enough"
        if [ "$(id -u)" != 0 ] && [ "$(id -un)" = "$SLURM_TEST_USER" ]; then
                echo "1..0 # SKIP covered by the root run, which starts the cluster and submits as $SLURM_TEST_USER"
                exit 0
        fi
        if [ -n "${T_SANITIZED:-}" ]; then
                echo "1..0 # SKIP a sanitized build has no plugin: Slurm's programs load it, and a sanitizer's runtime must come first (the build without sanitizers runs this file)"
                exit 0
        fi
        if [ -z "${CORDON_SPANK:-}" ] || [ ! -f "$CORDON_SPANK" ]; then
                local why="cordon_spank.so was not built (CORDON_SPANK='${CORDON_SPANK:-}': Slurm's spank.h missing?)"
                if [ "${CORDON_TESTS_MUST_RUN:-0}" = 1 ]; then
                        printf '1..1\nnot ok 1 - the plugin is built\n#   skipped, but CORDON_TESTS_MUST_RUN=1: %s\n' "$why"
                else
                        echo "1..0 # SKIP $why"
                fi
                exit 0
        fi
}

slurm_require() {
        local why err
        why=$(slurm_why_not)
        if [ -n "$why" ]; then
                if [ "${CORDON_TESTS_MUST_RUN:-0}" = 1 ]; then
                        printf '1..1\nnot ok 1 - the test cluster starts\n#   skipped, but CORDON_TESTS_MUST_RUN=1: %s\n' "$why"
                else
                        echo "1..0 # SKIP $why"
                fi
                exit 0
        fi
        err=$(mktemp "${T_TMP:-/tmp}/slurm-start.XXXXXX") || exit 1
        # shellcheck disable=SC2119
        if ! slurm_start 2>"$err"; then
                echo "1..1"
                echo "not ok 1 - the test cluster starts"
                sed 's/^/#   /' "$err"
                rm -f "$err"
                exit 0
        fi
        rm -f "$err"
}
