#!/usr/bin/env bash
# Startup cost of cordon against bare /bin/true, bwrap and a minimal Landlock launcher, measured
# in one run with all of them interleaved so machine noise hits them alike. Nine rows:
#   bare       /bin/true
#   cordon     cordon run --quiet --net isolated -- /bin/true (ns backend, all layers; no
#              network, as bwrap --unshare-all: filtered mode adds pasta, see bench/proxy.sh)
#   bwrap      bwrap with the mounts cordon builds, then /bin/true
#   cordon-ll  cordon run --backend landlock --quiet --net isolated -- /bin/true
#   ll-launch  bench/ll-launch.c: no-new-privs + Landlock + execvp, nothing else
#   ll-sup     ll-launch --supervised: the same under cordon-ll's processes (supervisor, reaper,
#              vfork-like child), still without seccomp or policy: how much is the structure
#   landstrip  the native binary of npm's @jarkkojs/landstrip (a Landlock-only launcher, not its
#              node wrapper) with a policy as near cordon-ll's grants for /bin/true as its
#              language allows: write only the project and /dev/null, no network (reads are
#              not restricted: landstrip has no read allowlist on Linux)
#   exec-glibc, exec-nolibc  the exec floor (x86_64): an empty program started by glibc, as
#              cordon and ll-launch are, and one without a C library, as landstrip's binary;
#              no target, they say what glibc's start-up costs on this machine
# Prints median and p90 per command, the ratios, and a verdict (PASS/MISS) against each target:
#   ns backend        cordon    <= 0.8 x bwrap
#   landlock backend  cordon-ll <= 1.3 x ll-sup (the same supervisor/reaper/child structure:
#                     the fair floor; cordon-ll/ll-launch is still printed, without a target)
#                     cordon-ll <= 1.0 x landstrip (the fastest Landlock-only peer installable)
#
# Usage: bench/startup.sh [--as-root] [--check] [ITERATIONS]
#   ITERATIONS   timed rounds (default 300, or $ITERATIONS); each round runs every command once
#   --as-root    when run as root, measure as root instead of as the unprivileged test user
#   --check      exit 1 when a target is missed (for CI); otherwise exit 0 once measured
# Environment: CORDON (binary; default build/src/cli/cordon), BWRAP (default: bwrap in PATH),
#   CC (compiler for ll-launch.c, default cc), ITERATIONS, WARMUP (untimed rounds first,
#   default 10), BENCH_USER (default cordon-test), LANDSTRIP (landstrip's native binary; empty:
#   no landstrip row), LANDSTRIP_DIR (where npm installs it, default bench/.landstrip).
#
# ll-launch is compiled on each run with `$CC -O2` into a temporary directory, from ll-launch.c
# next to this script. landstrip is installed on demand with `npm install` (no global install)
# into LANDSTRIP_DIR, which git ignores; without npm or the registry its row is skipped with a
# `# landstrip: skipped` line. As root without --as-root the script re-runs itself as BENCH_USER
# from a world-readable copy of itself, the launcher source, landstrip and the binary, because
# the targets are about unprivileged users; root hides the cost of the user namespace.
set -eu

. "$(dirname "$(readlink -f "$0")")/lib.sh"
iterations=${ITERATIONS:-300} warmup=${WARMUP:-10} bench_has_check=1
bench_args "$@"
bench_cordon
bwrap=${BWRAP:-$(command -v bwrap || true)}
ll_src=$(dirname "$self")/ll-launch.c
[ -r "$ll_src" ] || bench_die "no launcher source at '$ll_src'"
cc=${CC:-cc}

