/* The command server (see server.h): PID 1's life after its steps, and a landlock session's
 * confined server. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "lib/launch/control-exec.h"
#include "lib/launch/control.h"
#include "lib/launch/exec-search.h"
#include "lib/launch/pid1.h"
#include "lib/launch/server.h"
#include "lib/slurm/slurm-names.h"
#include "lib/terminal/pty.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/mem-util.h"
#include "shared/sanitizer.h"

/* The most commands a session runs at once. */
#define COMMANDS_MAX 4096
/* The spawned child's stack (cordon_server_spawn()): cordon_exec_search() takes two paths and
 * 256 arguments of it. Mapped once, on the first spawn: only the pages the child touches cost
 * memory (a frame of this size would be probed page by page, -fstack-clash-protection, and
 * stay written for the session's life). */
#define SPAWN_STACK_SIZE (64 * 1024)

struct command {
        uint32_t id;
        pid_t pid;
};

struct server {
        const struct cordon_server_config *c;
        int control; /* -1 once it is no longer read */
        struct command *cmds;
        size_t n, cap;
        void *buf;    /* a request's payload */
        pid_t parent; /* at the start: the landlock backend's reaper, outside the sandbox */
        int doorbell; /* SLURM_SCOPE: the chaperon's doorbell, which commands keep; -1 */
};

/* The command's fds 0..2: @fds, /dev/null for the missing ones. One already at 0..2 is moved
 * above them first, so that no dup2() overwrites another still to be placed. */
