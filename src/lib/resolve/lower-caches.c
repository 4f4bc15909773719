/* PACKAGE_CACHES: the package tools' caches as directories of cordon's own on the host, shared by
 * the sandboxes and kept between runs, but never the host's own caches (what a sandbox puts there
 * must not reach what the host installs later). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/policy/diag.h"
#include "lib/resolve/lower-internal.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define ORIGIN "PACKAGE_CACHES"

/* One cache: the directory below cordon's (@name), where the tool looks by default (@home_rel,
 * relative to $HOME), the variable that points the tool elsewhere (NULL: none; cargo's
 * registry moves only with all of CARGO_HOME, its configuration and programs included) and the
 * commands whose presence on PATH asks for it. */
struct cache {
        const char *name;
        const char *home_rel;
        const char *var;
        const char *commands[3];
};

static const struct cache caches[] = {
    {"npm", ".npm", "npm_config_cache", {"npm", "npx"}},
    {"pip", ".cache/pip", "PIP_CACHE_DIR", {"pip", "pip3"}},
    {"uv", ".cache/uv", "UV_CACHE_DIR", {"uv"}},
    {"cargo-registry", ".cargo/registry", NULL, {"cargo"}},
    {"cargo-git", ".cargo/git", NULL, {"cargo"}},
    {"go-mod", "go/pkg/mod", "GOMODCACHE", {"go"}},
    {"go-build", ".cache/go-build", "GOCACHE", {"go"}},
    {"yarn", ".cache/yarn", "YARN_CACHE_FOLDER", {"yarn"}},
};

static const char *env_get(char *const *envp, const char *name)
{
        size_t n = strlen(name);
        STRV_FOREACH (e, envp)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

/* The directory that holds every cache: $XDG_CACHE_HOME/cordon/caches when that is absolute,
 * else ~/.cache/cordon/caches (lexically normalised; links are judged by the caller). */
static int caches_root(const struct lower *l, char **ret)
{
        const char *xdg = env_get(l->h->envp, "XDG_CACHE_HOME");
        _cleanup_free_ char *joined = xdg && path_is_absolute(xdg)
                                          ? path_join(xdg, "cordon/caches")
                                          : path_join(l->home_real, ".cache/cordon/caches");
        if (!joined)
                return -ENOMEM;
        return path_normalize(joined, ret);
}

/* Whether a sandbox may be handed @real (the resolved path of the caches) to write: below the
 * home or an allowed project parent, never the home or a parent of it, never a path the admin
 * denies. Returns 1, 0 with a warning, or -errno. */
static int writable_here(struct lower *l, const char *dir, const char *real)
{
        bool allowed = path_is_below(real, l->home_real) && !streq(real, l->home_real);
        CORDON_LIST_FOREACH (it, &l->s->allowed_project_parents) {
                _cleanup_free_ char *parent = cordon_lower_parent_realpath(l, it->value);
                allowed |= parent && path_is_below(real, parent) && !streq(real, parent);
        }
        if (!allowed || path_is_below(l->home_real, real))
                return cordon_lower_warn(l,
                                         "PACKAGE_CACHES: '%s' resolves to '%s'; no package "
                                         "caches",
                                         dir, real)
                           ?: 0;
        const struct cordon_item *hit = NULL;
        int r = cordon_settings_path_denied(&l->s->denied_writable_paths, real, &hit);
        if (r < 0)
                return r;
        if (r > 0)
                return cordon_lower_warn(l,
                                         "PACKAGE_CACHES: '%s' overlaps admin-denied "
                                         "DENIED_WRITABLE_PATHS entry '%s' (from %s); no "
                                         "package caches",
                                         dir, hit->value, hit->origin);
        return 1;
}

/* True when a rule the user asked for is at @guest already (HOME_WRITABLE .cache/uv: the
 * host's own cache, knowingly). */
static bool user_rule_at(const struct lower *l, const char *guest)
{
        const struct cordon_fs_rule *r = cordon_policy_find_fs(l->p, guest);
        return r && !streq_ptr(r->origin, ORIGIN);
}

static bool wanted(const struct lower *l, const struct cache *c)
{
        const char *path = env_get(l->h->envp, "PATH");
        for (size_t i = 0; i < ELEMENTSOF(c->commands) && c->commands[i]; i++)
                if (cordon_lower_on_path(path, c->commands[i]))
                        return true;
        return false;
}

/* Whether a mount point can be made at @guest: below a tmpfs of the sandbox's own (the tmpwrite
 * or restricted home), or where a bind shows a directory that is there on the host already
 * (never made there: it would be the host's). */
static int mountable_at(const struct lower *l, const char *guest, bool *ret)
{
        const struct cordon_fs_rule *cover = NULL;
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->access != CORDON_ACCESS_MASKED && path_is_below(guest, r->guest) &&
                    (!cover || strlen(r->guest) >= strlen(cover->guest)))
                        cover = r;
        }
        *ret = false;
        if (!cover)
                return 0;
        if (cover->access == CORDON_ACCESS_TMPFS) {
                *ret = true;
                return 0;
        }
        if (!cover->host || !cordon_access_host_is_path(cover->access))
                return 0;
        const char *suffix = guest + strlen(cover->guest);
        _cleanup_free_ char *host = *suffix ? path_join(cover->host, suffix) : strdup(cover->host);
        if (!host)
                return -ENOMEM;
        struct stat st;
        *ret = cordon_lower_host_lstat(l, host, &st) == 0 && S_ISDIR(st.st_mode);
        return 0;
}

