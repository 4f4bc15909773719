#!/usr/bin/env bash
# What the Slurm integration (issue 27) costs a call, against the issue's targets, as ratios
# measured in one run, on the real single-node Slurm of the tests (tests/lib/slurm.sh), which
# this script starts and stops itself. Root only (the cluster's daemons need it); every timed
# command runs as the unprivileged BENCH_USER, in a project directory of that user's. The timer
# is one small Python program, the same inside a sandbox and outside: perf_counter_ns() around
# posix_spawnp() + waitpid() of each call, output on /dev/null, any failed call the end of the
# run. Rows:
#   sbatch, squeue   through the chaperon: ONE sandbox per backend (`cordon run -q --backend
#             ns|landlock --net proxied`, the mode the default falls back to here) runs the timer,
#             which makes SBATCH_ROUNDS calls of `sbatch -o PROJECT/sbatch.out --wrap true`, then
#             ITERATIONS calls of `squeue`, each through the stub, the doorbell and the chaperon
#             to the real command on the host. Not the sandbox's start: that is outside the
#             timer. Its very first call (an sbatch more) also starts the chaperon: it is printed
#             apart as "first call" and left out of the medians. Direct: the same timer with the
#             same calls as the same user outside any sandbox, once before the sandboxes and once
#             after them, pooled (both blocks' medians are printed too). The squeue calls come
#             after the sbatch calls so that the sandbox has jobs in its scope, as one that asks
#             for its queue does (with none in scope the chaperon prints the header alone).
#             Each sandbox has a state directory of its own (the chaperon's
#             job registry: its scope is its own jobs), and between the blocks the script waits
#             for the queue to empty. Checked, or the run ends: every call inside had the
#             doorbell, the chaperon's log records each of them, no call outside had it.
#                                                         Target: through <= 1.5 x direct + 5 ms
#   srun      `srun --cordon true` against `srun true`, as the user outside any sandbox, with
#             cordon's SPANK plugin in the cluster's plugstack.conf (a policy directory whose
#             default profile is `ENABLED_AGENTS=()`, as in tests/integration/slurm-spank.sh),
#             SRUN_ROUNDS rounds of both in a shuffled order each after WARMUP untimed ones.
#             Checked first: a task of `srun --cordon` has SANDBOX_BACKEND=landlock, one of plain
#             srun has none.                               Target: --cordon <= 1.2 x plain + 20 ms
# It prints the medians and p90s, the first calls, and a table: row, direct, through, ratio,
# target, met or missed. Exit status 0 when it measured, missed targets or not (benches
# report, tests judge; --check makes a miss 1); 1 when it could not measure; 2 on misuse.
#
# Usage: bench/slurm.sh [--check] [ITERATIONS]
#   ITERATIONS   squeue calls per block (default 30, or $ITERATIONS)
#   --check      exit 1 when a row misses its target
# Environment: CORDON (binary; default build/src/cli/cordon, with cordon-slurm-stub and
#   cordon-chaperon beside it or in ../slurm/ as in the build tree), CORDON_SPANK (the plugin;
#   default build/src/slurm/spank/cordon_spank.so), SBATCH_ROUNDS (default 20), SRUN_ROUNDS
#   (default 20), WARMUP (untimed srun rounds first, default 2), BENCH_USER (default
#   cordon-test).
set -eu

. "$(dirname "$(readlink -f "$0")")/lib.sh"
iterations=${ITERATIONS:-30} warmup=${WARMUP:-2} bench_has_check=1
sbatch_rounds=${SBATCH_ROUNDS:-20} srun_rounds=${SRUN_ROUNDS:-20}
bench_args "$@"
[ "$as_root" -eq 0 ] || bench_die "no --as-root: the rows are an unprivileged user's calls (slurmd runs each job as its user)" 2
for v in sbatch_rounds srun_rounds; do
        case ${!v} in *[!0-9]* | '' | 0) bench_die "${v^^} must be a positive number" 2 ;; esac
done
case $warmup in *[!0-9]* | '') bench_die "WARMUP must be a number" 2 ;; esac
[ "$(id -u)" -eq 0 ] || bench_die "run it as root: the test cluster's daemons run as root (the timed calls run as $user)"
bench_cordon
bench_ensure_user
# The stub and the chaperon are found beside cordon, or in the build tree's src/slurm.
slurm_bin=$(dirname "$cordon")
[ -x "$slurm_bin/cordon-chaperon" ] || slurm_bin=$(dirname "$slurm_bin")/slurm
for b in cordon-slurm-stub cordon-chaperon; do
        [ -x "$slurm_bin/$b" ] || bench_die "no $b beside '$cordon' or in '$slurm_bin' (ninja -C build)"
done
spank=${CORDON_SPANK:-$repo/build/src/slurm/spank/cordon_spank.so}
[ -f "$spank" ] || bench_die "no SPANK plugin at '$spank' (built only where Slurm's spank.h is: libslurm-dev; or set CORDON_SPANK)"

