#!/usr/bin/env bash
# What loading sandbox.conf adds to `cordon run --quiet --net isolated -- /bin/true`, measured in
# one run with the rows interleaved so machine noise hits them alike. Each row has a HOME of its
# own under a temporary directory:
#   none      no configuration file: ~/.config/cordon is removed before every run (untimed), so
#             each run is a first run (it may write the commented default sandbox.conf)
#   default   only the commented default sandbox.conf a first run writes (the state of every
#             user after the first run; the same as none while cordon writes none)
#   user      a user sandbox.conf of eight assignments
#   all       an admin baseline (CORDON_ADMIN_CONF: a root-owned file in a root-owned temporary
#             directory) + the user file + three conf.d files; needs root to set up
# Prints median and p90 per row and the differences to `none` in ms, with a verdict against the
# target: all - none <= 10 ms (agent-sandbox spends ~33 ms loading its configuration), and
# none itself costs nothing over the built-in defaults (no child is started without a file).
#
# Usage: bench/config.sh [--as-root] [--check] [ITERATIONS]
#   ITERATIONS   timed rounds (default 200, or $ITERATIONS); each round runs every row once
#   --as-root    when run as root, measure as root instead of as the unprivileged test user
#   --check      exit 1 when the target is missed (for CI); otherwise exit 0 once measured
# Environment: CORDON (binary; default build/src/cli/cordon), ITERATIONS, WARMUP (untimed rounds
#   first, default 10), BENCH_USER (default cordon-test), ADMIN_FIXTURE (set by the script
#   itself when it re-runs as BENCH_USER: the root-owned admin file).
#
# As root the script writes the admin fixture (root:root 0644 in a root:root 0755 directory)
# and, without --as-root, re-runs itself as BENCH_USER from a world-readable copy of itself and
# of the binary, as bench/startup.sh does: the target is about ordinary users. Without root
# the `all` row is left out with a note.
set -eu

as_root=0 check=0 iterations=${ITERATIONS:-200}
for arg in "$@"; do
        case $arg in
        --as-root) as_root=1 ;;
        --check) check=1 ;;
        -h | --help) sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *[!0-9]* | '') echo "config.sh: unknown argument '$arg'" >&2; exit 2 ;;
        *) iterations=$arg ;;
        esac
done
[ "$iterations" -gt 0 ] || { echo "config.sh: ITERATIONS must be positive" >&2; exit 2; }

self=$(readlink -f "$0")
repo=$(cd "$(dirname "$self")/.." && pwd)
cordon=${CORDON:-$repo/build/src/cli/cordon}
[ -x "$cordon" ] || { echo "config.sh: no cordon binary at '$cordon' (build it, or set CORDON)" >&2; exit 1; }
cordon=$(readlink -f "$cordon")
user=${BENCH_USER:-cordon-test}
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3) || { echo "config.sh: python3 is required" >&2; exit 1; }

# The admin baseline: what an HPC site might pin.
write_admin() {
        cat >"$1" <<'EOF'
# admin baseline (bench/config.sh)
NETWORK_FILTER_MODE=filtered
NETWORK_FILTER_FALLBACK=stricter
PRIVATE_TMP=true
FILTER_PASSWD=true
EXTRA_BLOCKED_PATHS=("/srv/clinical")
BLOCKED_ENV_VARS+=("SITE_LICENSE_KEY")
DENIED_WRITABLE_PATHS=("/etc" "/usr")
ALLOWED_PROJECT_PARENTS=("$HOME" "/tmp" "/var/tmp")
EOF
}

stage=""
if [ "$(id -u)" -eq 0 ]; then
        stage=$(mktemp -d /tmp/cordon-bench-config.XXXXXX)
        trap 'rm -rf "$stage"' EXIT
        chmod 755 "$stage"
        mkdir -m 755 "$stage/admin"
        write_admin "$stage/admin/sandbox.conf"
        chmod 644 "$stage/admin/sandbox.conf"
        if [ $as_root -eq 0 ]; then
                id -u "$user" >/dev/null 2>&1 || { [ -x "$repo/tests/ensure-test-user.sh" ] && "$repo/tests/ensure-test-user.sh"; } ||
                        { echo "config.sh: user '$user' is missing" >&2; exit 1; }
                cp "$cordon" "$stage/cordon"
                cp "$self" "$stage/config.sh"
                chmod 755 "$stage/cordon" "$stage/config.sh"
                flags=()
                [ $check -eq 1 ] && flags+=(--check)
                echo "# running as $user (pass --as-root to measure as root)"
                cd "$stage"
                status=0
                runuser -u "$user" -- env -i HOME=/nonexistent USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
                        PATH=/usr/local/bin:/usr/bin:/bin CORDON="$stage/cordon" ITERATIONS="$iterations" \
                        WARMUP="${WARMUP:-10}" ADMIN_FIXTURE="$stage/admin/sandbox.conf" \
                        bash "$stage/config.sh" "${flags[@]}" "$iterations" || status=$?
                exit $status
        fi
        ADMIN_FIXTURE=$stage/admin/sandbox.conf
fi