# landstrip's native binary in $landstrip, or an empty $landstrip and the reason in $landstrip_skip.
LANDSTRIP_VERSION=0.14.0
resolve_landstrip() {
        landstrip= landstrip_skip=
        if [ -n "${LANDSTRIP+set}" ]; then # given, also by the root part to its re-run
                landstrip=$LANDSTRIP landstrip_skip=${LANDSTRIP_SKIP:-LANDSTRIP is empty}
                if [ -n "$landstrip" ] && ! [ -x "$landstrip" ]; then
                        landstrip_skip="no executable at LANDSTRIP='$landstrip'" landstrip=
                fi
                return 0
        fi
        [ "$(uname -m)" = x86_64 ] || { landstrip_skip="no @jarkkojs/landstrip-linux-x64 for $(uname -m)"; return 0; }
        local dir=${LANDSTRIP_DIR:-$repo/bench/.landstrip} out
        local bin=$dir/node_modules/@jarkkojs/landstrip-linux-x64/bin/landstrip
        if ! "$bin" --version 2>/dev/null | grep -qx "landstrip $LANDSTRIP_VERSION"; then
                command -v npm >/dev/null || { landstrip_skip="npm not found (install it, or set LANDSTRIP)"; return 0; }
                mkdir -p "$dir" 2>/dev/null && [ -w "$dir" ] || { landstrip_skip="cannot write '$dir' (set LANDSTRIP_DIR)"; return 0; }
                echo "# landstrip: npm install @jarkkojs/landstrip@$LANDSTRIP_VERSION into $dir"
                if ! out=$(cd "$dir" && timeout 180 npm install --prefix "$dir" --no-save --no-package-lock \
                        --no-audit --no-fund --loglevel=error "@jarkkojs/landstrip@$LANDSTRIP_VERSION" 2>&1); then
                        landstrip_skip="npm install @jarkkojs/landstrip@$LANDSTRIP_VERSION failed: $(printf '%s\n' "$out" | grep -v '^npm warn' | tail -n 1)"
                        return 0
                fi
                "$bin" --version 2>/dev/null | grep -qx "landstrip $LANDSTRIP_VERSION" ||
                        { landstrip_skip="npm installed no landstrip $LANDSTRIP_VERSION at '$bin'"; return 0; }
        fi
        landstrip=$bin
}
resolve_landstrip

if [ "$(id -u)" -eq 0 ] && [ $as_root -eq 0 ]; then
        bench_stage cordon-bench-stage
        cp "$ll_src" "$stage/ll-launch.c"
        chmod 644 "$stage/ll-launch.c"
        if [ -n "$landstrip" ]; then
                cp "$landstrip" "$stage/landstrip"
                chmod 755 "$stage/landstrip"
                landstrip=$stage/landstrip
        fi
        bench_rerun "$(bench_home_of "$user")" BWRAP="$bwrap" CC="$cc" LANDSTRIP="$landstrip" LANDSTRIP_SKIP="$landstrip_skip"
fi

bench_tmpdir project /tmp/cordon-bench.XXXXXX
bench_tmpdir tools /tmp/cordon-bench-tools.XXXXXX
# The minimal Landlock launcher, outside the project so that it is not part of the grant.
ll_launch=$tools/ll-launch
"$cc" -O2 -o "$ll_launch" "$ll_src" ||
        bench_die "cannot compile '$ll_src' with '$cc -O2' (set CC)"
ll_build="$cc -O2 $ll_src -> $ll_launch ($("$cc" --version | head -n 1))"
# The exec floor, two empty programs: one started by glibc (as cordon and ll-launch are), one
# without a C library (landstrip's static binary links no glibc). glibc's start-up runs dozens
# of CPUID instructions, which trap to the hypervisor in a VM. x86_64 only; rows left out else.
exec_glibc= exec_nolibc=
if [ "$(uname -m)" = x86_64 ]; then
        printf 'int main(void) { return 0; }\n' >"$tools/exec-glibc.c"
        printf '%s\n' 'void _start(void) { __asm__ volatile("mov $60, %eax; xor %edi, %edi; syscall"); }' >"$tools/exec-nolibc.c"
        "$cc" -O2 -o "$tools/exec-glibc" "$tools/exec-glibc.c" && exec_glibc=$tools/exec-glibc
        "$cc" -O2 -nostdlib -static -o "$tools/exec-nolibc" "$tools/exec-nolibc.c" && exec_nolibc=$tools/exec-nolibc
