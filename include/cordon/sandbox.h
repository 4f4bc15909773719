/* libcordon: a live sandbox. Start it from a policy, wait for it (cordon_sandbox_wait() runs the
 * sandbox's event loop until the end; a caller with a poll loop of its own drives it with
 * cordon_sandbox_get_fd(), _get_timeout() and _process() instead), kill it, and read a report of
 * what was applied and how it ended. cordon_spawn() is cordon_sandbox_start() +
 * cordon_sandbox_wait() + cordon_sandbox_free().
 *
 * Conventions as in cordon/cordon.h: >= 0 on success, a negative errno on failure, context in
 * the optional struct cordon_diag; nothing prints, nothing exits. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cordon/cordon.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cordon_sandbox;

/* How a sandbox ended. */
enum cordon_end {
        CORDON_END_EXITED,  /* the command exited or died of a signal on its own */
        CORDON_END_TIMEOUT, /* the wall time limit expired; the whole sandbox was killed */
        CORDON_END_KILLED,  /* killed: a forwarded signal was not obeyed within the grace
                             * period, or cordon_sandbox_kill() asked for it */
};

/* After a forwarded SIGINT, SIGTERM or SIGHUP the sandbox has this long to finish before the
 * whole of it is killed. */
#define CORDON_GRACE_USEC (5ULL * 1000 * 1000)

/* The mechanism that enforces a resource limit. */
enum cordon_limit_mechanism {
        CORDON_LIMIT_NONE,     /* not asked for (in a probe: cannot be enforced) */
        CORDON_LIMIT_CGROUP2,  /* a leaf cgroup in the v2 hierarchy */
        CORDON_LIMIT_CGROUP1,  /* a directory in the controller's v1 hierarchy */
        CORDON_LIMIT_RLIMIT,   /* memory: RLIMIT_AS + RLIMIT_DATA; pids: RLIMIT_NPROC */
        CORDON_LIMIT_AFFINITY, /* cpus: sched_setaffinity() to the first N allowed CPUs */
        CORDON_LIMIT_PID_MAX,  /* pids: the pid namespace's pid_max (Linux 6.14), loose by the
                                * 300 pids the kernel reserves; only for cordon's own children */
};

/* The limits that have a mechanism. */
enum cordon_limit_kind {
        CORDON_LIMIT_MEMORY,
        CORDON_LIMIT_PIDS,
        CORDON_LIMIT_CPUS,
        _CORDON_LIMIT_KIND_MAX,
};

/* "none", "cgroup2", "cgroup1", "rlimit", "affinity", "pid_max"; NULL for an unknown value. */
const char *cordon_limit_mechanism_to_string(enum cordon_limit_mechanism m);
/* "memory", "pids", "cpus"; NULL for an unknown value. */
const char *cordon_limit_kind_to_string(enum cordon_limit_kind k);

/* How a session is suspended (cordon_sandbox_suspend()). */
enum cordon_suspend_mechanism {
        CORDON_SUSPEND_NONE,
        CORDON_SUSPEND_CGROUP_FREEZE, /* cgroup.freeze of the session's own cgroup v2 */
        CORDON_SUSPEND_STOP_SIGNALS,  /* SIGSTOP/SIGCONT to every process of it */
};

/* "none", "cgroup_freeze", "stop_signals"; NULL for an unknown value. */
const char *cordon_suspend_mechanism_to_string(enum cordon_suspend_mechanism m);

/* Namespaces a sandbox was given, as bits of cordon_report.namespaces. */
enum {
        CORDON_NS_USER = 1u << 0,
        CORDON_NS_MOUNT = 1u << 1,
        CORDON_NS_PID = 1u << 2,
        CORDON_NS_IPC = 1u << 3,
        CORDON_NS_UTS = 1u << 4,
        CORDON_NS_CGROUP = 1u << 5,
        CORDON_NS_NET = 1u << 6,
};

/* The name of Landlock feature bit @i of cordon_report.landlock.features ("filesystem", "refer",
 * "truncate", "tcp", "ioctl_dev", "scope", ...) and the ABI that brought it; NULL for @i past
 * the last one. */
