/* The landlock backend's reaper (see reaper.h): started by the supervisor, it starts the command
 * and stays its parent, so that nothing the command leaves behind outlives the sandbox, not even
 * when the supervisor is SIGKILLed. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "lib/launch/control.h"
#include "lib/launch/pid1.h"
#include "lib/launch/raw-syscall.h"
#include "lib/launch/reaper.h"
#include "shared/macro.h"
#include "shared/sanitizer.h"

/* The reaper's side runs on raw system calls only: in the landlock backend it may share the
 * supervisor's memory (see spawn.c), so it must not write errno or touch libc state. */

/* SIGKILL to each child listed in /proc/thread-self/children (the reaper is single-threaded, so
 * that is all of them, orphans included); returns how many. */
static unsigned kill_listed_children(void)
{
        char buf[4096];
        unsigned n = 0;
        long fd = cordon_raw_syscall4(SYS_openat, AT_FDCWD, "/proc/thread-self/children",
                                      O_RDONLY | O_CLOEXEC, 0);
        if (fd < 0)
                return 0;
        long pid = 0;
        bool in_number = false;
        for (;;) {
                long k = cordon_raw_syscall3(SYS_read, fd, buf, sizeof(buf));
                if (k == -EINTR)
                        continue;
                if (k <= 0)
                        break;
                for (long i = 0; i < k; i++) {
                        if (buf[i] >= '0' && buf[i] <= '9') {
                                pid = pid * 10 + (buf[i] - '0');
                                in_number = true;
                                continue;
                        }
                        if (in_number && pid > 0 &&
                            cordon_raw_syscall2(SYS_kill, pid, SIGKILL) == 0)
                                n++;
                        pid = 0;
                        in_number = false;
                }
        }
        if (in_number && pid > 0 && cordon_raw_syscall2(SYS_kill, pid, SIGKILL) == 0)
                n++;
        (void)cordon_raw_syscall1(SYS_close, fd);
        return n;
}

static void sleep_msec(long ms)
{
        struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000 * 1000};
        (void)cordon_raw_syscall2(SYS_nanosleep, &ts, NULL);
}

/* SIGKILL to every child until none is left (reaping them); for a subreaper, that is every
 * process below it. */
static void kill_children(void)
{
        /* A killed process's children are reparented to us only once it is gone: reap, scan,
         * kill, and again until wait4() says there is nobody left. Reaping comes first so that
         * a command that left nothing behind (the usual case) costs no read of /proc. */
        for (unsigned round = 0;; round++) {
                bool reaped = false;
                for (;;) {
                        long w = cordon_raw_syscall4(SYS_wait4, -1, NULL, WNOHANG, NULL);
                        if (w == -EINTR)
                                continue;
                        if (w < 0)
                                return; /* ECHILD: no child left */
                        if (w == 0)
                                break;
                        reaped = true;
                }
                if (round > 0 && !reaped)
                        sleep_msec(round < 11 ? 1 : 10);
                (void)kill_listed_children();
        }
}

int cordon_reaper_prepare(pid_t supervisor)
{
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, CORDON_REAPER_SIGNAL);
        long r;
        if ((r = cordon_raw_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, _NSIG / 8)) < 0 ||
            (r = cordon_raw_syscall0(SYS_setsid)) < 0 ||
            (r = cordon_raw_syscall2(SYS_prctl, PR_SET_PDEATHSIG, CORDON_REAPER_SIGNAL)) < 0 ||
            (r = cordon_raw_syscall2(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1)) < 0)
                return (int)r;
        /* The supervisor died before the death signal was armed. */
        if (cordon_raw_syscall0(SYS_getppid) != supervisor)
                return -ESRCH;
        return 0;
}

/* Whether the supervisor has died or is dying: no longer our parent, or its end of the
 * lifeline closed (which a dying process does before its children are reparented). */
static bool supervisor_gone(pid_t supervisor, int lifeline)
{
        if (cordon_raw_syscall0(SYS_getppid) != supervisor)
                return true;
        if (lifeline < 0)
                return false;
        struct pollfd p = {.fd = lifeline, .events = POLLIN};
        struct timespec now = {0, 0};
        /* No signal mask: its size, the fifth argument, is not read. */
        long n = cordon_raw_syscall4(SYS_ppoll, &p, 1, &now, NULL);
        return n > 0 && (p.revents & (POLLHUP | POLLERR | POLLIN));
}

