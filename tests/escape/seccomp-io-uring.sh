#!/usr/bin/env bash
# Attack: io_uring performs its operations (openat, socket, connect...) inside the kernel where
# the filter never sees them, and has been a steady source of kernel bugs. The seccomp filter
# answers EPERM at entry. Control: with the layers off the kernel rejects the NULL parameters and
# fd -1 itself.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

# kernel.io_uring_disabled=2 refuses io_uring_setup with EPERM for everyone, =1 for whoever is not
# in kernel.io_uring_group: then the kernel's answer is all the control can show.
case $(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0) in
0) setup=EFAULT ;;
*) setup="EFAULT|EPERM" ;;
esac

# The landlock backend's isolated network refuses io_uring in every profile (its socket operation
# would get past the socket() refusal; tests/escape/landlock-io-uring-socket.sh): there the
# control run without the layers gets EPERM as well, from the network rule.
checks() {
        if [ "$set_name" = landlock ]; then
                denied io_uring_setup EPERM EPERM
                denied io_uring_enter EPERM EPERM
                denied io_uring_register EPERM EPERM
                return
        fi
        denied io_uring_setup EPERM "$setup|ENOSYS"
        denied io_uring_enter EPERM "EBADF|ENOSYS"
        denied io_uring_register EPERM "EINVAL|EBADF|ENOSYS" # fd -1: "no ring" since 6.11
}
seccomp_main 6 checks
