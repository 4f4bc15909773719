#!/usr/bin/env bash
# How long a snapshot of a session's writable state takes to write and to restore
# (src/lib/snapshot/, through tests/helpers/snapshot-tool), against issue 25's targets and
# against GNU tar with zstd on the same tree, in the same run. The tree is made once per run,
# seeded so that every run gets the same one: FILES files (default 1,000) of MBYTES MB in all
# (default 50), log-normal sizes, a third of them random bytes (as git packs, images and
# build outputs are), the rest slices of cordon's own sources and documentation (5 MB of real
# text), in 185 directories.
# Six rows, each run once per round, the rows of a round in a shuffled order so that machine
# noise hits them alike:
#   snapshot   snapshot-tool write ARCHIVE tree=TREE: pax + zstd's fast level -3 (worker
#              threads on the CPUs there are), sha256 of every file and of the archive, the
#              manifest, fsync() of the archive and of its directory
#   restore    snapshot-tool restore ARCHIVE tree=EMPTY: every entry checked, every file's
#              sha256 checked, modes and mtimes set
#   tar-c      tar --zstd -cf ARCHIVE -C TREE .  (zstd's default level 3, one thread; no hash,
#              no fsync)
#   tar-x      tar --zstd -xf ARCHIVE -C EMPTY
#   tar1-c     tar -I 'zstd --fast=3 -T0' -cf ...  (cordon's level and threads)
#   tar1-x     tar -I 'zstd -d' -xf ...
# After each round (untimed) the restored trees and the archives are removed and `sync` writes
# everything back, so that no row pays for another's dirty pages or freed blocks, and each
# writes a new archive (replacing one frees its blocks inside the timed command; with ext4's
# discard option here that took 35 ms of a rename). Before timing, one restore is compared with
# the tree (`diff -r --no-dereference`): a restore that wrote nothing would stop the script.
# Prints median and p90 per row, the archive sizes, the ratios snapshot/tar-c, restore/tar-x,
# snapshot/tar1-c and restore/tar1-x, and a verdict per target: snapshot <= 200 ms and
# restore <= 300 ms (issue 25) for 1,000 files / 50 MB.
#
# Usage: bench/snapshot.sh [--check] [ITERATIONS]
#   ITERATIONS   timed rounds (default 10, or $ITERATIONS)
#   --check      exit 1 when a target is missed (for CI); otherwise exit 0 once measured
# Environment: SNAPSHOT_TOOL (default build/tests/helpers/snapshot-tool; a release build
#   measures what users get: meson setup build-bench --buildtype=release -Dtests=enabled),
#   BENCH_DIR (where the tree, the archives and the restores go; default /var/tmp, a disk;
#   /dev/shm measures without the file system's cost), ITERATIONS, WARMUP (untimed rounds
#   first, default 2), FILES, MBYTES.
#
# Nothing here depends on the user (no namespaces): the script measures as whoever runs it.
set -eu

. "$(dirname "$(readlink -f "$0")")/lib.sh"
iterations=${ITERATIONS:-10} warmup=${WARMUP:-2} bench_has_check=1
bench_args "$@"
files=${FILES:-1000} mbytes=${MBYTES:-50}
case $files$mbytes in *[!0-9]* | '') bench_die "FILES and MBYTES must be numbers" 2 ;; esac
tool=${SNAPSHOT_TOOL:-$repo/build/tests/helpers/snapshot-tool}
[ -x "$tool" ] || bench_die "no snapshot-tool at '$tool' (meson setup -Dtests=enabled, or set SNAPSHOT_TOOL)"
tool=$(readlink -f "$tool")
command -v tar >/dev/null || bench_die "tar is required"
command -v zstd >/dev/null || bench_die "zstd is required (tar --zstd runs it)"
dir=${BENCH_DIR:-/var/tmp}
bench_tmpdir work "$dir/cordon-bench-snapshot.XXXXXX"

status=0
bench_py "$tool" "$work" "$iterations" "$warmup" "$check" "$files" "$mbytes" "$(bench_fs_of "$work")" "$repo" <<'EOF' || status=$?
import shutil, subprocess

tool, work, repo = sys.argv[1], sys.argv[2], sys.argv[9]
iterations, warmup, check = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
nfiles, mbytes, fs = int(sys.argv[6]), int(sys.argv[7]), sys.argv[8]
TARGETS = {"snapshot": 200.0, "restore": 300.0}
tree = os.path.join(work, "tree")


def source_text():
    """cordon's own sources and documentation, concatenated in name order: real text."""
    parts = []
    for top in ("src", "tests", "docs", "man", "bench"):
        for root, dirs, names in os.walk(os.path.join(repo, top)):
            dirs.sort()
            for n in sorted(names):
                if n.endswith((".c", ".h", ".cc", ".md", ".sh", ".1", ".3", ".5", ".8")):
                    with open(os.path.join(root, n), "rb") as f:
                        parts.append(f.read())
    text = b"".join(parts)
    if len(text) < 1 << 20:
        die("too little source text under %s to build the tree from" % repo)
    return text


