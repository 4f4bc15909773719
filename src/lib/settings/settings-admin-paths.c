/* The admin rules on paths: DENIED_WRITABLE_PATHS (admin only; writable entries under a denied
 * path stripped, literally and through symlinks) and the narrowing-only lists
 * (ALLOWED_PROJECT_PARENTS, the POLICY_* roots and presets), compared on canonical paths with
 * path-component containment. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/settings/settings-admin.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* Symlinks followed on one path before giving up, as the kernel's MAXSYMLINKS. */
#define LINKS_MAX 40

/* @path (absolute, or relative to the working directory) with every symlink on it followed, one
 * component at a time, as the kernel would; a dangling link is followed into its target, and
 * from the first component that cannot be seen (missing, unreadable) on the rest is taken
 * lexically. The result is normalised ("/" for the root). Unlike realpath(3) it also answers for
 * paths that do not exist yet (HOME_WRITABLE entries are created at start): what they would
 * resolve to. Returns 0, -ELOOP, -ENAMETOOLONG, -ENOMEM, or -errno of getcwd(). */
static int resolve_path(const char *path, char **ret)
{
        _cleanup_free_ char *cur = path[0] == '/' ? strdup("/") : getcwd(NULL, 0);
        _cleanup_free_ char *rest = strdup(path);
        if (!cur || !rest)
                return -ENOMEM;
        unsigned links = 0;
        bool unseen = false;
        for (;;) {
                char *p = rest + strspn(rest, "/");
                if (!*p)
                        break;
                size_t n = strcspn(p, "/");
                _cleanup_free_ char *comp = strndup(p, n);
                if (!comp)
                        return -ENOMEM;
                memmove(rest, p + n, strlen(p + n) + 1);
                if (streq(comp, "."))
                        continue;
                if (streq(comp, "..")) {
                        char *slash = strrchr(cur, '/');
                        slash[slash == cur ? 1 : 0] = 0;
                        continue;
                }
                _cleanup_free_ char *next = path_join(cur, comp);
                if (!next)
                        return -ENOMEM;
                struct stat st;
                if (!unseen && lstat(next, &st) < 0)
                        unseen = true;
                else if (!unseen && S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX];
                        ssize_t k = readlink(next, target, sizeof(target) - 1);
                        if (k < 0) {
                                unseen = true; /* gone meanwhile: the rest lexically */
                        } else {
                                if (++links > LINKS_MAX)
                                        return -ELOOP;
                                target[k] = 0;
                                char *joined = NULL;
                                if (asprintf(&joined, "%s/%s", target, rest) < 0)
                                        return -ENOMEM;
                                free(rest);
                                rest = joined;
                                if (target[0] == '/')
                                        strcpy(cur, "/");
                                if (strlen(rest) > PATH_MAX * 4)
                                        return -ENAMETOOLONG;
                                continue;
                        }
                }
                free(cur);
                cur = TAKE_PTR(next);
        }
        *ret = TAKE_PTR(cur);
        return 0;
}

/* The literal form of @path for comparing: normalised, or NULL when it cannot be without the
 * file system (a relative path, ".." components). */
static char *literal_path(const char *path)
{
        char *n = NULL;
        if (path[0] != '/' || path_normalize(path, &n) < 0)
                return NULL;
        return n;
}

/* At or below the other, either way round: a writable parent of a denied path makes it
 * writable as surely as a writable child does. */
static bool overlaps(const char *a, const char *b)
{
        return a && b && (path_is_below(a, b) || path_is_below(b, a));
}

int cordon_settings_path_denied(const struct cordon_list *denied, const char *path,
                                const struct cordon_item **ret_entry)
{
        /* Nothing denied (no admin list, the usual case): nothing to resolve. */
        if (denied->n == 0)
                return 0;
        _cleanup_free_ char *lit = literal_path(path), *real = NULL;
        int r = resolve_path(path, &real);
        if (r == -ENOMEM)
                return r;
        CORDON_LIST_FOREACH (it, denied) {
                _cleanup_free_ char *dlit = literal_path(it->value), *dreal = NULL;
                if ((r = resolve_path(it->value, &dreal)) == -ENOMEM)
                        return r;
                if (overlaps(lit, dlit) || overlaps(real, dreal) || overlaps(lit, dreal) ||
                    overlaps(real, dlit)) {
                        if (ret_entry)
                                *ret_entry = it;
                        return 1;
                }
        }
        return 0;
}

