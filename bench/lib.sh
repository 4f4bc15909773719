# shellcheck shell=bash disable=SC2034,SC2154
# What the benchmarks share; sourced by bench/startup.sh, bench/config.sh, bench/notify.sh,
# bench/session.sh, bench/slurm.sh and (for the Python helpers and the stage) bench/compare.sh,
# never run. A script sources it first thing after `set -eu`, sets `iterations` (and
# `bench_has_check=1` if it takes --check), then calls bench_args "$@".
#
# It sets: self (the script, resolved), repo (the checkout above bench/), bench_name (the
# script's file name, the prefix of every message), user (BENCH_USER, default cordon-test),
# python (the distribution's python3), and with bench_args: as_root, check, iterations. Every
# directory made with bench_tmpdir or bench_stage is removed when the script exits.
#
# As root the scripts measure as BENCH_USER unless --as-root: the targets are about ordinary
# users, and root skips part of a sandbox's cost (the user namespace). bench_rerun runs the
# script again as that user from a world-readable copy (bench_stage) of itself, this file and
# the cordon binary, since the checkout may not be readable by the user.

self=$(readlink -f "$0")
repo=$(cd "$(dirname "$self")/.." && pwd)
bench_name=${self##*/}
user=${BENCH_USER:-cordon-test}
bench_lib=$(dirname "$self")/lib.sh
bench_cleanup=()
trap 'rm -rf ${bench_cleanup[@]+"${bench_cleanup[@]}"}' EXIT

bench_die() { # MESSAGE [STATUS]: the script's name and MESSAGE on stderr, then exit
        echo "$bench_name: $1" >&2
        exit "${2:-1}"
}

# The header comment of the script, from its second line to `set -eu`, without the '# '.
bench_usage() {
        sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$self"
}

# The argument loop: --as-root, --check (where bench_has_check=1), -h/--help, and one number
# that replaces $iterations. Sets as_root and check.
bench_args() {
        as_root=0 check=0
        local arg
        for arg in "$@"; do
                case $arg in
                --as-root) as_root=1 ;;
                --check) [ "${bench_has_check:-0}" -eq 1 ] || bench_die "unknown argument '$arg'" 2; check=1 ;;
                -h | --help) bench_usage; exit 0 ;;
                *[!0-9]* | '') bench_die "unknown argument '$arg'" 2 ;;
                *) iterations=$arg ;;
                esac
        done
        [ "$iterations" -gt 0 ] || bench_die "ITERATIONS must be positive" 2
}

# The cordon binary in $cordon, resolved: CORDON, or the build in the checkout.
bench_cordon() {
        cordon=${CORDON:-$repo/build/src/cli/cordon}
        [ -x "$cordon" ] || bench_die "no cordon binary at '$cordon' (build it, or set CORDON)"
        cordon=$(readlink -f "$cordon")
}

# The distribution's interpreter: a per-user one (pyenv) is not reachable by the test user.
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3) || bench_die "python3 is required"

bench_ensure_user() {
        id -u "$user" >/dev/null 2>&1 || { [ -x "$repo/tests/ensure-test-user.sh" ] && "$repo/tests/ensure-test-user.sh"; } ||
                bench_die "user '$user' is missing"
}

# bench_tmpdir VAR TEMPLATE: a new directory (mktemp -d TEMPLATE) in VAR, removed on exit.
bench_tmpdir() {
        local dir
        dir=$(mktemp -d "$2")
        bench_cleanup+=("$dir")
        printf -v "$1" %s "$dir"
}

# bench_stage PREFIX: $stage, a new world-readable directory /tmp/PREFIX.XXXXXX for the copies
# bench_rerun runs from (add the script's own extra files there before calling it).
bench_stage() {
        bench_tmpdir stage "/tmp/$1.XXXXXX"
        chmod 755 "$stage"
}

