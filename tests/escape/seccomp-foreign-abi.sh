#!/usr/bin/env bash
# Attack: make system calls through another ABI, whose numbers the x86_64 filter does not know:
# i386 through int 0x80 (audit arch I386) and x32 (arch x86_64, numbers with bit 30 set). The
# filter's bad-architecture action and libseccomp's x32 check answer EPERM for every call,
# getpid included. Control: with the layers off the answer is the host's.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

if [ "$(uname -m)" != x86_64 ]; then
        plan 1
        skip "not x86_64" "foreign ABIs"
        exit 0
fi
# The host's own answers: getpid works through int 0x80 unless ia32 emulation is off (the probe
# then dies of a signal before any system call, and no filter can see it); x32 gives ENOSYS
# unless the kernel was built with CONFIG_X86_X32_ABI.
int80=$("${SYSPROBE:-false}" int80-getpid 2>&1)
x32=$("${SYSPROBE:-false}" x32-getpid 2>&1)
case $int80 in
SIG*) int80_inside=$int80 ;;
*) int80_inside=EPERM ;;
esac

checks() {
        if [ "$set_name" = landlock ]; then
                # Without a network namespace socket() stays refused with the layers off, and so
                # must the foreign ABIs: i386 socketcall() through int 0x80 would walk around the
                # x86_64 socket rule. The default backend's control carries the proof.
                denied int80-getpid "$int80_inside" "$int80_inside"
                denied x32-getpid EPERM EPERM
        else
                denied int80-getpid "$int80_inside" "$int80"
                denied x32-getpid EPERM "$x32"
        fi
}
seccomp_main 4 checks
