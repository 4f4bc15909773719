/* The launcher pipeline: clone into new namespaces, build the filesystem view, drop privileges,
 * exec under a small PID 1, and supervise until the command exits. The child reports the first
 * failure as {step, errno, rule} on a close-on-exec pipe; end-of-file means exec succeeded. */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/caps.h"
#include "lib/diag.h"
#include "lib/keyring.h"
#include "lib/launch.h"
#include "lib/ns-limits.h"
#include "lib/ns-mount.h"
#include "lib/net-modes.h"
#include "lib/ns-net.h"
#include "lib/ns-user.h"
#include "lib/pid1.h"
#include "lib/policy.h"
#include "lib/pty.h"
#include "lib/raw-syscall.h"
#include "lib/supervise.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

#if defined(__SANITIZE_ADDRESS__)
#define CORDON_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORDON_ASAN 1
#endif
#endif

struct child_report {
        int32_t step;
        int32_t err;
        int32_t rule;
};

struct child_ctx {
        const struct cordon_policy *p;
        struct cordon_launch *l; /* read-only but for the orphaned reaper's cleanup */
        struct cordon_mount_plan *plan;
        char *const *argv;
        int report_fd;
        int lifeline_fd;
        int parent_fds[3]; /* the supervisor's ends, closed in the child; -EBADF: none */
        sigset_t forward;
        /* NULL: the command keeps the caller's fds 0..2. Changed only in the ns backend's PID 1
         * (its own copy), by cordon_pty_move_inside(). */
        struct cordon_pty *pty;
        int pty_sock;     /* ns backend: where PID 1 sends the master of the pty it made inside */
        pid_t supervisor; /* landlock backend: the reaper's parent */
        struct cordon_ns_limits ns_limits; /* ns backend: written into the user namespace */
};

_Noreturn static void child_fail(const struct child_ctx *c, int step, int err, int rule, int code)
{
        struct child_report rep = {.step = step, .err = err < 0 ? -err : err, .rule = rule};
        (void)write_all(c->report_fd, &rep, sizeof(rep));
        _exit(code);
}

/* A file without a #! line is a shell script, as execvp() has it. */
static void exec_script(const char *path, char *const *argv, char *const *envp)
{
        static char sh[] = "sh";
        char file[PATH_MAX], *args[256];
        size_t n = 0, len = strlen(path);

        if (len >= sizeof(file))
                return;
        memcpy(file, path, len + 1);
        args[n++] = sh;
        args[n++] = file;
        for (size_t i = 1; argv[i]; i++) {
                if (n >= ELEMENTSOF(args) - 1) {
                        errno = ENOEXEC; /* too many arguments to pass on here */
                        return;
                }
                args[n++] = argv[i];
        }
        args[n] = NULL;
        execve("/bin/sh", args, envp);
        errno = ENOEXEC;
}

/* execvp() with the PATH of @envp rather than of the caller: the landlock backend's child shares
 * the supervisor's memory (and so its environ) until it execs. No allocation. */
static void exec_search(const char *file, char *const *argv, char *const *envp)
{
        const char *path = "/usr/local/bin:/usr/bin:/bin";
        int saved = ENOENT;

        if (strchr(file, '/')) {
                execve(file, argv, envp);
                if (errno == ENOEXEC)
                        exec_script(file, argv, envp);
                saved = errno;
        } else {
                for (char *const *e = envp; e && *e; e++)
                        if (strncmp(*e, "PATH=", 5) == 0)
                                path = *e + 5;
                for (const char *p = path;; p++) {
                        const char *end = strchrnul(p, ':');
                        char buf[PATH_MAX];
                        size_t dl = (size_t)(end - p), fl = strlen(file);
                        /* An empty entry means the working directory, as for execvp(). */
                        if (dl + 1 + fl + 1 <= sizeof(buf)) {
                                memcpy(buf, dl ? p : ".", dl ? dl : 1);
                                size_t n = dl ? dl : 1;
                                buf[n] = '/';
                                memcpy(buf + n + 1, file, fl + 1);
                                execve(buf, argv, envp);
                                if (errno == ENOEXEC) {
                                        exec_script(buf, argv, envp);
                                        saved = ENOEXEC;
                                        break;
                                }
                                /* Keep looking after a miss; remember a permission problem. */
                                if (errno == EACCES)
                                        saved = EACCES;
                                else if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP &&
                                         errno != ENAMETOOLONG && errno != ESTALE &&
                                         errno != ENODEV && errno != ETIMEDOUT) {
                                        saved = errno;
                                        break;
                                }
                        }
                        if (!*end)
                                break;
                        p = end;
                }
        }
        errno = saved;
}

