/* The one data model every front end lowers into. Library-internal view of struct cordon_policy;
 * callers outside libcordon use the opaque API in cordon/cordon.h. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon/cordon.h"
#include "lib/policy/access-kinds.h"
#include "lib/policy/host-actions.h"
#include "lib/policy/list.h"
#include "lib/policy/net-modes.h"

/* Library-internal flags of a rule, above the public CORDON_FS_* ones (cordon/cordon.h). */
enum {
        /* DATA: the generated file is a program, mode 0555 instead of 0644 (the mail stub). */
        CORDON_FS_EXEC = 1u << 16,
        /* DATA: the filtered mode's resolv.conf (naming cordon's resolver); mounted only when
         * the delivered network mode serves DNS, so a fallback keeps the host's file. */
        CORDON_FS_DNS = 1u << 17,
        /* RO: entries below may also be removed (a capability policy's workspace.delete
         * without write_text). Only Landlock can give it (REMOVE_FILE, REMOVE_DIR): under the
         * ns backend the bind is read-only and removal fails with EROFS, less than asked. */
        CORDON_FS_REMOVE = 1u << 18,
        /* DATA: a credential-free copy of a tool's configuration (TOOL_CONFIG_COPIES), mounted
         * after the masks, over the original's own: a plain writable file of the sandbox's on
         * its own tmpfs (cordon_policy_on_own_tmpfs()), else bound read-only. The landlock
         * backend, which has no mounts, writes it into its TMPDIR and names it in the tool's
         * variable instead (policy->landlock_env_files); a read-only one of the ns backend's
         * gets a writable twin on its /tmp, named likewise (policy->ns_env_files). */
        CORDON_FS_CONFIG_COPY = 1u << 19,
        /* A protection of something the sandbox could reach (a mask of a host's unix socket,
         * a directory pinned on the way to a rule): skipped where the sandbox's first process,
         * with every capability of its user namespace, is refused (EACCES) the path, since its
         * commands, with fewer, cannot reach it either. Another user's private directory under
         * a shared /tmp, made by a second sandbox while this one starts, must not fail the
         * start. */
        CORDON_FS_UNREACHABLE_SKIPS = 1u << 20,
};

struct cordon_fs_rule {
        char *guest;
        char *host;
        enum cordon_access access;
        unsigned flags;
        char *origin;
};

/* SLURM_SCOPE and the chaperon (resolve/lower-slurm.c): Slurm's commands inside are cordon's
 * stub, which hands each call to a chaperon on the host (src/slurm/). */
struct cordon_policy_slurm {
        /* The host's Slurm commands the command's PATH leads to (host realpaths, one per name
         * found, NULL-terminated); NULL when it leads to none: nothing to stand in for. */
        char **paths;
        int scope;                /* SLURM_SCOPE: enum cordon_slurm_scope */
        int log_level;            /* CHAPERON_LOG_LEVEL: enum cordon_chaperon_level */
        uint64_t log_retain_days; /* CHAPERON_LOG_RETAIN_DAYS */
        /* cordon_policy_set_slurm(): the stub and the chaperon program; NULL: not asked for,
         * and then the policy leaves Slurm's commands as the rules make them. */
        char *stub;
        char *chaperon;
        /* The settings that are not built-in defaults, "NAME=VALUE" (a list's items one by one),
         * but the backend and network mode (the launch's to decide): what a job a sandbox submits
         * is confined with on the node, over the same configuration files. */
        char **settings;
};

struct cordon_env_rules {
        struct cordon_list blocked_names;
        struct cordon_list blocked_patterns; /* globs; a trailing "/i" makes one case-insensitive */
        struct cordon_list allowed;          /* never blocked */
        struct cordon_list set;              /* KEY=VALUE added after filtering */
        /* Also remove a variable (not on the allow list) whose value carries a password in a
         * URL, scheme://user:password@host, whatever its name. */
        bool block_url_credentials;
        /* Also remove a variable (not on the allow list) whose value holds a token of a
         * published shape (cordon_env_value_has_token()), whatever its name. */
        bool block_token_values;
};

