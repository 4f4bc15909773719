#!/usr/bin/env bash
# Attack (landlock backend, proxied network, Landlock before ABI 9): the command may make unix
# stream and seqpacket sockets and use the ones it bound itself (the supervisor records each
# bind and connects only to those, by the socket file's inode), and must never reach a host
# service's unix socket: not by its path in the project (a granted path), not by a relative
# path, a symlink or a hard link the command makes to it in a writable directory, not by an
# abstract name; and it may not bind an abstract name (the host's namespace). Expected: EACCES
# for each, one line naming the gap, and the host's listeners never take a connection.
# Positive controls: a server inside serves a client inside (stream and seqpacket, absolute and
# relative paths, the project and $TMPDIR); the same host socket, link included, answers outside
# the sandbox; the abstract name answers outside.
. "$(dirname "$0")/../lib/tap.sh"

LL=(--backend landlock --net proxied)
landlock_unix_plan 17 "landlock own unix sockets" "${LL[@]}"

# The host service: a unix socket in the project and an abstract name, each answering
# HOST-SERVICE; every connection it takes is appended to $T_TMP/host-conns.
HOST='import os, select, socket, sys
p, name, ready, log = sys.argv[1:5]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(p)
os.chmod(p, 0o666)
s.listen(16)
a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
a.bind("\0" + name)
a.listen(16)
open(ready, "w").close()
while True:
    for x in select.select([s, a], [], [])[0]:
        c, _ = x.accept()
        with open(log, "a") as f:
            f.write("conn\n")
        c.sendall(b"HOST-SERVICE")
        c.close()'
name="cordon-own-$$-$RANDOM"
python3 -c "$HOST" "$T_PROJECT/host.sock" "$name" "$T_TMP/ready" "$T_TMP/host-conns" &
srv=$!
trap 'kill "$srv" 2>/dev/null; rm -f "$T_PROJECT/host.sock"' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/ready" ] && break; sleep 0.05; done

# OWN TYPE PATH: a server inside bound at PATH (relative to the cwd or absolute), a client inside
# connecting to it; "OK:<answer>" or the errno name of the step that failed.
OWN='import errno, os, socket, sys
t = socket.SOCK_STREAM if sys.argv[1] == "stream" else socket.SOCK_SEQPACKET
p = sys.argv[2]
try:
    s = socket.socket(socket.AF_UNIX, t)
    s.bind(p)
    s.listen(4)
    if os.fork() == 0:
        c, _ = s.accept()
        c.send(c.recv(16).upper())
        os._exit(0)
    c = socket.socket(socket.AF_UNIX, t)
    c.connect(p)
    c.send(b"ping")
    print("OK:" + c.recv(16).decode())
    os.wait()
except OSError as e:
    print(errno.errorcode[e.errno])'
# TO KIND TARGET: connect a stream socket to TARGET (KIND path or abstract); OK:<answer> or errno.
TO='import errno, socket, sys
k, t = sys.argv[1:3]
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(t if k == "path" else "\0" + t)
    print("OK:" + s.recv(16).decode())
except OSError as e:
    print(errno.errorcode[e.errno])'
# in_ll CMD...: under the landlock backend's proxied network, from the project; stdout in $out,
# stderr's unix-socket lines counted into $T_TMP/notes.
in_ll() {
        out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet "${LL[@]}" -- "$@" 2>"$T_TMP/err"); rc=$?
        grep -c "^$UNIX_NOTE" "$T_TMP/err" >>"$T_TMP/notes"
}

# Positive: the command's own sockets.
in_ll python3 -c "$OWN" stream "$T_PROJECT/own.sock"
check "inside: a server bound in the project serves a client (absolute path)" "0:OK:PING" "$rc:$out"
in_ll python3 -c "$OWN" stream rel.sock
check "inside: the same by a relative path" "0:OK:PING" "$rc:$out"
in_ll sh -c 'cd "$TMPDIR" && exec python3 -c "$1" seqpacket own.seq' sh "$OWN"
check "inside: a seqpacket server in \$TMPDIR serves a client" "0:OK:PING" "$rc:$out"
check "inside: no line about unix sockets for the command's own" "0 0 0" "$(tr '\n' ' ' <"$T_TMP/notes" | sed 's/ $//')"
: >"$T_TMP/notes"

# Attacks: the host's socket by every way of naming it.
in_ll python3 -c "$TO" path "$T_PROJECT/host.sock"
check "attack: the host's socket in the project by its path: EACCES" "EACCES" "$out"
in_ll python3 -c "$TO" path ./host.sock
check "attack: by a relative path: EACCES" "EACCES" "$out"
in_ll sh -c 'ln -s host.sock sym.sock && python3 -c "$1" path sym.sock' sh "$TO"
check "attack: through a symlink made inside: EACCES" "EACCES" "$out"
in_ll sh -c 'ln host.sock hard.sock && echo LINKED && python3 -c "$1" path hard.sock' sh "$TO"
check "attack: through a hard link made inside (the link is made): EACCES" "LINKED EACCES" "$(echo $out)"
in_ll python3 -c "$TO" abstract "$name"
check "attack: the host's abstract name: EACCES" "EACCES" "$out"
in_ll python3 -c "$TRY" '__import__("socket").socket(1).bind("\0'"$name"'-squat")' x
check "attack: binding an abstract name (the host's namespace): EACCES" "EACCES" "$out"
in_ll python3 -c "$TRY" '__import__("socket").socket(1, 2)' x
check "a unix datagram socket stays refused: EACCES" "EACCES" "$out"
check "the host's listeners took no connection" "0" "$(grep -c conn "$T_TMP/host-conns" 2>/dev/null || echo 0)"
check "each refusal came with the line, once per run" "1 1 1 1 1 1 0" "$(tr '\n' ' ' <"$T_TMP/notes" | sed 's/ $//')"
in_ll python3 -c "$TO" path ./host.sock
if grep -q "only to unix sockets it bound itself" "$T_TMP/err" &&
        grep -q "the ns backend hides the host's instead" "$T_TMP/err"; then
        ok "the line names what is reachable and the fixes"
else not_ok "the line names what is reachable and the fixes" "$(cat "$T_TMP/err")"; fi

# Controls: the host socket, its hard link included, answers outside. Network mode open keeps
# it out too (landlock-open-unix.sh).
check "control: outside, the hard link reaches the host service" "OK:HOST-SERVICE" \
        "$(cd "$T_PROJECT" && python3 -c "$TO" path hard.sock)"
out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet --backend landlock --net open -- \
        python3 -c "$TO" path ./host.sock 2>/dev/null)
check "--net open keeps the host's socket out as well: EACCES" "EACCES" "$out"
# (Under --net open Landlock's scope, ABI 6, still keeps the host's abstract names out.)
check "control: outside, the host's abstract name answers" "OK:HOST-SERVICE" \
        "$(python3 -c "$TO" abstract "$name")"