# The cluster: tests/lib/slurm.sh, its jobs submitted as $user.
# shellcheck disable=SC2034 # read by slurm.sh
T_USER=$user
# shellcheck source=../tests/lib/slurm.sh
. "$repo/tests/lib/slurm.sh"
set -eu # (tap.sh, which slurm.sh sources, sets -u only)
why=$(slurm_why_not)
[ -z "$why" ] || bench_die "the test cluster cannot start here: $why"

# Copies the user can run: the checkout may not be readable by them, and the chaperon and the
# stub are looked for beside cordon.
bench_stage slurm-bench
cp "$cordon" "$slurm_bin/cordon-slurm-stub" "$slurm_bin/cordon-chaperon" "$spank" "$stage/"
chmod 755 "$stage"/*
cordon=$stage/cordon spank=$stage/${spank##*/}
work= # (set by bench_tmpdir)
bench_tmpdir work /tmp/slurm-bench-out.XXXXXX

slurm_err=$work/start.err
slurm_start 2>"$slurm_err" || bench_die "the test cluster did not start: $(cat "$slurm_err")"
# The stop first on every exit (slurm_start put it after lib.sh's removal): it cancels the
# jobs while the controller still runs. Its helpers are written for set +e.
trap 'set +e; slurm_stop; rm -rf ${bench_cleanup[@]+"${bench_cleanup[@]}"}' EXIT
proj=$SLURM_USER_DIR/proj
mkdir -m 700 "$proj"
chown "$user:" "$proj"

# as_user STATE CMD...: CMD as $user in the project, with the cluster's configuration and STATE
# as XDG_STATE_HOME (the chaperon's log and job registry).
as_user() {
        local state=$1
        shift
        (cd "$proj" && setpriv --reuid="$user" --regid="$user" --init-groups --reset-env -- \
                env SLURM_CONF="$SLURM_CONF" XDG_STATE_HOME="$state" LANG=C.UTF-8 "$@")
}

# The queue empty again (the jobs of a block end about a second after they are queued), so that
# no block's calls run beside another's jobs. What is left after 60 s is cancelled and said.
drain() {
        local left
        for _ in $(seq 600); do
                left=$(squeue -h -o %i 2>/dev/null) || left=unknown
                [ -z "$left" ] && return 0
                sleep 0.1
        done
        echo "# note: jobs still queued after 60 s, cancelled: $(tr '\n' ' ' <<<"$left")"
        # shellcheck disable=SC2086
        scancel $left 2>/dev/null || true
}

IFS= read -r -d '' timer <<'EOF' || true
import os, random, sys, tempfile, time

null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
err = tempfile.TemporaryFile()


def call(argv):
    """Milliseconds from posix_spawnp() to waitpid() of argv; a failure ends the program."""
    err.seek(0)
    err.truncate()
    acts = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2)]
    t0 = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=acts)
    _, st = os.waitpid(pid, 0)
    ms = (time.perf_counter_ns() - t0) / 1e6
    if st != 0:
        err.seek(0)
        sys.exit("timer: %s: exit status %d: %s" % (" ".join(argv), os.waitstatus_to_exitcode(st),
                                                     err.read().decode(errors="replace").strip()))
    return ms


def row(name, samples):
    print(name, " ".join("%.3f" % s for s in samples))


print("doorbell", "yes" if "CORDON_SLURM_FD" in os.environ else "no")
if sys.argv[1] == "calls":
    n_sbatch, n_squeue, out = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    sbatch = ["sbatch", "-o", out, "--wrap", "true"]
    row("first", [call(sbatch)])
    row("sbatch", [call(sbatch) for _ in range(n_sbatch)])
    row("squeue", [call(["squeue"]) for _ in range(n_squeue)])
else:
    rounds, warmup = int(sys.argv[2]), int(sys.argv[3])
    runs = {"srun": ["srun", "true"], "srun-cordon": ["srun", "--cordon", "true"]}
    samples = {k: [] for k in runs}
    rng = random.Random(1)
    for it in range(warmup + rounds):
        order = list(runs)
        rng.shuffle(order)
        for k in order:
            ms = call(runs[k])
            if it >= warmup:
                samples[k].append(ms)
    for k in runs:
        row(k, samples[k])
EOF

