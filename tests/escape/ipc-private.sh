#!/usr/bin/env bash
# Attack: reach the host's IPC objects from inside: a SysV shared memory segment (by its id,
# shmat) and a file in /dev/shm made on the host. With PRIVATE_IPC at its default both are out of
# reach (shmat: EINVAL, no such segment in the sandbox's IPC namespace; the file: ENOENT).
# Control: PRIVATE_IPC=false shares them (MPI, NCCL), and the host sees them itself.
. "$(dirname "$0")/../lib/tap.sh"
ns_only "PRIVATE_IPC is an IPC namespace; the landlock backend has none"

SHM='import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
if sys.argv[1] == "make":
    shmid = libc.shmget(0, 4096, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    addr = libc.shmat(shmid, None, 0)
    ctypes.memmove(addr, b"HOST-SHM", 8)
    print(shmid)
elif sys.argv[1] == "rm":
    libc.shmctl(int(sys.argv[2]), 0, None)  # IPC_RMID
else:
    addr = libc.shmat(int(sys.argv[2]), None, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        print(errno.errorcode[ctypes.get_errno()])
    else:
        print("OK:" + ctypes.string_at(addr, 8).decode())'

plan 6
shmid=$(python3 -c "$SHM" make)
shmfile=/dev/shm/cordon-ipc-test-$$
echo HOST-FILE >"$shmfile"
trap 'python3 -c "$SHM" rm "$shmid"; rm -f "$shmfile"' EXIT
check "control: the host reads its segment" "OK:HOST-SHM" "$(python3 -c "$SHM" read "$shmid")"

out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated -- python3 -c "$SHM" read "$shmid" 2>&1)
check "the host's SysV segment is not reachable (own IPC namespace)" "EINVAL" "$out"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated -- python3 -c "$TRY" 'open(p).read()' "$shmfile" 2>&1)
check "the host's /dev/shm file is not visible" "ENOENT" "$out"

out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set PRIVATE_IPC=false -- \
        python3 -c "$SHM" read "$shmid" 2>&1)
check "control: PRIVATE_IPC=false shares the host's SysV segment" "OK:HOST-SHM" "$out"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --set PRIVATE_IPC=false -- \
        python3 -c "$TRY" 'open(p).read()' "$shmfile" 2>&1)
check "control: PRIVATE_IPC=false shares /dev/shm" "OK:HOST-FILE" "$out"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --backend landlock \
        --set PRIVATE_IPC=true -- true 2>&1); rc=$?
if [ $rc = 125 ] && [[ $out == *"PRIVATE_IPC cannot be enforced by the landlock backend"* ]]; then
        ok "PRIVATE_IPC=true asked of the landlock backend is refused"
else
        not_ok "PRIVATE_IPC=true asked of the landlock backend is refused" "rc=$rc" "$out"
fi
