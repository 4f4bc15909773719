#!/usr/bin/env python3
# A terminal for the escape tests: runs a command as session leader on a new pty (echo off) and
# answers the queries it sees in the output, each --delay seconds later, as a terminal over a
# slow link would; the clipboard holds "secret". Prints what reached the terminal (OUT:) and what
# input was left queued for the next reader, the user's shell (QUEUED:), both escaped.
# Usage: fake-terminal.py [--delay SECONDS] CMD...
import fcntl, os, pty, select, sys, termios, time

delay = 0.0
args = sys.argv[1:]
if args[:1] == ["--delay"]:
    delay, args = float(args[1]), args[2:]

ANSWERS = [
    (b"\x1b[>c", b"\x1b[>0;10;1c"),              # DA2
    (b"\x1b[c", b"\x1b[?1;2c"),                  # DA1
    (b"\x1b[6n", b"\x1b[5;1R"),                  # cursor position
    (b"\x1b[5n", b"\x1b[0n"),                    # status
    (b"\x1b]52;c;?\x07", b"\x1b]52;c;c2VjcmV0\x07"),  # clipboard read: "secret"
]

master, slave = pty.openpty()
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ECHO  # input must only show up as queued input, not as output
termios.tcsetattr(slave, termios.TCSANOW, attrs)
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.close(master)
    os.execvp(args[0], args)

out = b""
scanned = 0
due = []  # (time, answer)
status = None
while True:
    now = time.monotonic()
    for t, a in [d for d in due if d[0] <= now]:
        os.write(master, a)
        due.remove((t, a))
    if status is None:
        w, st = os.waitpid(pid, os.WNOHANG)
        if w == pid:
            status = st
            quiet_until = time.monotonic() + 0.3
    if status is not None and not due and time.monotonic() >= quiet_until:
        break
    if select.select([master], [], [], 0.02)[0]:
        try:
            data = os.read(master, 4096)
        except OSError:
            data = b""
        out += data
        # Answer each query once, in the order they came.
        while True:
            hits = [(out.find(q, scanned), q, a) for q, a in ANSWERS if out.find(q, scanned) >= 0]
            if not hits:
                break
            i, q, a = min(hits)
            due.append((time.monotonic() + delay, a))
            scanned = i + len(q)

attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ICANON
attrs[6][termios.VMIN], attrs[6][termios.VTIME] = 0, 0
termios.tcsetattr(slave, termios.TCSANOW, attrs)
# Until nothing more comes for 0.2 s: the answers written to the master reach the slave's line
# discipline one by one (a busy machine left all but the first behind a single read).
queued = b""
while select.select([slave], [], [], 0.2)[0]:
    chunk = os.read(slave, 4096)
    if not chunk:
        break
    queued += chunk
esc = lambda b: repr(b)[2:-1]
print("OUT:" + esc(out) + " QUEUED:" + esc(queued))
