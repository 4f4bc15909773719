/* The environment front end: the variables cordon takes from the caller's environment (its own,
 * and those agent-sandbox's configuration lets the environment override: SANDBOX_BACKEND,
 * SANDBOX_QUIET, HOME_ACCESS, SLURM_SCOPE, SANDBOX_NPROC_LIMIT,
 * CLEANUP_MATERIALIZED_BLOCKED_FILES, NETWORK_FILTER_SKIP_HELPER_PROBE), written with
 * cordon_settings_set_var() like every other front end, with origin "env NAME". Applied after
 * the sandbox.conf layers, so they win. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/settings/settings.h"
#include "shared/macro.h"

static const char *env_lookup(char *const *envp, const char *name)
{
        size_t n = strlen(name);
        for (char *const *e = envp; e && *e; e++)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

/* The environment variables, in the order they are applied, and the variable each one sets. A
 * later row for the same variable is skipped once an earlier one was present: harn's
 * HARN_HANDLER_SANDBOX counts only without CORDON_HANDLER_SANDBOX. */
static const struct {
        const char *env;
        const char *variable;
        /* An empty value counts as not set: for a variable whose empty value means "none", an
         * exported empty name must not lift what a configuration file set. */
        bool empty_unset;
} env_vars[] = {
    {"SANDBOX_BACKEND", "SANDBOX_BACKEND", false},
    {"CORDON_HANDLER_SANDBOX", "CORDON_HANDLER_SANDBOX", false},
    {"HARN_HANDLER_SANDBOX", "CORDON_HANDLER_SANDBOX", false},
    {"PROTECT_GIT_CONFIG", "PROTECT_GIT_CONFIG", false},
    {"PROTECT_AGENT_PROJECT_FILES", "PROTECT_AGENT_PROJECT_FILES", false},
    {"SANDBOX_QUIET", "SANDBOX_QUIET", false},
    /* The other names agent-sandbox's configuration lets the environment override. */
    {"HOME_ACCESS", "HOME_ACCESS", false},
    {"SLURM_SCOPE", "SLURM_SCOPE", false},
    {"SANDBOX_NPROC_LIMIT", "SANDBOX_NPROC_LIMIT", true},
    {"CLEANUP_MATERIALIZED_BLOCKED_FILES", "CLEANUP_MATERIALIZED_BLOCKED_FILES", false},
    {"NETWORK_FILTER_SKIP_HELPER_PROBE", "NETWORK_FILTER_SKIP_HELPER_PROBE", false},
};

_public_ int cordon_settings_apply_environment(struct cordon_settings *s, char *const *envp,
                                               struct cordon_diag *diag)
{
        const char *done = NULL;
        for (size_t i = 0; i < ELEMENTSOF(env_vars); i++) {
                if (streq_ptr(done, env_vars[i].variable))
                        continue;
                const char *value = env_lookup(envp, env_vars[i].env);
                if (!value || (env_vars[i].empty_unset && !*value))
                        continue;
                const struct cordon_var *v = cordon_var_find(env_vars[i].variable);
                /* A row for a variable the registry does not have (yet) is skipped. */
                if (!v)
                        continue;
                char origin[64];
                snprintf(origin, sizeof(origin), "env %s", env_vars[i].env);
                /* Messages spell it as the environment does: NAME='value'. */
                int r = cordon_settings_set_var(s, v, value, origin, env_vars[i].env, "=", diag);
                if (r < 0)
                        return r;
                done = env_vars[i].variable;
        }
        return 0;
}
