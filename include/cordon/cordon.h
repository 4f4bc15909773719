/* libcordon: confine a command on Linux with namespaces, following a policy.
 *
 * Every front end (command-line flags, sandbox.conf layers, capability policy JSON, session
 * specs) lowers into one struct cordon_policy; cordon_spawn() applies it.
 *
 * Conventions: functions return >= 0 on success and a negative errno on failure; they never
 * print and never exit. Where a failure needs context for a person (a path, a key, a file and
 * line), it is written to the optional struct cordon_diag argument. Objects are not thread-safe;
 * use one per thread or lock around them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The launcher step that failed, reported in struct cordon_diag. */
enum cordon_step {
        CORDON_STEP_NONE,
        CORDON_STEP_PREPARE,    /* work in the supervisor before clone */
        CORDON_STEP_CLONE,      /* creating the namespaces */
        CORDON_STEP_USERNS,     /* uid/gid maps */
        CORDON_STEP_OPEN,       /* opening a host source */
        CORDON_STEP_ROOT,       /* the new root tmpfs */
        CORDON_STEP_MOUNTPOINT, /* creating a mount point */
        CORDON_STEP_MOUNT,      /* binding or mounting */
        CORDON_STEP_MASK,       /* masking a blocked path */
        CORDON_STEP_PIVOT,      /* pivot_root and detaching the old root */
        CORDON_STEP_HOSTNAME,
        CORDON_STEP_NETWORK,
        CORDON_STEP_PROCESS, /* fds, session, dumpable, death signal */
        CORDON_STEP_KEYRING, /* a new session keyring */
        CORDON_STEP_CAPS,
        CORDON_STEP_NNP,
        CORDON_STEP_LANDLOCK, /* the Landlock ruleset */
        CORDON_STEP_SECCOMP,  /* the seccomp filter */
        CORDON_STEP_CHDIR,
        CORDON_STEP_FORK,
        CORDON_STEP_EXEC,
        CORDON_STEP_LIMITS,   /* joining the cgroup, rlimits, CPU affinity */
        CORDON_STEP_TERMINAL, /* the pseudo-terminal: creating it, or taking it in the child */
        /* lowering the limits of the sandbox's user namespace (/proc/sys/user) */
        CORDON_STEP_NS_LIMITS,
        CORDON_STEP_PROXY, /* the egress proxy's listening socket inside (proxied mode) */
        /* the network mode's own rules inside the namespace (filtered: its nftables rules) */
        CORDON_STEP_NET_FILTER,
};

struct cordon_diag {
        enum cordon_step step; /* CORDON_STEP_NONE unless a launcher step failed */
        char message[1024];
        /* A change of the settings that would fix it, or empty strings: add @fix_value to list
         * variable @fix_variable (the message says so in those words; a front end may spell it
         * its own way, as the cordon program spells READONLY_MOUNTS "--ro DIR"). */
        char fix_variable[64];
        char fix_value[1024];
};

/* How a path is made available inside the sandbox. */
enum cordon_access {
        CORDON_ACCESS_RO,      /* host path bound read-only, nosuid, nodev */
        CORDON_ACCESS_RW,      /* host path bound read-write, nosuid, nodev */
        CORDON_ACCESS_TMPFS,   /* empty writable tmpfs */
        CORDON_ACCESS_MASKED,  /* hidden: /dev/null over a file, empty read-only tmpfs over a dir */
        CORDON_ACCESS_DEVICE,  /* host device node bound read-write, nosuid */
        CORDON_ACCESS_COPY,    /* writable copy of a host file, discarded on exit */
        CORDON_ACCESS_DATA,    /* read-only file with generated contents */
        CORDON_ACCESS_SYMLINK, /* symbolic link; "host" holds the link target */
        CORDON_ACCESS_PROC,    /* a fresh procfs for the sandbox's pid namespace */
        CORDON_ACCESS_DEV,     /* minimal /dev: null zero full random urandom tty, devpts, shm */
        _CORDON_ACCESS_MAX,
};

enum cordon_net_mode {
        CORDON_NET_OPEN,
        CORDON_NET_FILTERED,
        CORDON_NET_PROXIED,
        CORDON_NET_ISOLATED,
};