const char *cordon_landlock_feature_name(unsigned i, int *ret_abi);

/* A repository the sandbox made or changed so that the host's git would act on it, moved
 * aside once the sandbox had ended (PROTECT_GIT_CONFIG). */
struct cordon_git_moved {
        const char *path;     /* where it was: a .git, a bare repository, a rebase state */
        const char *moved_to; /* where it is now */
        const char *reason;   /* what the host's git would have acted on */
};

/* What flowed back from an agent's private copy of its configuration after the run: the keys
 * its profile allows (`writeback`) were merged into the host's file; the other changes were
 * not. */
struct cordon_agent_writeback {
        const char *agent;
        const char *file;           /* the host file */
        size_t kept;                /* keys set or removed in it */
        const char *const *dropped; /* changed keys left out (names; NULL-terminated) */
        bool more_dropped;          /* more than those */
        const char *error;          /* "" or why nothing was merged */
};

/* What a sandbox was given and how it ended. Filled in step by step: the decisions once the
 * prepare phase has run (the `prepared` callback sees them), `started` once the command runs,
 * the outcome once cordon_sandbox_wait() has returned. Strings point into the sandbox and live
 * as long as it does.
 * The library allocates it, inside the sandbox, and hands it out only by pointer
 * (cordon_sandbox_report()); it grows: fields are only ever added, at the end. So a caller
 * never allocates one, never copies one by value and never takes its size: it reads the
 * fields it knows through the pointer, and one built against an older header keeps working. */
struct cordon_report {
        /* Decided in the prepare phase (an `auto` backend that fell back reports landlock). */
        enum cordon_backend backend;
        enum cordon_profile profile;
        enum cordon_fallback fallback;
        /* The network mode delivered, and the one asked for: they differ when the asked one
         * could not be delivered and NETWORK_FILTER_FALLBACK chose another, or (after the end)
         * when filtered mode's pasta ended while the command ran: isolated then, as the
         * command had only its loopback from then on (never another fallback: the command is
         * in its own network namespace). */
        enum cordon_net_mode net_mode;
        enum cordon_net_mode net_mode_requested;
        /* When they differ: why, what NETWORK_FILTER_FALLBACK chose and how to get the mode
         * asked for, or "filtered failed: ..." ("" otherwise). A weaker mode than asked for is
         * also a warning, and so is every change after the `prepared` callback. */
        const char *net_note;
        /* The egress proxy (proxied mode): connections served and refused so far, and the TCP
         * port on 127.0.0.1 the command is told of (decided in the prepare phase: 3128 inside
         * the ns backend's network namespace, a random port of the host's loopback under the
         * landlock backend; 0 in other modes and in a landlock dry run). */
        struct {
                unsigned long long connections;
                unsigned long long refused;
                unsigned port;
                /* After the end: the first (at most 4) distinct destinations the rules refused,
                 * as "host:port", "address:port" or "[v6]:port" in the order refused;
                 * NULL-terminated, owned by the sandbox; NULL when the mode has no proxy. */
                const char *const *refused_first;
        } proxy;
        unsigned namespaces; /* CORDON_NS_* */
        struct {
                bool planned; /* the profile asked for it and the kernel has it */
                bool applied; /* the command runs under it */
                int abi;      /* the kernel's Landlock ABI, > 0; or -errno when it has none */
                /* What the kernel's ABI offers, whether planned or not; bits: see
                 * cordon_landlock_feature_name() */
                unsigned features;
                size_t rules;
                bool tcp_denied;
                bool scoped;
                /* Under the landlock backend: how many of the policy's read-only paths inside
                 * writable directories only a mount namespace keeps (the project's agent
                 * files, ...), which therefore stay writable (at least 1 when such files were
                 * not even planned for an explicit landlock backend); 0 otherwise. */
                size_t left_writable;
        } landlock;
        struct {
                bool planned;
                bool applied;
                bool deny_list;
                bool deny_network;
                bool deny_socket_create;
                size_t instructions;
        } seccomp;
        enum cordon_limit_mechanism limits[_CORDON_LIMIT_KIND_MAX];
        const char *limits_text; /* "memory=cgroup2 pids=rlimit ..."; "" when none */
        /* What enforces SANDBOX_NPROC_LIMIT (limits_text's "nproc="): RLIMIT (RLIMIT_NPROC,
         * counted per uid over every process of the user), or for the real uid 0, which the
         * kernel exempts from RLIMIT_NPROC, the sandbox's pids cgroup (CGROUP2, CGROUP1;
         * pids.max the smaller of it and PIDS_LIMIT); NONE when it is not set. Where neither
         * can apply the start is refused. */
        enum cordon_limit_mechanism nproc_limit;
        /* What the prepare phase made on the host without a warning of its own (the agents'
         * state directories, HOME_WRITABLE directories, stand-ins in the project), as one line
         * ("created PATH, ..."), said on the run that made them; "" when nothing. */
        const char *created;
        /* Facts of the policy, for banners and receipts. */
        const char *project_dir; /* NULL when there is none */
        enum cordon_home_access home_access;
        size_t env_blocked;
        /* The names of the variables removed (NULL-terminated, never NULL once the policy is
         * known; owned by the sandbox). Names only: the values never leave the library. */
        const char *const *env_blocked_names;
        uint64_t timeout_usec;
        uint64_t memory_bytes;

