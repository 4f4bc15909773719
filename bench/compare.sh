#!/usr/bin/env bash
# Startup cost of two cordon binaries against each other, interleaved in one run so machine noise
# hits both alike: `cordon run --quiet -- /bin/true` under the ns and the landlock backend, plus
# bare /bin/true as the floor. Prints median and p90 per row and the ratios new/old per backend,
# which is how a change is held to "startup stays within N % of before".
#
# Usage: bench/compare.sh OLD_CORDON NEW_CORDON [ITERATIONS]
#   ITERATIONS   timed rounds (default 300); each round runs every command once, in random order
# Environment: WARMUP (untimed rounds first, default 10), BENCH_USER (default cordon-test).
# As root the script re-runs itself as BENCH_USER from world-readable copies of both binaries:
# the targets are about unprivileged users, and root hides the cost of the user namespace.
set -eu

. "$(dirname "$(readlink -f "$0")")/lib.sh"
[ $# -ge 2 ] || { bench_usage >&2; exit 2; }
old=$(readlink -f "$1") new=$(readlink -f "$2") iterations=${3:-300} warmup=${WARMUP:-10}
case $iterations in *[!0-9]* | '' | 0) bench_die "ITERATIONS must be a positive number" 2 ;; esac
for b in "$old" "$new"; do
        [ -x "$b" ] || bench_die "no cordon binary at '$b'"
done

if [ "$(id -u)" -eq 0 ]; then
        bench_ensure_user
        bench_stage cordon-compare-stage
        cp "$old" "$stage/cordon-old"
        cp "$new" "$stage/cordon-new"
        cp "$self" "$stage/compare.sh"
        cp "$bench_lib" "$stage/lib.sh"
        chmod 755 "$stage"/*
        echo "# running as $user"
        cd "$stage"
        status=0
        runuser -u "$user" -- env -i HOME="$(bench_home_of "$user")" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
                PATH=/usr/local/bin:/usr/bin:/bin WARMUP="$warmup" BENCH_USER="$user" \
                bash "$stage/compare.sh" "$stage/cordon-old" "$stage/cordon-new" "$iterations" || status=$?
        exit $status
fi

bench_tmpdir project /tmp/cordon-compare.XXXXXX
cd "$project"
bench_py "$old" "$new" "$iterations" "$warmup" <<'EOF'
import subprocess, time

old, new, iterations, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
actions = devnull_actions()
commands = [("bare", ["/bin/true"])]
for tag, binary in (("old", old), ("new", new)):
    # Since issue 13 the default network is filtered (pasta): both sides run isolated, as
    # before, when the binary knows --net.
    net = ["--net", "isolated"] if b"--net" in subprocess.run([binary, "run", "--help"], capture_output=True).stdout else []
    # A project directory each: what one binary leaves in a project (since issue 22 the new
    # one keeps a project without .git from getting one with an empty read-only .git, which an
    # older one would then fill) must not change what the other one does there.
    os.mkdir(tag)
    proj = ["-p", os.path.abspath(tag)]
    commands.append(("%s-ns" % tag, [binary, "run", "--quiet", "--backend", "ns"] + net + proj + ["--", "/bin/true"]))
    commands.append(("%s-ll" % tag, [binary, "run", "--quiet", "--backend", "landlock"] + net + proj + ["--", "/bin/true"]))

def run(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, st = os.waitpid(pid, 0)
    return (time.perf_counter_ns() - t0) / 1e6, os.waitstatus_to_exitcode(st)

samples = {name: [] for name, _ in commands}
for timed, (name, argv) in shuffled_rounds(commands, warmup, iterations):
    ms, code = run(argv)
    if code != 0:
        sys.exit("compare.sh: %s exited with status %d: %s" % (name, code, " ".join(argv)))
    if timed:
        samples[name].append(ms)

print("# %d rounds (+%d warm-up), uid %d, kernel %s" % (iterations, warmup, os.getuid(), os.uname().release))
print("# old: %s\n# new: %s" % (old, new))
med = print_medians([name for name, _ in commands], samples, width=8)
for backend in ("ns", "ll"):
    o, n = med["old-" + backend], med["new-" + backend]
    print("ratio new/old %-3s %6.3f   (%+.3f ms; over bare: old %.3f ms, new %.3f ms, %+.1f %%)"
          % (backend, n / o, n - o, o - med["bare"], n - med["bare"], 100 * (n - o) / o))
EOF
