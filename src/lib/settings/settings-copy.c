/* A deep copy of a settings object: cordon_settings_resolve() takes const settings and finalizes
 * a copy of them when they are not finalized yet (the profiles of ENABLED_AGENTS, the admin
 * rules). Driven by the registry, so a new variable is copied without a line here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/profiles/profiles.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"

static int dup_str(char **dst, const char *src)
{
        *dst = NULL;
        return src && !(*dst = strdup(src)) ? -ENOMEM : 0;
}

static int copy_into(struct cordon_settings *c, const struct cordon_settings *s)
{
        /* Scalars come along by value; every pointer is replaced before anything can fail,
         * so that a failure frees only what belongs to the copy. */
        *c = *s;
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (v->offset == SIZE_MAX)
                        continue;
                if (v->type == CORDON_VAR_LIST)
                        *(struct cordon_list *)(void *)((char *)c + v->offset) =
                            (struct cordon_list){0};
                else {
                        if (v->type == CORDON_VAR_STRING)
                                *(char **)(void *)((char *)c + v->offset) = NULL;
                        *(char **)(void *)((char *)c + v->origin_offset) = NULL;
                }
        }
        c->home = NULL;
        c->config_files = (struct cordon_list){0};
        c->admin_changes = (struct cordon_list){0};
        c->admin = NULL;
        c->admin_set = NULL;
        c->agents = NULL;
        c->n_agents = 0;

        int r;
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (v->offset == SIZE_MAX)
                        continue;
                const char *src = (const char *)s + v->offset;
                char *dst = (char *)c + v->offset;
                if (v->type == CORDON_VAR_LIST) {
                        if ((r = cordon_list_copy((struct cordon_list *)(void *)dst,
                                                  (const struct cordon_list *)(const void *)src)) <
                            0)
                                return r;
                        continue;
                }
                if (v->type == CORDON_VAR_STRING &&
                    (r = dup_str((char **)(void *)dst, *(char *const *)(const void *)src)) < 0)
                        return r;
                if ((r = dup_str(
                         (char **)(void *)((char *)c + v->origin_offset),
                         *(char *const *)(const void *)((const char *)s + v->origin_offset))) < 0)
                        return r;
        }
        if ((r = dup_str(&c->home, s->home)) < 0 ||
            (r = cordon_list_copy(&c->config_files, &s->config_files)) < 0 ||
            (r = cordon_list_copy(&c->admin_changes, &s->admin_changes)) < 0 ||
            (r = cordon_agent_profiles_copy(s->agents, s->n_agents, &c->agents)) < 0)
                return r;
        c->n_agents = s->n_agents;
        if (s->admin_set) {
                c->admin_set = malloc(cordon_vars_count * sizeof(*c->admin_set));
                if (!c->admin_set)
                        return -ENOMEM;
                memcpy(c->admin_set, s->admin_set, cordon_vars_count * sizeof(*c->admin_set));
        }
        if (s->admin && (r = cordon_settings_copy(s->admin, &c->admin)) < 0)
                return r;
        return 0;
}

int cordon_settings_copy(const struct cordon_settings *s, struct cordon_settings **ret)
{
        struct cordon_settings *c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        int r = copy_into(c, s);
        if (r < 0) {
                cordon_settings_clear(c);
                free(c);
                return r;
        }
        *ret = c;
        return 0;
}
