/* The supervisor's wait loop: one signalfd for the forwarded signals and SIGCHLD, poll()
 * timeouts for the wall time limit and the grace period after a forwarded signal. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/pid1.h"
#include "lib/pty.h"
#include "lib/raw-syscall.h"
#include "lib/supervise.h"
#include "shared/macro.h"

static uint64_t now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

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

_Noreturn void cordon_reaper_run(pid_t cmd, const sigset_t *forward, pid_t supervisor,
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
        /* Only once the supervisor is gone may libc run here again (see spawn.c). */
        if (orphaned && cordon_raw_syscall0(SYS_getppid) != supervisor)
                orphaned(userdata);
        for (;;)
                (void)cordon_raw_syscall1(SYS_exit_group, status);
}

static void kill_sandbox(const struct cordon_supervise *s)
{
        if (s->kill_all && s->kill_all(s->userdata) >= 0)
                return;
        (void)kill(s->pid, s->kill_signal ?: SIGKILL);
}

/* Reaps @s->pid once it has exited. Returns true then, storing its wait status. */
static bool reap(const struct cordon_supervise *s, int *status)
{
        for (;;) {
                int st;
                pid_t w = waitpid(s->pid, &st, WNOHANG);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return false;
                *status = st;
                return true;
        }
}

int cordon_supervise_run(const struct cordon_supervise *s, int *ret_status,
                         enum cordon_end *ret_end)
{
        sigset_t mask = s->forward;
        sigaddset(&mask, SIGCHLD);
        if (s->pty)
                sigaddset(&mask, SIGWINCH);
        _cleanup_close_ int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
        if (sfd < 0)
                return -errno;

        uint64_t start = now_usec();
        uint64_t deadline = s->timeout_usec ? start + s->timeout_usec : 0;
        uint64_t grace_end = 0;
        enum cordon_end end = CORDON_END_EXITED;
        int status = 0;
        bool exited = reap(s, &status); /* it may be gone before the signalfd existed */

        while (!exited) {
                uint64_t next = deadline;
                if (grace_end && (!next || grace_end < next))
                        next = grace_end;
                int ms = -1;
                if (next) {
                        uint64_t t = now_usec();
                        uint64_t left = next <= t ? 0 : (next - t + 999) / 1000;
                        ms = left > INT_MAX ? INT_MAX : (int)left;
                }
                struct pollfd pfd[1 + CORDON_PTY_POLL_MAX] = {{.fd = sfd, .events = POLLIN}};
                nfds_t n = 1;
                if (s->pty) {
                        cordon_pty_poll_fds(s->pty, pfd + 1);
                        n += CORDON_PTY_POLL_MAX;
                }
                int k = poll(pfd, n, ms);
                if (k < 0 && errno != EINTR)
                        return -errno;
                /* An unexpected error of the relay hangs the terminal up, as a closed
                 * terminal window would: the inside gets SIGHUP and EIO, not a stuck write. */
                if (k > 0 && s->pty && cordon_pty_relay(s->pty, pfd + 1) < 0)
                        cordon_pty_close(s->pty);

                /* Only a SIGCHLD can mean the sandbox ended: no wait4() per relayed chunk. */
                bool chld = false;
                if (k > 0 && pfd[0].revents) {
                        struct signalfd_siginfo si;
                        while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                                if (si.ssi_signo == SIGCHLD) {
                                        chld = true;
                                        continue;
                                }
                                if (si.ssi_signo == SIGWINCH) {
                                        (void)cordon_pty_resize(s->pty);
                                        continue;
                                }
                                (void)kill(s->pid, (int)si.ssi_signo);
                                if (end == CORDON_END_EXITED &&
                                    (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM ||
                                     si.ssi_signo == SIGHUP) &&
                                    !grace_end)
                                        grace_end =
                                            now_usec() + (s->grace_usec ?: CORDON_GRACE_USEC);
                        }
                }
                if (chld && (exited = reap(s, &status)))
                        break;

                uint64_t t = now_usec();
                if (end == CORDON_END_EXITED && deadline && t >= deadline)
                        end = CORDON_END_TIMEOUT;
                else if (end == CORDON_END_EXITED && grace_end && t >= grace_end)
                        end = CORDON_END_KILLED;
                else
                        continue;
                kill_sandbox(s);
                deadline = grace_end = 0;
                int st;
                pid_t w;
                while ((w = waitpid(s->pid, &st, 0)) < 0 && errno == EINTR)
                        ;
                if (w < 0)
                        return -errno;
                status = st;
                exited = true;
        }

        if (s->pty) {
                (void)cordon_pty_drain(s->pty, CORDON_PTY_DRAIN_MSEC);
                /* Modes the inside left on are turned off, and what the user's terminal sends
                 * from now on is not typed into the user's shell. */
                (void)cordon_pty_finish(s->pty, CORDON_PTY_FINISH_MSEC);
        }
        *ret_status = cordon_exit_status_from_wait(status);
        *ret_end = end;
        return 0;
}
