#!/usr/bin/env bash
# Whether cordon's pty relay slows a command's output down, and what its supervisor costs in
# memory while it waits. Everything runs on an outer pseudo-terminal that stands in for the
# user's terminal emulator: a Python driver opens it, starts each command with the outer slave
# as stdin, stdout, stderr and controlling terminal, and reads the outer master as fast as it can.
#
# 1. Throughput: `cat FILE` of a BENCH_MIB MiB file (default 200), three ways, interleaved in a
#    shuffled order each round:
#      direct           cat FILE on the outer pty
#      BACKEND          cordon run -q --backend BACKEND -- cat FILE: the command gets a pty of
#                       its own and cordon relays inner master -> outer slave
#      BACKEND-nopty    the same with --no-pty: the sandbox without the relay, for reference
#    for each backend that works here (ns, landlock). Median MiB/s per command, the ratio to
#    direct, and a verdict against the target: relay >= 0.8 x direct.
# 2. Idle memory: `cordon run -q --backend BACKEND -- sleep 30` with and without a terminal
#    (stdin/stdout/stderr the outer slave, or /dev/null), and `sleep 30` alone as the floor of
#    any dynamically linked process. Once sleep runs: VmRSS, RssAnon, RssFile, VmHWM (status),
#    Pss and private pages (smaps_rollup) of the process started (for cordon: the supervisor)
#    and the mappings that hold the most, with a verdict against the target VmRSS <= 2 MiB.
#    Then SIGTERM to that process and a wait.
#
# The verdicts are only meaningful on an otherwise idle machine: the relay needs CPU that the
# direct path does not, and other work makes it lose (see the "# load" line).
#
# Usage: bench/pty.sh [--as-root] [ROUNDS]
#   ROUNDS       timed rounds (default 3, or $BENCH_ROUNDS); each runs every command once
#   --as-root    when run as root, measure as root instead of as the unprivileged test user
# Environment: CORDON (binary; default build-rel/src/cli/cordon, else build/src/cli/cordon),
#   BENCH_ROUNDS, BENCH_MIB (file size, default 200), BENCH_PAYLOAD (zero: NUL bytes, which no
#   terminal setting expands, the default; text: 79-character lines, each \n sent as \r\n),
#   BENCH_BACKENDS (default "ns landlock"), BENCH_DIR (where the project directory with the file
#   is made, default /var/tmp: the sandbox must be able to read it, and under the ns backend
#   /tmp is private inside), BENCH_USER (default cordon-test).
#
# The script reports; it exits 0 once measured, whether the targets are met or not.
set -euo pipefail

as_root=0 rounds=${BENCH_ROUNDS:-3}
for arg in "$@"; do
        case $arg in
        --as-root) as_root=1 ;;
        -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *[!0-9]* | '') echo "pty.sh: unknown argument '$arg'" >&2; exit 2 ;;
        *) rounds=$arg ;;
        esac
done
[ "$rounds" -gt 0 ] || { echo "pty.sh: ROUNDS must be positive" >&2; exit 2; }
mib=${BENCH_MIB:-200}
case $mib in *[!0-9]* | '' | 0) echo "pty.sh: BENCH_MIB must be a positive integer" >&2; exit 2 ;; esac
payload=${BENCH_PAYLOAD:-zero}
case $payload in zero | text) ;; *) echo "pty.sh: BENCH_PAYLOAD must be zero or text" >&2; exit 2 ;; esac

self=$(readlink -f "$0")
repo=$(cd "$(dirname "$self")/.." && pwd)
cordon=${CORDON:-}
if [ -z "$cordon" ]; then
        cordon=$repo/build-rel/src/cli/cordon
        [ -x "$cordon" ] || cordon=$repo/build/src/cli/cordon
