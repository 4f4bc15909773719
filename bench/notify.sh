#!/usr/bin/env bash
# The per-call cost of the landlock backend's seccomp user notifications. With them on (Landlock,
# seccomp and Linux >= 5.14), the filter hands cordon's supervisor every open/openat/creat with
# O_CREAT, every mkdir/mkdirat, link/linkat and unlink/unlinkat the command makes (also the
# TIOCGPTPEER ioctl, and a blocking socket(AF_UNIX, SOCK_STREAM) where the network mode refuses
# it, which fails anyway: not timed here), and the call waits until the supervisor has answered
# (src/lib/mech/seccomp-filter.c, add_notify_rules(); src/lib/supervisor/notify.c), and every
# open/openat with O_NOFOLLOW but neither O_CREAT nor O_DIRECTORY (how shm_open() and sem_open()
# open an existing /dev/shm name; git >= 2.32 opens .gitignore and .gitattributes so).
# notify-ops.c, next to this script, times those calls one by one in the project directory:
# create (openat O_CREAT + close), unlink, mkdir, link, open-nofollow (openat O_NOFOLLOW of an
# existing file + close), and, not notified, rmdir and open (openat of an existing file + close,
# the baseline). Four rows, each running `notify-ops ITERATIONS` once per round,
# the rows of a round in a shuffled order so that machine noise hits them alike:
#   bare        notify-ops in the project directory, no sandbox
#   ns          cordon run --quiet --net isolated --backend ns -- ./notify-ops (a seccomp
#               filter, no notifications: the ns backend has no use for them)
#   landlock    cordon run --quiet --net isolated --backend landlock -- ./notify-ops
#   no-notify   the same under --policy with side_effect_level process_exec and the project as
#               its only workspace root: below `network` the landlock backend installs its
#               filter without a listener (the side-effect level also refuses the socket
#               calls, which notify-ops does not make); the only switch for it that cordon has
# A probe before the rounds checks that the landlock row has notifications and no-notify has
# none (a create in /dev/shm is answered by cordon's private stand-in, or refused by Landlock).
# Prints, per call, the median over the rounds of each row's mean ns per call, the ratios to
# bare and the difference landlock - no-notify (the notification's own cost). No target exists
# yet: the script reports and exits 0 once measured.
#
# Usage: bench/notify.sh [--as-root] [ITERATIONS]
#   ITERATIONS   calls of each kind per run (default 20000, or $ITERATIONS)
#   --as-root    when run as root, measure as root instead of as the unprivileged test user
# Environment: CORDON (binary; default build/src/cli/cordon), CC (compiler for notify-ops.c,
#   default cc), ITERATIONS, ROUNDS (timed rounds, default 5), WARMUP (untimed rounds first,
#   default 1), BENCH_USER (default cordon-test), BENCH_DIR (where the project directory is
#   made, default /var/tmp; a project under /tmp costs the supervisor one realpath() more per
#   notification, for its note about the host's /tmp).
#
# notify-ops is compiled on each run with `$CC -O2` into the project directory (the ns backend
# shows the sandbox little else). As root without --as-root the script re-runs itself as
# BENCH_USER from a world-readable copy of itself, notify-ops.c and the binary, as
# bench/startup.sh does.
set -eu

. "$(dirname "$(readlink -f "$0")")/lib.sh"
iterations=${ITERATIONS:-20000} warmup=${WARMUP:-1} rounds=${ROUNDS:-5}
bench_args "$@"
case $rounds in *[!0-9]* | '' | 0) bench_die "ROUNDS must be a positive number" 2 ;; esac
case $warmup in *[!0-9]* | '') bench_die "WARMUP must be a number" 2 ;; esac
bench_cordon
ops_src=$(dirname "$self")/notify-ops.c
[ -r "$ops_src" ] || bench_die "no source at '$ops_src'"
cc=${CC:-cc}
dir=${BENCH_DIR:-/var/tmp}

if [ "$(id -u)" -eq 0 ] && [ $as_root -eq 0 ]; then
        bench_stage cordon-bench-stage
        cp "$ops_src" "$stage/notify-ops.c"
        chmod 644 "$stage/notify-ops.c"
        bench_rerun "$(bench_home_of "$user")" CC="$cc" ROUNDS="$rounds" BENCH_DIR="$dir"
fi

bench_tmpdir project "$dir/cordon-bench-notify.XXXXXX"
bench_tmpdir tools /tmp/cordon-bench-notify-tools.XXXXXX
ops=$project/notify-ops
"$cc" -O2 -o "$ops" "$ops_src" || bench_die "cannot compile '$ops_src' with '$cc -O2' (set CC)"
ops_build="$cc -O2 $ops_src -> $ops ($("$cc" --version | head -n 1))"
cd "$project"
status=0
bench_py "$cordon" "$iterations" "$rounds" "$warmup" "$ops_build" "$tools" "$(bench_fs_of "$project")" <<'EOF' || status=$?
import json, subprocess