_Noreturn static void exec_command(const struct child_ctx *c)
{
        sigset_t empty;
        sigemptyset(&empty);
        sigprocmask(SIG_SETMASK, &empty, NULL);
        int r;
        /* A session of its own with the pty as controlling terminal and its process group in
         * the foreground: job control, ^C and ^Z work inside as in any terminal. */
        if (c->pty && (r = cordon_pty_child_setup(c->pty)) < 0)
                child_fail(c, CORDON_STEP_TERMINAL, r, -1, 125);
        if (!c->pty && c->p->process.new_session && setsid() < 0)
                child_fail(c, CORDON_STEP_PROCESS, errno, -1, 125);
        if (c->p->cwd && chdir(c->p->cwd) < 0)
                child_fail(c, CORDON_STEP_CHDIR, errno, -1, 125);
        exec_search(c->argv[0], c->argv, c->l->envp ? c->l->envp : c->p->envp);
        child_fail(c, CORDON_STEP_EXEC, errno, -1, errno == ENOENT ? 127 : 126);
}

/* Landlock, then the seccomp filter last of all: the filter refuses calls (mount, keyctl,
 * unshare...) that earlier steps need. Both apply to PID 1 too, and everything it forks inherits
 * them. */
static void apply_layers(const struct child_ctx *c)
{
        int r, rule = -1;
        if (c->l->landlock && (r = cordon_landlock_apply(&c->l->ll, &rule)) < 0)
                child_fail(c, CORDON_STEP_LANDLOCK, r, rule, 125);
        if (c->l->bpf.len > 0 && (r = cordon_seccomp_install(&c->l->bpf)) < 0)
                child_fail(c, CORDON_STEP_SECCOMP, r, -1, 125);
}

/* Common first steps of both backends' children. */
static void child_begin(const struct child_ctx *c)
{
        const struct cordon_policy *p = c->p;
        int r;

        /* Into the sandbox's cgroup(s) first, so that nothing it runs is ever outside; then the
         * rlimits and CPU affinity of the fallback mechanisms, inherited by everything. */
        if (c->l->limits) {
                for (size_t i = 0; i < ELEMENTSOF(c->l->cgroup_fds); i++)
                        if (c->l->cgroup_fds[i] >= 0 && write(c->l->cgroup_fds[i], "0", 1) != 1)
                                child_fail(c, CORDON_STEP_LIMITS, errno, -1, 125);
                if ((r = cordon_limits_apply_child(c->l->limits)) < 0)
                        child_fail(c, CORDON_STEP_LIMITS, r, -1, 125);
        }

        /* Die with the supervisor; the lifeline pipe catches a supervisor that died before the
         * death signal was armed (its write end is only held there). */
        if (p->process.die_with_parent) {
                if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                        child_fail(c, CORDON_STEP_PROCESS, errno, -1, 125);
                struct pollfd pfd = {.fd = c->lifeline_fd, .events = POLLIN};
                if (poll(&pfd, 1, 0) > 0)
                        _exit(125);
        }
        if (p->process.close_fds) {
                /* The pty's fds stay for cordon_pty_child_setup(), which closes them itself;
                 * the prepared Landlock ruleset for apply_layers() (close-on-exec). */
                int keep[] = {c->report_fd,
                              c->lifeline_fd,
                              c->pty_sock,
                              c->pty ? c->pty->slave : -EBADF,
                              c->pty ? c->pty->master : -EBADF,
                              c->pty ? c->pty->private_tty : -EBADF,
                              c->l->ll.prepared ? c->l->ll.ruleset_fd : -EBADF};
                if ((r = close_all_fds_except(keep, ELEMENTSOF(keep))) < 0)
                        child_fail(c, CORDON_STEP_PROCESS, r, -1, 125);
        }
}