enum cordon_home_access {
        CORDON_HOME_TMPWRITE,
        CORDON_HOME_RESTRICTED,
        CORDON_HOME_READ,
        CORDON_HOME_WRITE,
};

/* How the launcher confines: `ns` builds a namespace view and adds Landlock and seccomp;
 * `landlock` uses no namespace at all (Landlock + seccomp + environment rules) for hosts without
 * user namespaces; `auto` picks `ns` when it works. */
enum cordon_backend {
        CORDON_BACKEND_AUTO,
        CORDON_BACKEND_NS,
        CORDON_BACKEND_LANDLOCK,
};

/* Sandbox profiles, in ladder order (a higher value is stricter):
 *   unrestricted  Landlock and seccomp are skipped;
 *   worktree      they are applied; a missing mechanism is handled by enum cordon_fallback;
 *   wasi          accepted in capability policies, never runnable as a host process;
 *   os_hardened   every layer is required; a missing mechanism is always an error. */
enum cordon_profile {
        CORDON_PROFILE_UNRESTRICTED,
        CORDON_PROFILE_WORKTREE,
        CORDON_PROFILE_WASI,
        CORDON_PROFILE_OS_HARDENED,
        _CORDON_PROFILE_MAX,
};

/* The side-effect ceiling of a capability policy, lowest first. Below `network` the socket
 * system calls fail with EPERM. */
enum cordon_side_effect {
        CORDON_SIDE_EFFECT_NONE,
        CORDON_SIDE_EFFECT_READ_ONLY,
        CORDON_SIDE_EFFECT_WORKSPACE_WRITE,
        CORDON_SIDE_EFFECT_PROCESS_EXEC,
        CORDON_SIDE_EFFECT_NETWORK,
        _CORDON_SIDE_EFFECT_MAX,
};

/* What the worktree profile does when a hardening mechanism is missing
 * (CORDON_HANDLER_SANDBOX / HARN_HANDLER_SANDBOX): skip the layers, warn once and go on, or
 * refuse to start. os_hardened always behaves as `enforce`. */
enum cordon_fallback {
        CORDON_FALLBACK_OFF,
        CORDON_FALLBACK_WARN,
        CORDON_FALLBACK_ENFORCE,
};

/* Flags of a filesystem rule. */
enum {
        CORDON_FS_OPTIONAL = 1u << 0, /* skip silently when the host path is missing */
        CORDON_FS_SEAL = 1u << 1,     /* tmpfs: made read-only once its contents are in place */
        /* Only a mount namespace gives it: the landlock backend, which sees the host's files,
         * leaves it out (a read-only file inside a writable grant would take the rights to
         * create anything in the directories around it). */
        CORDON_FS_NS_ONLY = 1u << 2,
};

struct cordon_policy;

struct cordon_policy *cordon_policy_new(void);
/* Frees @p; accepts NULL; returns NULL. */
struct cordon_policy *cordon_policy_free(struct cordon_policy *p);

/* Adds a filesystem rule. @guest is the absolute path inside the sandbox; @host the absolute
 * host path (NULL for tmpfs, masked dirs, proc, dev; the contents for DATA; the link target for
 * SYMLINK). @origin says where the rule came from, for explanations. Copies its arguments.
 * Returns 0, -EINVAL for a relative or non-normalised path, -ENOMEM. */
int cordon_policy_add_fs(struct cordon_policy *p, const char *guest, const char *host,
                         enum cordon_access access, unsigned flags, const char *origin);

/* The filesystem rules of @p in mount order (the order cordon_policy_add_fs() and resolving
 * added them; a later rule is mounted over an earlier one): their number, and rule @i's guest
 * path, host path (NULL where the access kind has none), access kind, CORDON_FS_* flags and
 * origin. The strings point into @p and stay valid until @p changes or is freed; any @ret_ may
 * be NULL. cordon_policy_get_fs() returns 0 or -ERANGE past the end. Read-only: thread-safe for
 * a policy nobody changes. */
size_t cordon_policy_fs_count(const struct cordon_policy *p);
int cordon_policy_get_fs(const struct cordon_policy *p, size_t i, const char **ret_guest,
                         const char **ret_host, enum cordon_access *ret_access, unsigned *ret_flags,
                         const char **ret_origin);

