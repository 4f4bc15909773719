#!/usr/bin/env bash
# A configuration file is bash, evaluated in a child cordon confines: nothing it does reaches
# the host or cordon. Writing files, opening sockets, signalling every process, reading
# credentials, running forever, printing megabytes, leaving background jobs, exiting early,
# redefining declare: each ends in the right values or a clear refusal, never a hang. Every
# attack has a control that does the same thing outside, so the test can fail.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/config.sh"

plan 21
cd "$T_PROJECT" || exit 1
unset CORDON_ADMIN_CONF
cfg_reset
conf=$cfg_dir/sandbox.conf

# Writes.
cat >"$conf" <<CONF
HOME_ACCESS=read
echo pwned >"\$HOME/pwned-by-config"
echo pwned >"$T_TMP/pwned-by-config"
CONF
bash -c "echo control >'$T_TMP/control-write'"
check "control: the same write outside works" control "$(cat "$T_TMP/control-write")"
v=$(cfg_value HOME_ACCESS)
check "a config that writes files still loads" read "$v"
check "... and wrote nothing, in HOME or elsewhere" "absent absent" \
        "$([ -e "$HOME/pwned-by-config" ] && echo present || echo absent) $([ -e "$T_TMP/pwned-by-config" ] && echo present || echo absent)"

# A socket to a service of the host's loopback.
port_file=$T_TMP/port
python3 -c "$LOOPBACK_COUNTER" "$port_file" 20 &
srv=$!
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
port=$(cat "$port_file")
bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null
sleep 0.2
check "control: bash reaches the host's listener" 1 "$(cat "$port_file.hits" 2>/dev/null)"
printf 'HOME_ACCESS=read\nexec 3<>/dev/tcp/127.0.0.1/%s\n' "$port" >"$conf"
cfg_value HOME_ACCESS >/dev/null
sleep 0.2
check "a config's connection to the host's loopback never arrives" 1 "$(cat "$port_file.hits" 2>/dev/null)"
kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null

# Signals: kill -9 -1 from a config must not reach the user's processes.
sleep 600 &
victim=$!
printf 'HOME_ACCESS=read\nkill -9 -1\n' >"$conf"
cfg_value HOME_ACCESS >/dev/null 2>&1
check "kill -9 -1 in a config reaches no process of the host" alive \
        "$(kill -0 "$victim" 2>/dev/null && echo alive || echo dead)"
kill "$victim" 2>/dev/null; wait "$victim" 2>/dev/null

# Credentials are not readable from a config.
mkdir -p "$HOME/.ssh" && echo PRIVATEKEY >"$HOME/.ssh/id_test"
printf 'SANDBOX_ENV+=("LEAK=$(cat "$HOME/.ssh/id_test" 2>/dev/null)")\n' >"$conf"
check "control: the key is readable outside" PRIVATEKEY "$(cat "$HOME/.ssh/id_test")"
check "a config cannot read ~/.ssh into a value" "LEAK=" "$(cfg_value SANDBOX_ENV | grep '^LEAK=')"

# The kernel's keyrings have no namespace: the child has cordon's seccomp layer, as any sandbox.
case $(uname -m) in aarch64) nr=219 ;; *) nr=250 ;; esac # keyctl
KEYCTL='import ctypes; l = ctypes.CDLL(None, use_errno=True); r = l.syscall('$nr', 0, -3, 0); print("EPERM" if r < 0 and ctypes.get_errno() == 1 else "reached")'
check "control: outside, keyctl reaches the session keyring" reached "$(python3 -c "$KEYCTL")"
printf 'SANDBOX_ENV+=("KEYRING=$(python3 -c %q 2>&1)")\n' "$KEYCTL" >"$conf"
check "a config's keyctl is refused by seccomp (EPERM)" KEYRING=EPERM \
        "$(cfg_value SANDBOX_ENV | grep '^KEYRING=')"