cordon, iterations, rounds, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ops_build, tools, project_fs = sys.argv[5], sys.argv[6], sys.argv[7]
project = os.getcwd()
OPS = ["create", "unlink", "mkdir", "link", "open-nofollow", "rmdir", "open"]  # notified first
NOTIFIED = {"create", "unlink", "mkdir", "link", "open-nofollow"}

policy = os.path.join(tools, "no-notify.json")
with open(policy, "w") as f:
    json.dump({"side_effect_level": "process_exec", "workspace_roots": [project]}, f)
run = [cordon, "run", "--quiet", "--net", "isolated"]
sandboxes = {"bare": [], "ns": run + ["--backend", "ns", "--"],
             "landlock": run + ["--backend", "landlock", "--"],
             "no-notify": run + ["--backend", "landlock", "--policy", policy, "--"]}
notes = []

def probe_notify(row):
    """Whether a create in /dev/shm works under the row: only cordon's stand-in answers it."""
    sh = 'f=/dev/shm/cordon-bench-notify.$$; if (: >"$f") 2>/dev/null; then rm -f "$f"; echo on; else echo off; fi'
    r = subprocess.run(sandboxes[row] + ["/bin/sh", "-c", sh], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        die("%s: the probe failed (exit %d): %s" % (row, r.returncode, r.stderr.strip()))
    return r.stdout.strip() == "on"

if not probe_notify("landlock"):
    die("the landlock backend refuses a create in /dev/shm here: it runs without notifications "
        "(see 'cordon doctor'), so there is nothing to measure")
rows = ["bare", "ns", "landlock", "no-notify"]
if probe_notify("no-notify"):
    notes.append("a policy below side_effect_level network left the notifications on (a create in "
                 "/dev/shm works; or PRIVATE_IPC=false grants the host's): no no-notify row")
    rows.remove("no-notify")

def measure(row):
    argv = sandboxes[row] + ["./notify-ops", str(iterations)]
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        die("%s exited with status %d; run it by hand in %s:\n  %s\n%s"
            % (row, r.returncode, project, " ".join(argv), r.stderr.strip()))
    got = dict(line.split() for line in r.stdout.splitlines())
    return {op: float(got[op]) for op in OPS}

samples = {row: {op: [] for op in OPS} for row in rows}
load0 = load_mark()
for timed, row in shuffled_rounds(rows, warmup, rounds):
    ns = measure(row)
    if timed:
        for op in OPS:
            samples[row][op].append(ns[op])
load1 = load_mark()
med = {row: {op: median(samples[row][op]) for op in OPS} for row in rows}

print("# cordon notifications: %d rounds (+%d warm-up) of %d calls of each kind per row, uid %d, kernel %s"
      % (rounds, warmup, iterations, os.getuid(), os.uname().release))
print("# cordon: %s (%s)" % (cordon, subprocess.run([cordon, "--version"], capture_output=True, text=True).stdout.strip()))
print("# notify-ops: compiled by this script: " + ops_build)
print("# project: %s (%s)" % (project, project_fs))
for row in rows:
    print("# %-10s %s" % (row + ":", " ".join(sandboxes[row][1:] + ["./notify-ops", str(iterations)])))
if "no-notify" in rows:
    with open(policy) as f:
        print("# no-notify policy: " + f.read())
print("# notifications: landlock on, no-notify %s (a create in /dev/shm: answered by cordon's "
      "stand-in with them, refused by Landlock without)" % ("off" if "no-notify" in rows else "on"))
print(load_line(load0, load1))
for n in notes:
    print("# note: " + n)
print("# no target: these numbers are reported, not checked")
print("%-13s %-8s" % ("ns/call", "notified") + "".join(" %10s" % row for row in rows))
for op in OPS:
    print("%-13s %-8s" % (op, "yes" if op in NOTIFIED else "no") + "".join(" %10.0f" % med[row][op] for row in rows))
ref = "no-notify" if "no-notify" in rows else "bare"
cols = [r + "/bare" for r in rows[1:]] + ["ll-" + ("nn" if ref == "no-notify" else "bare") + " ns"]
print("%-13s" % "ratio" + "".join(" %14s" % c for c in cols))
for op in OPS:
    line = "%-13s" % op + "".join(" %14.2f" % (med[row][op] / med["bare"][op]) for row in rows[1:])
    print(line + " %14.0f" % (med["landlock"][op] - med[ref][op]))
EOF
exit $status
