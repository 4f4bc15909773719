#!/usr/bin/env bash
# tap: split: root (as the test user it skips itself: see run-tap.sh's T_TAP_SPLIT)
# shellcheck disable=SC2016 # the jobs' own $VARIABLES, expanded in the job
# tap: exclusive (its jobs run as the test user, whose processes and files other files count)
# cordon_spank.so in a real Slurm (tests/lib/slurm.sh), built in the tree ($CORDON_SPANK): srun
# --cordon confines the task (a planted ~/.ssh key unreadable, the environment the landlock
# backend's), --cordon-network=isolated keeps it from the host's 127.0.0.1, an enforced
# partition refuses an unconfined step (in srun, and in the task for a batch job) and takes a
# confined one, #SBATCH --cordon confines a batch job, a missing profile, a network a task
# cannot have and an unknown plugstack.conf argument fail loudly, srun --help shows the options,
# a profile's DEVICES reaches the task (stand-in nodes in /dev for a GPU's: no GPU here).
# Then a second cluster, with Slurm's job container (job_container/tmpfs: a mount namespace and a
# /tmp of the job's own): srun --cordon nests inside it (the plugin's log says so; the first
# cluster's does not), the task's /tmp is the job's, the key is still unreadable and isolated
# still has no network; the fixture's stop clears what a job container of daemons killed
# mid-job left mounted. Every refusal has its control. As root only, like slurm-cluster.sh: the
# jobs run as the test user. The times of srun true with and without --cordon are printed
# (bench/slurm.sh compares).
. "$(dirname "$0")/../lib/slurm.sh"
spank_require

# The policy directory is made once the cluster's directory exists; plugstack.conf names it.
# shellcheck disable=SC2034 # read by slurm_start
SLURM_EXTRA_PARTITIONS=secure
# The plugin's note on the job's namespaces is at debug level.
# shellcheck disable=SC2034 # read by slurm_start
SLURM_SLURMD_DEBUG=debug
# The cluster's copy of the plugin (and its policy directory) in its own directory: the staged
# one is below /tmp, which an srun in a job container's batch script does not see.
use_cluster() {
        plugin=$SLURM_DIR/cordon_spank.so
        install -m 644 "$CORDON_SPANK" "$plugin"
        policy=$SLURM_DIR/cordon.d
        mkdir -m 755 "$policy"
        # What every profile needs here: no agent homes (they need a process of cordon's).
        printf '%s\n' '# the tests'"'"' default profile' 'ENABLED_AGENTS=()' >"$policy/default.conf"
        chmod 644 "$policy/default.conf"
        plugstack="required $plugin policy_dir=$policy enforce=partition:secure"
        slurm_set_plugstack "$plugstack"
}
slurm_require
use_cluster

plan 38
u=$SLURM_TEST_USER
uhome=$(getent passwd "$u" | cut -d: -f6)
out=$T_TMP/out err=$T_TMP/err

# A key of the test user's, planted for the run and removed after it.
made_ssh=
[ -d "$uhome/.ssh" ] || { mkdir -m 700 "$uhome/.ssh" && chown "$u:" "$uhome/.ssh" && made_ssh=1; }
key=$uhome/.ssh/id_test
echo 'PLANTED PRIVATE KEY' >"$key"
chown "$u:" "$key"
chmod 600 "$key"
cleanup() {
        # shellcheck disable=SC2086 # two paths
        [ -n "${devs:-}" ] && rm -f $devs
        rm -f "$key"
        [ -n "$made_ssh" ] && rmdir "$uhome/.ssh" 2>/dev/null
        [ -n "${listener:-}" ] && kill "$listener" 2>/dev/null
}
trap 'cleanup; slurm_stop' EXIT

# run WHAT...: runs WHAT as the test user; its stdout in $out, stderr in $err, status in $rc.
run() { slurm_as_user "$@" >"$out" 2>"$err"; rc=$?; }
# ms CMD...: the median of 5 runs of CMD as the test user, in ms.
ms() {
        local t0 times=()
        for _ in 1 2 3 4 5; do
                t0=$(date +%s%N)
                slurm_as_user "$@" >/dev/null 2>&1
                times+=($((($(date +%s%N) - t0) / 1000000)))
        done
        printf '%s\n' "${times[@]}" | sort -n | sed -n 3p
}

# ---- srun --cordon ----
run srun --cordon true
check "srun --cordon true succeeds" "0:" "$rc:$(cat "$err")"
run srun cat "$key"
check "control: srun cat reads the planted ~/.ssh/id_test" "0:PLANTED PRIVATE KEY" "$rc:$(cat "$out")"
run srun --cordon cat "$key"
check_like "srun --cordon cat: Permission denied, nothing read" \
        "1::*cat: $key: Permission denied*" "$rc:$(cat "$out"):$(cat "$err")"
