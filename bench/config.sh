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

. "$(dirname "$(readlink -f "$0")")/lib.sh"
iterations=${ITERATIONS:-200} warmup=${WARMUP:-10} bench_has_check=1
bench_args "$@"
bench_cordon

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

if [ "$(id -u)" -eq 0 ]; then
        bench_stage cordon-bench-config
        mkdir -m 755 "$stage/admin"
        write_admin "$stage/admin/sandbox.conf"
        chmod 644 "$stage/admin/sandbox.conf"
        [ $as_root -eq 1 ] || bench_rerun /nonexistent ADMIN_FIXTURE="$stage/admin/sandbox.conf"
        ADMIN_FIXTURE=$stage/admin/sandbox.conf
fi

bench_tmpdir work /tmp/cordon-bench-config-run.XXXXXX
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
bench_py "$cordon" "$work" "$iterations" "$warmup" "$check" "$admin" <<'EOF' || status=$?
import json, shutil, subprocess

cordon, work, iterations, warmup, check, admin = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1", sys.argv[6]
TARGET_MS = 10.0
argv = [cordon, "run", "--quiet", "--net", "isolated", "--", "/bin/true"]

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
    return ["%s:%s" % (f["layer"], f["path"]) for f in json.loads(r.stdout)["files"]]

def prepare(row):
    if row == "none":
        shutil.rmtree(os.path.join(work, row, ".config"), ignore_errors=True)

# The first run of `default` writes the default file (when cordon writes one).
r = subprocess.run(argv, env=env_for("default"), cwd=os.path.join(work, "default", "proj"),
                   stdin=subprocess.DEVNULL, capture_output=True, text=True)
if r.returncode != 0:
    die("first run failed (exit %d): %s" % (r.returncode, r.stderr.strip()))

actions = devnull_actions()

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
for timed, row in shuffled_rounds(rows, warmup, iterations):
    ns, code = run(row)
    if code != 0:
        die("row %s exited with status %d; run it by hand: HOME=%s %s" % (row, code, env_for(row)["HOME"], " ".join(argv)))
    if timed:
        samples[row].append(ns / 1e6)

print("# cordon config loading: %d rounds (+%d warm-up), uid %d, kernel %s"
      % (iterations, warmup, os.getuid(), os.uname().release))
print("# cordon: %s (%s)" % (cordon, subprocess.run([cordon, "--version"], capture_output=True, text=True).stdout.strip()))
print("# command: " + " ".join(argv[1:]))
for row in rows:
    prepare(row)
    print("# files read by %-8s %s" % (row + ":", " ".join(files_read(row)) or "none"))
for n in notes:
    print("# note: " + n)
med = print_medians(rows, samples)
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
