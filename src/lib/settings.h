/* The sandbox.conf variable model: what the user-facing front ends (built-in defaults,
 * configuration layers, command-line flags) fill in before it is lowered into a policy. Names
 * follow the configuration variables of agent-sandbox-configuration. */
#pragma once

#include <stdbool.h>

#include "cordon/cordon.h"
#include "lib/cap-policy.h"
#include "lib/list.h"
#include "lib/policy.h"

struct cordon_settings {
        struct cordon_list allowed_project_parents;
        struct cordon_list readonly_mounts;
        struct cordon_list home_readonly;       /* $HOME-relative */
        struct cordon_list home_writable;       /* $HOME-relative, created when missing */
        struct cordon_list home_seeded;         /* $HOME-relative, writable copies */
        struct cordon_list home_always_blocked; /* $HOME-relative, hidden in every mode */
        struct cordon_list extra_blocked_paths;
        struct cordon_list extra_writable_paths;
        struct cordon_list blocked_files;
        struct cordon_list devices;
        struct cordon_list devices_blacklist;
        struct cordon_list blocked_env_vars;
        struct cordon_list blocked_env_patterns;
        struct cordon_list allowed_env_vars;
        struct cordon_list sandbox_env; /* KEY=VALUE */
        bool block_env_url_credentials; /* BLOCK_ENV_URL_CREDENTIALS */

        enum cordon_home_access home_access;
        char *home_access_origin;
        enum cordon_net_mode net_mode;
        bool private_tmp;
        bool private_ipc;
        bool filter_passwd;
        bool protect_git; /* PROTECT_GIT_CONFIG: .git/config and .git/hooks read-only */
        bool quiet;
        bool no_pty;                 /* --no-pty */
        bool terminal_passthrough;   /* TERMINAL_PASSTHROUGH, --terminal-passthrough */
        struct cordon_limits limits; /* --timeout, --memory, --pids, --cpus, --tmp-size */
        char *cgroup_path;           /* --cgroup */

        char *project_dir; /* NULL: the working directory */
        char *project_dir_origin;

        /* SANDBOX_BACKEND, --profile, CORDON_HANDLER_SANDBOX */
        enum cordon_backend backend;
        enum cordon_profile profile;
        enum cordon_fallback fallback;

        /* --policy: a capability policy replaces the project directory with its roots. */
        struct cordon_cap_policy *cap_policy;
        char *cap_policy_origin; /* the file it came from */
};

/* Fills @s with the built-in defaults. @home is the caller's home directory. */
int cordon_settings_init_defaults(struct cordon_settings *s, const char *home);
void cordon_settings_clear(struct cordon_settings *s);
