#!/usr/bin/env bash
# Attack (landlock backend: the host's devpts, shared with the user's other terminals): read and
# write a pty the test opened outside by its name /dev/pts/N, and ask the supervisor (which
# answers TIOCGPTPEER on the command's behalf) for the peer of something that is not a pty
# master. /dev/pts is never granted: every open by name is EACCES; a TIOCGPTPEER on /dev/null or
# a pipe is ENOTTY, never a descriptor. Controls: the same open outside and with --profile
# unrestricted (no Landlock) works; TIOCGPTPEER on a master the command opened itself works.
. "$(dirname "$0")/../lib/tap.sh"

inside() { (cd "$T_PROJECT" && "$CORDON" run --quiet --net isolated --backend landlock "$@" 2>&1); }
# PEER: ioctl(open(argv[2]), TIOCGPTPEER, O_RDWR|O_NOCTTY) ("pipe": a pipe's read end) prints
# "OK:<the new fd's tty name without its number>" or the errno name (a new master is unlocked
# first, as unlockpt() does).
PEER='import errno, fcntl, os, struct, sys
TIOCGPTPEER, TIOCSPTLCK = 0x5441, 0x40045431
if sys.argv[1] == "pipe":
    fd = os.pipe()[0]
else:
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
if sys.argv[1] == "/dev/ptmx":
    fcntl.ioctl(fd, TIOCSPTLCK, struct.pack("i", 0))  # unlockpt()
try:
    peer = fcntl.ioctl(fd, TIOCGPTPEER, os.O_RDWR | os.O_NOCTTY)
    print("OK:" + os.ttyname(peer).rstrip("0123456789"))
except OSError as e:
    print(errno.errorcode[e.errno])'

# The user's other terminal: a pty pair held open outside, its slave's name in $T_TMP/name.
python3 -c 'import os, pty, sys, time
m, s = pty.openpty()
open(sys.argv[1] + ".tmp", "w").write(os.ttyname(s))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(300)' "$T_TMP/name" &
holder=$!
trap 'kill "$holder" 2>/dev/null' EXIT
for _ in $(seq 100); do [ -e "$T_TMP/name" ] && break; sleep 0.05; done
pts=$(cat "$T_TMP/name" 2>/dev/null)

plan 9
case $pts in /dev/pts/[0-9]*) ok "a host pty is open outside ($pts)" ;;
*) not_ok "a host pty is open outside" "got: '$pts'" ;; esac
check "control: opening $pts read-write outside works" "OK:None" \
        "$(python3 -c "$TRY" 'os.close(os.open(p, os.O_RDWR | os.O_NOCTTY))' "$pts" 2>&1)"
check "control: with --profile unrestricted it opens inside too" "OK:None" \
        "$(inside --profile unrestricted -- python3 -c "$TRY" 'os.close(os.open(p, os.O_RDWR | os.O_NOCTTY))' "$pts")"
check "opening $pts for reading inside: EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" 'os.open(p, os.O_RDONLY | os.O_NOCTTY)' "$pts")"
check "opening $pts for writing inside: EACCES" "EACCES" \
        "$(inside -- python3 -c "$TRY" 'os.open(p, os.O_WRONLY | os.O_NOCTTY)' "$pts")"
check "control: TIOCGPTPEER on a master opened inside gives its pty" "OK:/dev/pts/" \
        "$(inside -- python3 -c "$PEER" /dev/ptmx)"
check "control: TIOCGPTPEER on /dev/null outside is ENOTTY" "ENOTTY" \
        "$(python3 -c "$PEER" /dev/null 2>&1)"
check "TIOCGPTPEER on /dev/null inside: ENOTTY, no descriptor" "ENOTTY" \
        "$(inside -- python3 -c "$PEER" /dev/null)"
check "TIOCGPTPEER on a pipe inside: ENOTTY, no descriptor" "ENOTTY" \
        "$(inside -- python3 -c "$PEER" pipe)"
