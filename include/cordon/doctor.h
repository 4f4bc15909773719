/* libcordon: what this host's kernel offers a sandbox (user namespaces, Landlock, seccomp,
 * cgroups, resource limits, pasta), and which backend `auto` picks here. The checks ask the
 * kernel directly (a probe or a harmless system call) and record the errno when the answer is
 * "no"; formatting the report is the caller's job.
 *
 * Conventions as in cordon/cordon.h: >= 0 on success, a negative errno on failure; nothing
 * prints, nothing exits. */
#pragma once

#include <stdbool.h>

#include <cordon/cordon.h>
#include <cordon/sandbox.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A host setting that explains why user namespaces cannot be created. */
enum cordon_userns_blocker {
        CORDON_USERNS_BLOCKER_NONE,
        CORDON_USERNS_BLOCKER_MAX_NAMESPACES, /* user.max_user_namespaces = 0 */
        CORDON_USERNS_BLOCKER_UNPRIVILEGED,   /* kernel.unprivileged_userns_clone = 0 */
        CORDON_USERNS_BLOCKER_APPARMOR,       /* kernel.apparmor_restrict_unprivileged_userns */
};

struct cordon_doctor_userns {
        bool usable;
        int error; /* -errno of the failed probe; 0 when usable */
        enum cordon_userns_blocker blocker;
        /* The sysctls as read; -1 when absent (most are distribution patches) or unreadable. */
        long unprivileged_userns_clone;
        long max_user_namespaces;
        long apparmor_restrict_unprivileged_userns;
};

struct cordon_doctor_landlock {
        int abi;   /* highest supported ABI version, > 0; 0 when unavailable */
        int error; /* -ENOSYS: kernel built without Landlock; -EOPNOTSUPP: built in but not
                    * enabled at boot (missing from lsm=); other -errno: the call failed */
};

/* Seccomp return actions the kernel knows (SECCOMP_GET_ACTION_AVAIL), as bits. */
enum {
        CORDON_SECCOMP_ACTION_KILL_PROCESS = 1u << 0,
        CORDON_SECCOMP_ACTION_KILL_THREAD = 1u << 1,
        CORDON_SECCOMP_ACTION_TRAP = 1u << 2,
        CORDON_SECCOMP_ACTION_ERRNO = 1u << 3,
        CORDON_SECCOMP_ACTION_USER_NOTIF = 1u << 4,
        CORDON_SECCOMP_ACTION_TRACE = 1u << 5,
        CORDON_SECCOMP_ACTION_LOG = 1u << 6,
        CORDON_SECCOMP_ACTION_ALLOW = 1u << 7,
        _CORDON_SECCOMP_ACTION_COUNT = 8,
};

struct cordon_doctor_seccomp {
        bool filter;      /* seccomp filters (mode 2) can be installed */
        int mode;         /* PR_GET_SECCOMP of the caller (0 none, 2 filtered); -1 unknown */
        unsigned actions; /* CORDON_SECCOMP_ACTION_* bits; 0 when the kernel cannot tell */
        int error;        /* -EINVAL: kernel built without CONFIG_SECCOMP(_FILTER); or -errno */
};

enum cordon_cgroup_layout {
        CORDON_CGROUP_NONE,    /* nothing usable mounted at /sys/fs/cgroup */
        CORDON_CGROUP_LEGACY,  /* v1 hierarchies only */
        CORDON_CGROUP_HYBRID,  /* v1 hierarchies, plus v2 at /sys/fs/cgroup/unified */
        CORDON_CGROUP_UNIFIED, /* v2 at /sys/fs/cgroup */
};

struct cordon_doctor_cgroup {
        enum cordon_cgroup_layout layout;
        const char *v2_mount; /* static string; NULL without a v2 hierarchy */
        char *path;           /* the caller's v2 cgroup, relative to v2_mount (/proc/self/cgroup) */
        char **controllers;   /* cgroup.controllers of that cgroup; NULL or empty when none */
        bool delegated;  /* the caller may create sub-cgroups there and move itself into them */
        char *v1_memory; /* the caller's cgroup in a v1 memory hierarchy; NULL when none */
        char *v1_pids;   /* the same for pids */
        int error;       /* -errno when the caller's v2 cgroup could not be inspected */
};

/* The mechanism a sandbox (without an explicit cgroup) would use for its memory, pids and cpus
 * limits: the same probe the launch follows, so the two cannot disagree. */
struct cordon_doctor_limits {
        enum cordon_limit_mechanism mechanism[_CORDON_LIMIT_KIND_MAX]; /* NONE: not enforceable */
        char reason[sizeof(((struct cordon_diag *)0)->message)];       /* why one is NONE; or "" */
        int error; /* -errno when the probe failed (every mechanism is then NONE); 0 */
};

struct cordon_doctor_pasta {
        char *path; /* absolute path of the first executable `pasta` in the search path, or NULL */
};

