#!/usr/bin/env bash
# What libcordon's sessions (include/cordon/session.h, issue 25) cost, against the targets of
# the issue, for the ns and the landlock backend. The timed side is bench/session-bench.c (built
# by meson: build/bench/session-bench), which starts its sessions as tests/helpers/session-probe
# does: the settings for the project directory, SANDBOX_BACKEND set, NETWORK_FILTER_MODE
# isolated unless said otherwise. One line per row, with median, p90, target and PASS/MISS:
#   warm exec      cordon_sandbox_exec() + cordon_exec_wait() of /bin/true in one live session
#                  against fork() + execve() + waitpid() of /bin/true from the same driver,
#                  interleaved in a random order per round.      Target <= 1.5 x (aim 1.2 x)
#   start          cordon_sandbox_start_with(CORDON_SANDBOX_SESSION) until it returns against a
#                  cold `cordon run --quiet --backend B --net isolated -- /bin/true` from the
#                  same project directory, interleaved.          Target <= 1.1 x
#                  Again in the default network mode (no NETWORK_FILTER_MODE, no --net), with
#                  DEFAULT_ROUNDS rounds, unless measuring as root (pasta as root hangs here).
#                  That mode is filtered where it can be delivered (pasta needs /dev/net/tun)
#                  and falls back otherwise: the row names the mode the sessions got.
#   suspend        cordon_sandbox_suspend() + cordon_sandbox_resume() of a session running PROCS
#                  processes (one exec of sh -c 'for i in $(seq PROCS); do sleep 1000 & done;
#                  wait'): the two calls' time.                  Target <= 5 ms
#                  Each round waits (untimed) until a walk of /proc sees every process stopped,
#                  then running again; the row's notes give that time ("until seen stopped", the
#                  walk included) and how many were not stopped yet when the call returned.
#   memory         PSS (/proc/PID/smaps_rollup) of cordon's own processes of one idle session
#                  (started, one /bin/true run and waited for): the ns backend's PID 1, or the
#                  landlock backend's reaper and its child, the confined server. Target <= 1 MiB
#                  Both are not dumpable, so only root reads their smaps_rollup: as root the
#                  script reads them itself (the sessions still belong to BENCH_USER); run
#                  directly as a user, the row is n/a.
#   snapshot       cordon_sandbox_snapshot() of a session whose temporary directory holds
#                  SNAPSHOT_FILES files of SNAPSHOT_MBYTES MB (made once, untimed, by one exec:
#                  a third random bytes, the rest slices of /usr/share's text files) into the
#                  project directory (BENCH_DIR: a disk), against `tar --zstd -cf` and
#                  `tar -I 'zstd --fast=3 -T0' -cf` of the same tree run in the same session
#                  into the same directory, interleaved.            Target <= 200 ms
#   restore        cordon_sandbox_start_with(SESSION, .restore_from = that archive) minus a
#                  plain session start of the same round (interleaved): the restore's own
#                  cost, judged; the raw start with restore is in the notes, and so is tar's
#                  extraction of its archives into the first session's temporary directory,
#                  the file system the restore writes to.           Target <= 300 ms
#                  Every restored tree is compared (untimed) with the original: paths, modes,
#                  sizes, mtimes, content.
# Ratios use the medians; the p90 column shows the noise.
#
# Usage: bench/session.sh [--as-root] [--check] [ITERATIONS]
#   ITERATIONS   timed rounds of the exec and start rows (default 200, or $ITERATIONS)
#   --as-root    when run as root, measure as root instead of as the unprivileged test user
#   --check      exit 1 when a measured row misses its target or cannot be measured
# Environment: CORDON (binary; default build/src/cli/cordon), SESSION_BENCH (default
#   build/bench/session-bench), WARMUP (untimed rounds first, default 10), SUSPEND_ROUNDS
#   (default 50), PROCS (default 100), DEFAULT_ROUNDS (default-mode start rounds, default 30;
#   0: none), MEMORY_ROUNDS (idle sessions measured, default 20), BENCH_BACKENDS (default
#   "ns landlock"), BENCH_DIR (where the project directory is made, default /var/tmp),
#   BENCH_USER (default cordon-test), SNAPSHOT_ROUNDS (default 20), SNAPSHOT_WARMUP (default 2),
#   SNAPSHOT_FILES (default 1000), SNAPSHOT_MBYTES (default 50).
#
# As root without --as-root the script reads the memory rows as root, then re-runs itself as
# BENCH_USER from a world-readable copy of itself, lib.sh, session-bench and the binary, as
# bench/startup.sh does.
set -eu