/* The landlock backend: no namespaces, so no PID 1 either; the child confines itself and
 * becomes the command. */
_Noreturn static void child_landlock_main(const struct child_ctx *c)
{
        const struct cordon_policy *p = c->p;
        int r;

        child_begin(c);
        if ((r = cordon_keyring_detach()) < 0)
                child_fail(c, CORDON_STEP_KEYRING, r, -1, 125);
        /* Without a user namespace only a caller that holds capabilities (root) has any to drop;
         * no-new-privs keeps everyone else from gaining them through execve. */
        if (p->process.drop_capabilities && cordon_caps_any() && (r = cordon_caps_drop_all()) < 0)
                child_fail(c, CORDON_STEP_CAPS, r, -1, 125);
        if ((r = cordon_caps_set_no_new_privs()) < 0)
                child_fail(c, CORDON_STEP_NNP, r, -1, 125);
        apply_layers(c);
        exec_command(c);
}

static int child_landlock_entry(void *arg)
{
        child_landlock_main(arg);
}

/* The landlock backend's command borrows the reaper's memory until it execs (like vfork, but
 * on a stack of its own): no page tables to copy, no copy-on-write faults, which is most of the
 * cost of a fork for a process that execs at once. The reaper sleeps until the exec or the
 * exit. What the child may touch of the shared memory is harmless to it: errno (the same TLS;
 * the reaper reads it only when clone fails), and the capability count cache in caps.c,
 * which it fills with the value the reaper would. It allocates nothing (close_range, the
 * fixed-size Landlock and PATH buffers) and never returns into the reaper's frames. */
static int kill_cgroup(void *userdata)
{
        return cordon_limits_kill_all(userdata);
}

static pid_t clone_landlock_child(struct child_ctx *c)
{
#ifdef CORDON_ASAN
        /* AddressSanitizer cannot follow a switch to a stack it did not make: it warns on every
         * run and could report false errors. The sanitizer build forks. */
        pid_t pid = fork();
        if (pid == 0)
                child_landlock_entry(c);
        return pid;
#else
        /* A static stack: unmapping one the child ran on would cost a TLB shootdown on every
         * CPU it touched. One launch at a time per process (cordon_spawn is not thread-safe). */
        static _Alignas(64) char stack[256 * 1024];
        return clone(child_landlock_entry, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
                     c);
#endif
}

/* The supervisor was SIGKILLed: its leftovers on the host (the private TMPDIR, cgroups) are
 * the reaper's to remove, once the sandbox is gone. */
static void clear_launch(void *userdata)
{
        cordon_launch_clear(userdata);
}

/* The landlock backend's reaper (see supervise.h): forked from the supervisor, it starts the
 * command and stays its parent, so that nothing the command leaves behind outlives the sandbox,
 * not even when the supervisor is SIGKILLed. */
static void raw_close(int fd)
{
        if (fd >= 0)
                (void)cordon_raw_syscall1(SYS_close, fd);
}

_Noreturn static void reaper_main(struct child_ctx *c)
{
        for (size_t i = 0; i < ELEMENTSOF(c->parent_fds); i++)
                raw_close(c->parent_fds[i]);
        raw_close(c->pty_sock);
        int r = cordon_reaper_prepare(c->supervisor);
        if (r == -ESRCH)
                for (;;)
                        (void)cordon_raw_syscall1(SYS_exit_group, 125);
        if (r < 0)
                child_fail(c, CORDON_STEP_PROCESS, r, -1, 125);
        pid_t cmd = clone_landlock_child(c);
        if (cmd < 0)
                child_fail(c, CORDON_STEP_FORK, errno, -1, 125);
        /* The supervisor reads end-of-file once the command has exec'd and this copy of the
         * write end is closed too; the reaper keeps no way into the sandbox's terminal. */
        raw_close(c->report_fd);
        raw_close(c->lifeline_fd);
        if (c->l->ll.prepared)
                raw_close(c->l->ll.ruleset_fd);
        if (c->pty) {
                const int fds[] = {c->pty->slave, c->pty->master, c->pty->private_tty};
                for (size_t i = 0; i < ELEMENTSOF(fds); i++)
                        if (fds[i] > 2)
                                raw_close(fds[i]);
        }
        cordon_reaper_run(cmd, &c->forward, c->supervisor, clear_launch, c->l);
}