struct strip_ctx {
        struct admin_run *run;
        const char *name;
        const char *home;                /* strip_denied: joins HOME_WRITABLE's entries */
        const struct cordon_list *admin; /* narrow_names */
        char **roots;                    /* narrow_paths: the admin's canonical paths */
};

/* strip_denied(): 1 keeps @it, 0 drops it (noted). */
static int keep_not_denied(const struct cordon_item *it, void *userdata)
{
        struct strip_ctx *c = userdata;
        const struct cordon_list *denied = &c->run->s->denied_writable_paths;
        _cleanup_free_ char *joined = NULL;
        const struct cordon_item *hit = NULL;
        int r;
        if (c->home && c->home[0] == '/') {
                if (!(joined = path_join(c->home, it->value)))
                        return -ENOMEM;
                r = cordon_settings_path_denied(denied, joined, &hit);
        } else if (c->home) {
                /* Relative to a home directory that is not known: not checkable, so not
                 * writable. */
                r = cordon_admin_note(c->run, c->name,
                                      "%s entry '%s' (from %s) cannot be checked against "
                                      "admin-enforced DENIED_WRITABLE_PATHS without a home "
                                      "directory: removed",
                                      c->name, it->value, it->origin);
                return r < 0 ? r : 0;
        } else
                r = cordon_settings_path_denied(denied, it->value, &hit);
        if (r <= 0)
                return r < 0 ? r : 1;
        if (!hit)
                return 0;
        r = cordon_admin_note(c->run, c->name,
                              "%s entry '%s' (from %s) overlaps admin-denied "
                              "DENIED_WRITABLE_PATHS entry '%s' (from %s): removed",
                              c->name, it->value, it->origin, hit->value, hit->origin);
        return r < 0 ? r : 0;
}

/* Strips from @list (of variable @name) every entry under or above a denied path; @home joins
 * HOME_WRITABLE's relative entries. */
static int strip_denied(struct admin_run *run, struct cordon_list *list, const char *name,
                        const char *home)
{
        struct strip_ctx c = {.run = run, .name = name, .home = home};
        return cordon_list_filter(list, keep_not_denied, &c);
}