# bench_rerun HOME [NAME=VALUE...]: runs this script again as $user from $stage, with a clean
# environment plus the NAME=VALUE pairs, --check if given and $iterations; exits with its
# status. CORDON names the staged binary, WARMUP is $warmup.
bench_rerun() {
        local home=$1
        shift
        bench_ensure_user
        cp "$cordon" "$stage/cordon"
        cp "$self" "$stage/$bench_name"
        cp "$bench_lib" "$stage/lib.sh"
        chmod 755 "$stage/cordon" "$stage/$bench_name"
        chmod 644 "$stage/lib.sh"
        local flags=() status=0
        [ "$check" -eq 1 ] && flags+=(--check)
        echo "# running as $user (pass --as-root to measure as root)"
        cd "$stage" || exit
        runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
                PATH=/usr/local/bin:/usr/bin:/bin CORDON="$stage/cordon" ITERATIONS="$iterations" \
                WARMUP="$warmup" "$@" bash "$stage/$bench_name" ${flags[@]+"${flags[@]}"} "$iterations" || status=$?
        exit $status
}

bench_home_of() { # USER: the user's home directory
        getent passwd "$1" | cut -d: -f6
}

# bench_fs_of DIR: the file system DIR is on, and for ext4 whether it has a journal (without
# one, creating an inode there gets slower with every inode freed in the last minute).
bench_fs_of() {
        local t dev
        t=$(stat -f -c %T "$1" 2>/dev/null) || { echo unknown; return; }
        if [ "$t" = ext2/ext3 ]; then
                dev=$(findmnt -n -o SOURCE -T "$1" 2>/dev/null) || dev=
                dev=${dev##*/}
                case $(cat "/sys/fs/ext4/$dev/journal_task" 2>/dev/null) in
                "<none>") t="ext4 ($dev) without a journal" ;;
                "") t="ext2/3/4 ($dev)" ;;
                *) t="ext4 ($dev) with a journal" ;;
                esac
        fi
        echo "$t"
}

# bench_py [ARGS...] <<'EOF' ... EOF: runs the Python program on stdin with ARGS as sys.argv[1:],
# after the helpers in $bench_py_lib (a traceback's line numbers count them too).
bench_py() {
        "$python" - "$@" < <(printf 'BENCH_NAME = "%s"\n%s\n' "$bench_name" "$bench_py_lib"; cat)
}

IFS= read -r -d '' bench_py_lib <<'PY' || true
import os, random, sys, time


def die(msg):
    print(BENCH_NAME + ": " + msg, file=sys.stderr)
    sys.exit(1)


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def p90(v):
    s = sorted(v)
    return s[max(0, -(-9 * len(s) // 10) - 1)]  # nearest rank


def devnull_actions():
    """posix_spawn file actions: standard input, output and error on /dev/null."""
    fd = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    return [(os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, fd, 2)]


def shuffled_rounds(items, warmup, iterations, seed=1):
    """(timed, item) for every item of every round, each round in its own shuffled order so that
    no item always follows another; the first `warmup` rounds are not timed."""
    rng = random.Random(seed)
    for it in range(warmup + iterations):
        order = list(items)
        rng.shuffle(order)
        for item in order:
            yield it >= warmup, item


def cpu_busy():
    """Seconds of CPU time the whole machine spent busy, and this process and its children did."""
    with open("/proc/stat") as f:
        t = [int(x) for x in f.readline().split()[1:]]
    own = os.times()
    busy = t[0] + t[1] + t[2] + t[5] + t[6]  # user nice system irq softirq (guest is in user)
    return busy / os.sysconf("SC_CLK_TCK"), own.user + own.system + own.children_user + own.children_system


def load_mark():
    """A reading for load_line(): the machine's busy CPU time, ours, and the clock."""
    return (*cpu_busy(), time.monotonic())


def load_line(mark0, mark1, what="the timed rounds"):
    """The share of all CPUs' time that went to other work between two load_mark() readings.
    About 15% on an idle 2-CPU VM: kernel work for our processes that their rusage does not show."""
    (busy0, own0, wall0), (busy1, own1, wall1) = mark0, mark1
    ncpu = os.cpu_count() or 1
    other = max(0.0, (busy1 - busy0) - (own1 - own0)) / ((wall1 - wall0) * ncpu)
    return ("# load: %d CPUs; %.0f%% of their time went to other work during %s%s"
            % (ncpu, 100 * other, what, " (busy machine: rerun when idle)" if other > 0.3 else ""))


def print_medians(names, samples, width=10):
    """The median and p90 table in ms, one row per name; returns the medians by name."""
    print("%-*s %10s %10s" % (width, "", "median ms", "p90 ms"))
    med = {}
    for name in names:
        med[name] = median(samples[name])
        print("%-*s %10.3f %10.3f" % (width, name, med[name], p90(samples[name])))
    return med
PY