fi
cd "$project"
status=0
# landstrip's policy: what cordon-ll grants /bin/true, as far as its policy language goes (reads
# are not restricted; direct network is denied by default). Outside the project, like ll-launch.
landstrip_policy=$tools/landstrip-policy.json
printf '%s\n' '{"filesystem":{"allowWrite":[".","/dev/null"]}}' >"$landstrip_policy"
bench_py "$cordon" "$bwrap" "$iterations" "$warmup" "$check" "$ll_launch" "$ll_build" \
        "$landstrip" "$landstrip_skip" "$landstrip_policy" "$(bench_fs_of /tmp)" "$exec_glibc" "$exec_nolibc" <<'EOF' || status=$?
import collections, re, subprocess, tempfile, time

cordon, bwrap, iterations, warmup, check = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
ll_launch, ll_build = sys.argv[6], sys.argv[7]
landstrip, landstrip_skip, landstrip_policy = sys.argv[8], sys.argv[9], sys.argv[10]
exec_glibc, exec_nolibc = sys.argv[12], sys.argv[13]
tmp_fs = sys.argv[11]
project = os.getcwd()
TARGET = 0.8     # ns backend: cordon <= TARGET x bwrap
LL_TARGET = 1.3  # landlock backend: cordon-ll <= LL_TARGET x ll-sup
LS_TARGET = 1.0  # landlock backend: cordon-ll <= LS_TARGET x landstrip

def probe(cmd):
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        die("%s failed (exit %d):\n%s" % (" ".join(cmd[:3]) + " ...", r.returncode, r.stderr))
    return r.stdout

def mountinfo(text):
    """Mounts as dicts, in tree order (parents before children, siblings in mount order)."""
    mounts, children = {}, {}
    for line in text.splitlines():
        if " - " not in line:
            continue
        pre, post = line.split(" - ", 1)
        f, g = pre.split(), post.split()
        m = dict(id=f[0], parent=f[1], dev=f[2], root=f[3], point=f[4].replace("\\040", " "),
                 ro="ro" in f[5].split(","), fstype=g[0], super=g[2] if len(g) > 2 else "")
        mounts[m["id"]] = m
        children.setdefault(m["parent"], []).append(m)
    tops = [m for m in mounts.values() if m["parent"] not in mounts]
    out = []
    def walk(m):
        out.append(m)
        for c in children.get(m["id"], []):
            walk(c)
    for t in tops:
        walk(t)
    return out

def tmpfs_mode(m):
    mo = re.search(r"(?:^|,)mode=([0-7]+)", m["super"])
    return mo.group(1).rjust(4, "0") if mo else "1777"

# --- What cordon builds, seen from inside. ---------------------------------------------------
base = [cordon, "run", "--quiet", "--net", "isolated", "--"]
base_ll = [cordon, "run", "--backend", "landlock", "--quiet", "--net", "isolated", "--"]
inside = probe(base + ["/bin/sh", "-c",
    'cat /proc/self/mountinfo; echo @@links; for f in /* /.[!.]*; do [ -L "$f" ] && printf "%s %s\\n" "$f" "$(readlink "$f")"; done; true'])
mi_text, links_text = inside.split("@@links\n")
mounts = mountinfo(mi_text)
root = next(m for m in mounts if m["point"] == "/")

# --- The equivalent bwrap command line. --------------------------------------------------------
# Derived from cordon's own mount table, so the comparison follows cordon as it changes.
DEV_NODES = {"/dev/" + n for n in ("null", "zero", "full", "random", "urandom", "tty")}
FD_BASE = 100  # bwrap reads data files from these descriptors; well above the memfds
data_fds, notes = [], []
for m in mounts:
    if m is not root and m["dev"] == root["dev"]:  # a file cordon wrote into its root tmpfs
        fd = os.memfd_create("bench-data", os.MFD_CLOEXEC)
        os.write(fd, probe(base + ["/bin/cat", m["point"]]).encode())
        m["fd"] = FD_BASE + len(data_fds)
        data_fds.append(fd)

