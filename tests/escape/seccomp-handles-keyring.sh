#!/usr/bin/env bash
# Attack: open files by handle, past every path check and out of bind mounts ("shocker"), and
# reach the user's keyrings, which are not namespaced. The seccomp filter answers EPERM at entry.
# Control: with the layers off the kernel rejects the NULL pointers and bad operations itself.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

checks() {
        denied open_by_handle_at EPERM EFAULT
        denied name_to_handle_at EPERM EINVAL
        denied keyctl EPERM EOPNOTSUPP
        denied add_key EPERM EFAULT
        denied request_key EPERM EFAULT
}
seccomp_main 10 checks
