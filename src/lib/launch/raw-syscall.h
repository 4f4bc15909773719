/* System calls that return -errno and touch no memory but their arguments: no errno, no
 * thread-local storage, no libc state. For code that runs in a process sharing the supervisor's
 * memory (CLONE_VM) while the supervisor runs on, whose errno would otherwise be clobbered.
 * Only x86_64 has the inline version (CORDON_RAW_SYSCALL_INLINE); elsewhere it goes through
 * syscall(3), which writes errno, and callers must not share memory (they fork instead). */
#pragma once

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define CORDON_RAW_SYSCALL_INLINE 1

/* Arguments 5 and 6 are passed as 0: some calls (prctl) check that unused ones are. */
static inline long cordon_raw_syscall(long n, long a, long b, long c, long d)
{
        long ret;
        register long r10 __asm__("r10") = d;
        register long r8 __asm__("r8") = 0;
        register long r9 __asm__("r9") = 0;
        __asm__ volatile("syscall"
                         : "=a"(ret)
                         : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                         : "rcx", "r11", "memory");
        return ret;
}
#else
static inline long cordon_raw_syscall(long n, long a, long b, long c, long d)
{
        long r = syscall(n, a, b, c, d, 0L, 0L);
        return r < 0 ? -errno : r;
}
#endif

#define cordon_raw_syscall0(n)          cordon_raw_syscall((n), 0, 0, 0, 0)
#define cordon_raw_syscall1(n, a)       cordon_raw_syscall((n), (long)(a), 0, 0, 0)
#define cordon_raw_syscall2(n, a, b)    cordon_raw_syscall((n), (long)(a), (long)(b), 0, 0)
#define cordon_raw_syscall3(n, a, b, c) cordon_raw_syscall((n), (long)(a), (long)(b), (long)(c), 0)
#define cordon_raw_syscall4(n, a, b, c, d)                                                         \
        cordon_raw_syscall((n), (long)(a), (long)(b), (long)(c), (long)(d))
