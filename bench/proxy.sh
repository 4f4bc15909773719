#!/usr/bin/env bash
# The egress proxy and the filtered network against the direct path, in one run over the test
# internet's veth (tests/lib/testnet.sh, built here and torn down on exit). Root only. A
# benchmark, not a test: it prints numbers and verdicts, and fails only when something breaks.
#
#   bench/proxy.sh [--rounds N] [--size MIB] [--conns N] [--tunnels N] [--starts N] [--rate R]
#
#   bulk     one HTTP GET of SIZE MiB (default 256) by curl, timed by curl itself
#            (speed_download), N rounds (default 7), every path once per round in a shuffled
#            order: direct; through proxy-harness (CONNECT, --proxytunnel) with pipes of 16, 64
#            and 256 KiB; `cordon run --net proxied` (supervisor + proxy, the real path);
#            `cordon run --net filtered` (pasta + firewall); a bare pasta-attached namespace
#            (pasta alone, the flags cordon uses). Target: proxied/direct >= 0.9. Twice: on the
#            bare veth (memory speed, so the CPUs are the bottleneck and the proxy's extra
#            loopback hop shows in full), then with the remote end's veth shaped by tc tbf to
#            R (default 8gbit, about 1 GB/s: a fast real link is the bottleneck); --rate ''
#            skips the second.
#   connect  CONNS (default 2000) sequential short connections to a TCP echo, one client
#            process, alternating direct and through proxy-harness (CONNECT to an address, wait
#            for 200, send "ping", read it back, close); the added ms is the difference of the
#            medians. Target <= 0.3 ms.
#   tunnels  TUNNELS (default 1000) CONNECT tunnels open at once through proxy-harness, each
#            answering an echo; the harness's VmRSS before and with them open, per tunnel.
#            Then the same from inside `cordon run --net proxied`, reading the VmRSS of the
#            cordon process (the supervisor, where the proxy runs). Target <= 64 KiB.
#   startup  `cordon run --quiet --net filtered -- /bin/true` against `--net isolated`,
#            interleaved, STARTS rounds (default 40).
#
# Environment: CORDON (default build/src/cli/cordon), HARNESS (default
# build/tests/helpers/proxy-harness). A release build measures what users get:
#   meson setup build-bench --buildtype=release -Dtests=enabled && ninja -C build-bench
#   CORDON=build-bench/src/cli/cordon HARNESS=build-bench/tests/helpers/proxy-harness bench/proxy.sh
#
# The remote end is a small Python server run in the test internet's namespace: HTTP with
# os.sendfile() of a file in the page cache (thread per connection) and a TCP echo on one
# selectors loop (a thousand connections without a thousand threads). Its own cost is well
# below the veth's: it never copies the payload through user space.
set -u
PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=7 size=256 conns=2000 tunnels=1000 starts=40 rate=8gbit
while [ $# -gt 0 ]; do
        case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --size) size=$2; shift 2 ;;
        --conns) conns=$2; shift 2 ;;
        --tunnels) tunnels=$2; shift 2 ;;
        --starts) starts=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        *) echo "usage: bench/proxy.sh [--rounds N] [--size MIB] [--conns N] [--tunnels N] [--starts N] [--rate R]" >&2; exit 2 ;;
        esac
done
die() { echo "proxy.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (the test internet needs it)"
cordon=$(readlink -f "${CORDON:-$repo/build/src/cli/cordon}")
harness=$(readlink -f "${HARNESS:-$repo/build/tests/helpers/proxy-harness}")
[ -x "$cordon" ] || die "no cordon binary at '$cordon' (build it, or set CORDON)"
[ -x "$harness" ] || die "no proxy-harness at '$harness' (meson setup -Dtests=enabled, or set HARNESS)"
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3) || die "python3 is required"
pasta=$(command -v pasta) || die "pasta is required (apt-get install passt)"
command -v curl >/dev/null || die "curl is required"

