/* The settings model behind include/cordon/settings.h: the variables of sandbox.conf (and
 * cordon's own) as fields, each scalar with its origin beside it, and the registry that names,
 * types, defaults and parses them (settings-registry.c). Lowering reads the fields directly. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"
#include "cordon/settings.h"
#include "lib/policy/list.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"

/* The origin of every built-in default. */
#define CORDON_SETTINGS_BUILTIN "built-in default"

struct cordon_agent_profile;

/* CHAPERON_LOG_LEVEL's values, in the registry's order (settings-registry.c): the chaperon's log
 * (src/lib/slurm/chaperon-log.c) writes a line at or above the level set. */
enum cordon_chaperon_level {
        CORDON_CHAPERON_DEBUG,
        CORDON_CHAPERON_INFO,
        CORDON_CHAPERON_WARN,
        CORDON_CHAPERON_ERROR,
        _CORDON_CHAPERON_LEVEL_MAX,
};
/* The value's name ("debug", "info", "warn", "error"), or NULL out of range. */
const char *cordon_chaperon_level_name(int level);

struct cordon_settings {
        char *home; /* what "$HOME" in a default expands to; NULL: none */
        struct cordon_list allowed_project_parents;
        struct cordon_list readonly_mounts;
        struct cordon_list home_readonly;       /* $HOME-relative */
        struct cordon_list home_writable;       /* $HOME-relative, created when missing */
        struct cordon_list home_seeded;         /* $HOME-relative, writable copies */
        struct cordon_list home_always_blocked; /* $HOME-relative, hidden in every mode */
        struct cordon_list extra_blocked_paths;
        struct cordon_list extra_writable_paths;
        struct cordon_list denied_writable_paths; /* DENIED_WRITABLE_PATHS: the admin's only */
        struct cordon_list blocked_files;
        struct cordon_list devices;
        struct cordon_list devices_blacklist;
        bool bind_dev_pts; /* BIND_DEV_PTS: deprecated, kernel-aware (lower_devices()) */
        char *bind_dev_pts_origin;
        bool cleanup_materialized; /* CLEANUP_MATERIALIZED_BLOCKED_FILES */
        char *cleanup_materialized_origin;
        struct cordon_list sandbox_modules; /* SANDBOX_MODULES: Lmod modules */
        uint64_t nproc_limit;               /* SANDBOX_NPROC_LIMIT: RLIMIT_NPROC; 0: none */
        char *nproc_limit_origin;
        /* SLURM_SCOPE and the chaperon (lower-slurm.c, src/slurm/). */
        int slurm_scope; /* SLURM_SCOPE: session, project, user, none */
        char *slurm_scope_origin;
        int chaperon_log_level; /* CHAPERON_LOG_LEVEL: an enum cordon_chaperon_level */
        char *chaperon_log_level_origin;
        uint64_t chaperon_log_retain_days; /* CHAPERON_LOG_RETAIN_DAYS */
        char *chaperon_log_retain_days_origin;
        struct cordon_list blocked_env_vars;
        struct cordon_list blocked_env_patterns;
        struct cordon_list allowed_env_vars;
        struct cordon_list sandbox_env; /* KEY=VALUE */
        bool block_env_url_credentials; /* BLOCK_ENV_URL_CREDENTIALS */
        char *block_env_url_credentials_origin;
        bool block_env_token_values; /* BLOCK_ENV_TOKEN_VALUES */
        char *block_env_token_values_origin;

