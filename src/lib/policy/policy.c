/* struct cordon_policy: construction, validation and teardown. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net/net-rules.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"
#include "lib/net/net-rules.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

static const char *const home_names[] = {
    [CORDON_HOME_TMPWRITE] = "tmpwrite",
    [CORDON_HOME_RESTRICTED] = "restricted",
    [CORDON_HOME_READ] = "read",
    [CORDON_HOME_WRITE] = "write",
};

_public_ const char *cordon_home_access_to_string(enum cordon_home_access m)
{
        return (unsigned)m < ELEMENTSOF(home_names) ? home_names[m] : NULL;
}

_public_ int cordon_home_access_from_string(const char *s)
{
        for (size_t i = 0; i < ELEMENTSOF(home_names); i++)
                if (streq(s, home_names[i]))
                        return (int)i;
        return -EINVAL;
}

static int enum_from_string(const char *const *names, size_t n, const char *s)
{
        for (size_t i = 0; s && i < n; i++)
                if (names[i] && streq(s, names[i]))
                        return (int)i;
        return -EINVAL;
}

static const char *const backend_names[] = {
    [CORDON_BACKEND_AUTO] = "auto",
    [CORDON_BACKEND_NS] = "ns",
    [CORDON_BACKEND_LANDLOCK] = "landlock",
};

_public_ const char *cordon_backend_to_string(enum cordon_backend b)
{
        return (unsigned)b < ELEMENTSOF(backend_names) ? backend_names[b] : NULL;
}

_public_ int cordon_backend_from_string(const char *s)
{
        /* Configuration files written for agent-sandbox name the namespace backend "bwrap" or
         * "firejail": both are what the ns backend does. */
        if (s && (streq(s, "") || streq(s, "bwrap") || streq(s, "firejail")))
                return streq(s, "") ? CORDON_BACKEND_AUTO : CORDON_BACKEND_NS;
        return enum_from_string(backend_names, ELEMENTSOF(backend_names), s);
}

static const char *const profile_names[] = {
    [CORDON_PROFILE_UNRESTRICTED] = "unrestricted",
    [CORDON_PROFILE_WORKTREE] = "worktree",
    [CORDON_PROFILE_WASI] = "wasi",
    [CORDON_PROFILE_OS_HARDENED] = "os_hardened",
};

_Static_assert(ELEMENTSOF(profile_names) == _CORDON_PROFILE_MAX, "a name per profile");

_public_ const char *cordon_profile_to_string(enum cordon_profile p)
{
        return (unsigned)p < ELEMENTSOF(profile_names) ? profile_names[p] : NULL;
}

_public_ int cordon_profile_from_string(const char *s)
{
        return enum_from_string(profile_names, ELEMENTSOF(profile_names), s);
}

static const char *const side_effect_names[] = {
    [CORDON_SIDE_EFFECT_NONE] = "none",
    [CORDON_SIDE_EFFECT_READ_ONLY] = "read_only",
    [CORDON_SIDE_EFFECT_WORKSPACE_WRITE] = "workspace_write",
    [CORDON_SIDE_EFFECT_PROCESS_EXEC] = "process_exec",
    [CORDON_SIDE_EFFECT_NETWORK] = "network",
};

_Static_assert(ELEMENTSOF(side_effect_names) == _CORDON_SIDE_EFFECT_MAX, "a name per level");

_public_ const char *cordon_side_effect_to_string(enum cordon_side_effect l)
{
        return (unsigned)l < ELEMENTSOF(side_effect_names) ? side_effect_names[l] : NULL;
}

_public_ int cordon_side_effect_from_string(const char *s)
{
        return enum_from_string(side_effect_names, ELEMENTSOF(side_effect_names), s);
}

static const char *const fallback_names[] = {
    [CORDON_FALLBACK_OFF] = "off",
    [CORDON_FALLBACK_WARN] = "warn",
    [CORDON_FALLBACK_ENFORCE] = "enforce",
};

_public_ const char *cordon_fallback_to_string(enum cordon_fallback f)
{
        return (unsigned)f < ELEMENTSOF(fallback_names) ? fallback_names[f] : NULL;
}

_public_ int cordon_fallback_from_string(const char *s)
{
        return enum_from_string(fallback_names, ELEMENTSOF(fallback_names), s);
}

_public_ int cordon_policy_set_backend(struct cordon_policy *p, enum cordon_backend b)
{
        if (!p || !cordon_backend_to_string(b))
                return -EINVAL;
        if (p->landlock_only && b != CORDON_BACKEND_LANDLOCK)
                return -EPERM;
        p->backend = b;
        return 0;
}