_Noreturn void cordon_reaper_run(pid_t cmd, const sigset_t *forward, pid_t supervisor, int lifeline,
                                 void (*orphaned)(void *userdata), void *userdata)
{
        sigset_t set = *forward;
        sigaddset(&set, SIGCHLD);
        sigaddset(&set, CORDON_REAPER_SIGNAL);
        int status = 128 + SIGKILL;
        for (;;) {
                siginfo_t si;
                long sig = cordon_raw_syscall4(SYS_rt_sigtimedwait, &set, &si, NULL, _NSIG / 8);
                if (sig < 0)
                        continue; /* EINTR */
                /* From the supervisor: end the sandbox; or the supervisor died. Anyone else
                 * sending it gets nothing (a sandbox with signal scoping cannot reach us). */
                if (cordon_raw_syscall0(SYS_getppid) != supervisor ||
                    (sig == CORDON_REAPER_SIGNAL && si.si_pid == supervisor))
                        break;
                if (sig == CORDON_REAPER_SIGNAL)
                        continue;
                if (sig != SIGCHLD) {
                        (void)cordon_raw_syscall2(SYS_kill, cmd, sig);
                        continue;
                }
                bool done = false;
                for (;;) {
                        int st;
                        long w = cordon_raw_syscall4(SYS_wait4, -1, &st, WNOHANG, NULL);
                        if (w == -EINTR)
                                continue;
                        if (w <= 0)
                                break;
                        if (w == cmd) {
                                status = cordon_exit_status_from_wait(st);
                                done = true;
                        }
                }
                if (done)
                        break;
        }
        kill_children();
        /* Only once the supervisor is gone may libc run here again (see spawn.c): a supervisor
         * whose lifeline hung up has left its memory already (every thread of it is past
         * exit_mm() before the descriptors they share are closed). */
        if (orphaned && supervisor_gone(supervisor, lifeline))
                orphaned(userdata);
        for (;;)
                (void)cordon_raw_syscall1(SYS_exit_group, status);
}

static void raw_close(int fd)
{
        if (fd >= 0)
                (void)cordon_raw_syscall1(SYS_close, fd);
}

_Noreturn static void raw_exit(int code)
{
        for (;;)
                (void)cordon_raw_syscall1(SYS_exit_group, code);
}

/* The reaper's stack and, above it, the stack the command's child runs on until it execs. */
#define REAPER_STACK_SIZE  (64 * 1024)
#define COMMAND_STACK_SIZE (256 * 1024)
#define STACKS_SIZE        (REAPER_STACK_SIZE + COMMAND_STACK_SIZE)

/* One free pair of stacks, kept for the next sandbox rather than unmapped: unmapping memory a
 * child ran on costs a TLB shootdown on every CPU it touched, and the `cordon` program, which
 * starts one sandbox, never maps more than one. Taken and given back atomically: several
 * sandboxes may start at once from different threads, each with stacks of its own. */
static _Atomic(void *) stack_cache;

