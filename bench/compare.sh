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

[ $# -ge 2 ] || { sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
old=$(readlink -f "$1") new=$(readlink -f "$2") iterations=${3:-300}
case $iterations in *[!0-9]* | '' | 0) echo "compare.sh: ITERATIONS must be a positive number" >&2; exit 2 ;; esac
for b in "$old" "$new"; do
        [ -x "$b" ] || { echo "compare.sh: no cordon binary at '$b'" >&2; exit 1; }
done
user=${BENCH_USER:-cordon-test}
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3) || { echo "compare.sh: python3 is required" >&2; exit 1; }
self=$(readlink -f "$0")
repo=$(cd "$(dirname "$self")/.." && pwd)

if [ "$(id -u)" -eq 0 ]; then
        id -u "$user" >/dev/null 2>&1 || "$repo/tests/ensure-test-user.sh" ||
                { echo "compare.sh: user '$user' is missing" >&2; exit 1; }
        stage=$(mktemp -d /tmp/cordon-compare-stage.XXXXXX)
        trap 'rm -rf "$stage"' EXIT
        chmod 755 "$stage"
        cp "$old" "$stage/cordon-old"
        cp "$new" "$stage/cordon-new"
        cp "$self" "$stage/compare.sh"
        chmod 755 "$stage"/*
        home=$(getent passwd "$user" | cut -d: -f6)
        echo "# running as $user"
        cd "$stage"
        status=0
        runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
                PATH=/usr/local/bin:/usr/bin:/bin WARMUP="${WARMUP:-10}" BENCH_USER="$user" \
                bash "$stage/compare.sh" "$stage/cordon-old" "$stage/cordon-new" "$iterations" || status=$?
        exit $status
fi

project=$(mktemp -d /tmp/cordon-compare.XXXXXX)
trap 'rm -rf "$project"' EXIT
cd "$project"
"$python" - "$old" "$new" "$iterations" "${WARMUP:-10}" <<'EOF'
import os, random, subprocess, sys, time

old, new, iterations, warmup = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
actions = [(os.POSIX_SPAWN_DUP2, devnull, fd) for fd in (0, 1, 2)]
commands = [("bare", ["/bin/true"])]
for tag, binary in (("old", old), ("new", new)):
    # Since issue 13 the default network is filtered (pasta): both sides run isolated, as
    # before, when the binary knows --net.
    net = ["--net", "isolated"] if b"--net" in subprocess.run([binary, "run", "--help"], capture_output=True).stdout else []
    commands.append(("%s-ns" % tag, [binary, "run", "--quiet", "--backend", "ns"] + net + ["--", "/bin/true"]))
    commands.append(("%s-ll" % tag, [binary, "run", "--quiet", "--backend", "landlock"] + net + ["--", "/bin/true"]))

def run(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, st = os.waitpid(pid, 0)
    return (time.perf_counter_ns() - t0) / 1e6, os.waitstatus_to_exitcode(st)

samples = {name: [] for name, _ in commands}
rng = random.Random(1)
for it in range(warmup + iterations):
    order = list(commands)
    rng.shuffle(order)
    for name, argv in order:
        ms, code = run(argv)
        if code != 0:
            sys.exit("compare.sh: %s exited with status %d: %s" % (name, code, " ".join(argv)))
        if it >= warmup:
            samples[name].append(ms)

def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

def p90(v):
    s = sorted(v)
    return s[max(0, -(-9 * len(s) // 10) - 1)]

print("# %d rounds (+%d warm-up), uid %d, kernel %s" % (iterations, warmup, os.getuid(), os.uname().release))
print("# old: %s\n# new: %s" % (old, new))
print("%-8s %10s %10s" % ("", "median ms", "p90 ms"))
med = {}
for name, _ in commands:
    med[name] = median(samples[name])
    print("%-8s %10.3f %10.3f" % (name, med[name], p90(samples[name])))
for backend in ("ns", "ll"):
    o, n = med["old-" + backend], med["new-" + backend]
    print("ratio new/old %-3s %6.3f   (%+.3f ms; over bare: old %.3f ms, new %.3f ms, %+.1f %%)"
          % (backend, n / o, n - o, o - med["bare"], n - med["bare"], 100 * (n - o) / o))
EOF