def make_tree():
    """FILES files of MBYTES MB in all, the same every run of the same checkout."""
    rng = random.Random(25)
    text = source_text()
    weights = [rng.lognormvariate(0, 1.5) for _ in range(nfiles)]
    total = mbytes * 1000 * 1000
    sizes = [max(1, int(w / sum(weights) * total)) for w in weights]
    for i, size in enumerate(sizes):
        d = os.path.join(tree, "d%02d" % (i % 37), "s%d" % (i % 5))
        os.makedirs(d, exist_ok=True)
        if i % 3 == 0:
            data = rng.randbytes(size)
        else:
            start = rng.randrange(0, max(1, len(text) - size))
            data = (text * (1 + size // len(text)))[start:start + size]
        with open(os.path.join(d, "f%04d" % i), "wb") as f:
            f.write(data)
    return sum(sizes)


def fresh(name):
    path = os.path.join(work, name)
    shutil.rmtree(path, ignore_errors=True)
    os.mkdir(path)
    return path


snap, tarc, tar1 = (os.path.join(work, n) for n in ("snap.tar.zst", "tar.tar.zst", "tar1.tar.zst"))
rows = {
    "snapshot": lambda: [tool, "write", snap, "tree=" + tree],
    "restore": lambda: [tool, "restore", snap, "tree=" + fresh("r-snapshot")],
    "tar-c": lambda: ["tar", "--zstd", "-cf", tarc, "-C", tree, "."],
    "tar-x": lambda: ["tar", "--zstd", "-xf", tarc, "-C", fresh("r-tar")],
    "tar1-c": lambda: ["tar", "-I", "zstd --fast=3 -T0", "-cf", tar1, "-C", tree, "."],
    "tar1-x": lambda: ["tar", "-I", "zstd -d", "-xf", tar1, "-C", fresh("r-tar1")],
}
# A restore reads the archive its writer made in the same round.
order = {"snapshot": "restore", "tar-c": "tar-x", "tar1-c": "tar1-x"}

actions = devnull_actions()


def run(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
    _, st = os.waitpid(pid, 0)
    t1 = time.perf_counter_ns()
    code = os.waitstatus_to_exitcode(st)
    if code != 0:
        die("%s exited with status %d; run it by hand: %s" % (argv[0], code, " ".join(argv)))
    return (t1 - t0) / 1e6


nbytes = make_tree()
subprocess.run(["sync"], check=True)
run(rows["snapshot"]())
run(rows["restore"]())
diff = subprocess.run(["diff", "-r", "--no-dereference", tree, os.path.join(work, "r-snapshot")],
                      capture_output=True, text=True)
if diff.returncode != 0:
    die("the restored tree differs from the tree:\n" + diff.stdout[:2000])

samples = {name: [] for name in rows}
mark0 = None
for r in range(warmup + iterations):
    if r == warmup:
        mark0 = load_mark()
    # A shuffled order where each reader still comes after its writer.
    sequence = list(rows)
    random.Random(r).shuffle(sequence)
    for w, rd in order.items():
        i, j = sequence.index(w), sequence.index(rd)
        if j < i:
            sequence[i], sequence[j] = rd, w
    for name in sequence:
        ms = run(rows[name]())
        if r >= warmup:
            samples[name].append(ms)
    for name in ("r-snapshot", "r-tar", "r-tar1"):
        shutil.rmtree(os.path.join(work, name), ignore_errors=True)
    if r + 1 < warmup + iterations:
        for p in (snap, tarc, tar1):
            os.unlink(p)
    subprocess.run(["sync"], check=True)
mark1 = load_mark()

print("# snapshot: %d rounds (+%d warm-up), uid %d, kernel %s, %d CPUs"
      % (iterations, warmup, os.getuid(), os.uname().release, os.cpu_count() or 1))
print("# tool: %s" % tool)
print("# tree: %d files, %.1f MB, in %s (%s)" % (nfiles, nbytes / 1e6, work, fs))
print("# archives: snapshot %.1f MB, tar --zstd %.1f MB, tar zstd --fast=3 %.1f MB"
      % tuple(os.path.getsize(p) / 1e6 for p in (snap, tarc, tar1)))
print(load_line(mark0, mark1))
med = print_medians(list(rows), samples)
print("snapshot/tar-c   %.2f" % (med["snapshot"] / med["tar-c"]))
print("restore/tar-x    %.2f" % (med["restore"] / med["tar-x"]))
print("snapshot/tar1-c  %.2f" % (med["snapshot"] / med["tar1-c"]))
print("restore/tar1-x   %.2f" % (med["restore"] / med["tar1-x"]))
met = True
for name, target in TARGETS.items():
    ok = med[name] <= target
    met = met and ok
    print("verdict: %s: %s %.1f ms %s %.0f ms target" % ("PASS" if ok else "MISS", name, med[name],
                                                        "<=" if ok else ">", target))
sys.exit(1 if check and not met else 0)
EOF
exit $status