/* The host directory of cache @c below @root, planned when missing. Where the home is a tmpfs
 * of the sandbox's own, or the tool's directory exists to be bound over, the cache is bound at
 * the tool's own path; otherwise (the host's home shown, the tool's directory missing) at its
 * own path, and the tool is pointed at it. The landlock backend, which has no mounts, always
 * points the tool at the directory itself (p->landlock_env). */
static int one_cache(struct lower *l, const char *root, const struct cache *c)
{
        _cleanup_free_ char *host = path_join(root, c->name);
        _cleanup_free_ char *tool_guest = path_join(l->home_guest, c->home_rel);
        if (!host || !tool_guest)
                return -ENOMEM;
        if (user_rule_at(l, tool_guest))
                return 0;
        struct stat st;
        if (cordon_lower_lstat(l, host, &st) < 0) {
                if (errno != ENOENT)
                        return cordon_lower_warn(l, "PACKAGE_CACHES: '%s': %m; not bound", host);
                int r = cordon_lower_plan_mkdir_p(l, host, "a package cache (from " ORIGIN ")");
                if (r < 0)
                        return r;
        } else if (!S_ISDIR(st.st_mode))
                return cordon_lower_warn(l, "PACKAGE_CACHES: '%s' is not a directory; not bound",
                                         host);
        bool over_tool = false;
        int r = mountable_at(l, tool_guest, &over_tool);
        if (r < 0)
                return r;
        const char *guest = over_tool ? tool_guest : host;
        r = cordon_lower_put(l, guest, host, CORDON_ACCESS_RW, 0, ORIGIN);
        if (r < 0 || !c->var)
                return r;
        _cleanup_free_ char *ns = NULL, *ll = NULL;
        if (asprintf(&ns, "%s=%s", c->var, guest) < 0 || asprintf(&ll, "%s=%s", c->var, host) < 0)
                return -ENOMEM;
        if ((r = cordon_list_add(&l->p->env_rules.set, ns, ORIGIN)) < 0)
                return r;
        return strv_extend(&l->p->landlock_env, ll);
}

int cordon_lower_caches(struct lower *l)
{
        /* A capability policy names every root the command may write: no cache beyond them. */
        if (!l->s->package_caches || !l->home_real || l->s->policy)
                return 0;
        bool any = false;
        for (size_t i = 0; i < ELEMENTSOF(caches) && !any; i++)
                any = wanted(l, &caches[i]);
        if (!any)
                return 0;
        _cleanup_free_ char *root = NULL;
        int r = caches_root(l, &root);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        /* A link on the way that some sandbox could have planted (a ~/.cache/cordon made a
         * link to ~ under HOME_ACCESS=write) would hand the next one the home. */
        _cleanup_free_ char *link = NULL, *target = NULL;
        r = cordon_lower_find_planted_link(l, root, &link, &target);
        if (r < 0)
                return r;
        if (r > 0)
                return cordon_lower_warn(l,
                                         "PACKAGE_CACHES: '%s' goes through symlink '%s' -> '%s' "
                                         "in a directory a sandbox can write; no package caches",
                                         root, link, target);
        /* What exists of it, resolved, must be a place a sandbox may write. */
        _cleanup_free_ char *above = strdup(root), *real = NULL;
        if (!above)
                return -ENOMEM;
        while (!(real = cordon_lower_host_realpath(l, above)) && errno == ENOENT &&
               strrchr(above, '/') != above)
                *strrchr(above, '/') = 0;
        if (!real)
                return cordon_lower_warn(l, "PACKAGE_CACHES: '%s': %m; no package caches", root);
        /* The rules and the directories made name it by its resolved path: the launch opens
         * host paths with no symlink on the way. */
        _cleanup_free_ char *root_real =
            *(root + strlen(above)) ? path_join(real, root + strlen(above) + 1) : strdup(real);
        if (!root_real)
                return -ENOMEM;
        if ((r = writable_here(l, root, root_real)) <= 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(caches); i++)
                if (wanted(l, &caches[i]) && (r = one_cache(l, root_real, &caches[i])) < 0)
                        return r;
        return 0;
}
