#!/usr/bin/env bash
# tap: split: root (as the test user it skips itself: see run-tap.sh's T_TAP_SPLIT)
# tap: exclusive (its jobs run as the test user, whose processes and files other files count)
# PMI-2 (srun --mpi=pmi2) under cordon_spank.so in a real Slurm (tests/lib/slurm.sh): a program
# built here against Slurm's libpmi2 puts its rank, fences and gets every rank's value, in two
# tasks, unconfined (the control), with --cordon and with --cordon-network=isolated; the same
# tasks show they are confined (a planted ~/.ssh key unreadable; the isolated network their
# own). A confined task's PMI2_Job_Spawn of `--export=NONE` (srun's option: a step without the
# inherited --cordon) is refused by the srun Slurm starts for it; an unconfined task's same
# spawn reads the key (the control). As root only, like slurm-spank.sh: the jobs run as the
# test user.
. "$(dirname "$0")/../lib/slurm.sh"
spank_require
# skip_or_fail TEST WHY: this file's TAP when it cannot run here (a failure in CI).
skip_or_fail() {
        if [ "${CORDON_TESTS_MUST_RUN:-0}" = 1 ]; then
                printf '1..1\nnot ok 1 - %s\n#   skipped, but CORDON_TESTS_MUST_RUN=1: %s\n' "$1" "$2"
        else
                echo "1..0 # SKIP $2"
        fi
        exit 0
}

# The probe, against Slurm's PMI-2 client library (libpmi2-0-dev). `ranks KEY NETNS`: PMI2_Init,
# its rank's value put, the fence, every rank's value got; then KEY read and the network
# namespace compared with NETNS; one line. `spawn KEY`: rank 0 asks PMI-2 to spawn one task of
# `--export=NONE SELF read KEY` (srun parses an option where the command should be) and says
# whether it got an answer within 1 s (a refused spawn never gets one; Slurm 22.05 answered
# none of these here either, so only the refused one is checked). The srun of the step waits
# for the sruns it started for spawns before it exits, so what a spawned task prints is in
# the step's output however long it takes. `read KEY`: the spawned task, KEY's content or the
# errno's name.
cat >"$T_TMP/pmi-probe.c" <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/pmi2.h>

static void read_key(const char *path, char *buf, size_t size)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
        if (n < 0) {
                snprintf(buf, size, "%s", strerrorname_np(errno));
                return;
        }
        buf[n] = 0;
        buf[strcspn(buf, "\n")] = 0;
        close(fd);
}

static void no_answer(int sig)
{
        static const char msg[] = "spawn: no answer\n";
        (void)sig;
        (void)!write(STDOUT_FILENO, msg, sizeof(msg) - 1);
        _exit(0);
}

static int spawn(const char *self, const char *key)
{
        const char *cmds[] = {"--export=NONE"};
        const char *args[] = {self, "read", key};
        const char **argvs[] = {args};
        int argcs[] = {3}, maxprocs[] = {1}, infos[] = {0}, errors[] = {0};
        const struct MPID_Info *info[] = {NULL};
        char jobid[256];
        signal(SIGALRM, no_answer);
        alarm(1);
        int r = PMI2_Job_Spawn(1, cmds, argcs, argvs, maxprocs, infos, info, 0, NULL, jobid,
                               sizeof(jobid), errors);
        alarm(0);
        printf("spawn: %s %d\n", r == PMI2_SUCCESS ? "answered" : "error", r);
        return 0;
}

int main(int argc, char **argv)
{
        int spawned, size, rank, appnum, len, r, n;
        char jobid[256], k[PMI2_MAX_KEYLEN], v[PMI2_MAX_VALLEN], line[4096], key[256], ns[64];
        char self[PATH_MAX];
        if (argc == 3 && strcmp(argv[1], "read") == 0) {
                read_key(argv[2], key, sizeof(key));
                printf("spawned: %s\n", key);
                return 0;
        }
        if (argc < 3)
                return 64;
        if ((r = PMI2_Init(&spawned, &size, &rank, &appnum)) != PMI2_SUCCESS) {
                fprintf(stderr, "PMI2_Init: %d\n", r);
                return 1;
        }
        if (strcmp(argv[1], "spawn") == 0) {
                if (rank == 0 && realpath(argv[0], self))
                        spawn(self, argv[2]);
                return PMI2_Finalize() == PMI2_SUCCESS ? 0 : 1;
        }
        if (argc != 4 || (r = PMI2_Job_GetId(jobid, sizeof(jobid))) != PMI2_SUCCESS) {
                fprintf(stderr, "PMI2_Job_GetId: %d\n", r);
                return 1;
        }
        snprintf(k, sizeof(k), "rank-%d", rank);
        snprintf(v, sizeof(v), "from-%d", rank);
        if ((r = PMI2_KVS_Put(k, v)) != PMI2_SUCCESS || (r = PMI2_KVS_Fence()) != PMI2_SUCCESS) {
                fprintf(stderr, "PMI2_KVS_Put, PMI2_KVS_Fence: %d\n", r);
                return 1;
        }
        n = snprintf(line, sizeof(line), "rank %d of %d:", rank, size);
        for (int i = 0; i < size && n < (int)sizeof(line); i++) {
                snprintf(k, sizeof(k), "rank-%d", i);
                r = PMI2_KVS_Get(jobid, PMI2_ID_NULL, k, v, sizeof(v), &len);
                if (r != PMI2_SUCCESS) {
                        fprintf(stderr, "PMI2_KVS_Get %s: %d\n", k, r);
                        return 1;
                }
                n += snprintf(line + n, sizeof(line) - n, " %s=%s", k, v);
        }
        read_key(argv[2], key, sizeof(key));
        ssize_t l = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);
        ns[l < 0 ? 0 : l] = 0;
        printf("%s; key: %s; net: %s\n", line, key, strcmp(ns, argv[3]) == 0 ? "host" : "own");
        return PMI2_Finalize() == PMI2_SUCCESS ? 0 : 1;
}
EOF
if ! cc -O1 -Wall -Werror -o "$T_TMP/pmi-probe" "$T_TMP/pmi-probe.c" -lpmi2 2>"$T_TMP/cc.err"; then
        skip_or_fail "the PMI-2 probe builds" \
                "the PMI-2 probe does not build (make test-deps: libpmi2-0-dev): $(head -1 "$T_TMP/cc.err")"
