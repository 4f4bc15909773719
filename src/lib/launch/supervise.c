/* The supervisor's wait, on the event loop: the pidfd says when the sandbox's first process
 * exited (no SIGCHLD, so several sandboxes can live in one process), a signalfd brings the
 * forwarded signals and SIGWINCH, the pty relay has its fds, and one timer source keeps the wall
 * time limit and the grace period after a forwarded signal. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/launch/pid1.h"
#include "lib/proxy/proxy.h"
#include "lib/terminal/pty.h"
#include "lib/launch/supervise.h"
#include "shared/macro.h"

/* Without pidfds (Linux < 5.3) the first process is polled this often. */
#define POLL_WITHOUT_PIDFD_USEC 10000

struct supervision {
        const struct cordon_supervise *s;
        struct cordon_loop *loop;
        int pidfd;
        int sfd;
        uint64_t deadline, grace_end;
        enum cordon_end end;
        int status; /* the wait status */
        bool exited;
        struct cordon_loop_source exit_src, signal_src, pty_src, timer_src, proxy_src;
};

static int send_one(const struct cordon_supervise *s, int pidfd, int sig)
{
        if (pidfd >= 0) {
                if (syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) == 0)
                        return 0;
                if (errno != ENOSYS)
                        return -errno;
        }
        return kill(s->pid, sig) < 0 ? -errno : 0;
}

static int send_signal(const struct cordon_supervise *s, int pidfd, int sig)
{
        int r = send_one(s, pidfd, sig);
        /* A reaper the command stopped would leave the signal pending: it runs again now and
         * takes it (SIGCONT is nothing else to it). */
        if (r >= 0 && s->watch_stops)
                (void)send_one(s, pidfd, SIGCONT);
        return r;
}

/* A reaper stopped by a signal it did not ask for is continued (watch_stops). waitid() with
 * WSTOPPED alone reports a stop, never an exit, and takes the report; nothing else of cordon
 * waits for stops. */
static void continue_if_stopped(struct supervision *v)
{
        siginfo_t si = {0};
        if (waitid(P_PID, (id_t)v->s->pid, &si, WSTOPPED | WNOHANG) == 0 && si.si_pid == v->s->pid)
                (void)send_one(v->s, v->pidfd, SIGCONT);
}

/* Reaps @s->pid, which was sent the signal that ends it: a stop on the way (the command stopping
 * its reaper again) is continued rather than waited on for ever. */
static int wait_ended(struct supervision *v, int *ret_status)
{
        const int flags = v->s->watch_stops ? WUNTRACED : 0;
        for (;;) {
                int st;
                pid_t w = waitpid(v->s->pid, &st, flags);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -errno;
                if (WIFSTOPPED(st)) {
                        (void)send_one(v->s, v->pidfd, SIGCONT);
                        continue;
                }
                *ret_status = st;
                return 0;
        }
}

static int kill_whole(const struct cordon_supervise *s, int pidfd)
{
        if (s->kill_all && s->kill_all(s->userdata) >= 0)
                return 0;
        return send_signal(s, pidfd, s->kill_signal ?: SIGKILL);
}

int cordon_supervise_kill(const struct cordon_supervise *s)
{
        return kill_whole(s, s->has_pidfd ? s->pidfd : -EBADF);
}

/* Reaps @pid once it has exited. Returns true then, storing its wait status. */
/* 1 once the sandbox's first process is reaped, 0 while it runs, or -errno: -ECHILD when
 * someone else reaped it (a caller with SIGCHLD ignored, or waitpid(-1)): its pidfd then stays
 * readable, and the loop would spin on it forever. */
static int reap(struct supervision *v)
{
        for (;;) {
                int st;
                pid_t w = waitpid(v->s->pid, &st, WNOHANG);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -errno;
                if (w == 0)
                        return 0;
                v->status = st;
                v->exited = true;
                return 1;
        }
}

static void update_timer(struct supervision *v)
{
        uint64_t next = v->deadline;
        if (v->grace_end && (!next || v->grace_end < next))
                next = v->grace_end;
        if (v->s->watch_stops) {
                uint64_t tick = cordon_now_usec() + CORDON_SUPERVISE_STOP_CHECK_USEC;
                if (!next || tick < next)
                        next = tick;
        }
        if (v->pidfd < 0) {
                uint64_t tick = cordon_now_usec() + POLL_WITHOUT_PIDFD_USEC;
                if (!next || tick < next)
                        next = tick;
        }
        v->timer_src.deadline = next;
}

static int on_exit_ready(void *userdata, const struct pollfd *fds)
{
        (void)fds;
        struct supervision *v = userdata;
        int r = reap(v);
        if (r != 0)
                cordon_loop_quit(v->loop, r < 0 ? r : 0);
        return 0;
}

