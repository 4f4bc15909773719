# TAP helpers for the shell test suites. Source it; every test file is a bash script that prints
# TAP (plan first) and exits 0 (failures are reported as "not ok", never by exit status alone).
#
# Environment (set by tests/run-tap.sh):
#   CORDON          path of the cordon binary under test
#   CORDON_TESTS_MUST_RUN=1  turns skips into failures (CI)
#   T_TMP           a fresh scratch directory for this test file, writable by the current user
#   HOME            a scratch home of the current user's own (not the real one)
#   T_INSTALL       the build installed into a DESTDIR (headers, libcordon, libcordon.pc, man pages)
#   T_USER          the run's unprivileged test user (cordon-test), for a root run that acts as it
set -u
_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }

# on_backend NS_VALUE LANDLOCK_VALUE: the value for the backend the suite runs under (the
# landlock backend refuses with EACCES where the namespace view says EROFS or ENOENT).
on_backend() {
        if [ "${SANDBOX_BACKEND:-}" = landlock ]; then echo "$2"; else echo "$1"; fi
}

# landlock_abi: the kernel's Landlock ABI version (landlock_create_ruleset's VERSION flag), or a
# negative number without Landlock.
landlock_abi() {
        python3 -c 'import ctypes
print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))'
}

# landlock_unix_plan N LABEL OPTION...: plans the N tests of a file about the landlock backend's
# unix sockets before Landlock ABI 9, and skips them all, saying why, where Landlock is not
# usable, where it governs unix sockets itself (ABI 9: RESOLVE_UNIX), or where
# `cordon run OPTION... -- true` does not start. LABEL names the skipped tests.
landlock_unix_plan() {
        local n=$1 label=$2 abi o why="" i
        shift 2
        plan "$n"
        abi=$(landlock_abi)
        if ! [ "$abi" -ge 1 ] 2>/dev/null; then
                why="Landlock is not usable here"
        elif [ "$abi" -ge 9 ]; then
                why="Landlock ABI $abi governs unix sockets itself (RESOLVE_UNIX)"
        elif ! o=$(cd "$T_PROJECT" && "$CORDON" run --quiet "$@" -- true 2>&1); then
                why="cordon run $* does not start here: $o"
        fi
        [ -z "$why" ] && return 0
        for i in $(seq "$n"); do skip "$why" "$label ($i)"; done
        exit 0
}

# ns_only REASON: this file tests what only the namespace backend does (a private /tmp, a pid
# namespace, hidden paths...); under SANDBOX_BACKEND=landlock it skips as a whole.
ns_only() {
        if [ "${SANDBOX_BACKEND:-}" = landlock ]; then
                echo "1..0 # SKIP ns backend only: $1"
                exit 0
        fi
}

ok() { # ok DESCRIPTION
        _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"
}

not_ok() { # not_ok DESCRIPTION [DETAILS...]
        _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n - $1"
        shift; for l in "$@"; do printf '#   %s\n' "$l"; done
}

skip() { # skip REASON DESCRIPTION: a skip that CI (CORDON_TESTS_MUST_RUN=1) counts as failure
        if [ "${CORDON_TESTS_MUST_RUN:-0}" = 1 ]; then
                not_ok "$2" "skipped, but CORDON_TESTS_MUST_RUN=1: $1"
        else
                _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $2 # SKIP $1"
        fi
}

# check DESCRIPTION EXPECTED ACTUAL
check() {
        if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2" "actual:   $3"; fi
}

# check_like DESCRIPTION GLOB ACTUAL: ACTUAL matches the shell pattern GLOB (as [[ == ]] takes it:
# extglob forms such as *( apply, so write "*x(" rather than "*(")
check_like() {
        # shellcheck disable=SC2053
        if [[ $3 == $2 ]]; then ok "$1"; else not_ok "$1" "expected like: $2" "actual:        $3"; fi
}

# TRY: a python3 program that evaluates the expression in argv[1] (with p = argv[2]) and prints
# "OK:<result>" or the errno name of the OSError it raised, e.g.
#   python3 -c "$TRY" 'open(p).read()' /some/path   ->  OK:contents | ENOENT | EACCES ...
TRY='import errno, os, signal, sys
p = sys.argv[2] if len(sys.argv) > 2 else None
try:
    r = eval(sys.argv[1])
    print("OK:" + (r.strip() if isinstance(r, str) else repr(r)))
except OSError as e:
    print(errno.errorcode[e.errno])'

# ABSTRACT_LISTEN: a python3 program serving "HOST-SERVICE" on the abstract unix socket named
# argv[1]; it creates the file argv[2] once it listens. Start it in the background.
ABSTRACT_LISTEN='import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + sys.argv[1])
s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    c.sendall(b"HOST-SERVICE")
    c.close()'

# UNIX_LISTEN: a python3 program serving "HOST-SERVICE" on the unix socket at path argv[1]; it
# creates the file argv[2] once it listens. Start it in the background. UNIX_CONNECT connects
# to the socket at argv[1] and prints "OK:<what it read>" or the errno name.
UNIX_LISTEN='import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    c.sendall(b"HOST-SERVICE")
    c.close()'
UNIX_CONNECT='import errno, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
    print("OK:" + s.recv(16).decode())
except OSError as e:
    print(errno.errorcode[e.errno])'

# LOOPBACK_COUNTER: a python3 program listening on a free port of the host's 127.0.0.1, which it
# writes to the file argv[1] once it listens; it counts the connections it accepts in
# argv[1].hits and gives up after argv[2] seconds without one. Start it in the background.
LOOPBACK_COUNTER='import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(float(sys.argv[2]))
n = 0
try:
    while True:
        c, _ = s.accept(); n += 1; open(sys.argv[1] + ".hits", "w").write(str(n)); c.close()
except OSError:
    pass'

# UNIX_NOTE: how the landlock backend's one line for a refused unix socket begins (once per run,
# before the command's own error). take_unix_note: removes those lines from $out and counts them
# in $notes, for checks of the command's output that also check the line.
UNIX_NOTE='cordon: warning: a unix socket was refused: '
take_unix_note() {
        notes=$(grep -c "^$UNIX_NOTE" <<<"$out")
        out=$(grep -v "^$UNIX_NOTE" <<<"$out")
}

# drop_net_fallback: stdin without the line `cordon run` prints, --quiet or not, when the network
# mode delivered is not the one asked for (the landlock backend always falls back from the
# default filtered, to proxied), for tests of something else that compare a run's output.
# Exits 0. take_net_fallback: the same on $out.
NET_FALLBACK_RE='^cordon: network mode [a-z]* (from [^)]*) cannot be delivered: .*: using [a-z]* instead$'
drop_net_fallback() {
        grep -v "$NET_FALLBACK_RE"
        return 0
}
take_net_fallback() { out=$(drop_net_fallback <<<"$out"); }

# run_view_only CMD...: like run_sandboxed, with Landlock and seccomp off (--profile
# unrestricted), for tests of the namespace view on its own: with the layers on, they refuse
# many attacks before the view is ever reached, which would hide a gap in the view.
run_view_only() {
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --profile unrestricted -- "$@" 2>&1); rc=$?
}

# run_sandboxed CMD...: runs cordon quietly with the scratch project and no network (the mode
# the confinement tests were written for; the network modes have tests of their own); stdout+
# stderr in $out, status in $rc.
run_sandboxed() {
        out=$(cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated -- "$@" 2>&1); rc=$?
}
