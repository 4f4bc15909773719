#!/usr/bin/env bash
# What cordon-serve (issue 26) costs, against the issue's targets, as ratios measured in one run
# (exec is slow and noisy on our VMs: only ratios of the same run mean something). A daemon of
# its own (a scratch XDG_RUNTIME_DIR and XDG_STATE_HOME), driven by a Python client over its
# unix socket, one persistent HTTP/1.1 connection:
#   exec      POST /v1/sessions/ID/exec of /bin/true in one live session, until its ExecResult,
#             against posix_spawn() + waitpid() of /bin/true from the same client, interleaved
#             in a random order per round.                              Target <= 2 x
#   start     POST /v1/sessions {} until its 201 (the session runs; it is deleted untimed
#             afterwards, and its holder's exit awaited), against a cold `cordon run --quiet
#             --net open -- /bin/true` from a project directory, interleaved: a SandboxSpec's
#             default network policy is unrestricted, which is the open mode. Also against
#             `cordon run --quiet -- /bin/true` in the default mode, for the record.
#                                                                       Target <= 1.2 x
#   idle      SESSIONS (default 1000) sessions created and left idle: every one listed and
#             answering an exec of /bin/true; after a second without requests, the PSS
#             (/proc/PID/smaps_rollup) of
#             cordon's own processes (the daemon, every holder and everything below them: an
#             idle session runs nothing of its own) divided by SESSIONS.
#                                                                       Target <= 1 MiB
#             The holders and the sandboxes' processes are not dumpable: only root reads their
#             smaps_rollup. As root the script reads them itself while the sessions (which
#             belong to BENCH_USER) wait; run directly as a user, what cannot be read is named.
#             Each sandbox joins a session keyring of its own, which counts against the user's
#             key quota (kernel.keys.maxkeys, 200 by default; maxbytes 20000): as root the
#             script raises both for the run when SESSIONS needs it and puts them back after;
#             as a user, a quota too small is said and the row measures what it allows.
#
# Usage: bench/serve.sh [--as-root] [--check] [ITERATIONS]
#   ITERATIONS   timed rounds of the exec row (default 200, or $ITERATIONS); the start row has
#                START_ROUNDS (default 30)
#   --as-root    when run as root, measure as root instead of as the unprivileged test user
#   --check      exit 1 when a row misses its target or cannot be measured
# Environment: CORDON (binary; default build/src/cli/cordon), CORDON_SERVE (default
#   build/src/serve/cordon-serve, with cordon-serve-session beside it), WARMUP (untimed rounds
#   first, default 10), START_ROUNDS, SESSIONS, BENCH_BACKENDS (default "ns landlock"),
#   BENCH_USER (default cordon-test).
set -eu

. "$(dirname "$(readlink -f "$0")")/lib.sh"
iterations=${ITERATIONS:-200} warmup=${WARMUP:-10} bench_has_check=1
start_rounds=${START_ROUNDS:-30} sessions=${SESSIONS:-1000} backends=${BENCH_BACKENDS:-ns landlock}
bench_args "$@"
for v in start_rounds sessions; do
        case ${!v} in *[!0-9]* | '' | 0) bench_die "${v^^} must be a positive number" 2 ;; esac
done
case $warmup in *[!0-9]* | '') bench_die "WARMUP must be a number" 2 ;; esac
for b in $backends; do
        case $b in ns | landlock) ;; *) bench_die "BENCH_BACKENDS: unknown backend '$b'" 2 ;; esac
done
bench_cordon
serve=${CORDON_SERVE:-$repo/build/src/serve/cordon-serve}
[ -x "$serve" ] && [ -x "$(dirname "$serve")/cordon-serve-session" ] ||
        bench_die "no cordon-serve with cordon-serve-session beside it at '$serve' (ninja -C build, or set CORDON_SERVE)"
serve=$(readlink -f "$serve")

# The driver: runs as the measuring user; prints "row ..." lines; for the idle row it writes
# the pids to read to HANDSHAKE/pids and waits for HANDSHAKE/done (root reads them meanwhile)
# unless it may read them itself.
IFS= read -r -d '' program <<'EOF' || true
import http.client, json, shutil, signal, socket, subprocess, tempfile

cordon, serve, backend, handshake = sys.argv[1:5]
iterations, warmup, start_rounds, sessions = map(int, sys.argv[5:9])


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=300)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(300)
        self.sock.connect(self.path)


