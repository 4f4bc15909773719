#!/usr/bin/env bash
# Attack: push input into a terminal (TIOCSTI), also with garbage in the high 32 bits of the
# request, which the kernel ignores (CVE-2019-10063), or paste a console selection (TIOCLINUX).
# The seccomp filter compares the low 32 bits and answers EPERM. tiocsti.sh covers the session
# side against the caller's terminal; here sysprobe opens a private pty and makes it its own
# controlling terminal, so the control's TIOCSTI succeeds on a terminal nobody reads.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

# With dev.tty.legacy_tiocsti=0 TIOCSTI needs CAP_SYS_ADMIN, which nobody has inside: EIO.
if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 0 ]; then
        sti=EIO
else
        sti=OK
fi

checks() {
        denied tiocsti EPERM "$sti"
        denied tiocsti-high EPERM "$sti"      # TIOCSTI | 1 << 32
        denied tioclinux EPERM ENOTTY         # subcode 0 on a pty: not a console
        expect "ioctl(FIONREAD): OK inside" OK -- fionread
}
seccomp_main 7 checks
