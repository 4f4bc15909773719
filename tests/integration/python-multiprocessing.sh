#!/usr/bin/env bash
# Must still work: Python multiprocessing. A Pool (fork start method) makes its locks with
# sem_open() (a file created in /dev/shm, linked to its name, unlinked), and
# multiprocessing.shared_memory creates, maps and unlinks with shm_open(). Under the ns backend
# /dev/shm is the sandbox's own tmpfs; under the landlock backend the supervisor makes these
# files in the launch's private directory instead (see cordon(1), the landlock backend).
. "$(dirname "$0")/../lib/tap.sh"

POOL='import multiprocessing as m
m.set_start_method("fork")
p = m.Pool(2)
print(sum(p.map(abs, [-1, -2, -3])))
p.close()
p.join()'

# Within one process (another process attaching by name: python-multiprocessing-spawn.sh).
SHM='import os
from multiprocessing import shared_memory as sm
name = "cordon-it-%d" % os.getpid()
a = sm.SharedMemory(name=name, create=True, size=4096)
a.buf[:6] = b"cordon"
pid = os.fork()
if pid == 0:
    a.buf[6:8] = b"!!"
    os._exit(0)
os.waitpid(pid, 0)
print(bytes(a.buf[:8]).decode())
a.close()
a.unlink()
# The name is free again: unlink removed it (O_EXCL would fail otherwise).
b = sm.SharedMemory(name=name, create=True, size=16)
b.close()
b.unlink()
print("recreated")'

SEM='import multiprocessing as m
l = m.Lock()
with l:
    print("locked")
s = m.Semaphore(2)
s.acquire(); s.acquire()
print(s.acquire(timeout=0.1))'

plan 3
run_sandboxed timeout 60 python3 -c "$POOL"
check "multiprocessing.Pool(2).map works" "0:6" "$rc:$out"
run_sandboxed timeout 60 python3 -c "$SHM"
check "shared_memory: create, share with a fork, unlink, create again" \
        "0:cordon!!
recreated" "$rc:$out"
run_sandboxed timeout 60 python3 -c "$SEM"
check "a multiprocessing Lock and Semaphore" "0:locked
False" "$rc:$out"
