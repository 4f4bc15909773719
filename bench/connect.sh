#!/usr/bin/env bash
# What a connect() costs under the landlock backend's open network. Landlock before ABI 9 does
# not keep a unix socket's connect() from the host's, so in open mode every connect() goes to
# cordon's supervisor (the OPEN_UNIX socket rule: src/lib/mech/seccomp-filter.h), which keeps
# unix sockets to the command's own and makes every other connect on its copy of the socket
# (src/lib/supervisor/notify-net.c). A Python loop in the project directory times, one by one:
#   tcp        socket() + a blocking connect() to a listener of its own on 127.0.0.1 + close()
#   tcp-nb     the same with a non-blocking socket (answered EINPROGRESS at once)
#   unix       socket(AF_UNIX) + connect() to a unix listener of its own + close()
#   udp        socket(AF_INET, SOCK_DGRAM) + connect() (no handshake) + close()
# and, not notified, socket() + close() alone (the baseline of each row). Rows, each running
# the loop once per round, the rows of a round in a shuffled order:
#   bare       the loop, no sandbox
#   ns         cordon run --quiet --net open --backend ns (the host's network, no notification)
#   landlock   cordon run --quiet --net open --backend landlock (every connect notified)
# Prints the median over the rounds of each row's mean microseconds per operation, the ratios
# to bare and the difference landlock - ns (the notification's cost, with the round trip of the
# connect made by the supervisor). No target exists: the script reports and exits 0.
#
# Usage: bench/connect.sh [--as-root] [ITERATIONS]
#   ITERATIONS   operations of each kind per run (default 2000, or $ITERATIONS)
#   --as-root    when run as root, measure as root instead of as the unprivileged test user
# Environment: CORDON (binary; default build/src/cli/cordon), ITERATIONS, ROUNDS (default 5),
#   WARMUP (default 1), BENCH_USER (default cordon-test), BENCH_DIR (default /var/tmp).
set -eu

. "$(dirname "$(readlink -f "$0")")/lib.sh"
iterations=${ITERATIONS:-2000} warmup=${WARMUP:-1} rounds=${ROUNDS:-5}
bench_args "$@"
case $rounds in *[!0-9]* | '' | 0) bench_die "ROUNDS must be a positive number" 2 ;; esac
case $warmup in *[!0-9]* | '') bench_die "WARMUP must be a number" 2 ;; esac
bench_cordon
dir=${BENCH_DIR:-/var/tmp}

if [ "$(id -u)" -eq 0 ] && [ $as_root -eq 0 ]; then
        bench_stage cordon-bench-stage
        bench_rerun "$(bench_home_of "$user")" ROUNDS="$rounds" BENCH_DIR="$dir"
fi

bench_tmpdir project "$dir/cordon-bench-connect.XXXXXX"
cat >"$project/connect-ops.py" <<'EOF'
import os, socket, sys, threading, time
n = int(sys.argv[1])
tcp = socket.socket(); tcp.bind(("127.0.0.1", 0)); tcp.listen(1024)
path = os.path.join(os.getcwd(), "connect-ops.sock")
try:
    os.unlink(path)
except FileNotFoundError:
    pass
ux = socket.socket(socket.AF_UNIX); ux.bind(path); ux.listen(1024)
def drain(s):
    while True:
        try:
            s.accept()[0].close()
        except OSError:
            return
for s in (tcp, ux):
    threading.Thread(target=drain, args=(s,), daemon=True).start()
def timed(f):
    t0 = time.perf_counter_ns()
    for _ in range(n):
        f()
    return (time.perf_counter_ns() - t0) / n / 1000.0
def c_tcp():
    s = socket.socket(); s.connect(tcp.getsockname()); s.close()
def c_tcp_nb():
    s = socket.socket(); s.setblocking(False); s.connect_ex(tcp.getsockname()); s.close()
def c_unix():
    s = socket.socket(socket.AF_UNIX); s.connect(path); s.close()
def c_udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect(("127.0.0.1", 9)); s.close()
def c_socket():
    socket.socket().close()
for name, f in (("tcp", c_tcp), ("tcp-nb", c_tcp_nb), ("unix", c_unix), ("udp", c_udp),
                ("socket", c_socket)):
    print(name, timed(f))
EOF
cd "$project"
status=0
bench_py "$cordon" "$iterations" "$rounds" "$warmup" "$(bench_fs_of "$project")" <<'EOF' || status=$?
import subprocess

cordon, iterations, rounds, warmup = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
project_fs = sys.argv[5]
project = os.getcwd()
OPS = ["tcp", "tcp-nb", "unix", "udp", "socket"]
run = [cordon, "run", "--quiet", "--net", "open"]
sandboxes = {"bare": [], "ns": run + ["--backend", "ns", "--"],
             "landlock": run + ["--backend", "landlock", "--"]}
rows = ["bare", "ns", "landlock"]

def measure(row):
    argv = sandboxes[row] + ["python3", "connect-ops.py", str(iterations)]
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        die("%s exited with status %d; run it by hand in %s:\n  %s\n%s"
            % (row, r.returncode, project, " ".join(argv), r.stderr.strip()))
    got = dict(line.split() for line in r.stdout.splitlines())
    return {op: float(got[op]) for op in OPS}

samples = {row: {op: [] for op in OPS} for row in rows}
load0 = load_mark()
for timed, row in shuffled_rounds(rows, warmup, rounds):
    us = measure(row)
    if timed:
        for op in OPS:
            samples[row][op].append(us[op])
load1 = load_mark()
med = {row: {op: median(samples[row][op]) for op in OPS} for row in rows}

print("# cordon connects: %d rounds (+%d warm-up) of %d operations of each kind per row, uid %d, kernel %s"
      % (rounds, warmup, iterations, os.getuid(), os.uname().release))
print("# cordon: %s (%s)" % (cordon, subprocess.run([cordon, "--version"], capture_output=True, text=True).stdout.strip()))
print("# project: %s (%s)" % (project, project_fs))
for row in rows:
    print("# %-10s %s" % (row + ":", " ".join(sandboxes[row][1:] + ["python3 connect-ops.py", str(iterations)])))
print(load_line(load0, load1))
print("# no target: these numbers are reported, not checked")
print("%-8s" % "us/op" + "".join(" %10s" % row for row in rows))
for op in OPS:
    print("%-8s" % op + "".join(" %10.1f" % med[row][op] for row in rows))
print("%-8s" % "ratio" + "".join(" %14s" % c for c in ["ns/bare", "landlock/bare", "ll-ns us"]))
for op in OPS:
    print("%-8s" % op + " %14.2f %14.2f %14.1f" % (med["ns"][op] / med["bare"][op],
                                                med["landlock"][op] / med["bare"][op],
                                                med["landlock"][op] - med["ns"][op]))
EOF
exit $status
