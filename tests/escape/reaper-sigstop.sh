#!/usr/bin/env bash
# Attack: stop the sandbox's supervision. Under the landlock backend the command's parent is the
# reaper, a process outside the sandbox; where Landlock cannot scope signals (ABI < 6, forced
# here by --profile unrestricted, which leaves Landlock off) the command can SIGSTOP it, and
# before the fix the sandbox then hung: the command's exit was never reaped, and --timeout's
# kill waited for ever on a reaper that could not run. The supervisor now notices a stopped
# reaper and continues it: the sandbox is unaffected. Controls: with Landlock's signal scoping
# the kill itself is refused (EPERM); under the ns backend the command's parent is PID 1 of its
# namespace, which the kernel does not let it stop; outside, SIGSTOP stops a process.
. "$(dirname "$0")/../lib/tap.sh"

LL=(--backend landlock --net isolated)
U=(--profile unrestricted)
# Into a file, not a pipe: a reaper left stopped (the bug) would hold a pipe open for ever.
run() {
        (cd "$T_PROJECT" && timeout -k 5 20 "$CORDON" run --quiet "$@" >"$T_TMP/out" 2>&1); rc=$?
        out=$(cat "$T_TMP/out")
}

plan 8
sleep 30 &
victim=$!
trap 'kill -CONT "$victim" 2>/dev/null; kill "$victim" 2>/dev/null' EXIT
kill -STOP "$victim"
sleep 0.1
check "control: outside, SIGSTOP stops a process" "T" "$(cut -d' ' -f3 "/proc/$victim/stat")"

run "${LL[@]}" "${U[@]}" -- sh -c 'kill -STOP "$PPID" && sleep 1 && exit 7'
check "the command stops its reaper, then exits 7: the sandbox ends with 7" "7" "$rc"
run "${LL[@]}" "${U[@]}" -- sh -c 'r=$PPID; kill -STOP "$r"; sleep 1; cut -d" " -f3 "/proc/$r/stat"'
check "a second later the reaper runs again" "S" "$out"
run "${LL[@]}" "${U[@]}" --timeout 1 -- sh -c 'kill -STOP "$PPID"; sleep 20; exit 7'
check "--timeout still ends a sandbox whose reaper was stopped: 124" "124" "$rc"
run "${LL[@]}" "${U[@]}" -- sh -c 'r=$PPID; (while kill -STOP "$r"; do sleep 0.01; done) 2>/dev/null &
        sleep 1; exit 7'
check "a reaper stopped over and over still reaps the command and its leftovers: 7" "7" "$rc"

# The earliest stop: the command stops its reaper at once, before the reaper has closed its
# copy of the start's control channel; the start then waited for that channel's end of file
# for ever. Two busy loops make the reaper late to run (6 of 40 starts hung that way before).
hogs=()
for _ in 1 2; do (while :; do :; done) & hogs+=($!); done
hung=0
for i in $(seq 30); do
        (cd "$T_PROJECT" && exec "$CORDON" run --quiet "${LL[@]}" "${U[@]}" -- \
                sh -c 'echo "$PPID" >"$1"; kill -STOP "$PPID"; exit 3' sh "$T_TMP/reaper.$i" \
                >"$T_TMP/early" 2>&1) &
        p=$!
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$p" 2>/dev/null; then
                hung=$((hung + 1))
                kill -KILL "$p" "$(cat "$T_TMP/reaper.$i" 2>/dev/null)" 2>/dev/null
        fi
        wait "$p" 2>/dev/null
done
kill "${hogs[@]}" 2>/dev/null
wait "${hogs[@]}" 2>/dev/null
check "a reaper stopped at once, 30 starts under load: none hangs" "0" "$hung"

run "${LL[@]}" -- python3 -c "$TRY" 'os.kill(os.getppid(), signal.SIGSTOP)'
check "control: with Landlock's signal scoping the kill is refused: EPERM" "EPERM" "$out"
run --backend ns --net isolated -- sh -c 'kill -STOP 1; sleep 0.3; exit 7'
check "control: ns backend, SIGSTOP to PID 1 from inside is dropped: 7" "7" "$rc"