int cordon_admin_denied_writable(struct admin_run *run)
{
        struct cordon_settings *s = run->s;
        static const struct cordon_list none = {0};
        const struct cordon_list *admin = run->a ? &run->a->denied_writable_paths : &none;

        /* Admin only: what another layer added is ignored, in one line. */
        char ignored[1024] = "";
        size_t n_ignored = 0;
        CORDON_LIST_FOREACH (it, &s->denied_writable_paths) {
                bool from_admin = false;
                CORDON_LIST_FOREACH (a, admin)
                        if (streq(a->value, it->value) && streq(a->origin, it->origin))
                                from_admin = true;
                if (from_admin)
                        continue;
                size_t len = strlen(ignored);
                if (len + 16 < sizeof(ignored))
                        snprintf(ignored + len, sizeof(ignored) - len, "%s'%s' (from %s)",
                                 n_ignored ? ", " : "", it->value, it->origin);
                n_ignored++;
        }
        int r;
        if (n_ignored &&
            (r = cordon_admin_note(run, "DENIED_WRITABLE_PATHS",
                                   "DENIED_WRITABLE_PATHS is honoured from the admin baseline "
                                   "only: ignored %s",
                                   ignored)) < 0)
                return r;
        /* Emptied by a later layer (a plain DENIED_WRITABLE_PATHS=()): put back. */
        CORDON_LIST_FOREACH (a, admin)
                if (!cordon_list_find(&s->denied_writable_paths, a->value) &&
                    (r = cordon_admin_note(run, "DENIED_WRITABLE_PATHS",
                                           "removed admin-enforced DENIED_WRITABLE_PATHS entry "
                                           "'%s' (from %s): restored",
                                           a->value, a->origin)) < 0)
                        return r;
        struct cordon_list copy = {0};
        if ((r = cordon_list_copy(&copy, admin)) < 0) {
                cordon_list_clear(&copy);
                return r;
        }
        cordon_list_clear(&s->denied_writable_paths);
        s->denied_writable_paths = copy;
        if (s->denied_writable_paths.n == 0)
                return 0;

        r = strip_denied(run, &s->extra_writable_paths, "EXTRA_WRITABLE_PATHS", NULL);
        if (r < 0)
                return r;
        /* An empty string as home: "not known" (strip_denied() tells it from NULL). */
        if ((r = strip_denied(run, &s->home_writable, "HOME_WRITABLE", s->home ?: "")) < 0)
                return r;

        /* The working directory as project is checked when resolving, which knows it. */
        const struct cordon_item *hit = NULL;
        if (s->project_dir && (r = cordon_settings_path_denied(&s->denied_writable_paths,
                                                               s->project_dir, &hit)) != 0) {
                if (r < 0)
                        return r;
                return cordon_diag_set(run->diag, -EPERM,
                                       "project directory '%s' (from %s) overlaps admin-denied "
                                       "DENIED_WRITABLE_PATHS entry '%s' (from %s)",
                                       s->project_dir, strempty(s->project_dir_origin), hit->value,
                                       hit->origin);
        }
        return 0;
}

/* HOME_ACCESS=write binds the whole home writable, and a denied path at, below or above it
 * would be writable through that bind (no HOME_WRITABLE entry to strip). Refused, not lowered
 * to another mode: a clear reason beats a surprising home. After the harden-only rules, which
 * may have put an admin's stricter mode back. */
int cordon_admin_denied_home(struct admin_run *run)
{
        struct cordon_settings *s = run->s;
        if (s->home_access != CORDON_HOME_WRITE || s->denied_writable_paths.n == 0)
                return 0;
        if (!s->home || s->home[0] != '/')
                return cordon_diag_set(run->diag, -EPERM,
                                       "HOME_ACCESS=write (from %s) cannot be checked against "
                                       "admin-enforced DENIED_WRITABLE_PATHS without a home "
                                       "directory",
                                       strempty(s->home_access_origin));
        const struct cordon_item *hit = NULL;
        int r = cordon_settings_path_denied(&s->denied_writable_paths, s->home, &hit);
        if (r <= 0)
                return r;
        return cordon_diag_set(run->diag, -EPERM,
                               "HOME_ACCESS=write (from %s) would make admin-denied "
                               "DENIED_WRITABLE_PATHS entry '%s' (from %s) writable through the "
                               "home directory '%s'",
                               strempty(s->home_access_origin), hit->value, hit->origin, s->home);
}

/* Canonical form of a narrowing list's entry: home spellings expanded, symlinks followed. NULL
 * when it names the home directory and there is none, or cannot be resolved (*@err: -ENOMEM
 * matters). */
static char *canonical(const char *value, const char *home, int *err)
{
        _cleanup_free_ char *expanded = NULL;
        char *real = NULL;
        int r = cordon_settings_expand_home(value, home, &expanded);
        if (r > 0)
                r = resolve_path(expanded, &real);
        *err = r < 0 ? r : 0;
        return real;
}

/* narrow_paths(): 1 keeps @it (at or below one of the roots), 0 drops it (noted). */
static int keep_below_roots(const struct cordon_item *it, void *userdata)
{
        struct strip_ctx *ctx = userdata;
        int r;
        _cleanup_free_ char *c = canonical(it->value, ctx->home, &r);
        if (r < 0)
                return r;
        for (char **root = ctx->roots; c && root && *root; root++)
                if (path_is_below(c, *root))
                        return 1;
        r = cordon_admin_note(ctx->run, ctx->name,
                              "%s entry '%s' (from %s) is not at or below an admin-enforced %s "
                              "entry%s%s: removed",
                              ctx->name, it->value, it->origin, ctx->name,
                              c ? "; it resolves to " : "", c ? c : "");
        return r < 0 ? r : 0;
}

