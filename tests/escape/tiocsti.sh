#!/usr/bin/env bash
# Attack: push keystrokes into the caller's terminal with TIOCSTI for the host shell to run after
# exit (CVE-2017-5226 in bubblewrap); the new session cordon makes means it is not the controlling
# tty. Control: the same ioctl works from the terminal's own session outside.
. "$(dirname "$0")/../lib/tap.sh"

# pty-run CMD...: runs CMD as session leader on a new pty (its controlling tty); prints what CMD
# wrote, then "QUEUED:" and whatever input is left queued on the terminal for the next reader.
PTYRUN='import fcntl, os, pty, select, sys, termios, time
master, slave = pty.openpty()
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ECHO  # injected input must only show up as queued input, not as output
termios.tcsetattr(slave, termios.TCSANOW, attrs)
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status = os.waitpid(pid, 0)
out = b""
while select.select([master], [], [], 0.2)[0]:
    try:
        data = os.read(master, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ICANON
attrs[6][termios.VMIN], attrs[6][termios.VTIME] = 0, 0
termios.tcsetattr(slave, termios.TCSANOW, attrs)
queued = os.read(slave, 4096) if select.select([slave], [], [], 0.1)[0] else b""
text = lambda b: b.decode(errors="replace").replace("\r", "").strip()
print(text(out) + " QUEUED:" + text(queued))'
INJECT='import errno, fcntl, termios
try:
    for c in b"echo pwned\n":
        fcntl.ioctl(0, termios.TIOCSTI, bytes([c]))
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])'

# With dev.tty.legacy_tiocsti=0 the kernel refuses TIOCSTI to callers without CAP_SYS_ADMIN
# (EIO) before looking at the session; otherwise a foreign terminal gives EPERM.
if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 0 ]; then
        inside=EIO
        if [ "$(id -u)" -eq 0 ]; then control="OK QUEUED:echo pwned"; else control="EIO QUEUED:"; fi
else
        inside=EPERM control="OK QUEUED:echo pwned"
fi

plan 3
# Not a first run: the note a first run prints on a terminal (the default sandbox.conf written)
# would land in the output read below.
mkdir -p "$HOME/.config/cordon" && : >"$HOME/.config/cordon/sandbox.conf"
check "control: TIOCSTI on the own controlling tty outside" "$control" \
        "$(cd "$T_PROJECT" && python3 -c "$PTYRUN" python3 -c "$INJECT" 2>&1)"
out=$(cd "$T_PROJECT" && python3 -c "$PTYRUN" "$CORDON" run --quiet -- python3 -c "$INJECT" 2>&1)
check "TIOCSTI from inside: $inside, nothing queued" "$inside QUEUED:" "$out"
case $out in
*pwned*) not_ok "nothing was queued on the caller's terminal" "output: $out" ;;
*) ok "nothing was queued on the caller's terminal" ;;
esac
