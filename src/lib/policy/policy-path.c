/* cordon_policy_describe_path(): what a policy shows at one path, the rule that decides it, the
 * setting behind that rule and the change that would show the host's object. One answer for
 * `cordon config explain PATH` and for `cordon run`'s hint after a failed command. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/policy/backend-traits.h"
#include "lib/policy/policy.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/path-util.h"

/* An optional bind whose host path is missing is skipped by the launch. */
static bool rule_skipped(const struct cordon_fs_rule *r)
{
        bool bind = r->access == CORDON_ACCESS_RO || r->access == CORDON_ACCESS_RW ||
                    r->access == CORDON_ACCESS_DEVICE || r->access == CORDON_ACCESS_COPY;
        return bind && (r->flags & CORDON_FS_OPTIONAL) && r->host && access(r->host, F_OK) < 0;
}

/* The rules the landlock backend leaves out: those only a mount namespace gives, and the
 * configuration copies it names in a variable instead. */
static bool rule_left_out(const struct cordon_fs_rule *r, enum cordon_backend backend)
{
        return !cordon_backend_traits(backend)->mount_ns &&
               (r->flags & (CORDON_FS_NS_ONLY | CORDON_FS_CONFIG_COPY));
}

static bool rule_counts(const struct cordon_fs_rule *r, enum cordon_backend backend)
{
        return !rule_left_out(r, backend) && !rule_skipped(r);
}

/* The variable an origin names at its start ("PRIVATE_TMP", "NETWORK_FILTER_MODE=filtered",
 * "TOOL_CONFIG_COPIES without ..."), with the value after '=' up to a space; nothing for the
 * origins of settings ("built-in default", "--ro", "FILE:LINE", "profile NAME (...)"). */
static void origin_variable(const char *origin, struct cordon_path_info *info)
{
        if (!origin)
                return;
        size_t n = strspn(origin, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        if (n == 0 || n >= sizeof(info->variable) || (origin[n] && !strchr("= (", origin[n])))
                return;
        char name[sizeof(info->variable)];
        memcpy(name, origin, n);
        name[n] = 0;
        if (!cordon_var_find(name))
                return;
        memcpy(info->variable, name, n + 1);
        if (origin[n] == '=') {
                size_t v = strcspn(origin + n + 1, " ");
                if (v < sizeof(info->value)) {
                        memcpy(info->value, origin + n + 1, v);
                        info->value[v] = 0;
                }
        }
}

static void set_fix(struct cordon_path_info *info, const char *variable, const char *value)
{
        snprintf(info->fix_variable, sizeof(info->fix_variable), "%s", variable);
        snprintf(info->fix_value, sizeof(info->fix_value), "%s", value);
}

/* Whether the rule that decides what the sandbox shows at @w's own path, once @w is left
 * aside, lets the sandbox write there: the nearest rule strictly above @w mounted before it. */
static bool writable_around(const struct cordon_policy *p, size_t w, enum cordon_backend backend)
{
        const struct cordon_fs_rule *r = &p->fs[w];
        ssize_t around = -1;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *q = &p->fs[i];
                if (i == w || streq(q->guest, r->guest) || !path_is_below(r->guest, q->guest) ||
                    !rule_counts(q, backend) || cordon_policy_fs_order(p, i, w) > 0)
                        continue;
                if (around < 0 || cordon_policy_fs_order(p, (size_t)around, i) < 0)
                        around = (ssize_t)i;
        }
        if (around < 0)
                return false;
        const struct cordon_fs_rule *q = &p->fs[around];
        return q->access == CORDON_ACCESS_RW ||
               (q->access == CORDON_ACCESS_TMPFS && !(q->flags & CORDON_FS_SEAL));
}

static enum cordon_path_view rule_view(const struct cordon_fs_rule *r, bool self)
{
        switch (r->access) {
        case CORDON_ACCESS_RO:
                return CORDON_PATH_READ_ONLY;
        case CORDON_ACCESS_RW:
                return CORDON_PATH_READ_WRITE;
        case CORDON_ACCESS_TMPFS:
                return self ? CORDON_PATH_SANDBOX : CORDON_PATH_HIDDEN;
        case CORDON_ACCESS_MASKED:
                return CORDON_PATH_HIDDEN;
        case CORDON_ACCESS_COPY:
                return self ? CORDON_PATH_COPY : CORDON_PATH_SANDBOX;
        case CORDON_ACCESS_DEVICE:
                return self ? CORDON_PATH_READ_WRITE : CORDON_PATH_SANDBOX;
        default:
                return CORDON_PATH_SANDBOX;
        }
}

_public_ int cordon_policy_describe_path(const struct cordon_policy *p, const char *path,
                                         enum cordon_backend backend, struct cordon_path_info *ret)
{
        if (!p || !path || !ret || !path_is_normal(path))
                return -EINVAL;
        struct cordon_path_info info = {.rule = SIZE_MAX};
        ssize_t w = -1;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                if (!path_is_below(path, r->guest) || !rule_counts(r, backend))
                        continue;
                if (w < 0 || cordon_policy_fs_order(p, (size_t)w, i) < 0)
                        w = (ssize_t)i;
        }
        if (w < 0) {
                info.view = CORDON_PATH_ABSENT;
                set_fix(&info, "READONLY_MOUNTS", path);
                *ret = info;
                return 0;
        }

        const struct cordon_fs_rule *r = &p->fs[w];
        bool self = streq(r->guest, path);
        info.rule = (size_t)w;
        info.rule_path = r->guest;
        info.origin = r->origin;
        info.view = rule_view(r, self);
        /* A configuration copy the ns backend makes a plain file of the sandbox's own. */
        if (self && (r->flags & CORDON_FS_CONFIG_COPY) &&
            cordon_backend_traits(backend)->mount_ns && cordon_policy_on_own_tmpfs(p, (size_t)w))
                info.view = CORDON_PATH_COPY;
        info.protected_in_writable =
            (info.view == CORDON_PATH_READ_ONLY || info.view == CORDON_PATH_COPY ||
             (self && r->access == CORDON_ACCESS_DATA)) &&
            writable_around(p, (size_t)w, backend);

        /* The home's own rule is HOME_ACCESS's, whatever set it. */
        if (p->home_dir && streq(r->guest, p->home_dir) &&
            (r->access == CORDON_ACCESS_TMPFS || r->access == CORDON_ACCESS_RO ||
             r->access == CORDON_ACCESS_RW)) {
                snprintf(info.variable, sizeof(info.variable), "HOME_ACCESS");
                snprintf(info.value, sizeof(info.value), "%s",
                         strempty(cordon_home_access_to_string(p->home_access)));
        } else
                origin_variable(r->origin, &info);

        if (info.view == CORDON_PATH_HIDDEN && r->access == CORDON_ACCESS_TMPFS)
                /* A bind below an empty tmpfs shows the host's object again. */
                set_fix(&info, "READONLY_MOUNTS", path);
        else if (info.protected_in_writable && *info.variable) {
                /* A protection that one switch turns on (PROTECT_GIT_CONFIG,
                 * PROTECT_AGENT_PROJECT_FILES, FILTER_PASSWD) is lifted by turning it off. */
                const struct cordon_var *v = cordon_var_find(info.variable);
                if (v && v->type == CORDON_VAR_BOOL)
                        set_fix(&info, info.variable, "false");
        }
        *ret = info;
        return 0;
}