#if CORDON_RAW_SYSCALL_INLINE && !defined(CORDON_ASAN)
#define REAPER_SHARES_MEMORY 1
static int reaper_entry(void *arg)
{
        reaper_main(arg);
}
#endif

/* The reaper. Where the raw system calls are inline (x86_64), it shares our memory (CLONE_VM):
 * a fork would cost copy-on-write faults on every page the supervisor, the reaper and the
 * command's vfork-like child then write, about 0.4 ms a run here. Sharing is safe because of
 * what each side does while the other runs: until the command has exec'd and the reaper has
 * closed its copy of the report pipe, the supervisor only close()s and read()s (no errno
 * written on success, nothing else touched), and the reaper and the command's child run as
 * the command's child alone did before; after it, the reaper runs on raw system calls only
 * (raw-syscall.h: no errno, no libc state), with a stack of its own, until it exits. It uses
 * libc again only when the supervisor has died (clear_launch()). The sanitizer build and
 * other architectures fork. */
static pid_t start_reaper(struct child_ctx *c)
{
        c->supervisor = getpid();
#ifdef REAPER_SHARES_MEMORY
        static _Alignas(64) char stack[64 * 1024];
        return clone(reaper_entry, stack + sizeof(stack), CLONE_VM | SIGCHLD, c);
#else
        pid_t pid = fork();
        if (pid == 0)
                reaper_main(c);
        return pid;
#endif
}

/* The supervisor leaves before the reaper has exited only on an error: it is ended then, so
 * that it never runs on in memory the supervisor is about to free. */
