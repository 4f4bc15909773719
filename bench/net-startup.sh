#!/usr/bin/env bash
# Startup cost of the default network mode (filtered: pasta + nftables + cordon's resolver)
# against isolated, measured in one run with the commands interleaved so machine noise hits
# them alike. Rows:
#   isolated   cordon run --quiet --net isolated -- /bin/true
#   default    cordon run --quiet -- /bin/true (filtered, as nothing is configured)
#   proxied    cordon run --quiet --net proxied -- /bin/true
#   pasta      pasta alone, with cordon's options, attached to a fresh user+network namespace
#              (unshare -Urn): spawned until it says it is ready (its pid on -P), then killed
#   pasta-exit the same pasta, from SIGKILL until it has exited (cordon does not wait for it)
# Prints median and p90 per row, default/isolated and proxied/isolated, and a verdict (PASS/MISS)
# against the target: default <= 2.0 x isolated.
#
# Usage: bench/net-startup.sh [--check] [ITERATIONS]          (root only)
#   ITERATIONS   timed rounds (default 60, or $ITERATIONS); each round runs every row once
#   --check      exit 1 when the target is missed
# Environment: CORDON (binary; default build/src/cli/cordon), BENCH_USER (default cordon-test),
#   WARMUP (untimed rounds first, default 5), CORDON_BEFORE (another build, e.g. of the commit
#   before a change: adds the rows isolated@before and default@before to the same rounds).
#
# The targets are about unprivileged users, and pasta as root behaves differently (it drops to
# nobody), so the rounds run as BENCH_USER. That user's pasta needs /dev/net/tun read-write, which
# hosts without udev (0600) refuse: the script runs the rounds in a private mount namespace of its
# own (unshare -m) where a tun device node of mode 0666, made on a private tmpfs, is bound over
# /dev/net/tun. The host's device and its mode are never touched; the namespace goes when the
# script ends. Before timing, one banner proves the default run delivered filtered (no fallback).
set -eu

. "$(dirname "$(readlink -f "$0")")/lib.sh"
iterations=${ITERATIONS:-60} warmup=${WARMUP:-5} bench_has_check=1
bench_args "$@"
bench_cordon
pasta=$(command -v pasta || true)
[ -n "$pasta" ] || bench_die "pasta is required (apt-get install passt)"

if [ "${BENCH_NET_INNER:-0}" != 1 ]; then
        [ "$(id -u)" -eq 0 ] || bench_die "needs root (a private mount namespace with a usable /dev/net/tun)"
        bench_ensure_user
        bench_stage cordon-net-startup
        cp "$cordon" "$stage/cordon"
        before=
        if [ -n "${CORDON_BEFORE:-}" ]; then
                cp "$(readlink -f "$CORDON_BEFORE")" "$stage/cordon-before"
                chmod 755 "$stage/cordon-before"
                before=$stage/cordon-before
        fi
        cp "$self" "$stage/$bench_name"
        cp "$bench_lib" "$stage/lib.sh"
        chmod 755 "$stage/cordon" "$stage/$bench_name"
        chmod 644 "$stage/lib.sh"
        mkdir "$stage/proj" "$stage/tun"
        chown "$user:" "$stage/proj"
        flags=()
        [ "$check" -eq 1 ] && flags+=(--check)
        echo "# running as $user in a private mount namespace with /dev/net/tun 0666 (the host's is $(stat -c %a /dev/net/tun))"
        home=$(bench_home_of "$user")
        status=0
        # shellcheck disable=SC2016
        unshare -m --propagation private -- bash -c '
                set -e
                mount -t tmpfs -o mode=755 tmpfs "$1/tun"
                mknod -m 0666 "$1/tun/tun" c 10 200
                mount --bind "$1/tun/tun" /dev/net/tun
                cd "$1/proj"
                shift
                exec runuser -u "$@"' bench "$stage" "$user" -- env -i HOME="$home" USER="$user" \
                LOGNAME="$user" LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin \
                CORDON="$stage/cordon" CORDON_BEFORE="$before" BENCH_NET_INNER=1 WARMUP="$warmup" \
                bash "$stage/$bench_name" ${flags[@]+"${flags[@]}"} "$iterations" || status=$?
        exit $status