work=$(mktemp -d /tmp/cordon-bench-proxy.XXXXXX)
chmod 755 "$work"
net_env='' pids=()
cleanup() {
        local p
        for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
        for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
        [ -n "$net_env" ] && "$repo/tests/lib/testnet.sh" down "$net_env"
        rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

net_env=$("$repo/tests/lib/testnet.sh" up --owner $$) || die "cannot bring the test internet up"
# shellcheck disable=SC1090 # the test internet's state file, made above
. "$net_env"
host=$NET_OK_ADDR http_port=9080 echo_port=9007

# The payload, in the page cache.
dd if=/dev/zero of="$work/big" bs=1M count="$size" status=none || die "cannot write $work/big"

cat >"$work/remote.py" <<'EOF'
import os, selectors, socket, sys, threading
host, http_port, echo_port, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
size = os.path.getsize(path)

def listener(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(4096)
    return s

def http_one(c):
    with c:
        req = b""
        while b"\r\n\r\n" not in req:
            d = c.recv(4096)
            if not d:
                return
            req += d
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                  b"Content-Length: %d\r\nConnection: close\r\n\r\n" % size)
        fd = os.open(path, os.O_RDONLY)
        try:
            off = 0
            while off < size:
                n = os.sendfile(c.fileno(), fd, off, size - off)
                if n <= 0:
                    break
                off += n
        except OSError:
            pass
        finally:
            os.close(fd)

def http(s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=http_one, args=(c,), daemon=True).start()

hs, es = listener(http_port), listener(echo_port)
threading.Thread(target=http, args=(hs,), daemon=True).start()
es.setblocking(False)
sel = selectors.DefaultSelector()
sel.register(es, selectors.EVENT_READ)
print("ready", flush=True)
while True:
    for key, _ in sel.select():
        if key.fileobj is es:
            try:
                c, _ = es.accept()
            except BlockingIOError:
                continue
            c.setblocking(False)
            sel.register(c, selectors.EVENT_READ)
            continue
        c = key.fileobj
        try:
            d = c.recv(65536)
        except (BlockingIOError, InterruptedError):
            continue
        except OSError:
            d = b""
        if d:
            try:
                c.send(d)
            except OSError:
                pass
        else:
            sel.unregister(c)
            c.close()
EOF
mkfifo "$work/remote.out"
ip netns exec "$NET_NS" "$python" "$work/remote.py" "$host" $http_port $echo_port "$work/big" \
        >"$work/remote.out" 2>"$work/remote.err" &
pids+=($!)
read -r -t 10 ready <"$work/remote.out" || true
[ "${ready:-}" = ready ] || die "the remote server did not start: $(cat "$work/remote.err")"

# proxy-harness, one per pipe size; HARNESS_ADDR_<bytes>=127.0.0.1:PORT.
harness_list=
for pb in 16384 65536 262144; do
        mkfifo "$work/harness-$pb.out"
        "$harness" --listen 127.0.0.1:0 --pipe-bytes $pb --max-connections $((tunnels + 100)) \
                >"$work/harness-$pb.out" 2>"$work/harness-$pb.err" &
        hp=$!
        pids+=("$hp")
        exec {hfd}<"$work/harness-$pb.out"
        read -r -t 10 word addr <&$hfd || true
        [ "${word:-}" = listening ] || die "proxy-harness did not start: $(cat "$work/harness-$pb.err")"
        harness_list+="$pb=$hp=$addr "
done

# pasta alone: a network namespace held by a sleeping process, pasta attached with cordon's flags.
unshare -Urn sleep 100000 &
holder=$!
pids+=("$holder")
sleep 0.1
timeout 3600 "$pasta" -f -q --config-net -T none -U none -t none -u none --no-map-gw \
        --runas 0:0 -P "$work/pasta.pid" "$holder" 2>"$work/pasta.err" &
pids+=($!)
for _ in $(seq 250); do [ -s "$work/pasta.pid" ] && break; sleep 0.02; done
[ -s "$work/pasta.pid" ] || die "pasta did not start: $(cat "$work/pasta.err")"

mkdir "$work/project"
cd "$work/project" || die "no project directory"
ulimit -n "$(ulimit -Hn)"
"$python" - "$cordon" "$host" "$http_port" "$echo_port" "$size" "$rounds" "$conns" "$tunnels" \
        "$starts" "$holder" "$harness_list" "$NET_NS" "ctn${NET_STATE##*/}r" "$rate" <<'EOF'
import os, random, resource, socket, statistics, subprocess, sys, time

(cordon, host, http_port, echo_port, size, rounds, conns, tunnels, starts, holder,
 harness_list, netns, rdev, rate) = sys.argv[1:]
http_port, echo_port, size = int(http_port), int(echo_port), int(size)
rounds, conns, tunnels, starts = int(rounds), int(conns), int(tunnels), int(starts)
harnesses = {}
for item in harness_list.split():
    pb, pid, addr = item.split("=")
    h, p = addr.rsplit(":", 1)
    harnesses[int(pb)] = (int(pid), (h, int(p)))
url = "http://%s:%d/big" % (host, http_port)
CURL = ["curl", "-s", "-S", "--fail", "-o", "/dev/null", "-w", "%{speed_download} %{size_download}\n"]
INNER_PROXY = "http://127.0.0.1:3128"  # the proxied mode's proxy, inside the sandbox
BULK_TARGET, CONNECT_TARGET_MS, TUNNEL_TARGET_KIB = 0.9, 0.3, 64

def die(msg):
    print("proxy.sh: " + msg, file=sys.stderr)
    sys.exit(1)

def median(v):
    return statistics.median(v)

def run(argv):
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        die("%s failed (exit %d): %s" % (" ".join(argv), r.returncode, r.stderr.strip()))
    return r.stdout

def cpu_busy():
    with open("/proc/stat") as f:
        t = [int(x) for x in f.readline().split()[1:]]
    own = os.times()
    return ((t[0] + t[1] + t[2] + t[5] + t[6]) / os.sysconf("SC_CLK_TCK"),
            own.user + own.system + own.children_user + own.children_system)

def load_line(b0, w0):
    b1, w1 = cpu_busy(), time.monotonic()
    other = max(0.0, (b1[0] - b0[0]) - (b1[1] - b0[1])) / ((w1 - w0) * (os.cpu_count() or 1))
    return "%.0f%% of the CPUs' time went to other work%s" % (
        100 * other, " (busy machine: rerun when idle)" if other > 0.3 else "")

print("# cordon proxy benchmark, %s, kernel %s, %d CPUs" % (
    time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.uname().release, os.cpu_count()))
print("# cordon: %s (%s)" % (cordon, run([cordon, "--version"]).strip()))
print("# remote: %s, HTTP %d (os.sendfile of %d MiB), TCP echo %d (one selectors loop)"
      % (host, http_port, size, echo_port))
print("# proxy-harness: %s" % ", ".join("pipe %d KiB at %s:%d" % (pb // 1024, *a) for pb, (_, a) in sorted(harnesses.items())))

# --- bulk --------------------------------------------------------------------------------------
bulk = [("direct", CURL + [url])]
for pb, (_, (h, p)) in sorted(harnesses.items()):
    bulk.append(("harness-%dk" % (pb // 1024), CURL + ["--proxytunnel", "-x", "http://%s:%d" % (h, p), url]))
bulk.append(("cordon-proxied", [cordon, "run", "--quiet", "--net", "proxied", "--"] + CURL
             + ["--proxytunnel", "-x", INNER_PROXY, url]))
bulk.append(("cordon-filtered", [cordon, "run", "--quiet", "--net", "filtered", "--"] + CURL + [url]))
bulk.append(("pasta-alone", ["nsenter", "-t", holder, "-U", "-n", "--preserve-credentials", "--"] + CURL + [url]))

def transfer(argv):
    out = run(argv).split()
    speed, got = float(out[0]), int(out[1])
    if got != size << 20:
        die("%s got %d bytes, not %d" % (" ".join(argv), got, size << 20))
    return speed / 1e6  # MB/s

rng = random.Random(1)
for name, argv in bulk:  # warm-up, and a check that every path works
    transfer(argv)

def verdict(ok, text):
    print("verdict: %s: %s" % ("MET" if ok else "MISSED", text))

def shape(rate):
    tc = ["ip", "netns", "exec", netns, "tc", "qdisc"]
    if rate:
        run(tc + ["replace", "dev", rdev, "root", "tbf", "rate", rate, "burst", "8mb", "latency", "20ms"])
    else:
        subprocess.run(tc + ["del", "dev", rdev, "root"], capture_output=True)

def bulk_run(rate):
    shape(rate)
    speeds = {name: [] for name, _ in bulk}
    b0, w0 = cpu_busy(), time.monotonic()
    for _ in range(rounds):
        order = list(bulk)
        rng.shuffle(order)
        for name, argv in order:
            speeds[name].append(transfer(argv))
    shape(None)
    link = ("the remote veth shaped to %s (tbf): the link is the bottleneck" % rate if rate else
            "the veth unshaped: memory speed, the CPUs are the bottleneck")
    print("## bulk, %s: %d MiB by curl, %d rounds, MB/s (speed_download); %s"
          % (link, size, rounds, load_line(b0, w0)))
    print("%-16s %9s %9s %9s %8s" % ("", "median", "min", "max", "/direct"))
    med = {n: median(v) for n, v in speeds.items()}
    for name, _ in bulk:
        extra = ("   (/pasta-alone %.2f)" % (med[name] / med["pasta-alone"])
                 if name == "cordon-filtered" else "")
        print("%-16s %9.0f %9.0f %9.0f %8.2f%s" % (
            name, med[name], min(speeds[name]), max(speeds[name]), med[name] / med["direct"], extra))
    for name in ["cordon-proxied"] + ["harness-%dk" % (pb // 1024) for pb in sorted(harnesses)]:
        r = med[name] / med["direct"]
        verdict(r >= BULK_TARGET, "bulk (%s) %s/direct %.2f (target >= %.2f)"
                % (rate or "unshaped", name, r, BULK_TARGET))
    print("info: bulk (%s) cordon-filtered/pasta-alone %.2f"
          % (rate or "unshaped", med["cordon-filtered"] / med["pasta-alone"]))

bulk_run(None)
if rate:
    bulk_run(rate)

# --- connection set-up ---------------------------------------------------------------------------
def recv_until(s, end):
    d = b""
    while not d.endswith(end):
        x = s.recv(4096)
        if not x:
            raise ConnectionError("closed after %r" % d)
        d += x
    return d

def echo_direct():
    t0 = time.perf_counter_ns()
    s = socket.create_connection((host, echo_port))
    s.sendall(b"ping")
    recv_until(s, b"ping")
    s.close()
    return time.perf_counter_ns() - t0

def echo_via(proxy):
    t0 = time.perf_counter_ns()
    s = socket.create_connection(proxy)
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (host.encode(), echo_port, host.encode(), echo_port))
    head = recv_until(s, b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise ConnectionError(head.decode(errors="replace"))
    s.sendall(b"ping")
    recv_until(s, b"ping")
    s.close()
    return time.perf_counter_ns() - t0

proxy16 = harnesses[min(harnesses)][1]
for _ in range(50):
    echo_direct(); echo_via(proxy16)
direct_t, proxy_t = [], []
b0, w0 = cpu_busy(), time.monotonic()
for i in range(conns):
    if i % 2:
        direct_t.append(echo_direct()); proxy_t.append(echo_via(proxy16))
    else:
        proxy_t.append(echo_via(proxy16)); direct_t.append(echo_direct())
md, mp = median(direct_t) / 1e6, median(proxy_t) / 1e6
q = lambda v, f: sorted(v)[int(f * (len(v) - 1))] / 1e6
print("## connect: %d sequential connections each way (connect, CONNECT, 200, ping echoed, close); %s"
      % (conns, load_line(b0, w0)))
print("%-16s %9s %9s %9s" % ("", "median ms", "p10 ms", "p90 ms"))
print("%-16s %9.3f %9.3f %9.3f" % ("direct", md, q(direct_t, .1), q(direct_t, .9)))
print("%-16s %9.3f %9.3f %9.3f" % ("harness", mp, q(proxy_t, .1), q(proxy_t, .9)))
verdict(mp - md <= CONNECT_TARGET_MS, "connect adds %.3f ms at the median (target <= %.1f ms)"
        % (mp - md, CONNECT_TARGET_MS))

# --- concurrent tunnels --------------------------------------------------------------------------
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

def status(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])

def meminfo():
    with open("/proc/meminfo") as f:
        return {l.split(":")[0]: int(l.split()[1]) for l in f}

def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))

print("## tunnels: %d CONNECT tunnels open at once through proxy-harness, each echoing once" % tunnels)
print("%-16s %9s %9s %12s %12s %9s" % ("pipe", "errors", "fds", "VmRSS KiB", "KiB/tunnel", "Slab KiB/t"))
for pb, (pid, proxy) in sorted(harnesses.items()):
    echo_via(proxy)  # warm
    rss0, fd0, m0 = status(pid, "VmRSS"), fds(pid), meminfo()
    socks, errors = [], 0
    for _ in range(tunnels):
        try:
            s = socket.create_connection(proxy, timeout=10)
            s.sendall(b"CONNECT %s:%d HTTP/1.1\r\n\r\n" % (host.encode(), echo_port))
            socks.append(s)
        except OSError:
            errors += 1
    for s in socks:
        try:
            head = recv_until(s, b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise ConnectionError(head)
            s.sendall(b"ping")
            recv_until(s, b"ping")
        except (OSError, ConnectionError):
            errors += 1
    time.sleep(0.2)
    rss1, fd1, m1 = status(pid, "VmRSS"), fds(pid), meminfo()
    for s in socks:
        s.close()
    per = (rss1 - rss0) / tunnels
    slab = (m1["Slab"] - m0["Slab"]) / tunnels
    print("%-16s %9d %9d %5d->%-6d %12.1f %9.1f" % (
        "%d KiB" % (pb // 1024), errors, fd1 - fd0, rss0, rss1, per, slab))
    verdict(errors == 0 and per <= TUNNEL_TARGET_KIB,
            "%d tunnels (pipe %d KiB): %d errors, %.1f KiB VmRSS per tunnel (target 0 errors, <= %d KiB)"
            % (tunnels, pb // 1024, errors, per, TUNNEL_TARGET_KIB))
    time.sleep(0.5)
# The real path: the proxy in cordon's supervisor, the tunnels opened from inside the sandbox.
INSIDE = r"""
import resource, socket, sys
s, h = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (h, h))
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def until(s, end):
    d = b""
    while not d.endswith(end):
        x = s.recv(4096)
        if not x:
            raise ConnectionError(d)
        d += x
    return d
def one():
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\n\r\n" % (host.encode(), port))
    return s
one().close()
print("ready", flush=True); sys.stdin.readline()
socks, errors = [], 0
for _ in range(n):
    try:
        socks.append(one())
    except OSError:
        errors += 1
for s in socks:
    try:
        if not until(s, b"\r\n\r\n").startswith(b"HTTP/1.1 200"):
            raise ConnectionError()
        s.sendall(b"ping"); until(s, b"ping")
    except (OSError, ConnectionError):
        errors += 1
print("open %d" % errors, flush=True); sys.stdin.readline()
"""
sup = subprocess.Popen([cordon, "run", "--quiet", "--net", "proxied", "--", "python3", "-c", INSIDE,
                        host, str(echo_port), str(tunnels)],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
if sup.stdout.readline().strip() != "ready":
    die("the sandbox for the supervisor's tunnels did not start")
time.sleep(0.2)
rss0 = status(sup.pid, "VmRSS")
sup.stdin.write("\n"); sup.stdin.flush()
line = sup.stdout.readline().split()
if not line or line[0] != "open":
    die("the sandbox's tunnels failed: %r" % line)
time.sleep(0.2)
rss1, sfds = status(sup.pid, "VmRSS"), fds(sup.pid)
sup.stdin.write("\n"); sup.stdin.flush()
sup.wait()
per = (rss1 - rss0) / tunnels
print("%-16s %9d %9d %5d->%-6d %12.1f %9s" % ("supervisor 16K", int(line[1]), sfds, rss0, rss1, per, "-"))
verdict(int(line[1]) == 0 and per <= TUNNEL_TARGET_KIB,
        "%d tunnels through cordon run --net proxied: %s errors, %.1f KiB of the supervisor's VmRSS per tunnel"
        " (target 0 errors, <= %d KiB)" % (tunnels, line[1], per, TUNNEL_TARGET_KIB))
print("info: Slab/t is the whole kernel's slab growth per tunnel, so it counts all four sockets of a"
      " tunnel (this client's, the proxy's two, the echo server's); a pipe holds pages only while"
      " bytes are in flight, at most 2 x pipe bytes per tunnel")

# --- start-up: filtered against isolated ------------------------------------------------------------
def spawn_time(argv):
    devnull = os.open(os.devnull, os.O_RDWR)
    acts = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=acts)
    _, st = os.waitpid(pid, 0)
    t = time.perf_counter_ns() - t0
    os.close(devnull)
    if os.waitstatus_to_exitcode(st) != 0:
        die("%s failed" % " ".join(argv))
    return t / 1e6

starters = [(m, [cordon, "run", "--quiet", "--net", m, "--", "/bin/true"]) for m in ("isolated", "filtered", "proxied")]
for _, argv in starters * 3:
    spawn_time(argv)
st = {m: [] for m, _ in starters}
b0, w0 = cpu_busy(), time.monotonic()
for _ in range(starts):
    order = list(starters)
    rng.shuffle(order)
    for m, argv in order:
        st[m].append(spawn_time(argv))
print("## startup: cordon run --quiet --net MODE -- /bin/true, %d rounds (+3 warm-up); %s" % (starts, load_line(b0, w0)))
print("%-16s %9s %9s %9s" % ("", "median ms", "p90 ms", "/isolated"))
for m, _ in starters:
    print("%-16s %9.2f %9.2f %9.2f" % (m, median(st[m]), q([x * 1e6 for x in st[m]], .9), median(st[m]) / median(st["isolated"])))
print("info: filtered adds %.2f ms over isolated, proxied %.2f ms" % (
    median(st["filtered"]) - median(st["isolated"]), median(st["proxied"]) - median(st["isolated"])))
EOF
