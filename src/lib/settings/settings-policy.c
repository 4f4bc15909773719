/* The capability policy front end (cordon run --policy, cordon-policy(5)): a policy's roots,
 * presets, capabilities, side-effect level and profile become settings variables whose items
 * carry the JSON pointer they came from ("policy.json: /read_only_roots/1"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cordon/cap-policy.h"
#include "lib/settings/cap-policy-internal.h"
#include "lib/policy/diag.h"
#include "lib/settings/settings-policy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* The policy variables: replaced as a whole when a policy is applied. SIDE_EFFECT_LEVEL and
 * SANDBOX_PROFILE are not among them: other front ends set them too, and a policy may only make
 * them stricter. */
static const char *const policy_vars[] = {
    "POLICY",
    "POLICY_WORKSPACE_ROOTS",
    "POLICY_READ_ONLY_ROOTS",
    "POLICY_READ_ROOTS",
    "POLICY_WRITE_ROOTS",
    "POLICY_PRESETS",
    "POLICY_WORKSPACE_READ",
    "POLICY_WORKSPACE_WRITES",
    "POLICY_WORKSPACE_DELETE",
    "POLICY_PROCESS_EXEC",
};

static int set(struct cordon_settings *s, const char *name, const char *value, const char *src,
               const char *pointer, struct cordon_diag *diag)
{
        char origin[512];
        snprintf(origin, sizeof(origin), "%s: %s", src, pointer);
        return cordon_settings_set(s, name, value, origin, diag);
}

static int set_roots(struct cordon_settings *s, const char *name, char **roots, const char *src,
                     const char *key, struct cordon_diag *diag)
{
        size_t i = 0;
        STRV_FOREACH (root, roots) {
                char pointer[128];
                snprintf(pointer, sizeof(pointer), "/%s/%zu", key, i++);
                int r = set(s, name, *root, src, pointer, diag);
                if (r < 0)
                        return r;
        }
        return 0;
}

int cordon_settings_apply_cap_policy(struct cordon_settings *s, const struct cordon_cap_policy *c,
                                     const char *src, struct cordon_diag *diag)
{
        int r;
        for (size_t i = 0; i < ELEMENTSOF(policy_vars); i++)
                if ((r = cordon_settings_reset(s, policy_vars[i])) < 0)
                        return r;
        if ((r = cordon_settings_set(s, "POLICY", src, src, diag)) < 0 ||
            (r = set_roots(s, "POLICY_WORKSPACE_ROOTS", c->workspace_roots, src, "workspace_roots",
                           diag)) < 0 ||
            (r = set_roots(s, "POLICY_READ_ONLY_ROOTS", c->read_only_roots, src, "read_only_roots",
                           diag)) < 0 ||
            (r = set_roots(s, "POLICY_READ_ROOTS", c->read_roots, src, "process_sandbox/read_roots",
                           diag)) < 0 ||
            (r = set_roots(s, "POLICY_WRITE_ROOTS", c->write_roots, src,
                           "process_sandbox/write_roots", diag)) < 0)
                return r;

        /* Presets null or omitted: the default list (all four) stays. */
        if (!c->presets_default) {
                cordon_list_clear(&s->presets);
                for (size_t i = 0; i < ELEMENTSOF(cordon_cap_preset_names); i++)
                        if (c->presets & (1u << i) &&
                            (r = set(s, "POLICY_PRESETS", cordon_cap_preset_names[i], src,
                                     "/process_sandbox/presets", diag)) < 0)
                                return r;
        }
        /* No capabilities (omitted or {}): no ceiling, the defaults (true) stay. Otherwise each
         * capability grants exactly its own rights: delete alone removes, never creates. */
        if (c->has_capabilities) {
                unsigned caps = c->capabilities;
                bool read = caps & (CORDON_CAP_READ_TEXT | CORDON_CAP_LIST | CORDON_CAP_EXISTS);
                bool writes = caps & CORDON_CAP_WRITE_TEXT;
                bool del = caps & CORDON_CAP_DELETE;
                bool exec = caps & CORDON_CAP_EXEC;
                if ((r = set(s, "POLICY_WORKSPACE_READ", read ? "true" : "false", src,
                             "/capabilities/workspace", diag)) < 0 ||
                    (r = set(s, "POLICY_WORKSPACE_WRITES", writes ? "true" : "false", src,
                             "/capabilities/workspace", diag)) < 0 ||
                    (r = set(s, "POLICY_WORKSPACE_DELETE", del ? "true" : "false", src,
                             "/capabilities/workspace", diag)) < 0 ||
                    (r = set(s, "POLICY_PROCESS_EXEC", exec ? "true" : "false", src,
                             "/capabilities/process", diag)) < 0)
                        return r;
        }
        /* Strictest wins here too: a level set before (by another front end) is never raised
         * by the policy, which may only lower it. */
        if (c->has_side_effect_level && c->side_effect_level < s->side_effect_level &&
            (r = set(s, "SIDE_EFFECT_LEVEL", cordon_side_effect_to_string(c->side_effect_level),
                     src, "/side_effect_level", diag)) < 0)
                return r;
        /* Strictest wins: the policy's profile can raise SANDBOX_PROFILE, never lower it. */
        if (c->profile > s->profile &&
            (r = set(s, "SANDBOX_PROFILE", cordon_profile_to_string(c->profile), src,
                     "/sandbox_profile", diag)) < 0)
                return r;
        return 0;
}

_public_ int cordon_settings_load_policy(struct cordon_settings *s, const char *path,
                                         struct cordon_diag *diag)
{
        const char *name = streq(path, "-") ? "<stdin>" : path;
        struct cordon_cap_policy *c = NULL;
        int r = cordon_cap_policy_load(path, &c, diag);
        if (r < 0)
                return r;
        r = cordon_settings_apply_cap_policy(s, c, name, diag);
        cordon_cap_policy_free(c);
        return r;
}