fi
[ -x "$cordon" ] || { echo "pty.sh: no cordon binary at '$cordon' (build it, or set CORDON)" >&2; exit 1; }
cordon=$(readlink -f "$cordon")
user=${BENCH_USER:-cordon-test}
# The distribution's interpreter: a per-user one (pyenv) is not reachable by the test user.
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3) || { echo "pty.sh: python3 is required" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ] && [ $as_root -eq 0 ]; then
        id -u "$user" >/dev/null 2>&1 || { [ -x "$repo/tests/ensure-test-user.sh" ] && "$repo/tests/ensure-test-user.sh"; } ||
                { echo "pty.sh: user '$user' is missing" >&2; exit 1; }
        stage=$(mktemp -d /tmp/cordon-bench-stage.XXXXXX)
        trap 'rm -rf "$stage"' EXIT
        chmod 755 "$stage"
        cp "$cordon" "$stage/cordon"
        cp "$self" "$stage/pty.sh"
        chmod 755 "$stage/cordon" "$stage/pty.sh"
        home=$(getent passwd "$user" | cut -d: -f6)
        echo "# running as $user (pass --as-root to measure as root)"
        cd "$stage"
        status=0
        runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
                PATH=/usr/local/bin:/usr/bin:/bin CORDON="$stage/cordon" BENCH_MIB="$mib" \
                BENCH_PAYLOAD="$payload" BENCH_BACKENDS="${BENCH_BACKENDS:-ns landlock}" \
                BENCH_DIR="${BENCH_DIR:-/var/tmp}" bash "$stage/pty.sh" "$rounds" || status=$?
        exit $status
fi

project=$(mktemp -d "${BENCH_DIR:-/var/tmp}/cordon-bench-pty.XXXXXX")
trap 'rm -rf "$project"' EXIT
cd "$project"
status=0
"$python" - "$cordon" "$rounds" "$mib" "$payload" "${BENCH_BACKENDS:-ns landlock}" <<'EOF' || status=$?
import errno, fcntl, os, random, signal, struct, subprocess, sys, termios, time

cordon, rounds, mib, payload, backends = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5].split()
project = os.getcwd()
TARGET = 0.8              # relay throughput >= TARGET x direct
RSS_TARGET_KIB = 2048     # supervisor VmRSS while idle <= 2 MiB

def die(msg):
    print("pty.sh: " + msg, file=sys.stderr)
    sys.exit(1)

