#!/usr/bin/env bash
# Attack: a fork bomb under SANDBOX_NPROC_LIMIT=20: fork() must fail with EAGAIN before 60
# children. Control: the same loop without the limit forks all 60. As root the limit cannot be
# enforced (the kernel exempts uid 0 from RLIMIT_NPROC) and the run is refused, never run
# without it. Under both backends (the landlock backend counts every process of the uid).
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
plan 4
for b in ns landlock; do
        if [ "$(id -u)" = 0 ]; then
                run --backend "$b" --set SANDBOX_NPROC_LIMIT=20 -- python3 -c "$FORK" 60
                if [ $rc = 125 ] && [[ $out == *"SANDBOX_NPROC_LIMIT cannot be enforced"*"uid 0"* ]]; then
                        ok "$b: as root SANDBOX_NPROC_LIMIT is refused, not ignored"
                else
                        not_ok "$b: as root SANDBOX_NPROC_LIMIT is refused, not ignored" "rc=$rc" "$out"
                fi
                run --backend "$b" -- python3 -c "$FORK" 60
                check "$b: control: without the limit 60 forks succeed" "OK" "$out"
                continue
        fi
        run --backend "$b" -- python3 -c "$FORK" 60
        check "$b: control: without the limit 60 forks succeed" "OK" "$out"
        run --backend "$b" --set SANDBOX_NPROC_LIMIT=20 -- python3 -c "$FORK" 60
        check "$b: SANDBOX_NPROC_LIMIT=20 stops the fork loop with EAGAIN" "EAGAIN" "$out"
done