echo "# $bench_name: Slurm calls through cordon's chaperon and srun --cordon against direct, measured as $user"
echo "# cluster: $(sinfo -V 2>/dev/null), one node ($SLURM_NODE, tests/lib/slurm.sh), started in ${SLURM_START_MS} ms"
echo "# calls: sbatch $sbatch_rounds and squeue $iterations per block (direct before, ns, landlock, direct after); srun $srun_rounds rounds of both (warm-up $warmup)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# block NAME [BACKEND]: the calls row's timer, direct or in one sandbox of BACKEND; its output
# in $work/NAME, checked.
block() {
        local name=$1 be=${2:-} state=$SLURM_USER_DIR/state-$1 cmd=() n want
        install -d -m 700 -o "$user" -g "$user" "$state"
        [ -n "$be" ] && cmd=("$cordon" run -q --backend "$be" --net proxied --)
        as_user "$state" "${cmd[@]}" "$python" -c "$timer" calls "$sbatch_rounds" "$iterations" \
                "$proj/sbatch.out" >"$work/$name" 2>"$work/$name.err" ||
                bench_die "block $name: the timer failed: $(cat "$work/$name.err")"
        [ -s "$work/$name.err" ] && sed "s/^/# $name: stderr: /" "$work/$name.err"
        if [ -n "$be" ]; then
                grep -qx 'doorbell yes' "$work/$name" || bench_die "block $name: the sandbox had no doorbell (CORDON_SLURM_FD)"
                # Every call reached the chaperon: its log has one request line per call.
                want="$((sbatch_rounds + 1)) $iterations"
                n="$(cat "$state"/cordon/chaperon/*.log 2>/dev/null | grep -c ' request command="sbatch"') $(cat "$state"/cordon/chaperon/*.log 2>/dev/null | grep -c ' request command="squeue"')" || true
                [ "$n" = "$want" ] || bench_die "block $name: the chaperon's log has $n sbatch and squeue requests, not $want"
        else
                grep -qx 'doorbell no' "$work/$name" || bench_die "block $name: a direct call had a doorbell"
        fi
        drain
}

block direct-before
block ns ns
block landlock landlock
block direct-after

# srun --cordon: the plugin in the plugstack, a policy directory like slurm-spank.sh's.
policy=$SLURM_DIR/cordon.d
mkdir -m 755 "$policy"
printf '%s\n' 'ENABLED_AGENTS=()' >"$policy/default.conf"
chmod 644 "$policy/default.conf"
slurm_set_plugstack "required $spank policy_dir=$policy"
srun_state=$SLURM_USER_DIR/state-srun
install -d -m 700 -o "$user" -g "$user" "$srun_state"
# shellcheck disable=SC2016 # the task's own variable
probe='echo "backend=${SANDBOX_BACKEND:-none}"'
got="$(as_user "$srun_state" srun --cordon sh -c "$probe" 2>&1) $(as_user "$srun_state" srun sh -c "$probe" 2>&1)"
[ "$got" = "backend=landlock backend=none" ] ||
        bench_die "srun --cordon does not confine its task here (expected 'backend=landlock backend=none', got '$got')"
as_user "$srun_state" "$python" -c "$timer" srun "$srun_rounds" "$warmup" >"$work/srun" 2>"$work/srun.err" ||
        bench_die "srun: the timer failed: $(cat "$work/srun.err")"
slurm_set_plugstack ""
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

status=0
bench_py "$work" <<'EOF' || status=$?
work = sys.argv[1]


def read(name):
    rows = {}
    with open(os.path.join(work, name)) as f:
        for line in f:
            k, *v = line.split()
            if k != "doorbell":
                rows[k] = [float(x) for x in v]
    return rows


blocks = {n: read(n) for n in ("direct-before", "ns", "landlock", "direct-after")}
srun = read("srun")
direct = {c: blocks["direct-before"][c] + blocks["direct-after"][c] for c in ("sbatch", "squeue")}

print("\n%-26s %10s %10s" % ("", "median ms", "p90 ms"))
for c in ("sbatch", "squeue"):
    for n in ("direct-before", "direct-after"):
        print("%-26s %10.3f %10.3f" % ("%s %s" % (c, n), median(blocks[n][c]), p90(blocks[n][c])))
    print("%-26s %10.3f %10.3f" % ("%s direct (pooled)" % c, median(direct[c]), p90(direct[c])))
    for n in ("ns", "landlock"):
        print("%-26s %10.3f %10.3f" % ("%s through (%s)" % (c, n), median(blocks[n][c]), p90(blocks[n][c])))
for k in ("srun", "srun-cordon"):
    print("%-26s %10.3f %10.3f" % (k.replace("-", " --"), median(srun[k]), p90(srun[k])))
print("\nfirst call (an sbatch; in a sandbox it also starts the chaperon): direct %.1f / %.1f ms,"
      " ns %.1f ms, landlock %.1f ms" % (blocks["direct-before"]["first"][0],
                                         blocks["direct-after"]["first"][0],
                                         blocks["ns"]["first"][0], blocks["landlock"]["first"][0]))

table, missed = [], []
for c in ("squeue", "sbatch"):
    d = median(direct[c])
    for n in ("ns", "landlock"):
        t = median(blocks[n][c])
        table.append(("%s (%s)" % (c, n), d, t, 1.5, 5))
table.append(("srun --cordon true", median(srun["srun"]), median(srun["srun-cordon"]), 1.2, 20))
print("\n%-20s %10s %11s %6s  %-24s %s" % ("row", "direct ms", "through ms", "ratio", "target", "verdict"))
for name, d, t, a, b in table:
    bound = a * d + b
    met = t <= bound
    missed += [] if met else [name]
    print("%-20s %10.2f %11.2f %6.2f  %-24s %s" % (name, d, t, t / d, "<= %.1f x + %d ms (%.1f)" % (a, b, bound),
                                                   "met" if met else "MISSED"))
sys.exit(3 if missed else 0)
EOF
case $status in
0) ;;
3) [ "$check" -eq 1 ] && exit 1 ;;
*) bench_die "the report failed (status $status)" ;;
esac
exit 0