def call(conn, method, path, body=None):
    conn.request(method, path, body=None if body is None else json.dumps(body),
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    return r.status, (json.loads(data) if data else None)


root = tempfile.mkdtemp(prefix="serve-bench.", dir="/tmp")
run, state, project = root + "/run", root + "/state", root + "/project"
for d in (run, state, project):
    os.mkdir(d, 0o700)
env = dict(os.environ, XDG_RUNTIME_DIR=run, XDG_STATE_HOME=state, SANDBOX_BACKEND=backend)
log = open(root + "/serve.log", "w")
daemon = subprocess.Popen([serve], env=env, stdout=subprocess.DEVNULL, stderr=log)
sock = run + "/cordon/serve.sock"
for _ in range(200):
    try:
        c = UnixConnection(sock)
        if call(c, "GET", "/v1/capabilities")[0] == 200:
            break
    except OSError:
        time.sleep(0.1)
else:
    die("the daemon did not answer")
conn = UnixConnection(sock)


def holders_gone():
    """Waits until no session's state directory is left (their holders have ended)."""
    d = state + "/cordon/sessions"
    for _ in range(600):
        if not os.listdir(d):
            return
        time.sleep(0.01)


def new_session(body=None):
    st, s = call(conn, "POST", "/v1/sessions", body or {})
    if st != 201:
        log.flush()
        with open(root + "/serve.log") as f:
            tail = [l for l in f.read().splitlines() if "POST /v1/sessions 201" not in l][-8:]
        die("POST /v1/sessions: %d %s\n  the daemon's log ends:\n    %s" % (st, s, "\n    ".join(tail)))
    return s["id"]


try:
    # --- exec ---
    sid = new_session({"session_id": "bench"})
    nul = devnull_actions()
    samples = {"api": [], "bare": []}
    for timed, item in shuffled_rounds(["api", "bare"], warmup, iterations):
        t0 = time.perf_counter_ns()
        if item == "api":
            st, r = call(conn, "POST", "/v1/sessions/bench/exec", {"command": "/bin/true"})
            if st != 200 or r["exit_code"] != 0:
                die("exec: %d %s" % (st, r))
        else:
            pid = os.posix_spawn("/bin/true", ["/bin/true"], {}, file_actions=nul)
            os.waitpid(pid, 0)
        if timed:
            samples[item].append((time.perf_counter_ns() - t0) / 1e6)
    call(conn, "DELETE", "/v1/sessions/bench")
    holders_gone()
    print("row exec %f %f %f %f" % (median(samples["api"]), p90(samples["api"]),
                                    median(samples["bare"]), p90(samples["bare"])))

    # --- start ---
    runs = {"session": None, "run-open": ["--net", "open"], "run-default": []}
    samples = {k: [] for k in runs}
    for timed, item in shuffled_rounds(list(runs), min(warmup, 3), start_rounds):
        t0 = time.perf_counter_ns()
        if item == "session":
            sid = new_session()
            ms = (time.perf_counter_ns() - t0) / 1e6
            call(conn, "DELETE", "/v1/sessions/" + sid)
            holders_gone()
        else:
            p = subprocess.run([cordon, "run", "--quiet", *runs[item], "--", "/bin/true"], cwd=project,
                               env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            ms = (time.perf_counter_ns() - t0) / 1e6
            if p.returncode != 0:
                die("cordon run %s: status %d" % (" ".join(runs[item]), p.returncode))
        if timed:
            samples[item].append(ms)
    print("row start %s" % " ".join("%f %f" % (median(samples[k]), p90(samples[k])) for k in runs))

    # --- idle sessions ---
    t0 = time.monotonic()
    ids = [new_session() for _ in range(sessions)]
    made = time.monotonic() - t0
    st, listed = call(conn, "GET", "/v1/sessions")
    answered = 0
    for sid in ids:
        st2, r = call(conn, "POST", "/v1/sessions/%s/exec" % sid, {"command": "/bin/true"})
        answered += st2 == 200 and r["exit_code"] == 0
    print("row idle-made %d %f %d %d" % (sessions, made, len(listed) if st == 200 else -1, answered))
    # Idle: a second without a request, as a session that waits between commands. (A holder
    # gives back what a command's handling left half a second after it.)
    time.sleep(1)
    # cordon's own processes: the daemon, and every holder with everything below it.
    children = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(p))
            except (OSError, IndexError, ValueError):
                pass
    holders = []
    for d in os.listdir(state + "/cordon/sessions"):
        with open("%s/cordon/sessions/%s/record.json" % (state, d)) as f:
            holders.append(json.load(f)["holder_pid"])
    below, todo = [], [c for h in holders for c in children.get(h, [])]
    while todo:
        p = todo.pop()
        below.append(p)
        todo.extend(children.get(p, []))
    # Three lines: the daemon, the holders, what runs below them. Root reads them when it runs
    # us (their smaps_rollup is root's to read).
    with open(handshake + "/pids.tmp", "w") as f:
        for group in ([daemon.pid], holders, below):
            f.write(" ".join(map(str, group)) + "\n")
    os.rename(handshake + "/pids.tmp", handshake + "/pids")
    if os.path.exists(handshake + "/root-reads"):
        while not os.path.exists(handshake + "/done"):
            time.sleep(0.05)
    else:
        err, kb = None, []
        for group in ([daemon.pid], holders, below):
            kb.append(0)
            for p in group:
                try:
                    with open("/proc/%d/smaps_rollup" % p) as f:
                        kb[-1] += next(int(l.split()[1]) for l in f if l.startswith("Pss:"))
                except OSError as e:
                    err = err or "%s reading /proc/%d/smaps_rollup as uid %d" % (e.strerror, p, os.getuid())
        with open(handshake + "/pss", "w") as f:
            f.write("memerr %s\n" % err if err else "mem %d %d %d %d %d\n"
                    % (kb[0], kb[1], kb[2], len(holders), len(below)))
finally:
    # Every session ends: DELETE each (the daemon waits for nothing), then the daemon.
    try:
        st, listed = call(UnixConnection(sock), "GET", "/v1/sessions")
        c = UnixConnection(sock)
        for s in listed if st == 200 else []:
            call(c, "DELETE", "/v1/sessions/" + s["id"])
        holders_gone()
    except (OSError, http.client.HTTPException):
        pass
    daemon.send_signal(signal.SIGTERM)
    daemon.wait()
    shutil.rmtree(root, ignore_errors=True)
EOF

report() { # BACKEND HANDSHAKE OUTPUT: the rows, with their ratios and targets
        bench_py "$@" <<'EOF'
backend, handshake, out = sys.argv[1], sys.argv[2], sys.argv[3]
rows = {l.split()[1]: [float(x) for x in l.split()[2:]] for l in out.splitlines() if l.startswith("row ")}
missed = []
print("== backend %s" % backend)
e = rows.get("exec")
if e:
    r = e[0] / e[2]
    print("exec   API %.3f ms (p90 %.3f)  bare fork+exec %.3f ms (p90 %.3f)  ratio %.2f x  target <= 2 x"
          % (e[0], e[1], e[2], e[3], r))
    missed += ["exec"] if r > 2 else []
s = rows.get("start")
if s:
    r = s[0] / s[2]
    print("start  POST /v1/sessions %.1f ms (p90 %.1f)  cordon run --net open %.1f ms (p90 %.1f)"
          "  ratio %.2f x  target <= 1.2 x" % (s[0], s[1], s[2], s[3], r))
    print("       cordon run (default network mode) %.1f ms (p90 %.1f): ratio %.2f x, for the record"
          % (s[4], s[5], s[0] / s[4]))
    missed += ["start"] if r > 1.2 else []
i = rows.get("idle-made")
if i:
    n, made, listed, answered = int(i[0]), i[1], int(i[2]), int(i[3])
    print("idle   %d sessions made in %.1f s; %d listed, %d answered an exec" % (n, made, listed, answered))
    missed += ["idle (answers)"] if listed != n or answered != n else []
try:
    m = open(handshake + "/pss").read().split()
except OSError:
    m = ["memerr", "not measured"]
if m[0] == "mem":
    d, h, b, nh, nb = map(int, m[1:])
    kb = d + h + b
    per = kb / nh / 1024
    print("       PSS of cordon's own processes: %.1f MiB in all, %.3f MiB per session  target <= 1 MiB"
          % (kb / 1024, per))
    print("       (the daemon %.1f MiB; %d holders %.0f KiB each; %d processes below them, %.0f KiB "
          "each, %.0f KiB per session)" % (d / 1024, nh, h / nh, nb, b / max(nb, 1), b / nh))
    missed += ["idle (memory)"] if per > 1 else []
else:
    print("       PSS: n/a (%s)" % " ".join(m[1:]))
    missed += ["idle (memory: n/a)"]
with open(handshake + "/missed", "a") as f:
    f.write("".join("%s %s\n" % (backend, x) for x in missed))
EOF
}

measure_as=$(id -un)
if [ "$(id -u)" -eq 0 ] && [ "$as_root" -eq 0 ]; then
        bench_ensure_user
        measure_as=$user
        bench_stage serve-bench
        cp "$cordon" "$serve" "$(dirname "$serve")/cordon-serve-session" "$stage/"
        chmod 755 "$stage"/*
        cordon=$stage/cordon serve=$stage/cordon-serve
fi
# The key quota: one key per sandbox, and a margin for the rest of the user's.
keys_saved=
need_keys=$((sessions + 64))
if [ "$(cat /proc/sys/kernel/keys/maxkeys)" -lt "$need_keys" ] && [ "$measure_as" != root ]; then
        if [ "$(id -u)" -eq 0 ]; then
                keys_saved="$(cat /proc/sys/kernel/keys/maxkeys) $(cat /proc/sys/kernel/keys/maxbytes)"
                echo "$need_keys" >/proc/sys/kernel/keys/maxkeys
                echo $((need_keys * 100)) >/proc/sys/kernel/keys/maxbytes
                echo "# kernel.keys.maxkeys and maxbytes raised to $need_keys and $((need_keys * 100)) for the run (were ${keys_saved% *} and ${keys_saved#* }): a sandbox's session keyring counts against the user's key quota"
                trap 'read -r k b <<<"$keys_saved"; echo "$k" >/proc/sys/kernel/keys/maxkeys; echo "$b" >/proc/sys/kernel/keys/maxbytes; rm -rf ${bench_cleanup[@]+"${bench_cleanup[@]}"}' EXIT
        else
                echo "# note: kernel.keys.maxkeys is $(cat /proc/sys/kernel/keys/maxkeys): fewer than $sessions sessions of one user can start (each sandbox's session keyring is a key); run as root, which raises it for the run"
        fi
fi
echo "# $bench_name: cordon-serve against bare fork+exec and cordon run, measured as $measure_as"
echo "# rounds: exec $iterations, start $start_rounds (warm-up $warmup); idle sessions: $sessions"
status=0
for b in $backends; do
        hs=$(mktemp -d /tmp/serve-bench-hs.XXXXXX)
        bench_cleanup+=("$hs")
        chmod 777 "$hs"
        out_file=$hs/out
        mark=$(bench_py <<<'print(" ".join(map(str, load_mark())))')
        if [ "$measure_as" != "$(id -un)" ]; then
                touch "$hs/root-reads"
                cd "$stage"
                runuser -u "$user" -- env -i HOME="$(bench_home_of "$user")" USER="$user" LANG=C.UTF-8 \
                        PATH=/usr/local/bin:/usr/bin:/bin \
                        "$python" - "$cordon" "$serve" "$b" "$hs" "$iterations" "$warmup" \
                        "$start_rounds" "$sessions" \
                        < <(printf 'BENCH_NAME = "%s"\n%s\n%s\n' "$bench_name" "$bench_py_lib" "$program") \
                        >"$out_file" &
                driver=$!
                # Root reads the memory of the user's sessions while they wait for it.
                while kill -0 "$driver" 2>/dev/null && [ ! -e "$hs/pids" ]; do sleep 0.2; done
                if [ -e "$hs/pids" ]; then
                        err= sums=()
                        while read -r -a group; do
                                kb=0
                                for p in "${group[@]}"; do
                                        if v=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null) && [ -n "$v" ]; then
                                                kb=$((kb + v))
                                        else
                                                err="cannot read /proc/$p/smaps_rollup"
                                        fi
                                done
                                sums+=("$kb" "${#group[@]}")
                        done <"$hs/pids"
                        # mem DAEMON HOLDERS BELOW N_HOLDERS N_BELOW (KiB)
                        if [ -n "$err" ]; then echo "memerr $err" >"$hs/pss"
                        else echo "mem ${sums[0]} ${sums[2]} ${sums[4]} ${sums[3]} ${sums[5]}" >"$hs/pss"; fi
                        touch "$hs/done"
                fi
                wait "$driver" || bench_die "the driver failed for backend $b (status $?)"
        else
                bench_py "$cordon" "$serve" "$b" "$hs" "$iterations" "$warmup" "$start_rounds" \
                        "$sessions" <<<"$program" >"$out_file" || bench_die "the driver failed for backend $b"
        fi
        report "$b" "$hs" "$(cat "$out_file")"
        bench_py $mark <<<'print(load_line(tuple(map(float, sys.argv[1:4])), load_mark()))'
        [ -s "$hs/missed" ] && status=1
        [ -s "$hs/missed" ] && sed 's/^/# missed: /' "$hs/missed"
done
[ "$check" -eq 1 ] && exit $status
exit 0