static void stop_reaper(pid_t pid)
{
        (void)kill(pid, CORDON_REAPER_SIGNAL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

/* The ns backend's PID 1, once the sandbox's devpts is mounted: the command's terminal moves
 * there, where it has a name (/dev/pts/0) that tty(1), ttyname(3), GPG_TTY=$(tty) find. When
 * that fails the pty made outside serves, nameless inside; once the command's end has moved,
 * the supervisor must get the new master or the terminal would be dead. */
static void pty_move_inside(const struct child_ctx *c)
{
        int m = cordon_pty_move_inside(c->pty, "/dev/pts/ptmx");
        if (m >= 0) {
                int r = send_fd(c->pty_sock, m);
                safe_close(m);
                if (r < 0)
                        child_fail(c, CORDON_STEP_TERMINAL, r, -1, 125);
        }
}

_Noreturn static void child_main(const struct child_ctx *c)
{
        const struct cordon_policy *p = c->p;
        int r, step, rule = -1;

        child_begin(c);
        if ((r = cordon_ns_user_write_maps(p->identity.uid, p->identity.gid)) < 0)
                child_fail(c, CORDON_STEP_USERNS, r, -1, 125);
        /* Before the mount plan makes /proc/sys read-only. */
        if ((r = cordon_ns_limits_apply(&c->ns_limits, &rule)) < 0)
                child_fail(c, CORDON_STEP_NS_LIMITS, r, rule, 125);
        /* The original environment block still holds every variable the supervisor saw. */
        if ((r = cordon_pid1_scrub_environ()) < 0)
                child_fail(c, CORDON_STEP_PROCESS, r, -1, 125);
        if ((r = cordon_mount_plan_execute(c->plan, p, &step, &rule)) < 0)
                child_fail(c, step, r, rule, 125);
        if (c->pty_sock >= 0)
                pty_move_inside(c);
        if (p->identity.hostname && (r = cordon_ns_uts_set_hostname(p->identity.hostname)) < 0)
                child_fail(c, CORDON_STEP_HOSTNAME, r, -1, 125);
        if (cordon_net_mode_traits(p->net_mode)->loopback && (r = cordon_ns_net_loopback_up()) < 0)
                child_fail(c, CORDON_STEP_NETWORK, r, -1, 125);
        if ((r = cordon_keyring_detach()) < 0)
                child_fail(c, CORDON_STEP_KEYRING, r, -1, 125);
        /* Nothing inside may read PID 1's memory or /proc/1/environ, or ptrace it. */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                child_fail(c, CORDON_STEP_PROCESS, errno, -1, 125);
        if (p->process.drop_capabilities && (r = cordon_caps_drop_all()) < 0)
                child_fail(c, CORDON_STEP_CAPS, r, -1, 125);
        if (p->process.no_new_privs && (r = cordon_caps_set_no_new_privs()) < 0)
                child_fail(c, CORDON_STEP_NNP, r, -1, 125);
        apply_layers(c);

        pid_t cmd = fork();
        if (cmd < 0)
                child_fail(c, CORDON_STEP_FORK, errno, -1, 125);
        if (cmd == 0)
                exec_command(c);
        safe_close(c->report_fd);
        safe_close(c->lifeline_fd);
        safe_close(c->pty_sock);
        if (c->pty) {
                /* PID 1 keeps no way to the user's terminal either: it leaves the caller's
                 * session and holds the slave where the command got it. */
                (void)setsid();
                for (int fd = 0; fd <= 2; fd++)
                        if (!c->pty->keep_std[fd])
                                (void)dup2(c->pty->slave, fd);
                const int fds[] = {c->pty->slave, c->pty->master, c->pty->private_tty};
                for (size_t i = 0; i < ELEMENTSOF(fds); i++)
                        if (fds[i] > 2)
                                (void)close(fds[i]);
        }
        cordon_pid1_run(cmd, &c->forward);
}

static void pty_freep(struct cordon_pty **pty)
{
        if (*pty) {
                cordon_pty_close(*pty);
                free(*pty);
        }
}

/* The sandbox's own terminal when stdin is one, with the user's terminal in raw mode from here
 * on (pty_freep() restores it). Returns 0 with *@ret NULL when stdin is no terminal. */
static int open_pty(struct cordon_pty **ret, struct cordon_diag *diag)
{
        /* The usual non-interactive run: no 128 KiB of buffers to map and unmap. Any other
         * answer is left to cordon_pty_open(). */
        struct termios t;
        if (tcgetattr(STDIN_FILENO, &t) < 0 && (errno == ENOTTY || errno == EINVAL))
                return 0;
        _cleanup_(pty_freep) struct cordon_pty *pty = malloc(sizeof(*pty));
        if (!pty)
                return -ENOMEM;
        if (diag)
                diag->step = CORDON_STEP_TERMINAL;
        int r = cordon_pty_open(pty, STDIN_FILENO, STDIN_FILENO);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to create a pseudo-terminal: %s",
                                       strerror(-r));
        if (r == 0)
                return 0;
        cordon_pty_keep_other_std_fds(pty);
        r = cordon_pty_enter_raw(pty);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to put the terminal in raw mode: %s",
                                       strerror(-r));
        *ret = TAKE_PTR(pty);
        return 0;
}

static unsigned long clone_flags(const struct cordon_policy *p)
{
        unsigned long f = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                          CLONE_NEWCGROUP;
        if (cordon_net_mode_traits(p->net_mode)->netns)
                f |= CLONE_NEWNET;
        return f;
}

