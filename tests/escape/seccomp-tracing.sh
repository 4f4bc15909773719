#!/usr/bin/env bash
# Attack: reach other processes' memory (ptrace, process_vm_readv/writev) or the large kernel
# surfaces behind eBPF, perf events, userfaultfd (an exploitation aid) and fanotify. The seccomp
# filter answers EPERM at entry. Control: with the layers off the kernel answers for the
# harmless arguments itself (no such pid, undefined flags, no such bpf command).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

checks() {
        denied ptrace EPERM ESRCH             # PTRACE_ATTACH to a pid that cannot exist
        denied process_vm_readv EPERM EINVAL  # flags must be 0
        denied process_vm_writev EPERM EINVAL
        denied perf_event_open EPERM EINVAL
        denied bpf EPERM EINVAL
        denied userfaultfd EPERM EINVAL       # UFFD_USER_MODE_ONLY plus an undefined bit
        denied fanotify_init EPERM EINVAL     # FAN_REPORT_FID plus an undefined bit
}
seccomp_main 14 checks