#ifndef CORDON_ASAN
static void *stacks_get(void)
{
        void *s = atomic_exchange(&stack_cache, NULL);
        if (s)
                return s;
        s = mmap(NULL, STACKS_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
        return s == MAP_FAILED ? NULL : s;
}
#endif

static void stacks_put(void *s)
{
        void *none = NULL;
        if (s && !atomic_compare_exchange_strong(&stack_cache, &none, s))
                (void)munmap(s, STACKS_SIZE);
}

/* The command borrows the reaper's memory until it execs (like vfork, but on a stack of its
 * own): no page tables to copy, no copy-on-write faults, which is most of the cost of a fork for
 * a process that execs at once. The reaper sleeps until the exec or the exit. What the child may
 * touch of the shared memory is harmless to it: errno (the same TLS; the reaper reads it only
 * when clone fails), and the capability count cache in caps.c, which it fills with the value
 * the reaper would. It allocates nothing (close_range, the fixed-size Landlock and PATH
 * buffers) and never returns into the reaper's frames. */
static pid_t clone_command(struct cordon_reaper *r)
{
        if (r->session) {
                /* A server that never execs cannot borrow the reaper's memory; and this reaper
                 * was forked (cordon_reaper_start()), so libc is its own to use. */
                pid_t pid = fork();
                if (pid == 0)
                        _exit(r->command(r->arg));
                return pid;
        }
#ifdef CORDON_ASAN
        /* AddressSanitizer cannot follow a switch to a stack it did not make: it warns on every
         * run and could report false errors. The sanitizer build forks. */
        pid_t pid = fork();
        if (pid == 0)
                _exit(r->command(r->arg));
        return pid;
#else
        return clone(r->command, (char *)r->stack + STACKS_SIZE, CLONE_VM | CLONE_VFORK | SIGCHLD,
                     r->arg);
#endif
}

_Noreturn static void reaper_main(struct cordon_reaper *r)
{
        for (size_t i = 0; i < ELEMENTSOF(r->parent_fds); i++)
                raw_close(r->parent_fds[i]);
        raw_close(r->lifeline[1]); /* the supervisor's alone: it hangs up when it dies */
        /* The signals it waits for with sigtimedwait(), blocked before anyone can send them. */
        sigset_t set = r->forward;
        sigaddset(&set, SIGCHLD);
        long e = cordon_raw_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, _NSIG / 8);
        if (e >= 0)
                e = cordon_reaper_prepare(r->supervisor);
        /* Named "cordon-reaper" (its comm, as /proc/PID/status shows it): cordon-serve refuses
         * any peer with such an ancestor, since everything below a reaper is sandboxed and
         * runs as the caller's uid (src/serve/serve-peer.c). A raw prctl like the rest. */
        if (e >= 0)
                e = cordon_raw_syscall2(SYS_prctl, PR_SET_NAME, "cordon-reaper");
        if (e == -ESRCH)
                raw_exit(125);
        if (e < 0) {
                (void)cordon_control_report(r->control_fd, CORDON_STEP_PROCESS, (int)e, -1);
                raw_exit(125);
        }
        pid_t cmd = clone_command(r);
        if (cmd < 0) {
                (void)cordon_control_report(r->control_fd, CORDON_STEP_FORK, errno, -1);
                raw_exit(125);
        }
        /* The command's status: end of file once it has exec'd (its copy was close-on-exec),
         * or the report of its failure, which goes on as it came. */
        if (r->status_fd >= 0) {
                raw_close(r->status_child_fd);
                struct cordon_control_msg m;
                long k;
                do
                        k = cordon_raw_syscall3(SYS_read, r->status_fd, &m, sizeof(m));
                while (k == -EINTR);
                if (k != (long)sizeof(m)) {
                        m = (struct cordon_control_msg){
                            .type = CORDON_CONTROL_STARTED, .pid = cmd, .rule = -1, .fd = -1};
                        if (k != 0)
                                m = (struct cordon_control_msg){.type = CORDON_CONTROL_REPORT,
                                                                .step = CORDON_STEP_FORK,
                                                                .err = k < 0 ? (int)-k : EIO,
                                                                .rule = -1,
                                                                .fd = -1};
                }
                (void)cordon_raw_syscall3(SYS_write, r->control_fd, &m, sizeof(m));
                raw_close(r->status_fd);
        }
        /* The server of a session has its own copy of the channel; the reaper keeps no way
         * into the sandbox or its terminal. */
        raw_close(r->control_fd);
        for (size_t i = 0; i < ELEMENTSOF(r->drop_fds); i++)
                raw_close(r->drop_fds[i]);
        /* Nor any other descriptor: the reaper never execs, so close-on-exec does not take
         * the caller's fds from it, and a copy kept for the sandbox's life would hold a pipe
         * the caller closes (or another sandbox's control channel) open. It needs none; its
         * clean-up after an orphaning opens what it uses. Kernels before 5.9 have no
         * close_range(): the closes above are what they get. The lifeline stays. */
        int keep = r->lifeline[0];
        if (keep > 3)
                (void)cordon_raw_syscall3(SYS_close_range, 3, keep - 1, 0);
        (void)cordon_raw_syscall3(SYS_close_range, keep >= 3 ? keep + 1 : 3, ~0U, 0);
        cordon_reaper_run(cmd, &r->forward, r->supervisor, keep, r->orphaned, r->userdata);
}