static void describe_failure(const struct cordon_launch *l, const struct child_report *rep,
                             char *const *argv, struct cordon_diag *diag)
{
        const struct cordon_policy *p = l->p;
        const struct cordon_fs_rule *r =
            rep->step != CORDON_STEP_LANDLOCK && rep->rule >= 0 && (size_t)rep->rule < p->n_fs
                ? &p->fs[rep->rule]
                : NULL;
        const char *err = strerror(rep->err);
        const char *what =
            r ? (r->host && cordon_access_is_bind(r->access) ? r->host : r->guest) : "";

        if (diag)
                diag->step = (enum cordon_step)rep->step;
        switch (rep->step) {
        case CORDON_STEP_USERNS:
                cordon_diag_set(diag, 0, "failed to write the user namespace id maps: %s", err);
                break;
        case CORDON_STEP_OPEN:
                cordon_diag_set(diag, 0, "failed to open '%s': %s", what, err);
                break;
        case CORDON_STEP_ROOT:
                cordon_diag_set(diag, 0, "failed to mount the sandbox root: %s", err);
                break;
        case CORDON_STEP_MOUNTPOINT:
                cordon_diag_set(diag, 0, "failed to create mount point '%s': %s", r ? r->guest : "",
                                err);
                break;
        case CORDON_STEP_MOUNT:
                if (r && cordon_access_is_bind(r->access))
                        cordon_diag_set(diag, 0, "failed to bind '%s': %s", what, err);
                else
                        cordon_diag_set(diag, 0, "failed to mount %s on '%s': %s",
                                        r ? cordon_access_to_string(r->access) : "tmpfs",
                                        r ? r->guest : "/", err);
                break;
        case CORDON_STEP_MASK:
                cordon_diag_set(diag, 0, "failed to mask '%s': %s", r ? r->guest : "", err);
                break;
        case CORDON_STEP_PIVOT:
                cordon_diag_set(diag, 0, "failed to switch to the sandbox root: %s", err);
                break;
        case CORDON_STEP_HOSTNAME:
                cordon_diag_set(diag, 0, "failed to set the hostname: %s", err);
                break;
        case CORDON_STEP_NETWORK:
                cordon_diag_set(diag, 0, "failed to bring up the loopback interface: %s", err);
                break;
        case CORDON_STEP_KEYRING:
                cordon_diag_set(diag, 0, "failed to leave the session keyring: %s", err);
                break;
        case CORDON_STEP_CAPS:
                cordon_diag_set(diag, 0, "failed to drop capabilities: %s", err);
                break;
        case CORDON_STEP_NNP:
                cordon_diag_set(diag, 0, "failed to set no-new-privs: %s", err);
                break;
        case CORDON_STEP_LANDLOCK:
                if (rep->rule >= 0 && (size_t)rep->rule < l->ll.n_rules)
                        cordon_diag_set(diag, 0, "failed to apply the Landlock rule for '%s': %s",
                                        l->ll.rules[rep->rule].path, err);
                else
                        cordon_diag_set(diag, 0, "failed to apply the Landlock ruleset: %s", err);
                break;
        case CORDON_STEP_SECCOMP:
                cordon_diag_set(diag, 0, "failed to install the seccomp filter: %s", err);
                break;
        case CORDON_STEP_CHDIR:
                cordon_diag_set(diag, 0, "failed to change directory to '%s': %s", strempty(p->cwd),
                                err);
                break;
        case CORDON_STEP_FORK:
                cordon_diag_set(diag, 0, "failed to start the command: %s", err);
                break;
        case CORDON_STEP_EXEC:
                cordon_diag_set(diag, 0, "failed to execute '%s': %s", argv[0], err);
                break;
        case CORDON_STEP_LIMITS:
                cordon_diag_set(diag, 0, "failed to apply the resource limits: %s", err);
                break;
        case CORDON_STEP_TERMINAL:
                cordon_diag_set(diag, 0, "failed to make the pseudo-terminal the command's: %s",
                                err);
                break;
        case CORDON_STEP_NS_LIMITS:
                cordon_diag_set(diag, 0,
                                "failed to lower the sandbox's user namespace limit '%s' in "
                                "/proc/sys/user: %s",
                                cordon_ns_limit_name(rep->rule), err);
                break;
        default:
                cordon_diag_set(diag, 0, "failed to set up the sandbox: %s", err);
        }
}

/* Errors of clone(CLONE_NEWUSER...) that mean "no user namespaces here" rather than a
 * transient shortage: container runtimes' seccomp policies (EPERM), kernels without them
 * (EINVAL), a zero or exhausted namespace limit (ENOSPC, EUSERS). */
static bool userns_refused(int err)
{
        return err == EPERM || err == EINVAL || err == ENOSPC || err == EUSERS || err == ENOSYS;
}

/* One attempt with the launch's current backend. Returns 0 with the command's status, -errno
 * with @diag filled, or -EAGAIN with @why set when an `auto` launch should fall back. */
