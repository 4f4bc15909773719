#!/usr/bin/env bash
# Must still work: Python multiprocessing with the spawn and forkserver start methods
# (forkserver is Python 3.14's default on Linux). Their children are new programs that open the
# parent's named semaphores again by name (sem_open() without O_CREAT, the Pool's locks), and a
# child attaches to a shared_memory segment by its name (shm_open() without O_CREAT). Under the
# landlock backend the supervisor serves those opens from the launch's private /dev/shm
# directory (see cordon(1)). forkserver also needs a unix socket (its server listens on one),
# which the landlock backend refuses under the isolated network, with its one line about unix
# sockets; with network mode open, and under proxied (the command's own sockets), it runs.
. "$(dirname "$0")/../lib/tap.sh"

cat >"$T_PROJECT/mp_start.py" <<'PY'
import multiprocessing as m
import sys
from multiprocessing import shared_memory as sm


def attach(name):
    s = sm.SharedMemory(name=name)
    s.buf[6:8] = b"!!"
    s.close()


if __name__ == "__main__":
    ctx = m.get_context(sys.argv[1])
    with ctx.Pool(2) as p:
        print(p.map(abs, [-1, -2]))
    a = sm.SharedMemory(create=True, size=4096)
    a.buf[:6] = b"cordon"
    child = ctx.Process(target=attach, args=(a.name,))
    child.start()
    child.join()
    print(child.exitcode, bytes(a.buf[:8]).decode())
    a.close()
    a.unlink()
PY

want="0:[1, 2]
0 cordon!!"

plan 4
run_sandboxed timeout 60 python3 mp_start.py spawn
check "spawn: a Pool maps, a child attaches to shared memory by name" "$want" "$rc:$out"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net proxied -- \
        timeout 60 python3 mp_start.py forkserver 2>&1); rc=$?
check "forkserver (network mode proxied): a Pool maps, a child attaches by name" "$want" \
        "$rc:$out"
if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net open -- \
                timeout 60 python3 mp_start.py forkserver 2>&1); rc=$?
        check "forkserver (network mode open): a Pool maps, a child attaches by name" "$want" \
                "$rc:$out"
        run_sandboxed timeout 60 python3 mp_start.py forkserver
        if [ "$rc" -eq 0 ]; then
                # A kernel whose Landlock confines unix sockets (ABI 9) may admit them.
                check "forkserver under isolated works" "$want" "$rc:$out"
        else
                take_unix_note
                check "forkserver under isolated: its unix socket refused, with the one line" \
                        "1" "$notes"
        fi
else
        run_sandboxed timeout 60 python3 mp_start.py forkserver
        check "forkserver: a Pool maps, a child attaches to shared memory by name" "$want" \
                "$rc:$out"
        run_sandboxed timeout 60 python3 -c 'import multiprocessing as m
print(m.get_context("forkserver").Pool(2).map(abs, [-1, -2]))'
        check "forkserver: m.get_context(\"forkserver\").Pool(2).map" "0:[1, 2]" "$rc:$out"
fi