# A fork bomb: the child's processes are bounded (Linux 6.14+: its pid namespace's pid_max,
# at most 363; before: a pids cgroup or RLIMIT_NPROC, 64), and the host's pid_max is its own.
FORKS='import os, time
kids = []
for i in range(500):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    kids.append(pid)
print(len(kids))
for k in kids:
    os.kill(k, 9)
for k in kids:
    os.waitpid(k, 0)'
host_pid_max=$(cat /proc/sys/kernel/pid_max)
check "control: outside, the same loop starts 500 processes" 500 "$(python3 -c "$FORKS")"
printf 'SANDBOX_ENV+=("FORKS=$(python3 -c %q 2>/dev/null)")\n' "$FORKS" >"$conf"
n=$(cfg_value SANDBOX_ENV | sed -n 's/^FORKS=//p')
if [ -n "$n" ] && [ "$n" -ge 30 ] && [ "$n" -le 363 ]; then
        ok "a config's processes are bounded ($n of 500 started)"
else
        not_ok "a config's processes are bounded" "started '$n' of 500"
fi
check "... and the host's pid_max is untouched" "$host_pid_max" "$(cat /proc/sys/kernel/pid_max)"
n=$(CORDON_TEST_NO_PID_MAX=1 cfg_value SANDBOX_ENV | sed -n 's/^FORKS=//p')
if [ -n "$n" ] && [ "$n" -ge 30 ] && [ "$n" -le 63 ]; then
        ok "without a per-namespace pid_max, a cgroup or RLIMIT_NPROC bounds them ($n of 500)"
else
        not_ok "without a per-namespace pid_max, a cgroup or RLIMIT_NPROC bounds them" "started '$n' of 500"
fi

# Running forever: refused after the time limit, not a hang.
printf 'while :; do :; done\n' >"$conf"
start=$(date +%s)
out=$("$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
took=$(($(date +%s) - start))
case "$rc:$out" in
125:*"$conf"*) if [ "$took" -le 30 ]; then ok "a config that runs forever is refused after its time limit (${took}s)"; else not_ok "a config that runs forever is refused after its time limit" "took ${took}s"; fi ;;
*) not_ok "a config that runs forever is refused after its time limit" "status $rc" "$out" ;;
esac

# Megabytes of output: refused, quickly.
printf 'head -c 8000000 /dev/zero | tr "\\0" x\nhead -c 8000000 /dev/zero | tr "\\0" y >&2\n' >"$conf"
out=$(timeout 60 "$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
check "a config printing megabytes is refused (not a hang)" 125 "$rc"
check "... and its output is not copied out whole" yes "$([ ${#out} -lt 200000 ] && echo yes || echo no)"

# Background jobs die with the child; the load does not wait for them.
printf 'HOME_ACCESS=read\nsleep 987 &\n( sleep 988 & )\n' >"$conf"
start=$(date +%s)
v=$(timeout 60 bash -c ". '$T_SRC/tests/lib/config.sh'; cfg_value HOME_ACCESS")
took=$(($(date +%s) - start))
check "background jobs do not hold the load ($took s)" "read:yes" "$v:$([ "$took" -le 10 ] && echo yes || echo no)"
sleep 0.3
check "... and none is left running" 0 "$(ps -u "$(id -u)" -o args= | grep -cE '^sleep 98[78]$')"

# exit, traps, IFS, set -e and a redefined declare in the user's own file.
printf 'HOME_ACCESS=read\nexit 0\n' >"$conf"
out=$("$CORDON" run --quiet --net isolated -- echo RAN 2>&1); rc=$?
case "$rc:$out" in
125:*"$conf"*) ok "a config that exits early is refused, naming it" ;;
*) not_ok "a config that exits early is refused, naming it" "status $rc" "$out" ;;
esac
printf 'set -e\nIFS=x\ntrap "echo TRAPPED" EXIT DEBUG\nHOME_ACCESS=restricted\n' >"$conf"
check "set -e, IFS and traps do not change how values are read" restricted "$(cfg_value HOME_ACCESS)"
cfg_reset