struct cordon_process_rules {
        bool new_session;
        bool no_new_privs;
        bool drop_capabilities;
        bool die_with_parent;
        bool close_fds;
        /* When the caller's stdin is a terminal, the command gets a pseudo-terminal of its own
         * and the supervisor relays between the two (see pty.h). */
        bool pty;
        /* The pty relay passes every escape sequence instead of filtering those that read or
         * change the user's terminal beyond the sandbox (see term-filter.h). */
        bool terminal_passthrough;
};

struct cordon_limits {
        uint64_t timeout_usec; /* 0: none */
        uint64_t memory_bytes; /* 0: none */
        uint64_t pids;         /* 0: none */
        unsigned cpus;         /* 0: none */
        /* @pids may be enforced loosely, as the pid namespace's pid_max (at most @pids + 299
         * processes, at least @pids at any time; cordon_ns_pid_max_for()), where the backend
         * gives a pid namespace and the kernel keeps pid_max per namespace: no cgroup, whose
         * attach costs a start an RCU grace period. Internal, for the configuration child. */
        bool pids_loose;
        /* size= of every CORDON_ACCESS_TMPFS rule (the private /tmp, the tmpfs home, and a
         * private /var/tmp should a policy have one) and of the private /dev/shm; 0: none
         * given, then they share a quarter of RAM (cordon_mount_tmpfs_size()). Each gets the
         * size on its own, not a share of it. Only the ns backend can enforce it
         * (cordon_launch_prepare() refuses it for the landlock backend), and a policy with no
         * TMPFS rule fails cordon_policy_validate(). At most CORDON_TMP_SIZE_MAX. */
        uint64_t tmp_size_bytes;
};

/* The largest tmpfs size accepted: the kernel rounds size= up to whole pages with no overflow
 * check, so a value within a page of 2^64 can wrap around to 0 blocks, which tmpfs reads as "no
 * limit". 1 EiB is far beyond any real tmpfs. */
#define CORDON_TMP_SIZE_MAX (UINT64_C(1) << 60)

struct cordon_identity {
        uid_t uid;
        gid_t gid;
        char *hostname;
};

struct cordon_net_rules;

/* The network beyond its mode (NETWORK_* variables). */
struct cordon_policy_net {
        enum cordon_net_fallback fallback; /* NETWORK_FILTER_FALLBACK */
        char *fallback_origin;
        /* NETWORK_BLOCKLIST and NETWORK_BLOCKLIST_EXCEPT over the floor; NULL: the floor
         * only (built by the launch when a mode needs it). */
        struct cordon_net_rules *rules;
        char *filter_helper; /* pasta's path; NULL: searched in the system directories */
        bool skip_probe;     /* NETWORK_FILTER_SKIP_HELPER_PROBE */
        char *proxy_dns;     /* ADDR[:PORT]; NULL: the host's resolver */
        char *log_path;      /* one JSON line per proxy decision; NULL: none */
};

/* An agent's private home (lower-agent-home.c, made by launch/agent-home.c for each run): the
 * directory its config_dir_var names inside, a mirror of its directories on the host (a link
 * per entry) with private copies of its configuration, which it may replace by rename. */
struct cordon_agent_copy {
        char *host;    /* the host file (it may be missing: the copy starts empty) */
        char *name;    /* relative to the home's root */
        char *overlay; /* a JSON object merged onto the copy; NULL: none */
        /* Claude Code's hooks (an object of events) added to the copy's after the overlay, a
         * hook whose command the event has already left out; NULL: none. */
        char *hooks;
        char **patterns; /* its keys that flow back to @host after the run; NULL: none */
        bool json;
        bool toml; /* flows back by an edit of the host's text (agent-toml.h) */
};
struct cordon_agent_mirror {
        char *host;  /* the agent's directory (a realpath in the home), listed at the start */
        char *guest; /* where the sandbox sees it: the links point there */
        char *name;  /* relative to the home's root; "" the root itself */
};
struct cordon_agent_home {
        char *agent;
        char *root; /* the same path on the host and inside */
        struct cordon_agent_mirror *mirrors;
        size_t n_mirrors;
        struct cordon_agent_copy *copies;
        size_t n_copies;
};