def bwrap_args(proc_binds):
    """proc_binds: the read-only /proc subdirectories bwrap does not already cover itself."""
    args = [bwrap, "--unshare-all", "--die-with-parent", "--new-session"]
    late = []
    for line in links_text.splitlines():
        path, target = line.split(" ", 1)
        args += ["--symlink", target, path]
    for m in mounts:
        p, t = m["point"], m["fstype"]
        if m is root or p in DEV_NODES or (p == "/dev/pts" and t == "devpts"):
            continue  # bwrap's root is a tmpfs too; the nodes and pts are part of --dev
        if "fd" in m:
            args += ["--ro-bind-data" if m["ro"] else "--file", str(m["fd"]), p]
        elif p == "/dev" and t == "tmpfs":
            args += ["--dev", "/dev"]
            if m["ro"]:
                late += ["--remount-ro", "/dev"]
        elif p == "/proc" and t == "proc":
            args += ["--proc", "/proc"]
        elif t == "proc":
            # bwrap cannot bind a subdirectory of its own new procfs (sources are host paths),
            # so this binds the host's: the same cost, a slightly different view.
            if p in proc_binds:
                args += ["--ro-bind" if m["ro"] else "--bind", p, p]
        elif t == "tmpfs":
            args += ["--perms", tmpfs_mode(m), "--tmpfs", p]
            if m["ro"]:
                late += ["--remount-ro", p]
        elif t == "devtmpfs":
            args += ["--dev-bind", p, p]
        else:  # a host path bound at the same place
            args += ["--ro-bind" if m["ro"] else "--bind", p, p]
    args += late
    if root["ro"]:
        args += ["--remount-ro", "/"]
    return args + ["--hostname", "cordon", "--chdir", project, "--"]

base_actions = devnull_actions()
data_actions = [(os.POSIX_SPAWN_DUP2, fd, FD_BASE + i) for i, fd in enumerate(data_fds)]

def bwrap_prepare():
    for fd in data_fds:
        os.lseek(fd, 0, os.SEEK_SET)

def bwrap_mounts(args):
    bwrap_prepare()
    rd, wr = os.pipe()
    pid = os.posix_spawn(args[0], args + ["/bin/cat", "/proc/self/mountinfo"], os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, wr, 1)] + data_actions)
    os.close(wr)
    with os.fdopen(rd) as f:
        out = f.read()
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code != 0:
        die("the bwrap policy does not work (exit %d): %s" % (code, " ".join(args)))
    return collections.Counter((m["point"], m["ro"]) for m in mountinfo(out))

# The layers each sandbox really applies (sed reads its own status: inherited from the launcher),
# and whether a path outside every grant can be listed. ll-launch grants no /proc, so only the
# listing shows there.
LAYERS_SH = ('for k in NoNewPrivs Seccomp Seccomp_filters; do '
             'v=$(sed -n "s/^$k:[[:space:]]*//p" /proc/self/status 2>/dev/null); printf "%s=%s " "$k" "${v:-?}"; done; '
             'if ls /var >/dev/null 2>&1; then echo "/var listable"; else echo "/var denied"; fi')
ls_base = [landstrip, "-p", landstrip_policy] if landstrip else []
launchers = [("cordon", base), ("cordon-ll", base_ll), ("ll-launch", [ll_launch, project, "--"]),
             ("ll-sup", [ll_launch, "--supervised", project, "--"])]
if landstrip:
    launchers.append(("landstrip", ls_base))
layers = [(name, probe(launcher + ["/bin/sh", "-c", LAYERS_SH]).strip()) for name, launcher in launchers]

