#!/usr/bin/env bash
# --memory, --pids and --cpus stop what they promise to stop, whichever mechanism this caller
# gets (cgroup v1 as root on this host, rlimits and CPU affinity for an ordinary user); the
# banner names the mechanism. Controls: the same programs without the limit succeed.
. "$(dirname "$0")/../lib/tap.sh"

run() { (cd "$T_PROJECT" && "$CORDON" run "$@"); }
alloc='b = bytearray(256 << 20); b[::4096] = b"x" * len(b[::4096]); print("allocated")'
# Forks up to 30 children (each sleeps a little) and prints how many forks succeeded.
forks='import os, time
n = 0
for i in range(30):
    try:
        if os.fork() == 0:
            time.sleep(1); os._exit(0)
        n += 1
    except OSError:
        break
print(n)'

plan 10
check "control: 256 MiB without --memory" "allocated" \
        "$(run --quiet -- python3 -c "$alloc" 2>&1 | drop_net_fallback)"
out=$(run --memory 64M -- python3 -c "$alloc" 2>&1)
rc=$?
mech=$(printf '%s\n' "$out" | sed -n 's/^cordon: limits memory=\([a-z0-9]*\).*/\1/p')
case $mech in
cgroup*)
        check "--memory 64M ($mech): the OOM killer's victim, status 137" "137" "$rc"
        check "--memory 64M ($mech): a line says so" "yes" \
                "$(printf '%s\n' "$out" | grep -q '^cordon: out of memory' && echo yes || echo "$out")"
        ;;
rlimit)
        check "--memory 64M (rlimit): the allocation fails (MemoryError, status 1)" "1" "$rc"
        check "--memory 64M (rlimit): MemoryError" "yes" \
                "$(printf '%s\n' "$out" | grep -q MemoryError && echo yes || echo "$out")"
        ;;
*) not_ok "--memory: the banner names a mechanism" "$out"; not_ok "--memory: skipped" ;;
esac
check "--memory 64M: the program never got its 256 MiB" "" \
        "$(printf '%s\n' "$out" | grep -x allocated)"

check "control: 30 forks without --pids" "30" \
        "$(run --quiet -- python3 -c "$forks" 2>&1 | drop_net_fallback)"
n=$(run --quiet --pids 10 -- python3 -c "$forks" 2>&1 | drop_net_fallback)
check "--pids 10: forking stops below 10" "yes" \
        "$([ "$n" -ge 0 ] 2>/dev/null && [ "$n" -lt 10 ] && echo yes || echo "no: $n")"

out=$(run --cpus 1 -- python3 -c 'import os; print(len(os.sched_getaffinity(0)))' 2>&1)
mech=$(printf '%s\n' "$out" | sed -n 's/^cordon: limits cpus=\([a-z0-9]*\).*/\1/p')
check "control: this host has more than one CPU" "yes" \
        "$([ "$(nproc)" -gt 1 ] && echo yes || echo no)"
if [ "$mech" = affinity ]; then
        check "--cpus 1 (affinity): one CPU is visible" "1" "$(printf '%s\n' "$out" | tail -1)"
else
        check "--cpus 1 ($mech): a cpu quota, named in the banner" "yes" \
                "$(case $mech in cgroup*) echo yes ;; *) echo "$out" ;; esac)"
fi

run --quiet --memory lots -- true 2>"$T_TMP/err"
check "--memory lots: a usage error naming the option" \
        "2:cordon: --memory 'lots': expected a size such as 512M or 4G; see 'cordon run --help'" \
        "$?:$(head -1 "$T_TMP/err")"
run --quiet --pids 0 -- true 2>"$T_TMP/err"
check "--pids 0: a usage error" \
        "2:cordon: --pids '0': expected a whole number above 0; see 'cordon run --help'" \
        "$?:$(head -1 "$T_TMP/err")"
