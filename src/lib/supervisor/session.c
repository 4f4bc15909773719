/* A session's supervisor side (session.h, cordon/session.h): commands started inside through
 * the control channel, their ends and timeouts on the sandbox's loop. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/launch/control-exec.h"
#include "lib/launch/control.h"
#include "lib/launch/pid1.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/supervisor/session.h"
#include "lib/policy/diag.h"
#include "lib/resolve/env-filter.h"
#include "shared/fd-util.h"
#include "shared/strv.h"
#include "shared/macro.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

struct cordon_exec {
        struct cordon_sandbox *sb;
        uint32_t id;
        bool started, failed, ended, timed_out;
        int step, err; /* failed: the step and positive errno */
        pid_t pid;     /* as the inside sees it */
        int pidfd;
        int pty_master;
        int status; /* ended: the wait status */
        uint64_t deadline;
        char *argv0;        /* for the failure's message */
        char **env_dropped; /* the names of the caller's variables the rules left out */
};

static struct cordon_exec *find_exec(struct cordon_session *s, uint32_t id)
{
        for (size_t i = 0; i < s->n_execs; i++)
                if (s->execs[i]->id == id)
                        return s->execs[i];
        return NULL;
}

static void update_deadline(struct cordon_session *s)
{
        uint64_t next = CORDON_LOOP_NEVER;
        for (size_t i = 0; i < s->n_execs; i++) {
                const struct cordon_exec *e = s->execs[i];
                if (e->deadline && !e->ended && !e->failed && e->deadline < next)
                        next = e->deadline;
        }
        if (s->deadline_timer)
                cordon_loop_timer_set(s->deadline_timer, next);
}

static int send_signal(struct cordon_session *s, uint32_t id, int sig)
{
        struct cordon_control_msg m = {
            .type = CORDON_CONTROL_SIGNAL, .id = id, .sig = sig, .rule = -1, .fd = -1};
        return cordon_control_send(s->sb->control[0], &m);
}

/* A pidfd from the inside is taken only when it is one (any other descriptor is closed). */
static int checked_pidfd(int fd)
{
        if (fd < 0)
                return -EBADF;
        /* ESRCH: a pidfd of a process that has ended already. */
        if (syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) < 0 && errno != ESRCH) {
                safe_close(fd);
                return -EBADF;
        }
        return fd;
}

/* One message from the inside: hostile input, taken only as the commands' states it may
 * change (an id that is none of ours, a message of the wrong direction: passed over). */
static void on_message(struct cordon_session *s, const struct cordon_control_msg *m)
{
        struct cordon_exec *e = m->id ? find_exec(s, m->id) : NULL;
        switch (m->type) {
        case CORDON_CONTROL_STARTED:
                if (e && !e->started && !e->failed) {
                        e->started = true;
                        e->pid = m->pid;
                        e->pidfd = checked_pidfd(m->fd);
                        return;
                }
                break;
        case CORDON_CONTROL_FAILED:
                if (e && !e->started && !e->failed) {
                        e->failed = true;
                        e->step = m->step;
                        e->err = m->err > 0 && m->err < 4096 ? m->err : EIO;
                }
                break;
        case CORDON_CONTROL_EXITED:
                if (e && e->started && !e->ended) {
                        e->ended = true;
                        e->status = m->status;
                }
                break;
        case CORDON_CONTROL_FD: {
                /* The master of the terminal PID 1 made inside for a command that asked for one
                 * (server.c), before its start: taken in place of ours when it is a pty master. */
                unsigned ptn;
                if (m->kind == CORDON_CONTROL_FD_PTY_MASTER && e && !e->started && !e->failed &&
                    e->pty_master >= 0 && m->fd >= 0 && ioctl(m->fd, TIOCGPTN, &ptn) == 0) {
                        safe_close(e->pty_master);
                        e->pty_master = m->fd;
                        return;
                }
                break;
        }
        case CORDON_CONTROL_DONE:
                s->done_seen = true;
                s->done_err = m->err > 0 && m->err < 4096 ? m->err : 0;
                break;
        default:
                break;
        }
        if (m->fd >= 0)
                (void)close(m->fd);
}

/* Reads what the inside sent; at its end of file the session has ended. */
static void read_control(struct cordon_session *s)
{
        for (;;) {
                struct cordon_control_msg m;
                int r = cordon_control_recv(s->sb->control[0], MSG_DONTWAIT, &m);
                if (r == -EAGAIN)
                        break;
                if (r == -EBADMSG)
                        continue;
                if (r <= 0) {
                        /* The inside is gone: the session with it. */
                        s->ended = true;
                        s->control_io = cordon_loop_io_free(s->control_io);
                        break;
                }
                on_message(s, &m);
        }
}

static int on_control(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)fd;
        (void)revents;
        read_control(userdata);
        return 0;
}

