#!/usr/bin/env bash
# Must keep working under the seccomp filter: fork, threads (clone3 answers ENOSYS, libc falls
# back to clone), the personality query and PER_LINUX, other ioctls, socketpair. The mount probe
# shows the filter is on in the same runs.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

checks() {
        expect "fork: OK" OK -- fork
        expect "pthread_create: OK (clone3 ENOSYS, then clone)" OK -- thread
        expect "personality(0xffffffff), the query: OK" OK -- personality-query
        expect "personality(PER_LINUX): OK" OK -- personality-linux
        expect "ioctl(FIONREAD) on a pipe: OK" OK -- fionread
        expect "socketpair: OK" OK -- socketpair
        expect "the filter is on: mount answers EPERM" EPERM -- mount
}
seccomp_main 7 checks