static int on_signal(void *userdata, const struct pollfd *fds)
{
        (void)fds;
        struct supervision *v = userdata;
        struct signalfd_siginfo si;
        while (read(v->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                if (si.ssi_signo == SIGWINCH) {
                        if (v->s->pty)
                                (void)cordon_pty_resize(v->s->pty);
                        continue;
                }
                (void)send_signal(v->s, v->pidfd, (int)si.ssi_signo);
                if (v->end == CORDON_END_EXITED &&
                    (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP) &&
                    !v->grace_end)
                        v->grace_end = cordon_now_usec() + (v->s->grace_usec ?: CORDON_GRACE_USEC);
        }
        update_timer(v);
        return 0;
}

static void pty_fill(void *userdata, struct pollfd *fds)
{
        struct supervision *v = userdata;
        cordon_pty_poll_fds(v->s->pty, fds);
}

static int on_pty(void *userdata, const struct pollfd *fds)
{
        struct supervision *v = userdata;
        /* An unexpected error of the relay hangs the terminal up, as a closed terminal window
         * would: the inside gets SIGHUP and EIO, not a stuck write. */
        if (cordon_pty_relay(v->s->pty, fds) < 0)
                cordon_pty_close(v->s->pty);
        return 0;
}

static int on_proxy(void *userdata, const struct pollfd *fds)
{
        (void)fds;
        struct supervision *v = userdata;
        /* The proxy's own failures end a connection, never the sandbox. */
        (void)cordon_proxy_dispatch(v->s->proxy);
        v->proxy_src.deadline = cordon_proxy_deadline(v->s->proxy);
        return 0;
}

static int on_timer(void *userdata, const struct pollfd *fds)
{
        (void)fds;
        struct supervision *v = userdata;
        uint64_t t = cordon_now_usec();
        int k = v->pidfd < 0 ? reap(v) : 0;
        if (k != 0) {
                cordon_loop_quit(v->loop, k < 0 ? k : 0);
                return 0;
        }
        if (v->s->watch_stops)
                continue_if_stopped(v);
        if (v->end == CORDON_END_EXITED && v->deadline && t >= v->deadline)
                v->end = CORDON_END_TIMEOUT;
        else if (v->end == CORDON_END_EXITED && v->grace_end && t >= v->grace_end)
                v->end = CORDON_END_KILLED;
        else {
                update_timer(v);
                return 0;
        }
        (void)kill_whole(v->s, v->pidfd);
        v->deadline = v->grace_end = 0;
        int st = 0, r = wait_ended(v, &st);
        if (r < 0)
                return r;
        v->status = st;
        v->exited = true;
        cordon_loop_quit(v->loop, 0);
        return 0;
}

int cordon_supervise_run(const struct cordon_supervise *s, int *ret_status,
                         enum cordon_end *ret_end)
{
        struct cordon_loop own = {.n = 0};
        struct supervision v = {
            .s = s,
            .loop = s->loop ?: &own,
            .pidfd = s->has_pidfd ? s->pidfd : -EBADF,
            .sfd = -EBADF,
            .end = CORDON_END_EXITED,
        };
        _cleanup_close_ int own_pidfd = -EBADF, sfd = -EBADF;
        int r;

        if (!s->has_pidfd) {
                own_pidfd = (int)syscall(SYS_pidfd_open, s->pid, 0);
                v.pidfd = own_pidfd;
        }
        sigset_t mask = s->forward;
        if (s->pty)
                sigaddset(&mask, SIGWINCH);
        if (!sigisemptyset(&mask)) {
                sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
                if (sfd < 0)
                        return -errno;
                v.sfd = sfd;
        }

        v.exit_src = (struct cordon_loop_source){.n_fds = v.pidfd >= 0,
                                                 .fd = v.pidfd,
                                                 .events = POLLIN,
                                                 .dispatch = on_exit_ready,
                                                 .userdata = &v};
        v.signal_src = (struct cordon_loop_source){
            .n_fds = 1, .fd = sfd, .events = POLLIN, .dispatch = on_signal, .userdata = &v};
        v.pty_src = (struct cordon_loop_source){
            .n_fds = CORDON_PTY_POLL_MAX, .fill = pty_fill, .dispatch = on_pty, .userdata = &v};
        v.timer_src = (struct cordon_loop_source){.dispatch = on_timer, .userdata = &v};
        if (s->proxy)
                v.proxy_src = (struct cordon_loop_source){
                    .n_fds = 1,
                    .fd = cordon_proxy_fd(s->proxy),
                    .events = POLLIN,
                    .deadline = cordon_proxy_deadline(s->proxy),
                    .dispatch = on_proxy,
                    .userdata = &v,
                };
        v.deadline = s->timeout_usec ? cordon_now_usec() + s->timeout_usec : 0;
        update_timer(&v);

        r = 0;
        if (v.pidfd >= 0)
                r = cordon_loop_add(v.loop, &v.exit_src);
        if (r >= 0 && sfd >= 0)
                r = cordon_loop_add(v.loop, &v.signal_src);
        if (r >= 0 && s->pty)
                r = cordon_loop_add(v.loop, &v.pty_src);
        if (r >= 0)
                r = cordon_loop_add(v.loop, &v.timer_src);
        if (r >= 0 && s->proxy)
                r = cordon_loop_add(v.loop, &v.proxy_src);
        /* It may be gone before the loop ran. */
        if (r >= 0 && (r = reap(&v)) == 0)
                r = cordon_loop_run(v.loop);
        cordon_loop_remove(v.loop, &v.exit_src);
        cordon_loop_remove(v.loop, &v.signal_src);
        cordon_loop_remove(v.loop, &v.pty_src);
        cordon_loop_remove(v.loop, &v.timer_src);
        cordon_loop_remove(v.loop, &v.proxy_src);
        if (r < 0)
                return r;
        if (!v.exited)
                return -EIO;
        if (v.end == CORDON_END_EXITED && s->killed && atomic_load(s->killed))
                v.end = CORDON_END_KILLED;

        if (s->pty) {
                (void)cordon_pty_drain(s->pty, CORDON_PTY_DRAIN_MSEC);
                /* Modes the inside left on are turned off, and what the user's terminal sends
                 * from now on is not typed into the user's shell. */
                (void)cordon_pty_finish(s->pty, CORDON_PTY_FINISH_MSEC);
        }
        *ret_status = cordon_exit_status_from_wait(v.status);
        *ret_end = v.end;
        return 0;
}