/* A command's timeout: its whole process group is killed from inside. */
static int on_deadline(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        struct cordon_session *s = userdata;
        for (size_t i = 0; i < s->n_execs; i++) {
                struct cordon_exec *e = s->execs[i];
                if (e->deadline && now >= e->deadline && e->started && !e->ended) {
                        e->timed_out = true;
                        e->deadline = 0;
                        (void)send_signal(s, e->id, SIGKILL);
                }
        }
        update_deadline(s);
        return 0;
}

/* @path, and where it differs the path with its links followed: an attach's source is opened
 * without following any, so it can only be compared with the resolved form (a home under a
 * linked /home would otherwise never match its credential stores). */
int cordon_session_add_path(char ***list, const char *path)
{
        int r = strv_extend(list, path);
        _cleanup_free_ char *real = r >= 0 ? realpath(path, NULL) : NULL;
        if (r >= 0 && real && strcmp(real, path) != 0)
                r = strv_extend(list, real);
        return r;
}

int cordon_session_new(struct cordon_sandbox *sb, const struct cordon_policy *p)
{
        struct cordon_session *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->sb = sb;
        s->next_id = 1;
        const struct cordon_env_rules *er = &p->env_rules;
        int r = 0;
        if ((r = cordon_list_copy(&s->env_rules.blocked_names, &er->blocked_names)) < 0 ||
            (r = cordon_list_copy(&s->env_rules.blocked_patterns, &er->blocked_patterns)) < 0 ||
            (r = cordon_list_copy(&s->env_rules.allowed, &er->allowed)) < 0 ||
            (r = cordon_list_copy(&s->env_rules.set, &er->set)) < 0) {
                sb->sess = s;
                cordon_session_free(sb);
                return r;
        }
        if ((r = cordon_list_copy(&s->denied_writable, &p->denied_writable)) < 0) {
                sb->sess = s;
                cordon_session_free(sb);
                return r;
        }
        for (size_t i = 0; i < p->n_fs && r >= 0; i++) {
                const struct cordon_fs_rule *f = &p->fs[i];
                if (f->access == CORDON_ACCESS_MASKED && f->guest)
                        r = cordon_session_add_path(&s->masked, f->guest);
                else if (f->access == CORDON_ACCESS_RO && f->host)
                        r = cordon_session_add_path(&s->readonly, f->host);
                else if (f->access == CORDON_ACCESS_TMPFS && f->guest)
                        r = strv_extend(&s->owned, f->guest);
        }
        if (r < 0) {
                sb->sess = s;
                cordon_session_free(sb);
                return r;
        }
        for (size_t i = 0; r >= 0 && i < sb->opts.n_host_trees; i++)
                if ((r = strv_extend(&s->host_names, sb->opts.host_trees[i].name)) >= 0)
                        r = strv_extend(&s->host_paths, sb->opts.host_trees[i].path);
        if (r < 0) {
                sb->sess = s;
                cordon_session_free(sb);
                return r;
        }
        s->env_rules.block_url_credentials = er->block_url_credentials;
        s->env_rules.block_token_values = er->block_token_values;
        sb->sess = s;
        r = cordon_loop_add_io(sb->loop, sb->control[0], EPOLLIN, on_control, s, &s->control_io);
        if (r >= 0)
                r = cordon_loop_add_timer(sb->loop, CORDON_LOOP_NEVER, on_deadline, s,
                                          &s->deadline_timer);
        if (r < 0) {
                cordon_session_free(sb);
                return r;
        }
        return 0;
}

void cordon_session_free(struct cordon_sandbox *sb)
{
        struct cordon_session *s = sb->sess;
        if (!s)
                return;
        s->control_io = cordon_loop_io_free(s->control_io);
        s->deadline_timer = cordon_loop_timer_free(s->deadline_timer);
        /* Handles still out lose their session: they answer -ENOTCONN from now on. */
        for (size_t i = 0; i < s->n_execs; i++)
                s->execs[i]->sb = NULL;
        free(s->execs);
        cordon_list_clear(&s->env_rules.blocked_names);
        cordon_list_clear(&s->env_rules.blocked_patterns);
        cordon_list_clear(&s->env_rules.allowed);
        cordon_list_clear(&s->env_rules.set);
        cordon_list_clear(&s->denied_writable);
        strv_free(s->masked);
        strv_free(s->readonly);
        strv_free(s->owned);
        strv_free(s->host_names);
        strv_free(s->host_paths);
        free(s);
        sb->sess = NULL;
}

