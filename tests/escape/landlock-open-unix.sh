#!/usr/bin/env bash
# Attack (landlock backend, network mode open, Landlock before ABI 9): the open network has no
# mount view to hide the host's unix sockets, and Landlock does not govern a unix socket's
# connect(). A host service's socket (munge's, on a Slurm host: the credential that runs Slurm's
# real commands past the chaperon; the session bus; ssh-agent) must stay out of reach as under
# the ns backend: by its path in the project, elsewhere in /tmp, by an abstract name, and through
# a unix datagram socket or pair. Expected: EACCES each, one line naming the gap (and munge), and
# the host's listener never takes a connection.
# What open must still give: the command's own unix sockets (a server and a client inside), TCP
# to any address (blocking, non-blocking, refused), a TCP listener inside reachable from the
# host, and a blocking connect whose handshake hangs must hold up no other connect of the
# command (the supervisor makes the connects and awaits each handshake without blocking), nor
# outlast its SO_SNDTIMEO (EINPROGRESS, as the kernel answers outside).
# Controls: the same connect outside the sandbox reaches the service; without the notifications
# (--profile unrestricted) the rule fails closed: socket(AF_UNIX) answers EACCES.
. "$(dirname "$0")/../lib/tap.sh"

LL=(--backend landlock --net open)
landlock_unix_plan 14 "landlock open unix sockets" "${LL[@]}"

# The host services: a unix socket in the project, one in a directory of its own under /tmp
# (where munged's would be /run/munge), and an abstract name; each connection is logged.
HOST='import os, select, socket, sys
paths, name, ready, log = sys.argv[1:3], sys.argv[3], sys.argv[4], sys.argv[5]
ls = []
for p in paths:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(p)
    os.chmod(p, 0o666)
    s.listen(16)
    ls.append(s)
a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
a.bind("\0" + name)
a.listen(16)
ls.append(a)
open(ready, "w").close()
while True:
    for x in select.select(ls, [], [])[0]:
        c, _ = x.accept()
        with open(log, "a") as f:
            f.write("conn\n")
        c.sendall(b"HOST-SERVICE")
        c.close()'
svc=$(mktemp -d /tmp/cordon-open-unix.XXXXXX)
chmod 755 "$svc"
name="cordon-open-$$-$RANDOM"
python3 -c "$HOST" "$T_PROJECT/host.sock" "$svc/munge.socket.2" "$name" "$T_TMP/ready" \
        "$T_TMP/host-conns" &
srv=$!
trap 'kill "$srv" 2>/dev/null; rm -rf "$svc" "$T_PROJECT/host.sock"' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/ready" ] && break; sleep 0.05; done

# TO KIND TARGET: a stream socket's connect to TARGET (path or abstract); OK:<answer> or errno.
TO='import errno, socket, sys
k, t = sys.argv[1:3]
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(t if k == "path" else "\0" + t)
    print("OK:" + s.recv(16).decode())
except OSError as e:
    print(errno.errorcode[e.errno])'
# in_ll [OPTION...] -- CMD...: under the landlock backend's open network, from the project;
# stdout in $out, status in $rc, the unix-socket lines of stderr counted into $T_TMP/notes.
in_ll() {
        local opts=()
        while [ "$1" != -- ]; do opts+=("$1"); shift; done
        shift
        out=$(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet "${LL[@]}" "${opts[@]}" -- "$@" \
                2>"$T_TMP/err"); rc=$?
        grep -c "^$UNIX_NOTE" "$T_TMP/err" >>"$T_TMP/notes"
}

# Attacks.
in_ll -- python3 -c "$TO" path "$T_PROJECT/host.sock"
check "attack: a host service's socket in the project, by its path: EACCES" "EACCES" "$out"
if grep -q "munge" "$T_TMP/err" && grep -q "the ns backend hides them instead" "$T_TMP/err"; then
        ok "the refusal comes with the line, naming munge and the ns backend"
else not_ok "the refusal comes with the line, naming munge and the ns backend" "$(cat "$T_TMP/err")"; fi
in_ll -- python3 -c "$TO" path "$svc/munge.socket.2"
check "attack: a munge-like socket in a directory of its own under /tmp: EACCES" "EACCES" "$out"
in_ll -- python3 -c "$TO" abstract "$name"
check "attack: the host's abstract name: EACCES" "EACCES" "$out"
in_ll -- python3 -c "$TRY" '__import__("socket").socket(1, 2)' x
check "attack: a unix datagram socket (sendto() names any path): EACCES" "EACCES" "$out"
in_ll -- python3 -c "$TRY" '__import__("socket").socketpair(1, 2)' x
check "attack: a unix datagram pair: EACCES" "EACCES" "$out"
check "the host's listeners took no connection" "0" \
        "$(grep -c conn "$T_TMP/host-conns" 2>/dev/null || echo 0)"
check "one line per run that met a refusal" "1 1 1 0 0" "$(tr '\n' ' ' <"$T_TMP/notes" | sed 's/ $//')"

# Controls.
check "control: outside the sandbox the same connect reaches the munge-like socket" \
        "OK:HOST-SERVICE" "$(python3 -c "$TO" path "$svc/munge.socket.2")"
