/* libcordon: sessions. A sandbox started with CORDON_SANDBOX_SESSION and no command stays up
 * and runs commands on request, each forked inside it (the same namespaces, Landlock, seccomp,
 * limits and environment rules as a sandbox's own command): under the ns backend by its PID 1,
 * under the landlock backend by a confined server process below the reaper. It ends when it is
 * killed or freed.
 *
 * Conventions as in cordon/cordon.h: >= 0 on success, a negative errno on failure, context in
 * the optional struct cordon_diag; nothing prints, nothing exits. A session's functions are not
 * thread-safe: one thread drives a session (its execs included) at a time. */
#pragma once

#include <stdint.h>

#include <cordon/sandbox.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cordon_sandbox;
struct cordon_policy;
struct cordon_exec;

/* Flags of struct cordon_exec_options. */
enum {
        /* The command gets @stdio[0], [1] and [2] as its fds 0, 1 and 2 (the caller keeps its
         * copies); without it, and without CORDON_EXEC_PTY, they are /dev/null. A caller that
         * reads a pipe to its end before it waits serves the session meanwhile
         * (cordon_sandbox_get_fd(), _process()): a landlock command's notified calls wait for
         * the supervisor. */
        CORDON_EXEC_STDIO = 1u << 0,
        /* The command gets a new pseudo-terminal as fds 0..2 and controlling terminal, in a
         * session of its own; its master is cordon_exec_pty_fd(). */
        CORDON_EXEC_PTY = 1u << 1,
};

/* Zero-initialise; fields are only ever added at the end, and zero keeps the old meaning. */
struct cordon_exec_options {
        char *const *argv; /* the command; argv[0] is looked up in the sandbox's PATH */
        /* NAME=VALUE set over the sandbox's environment, through the sandbox's environment
         * rules (a variable they remove is left out, as at the start, and named in
         * cordon_exec_env_dropped()); NULL: none. */
        char *const *env;
        const char *cwd; /* an absolute path inside the sandbox; NULL: the sandbox's */
        unsigned flags;  /* CORDON_EXEC_* */
        int stdio[3];    /* with CORDON_EXEC_STDIO */
        /* Wall time from the start after which the command's whole process group is killed
         * (SIGKILL); 0: none. The rest of the session runs on. */
        uint64_t timeout_usec;
};

/* Starts a command in the live session @sb; a suspended session is resumed first. Many may
 * run at once. Returns 0 once it has exec'd, with its handle in *@ret (cordon_exec_free()); or
 * -errno: -EINVAL (no argv, a relative cwd, a malformed variable, flags that exclude each
 * other), -ENOTCONN (@sb is not a session, or has ended), -E2BIG (argv and environment over
 * 128 KiB), or the command's own failure with @diag naming the step (-ENOENT: not found). */
int cordon_sandbox_exec(struct cordon_sandbox *sb, const struct cordon_exec_options *opts,
                        struct cordon_exec **ret, struct cordon_diag *diag);

/* Waits until the command has ended (serving the session meanwhile: its proxy, its other
 * commands' events), and stores its shell-style status (the code, or 128+N for signal N) in
 * @ret_status. Returns 0, or -errno (-ENOTCONN: the session ended first). */
int cordon_exec_wait(struct cordon_exec *e, int *ret_status);
/* Whether it has ended (without waiting): 1 yes, 0 no; serves the session's pending events. */
int cordon_exec_poll(struct cordon_exec *e);
/* Sends @sig (1..64) to the command's process group. Returns 0, -ESRCH once it has ended,
 * -EINVAL, -ENOTCONN. */
int cordon_exec_kill(struct cordon_exec *e, int sig);
/* A pidfd of the command's process, owned by the handle (-EBADF when the kernel gave none). */
int cordon_exec_pidfd(const struct cordon_exec *e);
/* The pseudo-terminal's master (CORDON_EXEC_PTY), owned by the handle; -EBADF otherwise. */
int cordon_exec_pty_fd(const struct cordon_exec *e);
/* The command's pid as the inside of the sandbox sees it. */
pid_t cordon_exec_pid(const struct cordon_exec *e);
/* The names of the variables of the exec's env (struct cordon_exec_options) that the sandbox's
 * environment rules left out, NULL-terminated and owned by @e; NULL when none was (or @e is
 * NULL). */
char *const *cordon_exec_env_dropped(const struct cordon_exec *e);
/* Frees @e; a command still running is killed (its process group). Accepts NULL; returns
 * NULL. Every handle must be freed before its session. */
