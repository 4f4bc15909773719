#!/usr/bin/env bash
# Where the startup time of `cordon run --quiet -- /bin/true` goes: records syscall-entry
# tracepoints with `perf record -a` (no ptrace, so the timings stay close to real; strace doubles
# them) over many runs and prints the median length of each phase.
#
# Usage: bench/phases.sh [--as-root] [RUNS]      (root only: perf needs system-wide tracepoints)
#   RUNS defaults to 60. Without --as-root the runs are made as BENCH_USER (default cordon-test).
#
# The phase boundaries are particular syscalls of the current launcher (getcwd at the start of
# main, the socketpair of the control channel in the prepare phase, close_range in the child,
# pivot_root, the fork of the command); if the launcher stops making one of them, adjust the
# markers below.
set -eu

as_root=0 runs=60
for arg in "$@"; do
        case $arg in
        --as-root) as_root=1 ;;
        -h | --help) sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *[!0-9]* | '') echo "phases.sh: unknown argument '$arg'" >&2; exit 2 ;;
        *) runs=$arg ;;
        esac
done
[ "$(id -u)" -eq 0 ] || { echo "phases.sh: needs root (perf record -a of tracepoints)" >&2; exit 1; }
command -v perf >/dev/null || { echo "phases.sh: perf is required" >&2; exit 1; }
self=$(readlink -f "$0")
repo=$(cd "$(dirname "$self")/.." && pwd)
cordon=$(readlink -f "${CORDON:-$repo/build/src/cli/cordon}")
user=root
[ $as_root -eq 1 ] || user=${BENCH_USER:-cordon-test}
home=$(getent passwd "$user" | cut -d: -f6)

work=$(mktemp -d /tmp/cordon-phases.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cp "$cordon" "$work/cordon"
mkdir "$work/proj"
chown "$user:" "$work/proj"
cat >"$work/loop.sh" <<EOF
cd "$work/proj"
for i in \$(seq $runs); do "$work/cordon" run --quiet -- /bin/true || exit 1; done
EOF
chmod 644 "$work/loop.sh"

events=()
for s in execve getcwd socketpair clone close_range pivot_root exit_group; do
        events+=(-e "syscalls:sys_enter_$s")
done
events+=(-e sched:sched_process_exit)
perf record -q -a "${events[@]}" -o "$work/perf.data" -- \
        runuser -u "$user" -- env -i HOME="$home" USER="$user" PATH=/usr/bin:/bin bash "$work/loop.sh" >/dev/null 2>&1 ||
        { echo "phases.sh: recording failed" >&2; exit 1; }
perf script -i "$work/perf.data" -F comm,tid,time,event 2>/dev/null >"$work/events.txt"

echo "# cordon run --quiet -- /bin/true as $user, $runs runs, phases by syscall tracepoints"
/usr/bin/python3 - "$work/events.txt" <<'EOF'
import re, statistics, sys

ev = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*(\S+)\s+(\d+)\s+([\d.]+):\s+\S+:(\S+):", line)
    if m:
        ev.append((float(m.group(3)), m.group(1), int(m.group(2)), m.group(4)))
ev.sort()
# A run starts where a shell exec()s cordon: its next event already carries the comm "cordon".
starts = [i for i, (t, comm, tid, e) in enumerate(ev) if e == "sys_enter_execve" and comm == "bash" and
          next((x[1] for x in ev[i + 1:] if x[2] == tid), None) == "cordon"]
names = ["exec cordon -> main() (kernel exec, ld.so, glibc init)",
         "settings, lowering, mount plan (supervisor)",
         "clone(CLONE_NEW*) -> child running",
         "id maps + filesystem -> pivot_root",
         "hostname, loopback, caps, no_new_privs -> fork",
         "fork -> execve(COMMAND)",
         "COMMAND (/bin/true) exec and run",
         "teardown: COMMAND exit -> cordon exit"]
res = [[] for _ in names]
total = []
for k, s in enumerate(starts):
    seg = ev[s:starts[k + 1] if k + 1 < len(starts) else len(ev)]
    P = seg[0][2]
    def first(pred):
        return next(x for x in seg if pred(x))
    try:
        cr = first(lambda x: x[2] != P and x[3] == "sys_enter_close_range")
        C = cr[2]
        ex = first(lambda x: x[2] not in (P, C) and x[3] == "sys_enter_execve")
        G = ex[2]
        pts = [seg[0][0],
               first(lambda x: x[2] == P and x[3] == "sys_enter_getcwd")[0],
               first(lambda x: x[2] == P and x[3] == "sys_enter_socketpair")[0],
               cr[0],
               first(lambda x: x[2] == C and x[3] == "sys_enter_pivot_root")[0],
               first(lambda x: x[2] == C and x[3] == "sys_enter_clone")[0],
               ex[0],
               first(lambda x: x[2] == G and x[3] == "sys_enter_exit_group")[0],
               first(lambda x: x[2] == P and x[3] == "sched_process_exit")[0]]
    except StopIteration:
        continue
    for i in range(len(names)):
        res[i].append((pts[i + 1] - pts[i]) * 1e3)
    total.append((pts[-1] - pts[0]) * 1e3)
if not total:
    sys.exit("phases.sh: no complete run found in the trace (did the markers change?)")
p90 = lambda v: sorted(v)[max(0, -(-9 * len(v) // 10) - 1)]
print("%-56s %9s %9s" % ("phase (%d runs)" % len(total), "median ms", "p90 ms"))
for n, v in zip(names, res):
    print("%-56s %9.3f %9.3f" % (n, statistics.median(v), p90(v)))
print("%-56s %9.3f %9.3f" % ("total", statistics.median(total), p90(total)))
EOF