_public_ int cordon_policy_set_profile(struct cordon_policy *p, enum cordon_profile profile)
{
        if (!p || !cordon_profile_to_string(profile))
                return -EINVAL;
        p->profile = profile;
        return 0;
}

_public_ int cordon_policy_set_side_effect_level(struct cordon_policy *p,
                                                 enum cordon_side_effect level)
{
        if (!p || !cordon_side_effect_to_string(level))
                return -EINVAL;
        p->side_effect_level = level;
        return 0;
}

_public_ int cordon_policy_set_fallback(struct cordon_policy *p, enum cordon_fallback f)
{
        if (!p || !cordon_fallback_to_string(f))
                return -EINVAL;
        p->fallback = f;
        return 0;
}

_public_ struct cordon_policy *cordon_policy_new(void)
{
        struct cordon_policy *p = calloc(1, sizeof(*p));
        if (!p)
                return NULL;
        p->process = (struct cordon_process_rules){
            .new_session = true,
            .no_new_privs = true,
            .drop_capabilities = true,
            .die_with_parent = true,
            .close_fds = true,
            .pty = true,
        };
        p->net_mode = CORDON_NET_ISOLATED;
        p->net.fallback = CORDON_NET_FALLBACK_STRICT;
        p->backend = CORDON_BACKEND_AUTO;
        p->profile = CORDON_PROFILE_WORKTREE;
        p->side_effect_level = CORDON_SIDE_EFFECT_NETWORK;
        p->fallback = CORDON_FALLBACK_ENFORCE;
        p->identity.uid = getuid();
        p->identity.gid = getgid();
        return p;
}

static void env_rules_clear(struct cordon_env_rules *e)
{
        cordon_list_clear(&e->blocked_names);
        cordon_list_clear(&e->blocked_patterns);
        cordon_list_clear(&e->allowed);
        cordon_list_clear(&e->set);
}

void cordon_agent_homes_free(struct cordon_agent_home *h, size_t n)
{
        for (size_t i = 0; h && i < n; i++) {
                free(h[i].agent);
                free(h[i].root);
                for (size_t j = 0; j < h[i].n_mirrors; j++) {
                        free(h[i].mirrors[j].host);
                        free(h[i].mirrors[j].guest);
                        free(h[i].mirrors[j].name);
                }
                free(h[i].mirrors);
                for (size_t j = 0; j < h[i].n_copies; j++) {
                        free(h[i].copies[j].host);
                        free(h[i].copies[j].name);
                        free(h[i].copies[j].overlay);
                        free(h[i].copies[j].hooks);
                        strv_free(h[i].copies[j].patterns);
                }
                free(h[i].copies);
        }
        free(h);
}

_public_ struct cordon_policy *cordon_policy_free(struct cordon_policy *p)
{
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_fs; i++) {
                free(p->fs[i].guest);
                free(p->fs[i].host);
                free(p->fs[i].origin);
        }
        free(p->fs);
        env_rules_clear(&p->env_rules);
        cordon_list_clear(&p->denied_writable);
        strv_free(p->envp);
        strv_free(p->landlock_env);
        strv_free(p->landlock_env_files);
        strv_free(p->ns_env_files);
        strv_free(p->env_blocked_names);
        strv_free(p->link_parents);
        strv_free(p->link_homes);
        strv_free(p->devices_unmatched);
        free(p->net_mode_origin);
        free(p->net.fallback_origin);
        cordon_net_rules_free(p->net.rules);
        free(p->net.filter_helper);
        free(p->net.proxy_dns);
        free(p->net.log_path);
        free(p->git_protected);
        strv_free(p->slurm.paths);
        strv_free(p->slurm.settings);
        free(p->slurm.stub);
        free(p->slurm.chaperon);
        strv_free(p->git_roots);
        cordon_agent_homes_free(p->agent_homes, p->n_agent_homes);
        free(p->agent_run_dir);
        strv_free(p->agent_overlaid);
        strv_free(p->git_kept);
        free(p->identity.hostname);
        free(p->cwd);
        free(p->cgroup_path);
        free(p->project_dir);
        free(p->home_dir);
        cordon_host_actions_free(p->actions, p->n_actions);
        free(p);
        return NULL;
}