work=$(mktemp -d /tmp/cordon-bench-config-run.XXXXXX)
trap 'rm -rf "$work" ${stage:+"$stage"}' EXIT
for row in none default user all; do mkdir -p "$work/$row/proj"; done
user_conf() {
        mkdir -p "$1/.config/cordon"
        cat >"$1/.config/cordon/${2:-sandbox.conf}" <<'EOF'
# user configuration (bench/config.sh)
HOME_ACCESS=tmpwrite
READONLY_MOUNTS+=("/usr/share")
HOME_READONLY+=(".config/nvim")
ALLOWED_ENV_VARS+=("GITHUB_TOKEN")
BLOCKED_ENV_PATTERNS+=("MYAPP_*")
SANDBOX_ENV+=("PIP_NO_INPUT=1")
PRIVATE_IPC=true
SANDBOX_QUIET=true
EOF
}
user_conf "$work/user"
admin=${ADMIN_FIXTURE:-}
if [ -n "$admin" ]; then
        # Beside an admin baseline the user file is user.conf.
        user_conf "$work/all" user.conf
        mkdir -p "$work/all/.config/cordon/conf.d"
        for i in 10 20 30; do
                cat >"$work/all/.config/cordon/conf.d/$i-project.conf" <<EOF
# conf.d file $i (bench/config.sh)
[[ "\$_PROJECT_DIR" == */proj* ]] || return 0
READONLY_MOUNTS+=("/usr/share/doc")
SANDBOX_ENV+=("PROJECT_$i=1")
EOF
        done
fi

cd "$work"
status=0
"$python" - "$cordon" "$work" "$iterations" "${WARMUP:-10}" "$check" "$admin" <<'EOF' || status=$?
import os, random, shutil, subprocess, sys, time

cordon, work, iterations, warmup, check, admin = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1", sys.argv[6]
TARGET_MS = 10.0
argv = [cordon, "run", "--quiet", "--net", "isolated", "--", "/bin/true"]

def die(msg):
    print("config.sh: " + msg, file=sys.stderr)
    sys.exit(1)

def env_for(row):
    e = {"HOME": os.path.join(work, row), "PATH": "/usr/local/bin:/usr/bin:/bin",
         "LANG": "C.UTF-8", "USER": os.environ.get("USER", "")}
    if row == "all":
        e["CORDON_ADMIN_CONF"] = admin
    return e

rows = ["none", "default", "user"] + (["all"] if admin else [])
notes = [] if admin else ["not root: no admin fixture, the 'all' row is left out"]

def files_read(row):
    r = subprocess.run([cordon, "config", "show", "--json"], env=env_for(row), cwd=os.path.join(work, row, "proj"),
                       capture_output=True, text=True)
    if r.returncode != 0:
        die("cordon config show failed for %s (exit %d): %s" % (row, r.returncode, r.stderr.strip()))
    import json
    return ["%s:%s" % (f["layer"], f["path"]) for f in json.loads(r.stdout)["files"]]

def prepare(row):
    if row == "none":
        shutil.rmtree(os.path.join(work, row, ".config"), ignore_errors=True)

# The first run of `default` writes the default file (when cordon writes one).
r = subprocess.run(argv, env=env_for("default"), cwd=os.path.join(work, "default", "proj"),
                   stdin=subprocess.DEVNULL, capture_output=True, text=True)
if r.returncode != 0:
    die("first run failed (exit %d): %s" % (r.returncode, r.stderr.strip()))

devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
actions = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
           (os.POSIX_SPAWN_DUP2, devnull, 2)]

def run(row):
    prepare(row)
    env = env_for(row)
    cwd = os.getcwd()
    os.chdir(os.path.join(work, row, "proj"))
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    _, st = os.waitpid(pid, 0)
    t1 = time.perf_counter_ns()
    os.chdir(cwd)
    return t1 - t0, os.waitstatus_to_exitcode(st)

samples = {row: [] for row in rows}
rng = random.Random(1)
for it in range(warmup + iterations):
    order = list(rows)
    rng.shuffle(order)
    for row in order:
        ns, code = run(row)
        if code != 0:
            die("row %s exited with status %d; run it by hand: HOME=%s %s" % (row, code, env_for(row)["HOME"], " ".join(argv)))
        if it >= warmup:
            samples[row].append(ns / 1e6)

def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

def p90(v):
    s = sorted(v)
    return s[max(0, -(-9 * len(s) // 10) - 1)]

print("# cordon config loading: %d rounds (+%d warm-up), uid %d, kernel %s"
      % (iterations, warmup, os.getuid(), os.uname().release))
print("# cordon: %s (%s)" % (cordon, subprocess.run([cordon, "--version"], capture_output=True, text=True).stdout.strip()))
print("# command: " + " ".join(argv[1:]))
for row in rows:
    prepare(row)
    print("# files read by %-8s %s" % (row + ":", " ".join(files_read(row)) or "none"))
for n in notes:
    print("# note: " + n)
print("%-10s %10s %10s" % ("", "median ms", "p90 ms"))
med = {}
for row in rows:
    med[row] = median(samples[row])
    print("%-10s %10.3f %10.3f" % (row, med[row], p90(samples[row])))
for row in rows[1:]:
    print("difference %-15s %+8.3f ms" % (row + " - none", med[row] - med["none"]))
met = True
if "all" in med:
    d = med["all"] - med["none"]
    met = d <= TARGET_MS
    print("verdict: %s: all - none %.3f ms %s %.0f ms target (admin + user + 3 conf.d files)"
          % ("MET" if met else "MISSED", d, "<=" if met else ">", TARGET_MS))
else:
    print("verdict: none: the 'all' row needs root (see # note)")
sys.exit(1 if check and not met else 0)
EOF
exit $status