        enum cordon_home_access home_access;
        char *home_access_origin;
        enum cordon_net_mode net_mode; /* NETWORK_FILTER_MODE */
        char *net_mode_origin;
        enum cordon_net_fallback net_fallback; /* NETWORK_FILTER_FALLBACK */
        char *net_fallback_origin;
        struct cordon_list net_blocklist;        /* NETWORK_BLOCKLIST */
        struct cordon_list net_blocklist_except; /* NETWORK_BLOCKLIST_EXCEPT */
        enum cordon_mail_block mail_block;       /* NETWORK_MAIL_BLOCK */
        char *mail_block_origin;
        int net_skip_probe; /* NETWORK_FILTER_SKIP_HELPER_PROBE: 0 or 1 */
        char *net_skip_probe_origin;
        char *net_filter_helper; /* NETWORK_FILTER_HELPER: pasta's path; NULL: searched */
        char *net_filter_helper_origin;
        char *net_proxy_dns; /* NETWORK_PROXY_DNS: ADDR[:PORT] the proxy resolves through */
        char *net_proxy_dns_origin;
        char *net_log; /* NETWORK_LOG: a file for one JSON line per proxy decision */
        char *net_log_origin;
        bool private_tmp;
        char *private_tmp_origin;
        bool private_ipc;
        char *private_ipc_origin;
        bool filter_passwd;
        char *filter_passwd_origin;
        bool protect_git; /* PROTECT_GIT_CONFIG: git directories by an allow list (lower-git.c) */
        char *protect_git_origin;
        bool protect_agent_files; /* PROTECT_AGENT_PROJECT_FILES: the project's agent files */
        char *protect_agent_files_origin;
        bool package_caches; /* PACKAGE_CACHES: cordon's own package caches (lower-caches.c) */
        char *package_caches_origin;
        bool tool_config_copies; /* TOOL_CONFIG_COPIES: credential-free copies (lower-configs.c) */
        char *tool_config_copies_origin;
        bool quiet; /* SANDBOX_QUIET */
        char *quiet_origin;
        bool no_pty; /* NO_PTY */
        char *no_pty_origin;
        bool terminal_passthrough; /* TERMINAL_PASSTHROUGH */
        char *terminal_passthrough_origin;
        struct cordon_limits limits; /* TIMEOUT, MEMORY_LIMIT, PIDS_LIMIT, CPU_LIMIT, TMP_SIZE */
        char *timeout_origin;
        char *memory_origin;
        char *pids_origin;
        char *cpus_origin;
        char *tmp_size_origin;
        char *cgroup_path; /* CGROUP_PATH */
        char *cgroup_path_origin;

        char *project_dir; /* PROJECT_DIR; NULL: the working directory */
        char *project_dir_origin;

        enum cordon_backend backend; /* SANDBOX_BACKEND */
        char *backend_origin;
        enum cordon_profile profile; /* SANDBOX_PROFILE */
        char *profile_origin;
        enum cordon_fallback fallback; /* CORDON_HANDLER_SANDBOX */
        char *fallback_origin;

        /* A capability policy (settings-policy.c): set, the sandbox is confined to the roots
         * below instead of a project directory. POLICY holds the policy's name. */
        char *policy;
        char *policy_origin;
        struct cordon_list workspace_roots; /* POLICY_WORKSPACE_ROOTS */
        struct cordon_list read_only_roots; /* POLICY_READ_ONLY_ROOTS */
        struct cordon_list read_roots;      /* POLICY_READ_ROOTS (process_sandbox) */
        struct cordon_list write_roots;     /* POLICY_WRITE_ROOTS (process_sandbox) */
        struct cordon_list presets;         /* POLICY_PRESETS */
        bool workspace_read;                /* POLICY_WORKSPACE_READ: read_text, list or exists */
        char *workspace_read_origin;
        bool workspace_writes; /* POLICY_WORKSPACE_WRITES: write_text */
        char *workspace_writes_origin;
        bool workspace_delete; /* POLICY_WORKSPACE_DELETE: delete */
        char *workspace_delete_origin;
        bool process_exec; /* POLICY_PROCESS_EXEC */
        char *process_exec_origin;
        enum cordon_side_effect side_effect_level; /* SIDE_EFFECT_LEVEL */
        char *side_effect_level_origin;

        /* ---- sandbox.conf (src/lib/config/) ---- */
        /* The files read, in order: value the path, origin the layer ("admin", "user",
         * "conf.d"). */
        struct cordon_list config_files;
        /* The admin baseline: the built-in defaults plus the admin file; NULL without one.
         * admin_set[i]: the admin file assigned cordon_vars[i] (its rules apply only then). */
        struct cordon_settings *admin;
        bool *admin_set;
        /* cordon_settings_finalize() (settings-finalize.c): what the admin rules changed, value
         * the variable's name, origin the message; and whether it is done for the values as
         * they are (any set or reset clears it). */
        struct cordon_list admin_changes;
        bool finalized;