static int place_fds(const int *fds, unsigned n_fds)
{
        int tmp[3];
        for (unsigned i = 0; i < 3; i++) {
                int fd = i < n_fds ? fds[i] : open("/dev/null", O_RDWR | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                if (fd < 3 && (fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
                        return -errno;
                tmp[i] = fd;
        }
        for (int i = 0; i < 3; i++)
                if (dup2(tmp[i], i) < 0)
                        return -errno;
        return 0;
}

_Noreturn static void command_fail(int status_fd, int step, int err)
{
        (void)cordon_control_report(status_fd, step, err, -1);
        _exit(step == CORDON_STEP_EXEC && err == ENOENT ? 127 : 126);
}

struct spawn_args {
        char *const *argv, *const *envp;
        const char *cwd;
        const int *fds;
        unsigned n_fds;
        bool pty, new_session;
        int status_fd;
        int keep_fd; /* also left open: the chaperon's doorbell; -1 */
};

/* The child, between clone and exec. It may share the server's memory (CLONE_VM, the server
 * stopped until it execs or ends): no allocation, nothing written but its own stack and errno;
 * what it runs of libc here only makes system calls. */
static int spawn_child(void *p)
{
        const struct spawn_args *a = p;
        sigset_t empty;
        sigemptyset(&empty);
        (void)sigprocmask(SIG_SETMASK, &empty, NULL);
        int r = place_fds(a->fds, a->n_fds);
        if (r < 0)
                command_fail(a->status_fd, CORDON_STEP_PROCESS, -r);
        /* Its own process group, so that a signal or a timeout reaches all it starts and
         * nothing of the other commands. */
        if ((a->pty || a->new_session ? setsid() : setpgid(0, 0)) < 0)
                command_fail(a->status_fd, CORDON_STEP_PROCESS, errno);
        if (a->pty && ioctl(STDIN_FILENO, TIOCSCTTY, 0) < 0)
                command_fail(a->status_fd, CORDON_STEP_TERMINAL, errno);
        const int keep[] = {a->status_fd, a->keep_fd};
        if ((r = close_all_fds_except(keep, ELEMENTSOF(keep))) < 0)
                command_fail(a->status_fd, CORDON_STEP_PROCESS, -r);
        if (a->cwd && chdir(a->cwd) < 0)
                command_fail(a->status_fd, CORDON_STEP_CHDIR, errno);
        cordon_exec_search(a->argv[0], a->argv, a->envp);
        command_fail(a->status_fd, CORDON_STEP_EXEC, errno);
}

pid_t cordon_server_spawn(char *const *argv, char *const *envp, const char *cwd, const int *fds,
                          unsigned n_fds, bool pty, bool new_session, int keep_fd, int *ret_step)
{
        int st[2];
        if (pipe2(st, O_CLOEXEC) < 0) {
                *ret_step = CORDON_STEP_FORK;
                return -errno;
        }
        struct spawn_args a = {.argv = argv,
                               .envp = envp,
                               .cwd = cwd,
                               .fds = fds,
                               .n_fds = n_fds,
                               .pty = pty,
                               .new_session = new_session,
                               .status_fd = st[1],
                               .keep_fd = keep_fd};
#ifdef CORDON_ASAN
        /* AddressSanitizer cannot follow a switch to a stack it did not make: this build forks. */
        pid_t pid = fork();
        if (pid == 0)
                _exit(spawn_child(&a));
#else
        /* vfork()'s way, as posix_spawn() does it: the child borrows our memory (no page tables
         * copied, which was most of an exec's cost) on a stack of its own, unused by us while
         * we wait for its exec. The server catches no signal (it reads them from a signalfd;
         * cordon_server_run() set every handler back to the default), so none can run a
         * handler of ours in the child once it unblocks them. */
        static void *stack;
        if (!stack) {
                void *m = mmap(NULL, SPAWN_STACK_SIZE, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
                if (m == MAP_FAILED) {
                        int e = errno;
                        safe_close(st[0]);
                        safe_close(st[1]);
                        *ret_step = CORDON_STEP_FORK;
                        return -e;
                }
                stack = m;
        }
        pid_t pid = clone(spawn_child, (char *)stack + SPAWN_STACK_SIZE,
                          CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
#endif
        if (pid < 0) {
                int e = errno;
                safe_close(st[0]);
                safe_close(st[1]);
                *ret_step = CORDON_STEP_FORK;
                return -e;
        }
        safe_close(st[1]);
        /* End of file once it has exec'd (its copy was close-on-exec), else its report. */
        struct cordon_control_msg m;
        ssize_t k;
        do
                k = read(st[0], &m, sizeof(m));
        while (k < 0 && errno == EINTR);
        int r = k == 0 ? 0 : k < 0 ? -errno : k == (ssize_t)sizeof(m) ? 1 : -EIO;
        safe_close(st[0]);
        if (r == 1 && m.type == CORDON_CONTROL_REPORT) {
                *ret_step = m.step;
                return m.err > 0 ? -m.err : -EIO;
        }
        if (r != 0) {
                r = r < 0 ? r : -EIO;
                *ret_step = CORDON_STEP_FORK;
                (void)kill(pid, SIGKILL);
                return r;
        }
        return pid;
}

/* A message to the supervisor: with write() unless it carries a descriptor (the seccomp filter
 * may refuse the socket calls; a session, which needs them, is not started under such a
 * filter). */
static void say(struct server *s, const struct cordon_control_msg *m)
{
        if (s->control < 0)
                return;
        if (m->fd >= 0)
                (void)cordon_control_send(s->control, m);
        else
                (void)cordon_control_write(s->control, m);
}

/* A request's variables over the sandbox's: NAME=VALUE of the base whose NAME the request does
 * not set, then the request's. */
static char **merge_env(char *const *base, char *const *extra)
{
        size_t nb = 0, ne = 0;
        while (base && base[nb])
                nb++;
        while (extra && extra[ne])
                ne++;
        char **env = calloc(nb + ne + 1, sizeof(char *));
        if (!env)
                return NULL;
        size_t k = 0;
        for (size_t i = 0; i < nb; i++) {
                size_t len = strcspn(base[i], "=");
                bool replaced = false;
                for (size_t j = 0; j < ne && !replaced; j++)
                        replaced = strncmp(extra[j], base[i], len) == 0 && extra[j][len] == '=';
                if (!replaced)
                        env[k++] = base[i];
        }
        for (size_t j = 0; j < ne; j++)
                env[k++] = extra[j];
        return env;
}

static void start_command(struct server *s, const struct cordon_control_msg *m)
{
        struct cordon_control_msg out = {.type = CORDON_CONTROL_FAILED,
                                         .id = m->id,
                                         .step = CORDON_STEP_PREPARE,
                                         .rule = -1,
                                         .fd = -1};
        struct cordon_exec_request req = {0};
        int r = cordon_exec_request_parse(s->buf, m->payload_len, &req);
        if (r >= 0 && m->id == 0)
                r = -EINVAL;
        if (r >= 0 && s->n >= COMMANDS_MAX)
                r = -EAGAIN;
        if (r >= 0 && s->n == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 16;
                struct command *c = reallocarray(s->cmds, cap, sizeof(*c));
                if (!c)
                        r = -ENOMEM;
                else
                        s->cmds = c, s->cap = cap;
        }
        _cleanup_free_ char **env = NULL;
        _cleanup_close_ int pidfd = -EBADF;
        if (r >= 0 && !(env = merge_env(s->c->envp, req.envp)))
                r = -ENOMEM;
        /* A terminal made outside has no name in our devpts (tty(1), ttyname(3) and
         * GPG_TTY=$(tty) find none): PID 1 makes the command's pair here, like the supervisor's
         * one, and hands the master over before the command starts: only a master the
         * supervisor has is a terminal the command may use. Where any of it fails the outside
         * one serves, nameless. */
        const bool pty = m->flags & CORDON_CONTROL_EXEC_PTY;
        int fds[3] = {m->fds[0], m->fds[1], m->fds[2]};
        _cleanup_close_ int in_master = -EBADF, in_slave = -EBADF;
        if (r >= 0 && pty && s->c->pid1 && m->n_fds == 3 && s->control >= 0 &&
            (in_master = cordon_pty_open_like(m->fds[0], "/dev/pts/ptmx", &in_slave)) >= 0) {
                struct cordon_control_msg fdm = {.type = CORDON_CONTROL_FD,
                                                 .kind = CORDON_CONTROL_FD_PTY_MASTER,
                                                 .id = m->id,
                                                 .rule = -1,
                                                 .fd = in_master};
                if (cordon_control_send(s->control, &fdm) >= 0)
                        fds[0] = fds[1] = fds[2] = in_slave;
        }
        if (r >= 0) {
                int step = CORDON_STEP_FORK;
                pid_t pid = cordon_server_spawn(req.argv, env, req.cwd ?: s->c->cwd, fds, m->n_fds,
                                                pty, s->c->new_session, s->doorbell, &step);
                if (pid > 0) {
                        s->cmds[s->n++] = (struct command){.id = m->id, .pid = pid};
                        out.type = CORDON_CONTROL_STARTED;
                        out.pid = pid;
                        out.step = 0;
                        /* The supervisor cannot name a pid of this namespace: it gets a pidfd. */
                        pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
                        out.fd = pidfd >= 0 ? pidfd : -1;
                } else {
                        r = pid;
                        out.step = step;
                }
        }
        if (r < 0)
                out.err = -r;
        for (unsigned i = 0; i < m->n_fds; i++)
                safe_close(m->fds[i]);
        cordon_exec_request_clear(&req);
        say(s, &out);
}

static void signal_commands(struct server *s, uint32_t id, int sig)
{
        if (s->c->main > 0 && id == 0) {
                (void)kill(s->c->main, sig);
                return;
        }
        for (size_t i = 0; i < s->n; i++)
                if (id == 0 || s->cmds[i].id == id)
                        (void)kill(-s->cmds[i].pid, sig);
}

/* The landlock server: Landlock's signal scoping confines its kill(-1) to the sandbox's own
 * processes (its domain and the domains nested in it), and kill(pid, 0) tells which those are.
 * Checked, not assumed (the Landlock layer can be off): the reaper, our parent and outside the
 * sandbox, must be out of reach. */
static bool signals_scoped(const struct server *s)
{
        /* The parent it started with, still: once the reaper is gone (killable where the
         * signals are not scoped) a new parent (init, another user's subreaper) could refuse
         * for reasons of its own, and kill(-1) would then reach all of the user's processes. */
        return s->parent > 1 && getppid() == s->parent && kill(s->parent, 0) < 0 && errno == EPERM;
}

/* Whether every process of the sandbox but us is stopped (or a zombie), from /proc: under PID
 * 1 every process of the namespace, under the landlock server every one it may signal. */
static bool all_stopped(bool pid1)
{
        DIR *d = opendir("/proc");
        if (!d)
                return false;
        const pid_t self = getpid();
        bool all = true;
        struct dirent *de;
        while (all && (de = readdir(d))) {
                char *end;
                long pid = strtol(de->d_name, &end, 10);
                if (*end || pid <= 1 || pid == self)
                        continue;
                if (!pid1 && kill((pid_t)pid, 0) < 0)
                        continue; /* not the sandbox's, or gone */
                char path[64], buf[512];
                snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue; /* gone */
                ssize_t n = read(fd, buf, sizeof(buf) - 1);
                (void)close(fd);
                if (n <= 0)
                        continue;
                buf[n] = 0;
                const char *p = strrchr(buf, ')');
                char st = p && p[1] == ' ' ? p[2] : 0;
                all = st == 'T' || st == 't' || st == 'Z' || st == 'X';
        }
        closedir(d);
        return all;
}

/* PID 1, or the landlock server with its signals scoped, stops everything else of the sandbox:
 * kill(-1) again until /proc shows every one stopped (a stop takes effect when its target next
 * runs; a process forking meanwhile has the fork fail and restart after the continue, the
 * kernel's check in copy_process(), and a child that got through regardless is taken by the
 * next round). The answer comes once all are. -EOPNOTSUPP: the supervisor walks the tree. */
static int suspend(struct server *s, bool stop)
{
        if (!s->c->pid1 && !signals_scoped(s))
                return -EOPNOTSUPP;
        if (!stop)
                return kill(-1, SIGCONT) < 0 && errno != ESRCH ? -errno : 0;
        for (int round = 0; round < 2000; round++) {
                if (kill(-1, SIGSTOP) < 0 && errno != ESRCH)
                        return -errno;
                if (all_stopped(s->c->pid1))
                        return 0;
                struct timespec ts = {.tv_nsec = round < 100 ? 50 * 1000 : 1000 * 1000};
                (void)nanosleep(&ts, NULL);
        }
        return -EBUSY;
}

/* The control channel is readable. Returns false once it is to be read no more. */
static bool on_control(struct server *s)
{
        struct cordon_control_msg m;
        if (!s->buf) {
                /* Run mode: nothing to take, only the end of file to see, with read() (the
                 * filter may refuse recvmsg()); a descriptor that came anyway is dropped. */
                char b[sizeof(m)];
                ssize_t k = read(s->control, b, sizeof(b));
                return k > 0 || (k < 0 && (errno == EINTR || errno == EAGAIN));
        }
        int r = cordon_control_recv_payload(s->control, MSG_DONTWAIT, &m, s->buf,
                                            CORDON_CONTROL_PAYLOAD_MAX);
        if (r == -EAGAIN || r == -EBADMSG)
                return true;
        if (r <= 0)
                return false;
        switch (m.type) {
        case CORDON_CONTROL_EXEC:
                start_command(s, &m);
                break;
        case CORDON_CONTROL_SIGNAL:
                if (m.sig > 0 && m.sig < _NSIG)
                        signal_commands(s, m.id, m.sig);
                break;
        case CORDON_CONTROL_SUSPEND:
        case CORDON_CONTROL_RESUME: {
                r = suspend(s, m.type == CORDON_CONTROL_SUSPEND);
                struct cordon_control_msg done = {
                    .type = CORDON_CONTROL_DONE, .err = r < 0 ? -r : 0, .rule = -1, .fd = -1};
                say(s, &done);
                break;
        }
        default:
                break;
        }
        return true;
}

_Noreturn static void end(struct server *s, int status)
{
        /* What the commands left: PID 1's exit takes its namespace along; a landlock server's
         * commands are killed here, and the reaper takes the rest. */
        if (!s->c->pid1)
                signal_commands(s, 0, SIGKILL);
        _exit(status);
}

/* Reaps what has ended: the main command ends the server, a session's command is reported. */
static void reap(struct server *s)
{
        for (;;) {
                int st;
                pid_t w = waitpid(-1, &st, WNOHANG);
                if (w <= 0)
                        return;
                if (s->c->main > 0 && w == s->c->main)
                        end(s, cordon_exit_status_from_wait(st));
                for (size_t i = 0; i < s->n; i++) {
                        if (s->cmds[i].pid != w)
                                continue;
                        struct cordon_control_msg m = {.type = CORDON_CONTROL_EXITED,
                                                       .id = s->cmds[i].id,
                                                       .status = st,
                                                       .rule = -1,
                                                       .fd = -1};
                        s->cmds[i] = s->cmds[--s->n];
                        say(s, &m);
                        break;
                }
        }
}

/* Every caught signal back to its default: the server reads signals from a signalfd and
 * catches none, and a handler inherited from the program that started the sandbox must not run
 * in a command's child, which shares our memory until it execs (cordon_server_spawn()).
 * Ignored ones stay ignored, as exec keeps them. */
static void reset_handlers(void)
{
        for (int sig = 1; sig < _NSIG; sig++) {
                struct sigaction old;
                if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &old) < 0)
                        continue;
                if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
                        struct sigaction dfl = {.sa_handler = SIG_DFL};
                        (void)sigaction(sig, &dfl, NULL);
                }
        }
}

/* The chaperon's doorbell the launch gave the sandbox (slurm-doorbell.h), named by the server's
 * own environment (never a command's request): a socket of ours, else none. */
static int doorbell_of(char *const *envp)
{
        const size_t n = strlen(CORDON_SLURM_FD_ENV);
        for (char *const *e = envp; e && *e; e++) {
                if (strncmp(*e, CORDON_SLURM_FD_ENV, n) != 0 || (*e)[n] != '=')
                        continue;
                char *end = NULL;
                long fd = strtol(*e + n + 1, &end, 10);
                struct stat st;
                if (*end || fd < 3 || fd > INT_MAX || fstat((int)fd, &st) < 0 ||
                    !S_ISSOCK(st.st_mode))
                        return -1;
                return (int)fd;
        }
        return -1;
}

_Noreturn void cordon_server_run(const struct cordon_server_config *c)
{
        struct server s = {
            .c = c, .control = c->control, .parent = getppid(), .doorbell = doorbell_of(c->envp)};
        /* Only a session's server spawns commands (run mode's command is PID 1's own child,
         * forked before): the rest of the launch pays nothing for it. */
        if (c->main == 0)
                reset_handlers();
        sigset_t set = c->forward;
        sigaddset(&set, SIGCHLD);
        (void)sigprocmask(SIG_BLOCK, &set, NULL);
        int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
        if (c->main == 0 && !(s.buf = malloc(CORDON_CONTROL_PAYLOAD_MAX)))
                end(&s, 125);
        if (sfd < 0) {
                /* Without a signalfd the run mode still waits as PID 1 always did. */
                int status = 255;
                if (c->main > 0)
                        (void)cordon_wait_forwarding(c->main, &c->forward, true, &status);
                end(&s, c->main > 0 ? status : 125);
        }
        /* The sandbox's setup is done (and, under the ns backend, all of its mounts): a
         * session's server mostly waits, so what the setup left is given back. Not the heap
         * of the landlock backend's server, which shares its pages with the reaper it was
         * forked from: trimming it would copy them. */
        if (c->main == 0)
                memory_release_idle(c->pid1 ? MEMORY_RELEASE_HEAP | MEMORY_RELEASE_STACK
                                            : MEMORY_RELEASE_STACK);
        for (;;) {
                struct pollfd pfd[2] = {{.fd = sfd, .events = POLLIN},
                                        {.fd = s.control, .events = POLLIN}};
                int k = poll(pfd, s.control >= 0 ? 2 : 1, -1);
                if (k < 0 && errno != EINTR)
                        end(&s, 125);
                if (k <= 0)
                        continue;
                if (pfd[0].revents) {
                        struct signalfd_siginfo si;
                        while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
                                if (si.ssi_signo != SIGCHLD)
                                        signal_commands(&s, 0, (int)si.ssi_signo);
                        reap(&s);
                }
                if (s.control >= 0 && pfd[1].revents && !on_control(&s)) {
                        s.control = safe_close(s.control);
                        if (c->die_with_supervisor || c->main == 0)
                                end(&s, 137);
                }
        }
}
