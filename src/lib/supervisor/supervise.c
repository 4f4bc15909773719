/* The supervisor on the sandbox's event loop: the pidfd says when the sandbox's first process
 * exited (no SIGCHLD, so several sandboxes can live in one process), a signalfd brings the
 * forwarded signals and SIGWINCH, the pty relay has a source per descriptor of the terminal, and
 * one timer keeps the wall time limit, the grace period after a forwarded signal, the stop checks
 * of a reaper, the polling without a pidfd and the limit of the drain. Nothing here blocks but
 * the pty's finish. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/launch/pid1.h"
#include "lib/supervisor/supervise.h"
#include "lib/loop/loop.h"
#include "lib/terminal/pty.h"
#include "shared/macro.h"

/* Without pidfds (Linux < 5.3) the first process is polled this often. */
#define POLL_WITHOUT_PIDFD_USEC 10000

enum phase {
        PHASE_RUNNING,  /* the first process runs (or is being killed) */
        PHASE_DRAINING, /* it was reaped; the terminal's last output is relayed */
        PHASE_ENDED,
        PHASE_FAILED,
};

struct cordon_supervisor {
        struct cordon_supervise s;
        struct cordon_loop *loop;
        enum phase phase;
        int error; /* PHASE_FAILED */
        int pidfd; /* s.pidfd or @own_pidfd; -EBADF: polled */
        int own_pidfd;
        int sfd;
        /* CLOCK_MONOTONIC microseconds; 0: none */
        uint64_t deadline, grace_end, drain_end;
        enum cordon_end end; /* CORDON_END_EXITED until a kill of ours */
        int status;          /* the wait status */
        struct cordon_loop_io *exit_io, *signal_io;
        /* One source per distinct descriptor of the pty's pollfd entries (the master has two
         * entries, the user's terminal may have two), -EBADF in @pty_fd when unused. */
        struct cordon_loop_io *pty_io[CORDON_PTY_POLL_MAX];
        int pty_fd[CORDON_PTY_POLL_MAX];
        struct cordon_loop_timer *timer;
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
static void continue_if_stopped(struct cordon_supervisor *v)
{
        siginfo_t si = {0};
        if (waitid(P_PID, (id_t)v->s.pid, &si, WSTOPPED | WNOHANG) == 0 && si.si_pid == v->s.pid)
                (void)send_one(&v->s, v->pidfd, SIGCONT);
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

/* 1 once the sandbox's first process is reaped, 0 while it runs, or -errno: -ECHILD when
 * someone else reaped it (a caller with SIGCHLD ignored, or waitpid(-1)): its pidfd then stays
 * readable, and the loop would spin on it forever. */
static int reap(struct cordon_supervisor *v)
{
        for (;;) {
                int st;
                pid_t w = waitpid(v->s.pid, &st, WNOHANG);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -errno;
                if (w == 0)
                        return 0;
                v->status = st;
                return 1;
        }
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
        return !a ? b : !b ? a : a < b ? a : b;
}

static void update_timer(struct cordon_supervisor *v)
{
        uint64_t next = 0;
        if (v->phase == PHASE_RUNNING) {
                uint64_t now = cordon_loop_now(v->loop);
                next = earliest(v->deadline, v->grace_end);
                if (v->s.watch_stops)
                        next = earliest(next, now + CORDON_SUPERVISE_STOP_CHECK_USEC);
                if (v->pidfd < 0)
                        next = earliest(next, now + POLL_WITHOUT_PIDFD_USEC);
        } else if (v->phase == PHASE_DRAINING)
                next = v->drain_end;
        cordon_loop_timer_set(v->timer, next ?: CORDON_LOOP_NEVER);
}

/* ---- the pty relay ------------------------------------------------------------------------- */

static void pty_sources_free(struct cordon_supervisor *v)
{
        for (size_t i = 0; i < CORDON_PTY_POLL_MAX; i++) {
                v->pty_io[i] = cordon_loop_io_free(v->pty_io[i]);
                v->pty_fd[i] = -EBADF;
        }
}

/* What the relay waits for now; while draining, no more keyboard input, and none still queued
 * for the command, which is gone. */
static void pty_wanted(const struct cordon_supervisor *v, struct pollfd fds[CORDON_PTY_POLL_MAX])
{
        cordon_pty_poll_fds(v->s.pty, fds);
        if (v->phase == PHASE_DRAINING) {
                fds[CORDON_PTY_POLL_USER_IN].fd = -1;
                fds[CORDON_PTY_POLL_MASTER_OUT].fd = -1;
        }
}

static int on_pty(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata);

/* Sets each pty source's events to what the relay waits for on its descriptor (epoll takes a
 * descriptor once, so the entries of one are merged). */
static int pty_update(struct cordon_supervisor *v)
{
        struct pollfd fds[CORDON_PTY_POLL_MAX];
        pty_wanted(v, fds);
        uint32_t want[CORDON_PTY_POLL_MAX] = {0};
        for (size_t i = 0; i < CORDON_PTY_POLL_MAX; i++) {
                if (fds[i].fd < 0)
                        continue;
                size_t slot = CORDON_PTY_POLL_MAX, free_slot = CORDON_PTY_POLL_MAX;
                for (size_t k = 0; k < CORDON_PTY_POLL_MAX && slot == CORDON_PTY_POLL_MAX; k++) {
                        if (v->pty_fd[k] == fds[i].fd)
                                slot = k;
                        else if (v->pty_fd[k] < 0 && free_slot == CORDON_PTY_POLL_MAX)
                                free_slot = k;
                }
                if (slot == CORDON_PTY_POLL_MAX) {
                        slot = free_slot; /* there are as many slots as entries */
                        int r =
                            cordon_loop_add_io(v->loop, fds[i].fd, 0, on_pty, v, &v->pty_io[slot]);
                        if (r < 0)
                                return r;
                        v->pty_fd[slot] = fds[i].fd;
                }
                want[slot] |= (uint32_t)fds[i].events;
        }
        for (size_t k = 0; k < CORDON_PTY_POLL_MAX; k++) {
                if (!v->pty_io[k])
                        continue;
                int r = cordon_loop_io_set_events(v->pty_io[k], want[k]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void set_ended(struct cordon_supervisor *v);

static int on_pty(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        struct cordon_supervisor *v = userdata;
        struct pollfd fds[CORDON_PTY_POLL_MAX];
        pty_wanted(v, fds);
        for (size_t i = 0; i < CORDON_PTY_POLL_MAX; i++)
                fds[i].revents =
                    fds[i].fd == fd
                        ? (short)(revents & ((uint32_t)fds[i].events | EPOLLERR | EPOLLHUP))
                        : 0;
        int r = cordon_pty_relay(v->s.pty, fds);
        if (v->phase == PHASE_DRAINING && r != 0) {
                /* Drained (or the terminal broke: nothing more will come through). */
                set_ended(v);
                return 0;
        }
        if (r >= 0)
                r = pty_update(v);
        if (r < 0) {
                /* An unexpected error of the relay hangs the terminal up, as a closed terminal
                 * window would: the inside gets SIGHUP and EIO, not a stuck write. The sources
                 * go first: their descriptors are closed. */
                pty_sources_free(v);
                cordon_pty_close(v->s.pty);
                if (v->phase == PHASE_DRAINING)
                        set_ended(v);
        }
        return 0;
}

/* ---- the phases ---------------------------------------------------------------------------- */

static void set_ended(struct cordon_supervisor *v)
{
        v->phase = PHASE_ENDED;
        pty_sources_free(v);
        update_timer(v);
}

static void set_failed(struct cordon_supervisor *v, int error)
{
        v->phase = PHASE_FAILED;
        v->error = error;
        v->exit_io = cordon_loop_io_free(v->exit_io);
        v->signal_io = cordon_loop_io_free(v->signal_io);
        pty_sources_free(v);
        update_timer(v);
}

/* The first process is reaped: its terminal output is drained next, on the loop. */
static void set_exited(struct cordon_supervisor *v)
{
        v->exit_io = cordon_loop_io_free(v->exit_io);
        v->signal_io = cordon_loop_io_free(v->signal_io);
        if (!v->s.pty) {
                set_ended(v);
                return;
        }
        v->phase = PHASE_DRAINING;
        v->drain_end = cordon_loop_now(v->loop) + CORDON_PTY_DRAIN_MSEC * 1000ull;
        /* Done already when the inside closed its terminal and all is written. */
        if (cordon_pty_drain(v->s.pty, 0) != 0 || pty_update(v) < 0) {
                set_ended(v);
                return;
        }
        update_timer(v);
}

/* Reaps the first process when it has exited; 1 then. */
static int check_exit(struct cordon_supervisor *v)
{
        int r = reap(v);
        if (r < 0)
                set_failed(v, r);
        else if (r > 0)
                set_exited(v);
        return r;
}

static int on_exit_ready(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)fd;
        (void)revents;
        (void)check_exit(userdata);
        return 0;
}

static int on_signal(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)revents;
        struct cordon_supervisor *v = userdata;
        struct signalfd_siginfo si;
        while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                if (si.ssi_signo == SIGWINCH) {
                        if (v->s.pty)
                                (void)cordon_pty_resize(v->s.pty);
                        continue;
                }
                (void)send_signal(&v->s, v->pidfd, (int)si.ssi_signo);
                if (v->end == CORDON_END_EXITED &&
                    (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP) &&
                    !v->grace_end)
                        v->grace_end =
                            cordon_loop_now(v->loop) + (v->s.grace_usec ?: CORDON_GRACE_USEC);
        }
        update_timer(v);
        return 0;
}

static int on_timer(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        struct cordon_supervisor *v = userdata;
        if (v->phase == PHASE_DRAINING) {
                if (now >= v->drain_end)
                        set_ended(v); /* something still holds the terminal, or nobody reads */
                else
                        update_timer(v);
                return 0;
        }
        if (v->phase != PHASE_RUNNING)
                return 0;
        if (v->pidfd < 0 && check_exit(v) != 0)
                return 0;
        if (v->s.watch_stops)
                continue_if_stopped(v);
        if (v->end == CORDON_END_EXITED && v->deadline && now >= v->deadline)
                v->end = CORDON_END_TIMEOUT;
        else if (v->end == CORDON_END_EXITED && v->grace_end && now >= v->grace_end)
                v->end = CORDON_END_KILLED;
        else {
                update_timer(v);
                return 0;
        }
        /* Its exit comes on the pidfd (or the polling) as any other; the stop checks go on
         * meanwhile, so a reaper stopped on the way still gets there. */
        (void)kill_whole(&v->s, v->pidfd);
        v->deadline = v->grace_end = 0;
        update_timer(v);
        return 0;
}

int cordon_supervisor_start(const struct cordon_supervise *s, struct cordon_loop *loop,
                            struct cordon_supervisor **ret)
{
        if (!s || !loop || !ret || s->pid <= 0)
                return -EINVAL;
        struct cordon_supervisor *v = calloc(1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        *v = (struct cordon_supervisor){
            .s = *s,
            .loop = loop,
            .pidfd = s->has_pidfd ? s->pidfd : -EBADF,
            .own_pidfd = -EBADF,
            .sfd = -EBADF,
            .end = CORDON_END_EXITED,
        };
        for (size_t i = 0; i < CORDON_PTY_POLL_MAX; i++)
                v->pty_fd[i] = -EBADF;
        if (!s->has_pidfd)
                v->pidfd = v->own_pidfd = (int)syscall(SYS_pidfd_open, s->pid, 0);

        int r = 0;
        sigset_t mask = s->forward;
        if (s->pty)
                sigaddset(&mask, SIGWINCH);
        if (!sigisemptyset(&mask)) {
                v->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
                if (v->sfd < 0)
                        r = -errno;
        }
        if (r >= 0 && v->pidfd >= 0)
                r = cordon_loop_add_io(loop, v->pidfd, EPOLLIN, on_exit_ready, v, &v->exit_io);
        if (r >= 0 && v->sfd >= 0)
                r = cordon_loop_add_io(loop, v->sfd, EPOLLIN, on_signal, v, &v->signal_io);
        if (r >= 0)
                r = cordon_loop_add_timer(loop, CORDON_LOOP_NEVER, on_timer, v, &v->timer);
        if (r >= 0 && s->pty)
                r = pty_update(v);
        if (r < 0) {
                cordon_supervisor_free(v);
                return r;
        }
        v->deadline = s->timeout_usec ? cordon_loop_now(loop) + s->timeout_usec : 0;
        update_timer(v);
        *ret = v;
        return 0;
}

int cordon_supervisor_state(const struct cordon_supervisor *v)
{
        switch (v->phase) {
        case PHASE_ENDED:
                return 1;
        case PHASE_FAILED:
                return v->error;
        default:
                return 0;
        }
}

int cordon_supervisor_process(struct cordon_supervisor *v, uint64_t timeout_usec)
{
        int r = cordon_supervisor_state(v);
        if (r != 0)
                return r;
        r = cordon_loop_process(v->loop, timeout_usec);
        return r < 0 ? r : cordon_supervisor_state(v);
}

int cordon_supervisor_finish(struct cordon_supervisor *v, int *ret_status, enum cordon_end *ret_end)
{
        int r = cordon_supervisor_state(v);
        if (r <= 0)
                return r < 0 ? r : -EBUSY;
        if (v->end == CORDON_END_EXITED && v->s.killed && atomic_load(v->s.killed))
                v->end = CORDON_END_KILLED;
        /* Modes the inside left on are turned off, and what the user's terminal sends from now
         * on is not typed into the user's shell. */
        if (v->s.pty)
                (void)cordon_pty_finish(v->s.pty, CORDON_PTY_FINISH_MSEC);
        *ret_status = cordon_exit_status_from_wait(v->status);
        *ret_end = v->end;
        return 0;
}

struct cordon_supervisor *cordon_supervisor_free(struct cordon_supervisor *v)
{
        if (!v)
                return NULL;
        cordon_loop_io_free(v->exit_io);
        cordon_loop_io_free(v->signal_io);
        pty_sources_free(v);
        cordon_loop_timer_free(v->timer);
        safe_close(v->sfd);
        safe_close(v->own_pidfd);
        free(v);
        return NULL;
}

int cordon_supervise_run(const struct cordon_supervise *s, int *ret_status,
                         enum cordon_end *ret_end)
{
        struct cordon_loop *loop = NULL;
        struct cordon_supervisor *v = NULL;
        int r = cordon_loop_new(&loop);
        if (r >= 0)
                r = cordon_supervisor_start(s, loop, &v);
        while (r == 0)
                r = cordon_supervisor_process(v, CORDON_LOOP_NEVER);
        if (r > 0)
                r = cordon_supervisor_finish(v, ret_status, ret_end);
        cordon_supervisor_free(v);
        cordon_loop_free(loop);
        return r;
}