struct cordon_exec *cordon_exec_free(struct cordon_exec *e);

/* Flags of cordon_sandbox_attach(). */
enum {
        CORDON_ATTACH_READ_WRITE = 1u << 0, /* else read-only */
};

/* Binds host directory or file @host_path at @guest_path inside the live session (a new
 * mount, recursive, nosuid and nodev, read-only unless CORDON_ATTACH_READ_WRITE), which its
 * running commands see at once. The checks of a start hold: @host_path is opened one
 * component at a time without following a symlink (-ELOOP: a planted link); it may not be,
 * hold or lie below a path the session hides (credential stores, blocked files: -EACCES); a
 * read-write one may not hold or lie below a path the session keeps read-only, nor overlap
 * the admin's DENIED_WRITABLE_PATHS (-EACCES); @guest_path must lie below a directory the
 * session's Landlock rules open for that access (-EACCES), and is made (with its parents)
 * when missing, never through a symbolic link of the session's. Both paths absolute, without "." or
 * ".." components (-EINVAL). -EOPNOTSUPP under the landlock backend, which has no mount namespace;
 * -ENOTCONN. */
int cordon_sandbox_attach(struct cordon_sandbox *sb, const char *host_path, const char *guest_path,
                          unsigned flags, struct cordon_diag *diag);

/* The checks cordon_sandbox_attach() makes of its source, made against the policy @p before a
 * start, for a caller that adds the bind to @p itself (cordon_policy_add_fs()) rather than
 * attaching it later: @host_path may not be, hold or lie below a path @p hides; read-write
 * (@flags CORDON_ATTACH_READ_WRITE), it may not hold a path @p keeps read-only nor overlap the
 * admin's DENIED_WRITABLE_PATHS. Returns 0, -EACCES with @diag, -EINVAL (a path not absolute
 * and normal, an unknown flag), -ENOMEM. */
int cordon_policy_check_source(const struct cordon_policy *p, const char *host_path, unsigned flags,
                               struct cordon_diag *diag);

/* Replaces the live session's network rules with those of @p (NETWORK_BLOCKLIST,
 * NETWORK_BLOCKLIST_EXCEPT, the admin's tier; only read): new connections and names are judged
 * by them at once, open connections through the egress proxy to a destination they refuse are
 * closed, and filtered mode's firewall inside the session is replaced in one transaction (the
 * old one holds until the new one does; established flows it now refuses stop). A weaker mode
 * than the session's is refused (-EPERM); a filtered or proxied session can become isolated
 * (every destination refused by the same machinery; the report's net_mode says isolated from
 * then on); any other change of mode is -EOPNOTSUPP. Returns 0, -ENOTCONN, or -errno with
 * @diag (nothing changed then). */
int cordon_sandbox_set_network(struct cordon_sandbox *sb, const struct cordon_policy *p,
                               struct cordon_diag *diag);

/* Writes the session's writable state to the archive @path (replaced atomically: a temporary
 * file beside it, fsync, rename): the trees the session owns (under the ns backend its tmpfs
 * mounts, /tmp and a private home; under the landlock backend its private TMPDIR), never a host
 * path it was not given, with a manifest (format, time, each tree's guest path, the report of
 * the session as its policy, sizes, the sha256 of every file). The session is suspended while
 * it is read (and resumed after, unless it was suspended already). Device nodes, FIFOs,
 * sockets and links that leave their tree are left out. Restore with
 * cordon_sandbox_options.restore_from. Returns 0, -ENOTCONN, or -errno with @diag. */
int cordon_sandbox_snapshot(struct cordon_sandbox *sb, const char *path, struct cordon_diag *diag);

/* Stops every process of the session (cordon_sandbox_resume() continues them): cgroup.freeze
 * where the session has a cgroup v2 of its own, else SIGSTOP from inside (the ns backend's PID
 * 1 stops all of its namespace) or, under the landlock backend, from the supervisor to every
 * process below the reaper, again until none is left running. The mechanism is
 * cordon_sandbox_report()->suspend. Returns 0 (also when already suspended), -ENOTCONN, or
 * -errno. */
int cordon_sandbox_suspend(struct cordon_sandbox *sb, struct cordon_diag *diag);
int cordon_sandbox_resume(struct cordon_sandbox *sb, struct cordon_diag *diag);

#ifdef __cplusplus
}
#endif