int cordon_session_pump(struct cordon_sandbox *sb, bool (*done)(void *userdata), void *userdata)
{
        struct cordon_session *s = sb->sess;
        while (!done(userdata)) {
                if (s->ended || atomic_load(&sb->ended))
                        return -ENOTCONN;
                int r = cordon_loop_process(sb->loop, CORDON_LOOP_NEVER);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- Commands ---------------------------------------------------------------------------- */

static bool exec_settled(void *userdata)
{
        const struct cordon_exec *e = userdata;
        return e->started || e->failed;
}

static bool exec_ended(void *userdata)
{
        const struct cordon_exec *e = userdata;
        return e->ended || e->failed;
}

/* The caller's variables through the sandbox's environment rules: one they remove is left
 * out, as at the start, and its name put in *@ret_dropped (NULL when none). */
static int filter_env(const struct cordon_session *s, char *const *env, char ***ret,
                      char ***ret_dropped)
{
        _cleanup_strv_free_ char **dropped = NULL;
        size_t n = 0;
        while (env && env[n])
                n++;
        _cleanup_free_ char **out = calloc(n + 1, sizeof(char *));
        if (!out)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                const char *eq = strchr(env[i], '=');
                if (!eq || !cordon_env_name_is_valid(env[i], (size_t)(eq - env[i])))
                        return -EINVAL;
                char name[256];
                if ((size_t)(eq - env[i]) >= sizeof(name))
                        return -EINVAL;
                memcpy(name, env[i], (size_t)(eq - env[i]));
                name[eq - env[i]] = 0;
                if (!cordon_env_entry_is_blocked(&s->env_rules, name, eq + 1))
                        out[k++] = env[i];
                else if (strv_extend(&dropped, name) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(out);
        *ret_dropped = TAKE_PTR(dropped);
        return 0;
}

static int open_pty(int *ret_master, int *ret_slave)
{
        _cleanup_close_ int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (m < 0)
                return -errno;
        int unlock = 0;
        if (ioctl(m, TIOCSPTLCK, &unlock) < 0)
                return -errno;
        int sl = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (sl < 0)
                return -errno;
        *ret_master = TAKE_FD(m);
        *ret_slave = sl;
        return 0;
}

static int add_exec(struct cordon_session *s, struct cordon_exec *e)
{
        if (s->n_execs == s->cap_execs) {
                size_t cap = s->cap_execs ? s->cap_execs * 2 : 16;
                struct cordon_exec **a = reallocarray(s->execs, cap, sizeof(*a));
                if (!a)
                        return -ENOMEM;
                s->execs = a;
                s->cap_execs = cap;
        }
        s->execs[s->n_execs++] = e;
        return 0;
}

static void remove_exec(struct cordon_session *s, struct cordon_exec *e)
{
        for (size_t i = 0; i < s->n_execs; i++)
                if (s->execs[i] == e) {
                        s->execs[i] = s->execs[--s->n_execs];
                        break;
                }
        update_deadline(s);
}

_public_ int cordon_sandbox_exec(struct cordon_sandbox *sb, const struct cordon_exec_options *opts,
                                 struct cordon_exec **ret, struct cordon_diag *diag)
{
        if (!sb || !opts || !ret || !opts->argv || !opts->argv[0] || !*opts->argv[0] ||
            ((opts->flags & CORDON_EXEC_STDIO) && (opts->flags & CORDON_EXEC_PTY)) ||
            (opts->flags & ~(unsigned)(CORDON_EXEC_STDIO | CORDON_EXEC_PTY)))
                return cordon_diag_set(diag, -EINVAL, "the command's options are not valid");
        if (diag)
                diag->step = CORDON_STEP_PREPARE;
        struct cordon_session *s = sb->sess;
        if (!sb->session || !s || s->ended || atomic_load(&sb->ended))
                return cordon_diag_set(diag, -ENOTCONN, "the sandbox is not a live session");
        int r;
        if (s->suspended && (r = cordon_sandbox_resume(sb, diag)) < 0)
                return r;
        _cleanup_free_ char **env = NULL;
        _cleanup_strv_free_ char **dropped = NULL;
        if ((r = filter_env(s, opts->env, &env, &dropped)) < 0)
                return cordon_diag_set(
                    diag, r,
                    r == -ENOMEM ? "out of memory" : "a variable of the command is not NAME=VALUE");
        _cleanup_free_ void *buf = NULL;
        size_t len = 0;
        r = cordon_exec_request_encode(opts->argv, env, opts->cwd, &buf, &len);
        if (r < 0)
                return cordon_diag_set(diag, r,
                                       r == -E2BIG ? "the command's arguments and environment "
                                                     "are too long"
                                                   : "the command's cwd is not an absolute path");
        _cleanup_free_ struct cordon_exec *e = calloc(1, sizeof(*e));
        if (!e || !(e->argv0 = strdup(opts->argv[0]))) {
                if (e)
                        free(e->argv0);
                return -ENOMEM;
        }
        e->sb = sb;
        e->pidfd = e->pty_master = -EBADF;
        e->id = s->next_id++;
        if (s->next_id == 0)
                s->next_id = 1;
        struct cordon_control_msg m = {
            .type = CORDON_CONTROL_EXEC, .id = e->id, .rule = -1, .fd = -1, .fds = {-1, -1, -1}};
        _cleanup_close_ int slave = -EBADF;
        if (opts->flags & CORDON_EXEC_PTY) {
                if ((r = open_pty(&e->pty_master, &slave)) < 0) {
                        free(e->argv0);
                        return cordon_diag_set(diag, r, "failed to create a pseudo-terminal: %s",
                                               strerror(-r));
                }
                m.flags |= CORDON_CONTROL_EXEC_PTY;
                m.fds[0] = m.fds[1] = m.fds[2] = slave;
                m.n_fds = 3;
        } else if (opts->flags & CORDON_EXEC_STDIO) {
                memcpy(m.fds, opts->stdio, sizeof(m.fds));
                m.n_fds = 3;
        }
        if ((r = add_exec(s, e)) < 0 ||
            (r = cordon_control_send_payload(sb->control[0], &m, buf, len)) < 0) {
                remove_exec(s, e);
                safe_close(e->pty_master);
                free(e->argv0);
                return cordon_diag_set(diag, r == -EPIPE ? -ENOTCONN : r,
                                       "failed to reach the session: %s", strerror(-r));
        }
        slave = safe_close(slave);
        if (opts->timeout_usec)
                e->deadline = cordon_now_usec() + opts->timeout_usec;
        r = cordon_session_pump(sb, exec_settled, e);
        if (r >= 0 && e->failed) {
                if (diag) {
                        diag->step = (enum cordon_step)e->step;
                        cordon_diag_set(diag, -e->err, "failed to %s '%s': %s",
                                        e->step == CORDON_STEP_EXEC    ? "execute"
                                        : e->step == CORDON_STEP_CHDIR ? "enter the directory for"
                                                                       : "start",
                                        e->argv0, strerror(e->err));
                }
                r = -e->err;
        }
        if (r < 0) {
                remove_exec(s, e);
                safe_close(e->pty_master);
                safe_close(e->pidfd);
                free(e->argv0);
                if (r == -ENOTCONN)
                        cordon_diag_set(diag, r, "the session ended");
                return r;
        }
        update_deadline(s);
        e->env_dropped = TAKE_PTR(dropped);
        *ret = TAKE_PTR(e);
        return 0;
}

_public_ int cordon_exec_wait(struct cordon_exec *e, int *ret_status)
{
        if (!e)
                return -EINVAL;
        if (!e->ended) {
                if (!e->sb)
                        return -ENOTCONN;
                int r = cordon_session_pump(e->sb, exec_ended, e);
                if (r < 0)
                        return r;
        }
        if (ret_status)
                *ret_status = cordon_exit_status_from_wait(e->status);
        return 0;
}

_public_ int cordon_exec_poll(struct cordon_exec *e)
{
        if (!e)
                return -EINVAL;
        if (!e->ended && e->sb) {
                /* One round without waiting: what is queued is read. */
                struct cordon_session *s = e->sb->sess;
                if (s && !s->ended)
                        (void)cordon_loop_process(e->sb->loop, 0);
        }
        if (e->ended)
                return 1;
        return e->sb && e->sb->sess && !e->sb->sess->ended ? 0 : -ENOTCONN;
}

_public_ int cordon_exec_kill(struct cordon_exec *e, int sig)
{
        if (!e || sig <= 0 || sig >= _NSIG)
                return -EINVAL;
        if (e->ended)
                return -ESRCH;
        if (!e->sb || !e->sb->sess || e->sb->sess->ended)
                return -ENOTCONN;
        return send_signal(e->sb->sess, e->id, sig);
}

_public_ int cordon_exec_pidfd(const struct cordon_exec *e)
{
        return e ? e->pidfd : -EINVAL;
}

_public_ int cordon_exec_pty_fd(const struct cordon_exec *e)
{
        return e ? e->pty_master : -EINVAL;
}

_public_ pid_t cordon_exec_pid(const struct cordon_exec *e)
{
        return e ? e->pid : -EINVAL;
}

_public_ struct cordon_exec *cordon_exec_free(struct cordon_exec *e)
{
        if (!e)
                return NULL;
        if (e->sb && e->sb->sess) {
                if (!e->ended && !e->sb->sess->ended)
                        (void)send_signal(e->sb->sess, e->id, SIGKILL);
                remove_exec(e->sb->sess, e);
        }
        safe_close(e->pidfd);
        safe_close(e->pty_master);
        free(e->argv0);
        strv_free(e->env_dropped);
        free(e);
        return NULL;
}

_public_ char *const *cordon_exec_env_dropped(const struct cordon_exec *e)
{
        return e ? e->env_dropped : NULL;
}