        /* The run. */
        bool started; /* the command was executed */
        pid_t pid;    /* the sandbox's first process (PID 1 or the reaper); 0 before start */
        bool ended;
        int exit_status; /* shell-style: the code, or 128+N for signal N */
        enum cordon_end end;
        bool oom_killed;
        int error; /* -errno when starting or waiting failed; 0 */
        enum cordon_step failed_step;
        /* PROTECT_GIT_CONFIG, after the end: the repositories below the writable roots that
         * the sandbox made or changed so that the host's git would run something it chose,
         * moved where git no longer finds them; and "" or what was left unchecked and why (a
         * limit, an unreadable directory, a move that failed). */
        struct {
                size_t n_moved;
                const struct cordon_git_moved *moved;
                const char *unchecked;
        } git;
        /* The agents' private homes: what the profiles' overlays changed in the copies (one
         * "agent: file (key, ...)" each; decided in the prepare phase, NULL-terminated), and
         * after the end what flowed back. */
        struct {
                const char *const *overlaid;
                size_t n_writebacks;
                const struct cordon_agent_writeback *writebacks;
        } agents;
        /* The filtered mode's resolver (cordon's own, inside the sandbox), after the end: the
         * queries it answered REFUSED (a name the rules refuse, one whose answer holds an
         * address they refuse, or a query it does not serve), and the first (at most 4)
         * distinct names the rules refused; NULL-terminated, owned by the sandbox; NULL in
         * other modes. */
        struct {
                unsigned long long refused;
                const char *const *refused_first;
        } resolver;
        /* A session (cordon/session.h): what its last suspend used; NONE before any. */
        enum cordon_suspend_mechanism suspend;
};

/* Flags of struct cordon_sandbox_options. */
enum {
        /* Until the sandbox has ended, SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the process
         * are passed on to the command (the starting thread blocks them and its event loop
         * reads them from a signalfd). What the `cordon` program does; a library caller with
         * several sandboxes usually does not want it. */
        CORDON_SANDBOX_FORWARD_SIGNALS = 1u << 0,
        /* The landlock backend's reaper normally shares the caller's memory until the command
         * has exec'd (CLONE_VM: about 0.4 ms faster a start). A long-lived or multi-threaded
         * caller that would rather not lend its address space sets this: the reaper is forked. */
        CORDON_SANDBOX_FORK_REAPER = 1u << 1,
        /* When the start fails, hand the (never started) sandbox back in @ret_sb all the same,
         * for its report: the decisions made before the failure, `error` and `failed_step`
         * (e.g. for a receipt of a run that could not start). Free it as any other. */
        CORDON_SANDBOX_RETURN_FAILED = 1u << 2,
        /* The command gets @stdio[0], [1] and [2] of struct cordon_sandbox_options as its fds 0,
         * 1 and 2 (say /dev/null and the write ends of two pipes) instead of the caller's, and
         * no pseudo-terminal. The fds are the caller's: it closes its copies after the start
         * (the sandbox holds its own). Every other fd is closed as always. */
        CORDON_SANDBOX_STDIO = 1u << 3,
        /* A session (cordon/session.h): started with a NULL argv, the sandbox runs no command
         * of its own and stays up, serving cordon_sandbox_exec(), until killed or freed. It has
         * no pseudo-terminal of its own (CORDON_EXEC_PTY gives a command one). Under the
         * landlock backend its reaper is forked (as with CORDON_SANDBOX_FORK_REAPER). */
        CORDON_SANDBOX_SESSION = 1u << 4,
};