struct cordon_policy {
        struct cordon_fs_rule *fs;
        size_t n_fs;

        struct cordon_env_rules env_rules;
        /* The admin's DENIED_WRITABLE_PATHS, for a session's attach (cordon_sandbox_attach()):
         * a read-write bind at, below or above one is refused as at the start. */
        struct cordon_list denied_writable;
        char **envp; /* the final environment handed to the command */
        /* NAME=VALUE the landlock backend sets over @envp: where a tool's directory is bound
         * elsewhere under the ns backend, it names the host directory itself (PACKAGE_CACHES). */
        char **landlock_env;
        /* NAME=GUEST: the landlock backend writes the contents of the DATA rule at GUEST to a
         * file of its private TMPDIR and sets NAME to that file (TOOL_CONFIG_COPIES). */
        char **landlock_env_files;
        /* NAME=GUEST: the ns backend sets NAME to GUEST, a writable configuration copy on its
         * private /tmp standing in for one it binds read-only at the tool's own path
         * (TOOL_CONFIG_COPIES). Neither backend replaces a NAME that @envp sets already. */
        char **ns_env_files;
        size_t n_env_blocked;
        char **env_blocked_names; /* strv: the names of the removed variables, never values */
        /* Where some other run's sandbox could write besides this policy's writable binds
         * (cordon_policy_could_write_dir()): strictly below these allowed project parents
         * (host realpaths), except the home directories and their parents. */
        char **link_parents;
        char **link_homes;
        /* DEVICES entries that matched nothing on this host, "PATTERN (from ORIGIN)": dropped
         * without a warning (the NVIDIA defaults on a machine without them), listed by
         * --dry-run. */
        char **devices_unmatched;

        struct cordon_process_rules process;
        /* The mode asked for; the launch delivers it or, as @net.fallback says, another one
         * (struct cordon_launch's net_mode). */
        enum cordon_net_mode net_mode;
        char *net_mode_origin;
        struct cordon_policy_net net;
        /* NETWORK_MAIL_BLOCK applies: the resolve put a stub program over every mailer the host
         * has and a directory of stubs first on PATH (lower-mail.c; not for an explicit landlock
         * backend). Those are mounts: under the landlock backend the launch gives the PATH part
         * alone, a directory of stubs on the host that the command can run but not change
         * (launch/mail-shadow.c). */
        bool mail_stub;
        /* ...because NETWORK_MAIL_BLOCK=on, which asks for the stubs over the mailers too:
         * cordon_launch_prepare() refuses the landlock backend (an `auto` one that falls back
         * to it included) instead of going without them. */
        bool mail_stub_required;
        struct cordon_policy_slurm slurm;
        /* PROTECT_AGENT_PROJECT_FILES asked for read-only files only a mount namespace keeps,
         * and an explicit landlock backend made none (lower-agent-project.c): the banner and
         * the report name the gap (report.landlock.left_writable). */
        bool agent_files_unkept;
        /* PROTECT_GIT_CONFIG keeps this git directory (the first of them) with mounts
         * (lower-git.c): cordon_launch_prepare() refuses the landlock backend. NULL: none. */
        char *git_protected;
        /* The agents' private homes, all below @agent_run_dir (a directory of this run's own,
         * bound read-write at its host path; made and removed by the launch). */
        char *agent_run_dir;
        struct cordon_agent_home *agent_homes;
        size_t n_agent_homes;
        /* What the overlays set, "agent: file (key, key)", for the banner. */
        char **agent_overlaid;
        /* PROTECT_GIT_CONFIG: the writable roots whose repositories the sandbox could make or
         * change (host realpaths), checked once it has ended (git-after.h), and the git
         * directories kept at the start, which that check passes over. */
        char **git_roots;
        char **git_kept;
        struct cordon_limits limits;
        uint64_t nproc_limit; /* SANDBOX_NPROC_LIMIT: RLIMIT_NPROC of the command; 0: none */
        /* PRIVATE_IPC=false: the host's IPC namespace (no CLONE_NEWIPC) and /dev/shm. */
        bool host_ipc;
        /* The landlock backend goes without its seccomp notifications (supervisor/notify.h): for a
         * caller that reads the command's pipes before cordon_sandbox_wait() runs the loop that
         * answers them (the configuration child), where a `> /dev/null` would wait for it. */
        bool no_notify;
        /* PRIVATE_IPC and FILTER_PASSWD set true explicitly (not the built-in default): the
         * landlock backend, which can give neither, refuses to start. */
        bool private_ipc_required;
        bool filter_passwd_required;
        /* CLEANUP_MATERIALIZED_BLOCKED_FILES: remove the placeholders created for BLOCKED_FILES
         * (host actions marked materialized) after the sandbox exits, while still empty. */
        bool cleanup_materialized;
        char *cgroup_path; /* --cgroup: a delegated cgroup v2 directory to make the leaf in */
        struct cordon_identity identity;

