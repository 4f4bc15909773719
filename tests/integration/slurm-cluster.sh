#!/usr/bin/env bash
# tap: split: root (as the test user it skips itself: see run-tap.sh's T_TAP_SPLIT)
# tap: exclusive (its jobs run as the test user, whose processes and files other files count)
# The test cluster of the Slurm tests (tests/lib/slurm.sh), without cordon: it starts, takes
# jobs from the unprivileged test user (batch, srun, a running job listed and cancelled), says
# why it refuses one, and its stop ends everything it started. A failure here is the fixture's,
# not cordon's. As root only: the root run submits every job as the test user, so the run as
# that user has nothing more to test.
. "$(dirname "$0")/../lib/slurm.sh"
ns_only "runs no sandbox; once is enough"
if [ "$(id -u)" != 0 ] && [ "$(id -un)" = "$SLURM_TEST_USER" ]; then
        echo "1..0 # SKIP covered by the root run, which starts the cluster and submits as $SLURM_TEST_USER"
        exit 0
fi
host_munge_before=$(ls -d /run/munge 2>/dev/null)
slurm_require

plan 21
u=$SLURM_TEST_USER
echo "# the cluster was up in $SLURM_START_MS ms (node $SLURM_NODE, $SLURM_DIR)"
check "the node is idle" "idle" "$(sinfo -h -n "$SLURM_NODE" -o %t 2>&1)"
check "the node has the CPUs slurmd -C finds" "$(slurmd -C | sed -n '1s/.* CPUs=\([0-9]*\) .*/\1/p')" \
        "$(sinfo -h -n "$SLURM_NODE" -o %c 2>&1)"

# A batch job of the test user: it runs as that user and writes its output file.
cat >"$SLURM_USER_DIR/hello.sh" <<'JOB'
#!/bin/sh
echo "hello from job $SLURM_JOB_ID as $(id -un) in $(pwd)"
JOB
chmod 755 "$SLURM_USER_DIR/hello.sh"
t0=$(date +%s%N)
id=$(slurm_as_user sbatch --parsable -o hello.out hello.sh 2>&1)
check_like "sbatch as $u prints the job id" "+([0-9])" "$id"
if slurm_wait_job "$id" COMPLETED 20 2>"$T_TMP/err"; then
        ok "the batch job completed ($((($(date +%s%N) - t0) / 1000000)) ms from sbatch)"
else
        not_ok "the batch job completed" "$(cat "$T_TMP/err")" "$(slurm_dump_logs)"
fi
check "its output file holds what it printed" "hello from job $id as $u in $SLURM_USER_DIR" \
        "$(cat "$SLURM_USER_DIR/hello.out" 2>&1)"
check "the output file is the user's" "$u" "$(stat -c %U "$SLURM_USER_DIR/hello.out" 2>&1)"

# A job that fails: the wait ends at its final state, not at the timeout.
id=$(slurm_as_user sbatch --parsable -o fail.out --wrap 'exit 3' 2>&1)
t0=$(date +%s)
slurm_wait_job "$id" COMPLETED 30 2>/dev/null
rc=$?
check "waiting for COMPLETED on a job that exits 3 fails, at once, with its state" "1 FAILED fast" \
        "$rc $SLURM_JOB_STATE $([ $(($(date +%s) - t0)) -lt 15 ] && echo fast || echo slow)"
check "its exit code is 3" "ExitCode=3:0" "$(scontrol -o show job "$id" | grep -o 'ExitCode=[0-9:]*')"

# srun: an interactive step, as the user. What it says of the queue (the node still freeing the
# job before, on a busy machine) is not the step's output; anything else it says is.
srun_out() {
        local out rc
        out=$(slurm_as_user srun "$@" 2>"$T_TMP/srun.err"); rc=$?
        echo "$rc:$out$(grep -vE '^srun: job [0-9]+ (queued and waiting for resources|has been allocated resources)$' "$T_TMP/srun.err")"
}
t0=$(date +%s%N)
out=$(srun_out true)
check "srun true as $u succeeds ($((($(date +%s%N) - t0) / 1000000)) ms)" "0:" "$out"
check "srun runs the step as $u" "0:$u" "$(srun_out id -un)"

# A running job: squeue lists it, its processes run, scancel by the user ends them.
id=$(slurm_as_user sbatch --parsable -o sleep.out -J sleeper --wrap 'sleep 617' 2>&1)
slurm_wait_job "$id" RUNNING 20 2>"$T_TMP/err" || echo "# $(cat "$T_TMP/err")"
check "squeue shows the sleep job running, the user's" "$id RUNNING $u sleeper" \
        "$(slurm_as_user squeue -h -j "$id" -o '%i %T %u %j' 2>&1)"
# (RUNNING comes before the batch script has started its sleep: a few seconds are given.)
sleeping() { for p in $(slurm_job_pids "$id"); do tr '\0' ' ' <"/proc/$p/cmdline"; echo; done 2>/dev/null; }
for _ in $(seq 100); do sleeping | grep -q 'sleep 617' && break; sleep 0.1; done
check_like "its sleep runs" "*sleep 617*" "$(sleeping)"
out=$(slurm_as_user scancel "$id" 2>&1); rc=$?
check "scancel as $u succeeds" "0:" "$rc:$out"
slurm_wait_job "$id" CANCELLED 20 2>"$T_TMP/err"
check "the job is CANCELLED" "CANCELLED" "$SLURM_JOB_STATE"
for _ in $(seq 100); do [ -z "$(slurm_job_pids "$id")" ] && break; sleep 0.05; done
check "none of its processes is left" "" "$(slurm_job_pids "$id")"

# A job the controller refuses: sbatch fails and says why, and no job is queued.
before=$(squeue -h -o %i | wc -l)
out=$(slurm_as_user sbatch --parsable -p nosuchpartition --wrap true 2>&1); rc=$?
check "a job for an unknown partition is refused, with the partition named" \
        "1:sbatch: error: invalid partition specified: nosuchpartition
sbatch: error: Batch job submission failed: Invalid partition name specified" "$rc:$out"
check "and nothing was queued" "$before" "$(squeue -h -o %i | wc -l)"

# The stop, with a job still running: the daemons, the steps and the job end, the directory goes.
id=$(slurm_as_user sbatch --parsable -o sleep2.out --wrap 'sleep 618' 2>&1)
slurm_wait_job "$id" RUNNING 20 2>"$T_TMP/err" || echo "# $(cat "$T_TMP/err")"
conf=$SLURM_CONF dir=$SLURM_DIR pids=("${_slurm_pids[@]}")
t0=$(date +%s%N)
slurm_stop
echo "# stopped in $((($(date +%s%N) - t0) / 1000000)) ms"
left=
for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left+=" $p($(cat "/proc/$p/comm" 2>/dev/null))"; done
check "slurm_stop ended munged, slurmctld, slurmd and the watchdog" "" "$left"
check "the running job's processes are gone" "" "$(slurm_job_pids "$id" "$conf")"
check "its directory is gone" "" "$(ls -d "$dir" 2>/dev/null)"
check "the host's /run/munge is as it was" "$host_munge_before" "$(ls -d /run/munge 2>/dev/null)"
