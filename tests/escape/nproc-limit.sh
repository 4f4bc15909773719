#!/usr/bin/env bash
# Attack: a fork bomb under SANDBOX_NPROC_LIMIT=20, set in the environment as agent-sandbox's
# configuration allows (and with --set): fork() must fail with EAGAIN before 60 children.
# Control: the same loop without the limit forks all 60. A user gets RLIMIT_NPROC (`ulimit -u`
# says 20); root, whom the kernel exempts from RLIMIT_NPROC, gets the sandbox's pids cgroup,
# and where no pids cgroup can be made the run is refused, never run without the limit. The
# dry run and the report name the mechanism. Under both backends.
. "$(dirname "$0")/../lib/tap.sh"

FORK='import errno, os, sys, time
n = 0
try:
    for i in range(int(sys.argv[1])):
        if os.fork() == 0:
            time.sleep(1)
            os._exit(0)
        n += 1
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])'

run() { out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated "$@" 2>&1); rc=$?; }
envrun() { out=$(cd "$T_PROJECT" && env "$1" "$CORDON" run --quiet --net isolated "${@:2}" 2>&1); rc=$?; }

if [ "$(id -u)" = 0 ]; then mech=cgroup; else mech=rlimit; fi
plan 16
for b in ns landlock; do
        run --backend "$b" -- python3 -c "$FORK" 60
        check "$b: control: without the limit 60 forks succeed" "OK" "$out"
        envrun SANDBOX_NPROC_LIMIT=20 --backend "$b" -- python3 -c "$FORK" 60
        check "$b: env SANDBOX_NPROC_LIMIT=20 stops the fork loop with EAGAIN" "0:EAGAIN" "$rc:$out"
        run --backend "$b" --set SANDBOX_NPROC_LIMIT=20 -- python3 -c "$FORK" 60
        check "$b: --set SANDBOX_NPROC_LIMIT=20 stops the fork loop with EAGAIN" "0:EAGAIN" "$rc:$out"
        envrun SANDBOX_NPROC_LIMIT=20 --backend "$b" -- bash -c 'ulimit -u'
        check "$b: env SANDBOX_NPROC_LIMIT=20: ulimit -u inside" "0:20" "$rc:$out"
        envrun SANDBOX_NPROC_LIMIT= --backend "$b" -- python3 -c "$FORK" 60
        check "$b: an empty SANDBOX_NPROC_LIMIT in the environment sets no limit" "0:OK" "$rc:$out"
        envrun SANDBOX_NPROC_LIMIT=20 --backend "$b" --dry-run -- true
        check_like "$b: the dry run names the mechanism ($mech)" "*limits: nproc=20 ($mech*" "$out"
        out=$(cd "$T_PROJECT" && SANDBOX_NPROC_LIMIT=20 "$CORDON" run --net isolated --backend "$b" \
                -- true 2>&1 >/dev/null)
        check "$b: the report names it (the banner's limits line)" "1" \
                "$(printf '%s\n' "$out" | grep -c "^cordon: limits nproc=$mech[12]*\$")"
done

# Root without a pids cgroup: a --cgroup directory of the v2 hierarchy that offers no pids
# controller (this host's v2 tree has none) cannot carry the limit, and RLIMIT_NPROC does not
# bind root: refused, naming the variable.
v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ "$(id -u)" != 0 ]; then
        ok "root without a pids cgroup is refused # SKIP root only"
        ok "the refusal names SANDBOX_NPROC_LIMIT # SKIP root only"
elif [ -z "$v2" ] || grep -qw pids "$v2/cgroup.controllers" 2>/dev/null; then
        skip "no cgroup v2 directory without the pids controller here" "root without a pids cgroup is refused"
        skip "no cgroup v2 directory without the pids controller here" "the refusal names SANDBOX_NPROC_LIMIT"
else
        cg=$v2/cordon-test-nproc-$$
        mkdir "$cg"
        envrun SANDBOX_NPROC_LIMIT=20 --cgroup "$cg" -- python3 -c "$FORK" 60
        rmdir "$cg"
        check "root without a pids cgroup is refused" "125" "$rc"
        check_like "the refusal names SANDBOX_NPROC_LIMIT" \
                "*SANDBOX_NPROC_LIMIT=20 cannot be enforced for uid 0*pids*" "$out"
fi
