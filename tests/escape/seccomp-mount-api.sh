#!/usr/bin/env bash
# Attack: remount, unmount, move or clone mounts (old and new mount API) to uncover what the
# namespace view masks or to undo its read-only binds. The seccomp filter answers EPERM at entry.
# Control: with the layers off the kernel gets the call and rejects the arguments itself
# (EINVAL/EFAULT); where it checks CAP_SYS_ADMIN over the mount namespace first (pivot_root,
# fsopen, fsmount, fspick, move_mount) sysprobe --userns gets that capability in a new user and
# mount namespace, which the filter refuses inside (unshare: EPERM, ignored by sysprobe).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

checks() {
        denied mount EPERM EINVAL             # MS_NOUSER: always EINVAL
        denied umount2 EPERM EINVAL           # an undefined flag
        denied pivot_root EPERM EFAULT --userns
        denied fsopen EPERM EINVAL --userns
        denied fsconfig EPERM EINVAL          # fd -1
        denied fsmount EPERM EINVAL --userns
        denied fspick EPERM EINVAL --userns
        denied move_mount EPERM EINVAL --userns
        denied open_tree EPERM EINVAL         # AT_RECURSIVE without OPEN_TREE_CLONE
        denied open_tree_attr EPERM "EINVAL|ENOSYS" # Linux 6.15
        denied mount_setattr EPERM EINVAL
}
seccomp_main 22 checks