/* narrow_names(): 1 keeps @it (in the admin's list), 0 drops it (noted). */
static int keep_admin_name(const struct cordon_item *it, void *userdata)
{
        struct strip_ctx *ctx = userdata;
        if (cordon_list_find(ctx->admin, it->value))
                return 1;
        int r = cordon_admin_note(ctx->run, ctx->name,
                                  "%s entry '%s' (from %s) is not in the admin-enforced %s: "
                                  "removed",
                                  ctx->name, it->value, it->origin, ctx->name);
        return r < 0 ? r : 0;
}

/* Keeps in @list (of variable @name) only the entries whose canonical path is at or below the
 * canonical path of an entry of @admin. */
static int narrow_paths(struct admin_run *run, struct cordon_list *list, const char *name,
                        const struct cordon_list *admin)
{
        const char *home = run->s->home;
        _cleanup_(strv_freep) char **roots = NULL;
        int r;
        CORDON_LIST_FOREACH (it, admin) {
                char *c = canonical(it->value, home, &r);
                if (r < 0)
                        return r;
                if (c && (r = strv_consume(&roots, c)) < 0)
                        return r;
        }
        struct strip_ctx ctx = {.run = run, .name = name, .home = home, .roots = roots};
        return cordon_list_filter(list, keep_below_roots, &ctx);
}

/* POLICY_PRESETS: names, kept when the admin's list has them too. */
static int narrow_names(struct admin_run *run, struct cordon_list *list, const char *name,
                        const struct cordon_list *admin)
{
        struct strip_ctx ctx = {.run = run, .name = name, .admin = admin};
        return cordon_list_filter(list, keep_admin_name, &ctx);
}

int cordon_admin_narrow(struct admin_run *run)
{
        struct cordon_settings *s = run->s;
        const struct cordon_settings *a = run->a;
        int r;
        if (cordon_admin_sets(run, "ALLOWED_PROJECT_PARENTS")) {
                r = narrow_paths(run, &s->allowed_project_parents, "ALLOWED_PROJECT_PARENTS",
                                 &a->allowed_project_parents);
                if (r < 0)
                        return r;
                /* No fall-through to a permissive default. */
                if (s->allowed_project_parents.n == 0)
                        return cordon_diag_set(run->diag, -EPERM,
                                               "no allowed project parent is left: every "
                                               "ALLOWED_PROJECT_PARENTS entry lies outside the "
                                               "admin baseline's");
        }
        /* A capability policy's roots narrow the same way (harn's CapabilityPolicy::intersect
         * keeps the roots common to both sides), but an empty result only grants less, so it
         * is no reason to refuse. */
        static const struct {
                const char *name;
                size_t offset;
        } roots[] = {
            {"POLICY_WORKSPACE_ROOTS", offsetof(struct cordon_settings, workspace_roots)},
            {"POLICY_READ_ROOTS", offsetof(struct cordon_settings, read_roots)},
            {"POLICY_WRITE_ROOTS", offsetof(struct cordon_settings, write_roots)},
        };
        for (size_t i = 0; i < ELEMENTSOF(roots); i++) {
                if (!cordon_admin_sets(run, roots[i].name))
                        continue;
                r = narrow_paths(
                    run, (struct cordon_list *)(void *)((char *)s + roots[i].offset), roots[i].name,
                    (const struct cordon_list *)(const void *)((const char *)a + roots[i].offset));
                if (r < 0)
                        return r;
        }
        if (cordon_admin_sets(run, "POLICY_PRESETS") &&
            (r = narrow_names(run, &s->presets, "POLICY_PRESETS", &a->presets)) < 0)
                return r;
        return 0;
}
