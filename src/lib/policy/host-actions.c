/* The host actions of a policy as data: added (once per path), found and freed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/host-actions.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"

static void action_clear(struct cordon_host_action *a)
{
        free(a->path);
        free(a->contents);
        free(a->reason);
        free(a->warning);
}

void cordon_host_actions_free(struct cordon_host_action *a, size_t n)
{
        for (size_t i = 0; i < n; i++)
                action_clear(&a[i]);
        free(a);
}

const struct cordon_host_action *cordon_policy_find_host_action(const struct cordon_policy *p,
                                                                const char *path)
{
        for (size_t i = 0; i < p->n_actions; i++)
                if (streq(p->actions[i].path, path))
                        return &p->actions[i];
        return NULL;
}

int cordon_policy_add_host_action(struct cordon_policy *p, enum cordon_host_action_kind kind,
                                  const char *path, mode_t mode, const char *contents,
                                  const char *reason, const char *warning)
{
        if (cordon_policy_find_host_action(p, path))
                return 0;
        struct cordon_host_action a = {
            .kind = kind,
            .path = strdup(path),
            .mode = mode,
            .contents = contents ? strdup(contents) : NULL,
            .reason = strdup(strempty(reason)),
            .warning = warning ? strdup(warning) : NULL,
        };
        struct cordon_host_action *n =
            !a.path || (contents && !a.contents) || !a.reason || (warning && !a.warning)
                ? NULL
                : reallocarray(p->actions, p->n_actions + 1, sizeof(*p->actions));
        if (!n) {
                action_clear(&a);
                return -ENOMEM;
        }
        p->actions = n;
        p->actions[p->n_actions++] = a;
        return 0;
}