. "$(dirname "$(readlink -f "$0")")/lib.sh"
iterations=${ITERATIONS:-200} warmup=${WARMUP:-10} bench_has_check=1
suspend_rounds=${SUSPEND_ROUNDS:-50} procs=${PROCS:-100} default_rounds=${DEFAULT_ROUNDS:-30}
memory_rounds=${MEMORY_ROUNDS:-20} backends=${BENCH_BACKENDS:-ns landlock} dir=${BENCH_DIR:-/var/tmp}
snapshot_rounds=${SNAPSHOT_ROUNDS:-20} snapshot_warmup=${SNAPSHOT_WARMUP:-2}
snapshot_files=${SNAPSHOT_FILES:-1000} snapshot_mbytes=${SNAPSHOT_MBYTES:-50}
bench_args "$@"
for v in suspend_rounds procs memory_rounds snapshot_rounds snapshot_files snapshot_mbytes; do
        case ${!v} in *[!0-9]* | '' | 0) bench_die "${v^^} must be a positive number" 2 ;; esac
done
for v in warmup default_rounds snapshot_warmup; do
        case ${!v} in *[!0-9]* | '') bench_die "${v^^} must be a number" 2 ;; esac
done
for b in $backends; do
        case $b in ns | landlock) ;; *) bench_die "BENCH_BACKENDS: unknown backend '$b'" 2 ;; esac
done
bench_cordon
driver=${SESSION_BENCH:-$repo/build/bench/session-bench}
[ -x "$driver" ] || bench_die "no session-bench at '$driver' (ninja -C build, or set SESSION_BENCH)"
driver=$(readlink -f "$driver")

# The Python program, for both the memory rows read as root and the whole run: its first
# argument says which.
IFS= read -r -d '' program <<'EOF' || true
import subprocess

phase, driver, backends = sys.argv[1], sys.argv[2], sys.argv[3].split()


def rollup(pid):
    """The kB fields of /proc/PID/smaps_rollup."""
    out = {}
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            key, _, rest = line.partition(":")
            v = rest.split()
            if len(v) == 2 and v[1] == "kB":
                out[key] = int(v[0])
    return out


