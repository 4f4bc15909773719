#!/usr/bin/env bash
# Attack: the landlock backend has no network namespace, so its isolated mode refuses socket(2)
# with seccomp, even under --profile unrestricted. io_uring's IORING_OP_SOCKET makes the same
# socket inside the kernel, where no seccomp filter looks: without a rule of its own the command
# reaches the host's network through it. The io_uring calls answer EPERM there too. Controls:
# the same probe outside cordon and under the ns backend (whose network namespace confines the
# socket) makes the socket.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

plan 5
if [ -z "${SYSPROBE:-}" ] || ! cp "$SYSPROBE" "$T_PROJECT/sysprobe" 2>/dev/null; then
        for i in 1 2 3 4 5; do skip "no sysprobe (SYSPROBE='${SYSPROBE:-}')" "io_uring socket check $i"; done
        exit 0
fi
case $(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0) in
0) ;;
*)
        for i in 1 2 3 4 5; do skip "kernel.io_uring_disabled is set" "io_uring socket check $i"; done
        exit 0
        ;;
esac
set_args=()
check "control: outside cordon, io_uring makes a TCP socket" OK "$("$T_PROJECT/sysprobe" io_uring-socket 2>&1)"
check "control: --backend ns --profile unrestricted: io_uring makes it (in the sandbox's netns)" OK \
        "$(sysprobe_in --backend ns --profile unrestricted -- io_uring-socket)"
check "--backend landlock --profile unrestricted: socket() is refused" EPERM \
        "$(sysprobe_in --backend landlock --profile unrestricted -- socket)"
check "--backend landlock --profile unrestricted: io_uring's socket is refused too" EPERM \
        "$(sysprobe_in --backend landlock --profile unrestricted -- io_uring-socket)"
check "--backend landlock (default profile): io_uring's socket is refused" EPERM \
        "$(sysprobe_in --backend landlock -- io_uring-socket)"
