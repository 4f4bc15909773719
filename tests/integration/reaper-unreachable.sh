#!/usr/bin/env bash
# tap: split: user (it runs under landlock only, and as root skips itself: see run-tap.sh's T_TAP_SPLIT)
# Attack (landlock backend): the command's parent is cordon's reaper, outside the sandbox and
# of the same user; from inside, ptrace it, read its memory, or kill it (which would leave
# detached processes behind when cordon is SIGKILLed). Landlock keeps all three out.
# Control: the same calls with Landlock off (--profile unrestricted, and --net open: proxied
# mode keeps a Landlock ruleset for its TCP rule even then) reach it.
. "$(dirname "$0")/../lib/tap.sh"
if [ "${SANDBOX_BACKEND:-}" != landlock ]; then
        echo "1..0 # SKIP landlock backend only: under ns the command's parent is the sandbox's PID 1"
        exit 0
fi
if [ "$(id -u)" = 0 ]; then
        # The command has dropped the capabilities the reaper holds: ptrace is refused for that
        # already, with or without Landlock, so there is no control to be had.
        echo "1..0 # SKIP as root the dropped capabilities refuse ptrace on their own"
        exit 0
fi

PROBE='import ctypes, errno, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
pp = os.getppid()
def res(ok):
    return "OK" if ok else errno.errorcode[ctypes.get_errno()]
out = []
r = libc.ptrace(16, pp, 0, 0)  # PTRACE_ATTACH
out.append("attach=" + res(r == 0))
if r == 0:
    os.waitpid(pp, 0x40000000)  # __WALL
    libc.ptrace(17, pp, 0, 0)  # PTRACE_DETACH
try:
    with open("/proc/%d/mem" % pp, "rb") as f:
        f.seek(int(open("/proc/%d/maps" % pp).readline().split("-")[0], 16))
        f.read(1)
    out.append("mem=OK")
except OSError as e:
    out.append("mem=" + errno.errorcode[e.errno])
try:
    os.kill(pp, signal.SIGCONT if sys.argv[1] == "control" else signal.SIGKILL)
    out.append("kill=OK")
except OSError as e:
    out.append("kill=" + errno.errorcode[e.errno])
print(" ".join(out), "parent=" + open("/proc/%d/comm" % pp).read().strip())'

plan 2
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --profile unrestricted --net open -- python3 -c "$PROBE" control 2>&1)
check "control: without Landlock the reaper can be traced and signalled" \
        "attach=OK mem=OK kill=OK parent=cordon-reaper" "$out"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet -- python3 -c "$PROBE" attack 2>&1; echo "rc=$?")
take_net_fallback
check "with Landlock: ptrace EPERM, its memory EACCES, kill EPERM, and the run ends normally" \
        "attach=EPERM mem=EACCES kill=EPERM parent=cordon-reaper rc=0" "$(echo "$out" | paste -sd' ')"
