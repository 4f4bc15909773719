/* `cordon doctor`: collects what this host's kernel offers a sandbox (user namespaces, Landlock,
 * seccomp, cgroups, resource limits, pasta). Never prints; formatting is the caller's job. */
#pragma once

#include <stdbool.h>

#include "cordon/cordon.h"
#include "lib/res-limits.h"

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

/* The mechanism `cordon run` (without --cgroup) would use for --memory, --pids and --cpus, as
 * cordon_limits_probe_at() decides it: the same plan the launch follows, so the two cannot
 * disagree. */
struct cordon_doctor_limits {
        enum cordon_limit_mechanism mechanism[_CORDON_LIMIT_KIND_MAX]; /* NONE: not enforceable */
        char reason[sizeof(((struct cordon_diag *)0)->message)];       /* why one is NONE; or "" */
        int error; /* -errno when the probe failed (every mechanism is then NONE); 0 */
};

struct cordon_doctor_pasta {
        char *path; /* absolute path of the first executable `pasta` in the search path, or NULL */
};

struct cordon_doctor_report {
        struct cordon_doctor_userns userns;
        struct cordon_doctor_landlock landlock;
        struct cordon_doctor_seccomp seccomp;
        struct cordon_doctor_cgroup cgroup;
        struct cordon_doctor_limits limits;
        struct cordon_doctor_pasta pasta;
};

/* Runs every check. @search_path is a PATH-style list for finding pasta (NULL: a default);
 * relative and empty entries are ignored. Forks once (the user namespace probe), so call it
 * from a single-threaded process. A check that fails records its -errno in its own part of the
 * report; the function itself fails only with -ENOMEM, leaving @ret untouched. On success the
 * caller owns @ret and releases it with cordon_doctor_report_clear(). Not thread-safe. */
int cordon_doctor_collect(const char *search_path, struct cordon_doctor_report *ret);
void cordon_doctor_report_clear(struct cordon_doctor_report *r);

/* The individual checks, for callers that want only one. Same conventions as above. */
void cordon_doctor_check_userns(struct cordon_doctor_userns *ret);
void cordon_doctor_check_landlock(struct cordon_doctor_landlock *ret);
void cordon_doctor_check_seccomp(struct cordon_doctor_seccomp *ret);
int cordon_doctor_check_cgroup(struct cordon_doctor_cgroup *ret);
/* @host: where the cgroup facts are read from (tests); NULL for the real host. Fails only with
 * -ENOMEM; any other failure of the probe is recorded in ret->error. */
int cordon_doctor_check_limits_at(const struct cordon_limits_host *host,
                                  struct cordon_doctor_limits *ret);
int cordon_doctor_find_pasta(const char *search_path, struct cordon_doctor_pasta *ret);

/* A numeric sysctl such as /proc/sys/user/max_user_namespaces; -1 when absent or unreadable. */
long cordon_read_sysctl(const char *path);

/* True when the default `ns` backend can start a sandbox here (it needs a user namespace). */
bool cordon_doctor_ns_backend_usable(const struct cordon_doctor_report *r);