# A peer that confines nothing is no fair row: under the very landstrip command that is timed, a
# write next to its policy (outside the project, in a directory this user owns) must be refused
# while the same write works without landstrip, and a write in the project must work.
ls_confines = ""
if landstrip:
    WRITE_SH = 'echo x >"$1"'
    outside = os.path.join(os.path.dirname(landstrip_policy), "landstrip-write-probe")
    inside_probe = os.path.join(project, ".landstrip-write-probe")
    def sh_write(prefix, path):
        r = subprocess.run(prefix + ["/bin/sh", "-c", WRITE_SH, "sh", path], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
        made = os.path.exists(path)
        if made:
            os.unlink(path)
        return r.returncode, made, r.stderr.strip()
    code, made, _ = sh_write([], outside)
    if code != 0 or not made:
        die("control: cannot write %s without landstrip (exit %d)" % (outside, code))
    code, made, err = sh_write(ls_base, outside)
    if code == 0 or made:
        die("landstrip does not confine: a write to %s under `%s` worked (exit %d)" % (outside, " ".join(ls_base), code))
    ls_confines = "a write to %s refused (exit %d: %s)" % (outside, code, err.splitlines()[-1] if err else "no message")
    code, made, err = sh_write(ls_base, inside_probe)
    if code != 0 or not made:
        die("landstrip cannot write in the project (exit %d): %s" % (code, err))
    ls_confines += ", without landstrip it works, in the project it works"

commands = [("bare", ["/bin/true"], base_actions, None),
            ("cordon", base + ["/bin/true"], base_actions, None)]
args = []
if bwrap and os.access(bwrap, os.X_OK):
    # bwrap covers some of /proc/{sys,sysrq-trigger,irq,bus} by itself, depending on who runs it.
    seen = bwrap_mounts(bwrap_args(set()))
    args = bwrap_args({m["point"] for m in mounts if m["fstype"] == "proc" and (m["point"], m["ro"]) not in seen})
    seen = bwrap_mounts(args)
    want = collections.Counter((m["point"], m["ro"]) for m in mounts)
    for (point, ro), n in sorted((want - seen).items()):
        notes.append("bwrap lacks %s%s (%s)" % (point, " x%d" % n if n > 1 else "", "ro" if ro else "rw"))
    for (point, ro), n in sorted((seen - want).items()):
        notes.append("bwrap adds %s%s (%s)" % (point, " x%d" % n if n > 1 else "", "ro" if ro else "rw"))
    commands.append(("bwrap", args + ["/bin/true"], base_actions + data_actions, bwrap_prepare))
else:
    notes.append("bwrap not found: no ns-backend verdict")
commands += [("cordon-ll", base_ll + ["/bin/true"], base_actions, None),
             ("ll-launch", [ll_launch, project, "--", "/bin/true"], base_actions, None),
             ("ll-sup", [ll_launch, "--supervised", project, "--", "/bin/true"], base_actions, None)]
if landstrip:
    commands.append(("landstrip", ls_base + ["/bin/true"], base_actions, None))
if exec_glibc and exec_nolibc:
    commands += [("exec-glibc", [exec_glibc], base_actions, None),
                 ("exec-nolibc", [exec_nolibc], base_actions, None)]

def run(argv, actions, prepare, env=os.environ):
    if prepare:
        prepare()
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    _, st = os.waitpid(pid, 0)
    t1 = time.perf_counter_ns()
    return t1 - t0, os.waitstatus_to_exitcode(st)

def tmp_mkdir_us(n=9):
    """Median µs of a mkdir+rmdir in /tmp, where cordon-ll makes its private TMPDIR on every run.
    On ext4 without a journal the inode allocator skips every inode freed there in the last
    minute (reading each one's inode block), so this grows with /tmp's churn, ours included."""
    ts = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        d = tempfile.mkdtemp(prefix="cordon-bench-mkdir.", dir="/tmp")
        ts.append((time.perf_counter_ns() - t0) / 1e3)
        os.rmdir(d)
    return median(ts)

samples = {name: [] for name, *_ in commands}
mkdir_before = tmp_mkdir_us()
load0 = load_mark()
for timed, (name, argv, actions, prepare) in shuffled_rounds(commands, warmup, iterations):
    ns, code = run(argv, actions, prepare)
    if code != 0:
        die("%s exited with status %d; run it by hand:\n  %s" % (name, code, " ".join(argv)))
    if timed:
        samples[name].append(ns / 1e6)
load1 = load_mark()
mkdir_after = tmp_mkdir_us()

print("# cordon startup: %d rounds (+%d warm-up), uid %d, kernel %s, project %s"
      % (iterations, warmup, os.getuid(), os.uname().release, project))
print("# cordon: %s (%s)" % (cordon, probe([cordon, "--version"]).strip()))
if args:
    print("# bwrap: " + " ".join(a for a in args if a != "--") + " -- /bin/true")
print("# ll-launch: compiled by this script: " + ll_build)
if landstrip:
    with open(landstrip_policy) as f:
        print("# landstrip: %s (%s), policy %s" % (landstrip, probe([landstrip, "--version"]).strip(), f.read().strip()))
    print("# landstrip confines: " + ls_confines)
else:
    print("# landstrip: skipped: %s (no landstrip row, no cordon-ll/landstrip verdict)" % landstrip_skip)
for name, seen_inside in layers:
    seen_inside = seen_inside.replace("NoNewPrivs=? Seccomp=? Seccomp_filters=? ", "(no /proc to read) ")
    print("# inside %-11s %s" % (name + ":", seen_inside))
print(load_line(load0, load1))
print("# /tmp: %s; mkdir+rmdir there %.0f us before the timed rounds, %.0f us after (cordon-ll makes its TMPDIR there)"
      % (tmp_fs, mkdir_before, mkdir_after))
for n in notes:
    print("# note: " + n)
med = print_medians([name for name, *_ in commands], samples)

def ratio(a, b):
    r = med[a] / med[b]
    extra = "   (overhead %.3f ms)" % (med[a] - med[b]) if b == "bare" else ""
    print("ratio %-19s %5.2f%s" % (a + "/" + b, r, extra))
    return r

def verdict(a, b, target):
    r = med[a] / med[b]
    ok = r <= target
    print("verdict: %s: %s/%s %.2f %s %.2f target (%s median must be <= %.3f ms, is %.3f ms)"
          % ("PASS" if ok else "MISS", a, b, r, "<=" if ok else ">", target, a, target * med[b], med[a]))
    return ok

ratio("cordon", "bare")
if "bwrap" in med:
    ratio("bwrap", "bare")
    ratio("cordon", "bwrap")
ratio("cordon-ll", "bare")
ratio("ll-launch", "bare")
ratio("cordon-ll", "ll-launch")
ratio("ll-sup", "ll-launch")
ratio("cordon-ll", "ll-sup")
if "landstrip" in med:
    ratio("landstrip", "bare")
    ratio("landstrip", "ll-sup")
    ratio("cordon-ll", "landstrip")
if "exec-glibc" in med:
    print("# exec floor: an empty program started by glibc %.3f ms, one without a C library %.3f ms:"
          " glibc's start costs %.3f ms here, which cordon-ll and ll-launch pay and landstrip does not"
          % (med["exec-glibc"], med["exec-nolibc"], med["exec-glibc"] - med["exec-nolibc"]))
met = True
if "bwrap" in med:
    met &= verdict("cordon", "bwrap", TARGET)
else:
    print("verdict: n/a: cordon/bwrap (no bwrap to compare with)")
met &= verdict("cordon-ll", "ll-sup", LL_TARGET)
if "landstrip" in med:
    met &= verdict("cordon-ll", "landstrip", LS_TARGET)
else:
    print("verdict: n/a: cordon-ll/landstrip (landstrip skipped: %s)" % landstrip_skip)
sys.exit(1 if check and not met else 0)
EOF
exit $status
