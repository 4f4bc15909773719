/* libcordon: what this host's kernel offers a sandbox (user namespaces, Landlock, seccomp,
 * cgroups, resource limits, pasta), and which backend `auto` picks here. The checks ask the
 * kernel directly (a probe or a harmless system call) and record the errno when the answer is
 * "no"; formatting the report is the caller's job.
 *
 * Conventions as in cordon/cordon.h: >= 0 on success, a negative errno on failure; nothing
 * prints, nothing exits. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <cordon/cordon.h>
#include <cordon/sandbox.h>
#include <cordon/settings.h>

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

/* What the landlock backend delivers on this host, item by item, in this fixed order (the
 * landlock backend's section of cordon(1) gives the reasoning per item). */
enum cordon_doctor_ll_item {
        CORDON_DOCTOR_LL_TMPDIR,       /* "tmpdir": a private TMPDIR */
        CORDON_DOCTOR_LL_TMP,          /* "tmp": creating files directly under /tmp */
        CORDON_DOCTOR_LL_SHM,          /* "shm": POSIX shared memory and semaphores */
        CORDON_DOCTOR_LL_PTY,          /* "pty": new pseudo-terminals */
        CORDON_DOCTOR_LL_SCOPE,        /* "scope": signals and abstract unix sockets kept inside */
        CORDON_DOCTOR_LL_TCP,          /* "tcp": Landlock's TCP connect and bind rules */
        CORDON_DOCTOR_LL_PROXIED,      /* "proxied": network mode proxied */
        CORDON_DOCTOR_LL_FILTERED,     /* "filtered": network mode filtered */
        CORDON_DOCTOR_LL_PROC,         /* "proc": a private /proc */
        CORDON_DOCTOR_LL_PASSWD,       /* "passwd": a filtered /etc/passwd and /etc/group */
        CORDON_DOCTOR_LL_HOME_SEEDED,  /* "home_seeded": writable copies of HOME_SEEDED files */
        CORDON_DOCTOR_LL_PROTECTED,    /* "protected": protected files read-only inside
                                        * writable directories (.git/config, agents' settings) */
        CORDON_DOCTOR_LL_HOME_SCRATCH, /* "home_scratch": HOME_ACCESS=tmpwrite's scratch home */
        CORDON_DOCTOR_LL_UNIX,         /* "unix": the host's unix sockets kept out, the command's
                                        * own usable, in every network mode */
        _CORDON_DOCTOR_LL_MAX,
};

struct cordon_doctor_ll_feature {
        const char *name; /* stable key, as above (static) */
        const char *what; /* what the item is, for people (static) */
        bool works;       /* delivered on this host */
        char note[256];   /* how it is delivered, or why not and the fix */
};

/* Computed from the probes of the report (Landlock ABI, seccomp filters and actions, the
 * seccomp user-notification machinery), never from a fixed list. */
struct cordon_doctor_landlock_backend {
        bool usable; /* Landlock is available: the backend can run here */
        struct cordon_doctor_ll_feature features[_CORDON_DOCTOR_LL_MAX];
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
        struct cordon_doctor_landlock_backend landlock_backend;
        struct cordon_doctor_apparmor apparmor;
};

/* What `cordon run` gets on this host with the settings it would load: the backend in use, the
 * network mode it delivers, the hardening layers and the limits. Decided by the launcher's own
 * functions (the backend's `auto`, the network mode's probe and fallback, the limits' probe) on
 * the report's facts, so `cordon doctor` and `cordon run` cannot disagree. */
struct cordon_doctor_setup {
        enum cordon_backend backend_setting; /* SANDBOX_BACKEND as set */
        /* The backend `cordon run` uses: CORDON_BACKEND_NS or CORDON_BACKEND_LANDLOCK (the one
         * SANDBOX_BACKEND names, or what `auto` picks); -EOPNOTSUPP when SANDBOX_BACKEND=auto
         * and neither can run. */
        int backend;
        bool backend_usable; /* it can start a sandbox here */
        /* Landlock and seccomp are wanted (SANDBOX_PROFILE, CORDON_HANDLER_SANDBOX), and a
         * missing one refuses the start (os_hardened, or CORDON_HANDLER_SANDBOX=enforce) rather
         * than being warned about. */
        bool layers_wanted;
        bool layer_missing_refuses;
        enum cordon_net_mode net_want; /* NETWORK_FILTER_MODE */
        /* Per enum cordon_net_mode: the backend in use delivers that mode here. */
        bool net_deliverable[4];
        /* Why @net_want cannot be delivered, naming the fix where there is one; "" when it can. */
        char net_why[sizeof(((struct cordon_diag *)0)->message)];
        /* The mode delivered: @net_want, or what NETWORK_FILTER_FALLBACK picks instead;
         * -EOPNOTSUPP when the start is refused (a strict fallback, or no mode left). */
        int net_mode;
        /* MEMORY_LIMIT, PIDS_LIMIT and CPU_LIMIT, by enum cordon_limit_kind: set to a limit. */
        bool limit_set[_CORDON_LIMIT_KIND_MAX];
        bool cgroup_path_set; /* CGROUP_PATH is set */
        /* The mechanism each limit gets (in CGROUP_PATH when set), as the launch would choose;
         * filled only when a limit or CGROUP_PATH is set. */
        struct cordon_doctor_limits limits;
};