_public_ int cordon_policy_add_fs(struct cordon_policy *p, const char *guest, const char *host,
                                  enum cordon_access access, unsigned flags, const char *origin)
{
        const struct cordon_access_traits *t = cordon_access_traits(access);
        if (!p || !guest || !t)
                return -EINVAL;
        _cleanup_free_ char *g = NULL;
        int r = path_normalize(guest, &g);
        if (r < 0)
                return r;
        if (!streq(g, guest))
                return -EINVAL;
        /* A bind without host path remounts the guest path in place (e.g. /proc/sys read-only). */
        if (t->host == CORDON_ACCESS_HOST_REQUIRED ? !host
                                                   : t->host == CORDON_ACCESS_HOST_NONE && host)
                return -EINVAL;
        if (host && t->host_is_path && !path_is_absolute(host))
                return -EINVAL;

        _cleanup_free_ char *h = host ? strdup(host) : NULL;
        _cleanup_free_ char *o = strdup(origin ?: "");
        if ((host && !h) || !o)
                return -ENOMEM;
        struct cordon_fs_rule *n = realloc(p->fs, sizeof(*n) * (p->n_fs + 1));
        if (!n)
                return -ENOMEM;
        p->fs = n;
        p->fs[p->n_fs++] = (struct cordon_fs_rule){
            .guest = TAKE_PTR(g),
            .host = TAKE_PTR(h),
            .access = access,
            .flags = flags,
            .origin = TAKE_PTR(o),
        };
        return 0;
}

_public_ const char *cordon_policy_writable_bind(const struct cordon_policy *p, const char *path)
{
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *f = &p->fs[i];
                if (f->access != CORDON_ACCESS_RW || !f->host)
                        continue;
                if (path_is_below(path, f->host))
                        return f->host;
                _cleanup_free_ char *real = realpath(f->host, NULL);
                if (real && path_is_below(path, real))
                        return f->host;
        }
        return NULL;
}

_public_ size_t cordon_policy_fs_count(const struct cordon_policy *p)
{
        return p ? p->n_fs : 0;
}

_public_ int cordon_policy_get_fs(const struct cordon_policy *p, size_t i, const char **ret_guest,
                                  const char **ret_host, enum cordon_access *ret_access,
                                  unsigned *ret_flags, const char **ret_origin)
{
        if (!p || i >= p->n_fs)
                return -ERANGE;
        const struct cordon_fs_rule *f = &p->fs[i];
        if (ret_guest)
                *ret_guest = f->guest;
        if (ret_host)
                *ret_host = f->host;
        if (ret_access)
                *ret_access = f->access;
        if (ret_flags)
                *ret_flags = f->flags;
        if (ret_origin)
                *ret_origin = f->origin;
        return 0;
}

const struct cordon_fs_rule *cordon_policy_find_fs(const struct cordon_policy *p, const char *guest)
{
        for (size_t i = p->n_fs; i > 0; i--)
                if (streq(p->fs[i - 1].guest, guest))
                        return &p->fs[i - 1];
        return NULL;
}

/* Masks after every bind; a configuration copy after the masks, in its original's mask's
 * place. */
static int order_class(const struct cordon_fs_rule *r)
{
        return r->access == CORDON_ACCESS_MASKED ? 1 : (r->flags & CORDON_FS_CONFIG_COPY) ? 2 : 0;
}

int cordon_policy_fs_order(const struct cordon_policy *p, size_t a, size_t b)
{
        const struct cordon_fs_rule *ra = &p->fs[a], *rb = &p->fs[b];
        int ca = order_class(ra), cb = order_class(rb);
        if (ca != cb)
                return ca - cb;
        unsigned da = path_depth(ra->guest), db = path_depth(rb->guest);
        if (da != db)
                return da < db ? -1 : 1;
        return a < b ? -1 : a > b;
}

bool cordon_policy_on_own_tmpfs(const struct cordon_policy *p, size_t i)
{
        const struct cordon_fs_rule *r = &p->fs[i];
        ssize_t around = -1;
        for (size_t j = 0; j < p->n_fs; j++) {
                const struct cordon_fs_rule *q = &p->fs[j];
                if (j == i || !path_is_below(r->guest, q->guest) ||
                    cordon_policy_fs_order(p, j, i) > 0)
                        continue;
                /* Something of its own there first (a bind, a seeded copy): the file is not
                 * made anew, whatever is around it. A mask at the path is not mounted under a
                 * configuration copy. */
                if (streq(q->guest, r->guest)) {
                        if (q->access != CORDON_ACCESS_MASKED)
                                return false;
                        continue;
                }
                if (around < 0 || cordon_policy_fs_order(p, (size_t)around, j) < 0)
                        around = (ssize_t)j;
        }
        return around >= 0 && p->fs[around].access == CORDON_ACCESS_TMPFS &&
               !(p->fs[around].flags & CORDON_FS_SEAL);
}