/* Working directory inside the sandbox (absolute). */
int cordon_policy_set_cwd(struct cordon_policy *p, const char *cwd);
/* Environment for the command: a complete KEY=VALUE list, copied. */
int cordon_policy_set_env(struct cordon_policy *p, char *const *envp);
int cordon_policy_set_hostname(struct cordon_policy *p, const char *hostname);
/* Slurm inside the sandbox (SLURM_SCOPE): @stub, cordon's stub program (cordon-slurm-stub),
 * stands in for each of Slurm's commands the command's PATH leads to on the host (bound over
 * them under a mount namespace, first on PATH under their names under the landlock backend);
 * @chaperon, cordon's chaperon program (cordon-chaperon), is started by the supervisor at the
 * first call, judges each against the policy and SLURM_SCOPE, runs the real command on the host
 * and confines the jobs it submits. Call once on a resolved policy; a policy without it leaves
 * Slurm's commands as its rules make them. Returns 0 (also when the host has no Slurm on that
 * PATH: nothing changes), -EINVAL or -errno of stat() for a path that is not an executable
 * file (@diag says which), -EALREADY when called before, -ENOMEM. */
int cordon_policy_set_slurm(struct cordon_policy *p, const char *stub, const char *chaperon,
                            struct cordon_diag *diag);
int cordon_policy_set_net_mode(struct cordon_policy *p, enum cordon_net_mode mode,
                               const char *origin);
/* Defaults: CORDON_BACKEND_AUTO, CORDON_PROFILE_WORKTREE, CORDON_SIDE_EFFECT_NETWORK,
 * CORDON_FALLBACK_ENFORCE. Each returns 0 or -EINVAL for a value out of range;
 * cordon_policy_set_backend() returns -EPERM for any backend but landlock on a policy that
 * cordon_settings_resolve() made for the landlock backend (it lacks the ns backend's rules). */
int cordon_policy_set_backend(struct cordon_policy *p, enum cordon_backend b);
int cordon_policy_set_profile(struct cordon_policy *p, enum cordon_profile profile);
int cordon_policy_set_side_effect_level(struct cordon_policy *p, enum cordon_side_effect level);
int cordon_policy_set_fallback(struct cordon_policy *p, enum cordon_fallback f);

/* Checks the policy for internal consistency (absolute normalised paths, no two rules for one
 * guest path with different meanings, a root for the working directory, a tmpfs rule for a tmpfs
 * size to apply to). Returns 0 or -EINVAL with the reason in @diag. */
int cordon_policy_validate(const struct cordon_policy *p, struct cordon_diag *diag);

/* The host path of the read-write bind of @p that the absolute host path @path lies in (also
 * through the bind's resolved path), or NULL: whether the sandbox could write @path. The result
 * points into @p. Reads the host (realpath); thread-safe for a policy nobody changes. */
const char *cordon_policy_writable_bind(const struct cordon_policy *p, const char *path);

/* What the sandbox shows at a path (cordon_policy_describe_path()). */
enum cordon_path_view {
        CORDON_PATH_ABSENT,     /* no rule at or above it: not there (the root starts empty) */
        CORDON_PATH_HIDDEN,     /* masked, or below an empty tmpfs (a scratch home, /tmp) */
        CORDON_PATH_READ_ONLY,  /* a host object bound read-only (see the rule's host path) */
        CORDON_PATH_READ_WRITE, /* a host object bound writable, or a device node */
        CORDON_PATH_COPY,       /* a writable copy of the host's file (or a credential-free
                                 * one), discarded on exit */
        /* something of the sandbox's own: an empty tmpfs itself, a generated file, a link,
         * procfs, /dev, or nothing below a rule that makes a file */
        CORDON_PATH_SANDBOX,
};

struct cordon_path_info {
        enum cordon_path_view view;
        /* The rule that decides (an index for cordon_policy_get_fs()), or SIZE_MAX for none;
         * its guest path and origin point into the policy (NULL for none). */
        size_t rule;
        const char *rule_path;
        const char *origin;
        /* The deciding rule keeps the path read-only (or a copy, or generated) below a rule
         * that lets the sandbox write around it (a read-write bind, a writable tmpfs): a
         * protection carved out of a writable directory, such as a repository's .git/config. */
        bool protected_in_writable;
        /* The setting behind the deciding rule, when the policy tells: "HOME_ACCESS" with
         * "tmpwrite", "PRIVATE_TMP", "PROTECT_GIT_CONFIG"; empty strings when it does not (the
         * origin still says where the rule came from). */
        char variable[64];
        char value[64];
        /* A change of the settings that would show the host's object there, or would let the
         * sandbox write it: add @fix_value to list @fix_variable, or set scalar @fix_variable
         * to @fix_value ("READONLY_MOUNTS" and the path, "PROTECT_GIT_CONFIG" and "false");
         * empty strings when there is none to offer (a mask is lifted by removing the item its
         * origin names). */
        char fix_variable[64];
        char fix_value[4096];
};