/* The caller's, and it grows. The rule, kept by every release: fields are only ever added at
 * the end, and a field that is zero (NULL, false) means what the library did before the field
 * existed. So zero-initialise it (`= {.flags = ...}` or `= {0}`, never field by field on
 * uninitialised memory): a caller rebuilt against a newer header keeps its old behaviour. The
 * size is part of the ABI: a release that adds a field gives the functions that read the struct
 * (cordon_sandbox_start_with(), cordon_sandbox_plan()) a new symbol version, keeping the old
 * one for programs built against the smaller struct. */
/* A host directory a session's snapshots hold beside the trees the session owns
 * (cordon_sandbox_options.host_trees). */
struct cordon_host_tree {
        /* The tree's name in the archive: "host-" and this (letters, digits, '.', '_' and '-',
         * 1 to 32 bytes, not starting with '.'), the same in the session that restores it. */
        const char *name;
        /* An absolute path without '.' or '..' components, opened at each snapshot and restore
         * with no symbolic link followed. */
        const char *path;
};

struct cordon_sandbox_options {
        unsigned flags; /* CORDON_SANDBOX_* */
        /* Called with one line per warning (a layer skipped, a backend fallback); NULL: none. */
        void (*warning)(void *userdata, const char *message);
        /* Called after the prepare phase and before the clone: the report's decisions are in
         * place (e.g. to print a banner). Called again before the next clone when the start
         * falls back and decides anew (an `auto` backend that needs landlock after all,
         * filtered mode whose pasta failed to start); the change is also a warning. NULL:
         * none. */
        void (*prepared)(void *userdata, const struct cordon_sandbox *sb);
        void *userdata;
        /* With CORDON_SANDBOX_STDIO: the command's fds 0, 1, 2 (each >= 0). */
        int stdio[3];
        /* A session: the archive of cordon_sandbox_snapshot() to restore into its writable
         * trees once it runs (they must be empty, and named as the archive's: the same
         * configuration); NULL: none. A restore that fails fails the start. */
        const char *restore_from;
        /* A session: host directories of the caller's that the session writes (its project,
         * the outputs it hands back) and that its snapshots hold too, each a tree of the
         * archive; restore_from restores into them as well (what the new start put there
         * stays). @n_host_trees of them, at most 4, names distinct; copied at the start. NULL:
         * the session's own trees only. */
        const struct cordon_host_tree *host_trees;
        size_t n_host_trees;
};