        enum cordon_backend backend;
        /* Resolved for an explicit landlock backend, which leaves out the rules only a mount
         * namespace gives and the work behind them (socket masks, read-only git and agent
         * files, the passwd filter): no other backend may launch it. */
        bool landlock_only;
        enum cordon_profile profile;
        enum cordon_side_effect side_effect_level;
        enum cordon_fallback fallback;

        char *cwd;
        /* Facts for the banner and explanations; not needed by the launcher. */
        char *project_dir;
        char *home_dir;
        enum cordon_home_access home_access;

        /* What the host needs before the launch (host-action.h): planned by lowering, which
         * changes nothing, taken by cordon_launch_prepare(). */
        struct cordon_host_action *actions;
        size_t n_actions;
};

const struct cordon_fs_rule *cordon_policy_find_fs(const struct cordon_policy *p,
                                                   const char *guest);
/* The ns backend's mount order of rules @a and @b of @p (indices): < 0 when @a is mounted first.
 * Every bind, tmpfs and link by depth, then the masks by depth, then the configuration copies
 * over their masks; rules of one class and depth in insertion order (later ones win). The one
 * order of the mount plan (ns-mount.c) and of cordon_policy_describe_path(). */
int cordon_policy_fs_order(const struct cordon_policy *p, size_t a, size_t b);
/* Whether rule @i of @p (a file's) lies on a tmpfs the ns backend makes for the sandbox and
 * leaves writable (the tmpwrite home, the private /tmp), with no rule of its own path mounted
 * before it: the nearest rule above it, in mount order, is such a tmpfs. Nothing of the host's
 * is below such a tmpfs but what other rules bind there, so a file made there is the sandbox's
 * own, discarded with the tmpfs. An optional bind above it counts even when its host path is
 * missing and the launch skips it: the answer errs towards no. */
bool cordon_policy_on_own_tmpfs(const struct cordon_policy *p, size_t i);
/* How normalised guest path @guest shows in the mount view: -1 hidden (a mask at or above it),
 * 0 not from the host (no rule, a tmpfs, a link: the deepest rule at or above it decides, as
 * the ns backend mounts by depth with the masks last), 1 bound read-only (or copied), 2 bound
 * writable. The landlock backend grants the same binds, and has no tmpfs to show instead. */
int cordon_policy_guest_shown(const struct cordon_policy *p, const char *guest);

/* Frees @n agent homes at @h and the array; accepts NULL. */
void cordon_agent_homes_free(struct cordon_agent_home *h, size_t n);
