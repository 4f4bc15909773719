/* Folding the agent profiles of ENABLED_AGENTS into the settings (HOME_WRITABLE, HOME_READONLY,
 * BLOCKED_FILES, ALLOWED_ENV_VARS), and taking them out again. The settings sit above the
 * profiles: lib/profiles/ finds and loads them and knows nothing of the settings model. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "lib/policy/diag.h"
#include "lib/profiles/profiles.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/path-util.h"

static bool from_a_profile(const char *origin)
{
        return origin && startswith(origin, "profile ");
}

/* Removes the items an earlier fold added, so that folding again (after a change of
 * ENABLED_AGENTS) leaves nothing of an agent that is no longer enabled. */
static void unfold(struct cordon_list *l)
{
        size_t j = 0;
        for (size_t i = 0; i < l->n; i++) {
                if (from_a_profile(l->items[i].origin)) {
                        free(l->items[i].value);
                        free(l->items[i].origin);
                        continue;
                }
                l->items[j++] = l->items[i];
        }
        l->n = j;
}

bool cordon_settings_agent_state_is_readonly(const struct cordon_settings *s, const char *value)
{
        CORDON_LIST_FOREACH (ro, &s->home_readonly)
                if (streq(ro->value, value) ||
                    (!from_a_profile(ro->origin) && path_is_below(value, ro->value)))
                        return true;
        return false;
}

static int fold_one(struct cordon_settings *s, const struct cordon_agent_profile *a)
{
        int r;
        /* The agent's state, and (old profiles) whole directories: a path the configuration
         * made read-only, or put in a read-only directory of its own, stays read-only. */
        const enum cordon_profile_key rw[] = {CORDON_PROFILE_WRITABLE, CORDON_PROFILE_STATE};
        for (size_t k = 0; k < ELEMENTSOF(rw); k++)
                CORDON_LIST_FOREACH (it, &a->items[rw[k]]) {
                        if (cordon_settings_agent_state_is_readonly(s, it->value))
                                continue;
                        r = cordon_list_add_unique(&s->home_writable, it->value, it->origin);
                        if (r < 0)
                                return r;
                }
        /* The agent's directory is read-only around its state; a HOME_WRITABLE entry of the
         * configuration for the same path keeps it writable as a whole (the user's choice). */
        CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_DIR]) {
                const struct cordon_item *w = cordon_list_find(&s->home_writable, it->value);
                if (w && !from_a_profile(w->origin))
                        continue;
                if ((r = cordon_list_add_unique(&s->home_readonly, it->value, it->origin)) < 0)
                        return r;
        }
        CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_READONLY])
                if ((r = cordon_list_add_unique(&s->home_readonly, it->value, it->origin)) < 0)
                        return r;
        CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_CREDENTIAL_ENV])
                if ((r = cordon_list_add_unique(&s->allowed_env_vars, it->value, it->origin)) < 0)
                        return r;
        /* Instruction files are hidden like any BLOCKED_FILES entry; resolve puts the merged
         * copy in the mask's place. Without an absolute home there is no path to name. */
        if (!s->home || !path_is_absolute(s->home))
                return 0;
        CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_INSTRUCTIONS]) {
                _cleanup_free_ char *abs = path_join(s->home, it->value);
                if (!abs)
                        return -ENOMEM;
                if ((r = cordon_list_add_unique(&s->blocked_files, abs, it->origin)) < 0)
                        return r;
        }
        return 0;
}

int cordon_settings_fold_profiles_in(struct cordon_settings *s,
                                     const struct cordon_profile_dirs *dirs, char ***warnings,
                                     struct cordon_diag *diag)
{
        struct cordon_list *lists[] = {&s->home_writable, &s->home_readonly, &s->blocked_files,
                                       &s->allowed_env_vars};
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                unfold(lists[i]);
        s->agents = cordon_agent_profiles_free(s->agents, s->n_agents);
        s->n_agents = 0;

        if (s->enabled_agents.n == 0)
                return 0;
        struct cordon_agent_profile *agents = NULL;
        size_t k = 0;
        int r = cordon_profiles_load_list(&s->enabled_agents, &s->suppress_agent_warnings, dirs,
                                          &agents, &k, warnings, diag);
        for (size_t i = 0; r >= 0 && i < k; i++)
                r = fold_one(s, &agents[i]);
        if (r < 0) {
                for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                        unfold(lists[i]);
                cordon_agent_profiles_free(agents, k);
                if (r == -ENOMEM && diag && !*diag->message)
                        cordon_diag_set(diag, r, "out of memory");
                return r;
        }
        s->agents = agents;
        s->n_agents = k;
        return 0;
}

int cordon_settings_fold_profiles(struct cordon_settings *s, char ***warnings,
                                  struct cordon_diag *diag)
{
        bool home = s->home && path_is_absolute(s->home);
        _cleanup_free_ char *user_dir = home ? path_join(s->home, ".config/cordon/profiles") : NULL;
        _cleanup_free_ char *own = home ? path_join(s->home, ".config/cordon/agents") : NULL;
        _cleanup_free_ char *legacy =
            home ? path_join(s->home, ".config/agent-sandbox/agents") : NULL;
        if (home && (!user_dir || !own || !legacy))
                return -ENOMEM;
        struct cordon_profile_dirs dirs = {
            .user_dir = user_dir,
            .admin_dir = CORDON_PROFILES_ADMIN_DIR,
            .agent_dirs = {own, legacy},
            .home = home ? s->home : NULL,
            .help_dir = access(CORDON_AGENT_HELP_DIR "/agents/sandbox-help.md", R_OK) == 0
                            ? CORDON_AGENT_HELP_DIR
                            : NULL,
        };
        return cordon_settings_fold_profiles_in(s, &dirs, warnings, diag);
}
