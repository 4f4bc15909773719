#!/usr/bin/env bash
# Attack: change the line discipline of a terminal (TIOCSETD), also with garbage in the high 32
# bits of the request, which the kernel ignores. Under --no-pty the command shares the caller's
# terminal, and a discipline such as N_HDLC or N_PPP leaves it unusable after cordon exits. The
# seccomp filter answers EPERM. Control: with the layers off, sysprobe's TIOCSETD to N_TTY (the
# discipline it already has) on a private pty succeeds.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

checks() {
        denied tiocsetd EPERM OK
        denied tiocsetd-high EPERM OK # TIOCSETD | 1 << 32
        expect "TIOCSETD with --no-pty: EPERM inside" EPERM --no-pty -- tiocsetd
}
seccomp_main 5 checks
