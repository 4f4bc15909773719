#!/usr/bin/env bash
# Attack (landlock backend, isolated network, which has no network namespace to confine unix
# sockets): socket(AF_UNIX, SOCK_STREAM), which the seccomp filter hands to the supervisor so
# that the refusal comes with one line naming the gap. The notified path must never make the
# socket (the supervisor answers with the rule's own errno, never "continue"), and a flood of
# such calls from several processes must neither flood stderr nor stall the run. Expected: EPERM
# on every attempt, exactly as without the line, and exactly one line per run. A non-blocking
# socket (the C library's nscd probe on every user lookup) is refused the same way without the
# line. The proxied network makes them, without a line: there the supervisor keeps the command's
# unix sockets from the host's instead (landlock-unix-own-sockets.sh).
# Controls: --net open makes the sockets and says nothing; the ns backend (a network namespace)
# makes them and says nothing; without the notifications (--profile unrestricted: no Landlock
# layer, no listener) the refusal is as before, without the line.
. "$(dirname "$0")/../lib/tap.sh"

# TRY N [PROCS [nonblock]]: N attempts at socket(AF_UNIX, SOCK_STREAM) in each of PROCS processes
# (default 1); prints each answer with its count, e.g. "EPERM*3" (OK for a socket made).
TRY='import errno, os, socket, sys
n, procs = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1
typ = socket.SOCK_STREAM | (socket.SOCK_NONBLOCK if len(sys.argv) > 3 else 0)
def attempt():
    got = {}
    for _ in range(n):
        try:
            socket.socket(socket.AF_UNIX, typ).close()
            k = "OK"
        except OSError as e:
            k = errno.errorcode[e.errno]
        got[k] = got.get(k, 0) + 1
    return got
total = {}
pipes = []
for _ in range(procs - 1):
    r, w = os.pipe()
    if os.fork() == 0:
        os.write(w, repr(attempt()).encode())
        os._exit(0)
    os.close(w)
    pipes.append(r)
for got in [attempt()] + [eval(os.read(r, 4096)) for r in pipes]:
    for k, v in got.items():
        total[k] = total.get(k, 0) + v
print(" ".join("%s*%d" % kv for kv in sorted(total.items())))'

# run OPTION... -- ARG...: TRY under cordon; stdout in $out, status in $rc, the number of stderr
# lines in $lines and of unix-socket lines among them in $notes, stderr itself in $err.
run() {
        local opts=()
        while [ "$1" != -- ]; do opts+=("$1"); shift; done
        shift
        out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet "${opts[@]}" -- python3 -c "$TRY" "$@" \
                2>"$T_TMP/err"); rc=$?
        err=$(cat "$T_TMP/err")
        lines=$(grep -c '' "$T_TMP/err")
        notes=$(grep -c "^$UNIX_NOTE" "$T_TMP/err")
}
# is_note: stderr is the one line, and it names both fixes.
is_note() {
        [ "$lines:$notes" = 1:1 ] && grep -q "use the ns backend or network mode open" "$T_TMP/err" &&
                grep -q "AppArmor profile" "$T_TMP/err"
}
note_check() { # note_check DESCRIPTION
        if is_note; then ok "$1"; else not_ok "$1" "lines=$lines notes=$notes" "stderr: $err"; fi
}
quiet_check() { # quiet_check DESCRIPTION
        if [ "$lines" = 0 ]; then ok "$1"; else not_ok "$1" "stderr: $err"; fi
}

plan 18
LL=(--backend landlock)
if ! o=$(cd "$T_PROJECT" && "$CORDON" run --quiet "${LL[@]}" --net isolated -- true 2>&1); then
        for i in $(seq 18); do skip "the landlock backend does not run here: $o" "unix socket note ($i)"; done
        exit 0
fi

# Isolated: EPERM, as the socket rule answers; one line for three attempts.
run "${LL[@]}" --net isolated -- 3
check "isolated: socket(AF_UNIX) three times: EPERM each" "0:EPERM*3" "$rc:$out"
note_check "isolated: exactly one line, naming the gap and the fixes"
# Proxied: the sockets are made (before ABI 9 the supervisor decides where they may connect).
abi=$(landlock_abi)
if ! o=$(cd "$T_PROJECT" && "$CORDON" run --quiet "${LL[@]}" --net proxied -- true 2>&1); then
        skip "proxied does not run under the landlock backend here: $o" "proxied: socket(AF_UNIX) works"
        skip "proxied does not run under the landlock backend here" "proxied: no line"
else
        run "${LL[@]}" --net proxied -- 3
        check "proxied (Landlock ABI $abi): socket(AF_UNIX) works" "0:OK*3" "$rc:$out"
        quiet_check "proxied (Landlock ABI $abi): no line"
fi

# The flood: 4 processes x 250 attempts. Every one refused, one line, and the run ends.
start=$(date +%s)
run "${LL[@]}" --net isolated -- 250 4
check "flood of 1000 from 4 processes: EPERM every time, never a socket" "0:EPERM*1000" "$rc:$out"
note_check "flood: still exactly one line"
check "flood: the run ends promptly (under 30 s)" yes "$([ $(($(date +%s) - start)) -lt 30 ] && echo yes || echo no)"

# Non-blocking sockets (nscd's probe in every user lookup) are refused without the line; so a
# user lookup (id) says nothing.
run "${LL[@]}" --net isolated -- 3 1 nonblock
check "non-blocking socket(AF_UNIX): EPERM each" "0:EPERM*3" "$rc:$out"
quiet_check "non-blocking socket(AF_UNIX): no line"
out=$(cd "$T_PROJECT" && "$CORDON" run --quiet "${LL[@]}" --net isolated -- id -un 2>"$T_TMP/err"); rc=$?
check "a user lookup (id) runs" "0:$(id -un)" "$rc:$out"
check "a user lookup (id): no line" "" "$(cat "$T_TMP/err")"

# Controls.
run "${LL[@]}" --net open -- 3
check "control: --net open makes the sockets" "0:OK*3" "$rc:$out"
quiet_check "control: --net open says nothing"
run "${LL[@]}" --net isolated --profile unrestricted -- 3
check "control: without the notifications (--profile unrestricted) EPERM as before" "0:EPERM*3" "$rc:$out"
quiet_check "control: without the notifications no line"
if o=$(cd "$T_PROJECT" && "$CORDON" run --quiet --backend ns --net isolated -- true 2>&1); then
        run --backend ns --net isolated -- 3
        check "control: the ns backend's isolated network makes them" "0:OK*3" "$rc:$out"
        quiet_check "control: the ns backend says nothing"
        run --backend ns --net proxied -- 3
        check "control: the ns backend's proxied network makes them, without a line" "0:OK*3:0" \
                "$rc:$out:$lines"
else
        for d in "isolated makes them" "says nothing" "proxied makes them"; do
                skip "the ns backend does not run here: $o" "control: the ns backend $d"
        done
fi