/* Fills @ret from @r (cordon_doctor_collect()) and @s, the settings as `cordon run` would load
 * them (finalized or not: only scalars are read). Probes pasta (and loads libnftables) as the
 * launch does when the network mode asks for filtered; creates nothing. Returns 0, or -ENOMEM
 * leaving @ret untouched. Thread-safe for distinct arguments. */
int cordon_doctor_assess(const struct cordon_doctor_report *r, const struct cordon_settings *s,
                         struct cordon_doctor_setup *ret);

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
/* The landlock backend's items from the Landlock and seccomp parts of a report (@ll and @sc,
 * filled by the checks above) and the kernel's seccomp user notification support, which it
 * probes itself without installing anything. */
void cordon_doctor_check_landlock_backend(const struct cordon_doctor_landlock *ll,
                                          const struct cordon_doctor_seccomp *sc,
                                          struct cordon_doctor_landlock_backend *ret);
/* Whether sessions can write and restore snapshots here (cordon_sandbox_snapshot(),
 * cordon_sandbox_options.restore_from): the libraries they load on first use (libarchive and
 * nettle) load. 0, or -ENOPKG with @diag naming what is missing. Any thread. */
int cordon_doctor_check_snapshot(struct cordon_diag *diag);
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

/* Each check's reason in words, as `cordon doctor` prints it and cordon_doctor_to_json() gives
 * it: why user namespaces, Landlock or seccomp are missing ("" when nothing needs saying),
 * AppArmor's restriction of user namespaces, and a limit mechanism's caveat or why the limit
 * cannot be enforced (@k: which limit; "" for one without a caveat). They name sysctls, kernel
 * options and errno names, never a program's option. Each writes at most @n bytes into @buf
 * (cut, always terminated) and returns @buf; "" (static) when @n is 0. Pure; thread-safe. */
const char *cordon_doctor_userns_reason(const struct cordon_doctor_userns *u, char *buf, size_t n);
const char *cordon_doctor_landlock_reason(const struct cordon_doctor_landlock *l, char *buf,
                                          size_t n);
const char *cordon_doctor_seccomp_reason(const struct cordon_doctor_seccomp *s, char *buf,
                                         size_t n);
const char *cordon_doctor_apparmor_reason(const struct cordon_doctor_apparmor *a, char *buf,
                                          size_t n);
const char *cordon_doctor_limit_note(const struct cordon_doctor_limits *l, enum cordon_limit_kind k,
                                     char *buf, size_t n);
/* The one shell command that installs and loads cordon's AppArmor profile for a caller the
 * restriction applies to ("sudo install ... && sudo apparmor_parser -r ..."), or what to do when
 * the profile's copy is missing; "" when nothing is needed, and "" rather than a command cut
 * short when it does not fit in @n. Returns @buf ("" when @n is 0). Pure; thread-safe. */
const char *cordon_doctor_apparmor_fix(const struct cordon_doctor_apparmor *a, char *buf, size_t n);
/* "none", "legacy", "hybrid", "unified"; NULL for an unknown value. */
const char *cordon_cgroup_layout_to_string(enum cordon_cgroup_layout l);
/* The name of bit @i of cordon_doctor_seccomp.actions ("kill_process", "kill_thread", "trap",
 * "errno", "user_notif", "trace", "log", "allow"); NULL for @i past the last one. */
const char *cordon_doctor_seccomp_action_name(unsigned i);
/* Gap @i of the landlock backend on any host (what no kernel gives it: ENOENT for denied
 * paths, the namespaces, ...), one sentence each; NULL for @i past the last one. What depends
 * on the host is in struct cordon_doctor_landlock_backend. */
const char *cordon_doctor_landlock_backend_gap(unsigned i);

/* @r as one JSON object (compact, UTF-8), the encoding `cordon doctor --json` prints: a key per
 * part of the report ("user_namespaces", "apparmor", "landlock", "seccomp", "cgroup", "limits",
 * "pasta", "network"), each with its facts, "error" (the errno's name or null) and "reason"
 * (the words above, or null); "ns_backend_usable"; "backend" (cordon_doctor_auto_backend(), or
 * null); "landlock_backend" ({"usable", "gaps", "features"}); "held" (the variables @s holds
 * for a part not built yet: [{"name", "value", "origin"}], null without @s); and "in_use" (what
 * @setup, from cordon_doctor_assess(), says a sandbox gets here: {"backend", "backend_setting",
 * "usable", "network": {"want", "mode", "deliverable", "reason"}, "limits"}, null without
 * @setup). Keys are only ever added, at the end of their object. A string that is not UTF-8 (a
 * path) is null. @flags: none yet, pass 0. On success *@ret_json is the caller's (free()).
 * Returns 0, -EINVAL (@r or @ret_json NULL, unknown @flags) or -ENOMEM. Thread-safe for
 * distinct arguments. */
int cordon_doctor_to_json(const struct cordon_doctor_report *r,
                          const struct cordon_doctor_setup *setup, const struct cordon_settings *s,
                          unsigned flags, char **ret_json);

#ifdef __cplusplus
}
#endif