static int run_once(struct cordon_launch *l, char *const *argv, int *ret_status, char *why,
                    size_t whylen, struct cordon_diag *diag)
{
        const struct cordon_policy *p = l->p;
        int r;

        struct cordon_mount_plan plan = {0};
        struct cordon_ns_limits ns_limits = {.n = 0};
        if (l->backend == CORDON_BACKEND_NS) {
                r = cordon_mount_plan_build(p, &plan);
                if (r < 0)
                        return cordon_diag_set(diag, r, "failed to plan the mounts: %s",
                                               strerror(-r));
                /* With the seccomp layer on only the inotify counts can grow inside. */
                r = cordon_ns_limits_plan(NULL, l->seccomp, &ns_limits);
                if (r < 0) {
                        cordon_mount_plan_clear(&plan);
                        return cordon_diag_set(diag, r,
                                               "failed to read the user namespace limits in "
                                               "/proc/sys/user: %s",
                                               strerror(-r));
                }
        }

        int report[2] = {-EBADF, -EBADF}, lifeline[2] = {-EBADF, -EBADF};
        int pty_sock[2] = {-EBADF, -EBADF};
        _cleanup_(pty_freep) struct cordon_pty *pty = NULL;
        if (pipe2(report, O_CLOEXEC) < 0 || pipe2(lifeline, O_CLOEXEC) < 0) {
                r = cordon_diag_set(diag, -errno, "failed to create a pipe: %m");
                goto out;
        }
        if (p->process.pty && (r = open_pty(&pty, diag)) < 0)
                goto out;
        if (pty)
                cordon_pty_set_passthrough(pty, p->process.terminal_passthrough);
        if (pty && l->backend == CORDON_BACKEND_NS &&
            socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pty_sock) < 0) {
                r = cordon_diag_set(diag, -errno, "failed to create a socket pair: %m");
                goto out;
        }

        struct child_ctx ctx = {
            .p = p,
            .l = l,
            .plan = &plan,
            .argv = argv,
            .report_fd = report[1],
            .lifeline_fd = lifeline[0],
            .parent_fds = {report[0], lifeline[1], pty_sock[0]},
            .pty_sock = pty_sock[1],
            .pty = pty,
            .ns_limits = ns_limits,
        };
        sigemptyset(&ctx.forward);
        sigaddset(&ctx.forward, SIGINT);
        sigaddset(&ctx.forward, SIGTERM);
        sigaddset(&ctx.forward, SIGHUP);
        sigaddset(&ctx.forward, SIGQUIT);
        sigset_t block = ctx.forward, saved;
        sigaddset(&block, SIGCHLD);
        if (pty)
                sigaddset(&block, SIGWINCH);
        sigprocmask(SIG_BLOCK, &block, &saved);

        if (diag)
                diag->step = CORDON_STEP_CLONE;
        pid_t pid = l->backend == CORDON_BACKEND_NS
                        ? (pid_t)syscall(SYS_clone, clone_flags(p) | SIGCHLD, NULL, NULL, NULL, 0)
                        : start_reaper(&ctx);
        if (pid < 0) {
                if (l->auto_backend && userns_refused(errno)) {
                        snprintf(why, whylen, "clone: %s", strerror(errno));
                        r = -EAGAIN;
                } else
                        r = cordon_diag_set(
                            diag, -errno,
                            "failed to create the sandbox namespaces: %m (see 'cordon doctor')");
                sigprocmask(SIG_SETMASK, &saved, NULL);
                goto out;
        }
        if (pid == 0) {
                for (size_t i = 0; i < ELEMENTSOF(ctx.parent_fds); i++)
                        safe_close(ctx.parent_fds[i]);
                child_main(&ctx);
        }
        /* Nothing but close() and read() until the report pipe's end of file: the landlock
         * backend's reaper may share our memory and errno until then (see start_reaper()). */
        (void)close(report[1]);
        report[1] = -EBADF;
        struct child_report rep;
        ssize_t n;
        do
                n = read(report[0], &rep, sizeof(rep));
        while (n < 0 && errno == EINTR);

        lifeline[0] = safe_close(lifeline[0]);
        pty_sock[1] = safe_close(pty_sock[1]);
        if (pty)
                cordon_pty_parent_after_clone(pty);

        int status = 0;
        if (n == (ssize_t)sizeof(rep)) {
                if (cordon_wait_forwarding(pid, &ctx.forward, false, &status) < 0 &&
                    l->backend == CORDON_BACKEND_LANDLOCK)
                        stop_reaper(pid);
                /* The namespaces were created but the id maps or the first mount were refused:
                 * what AppArmor's userns restriction looks like. Nothing has run yet. */
                if (l->auto_backend && (rep.step == CORDON_STEP_USERNS ||
                                        (rep.step == CORDON_STEP_ROOT && rep.err == EPERM))) {
                        snprintf(why, whylen, "%s: %s",
                                 rep.step == CORDON_STEP_USERNS ? "writing the id maps"
                                                                : "mounting the root",
                                 strerror(rep.err));
                        r = -EAGAIN;
                } else {
                        describe_failure(l, &rep, argv, diag);
                        r = rep.err > 0 ? -rep.err : -EIO;
                }
        } else {
                if (diag)
                        diag->step = CORDON_STEP_NONE;
                /* PID 1 sent it before starting the command, whose exec we just saw; nothing
                 * (-EAGAIN) means the pty made outside serves. A master that came and cannot
                 * be used leaves the command's terminal unrelayed: hang it up rather. */
                int m = pty_sock[0] >= 0 ? recv_fd(pty_sock[0], MSG_DONTWAIT) : -EAGAIN;
                if ((m < 0 && m != -EAGAIN) || (m >= 0 && cordon_pty_adopt_master(pty, m) < 0))
                        cordon_pty_close(pty);
                struct cordon_supervise sup = {
                    .pid = pid,
                    .forward = ctx.forward,
                    .timeout_usec = p->limits.timeout_usec,
                    .kill_signal = l->backend == CORDON_BACKEND_LANDLOCK ? CORDON_REAPER_SIGNAL : 0,
                    .kill_all = l->limits ? kill_cgroup : NULL,
                    .userdata = l->limits,
                    .pty = pty,
                };
                r = cordon_supervise_run(&sup, &status, &l->end);
                if (r < 0 && l->backend == CORDON_BACKEND_LANDLOCK)
                        stop_reaper(pid);
                l->oom_killed = l->limits && cordon_limits_oom_killed(l->limits);
                if (r < 0)
                        cordon_diag_set(diag, r, "failed to wait for the sandbox: %s",
                                        strerror(-r));
                else
                        *ret_status = status;
        }
        sigprocmask(SIG_SETMASK, &saved, NULL);