/* Which network modes (NETWORK_FILTER_MODE) the ns backend can deliver here: open, proxied and
 * isolated always; filtered when pasta is found in the system directories and usable by this
 * user (/dev/net/tun, kernel). The landlock backend delivers open and isolated only. */
struct cordon_doctor_network {
        bool filtered;
        char reason[sizeof(((struct cordon_diag *)0)->message)]; /* why not, with the fix; "" */
};

/* AppArmor's restriction of unprivileged user namespaces (Ubuntu 23.10 and later) and the
 * profile cordon ships to lift it for the installed cordon binary. */
struct cordon_doctor_apparmor {
        int enabled; /* AppArmor is active: 1 yes, 0 no, -1 unknown (/sys/module/apparmor) */
        /* kernel.apparmor_restrict_unprivileged_userns; -1 when absent (no Ubuntu kernel,
         * AppArmor off) or unreadable */
        long restrict_unprivileged_userns;
        char label[128]; /* the caller's AppArmor label ("unconfined", "cordon (unconfined)");
                          * "" when unknown */
        /* The restriction applies to the caller: it is on, no profile is attached to the
         * caller (its label is "unconfined") and the caller is not root. The ns backend then
         * cannot set up its user namespace until cordon's profile is loaded. */
        bool restricts_caller;
        const char *profile;     /* static: the installed copy of cordon's profile */
        bool profile_installed;  /* that copy exists */
        const char *profile_dir; /* static: the directory AppArmor loads profiles from */
};

struct cordon_doctor_report {
        struct cordon_doctor_userns userns;
        struct cordon_doctor_landlock landlock;
        struct cordon_doctor_seccomp seccomp;
        struct cordon_doctor_cgroup cgroup;
        struct cordon_doctor_limits limits;
        struct cordon_doctor_pasta pasta;
        struct cordon_doctor_network network;
        struct cordon_doctor_apparmor apparmor;
};

/* Runs every check. @search_path is a PATH-style list for finding pasta (NULL: a default);
 * relative and empty entries are ignored. A check that fails records its -errno in its own part
 * of the report; the function itself fails only with -ENOMEM, leaving @ret untouched. On success
 * the caller owns @ret and releases it with cordon_doctor_report_clear().
 * Thread-safety: forks once (the user namespace probe), so call it from a single-threaded
 * process; it changes nothing on the host and keeps no state between calls. */
int cordon_doctor_collect(const char *search_path, struct cordon_doctor_report *ret);
/* Frees what @r owns and zeroes it; accepts NULL and a zeroed report. */
void cordon_doctor_report_clear(struct cordon_doctor_report *r);

/* The individual checks, for callers that want only one. They fill @ret completely and never
 * fail (the probe's -errno is in ret->error), except where an int is returned: those fail only
 * with -ENOMEM, leaving @ret untouched. What they allocate belongs to the report part and is
 * released by cordon_doctor_report_clear() of a report holding it.
 * Thread-safety: cordon_doctor_check_userns() forks and needs a single-threaded process; the
 * others may run in any thread. */
void cordon_doctor_check_userns(struct cordon_doctor_userns *ret);
void cordon_doctor_check_landlock(struct cordon_doctor_landlock *ret);
void cordon_doctor_check_seccomp(struct cordon_doctor_seccomp *ret);
int cordon_doctor_check_cgroup(struct cordon_doctor_cgroup *ret);
int cordon_doctor_check_limits(struct cordon_doctor_limits *ret);
int cordon_doctor_find_pasta(const char *search_path, struct cordon_doctor_pasta *ret);
void cordon_doctor_check_network(struct cordon_doctor_network *ret);
/* @root: NULL for the host; else a directory standing in for / where the AppArmor facts are
 * read (proc/sys/kernel/apparmor_restrict_unprivileged_userns,
 * sys/module/apparmor/parameters/enabled, proc/self/attr/apparmor/current and the profile's
 * installed copy), for tests. */
void cordon_doctor_check_apparmor(const char *root, struct cordon_doctor_apparmor *ret);

/* True when the `ns` backend can start a sandbox here (it needs a user namespace). */
bool cordon_doctor_ns_backend_usable(const struct cordon_doctor_report *r);

/* The backend a policy with CORDON_BACKEND_AUTO gets on this host: CORDON_BACKEND_NS or
 * CORDON_BACKEND_LANDLOCK, or -EOPNOTSUPP when neither can run. It is the decision the launcher
 * makes (one function decides for both), taken on the report's facts: where the launcher would
 * try the `ns` backend and fall back once creating the namespaces fails, this answers with the
 * fallback. Pure: reads only @r and the caller's effective uid; thread-safe. */
int cordon_doctor_auto_backend(const struct cordon_doctor_report *r);

#ifdef __cplusplus
}
#endif
