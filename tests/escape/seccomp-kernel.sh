#!/usr/bin/env bash
# Attack: change the kernel or the machine: load or unload modules, kexec, reboot, swap,
# process accounting, quotas. The seccomp filter answers EPERM at entry.
# Control: with the layers off the same harmless arguments (bad lengths, flags, magic, NULL
# pointers) reach the kernel. Modules, kexec, swapoff and acct need capabilities of the initial
# user namespace, which nobody has inside (cordon drops them, root included): there the kernel
# answers EPERM itself, or ENOSYS when it was built without the call, and the control can only
# check that answer; the root run of tests/unit/test-seccomp-filter.c carries the proof that the
# filter, not the capability check, refuses them. reboot gets past its check with --userns:
# sysprobe calls it from PID 1 of a new PID namespace owned by the new user namespace.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

if [ -e /proc/modules ]; then modules=EPERM; else modules=ENOSYS; fi
if [ -e /sys/kernel/kexec_loaded ]; then kexec="EPERM|ENOSYS"; else kexec=ENOSYS; fi

checks() {
        denied init_module EPERM "$modules"
        denied finit_module EPERM "$modules"
        denied delete_module EPERM "$modules"
        denied kexec_load EPERM "$kexec"      # 17 segments: EINVAL with CAP_SYS_BOOT
        denied kexec_file_load EPERM "$kexec"
        denied reboot EPERM EINVAL --userns   # bad magic
        denied swapon EPERM "EINVAL|ENOSYS"   # flags are checked before the capability
        denied swapoff EPERM "EPERM|ENOSYS"
        denied acct EPERM "EPERM|ENOSYS"
        denied quotactl EPERM "EINVAL|ENOSYS" # quota type 255
        denied quotactl_fd EPERM "EBADF|EINVAL|ENOSYS"
}
seccomp_main 22 checks