#if CORDON_RAW_SYSCALL_INLINE && !defined(CORDON_ASAN)
#define REAPER_CAN_SHARE_MEMORY 1
static int reaper_entry(void *arg)
{
        reaper_main(arg);
}
#endif

/* In the supervisor: both ends, where they are still open (the reaper is reaped, or never
 * started). */
static void lifeline_close(struct cordon_reaper *r)
{
        for (size_t i = 0; i < ELEMENTSOF(r->lifeline); i++)
                if (r->lifeline[i] >= 0) {
                        close(r->lifeline[i]);
                        r->lifeline[i] = -EBADF;
                }
}

/* Where the raw system calls are inline (x86_64), the reaper shares our memory (CLONE_VM): a
 * fork would cost copy-on-write faults on every page the supervisor, the reaper and the
 * command's vfork-like child then write, about 0.4 ms a run here. Sharing is safe because of
 * what each side does while the other runs: until the command has exec'd and the reaper has
 * closed its copy of the control channel, the supervisor's starting thread only close()s and
 * recvmsg()s (no errno written on success, nothing else touched), and the reaper and the
 * command's child run as the command's child alone did before; after it, the reaper runs on
 * raw system calls only (raw-syscall.h: no errno, no libc state), with a stack of its own,
 * until it exits. Other threads of the caller may run meanwhile: they do not touch this
 * sandbox's memory, and the reaper touches no one else's. It uses libc again only when the
 * supervisor has died (@orphaned). The sanitizer build, other architectures and
 * CORDON_SANDBOX_FORK_REAPER fork. */
pid_t cordon_reaper_start(struct cordon_reaper *r, int *ret_pidfd)
{
        int pidfd = -EBADF;
        pid_t pid;

        r->supervisor = getpid();
        if (r->session)
                r->fork = true;
#ifndef CORDON_ASAN
        if (!r->stack && !(r->stack = stacks_get()))
                return -ENOMEM;
#endif
        lifeline_close(r);
        if (pipe2(r->lifeline, O_CLOEXEC) < 0) {
                r->lifeline[0] = r->lifeline[1] = -EBADF;
                return -errno;
        }
#ifdef REAPER_CAN_SHARE_MEMORY
        if (!r->fork) {
                pid = clone(reaper_entry, (char *)r->stack + REAPER_STACK_SIZE,
                            CLONE_VM | CLONE_PIDFD | SIGCHLD, r, &pidfd);
                if (pid < 0) {
                        int e = -errno;
                        lifeline_close(r);
                        return e;
                }
                goto done;
        }
#endif
        pid = fork();
        if (pid == 0)
                reaper_main(r);
        if (pid < 0) {
                int e = -errno;
                lifeline_close(r);
                return e;
        }
#ifdef REAPER_CAN_SHARE_MEMORY
done:
#endif
        /* The reaper's end: not ours to hold (nor to pass on to what we start next). */
        close(r->lifeline[0]);
        r->lifeline[0] = -EBADF;
        if (pidfd < 0)
                pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        r->pid = pid;
        *ret_pidfd = pidfd >= 0 ? pidfd : -EBADF;
        return pid;
}

void cordon_reaper_stop(struct cordon_reaper *r)
{
        if (r->pid <= 0)
                return;
        (void)kill(r->pid, CORDON_REAPER_SIGNAL);
        /* A command without Landlock's signal scoping can stop the reaper (SIGSTOP cannot be
         * ignored): it is continued to take the signal, and again at every stop after. */
        (void)kill(r->pid, SIGCONT);
        for (;;) {
                int st;
                pid_t w = waitpid(r->pid, &st, WUNTRACED);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w > 0 && WIFSTOPPED(st)) {
                        (void)kill(r->pid, SIGCONT);
                        continue;
                }
                break;
        }
        r->pid = 0;
        lifeline_close(r);
}

void cordon_reaper_clear(struct cordon_reaper *r)
{
        stacks_put(r->stack);
        r->stack = NULL;
        lifeline_close(r);
}