/* What @p does with the normalised absolute path @path: the rule that decides what the sandbox
 * shows there (the last one at or above it in the ns backend's mount order, skipping an
 * optional bind whose host path is missing), what that shows, the setting behind it and the
 * change that would show it. With @backend CORDON_BACKEND_LANDLOCK the rules only a mount
 * namespace gives (CORDON_FS_NS_ONLY, configuration copies) are left out, as that backend
 * leaves them out; any other value describes the mount view. Paths are compared as strings:
 * @path is a path inside the sandbox, which is the host's same path wherever a bind shows one.
 * Fills @ret and returns 0, or -EINVAL for a relative or non-normalised @path. Reads the host
 * (whether an optional bind's host path exists); thread-safe for a policy nobody changes. */
int cordon_policy_describe_path(const struct cordon_policy *p, const char *path,
                                enum cordon_backend backend, struct cordon_path_info *ret);

/* Opens the directory of @path, a file the caller writes on the host for a run of @p (a log, a
 * receipt), for writing the file beneath it without following links (openat() with O_NOFOLLOW,
 * or a temporary file and renameat()). Refused with -EPERM when @path lies in a writable bind of
 * @p (the sandbox could forge or replace it) or goes through a symlink in a directory some
 * sandbox could write (one could have planted it to move the file elsewhere); -EINVAL when it
 * names no file; another -errno when the directory cannot be opened. On success @ret_dir_fd
 * (O_PATH, close-on-exec) and @ret_name (the last component; free()) belong to the caller.
 * @variable names the setting in the message in @diag. Reads the host; thread-safe for a policy
 * nobody changes. */
int cordon_policy_open_output_dir(const struct cordon_policy *p, const char *path,
                                  const char *variable, int *ret_dir_fd, char **ret_name,
                                  struct cordon_diag *diag);

/* Runs @argv (argv[0] is looked up in the sandbox's PATH) confined by @p and waits for it.
 * On success returns 0 and stores the exit status in @ret_status: the command's exit code, or
 * 128+N when it was killed by signal N. Returns a negative errno when the sandbox could not be
 * set up; nothing has run then, and @diag names the step and path that failed.
 * Must be called from a single-threaded process (user namespaces require it). The sandbox's
 * first process is a child of the caller: the pid namespace's PID 1 (ns backend) or, with the
 * landlock backend (no pid namespace), a reaper forked from the caller that kills whatever the
 * command detaches when it ends. Either way the whole sandbox dies with the caller, even when
 * the caller is SIGKILLed. While it runs, SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the
 * caller are passed on to the command. */
int cordon_spawn(const struct cordon_policy *p, char *const *argv, int *ret_status,
                 struct cordon_diag *diag);

const char *cordon_access_to_string(enum cordon_access a);
const char *cordon_net_mode_to_string(enum cordon_net_mode m);
int cordon_net_mode_from_string(const char *s);
const char *cordon_home_access_to_string(enum cordon_home_access m);
int cordon_home_access_from_string(const char *s);
/* The *_from_string functions return the enum value or -EINVAL. */
const char *cordon_backend_to_string(enum cordon_backend b);
int cordon_backend_from_string(const char *s); /* also accepts "bwrap" for ns, "" for auto */
const char *cordon_profile_to_string(enum cordon_profile p);
int cordon_profile_from_string(const char *s);
const char *cordon_side_effect_to_string(enum cordon_side_effect l);
int cordon_side_effect_from_string(const char *s);
const char *cordon_fallback_to_string(enum cordon_fallback f);
int cordon_fallback_from_string(const char *s);

#ifdef __cplusplus
}
#endif

#include <cordon/confine.h>
#include <cordon/sandbox.h>
#include <cordon/session.h>
#include <cordon/settings.h>