fi

banner=$("$cordon" run -- /bin/true 2>&1 >/dev/null | grep -m1 '^cordon: backend=' || true)
echo "# default: $banner"
case $banner in
*network=filtered*) ;;
*) bench_die "the default run did not deliver filtered here: '$banner'" ;;
esac
echo "# pasta: $pasta ($(dpkg-query -W -f '${Version}' passt 2>/dev/null || echo 'version unknown'))"

bench_py "$cordon" "$pasta" "$iterations" "$warmup" "$check" "${CORDON_BEFORE:-}" <<'EOF'
import os, signal, subprocess, time

cordon, pasta, iterations, warmup, check = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
before = sys.argv[6] if len(sys.argv) > 6 else ""
rows = {
    "isolated": [cordon, "run", "--quiet", "--net", "isolated", "--", "/bin/true"],
    "default": [cordon, "run", "--quiet", "--", "/bin/true"],
    "proxied": [cordon, "run", "--quiet", "--net", "proxied", "--", "/bin/true"],
}
if before:
    rows["isolated@before"] = [before, "run", "--quiet", "--net", "isolated", "--", "/bin/true"]
    rows["default@before"] = [before, "run", "--quiet", "--", "/bin/true"]
# What cordon's mech/pasta.c passes, attached by pid.
pasta_args = ["pasta", "-f", "-q", "--config-net", "-T", "none", "-U", "none", "-t", "none",
              "-u", "none", "--no-map-gw", "--runas", "%d:%d" % (os.getuid(), os.getgid())]
actions = devnull_actions()


def run(argv):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter_ns()
    if status != 0:
        die("%s exited with status %d" % (" ".join(argv), status))
    return (t1 - t0) / 1e6


def run_pasta():
    """Ready and exit times of one pasta attached to a fresh user+network namespace."""
    holder = subprocess.Popen(["unshare", "-Urn", "--", "sleep", "60"])
    try:
        # The namespace exists once unshare has exec'd sleep.
        for _ in range(1000):
            if os.readlink("/proc/%d/exe" % holder.pid).endswith("sleep"):
                break
            time.sleep(0.001)
        r, w = os.pipe()
        t0 = time.perf_counter_ns()
        p = subprocess.Popen(pasta_args + ["-P", "/dev/fd/%d" % w, str(holder.pid)],
                             executable=pasta, pass_fds=(w,), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        said = os.read(r, 32)
        t1 = time.perf_counter_ns()
        os.close(r)
        if not said:
            die("pasta exited without saying it was ready")
        p.send_signal(signal.SIGKILL)
        p.wait()
        t2 = time.perf_counter_ns()
        return (t1 - t0) / 1e6, (t2 - t1) / 1e6
    finally:
        holder.kill()
        holder.wait()


names = list(rows) + ["pasta", "pasta-exit"]
samples = {n: [] for n in names}
mark0 = None
for timed, item in shuffled_rounds(list(rows) + ["pasta"], warmup, iterations):
    if timed and mark0 is None:
        mark0 = load_mark()
    if item == "pasta":
        ready, gone = run_pasta()
        if timed:
            samples["pasta"].append(ready)
            samples["pasta-exit"].append(gone)
    else:
        ms = run(rows[item])
        if timed:
            samples[item].append(ms)
print(load_line(mark0, load_mark()))
print("# %d rounds, %d untimed first" % (iterations, warmup))
med = print_medians(names, samples, 16)
ratio = med["default"] / med["isolated"]
print("default/isolated  %.2f  (default - isolated = %.1f ms; pasta ready alone %.1f ms)"
      % (ratio, med["default"] - med["isolated"], med["pasta"]))
print("proxied/isolated  %.2f" % (med["proxied"] / med["isolated"]))
if before:
    print("before: default@before/isolated@before  %.2f  (default@before - default = %.1f ms)"
          % (med["default@before"] / med["isolated@before"], med["default@before"] - med["default"]))
ok = ratio <= 2.0
print("verdict: default <= 2.0 x isolated: %s (%.2f; met at a default median of %.1f ms)"
      % ("PASS" if ok else "MISS", ratio, 2.0 * med["isolated"]))
sys.exit(1 if check and not ok else 0)
EOF