/* Starts @argv (argv[0] is looked up in the sandbox's PATH) confined by @p: prepare, clone,
 * the parent steps, release, and the child's report. Returns 0 once the command has been
 * executed, with the handle in @ret_sb (owned by the caller: cordon_sandbox_free()). Returns a
 * negative errno when the sandbox could not be set up; nothing has run then, @diag names the
 * step and path that failed (CORDON_STEP_EXEC: -ENOENT when the command was not found;
 * -EBUSY when @p gives its agents a private directory, named when it was resolved, that a
 * sandbox started from the same policy still uses: resolve again for each sandbox that runs at
 * the same time), and
 * @ret_sb is NULL (but see CORDON_SANDBOX_RETURN_FAILED). @p is not referenced after the call.
 * @opts may be NULL.
 * Each of the caller's descriptors 0, 1 and 2 that is closed is held on /dev/null
 * (close-on-exec) from the start until cordon_sandbox_free(), so that no descriptor of the
 * sandbox lands there and is taken for stdio; the command sees them closed, as the caller has
 * them, and they are closed again at the free.
 * The sandbox's first process is a child of the calling thread: its parent-death signal fires
 * when that thread exits, so a thread that starts a sandbox must outlive it.
 * Thread-safety: several sandboxes may be live in one process, and different threads may
 * start, wait for and free different sandboxes. A sandbox's own functions are not safe to call
 * concurrently, except cordon_sandbox_kill() and cordon_sandbox_pidfd(), which any thread may
 * call at any time before cordon_sandbox_free(). What must still be single-threaded:
 *  - with CORDON_SANDBOX_FORWARD_SIGNALS, and for a policy with a pty (SIGWINCH), the signals
 *    are blocked in the starting thread until the wait is over: start and wait on the same
 *    thread, and no other thread of the process may leave them unblocked (a process-directed
 *    signal goes to any thread that does not block it);
 *  - the ns backend's child is made with a raw clone(), which does not take libc's locks the
 *    way fork() does, and its steps allocate (its /proc reads): no other thread may hold
 *    malloc's lock at that moment, which in practice means starting ns sandboxes while the
 *    other threads do not allocate, or from a single-threaded process (what `cordon` does).
 *    The landlock backend's child allocates nothing. */
int cordon_sandbox_start(const struct cordon_policy *p, char *const *argv,
                         struct cordon_sandbox **ret_sb, struct cordon_diag *diag);
int cordon_sandbox_start_with(const struct cordon_policy *p, char *const *argv,
                              const struct cordon_sandbox_options *opts,
                              struct cordon_sandbox **ret_sb, struct cordon_diag *diag);

/* What cordon_sandbox_start() would do with @p, as text (one item a line): backend, profile,
 * layers, network, limits and their mechanisms, the mounts in order with their origins, the
 * environment by count, and the host actions the start would take. The decisions are taken by
 * the same code as a start's prepare phase, but nothing is created, changed or run: no host
 * action, no private TMPDIR, no cgroup, no clone. @opts->warning (if any) gets the warnings a
 * start would give. On success the caller owns *@ret_text (free()). Returns 0, or -errno with
 * the reason in @diag (as cordon_sandbox_start()'s prepare phase: a profile that cannot run
 * here, a required layer missing). Thread-safe for distinct arguments. */
int cordon_sandbox_plan(const struct cordon_policy *p, const struct cordon_sandbox_options *opts,
                        char **ret_text, struct cordon_diag *diag);

/* A pidfd of the sandbox's first process (PID 1, or the landlock backend's reaper), owned by
 * the sandbox: readable once the whole sandbox has ended. -EBADF before the start. */
int cordon_sandbox_pidfd(const struct cordon_sandbox *sb);

/* Runs the sandbox's event loop (pty relay, signal forwarding, the wall time limit, the egress
 * proxy or resolver, the seccomp notifications) until the sandbox has ended, then stores the
 * command's shell-style status in @ret_status. Returns 0, or -errno (the sandbox is killed
 * then). Once it has returned, it returns the same result again. It is a loop over
 * cordon_sandbox_process(), blocking in poll() on cordon_sandbox_get_fd() for at most
 * cordon_sandbox_get_timeout() between rounds. */
int cordon_sandbox_wait(struct cordon_sandbox *sb, int *ret_status);

/* For a caller with an event loop of its own, driving one or more sandboxes: the sandbox's
 * event loop as a descriptor to poll for POLLIN (an epoll fd, readable when one of its sources
 * is ready). Owned by the sandbox, valid until cordon_sandbox_free(). Returns the fd; -EINVAL
 * for NULL; -ESRCH when the start failed before the loop was made. Poll it together with
 * cordon_sandbox_get_timeout(): the loop's timers (the wall time limit, the grace period, the
 * proxy's timeouts) do not make the fd readable. */