fi

slurm_require
policy=$SLURM_DIR/cordon.d
mkdir -m 755 "$policy"
printf '%s\n' '# the tests'"'"' default profile' 'ENABLED_AGENTS=()' >"$policy/default.conf"
chmod 644 "$policy/default.conf"
slurm_set_plugstack "required $CORDON_SPANK policy_dir=$policy"
install -m 755 "$T_TMP/pmi-probe" "$SLURM_USER_DIR/pmi-probe"

plan 8
u=$SLURM_TEST_USER
uhome=$(getent passwd "$u" | cut -d: -f6)
out=$T_TMP/out err=$T_TMP/err
hostnet=$(readlink /proc/self/ns/net)

# A key of the test user's, planted for the run and removed after it.
made_ssh=
[ -d "$uhome/.ssh" ] || { mkdir -m 700 "$uhome/.ssh" && chown "$u:" "$uhome/.ssh" && made_ssh=1; }
key=$uhome/.ssh/id_pmi_test
echo 'PLANTED PRIVATE KEY' >"$key"
chown "$u:" "$key"
chmod 600 "$key"
cleanup() {
        rm -f "$key"
        [ -n "$made_ssh" ] && rmdir "$uhome/.ssh" 2>/dev/null
}
trap 'cleanup; slurm_stop' EXIT

# run WHAT...: runs WHAT as the test user; its stdout (sorted: the tasks print in any order) in
# $out, stderr in $err, status in $rc.
run() {
        slurm_as_user "$@" >"$out.raw" 2>"$err"
        rc=$?
        sort "$out.raw" >"$out"
}
ranks() { printf 'rank 0 of 2: rank-0=from-0 rank-1=from-1; %s\nrank 1 of 2: rank-0=from-0 rank-1=from-1; %s' "$1" "$1"; }
t0=$(date +%s%N)

# ---- the key-value space, with and without the plugin ----
run srun -n2 --mpi=pmi2 ./pmi-probe ranks "$key" "$hostnet"
check "control: two unconfined ranks put, fence and get each other's values; they read the key" \
        "0:$(ranks "key: PLANTED PRIVATE KEY; net: host")" "$rc:$(cat "$out")"
run srun --cordon -n2 --mpi=pmi2 ./pmi-probe ranks "$key" "$hostnet"
check "srun --cordon: every rank gets every rank's value, and cannot read the key" \
        "0:$(ranks "key: EACCES; net: host")" "$rc:$(cat "$out")"
check "srun --cordon: no error" "" "$(cat "$err")"
run srun --cordon --cordon-network=isolated -n2 --mpi=pmi2 ./pmi-probe ranks "$key" "$hostnet"
check "--cordon-network=isolated: PMI-2 works in a network of the tasks' own, the key unreadable" \
        "0:$(ranks "key: EACCES; net: own")" "$rc:$(cat "$out")"
check "--cordon-network=isolated: no error" "" "$(cat "$err")"

# ---- PMI2_Job_Spawn ----
# The spawned step shares the job's CPUs with the running one (SLURM_OVERLAP, which the srun
# that mpi/pmi2 starts inherits).
run env SLURM_OVERLAP=1 srun -n1 --mpi=pmi2 ./pmi-probe spawn "$key"
check_like "control: an unconfined task's spawn of --export=NONE runs a task that reads the key" \
        "0:*spawned: PLANTED PRIVATE KEY*" "$rc:$(tr '\n' ' ' <"$out")"
run env SLURM_OVERLAP=1 srun --cordon --cordon-network=isolated -n1 --mpi=pmi2 ./pmi-probe spawn "$key"
check "a confined task's spawn is never answered, and nothing was spawned" \
        "0:spawn: no answer" "$rc:$(cat "$out")"
check_like "the srun started for it refuses, saying why" \
        "*cordon: a PMI-2 spawn from a confined step is refused: the task would choose the new step's srun options (SLURM_PMI2_SPAWNER_JOBID=*" \
        "$(tr '\n' ' ' <"$err")"
echo "# the steps took $((($(date +%s%N) - t0) / 1000000)) ms (the cluster's start: $SLURM_START_MS ms)"