        /* ---- agent profiles (src/lib/profiles/) ---- */
        struct cordon_list enabled_agents;           /* ENABLED_AGENTS */
        struct cordon_list suppress_agent_warnings;  /* SUPPRESS_AGENT_WARNINGS */
        struct cordon_list agent_settings_untouched; /* AGENT_SETTINGS_UNTOUCHED */
        /* The profiles cordon_settings_fold_profiles() loaded for ENABLED_AGENTS: what resolve
         * needs beyond the lists they were folded into (files of commands, directories of programs,
         * instruction files and their note, *_CONFIG_DIR variables, credential names). */
        struct cordon_agent_profile *agents;
        size_t n_agents;
};

enum cordon_var_type {
        CORDON_VAR_BOOL,     /* true | false */
        CORDON_VAR_ENUM,     /* one of the names of the row's enum */
        CORDON_VAR_STRING,   /* char *, NULL when unset */
        CORDON_VAR_U64,      /* uint64_t, 0 when unset */
        CORDON_VAR_UNSIGNED, /* unsigned, 0 when unset */
        CORDON_VAR_LIST,     /* struct cordon_list, one item per value */
};

/* The merge and admin columns describe the layering of sandbox.conf files; the config loader
 * (issue 14) applies them. cordon_settings_set() itself always replaces a scalar and appends a
 * list item: the front ends of today (environment, flags, a capability policy) have one layer
 * each, and the policy's strictest-wins profile is done by its front end.
 *
 * What a later layer does to an earlier one's value. */
enum cordon_var_merge {
        CORDON_MERGE_REPLACE,
        CORDON_MERGE_APPEND,
        CORDON_MERGE_HARDEN, /* only up the row's ladder (the enum order, or false < true) */
};

/* What an admin baseline does to the user's layers (applied once, after all layers). */
enum cordon_var_admin {
        CORDON_ADMIN_NONE,
        CORDON_ADMIN_ADDITIVE,      /* admin and user entries are joined */
        CORDON_ADMIN_RESTORED,      /* admin entries are restored when the user removes them */
        CORDON_ADMIN_HARDEN_ONLY,   /* the user can only go up the ladder from the admin value */
        CORDON_ADMIN_NARROW_ONLY,   /* user entries must lie below an admin entry */
        CORDON_ADMIN_NO_ESCALATION, /* admin HOME_READONLY entries cannot move here */
        CORDON_ADMIN_ADMIN_ONLY,    /* only the admin layer's value counts */
        CORDON_ADMIN_PINNED,        /* an admin's value, when set, beats every other layer */
};

/* Whether cordon does what the variable says. */
enum cordon_var_status {
        CORDON_VAR_ENFORCED,
        /* Accepted and documented to change nothing in cordon (say why in the row). */
        CORDON_VAR_NOOP,
        /* Not enforced yet: its default is accepted, any other value fails with -EOPNOTSUPP. */
        CORDON_VAR_UNSUPPORTED,
        /* Accepted and stored (it has a field), for a part of cordon not built yet: `cordon
         * doctor` lists it as "accepted, not yet active", and a run with a value other than the
         * default prints a note line (cordon_lower_held()). */
        CORDON_VAR_HELD,
};

union cordon_var_value {
        bool b;
        int e;
        uint64_t u64;
        unsigned u;
        const char *str; /* points into the value being set; copied by the setter */
};

struct cordon_var {
        const char *name;
        enum cordon_var_type type;
        enum cordon_var_merge merge;
        enum cordon_var_admin admin;
        enum cordon_var_status status;
        /* The built-in default: a NULL-terminated list of values as sandbox.conf would spell them
         * ("$HOME" expands to the home directory); NULL or empty: unset / no items. */
        const char *const *defaults;
        /* Parses one value (a list: one item) into @ret; -EINVAL when it is not valid. NULL:
         * any string. */
        int (*parse)(const char *value, union cordon_var_value *ret);
        /* CORDON_VAR_ENUM: the name of value @v, for getters. */
        const char *(*enum_name)(int v);
        /* CORDON_VAR_U64: writes the value in the spelling parse() reads; NULL: decimal. */
        void (*format)(uint64_t v, char *buf, size_t size);
        const char *expected; /* the reason quoted when parse fails: "expected ..." */
        /* Why parse() refused @value (static text), said before @expected; NULL: @expected
         * alone. */
        const char *(*why)(const char *value);
        /* A list's item in words (cordon_settings_describe_item()); NULL: nothing to add. */
        int (*describe)(const char *value, char *buf, size_t size);
        size_t offset;        /* of the field; SIZE_MAX: no field (not enforced, no-op) */
        size_t origin_offset; /* of the scalar's origin (char *); unused for lists */
        /* It names a program the supervisor runs outside the sandbox: a user's file may not
         * set it (config-load.c), and the program must be root's (lib/mech/host-program.h). */
        bool host_program;
};