int cordon_policy_guest_shown(const struct cordon_policy *p, const char *guest)
{
        const struct cordon_fs_rule *deepest = NULL;
        size_t depth = 0;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                if (!path_is_below(guest, r->guest))
                        continue;
                if (r->access == CORDON_ACCESS_MASKED)
                        return -1;
                size_t n = strlen(r->guest);
                if (!deepest || n >= depth) {
                        deepest = r;
                        depth = n;
                }
        }
        if (!deepest || !deepest->host)
                return 0;
        switch (deepest->access) {
        case CORDON_ACCESS_RO:
        case CORDON_ACCESS_COPY:
                return 1;
        case CORDON_ACCESS_RW:
                return 2;
        default:
                return 0;
        }
}

static int set_string(char **dst, const char *s)
{
        char *c = strdup(s);
        if (!c)
                return -ENOMEM;
        free(*dst);
        *dst = c;
        return 0;
}

_public_ int cordon_policy_set_cwd(struct cordon_policy *p, const char *cwd)
{
        if (!path_is_absolute(cwd))
                return -EINVAL;
        return set_string(&p->cwd, cwd);
}

_public_ int cordon_policy_set_env(struct cordon_policy *p, char *const *envp)
{
        char **c = strv_copy(envp);
        if (!c)
                return -ENOMEM;
        strv_free(p->envp);
        p->envp = c;
        return 0;
}

_public_ int cordon_policy_set_hostname(struct cordon_policy *p, const char *hostname)
{
        size_t l = strlen(hostname);
        if (l == 0 || l > 64)
                return -EINVAL;
        return set_string(&p->identity.hostname, hostname);
}

_public_ int cordon_policy_set_net_mode(struct cordon_policy *p, enum cordon_net_mode mode,
                                        const char *origin)
{
        if (!cordon_net_mode_traits(mode))
                return -EINVAL;
        p->net_mode = mode;
        return set_string(&p->net_mode_origin, origin ?: "");
}

_public_ int cordon_policy_validate(const struct cordon_policy *p, struct cordon_diag *diag)
{
        if (!p)
                return -EINVAL;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *a = &p->fs[i];
                if (streq(a->guest, "/"))
                        return cordon_diag_set(diag, -EINVAL,
                                               "the sandbox root cannot be replaced (rule from %s)",
                                               a->origin);
                for (size_t j = i + 1; j < p->n_fs; j++) {
                        const struct cordon_fs_rule *b = &p->fs[j];
                        if (!streq(a->guest, b->guest))
                                continue;
                        if (a->access == b->access && streq_ptr(a->host, b->host))
                                continue;
                        /* A mask over anything is the one override allowed: masks win. */
                        if (a->access == CORDON_ACCESS_MASKED || b->access == CORDON_ACCESS_MASKED)
                                continue;
                        return cordon_diag_set(
                            diag, -EINVAL,
                            "conflicting rules for '%s': %s (from %s) and %s (from %s)", a->guest,
                            cordon_access_to_string(a->access), a->origin,
                            cordon_access_to_string(b->access), b->origin);
                }
        }
        if (p->cwd && !path_is_absolute(p->cwd))
                return cordon_diag_set(diag, -EINVAL, "working directory '%s' is not absolute",
                                       p->cwd);
        if (!p->envp)
                return cordon_diag_set(diag, -EINVAL, "no environment was set for the command");
        if (p->limits.tmp_size_bytes > 0) {
                if (p->limits.tmp_size_bytes > CORDON_TMP_SIZE_MAX)
                        return cordon_diag_set(diag, -EINVAL,
                                               "TMP_SIZE of %" PRIu64 " bytes is above the "
                                               "largest tmpfs size accepted (1 EiB)",
                                               p->limits.tmp_size_bytes);
                /* A size that sizes nothing would be a requested limit silently not applied. */
                bool any = false;
                for (size_t i = 0; i < p->n_fs && !any; i++)
                        any = p->fs[i].access == CORDON_ACCESS_TMPFS;
                if (!any)
                        return cordon_diag_set(diag, -EINVAL,
                                               "TMP_SIZE is set, but the sandbox has no "
                                               "private /tmp or tmpfs home for it to size");
        }
        return 0;
}