run srun --cordon=default sh -c 'echo "$SANDBOX_BACKEND $SANDBOX_NETWORK_MODE ${AWS_SECRET_ACCESS_KEY:-unset} $SLURM_JOB_PARTITION"'
check "--cordon=default: the landlock backend's environment, a blocked variable dropped, Slurm's kept" \
        "0:landlock open unset debug" "$rc:$(cat "$out")"
run env AWS_SECRET_ACCESS_KEY=planted srun sh -c 'echo "${AWS_SECRET_ACCESS_KEY:-unset}"'
check "control: without --cordon the job's environment is passed as it is" "0:planted" "$rc:$(cat "$out")"
run srun --cordon sh -c 'echo x >"$HOME/outside"'
check_like "a write outside the project is refused" "[1-9]*Permission denied*" "$rc:$(cat "$err")"
check "nothing was written" "" "$(ls -A "$uhome/outside" 2>/dev/null)"
run srun --cordon sh -c 'echo inside >inside.txt && cat inside.txt'
check "control: the working directory (the project) is writable" "0:inside" "$rc:$(cat "$out")"
rm -f "$SLURM_USER_DIR/inside.txt"

# ---- the network ----
port=$(python3 -S -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -S -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
while True:
    c, _ = s.accept(); c.sendall(b"HOST"); c.close()' "$port" &
listener=$!
for _ in $(seq 50); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
connect="exec 3<>/dev/tcp/127.0.0.1/$port && head -c 4 <&3"
run srun --cordon bash -c "$connect"
check "control: a confined task with the open network reaches the host's 127.0.0.1:$port" \
        "0:HOST" "$rc:$(cat "$out")"
run srun --cordon --cordon-network=isolated bash -c "$connect"
check_like "--cordon-network=isolated: the host's 127.0.0.1:$port is out of reach" \
        "1::*/dev/tcp/127.0.0.1/$port*" "$rc:$(cat "$out"):$(cat "$err")"
run srun --cordon --cordon-network=isolated cat /proc/net/dev
check "--cordon-network=isolated: a network namespace with only the loopback" "0:lo" \
        "$rc:$(tail -n +3 "$out" | cut -d: -f1 | tr -d ' ')"
run srun --cordon --cordon-network=proxied true
check_like "a network the task cannot have (proxied) fails the task, naming the variable" \
        "[1-9]*cordon: profile default: cordon_confine_self: NETWORK_FILTER_MODE cannot be applied*" \
        "$rc:$(tr '\n' ' ' <"$err")"
run srun --cordon-network=isolated true
check_like "--cordon-network without --cordon is refused by srun" \
        "[1-9]*--cordon-network=isolated needs --cordon*" "$rc:$(tr '\n' ' ' <"$err")"

# ---- profiles ----
run srun --cordon=nosuch true
check_like "a missing profile fails the task, the file named" \
        "[1-9]*admin profile: $policy/nosuch.conf: no such file*" "$rc:$(tr '\n' ' ' <"$err")"
run srun --cordon=../x true
check_like "a profile name that is no name is refused by srun" "[1-9]*profile '../x': expected*" \
        "$rc:$(tr '\n' ' ' <"$err")"

# ---- devices (a GPU's nodes) ----
# No GPU here: two character devices (the null device's numbers, under names of the test's own
# in /dev, where DEVICES looks) stand for one. A profile's DEVICES grants the first to its tasks,
# as the default DEVICES grants NVIDIA's /dev/nvidia* nodes where they exist; the second, not
# granted, stays closed. They go at the end of the run, or right after these checks.
devs="/dev/cordon-test-gpu-$$ /dev/cordon-test-other-$$"
mknod -m 666 "/dev/cordon-test-gpu-$$" c 1 3
mknod -m 666 "/dev/cordon-test-other-$$" c 1 3
printf '%s\n' 'ENABLED_AGENTS=()' "DEVICES+=(/dev/cordon-test-gpu-$$)" >"$policy/gpu.conf"
chmod 644 "$policy/gpu.conf"
DEVTRY='for d in gpu other; do if echo x 2>/dev/null >"/dev/cordon-test-$d-$0"; then echo "$d:open"; else echo "$d:refused"; fi; done'
run srun --cordon=gpu sh -c "$DEVTRY" "$$"
check "--cordon=gpu: the device its DEVICES grants opens, another stays closed" \
        "0:gpu:open other:refused" "$rc:$(paste -sd' ' "$out")"
run srun --cordon sh -c "$DEVTRY" "$$"
check "control: the default profile, which does not grant it, keeps both closed" \
        "0:gpu:refused other:refused" "$rc:$(paste -sd' ' "$out")"
run srun sh -c "$DEVTRY" "$$"
check "control: unconfined, both open" "0:gpu:open other:open" "$rc:$(paste -sd' ' "$out")"
# shellcheck disable=SC2086 # two paths
rm -f $devs

# ---- the mandatory partition ----
run srun -p secure true
check_like "srun -p secure without --cordon is refused, the partition and the option named" \
        "[1-9]*cordon: partition secure runs confined tasks only: submit with --cordon\[=PROFILE\]*" \
        "$rc:$(tr '\n' ' ' <"$err")"
run srun -p secure --cordon cat "$key"
check_like "srun -p secure --cordon runs, confined" "1:*Permission denied*" "$rc:$(cat "$err")"
# sbatch has no srun around the batch step: the step's own check refuses it.
id=$(slurm_as_user sbatch --parsable -p secure -o secure.out --wrap true 2>&1)
slurm_wait_job "$id" COMPLETED 20 2>/dev/null
check_like "a batch job in the secure partition without --cordon fails in the task, saying why" \
        "FAILED:*partition secure runs confined tasks only*" \
        "$SLURM_JOB_STATE:$(cat "$SLURM_USER_DIR/secure.out" 2>&1)"

# ---- #SBATCH --cordon ----
printf '#!/bin/sh\n#SBATCH --cordon\necho "backend=${SANDBOX_BACKEND:-none}"\ncat %s\n' "$key" \
        >"$SLURM_USER_DIR/confined.sh"
sed '/^#SBATCH --cordon$/d' "$SLURM_USER_DIR/confined.sh" >"$SLURM_USER_DIR/plain.sh"
chmod 755 "$SLURM_USER_DIR"/*.sh
id=$(slurm_as_user sbatch --parsable -o confined.out confined.sh 2>&1)
slurm_wait_job "$id" FAILED 20 2>/dev/null
check_like "#SBATCH --cordon: the batch job is confined (the key unreadable)" \
        "FAILED:backend=landlock*Permission denied*" \
        "$SLURM_JOB_STATE:$(tr '\n' ' ' <"$SLURM_USER_DIR/confined.out" 2>&1)"
id=$(slurm_as_user sbatch --parsable -o plain.out plain.sh 2>&1)
slurm_wait_job "$id" COMPLETED 20 2>/dev/null
check "control: the same script without the directive reads the key" \
        "COMPLETED:backend=none PLANTED PRIVATE KEY " \
        "$SLURM_JOB_STATE:$(tr '\n' ' ' <"$SLURM_USER_DIR/plain.out" 2>&1)"

# ---- salloc --cordon ----
# The steps srun starts in the allocation are confined (the option reaches them through the
# allocation's environment, as Slurm passes it: "(null)" for no value).
run salloc --cordon srun cat "$key"
check_like "salloc --cordon: srun in the allocation is confined (the key unreadable)" \
        "1:*cat: $key: Permission denied*" "$rc:$(tr '\n' ' ' <"$err")"
run salloc srun cat "$key"
check "control: salloc without --cordon, srun reads the key" "0:PLANTED PRIVATE KEY" "$rc:$(cat "$out")"

# ---- help, arguments ----
run srun --help
check "srun --help shows both options with the [cordon] prefix" "2" \
        "$(grep -cE -- '--cordon(-network)?=.*\[cordon\] ' "$out")"
slurm_set_plugstack "$plugstack polcy=strict"
run srun true
check_like "an unknown plugstack.conf argument makes srun fail loudly, naming it" \
        "[1-9]*cordon: plugin argument 'polcy=strict': unknown*" "$rc:$(tr '\n' ' ' <"$err")"
slurm_set_plugstack "$plugstack"
run srun true
check "control: with the arguments right again, srun true runs" "0:" "$rc:$(cat "$err")"

# ---- the cost ----
plain=$(ms srun true) confined=$(ms srun --cordon true)
echo "# srun true: ${plain} ms, srun --cordon true: ${confined} ms (medians of 5)"

# The plugin's note that it nests inside the job's namespaces, in slurmd's log (slurmstepd's).
nested="cordon: the job has a mount namespace of its own (Slurm's job container): confining inside it"
notes() { grep -cF "$nested" "$SLURM_DIR/log/slurmd.log"; }
check "control: without a job container the plugin notes no namespace of the job's (in a debug log)" \
        "0:debug" "$(notes):$(grep -q '\] debug: ' "$SLURM_DIR/log/slurmd.log" && echo debug)"

# ---- inside Slurm's job container ----
# A second cluster, JobContainerType=job_container/tmpfs: each job in a mount namespace of its
# own with a private /tmp (tests/lib/slurm.sh). The first one is gone with its directory.
slurm_stop
# shellcheck disable=SC2034 # read by slurm_start
SLURM_JOB_CONTAINER=1
slurm_start 2>"$err"
r=$?
[ $r = 0 ] && use_cluster
check "the cluster with job_container/tmpfs starts" "0:" "$r:$([ $r = 0 ] || tr '\n' ' ' <"$err")"
run srun cat "$key"
check "control: in the job container, plain srun reads the planted key" \
        "0:PLANTED PRIVATE KEY" "$rc:$(cat "$out")"
run srun --cordon cat "$key"
check_like "in the job container, srun --cordon cat: Permission denied, nothing read" \
        "1::*cat: $key: Permission denied*" "$rc:$(cat "$out"):$(cat "$err")"
check "the plugin's log: it confines inside the job's mount namespace (once, for the one task)" \
        "1" "$(notes)"
# The confined task writes to its /tmp and waits for an answer there: the host finds the file
# in the job's own directory below BasePath (as root, while the job runs; it goes with the job)
# and answers beside it. The host's /tmp has no such file.
f=cordon-jc.${SLURM_DIR##*.}
slurm_as_user srun --cordon sh -c "echo confined >/tmp/$f && i=0 &&
        while [ ! -e /tmp/$f.answer ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done &&
        cat /tmp/$f.answer" >"$out" 2>"$err" &
task=$! found=
for _ in $(seq 200); do
        # (BasePath/NODE/ID/.ID where slurmd is built for several on a host, as Debian's is)
        for g in "$SLURM_DIR"/jobs/*/.[0-9]*/"$f" "$SLURM_DIR"/jobs/*/*/.[0-9]*/"$f"; do
                [ -f "$g" ] && found=$g
        done
        [ -n "$found" ] && break
        sleep 0.05
done
seen=$([ -n "$found" ] && cat "$found" && echo host >"$found.answer")
wait "$task"
rc=$?
check "the confined task's /tmp is the job's: its file in the job's directory, the answer there read" \
        "confined:0:host" "$seen:$rc:$(cat "$out")"
check "and the host's /tmp has no such file" "absent" "$([ ! -e "/tmp/$f" ] && echo absent)"
run srun --cordon bash -c "$connect"
check "control: in the job container, the open network reaches the host's 127.0.0.1:$port" \
        "0:HOST" "$rc:$(cat "$out")"
run srun --cordon --cordon-network=isolated bash -c "$connect"
check_like "in the job container, isolated: the host's 127.0.0.1:$port out of reach (socket: EPERM)" \
        "1::*bash: socket: Operation not permitted*/dev/tcp/127.0.0.1/$port: Operation not permitted*" \
        "$rc:$(cat "$out"):$(tr '\n' ' ' <"$err")"

# The fixture's stop after slurmd and slurmctld died mid-job (here: killed, as a crash would;
# with the controller up the stop would wait 5 s for a cancel that slurmd never carries out):
# job_container/tmpfs never cleaned up, the job's directory and its namespace's file are still
# mounted below the cluster's directory, and the stop unmounts them before it removes it.
# (Here rather than in slurm-cluster.sh: this cluster is up already.) The mounts counted are
# this job's, by its id: the previous job's may be there still, completing.
d=$SLURM_DIR
slurm_as_user srun sleep 30 >/dev/null 2>&1 &
client=$!
mounts() { findmnt -rn -o TARGET | grep -c "^$d/jobs/\(.*/\)\?$1\(/\|$\)"; }
for _ in $(seq 200); do
        id=$(squeue -h -t RUNNING -o %i)
        [ -n "$id" ] && [ "$(mounts "$id")" = 2 ] && break
        sleep 0.05
done
mounted=$([ -n "$id" ] && mounts "$id")
# shellcheck disable=SC2154 # the fixture's pids: munged, slurmctld, slurmd, the watchdog
kill -KILL "${_slurm_pids[2]}" "${_slurm_pids[1]}"
slurm_stop
# srun (two processes), its controller gone, would wait for a step's end that nobody reports:
# ended by pid, found by this cluster's SLURM_CONF in their environment.
# shellcheck disable=SC2046 # the pids, one a word
kill -KILL $(python3 -S -c "$_SLURM_PROCS" --comm srun --tree "SLURM_CONF=$d/slurm.conf") 2>/dev/null
wait "$client" 2>/dev/null
check "a job container's mounts left by killed daemons: 2 while the job ran, none after the stop, the directory gone" \
        "2:0:gone" "$mounted:$(findmnt -rn -o TARGET | grep -c "^$d/"):$([ -e "$d" ] || echo gone)"