extern const struct cordon_var cordon_vars[];
extern const size_t cordon_vars_count;

const struct cordon_var *cordon_var_find(const char *name);

/* Sets @v from @value as cordon_settings_set() does; a failure message starts with @spelling
 * followed by @sep ("NAME" and " " for cordon_settings_set()). */
int cordon_settings_set_var(struct cordon_settings *s, const struct cordon_var *v,
                            const char *value, const char *origin, const char *spelling,
                            const char *sep, struct cordon_diag *diag);

/* @value with a leading "$HOME", "${HOME}" or "~" (alone or before '/') replaced by @home: 1
 * and the new string in @ret (the caller frees it); 0 when @value names the home directory and
 * @home is not absolute (the entry is left out); -ENOMEM. Any other @value is copied as it is.
 * The one expansion of home in ALLOWED_PROJECT_PARENTS, for defaults, admin rules and
 * resolving alike. */
int cordon_settings_expand_home(const char *value, const char *home, char **ret);
/* Whether @value starts with one of the spellings cordon_settings_expand_home() expands. */
bool cordon_settings_names_home(const char *value);

/* Whether @path (absolute, or relative to the working directory) lies at or below an entry of
 * @denied (DENIED_WRITABLE_PATHS), or above one (a writable parent makes it writable too),
 * compared literally and with the symlinks of both sides followed, components that do not
 * exist yet taken as they would be created: 1 with the entry in @ret_entry (may be NULL), 0, or
 * -ENOMEM. Reads the file system (settings-admin-paths.c). */
int cordon_settings_path_denied(const struct cordon_list *denied, const char *path,
                                const struct cordon_item **ret_entry);

/* Fills an embedded @s with the built-in defaults (see cordon_settings_new()). */
int cordon_settings_init_defaults(struct cordon_settings *s, const char *home);
/* Fills an embedded @dst with a deep copy of @src: every registry field with its origins, home,
 * the configuration files, the admin baseline and which variables it set, the admin changes and
 * whether finalize is due. Returns 0 or -ENOMEM (then @dst is cleared). */
int cordon_settings_copy(struct cordon_settings *dst, const struct cordon_settings *src);
/* Frees what @s holds and zeroes it; twice is harmless. */
void cordon_settings_clear(struct cordon_settings *s);

/* ---- agent profiles, folded in (settings-profiles.c) ---- */
struct cordon_profile_dirs;
/* Folds the profile of every agent of ENABLED_AGENTS into @s (HOME_WRITABLE, HOME_READONLY,
 * BLOCKED_FILES, ALLOWED_ENV_VARS, ...), each item with origin "profile NAME (FILE:LINE)", and
 * keeps the profiles in @s->agents; the items an earlier fold added go first. Warnings are
 * appended to *@warnings (a NULL-terminated vector, may start NULL). Returns 0 or -errno with
 * the reason in @diag (then @s holds no profile's item). Called by cordon_settings_finalize(). */
int cordon_settings_fold_profiles(struct cordon_settings *s, char ***warnings,
                                  struct cordon_diag *diag);
/* The same, looking in @dirs instead of ~/.config/cordon/profiles, /etc/cordon/profiles,
 * ~/.config/cordon/agents and ~/.config/agent-sandbox/agents. */
int cordon_settings_fold_profiles_in(struct cordon_settings *s,
                                     const struct cordon_profile_dirs *dirs, char ***warnings,
                                     struct cordon_diag *diag);
/* Whether the agent state @value (home-relative) stays read-only: HOME_READONLY holds it, or an
 * entry of the configuration (not of a profile) holds a directory above it. */
bool cordon_settings_agent_state_is_readonly(const struct cordon_settings *s, const char *value);