def memory(backend, rounds, prefix):
    """'mem BACKEND PSS RSS PRIVATE PSS-EACH...' (KiB, summed over the session's own processes)
    per idle session, or one 'memerr BACKEND REASON' line when they cannot be read."""
    lines, err = [], None
    p = subprocess.Popen(prefix + [driver, "memory", backend, str(rounds)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        if not line.startswith("pids "):
            die("session-bench said: " + line.strip())
        pids = [int(x) for x in line.split()[1:]]
        try:
            r = [rollup(pid) for pid in pids]
            pss = [x["Pss"] for x in r]
            lines.append("mem %s %d %d %d %s" % (backend, sum(pss), sum(x["Rss"] for x in r),
                         sum(x["Private_Clean"] + x["Private_Dirty"] for x in r),
                         " ".join(map(str, pss))))
        except OSError as e:
            err = err or "%s reading /proc/%d/smaps_rollup as uid %d" % (e.strerror, pids[0], os.getuid())
        p.stdin.write("next\n")
        p.stdin.flush()
    if p.wait() != 0:
        die("session-bench memory %s failed (status %d)" % (backend, p.returncode))
    return ["memerr %s %s" % (backend, err)] if err else lines


if phase == "memory":
    for b in backends:
        print("\n".join(memory(b, int(sys.argv[4]), sys.argv[5:])))
    sys.exit(0)

cordon, iterations, warmup, suspend_rounds, procs, default_rounds, memory_rounds = (
    sys.argv[4], *map(int, sys.argv[5:11]))
project_fs, check = sys.argv[11], sys.argv[12] == "1"
snapshot_rounds, snapshot_warmup, snapshot_files, snapshot_mbytes = map(int, sys.argv[13:17])


def drive(*args):
    """Runs session-bench; its samples by name (ms), and its other lines by name."""
    r = subprocess.run([driver, *map(str, args)], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die("session-bench %s failed (status %d)" % (" ".join(map(str, args)), r.returncode))
    samples, facts = {}, {}
    for line in r.stdout.splitlines():
        name, _, value = line.partition(" ")
        if name in ("procs", "mechanism", "net", "tmpdir", "tree", "archive"):
            facts[name] = value
        elif name == "late":
            samples.setdefault(name, []).append(int(value))
        else:
            samples.setdefault(name, []).append(int(value) / 1e6)
    return samples, facts


handed = os.environ.get("SESSION_MEMORY")
mem_lines = handed.splitlines() if handed is not None else None
rows = []  # (row, backend, median text, p90 text, target text, share of target or None, note)

mark0 = load_mark()
print("# %d rounds (+%d warm-up) for exec and start, %d for suspend with %d processes, %d idle "
      "sessions, %d (+%d) for snapshot and restore; uid %d, kernel %s"
      % (iterations, warmup, suspend_rounds, procs, memory_rounds, snapshot_rounds,
         snapshot_warmup, os.getuid(), os.uname().release))
print("# cordon: %s\n# session-bench: %s\n# project: %s (%s)" % (cordon, driver, os.getcwd(), project_fs))
for b in backends:
    print("\n== %s" % b)
    s, _ = drive("exec", b, iterations, warmup)
    med = print_medians(["bare", "exec"], s, width=22)
    rows.append(("warm exec / fork+exec /bin/true", b,
                 "%.2fx (%.3f/%.3f ms)" % (med["exec"] / med["bare"], med["exec"], med["bare"]),
                 "%.2fx" % (p90(s["exec"]) / p90(s["bare"])), "<= 1.50x (aim 1.20x)",
                 med["exec"] / med["bare"] / 1.5, ""))

    modes = [("isolated", iterations, warmup)]
    if default_rounds and os.getuid() != 0:
        modes.append(("default", default_rounds, min(warmup, 2)))
    elif default_rounds:
        print("# default network mode: skipped as root (pasta as root hangs on these machines)")
    for net, n, w in modes:
        s, facts = drive("start", b, n, w, net, cordon)
        s = {"%s-%s" % (k, net): v for k, v in s.items()}
        got, asked, note = (facts["net"].split(" ", 2) + ["", ""])[:3]
        if net != got:
            print("# the %s network mode here: %s%s" % (net, got, "" if got == asked else
                                                         " (asked %s%s)" % (asked, ": " + note if note else "")))
        med = print_medians(["run-" + net, "start-" + net, "resolve-" + net], s, width=22)
        st, run = med["start-" + net], med["run-" + net]
        rows.append(("session start / cold run, %s" % (net if net == got else "%s=%s" % (net, got)), b,
                     "%.2fx (%.3f/%.3f ms)" % (st / run, st, run),
                     "%.2fx" % (p90(s["start-" + net]) / p90(s["run-" + net])), "<= 1.10x",
                     st / run / 1.1, "resolve+start %.2fx" % ((st + med["resolve-" + net]) / run)))

    s, facts = drive("suspend", b, suspend_rounds, min(warmup, 3), procs)
    med = print_medians(["suspend", "resume", "cycle", "stopped", "running", "walk"], s, width=22)
    late = s["late"]
    rows.append(("suspend + resume, %s processes" % facts["procs"], b, "%.3f ms" % med["cycle"],
                 "%.3f ms" % p90(s["cycle"]), "<= 5 ms", med["cycle"] / 5.0,
                 "%s; until seen stopped %.3f ms (one /proc walk over them: %.3f ms); not yet "
                 "stopped when suspend returned: max %d, in %d of %d rounds (warm-up included)"
                 % (facts["mechanism"], med["stopped"], med["walk"], max(late),
                             sum(1 for x in late if x), len(late))))

    lines = mem_lines if mem_lines is not None else memory(b, memory_rounds, [])
    mine = [l.split() for l in lines if l.split()[1:2] == [b]]
    if mine and mine[0][0] == "memerr":
        rows.append(("idle session memory (PSS)", b, "n/a", "n/a", "<= 1024 KiB", None,
                     " ".join(mine[0][2:]) + " (not dumpable: run as root)"))
    elif mine:
        pss = [int(m[2]) for m in mine]
        rss = [int(m[3]) for m in mine]
        priv = [int(m[4]) for m in mine]
        each = "+".join("%d" % median([int(m[5 + i]) for m in mine]) for i in range(len(mine[0]) - 5))
        print("%-22s %10s %10s" % ("", "median KiB", "p90 KiB"))
        for name, v in (("pss", pss), ("rss", rss), ("private", priv)):
            print("%-22s %10d %10d" % (name, median(v), p90(v)))
        rows.append(("idle session memory (PSS)", b, "%d KiB" % median(pss), "%d KiB" % p90(pss),
                     "<= 1024 KiB", median(pss) / 1024,
                     "%s: PSS %s KiB; RSS %d, private %d KiB; %d sessions"
                     % ("PID 1" if b == "ns" else "reaper+server", each, median(rss),
                        median(priv), len(pss))))
    else:
        die("no memory samples for %s" % b)

    s, facts = drive("snapshot", b, snapshot_rounds, snapshot_warmup, snapshot_files,
                     snapshot_mbytes, os.getcwd())
    tmpdir, tmp_fs = facts["tmpdir"].split()
    nfiles, nbytes, ntext = map(int, facts["tree"].split())
    a_snap, a_tar, a_tar1 = map(int, facts["archive"].split())
    print("# tree: %d files, %.1f MB (a third random bytes, the rest slices of %.1f MB of "
          "/usr/share's text) in %s/tree (%s) inside the session" % (nfiles, nbytes / 1e6,
                                                                      ntext / 1e6, tmpdir, tmp_fs))
    print("# archives in %s (%s): snapshot %.1f MB, tar --zstd %.1f MB, tar zstd --fast=3 %.1f MB"
          % (os.getcwd(), project_fs, a_snap / 1e6, a_tar / 1e6, a_tar1 / 1e6))
    med = print_medians(["snapshot", "tar-c", "tar1-c", "start", "restore", "restore-diff",
                         "tar-x", "tar1-x"], s, width=22)
    size = "%s files / %.0f MB" % (format(nfiles, ","), nbytes / 1e6)
    snap, diff = med["snapshot"], med["restore-diff"]
    rows.append(("snapshot " + size, b, "%.1f ms" % snap, "%.1f ms" % p90(s["snapshot"]),
                 "<= 200 ms", snap / 200,
                 "tar --zstd -c %.1f ms (snapshot/tar %.2fx), tar zstd --fast=3 -T0 %.1f ms "
                 "(%.2fx); the first in the process %.1f ms; archive on %s"
                 % (med["tar-c"], snap / med["tar-c"], med["tar1-c"], snap / med["tar1-c"],
                    s["first-snapshot"][0], project_fs)))
    rows.append(("restore " + size + ", own cost", b, "%.1f ms" % diff,
                 "%.1f ms" % p90(s["restore-diff"]), "<= 300 ms", diff / 300,
                 "start with restore %.1f ms (p90 %.1f) - plain start %.1f ms; tar --zstd -x "
                 "%.1f ms (restore/tar %.2fx), tar zstd -d %.1f ms (%.2fx); into %s"
                 % (med["restore"], p90(s["restore"]), med["start"], med["tar-x"],
                    diff / med["tar-x"], med["tar1-x"], diff / med["tar1-x"], tmp_fs)))
mark1 = load_mark()

print("\n" + load_line(mark0, mark1, "the run"))
print("%-42s %-8s %-26s %-10s %-20s %-9s %-7s %s" % ("row", "backend", "median", "p90", "target",
                                                    "of target", "verdict", "notes"))
missed = 0
for row, b, m, p, target, share, note in rows:
    if share is None:
        verdict = "n/a"
        missed += 1
    else:
        verdict = "PASS" if share <= 1.0 else "MISS"
        missed += verdict == "MISS"
    print("%-42s %-8s %-26s %-10s %-20s %-9s %-7s %s" % (row, b, m, p, target,
                                                        "" if share is None else "%.2f" % share,
                                                        verdict, note))
sys.exit(1 if check and missed else 0)
EOF

if [ "$(id -u)" -eq 0 ] && [ "$as_root" -eq 0 ]; then
        bench_stage cordon-bench-session-stage
        cp "$driver" "$stage/session-bench"
        chmod 755 "$stage/session-bench"
        bench_ensure_user
        home=$(bench_home_of "$user")
        # The memory rows, read here as root from sessions that belong to the user.
        bench_tmpdir memproj "$dir/cordon-bench-session-memory.XXXXXX"
        chown "$user" "$memproj"
        echo "# memory: read as root from $user's sessions"
        memory=$(cd "$memproj" && bench_py memory "$stage/session-bench" "$backends" "$memory_rounds" \
                runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
                PATH=/usr/local/bin:/usr/bin:/bin <<<"$program")
        bench_rerun "$home" SESSION_BENCH="$stage/session-bench" SESSION_MEMORY="$memory" \
                SUSPEND_ROUNDS="$suspend_rounds" PROCS="$procs" DEFAULT_ROUNDS="$default_rounds" \
                MEMORY_ROUNDS="$memory_rounds" BENCH_BACKENDS="$backends" BENCH_DIR="$dir" \
                SNAPSHOT_ROUNDS="$snapshot_rounds" SNAPSHOT_WARMUP="$snapshot_warmup" \
                SNAPSHOT_FILES="$snapshot_files" SNAPSHOT_MBYTES="$snapshot_mbytes"
fi

bench_tmpdir project "$dir/cordon-bench-session.XXXXXX"
cd "$project"
bench_py main "$driver" "$backends" "$cordon" "$iterations" "$warmup" "$suspend_rounds" "$procs" \
        "$default_rounds" "$memory_rounds" "$(bench_fs_of "$project")" "$check" "$snapshot_rounds" \
        "$snapshot_warmup" "$snapshot_files" "$snapshot_mbytes" <<<"$program"