out:
        safe_close(report[0]);
        safe_close(report[1]);
        safe_close(lifeline[0]);
        safe_close(lifeline[1]);
        safe_close(pty_sock[0]);
        safe_close(pty_sock[1]);
        cordon_mount_plan_clear(&plan);
        return r;
}

int cordon_launch_run(struct cordon_launch *l, char *const *argv, int *ret_status,
                      struct cordon_diag *diag)
{
        char why[256] = "";
        int r;

        if (!argv || !argv[0])
                return cordon_diag_set(diag, -EINVAL, "no command given");
        r = run_once(l, argv, ret_status, why, sizeof(why), diag);
        if (r != -EAGAIN)
                return r;
        if (diag)
                diag->step = CORDON_STEP_PREPARE;
        r = cordon_launch_fall_back(l, why, diag);
        if (r < 0)
                return r;
        return run_once(l, argv, ret_status, why, sizeof(why), diag);
}

_public_ int cordon_spawn(const struct cordon_policy *p, char *const *argv, int *ret_status,
                          struct cordon_diag *diag)
{
        int r;

        if (diag)
                diag->step = CORDON_STEP_PREPARE;
        if (!argv || !argv[0])
                return cordon_diag_set(diag, -EINVAL, "no command given");
        r = cordon_policy_validate(p, diag);
        if (r < 0)
                return r;

        struct cordon_launch l = {0};
        r = cordon_launch_prepare(p, &l, diag);
        if (r >= 0)
                r = cordon_launch_run(&l, argv, ret_status, diag);
        cordon_launch_clear(&l);
        return r;
}