int cordon_sandbox_get_fd(struct cordon_sandbox *sb);
/* Stores in @ret_usec how long the caller may wait on cordon_sandbox_get_fd() before the next
 * cordon_sandbox_process() is due anyway: microseconds until the loop's next timer, UINT64_MAX
 * when none is armed, 0 when a timer is due or when the sandbox has ended (process answers at
 * once then). Returns 0, or -EINVAL. */
int cordon_sandbox_get_timeout(struct cordon_sandbox *sb, uint64_t *ret_usec);
/* One round of the sandbox's event loop that never waits: dispatches what is ready (the pty
 * relay, forwarded signals, the proxy's connections, the wall time's kill...). Returns 0 while
 * the sandbox runs; 1 once it has ended, with the report's outcome filled in (`ended`,
 * `exit_status`, `end`; what cordon_sandbox_wait() does after the end is done: the network
 * helper stopped, the git check, the agents' write-back, the signal mask restored); a negative
 * errno when supervising it failed (the sandbox is killed and reaped then, the report's
 * `error` set). Once it has returned non-zero it returns the same again. The only wait in it:
 * at the end of a sandbox with a pseudo-terminal, for the answers to queries the command sent
 * the user's terminal, at most 2 s. With CORDON_SANDBOX_FORWARD_SIGNALS or a pty, call it from
 * the thread that started the sandbox (the signals are blocked there and read from a
 * signalfd). Not thread-safe for one sandbox; different sandboxes may be driven by one thread
 * (poll their fds together) or by different threads. */
int cordon_sandbox_process(struct cordon_sandbox *sb);

/* Sends @sig to the command; SIGKILL ends the whole sandbox (every process in it) at once
 * (it then ends CORDON_END_KILLED). Only SIGKILL and the signals PID 1 and the reaper pass on
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT) are accepted. Safe from any thread and from a timer
 * while another thread waits. Returns 0, -ESRCH before the start and once the sandbox has
 * ended, -EINVAL for another signal, or -errno. */
int cordon_sandbox_kill(struct cordon_sandbox *sb, int sig);

/* What was applied and, after the end (cordon_sandbox_wait(), cordon_sandbox_process() 1), how
 * it ended. Never NULL for a handle. */
const struct cordon_report *cordon_sandbox_report(const struct cordon_sandbox *sb);

/* @rep (from cordon_sandbox_report(), at any point of the sandbox's life) as one JSON object
 * (compact, UTF-8), the encoding of `cordon run --receipt` and the session API: "backend",
 * "profile", "fallback", "project" (null without one), "home_access", "network" (the mode
 * delivered), "env_blocked" and "env_blocked_names" (names only, never values), "namespaces"
 * (["user", "mount", ...]), "layers" ({"landlock": {"applied", "abi", "features", "rules",
 * "tcp_denied", "scoped"}, "seccomp": {"applied", "deny_list", "deny_network",
 * "deny_socket_create", "instructions"}}: a layer is applied once the command runs under it),
 * "outcome" ({"exit_status": N} after the wait; {"error": the errno's description, "errno": N}
 * when starting or waiting failed; null while it runs), "git_moved" ([{"path", "moved_to",
 * "reason"}]) and "git_unchecked" (null or why). Keys are only ever added, at the end of their
 * object. A string that is not UTF-8 (a path) is null. @flags: none yet, pass 0. On success
 * *@ret_json is the caller's (free()). Returns 0, -EINVAL (@rep or @ret_json NULL, unknown
 * @flags) or -ENOMEM. Reads only @rep: thread-safe as long as nothing changes the sandbox
 * meanwhile (no concurrent wait). */
int cordon_report_to_json(const struct cordon_report *rep, unsigned flags, char **ret_json);

/* Frees @sb; accepts NULL; returns NULL. A sandbox that is still running is killed and reaped
 * first, and what it left on the host (a private TMPDIR, cgroups) is removed. */
struct cordon_sandbox *cordon_sandbox_free(struct cordon_sandbox *sb);

#ifdef __cplusplus
}
#endif
