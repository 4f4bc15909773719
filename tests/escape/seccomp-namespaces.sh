#!/usr/bin/env bash
# Attack: enter or create namespaces (a new user namespace hands back every capability cordon
# dropped): setns, unshare, clone with a namespace flag, clone3 (whose flags the filter cannot
# read: it answers ENOSYS so that libc falls back to clone). Control: with the layers off a new
# user namespace is created for the probe alone, setns gets EBADF for fd -1, clone3 with size 0
# gets EINVAL from the kernel.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

checks() {
        denied setns EPERM EBADF
        denied unshare EPERM OK               # unshare(CLONE_NEWUSER)
        denied clone-newuser EPERM OK         # clone(CLONE_NEWUSER | SIGCHLD)
        denied clone3 ENOSYS EINVAL
}
seccomp_main 8 checks