in_ll --profile unrestricted -- python3 -c "$TRY" '__import__("socket").socket(1)' x
check "control: without the notifications the rule fails closed: socket(AF_UNIX) EACCES" \
        "EACCES" "$out"

# What open still gives.
OWN='import os, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind("own.sock")
s.listen(4)
if os.fork() == 0:
    c, _ = s.accept()
    c.send(c.recv(16).upper())
    os._exit(0)
c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
c.connect("own.sock")
c.send(b"ping")
print("OK:" + c.recv(16).decode())
os.wait()'
in_ll -- python3 -c "$OWN"
check "the command's own unix server serves its client" "0:OK:PING" "$rc:$out"

# TCP: an echo server of the host's on loopback, a port with nothing behind it, and a listener
# whose accept queue is full (a SYN to it is dropped: the handshake hangs).
ECHO='import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept(); c.sendall(b"ECHO"); c.close()'
python3 -c "$ECHO" "$T_TMP/echo-port" &
echo_pid=$!
trap 'kill "$srv" "$echo_pid" 2>/dev/null; rm -rf "$svc" "$T_PROJECT/host.sock"' EXIT
for _ in $(seq 100); do [ -s "$T_TMP/echo-port" ] && break; sleep 0.05; done
TCP='import errno, socket, struct, sys, threading, time
echo = int(sys.argv[1])
res = []
def answer(f):
    try:
        return f()
    except OSError as e:
        return errno.errorcode[e.errno]
def blocking():
    c = socket.socket(); c.connect(("127.0.0.1", echo)); return c.recv(4).decode()
res.append("blocking:" + answer(blocking))
def nonblocking():
    c = socket.socket(); c.setblocking(False)
    r = c.connect_ex(("127.0.0.1", echo))
    return errno.errorcode[r] if r else "0"
res.append("nonblocking:" + answer(nonblocking))
z = socket.socket(); z.bind(("127.0.0.1", 0)); dead = z.getsockname()[1]; z.close()
res.append("refused:" + answer(lambda: socket.socket().connect(("127.0.0.1", dead))))
# A listener of its own, reached from a client of its own.
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.socket(); c.connect(l.getsockname()); a, _ = l.accept(); a.send(b"LSTN")
res.append("listen:" + c.recv(4).decode())
# The hanging handshake: a full queue, one blocking connect stuck in a thread, then another.
full = socket.socket(); full.bind(("127.0.0.1", 0)); full.listen(0)
q = socket.socket(); q.connect(full.getsockname())
stuck = {"done": False}
def hang():
    try:
        socket.socket().connect(full.getsockname())
    except OSError:
        pass
    stuck["done"] = True
threading.Thread(target=hang, daemon=True).start()
time.sleep(0.3)
res.append("while-stuck:" + answer(blocking) + ":" + ("pending" if not stuck["done"] else "returned"))
# A blocking connect with a send timeout (SO_SNDTIMEO, 1 s) to the same hung handshake: the
# kernel gives up waiting with EINPROGRESS after the timeout.
def timed():
    c = socket.socket()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 1, 0))
    t = time.monotonic()
    r = answer(lambda: c.connect(full.getsockname()) or "0")
    took = time.monotonic() - t
    return r + ":" + ("1s" if 0.8 <= took < 10 else "%.1fs" % took)
res.append("sndtimeo:" + timed())
print(" ".join(res))
sys.stdout.flush()'
in_ll -- python3 -c "$TCP" "$(cat "$T_TMP/echo-port")"
check "TCP: blocking, non-blocking, refused, a listener; a hung handshake holds up no other connect, and SO_SNDTIMEO ends it (EINPROGRESS)" \
        "0:blocking:ECHO nonblocking:EINPROGRESS refused:ECONNREFUSED listen:LSTN while-stuck:ECHO:pending sndtimeo:EINPROGRESS:1s" \
        "$rc:$out"
out=$(timeout 60 python3 -c "$TCP" "$(cat "$T_TMP/echo-port")" 2>&1)
check "control: outside, the same connects give the same answers (the timed one is the kernel's own)" \
        "blocking:ECHO nonblocking:EINPROGRESS refused:ECONNREFUSED listen:LSTN while-stuck:ECHO:pending sndtimeo:EINPROGRESS:1s" \
        "$out"
LISTEN='import socket, sys
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
open(sys.argv[1], "w").write(str(l.getsockname()[1]))
c, _ = l.accept(); c.sendall(b"INSIDE")'
(cd "$T_PROJECT" && timeout 60 "$CORDON" run --quiet "${LL[@]}" -- \
        python3 -c "$LISTEN" "$T_PROJECT/in-port" >"$T_TMP/in-out" 2>&1) &
inside=$!
for _ in $(seq 200); do [ -s "$T_PROJECT/in-port" ] && break; sleep 0.05; done
check "a TCP listener inside is reached from the host" "INSIDE" \
        "$(python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10); print(s.recv(8).decode())' \
        "$(cat "$T_PROJECT/in-port" 2>/dev/null || echo 1)" 2>&1 || cat "$T_TMP/in-out")"
wait "$inside"