# --- The payload. ------------------------------------------------------------------------------
# NUL bytes pass every termios setting unchanged. Text lines are closer to real output: ONLCR
# turns each \n into \r\n exactly once on either path (the outer slave is cooked for direct; for
# cordon the inner slave is cooked and cordon puts the outer one in raw mode), so both deliver
# the same bytes and MiB/s are compared on the file's size.
path = os.path.join(project, "payload")
size = mib << 20
with open(path, "wb") as f:
    if payload == "zero":
        block = bytes(1 << 20)
    else:
        line = b"".join(bytes([0x21 + (i * 7 + j) % 94 for j in range(79)]) + b"\n" for i in range(13))
        block = (line * ((1 << 20) // len(line) + 1))[:1 << 20]
    for _ in range(mib):
        f.write(block)
    f.flush()
    os.fsync(f.fileno())  # no writeback of it while timing
expected = size + (block.count(b"\n") * mib if payload == "text" else 0)
with open(path, "rb") as f:  # into the page cache before anything is timed
    while f.read(1 << 20):
        pass

# --- The outer terminal. -----------------------------------------------------------------------
def outer_pty():
    """A pty pair like a terminal emulator's: cooked termios (the kernel's default), 120x40."""
    m, s = os.openpty()
    fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    return m, s

def take_ctty():
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)

def start(argv, on_tty=True):
    """Starts argv as a session leader with the outer slave as fds 0-2 and controlling terminal
    (or with /dev/null when not on_tty). Returns (popen, master or None)."""
    if not on_tty:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        return p, None
    m, s = outer_pty()
    p = subprocess.Popen(argv, stdin=s, stdout=s, stderr=s, start_new_session=True,
                         preexec_fn=take_ctty)
    os.close(s)  # the master gives EIO once the command and everything it started closed it
    return p, m

def drain(m, buf):
    """Reads the master until EIO; returns the number of bytes."""
    total = 0
    while True:
        try:
            n = os.readv(m, [buf])
        except OSError as e:
            if e.errno == errno.EIO:
                return total
            if e.errno == errno.EINTR:
                continue
            raise
        if n == 0:
            return total
        total += n

BUF = bytearray(1 << 16)

def stream(argv):
    """Runs argv on a fresh outer pty: (seconds from start to the master's EIO, bytes, CPU s of
    the command and its descendants, exit code)."""
    t0 = time.perf_counter()
    p, m = start(argv)
    try:
        got = drain(m, BUF)
        t1 = time.perf_counter()
    finally:
        os.close(m)
    _, st, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(st)
    return t1 - t0, got, ru.ru_utime + ru.ru_stime, p.returncode

def sandbox_works(backend):
    r = subprocess.run([cordon, "run", "-q", "--backend", backend, "--", "cat", path], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return r.returncode == 0, r.stderr.strip().splitlines()[:1] or ["exit %d" % r.returncode]

notes = []
usable = []
for b in backends:
    ok, why = sandbox_works(b)
    if ok:
        usable.append(b)
    else:
        notes.append("backend %s does not work here, skipped: %s" % (b, why[0]))

commands = [("direct", ["cat", path])]
for b in usable:
    run = [cordon, "run", "-q", "--backend", b]
    commands.append((b, run + ["--", "cat", path]))
    commands.append((b + "-nopty", run + ["--no-pty", "--", "cat", path]))

def cpu_busy():
    with open("/proc/stat") as f:
        t = [int(x) for x in f.readline().split()[1:]]
    own = os.times()
    busy = t[0] + t[1] + t[2] + t[5] + t[6]
    return busy / os.sysconf("SC_CLK_TCK"), own.user + own.system + own.children_user + own.children_system

def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

print("# cordon pty relay: %d rounds (+1 warm-up), %d MiB of %s, uid %d, kernel %s, %d CPUs"
      % (rounds, mib, "NUL bytes" if payload == "zero" else "79-character lines", os.getuid(),
         os.uname().release, os.cpu_count() or 1))
print("# cordon: %s (%s)" % (cordon, subprocess.run([cordon, "--version"], capture_output=True, text=True).stdout.strip()))
print("# project: %s" % project)
for n in notes:
    print("# note: " + n)

# The pty path hands every chunk to a kworker (the flip buffer), whose time is not in our rusage:
# measure what else runs in two idle seconds before timing rather than during it.
busy0, own0, wall0 = *cpu_busy(), time.monotonic()
time.sleep(2)
busy1, own1, wall1 = *cpu_busy(), time.monotonic()
ncpu = os.cpu_count() or 1
other = max(0.0, (busy1 - busy0) - (own1 - own0)) / ((wall1 - wall0) * ncpu)
print("# load: %.0f%% of all CPUs' time went to other work in the 2 s before timing%s"
      % (100 * other, " (busy machine: rerun when idle)" if other > 0.1 else ""))

samples = {name: [] for name, _ in commands}
cpu = {name: [] for name, _ in commands}
rng = random.Random(1)
for it in range(1 + rounds):
    order = list(commands)
    rng.shuffle(order)
    for name, argv in order:
        secs, got, cpus, code = stream(argv)
        if code != 0 or got != expected:
            die("%s: exit %d, %d bytes read where %d were expected; run it by hand:\n  %s"
                % (name, code, got, expected, " ".join(argv)))
        if it > 0:
            samples[name].append(size / secs / (1 << 20))
            cpu[name].append(cpus)

print()
print("throughput     %9s %9s %9s %9s  %s" % ("median", "min", "max", "cpu s", "x direct"))
med = {}
for name, argv in commands:
    med[name] = median(samples[name])
    print("%-14s %9.0f %9.0f %9.0f %9.2f  %s" % (
        name, med[name], min(samples[name]), max(samples[name]), median(cpu[name]),
        "" if name == "direct" else "%.2f" % (med[name] / med["direct"])))
print("(MiB/s of payload from the start of the command to the outer master's EIO; cpu s: the "
      "command and its descendants, median; kworker time for the flip buffers is not included)")
for b in usable:
    r = med[b] / med["direct"]
    print("summary: %s relay %.0f MiB/s vs direct %.0f MiB/s: ratio %.2f, target >= %.2f: %s"
          % (b, med[b], med["direct"], r, TARGET, "PASS" if r >= TARGET else "MISS"))

# --- Idle memory of the supervisor. ------------------------------------------------------------
def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for t in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    kids = [int(x) for x in f.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out

def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""

def status_kib(pid):
    v = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, rest = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "VmHWM"):
                v[k] = int(rest.split()[0])
    return v

def rollup_kib(pid):
    """Pss and private (clean + dirty) KiB from smaps_rollup, or {} when it is unreadable."""
    v = {}
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                k, _, rest = line.partition(":")
                if k in ("Pss", "Private_Clean", "Private_Dirty"):
                    v[k] = int(rest.split()[0])
    except OSError:
        return {}
    return {"Pss": v.get("Pss", -1), "Private": v.get("Private_Clean", 0) + v.get("Private_Dirty", 0)}

def by_mapping(pid):
    """Rss in KiB summed per mapped file or kind, largest first; None when smaps is unreadable."""
    sums, name = {}, None
    try:
        with open("/proc/%d/smaps" % pid) as f:
            for line in f:
                first = line.split(None, 1)[0]
                if "-" in first and not first.endswith(":"):
                    parts = line.split()
                    name = os.path.basename(parts[5]) if len(parts) > 5 else "[anon]"
                elif first == "Rss:":
                    sums[name] = sums.get(name, 0) + int(line.split()[1])
    except OSError:
        return None
    return sorted(((k, v) for k, v in sums.items() if v), key=lambda kv: -kv[1])

def idle(backend, on_tty):
    """Memory of the process started for `sleep 30` under BACKEND (None: sleep itself)."""
    argv = ([cordon, "run", "-q", "--backend", backend, "--"] if backend else []) + ["sleep", "30"]
    p, m = start(argv, on_tty)
    try:
        deadline = time.monotonic() + 10
        while not any(comm(d) == "sleep" for d in ([p.pid] if not backend else descendants(p.pid))):
            if p.poll() is not None or time.monotonic() > deadline:
                die("%s did not start sleep (exit %s)" % (" ".join(argv), p.returncode))
            time.sleep(0.02)
        time.sleep(1)  # settled: the supervisor is in its poll() loop
        st, maps = status_kib(p.pid), by_mapping(p.pid)
        st.update(rollup_kib(p.pid))
    finally:
        os.kill(p.pid, signal.SIGTERM)  # the cordon process started above, nothing else
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
        if m is not None:
            drain(m, BUF)
            os.close(m)
    return st, maps

print()
print("idle supervisor  %8s %8s %8s %8s %8s %8s   (KiB; the cordon process, sleep 30 inside)"
      % ("VmRSS", "RssAnon", "RssFile", "VmHWM", "Pss", "Private"))
results = []
for b in usable + [None]:
    for on_tty in (True, False) if b else (True,):
        name = "%s %s" % (b, "pty" if on_tty else "no tty") if b else "bare sleep"
        st, maps = idle(b, on_tty)
        results.append((name, st))
        print("%-16s %8d %8d %8d %8d %8s %8s" % (name, st["VmRSS"], st["RssAnon"], st["RssFile"], st["VmHWM"],
                                                  st.get("Pss", "?"), st.get("Private", "?")))
        if maps is None:
            print("#   by mapping: /proc/PID/smaps not readable")
        else:
            print("#   by mapping: " + ", ".join("%s %d" % kv for kv in maps[:7]))
bare = results.pop()[1]
print("(bare sleep: sleep 30 itself on the outer pty, the floor of any dynamically linked process "
      "here: libc's pages count in RssFile)")
for name, st in results:
    ok = st["VmRSS"] <= RSS_TARGET_KIB
    print("summary: idle supervisor %s: VmRSS %d KiB (%.2f MiB; %d KiB anonymous; bare sleep %d KiB), "
          "target <= %d KiB: %s" % (name, st["VmRSS"], st["VmRSS"] / 1024, st["RssAnon"], bare["VmRSS"],
                                    RSS_TARGET_KIB, "PASS" if ok else "MISS"))
EOF
exit $status
