/* Lowering of blocked paths: BLOCKED_FILES (with placeholders), EXTRA_BLOCKED_PATHS, and masks
 * at every guest path where a hidden host path is visible. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/backend-traits.h"
#include "lib/policy/diag.h"
#include "lib/resolve/blocked-refusal.h"
#include "lib/resolve/lower-internal.h"
#include "shared/macro.h"
#include "shared/path-util.h"

/* Plans host action @path, marked as materialized for BLOCKED_FILES when this plans it (not an
 * action planned earlier for something else): CLEANUP_MATERIALIZED_BLOCKED_FILES removes those
 * after the run. */
static int plan_materialized(struct lower *l, enum cordon_host_action_kind kind, const char *path,
                             mode_t mode, const char *contents, const char *reason,
                             const char *warning)
{
        bool planned = cordon_policy_find_host_action(l->p, path);
        int r = cordon_lower_plan(l, kind, path, mode, contents, reason, warning);
        if (r < 0 || planned)
                return r;
        l->p->actions[l->p->n_actions - 1].materialized = true;
        return 0;
}

/* Plans an empty placeholder for blocked file @abs, with any missing parent directories, and
 * returns where it will be in @ret_real. Symlinks on the way are followed only where the sandbox
 * could not have planted them: a link inside a directory the sandbox can write would let it
 * point the placeholder anywhere. Every path planned has no symlink in it; the launch creates
 * them relative to their opened parent, refusing a symlink that appeared since. A failure
 * because the caller may not create there sets *@ret_creatable: made once by someone who may,
 * the file would do. */
static int plan_placeholder(struct lower *l, const char *abs, const char *origin, char **ret_real,
                            bool *ret_creatable)
{
        _cleanup_free_ char *cur = strdup("/");
        if (!cur)
                return -ENOMEM;
        const char *p = abs;
        int r;
        for (;;) {
                while (*p == '/')
                        p++;
                const char *e = strchrnul(p, '/');
                bool last = *e == 0;
                _cleanup_free_ char *name = strndup(p, (size_t)(e - p));
                if (!name)
                        return -ENOMEM;
                if (streq(name, ".") || streq(name, "..") || !*name)
                        return -EINVAL;
                _cleanup_free_ char *next = path_join(cur, name);
                _cleanup_free_ char *reason = NULL, *warning = NULL;
                if (!next)
                        return -ENOMEM;
                struct stat st;
                bool missing = cordon_lower_lstat(l, next, &st) < 0;
                if (missing && errno != ENOENT)
                        return -errno;
                /* The first component to make, in a directory of the host's (not one planned
                 * here): that directory must let the caller create in it, or the apply would
                 * fail after making the others. A read-only file system says EROFS. */
                if (missing && !cordon_policy_find_host_action(l->p, cur) &&
                    faccessat(AT_FDCWD, cur, W_OK | X_OK, AT_EACCESS) < 0) {
                        int err = errno;
                        *ret_creatable = true;
                        return cordon_diag_set(l->diag, -err, "cannot create '%s' in '%s': %s",
                                               next, cur, strerror(err));
                }
                if (last) {
                        if (!missing)
                                return -EEXIST;
                        if (asprintf(&reason, "BLOCKED_FILES placeholder (from %s)", origin) < 0 ||
                            asprintf(&warning,
                                     "BLOCKED_FILES: created empty placeholder '%s' (from %s), "
                                     "to be hidden inside",
                                     next, origin) < 0)
                                return -ENOMEM;
                        r = plan_materialized(l, CORDON_HOST_FILE, next, 0600, "", reason, warning);
                        if (r < 0)
                                return r;
                        *ret_real = TAKE_PTR(next);
                        return 0;
                }
                if (missing) {
                        if (asprintf(&reason, "directory for BLOCKED_FILES entry '%s' (from %s)",
                                     abs, origin) < 0 ||
                            asprintf(&warning,
                                     "BLOCKED_FILES: created missing directory '%s' for '%s' "
                                     "(from %s)",
                                     next, abs, origin) < 0)
                                return -ENOMEM;
                        r = plan_materialized(l, CORDON_HOST_MKDIR, next, 0700, NULL, reason,
                                              warning);
                        if (r < 0)
                                return r;
                } else if (S_ISLNK(st.st_mode)) {
                        if (cordon_lower_sandbox_can_write(l, cur))
                                return cordon_diag_set(l->diag, -ELOOP,
                                                       "blocked file '%s' (from %s) goes through "
                                                       "symlink '%s' in a directory the sandbox "
                                                       "can write; refusing to follow it",
                                                       abs, origin, next);
                        char *real = cordon_lower_realpath(l, next);
                        if (!real)
                                return -errno;
                        free(next);
                        next = real;
                        if (cordon_lower_lstat(l, next, &st) < 0)
                                return -errno;
                }
                if (!missing && !S_ISDIR(st.st_mode))
                        return -ENOTDIR;
                free(cur);
                cur = TAKE_PTR(next);
                p = e;
        }
}

/* Whether missing host path @abs would show inside: it lies below the host side of a bind, as
 * written or with its existing part resolved. Nothing else needs a placeholder. */
static bool shown_by_a_bind(const struct lower *l, const char *abs)
{
        _cleanup_free_ char *resolved = NULL, *prefix = strdup(abs);
        for (char *slash; prefix && !resolved && (slash = strrchr(prefix, '/'));) {
                *slash = 0;
                _cleanup_free_ char *real = cordon_lower_host_realpath(l, *prefix ? prefix : "/");
                if (real)
                        resolved = path_join(real, abs + (slash - prefix));
        }
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->host && cordon_access_is_bind(r->access) &&
                    (path_is_below(abs, r->host) || (resolved && path_is_below(resolved, r->host))))
                        return true;
        }
        return false;
}

/* An entry that cannot be protected, for the refusal (blocked-refusal.h). */
struct failure {
        char *path, *why;
        const char *origin;
        bool creatable, parent_missing;
};

static void failures_free(struct failure *f, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(f[i].path);
                free(f[i].why);
        }
        free(f);
}

/* One BLOCKED_FILES entry: its host realpath added to the masks, a missing one planned as an
 * empty placeholder. A failure is -errno with the reason in @why, the absolute path in
 * *@ret_abs and in *@ret_creatable whether making the file outside would do. */
static int blocked_file(struct lower *l, const struct cordon_item *it, char *why, size_t size,
                        char **ret_abs, bool *ret_creatable)
{
        _cleanup_free_ char *abs = NULL;
        int r = cordon_lower_absolute(l, it->value, &abs);
        if (r < 0) {
                snprintf(why, size, "%s", strerror(-r));
                return r;
        }
        struct stat st;
        _cleanup_free_ char *real = NULL;
        if (cordon_lower_lstat(l, abs, &st) < 0) {
                if (errno != ENOENT) {
                        r = -errno;
                        snprintf(why, size, "%s", strerror(-r));
                        return r;
                }
                /* Not visible inside: nothing to hide, and nothing to leave behind. */
                if (!shown_by_a_bind(l, abs))
                        return 0;
                struct cordon_diag inner = {0};
                struct cordon_diag *outer = l->diag;
                l->diag = &inner;
                r = plan_placeholder(l, abs, it->origin, &real, ret_creatable);
                l->diag = outer;
                if (r < 0) {
                        /* plan_placeholder()'s own message names the entry already. */
                        if (*inner.message)
                                snprintf(why, size, "%s", inner.message);
                        else
                                snprintf(why, size, "cannot create a placeholder: %s",
                                         strerror(-r));
                        *ret_abs = TAKE_PTR(abs);
                        return r;
                }
        }
        if (!real && !(real = cordon_lower_realpath(l, abs))) {
                r = -errno;
                snprintf(why, size, "%s", strerror(-r));
                return r;
        }
        return cordon_list_add_unique(&l->masks, real, it->origin);
}

/* BLOCKED_FILES: a missing file is planned as an empty placeholder so that it can be covered; if
 * that is impossible the run is refused rather than left unprotected, naming every entry that
 * cannot be protected (not only the first) and the fix. Runs once the read-write binds are known,
 * so placeholders never follow a symlink the sandbox could have planted. */
int cordon_lower_blocked_files(struct lower *l)
{
        struct failure *failed = NULL;
        size_t n_failed = 0;
        int first = 0, r = 0;
        CORDON_LIST_FOREACH (it, &l->s->blocked_files) {
                /* An agent's instruction file (lower-agents.c) is shown as a merged copy, which
                 * only a mount namespace gives. Landlock cannot hide one file of a directory it
                 * grants without taking the right to create anything there (the agent's whole
                 * directory): an explicit landlock backend leaves it visible, as cordon(1) says. */
                if (!cordon_backend_traits(l->s->backend)->mount_ns &&
                    startswith(it->origin, "profile "))
                        continue;
                char why[sizeof(l->diag->message)] = "";
                _cleanup_free_ char *abs = NULL;
                bool creatable = false;
                r = blocked_file(l, it, why, sizeof(why), &abs, &creatable);
                if (r == -ENOMEM)
                        goto out;
                if (r >= 0)
                        continue;
                struct failure *n = reallocarray(failed, n_failed + 1, sizeof(*failed));
                if (!n) {
                        r = -ENOMEM;
                        goto out;
                }
                failed = n;
                struct stat st;
                _cleanup_free_ char *dir = abs ? strdup(abs) : NULL;
                char *slash = dir ? strrchr(dir, '/') : NULL;
                if (slash)
                        *(slash == dir ? slash + 1 : slash) = 0;
                failed[n_failed++] = (struct failure){
                    .path = abs ? TAKE_PTR(abs) : strdup(it->value),
                    .why = strdup(why),
                    .origin = it->origin,
                    .creatable = creatable,
                    .parent_missing = dir && cordon_lower_host_lstat(l, dir, &st) < 0,
                };
                if (!failed[n_failed - 1].path || !failed[n_failed - 1].why) {
                        r = -ENOMEM;
                        goto out;
                }
                first = first ?: r;
        }
        r = 0;
        if (n_failed) {
                _cleanup_free_ struct cordon_blocked_failure *f = calloc(n_failed, sizeof(*f));
                if (!f) {
                        r = -ENOMEM;
                        goto out;
                }
                for (size_t i = 0; i < n_failed; i++)
                        f[i] = (struct cordon_blocked_failure){
                            .path = failed[i].path,
                            .origin = failed[i].origin,
                            .why = failed[i].why,
                            .creatable = failed[i].creatable,
                            .parent_missing = failed[i].parent_missing,
                        };
                r = cordon_blocked_refusal(l->diag, first, f, n_failed);
        }
out:
        failures_free(failed, n_failed);
        return r;
}

/* EXTRA_BLOCKED_PATHS: hidden where they exist; a missing one has nothing to hide. */
int cordon_lower_extra_blocked(struct lower *l)
{
        CORDON_LIST_FOREACH (it, &l->s->extra_blocked_paths) {
                _cleanup_free_ char *abs = NULL;
                int r = cordon_lower_absolute(l, it->value, &abs);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return cordon_diag_set(l->diag, r, "blocked path '%s' (from %s): %s",
                                               it->value, it->origin, strerror(-r));
                _cleanup_free_ char *real = cordon_lower_realpath(l, abs);
                /* Missing: nothing to hide. A path that cannot be resolved otherwise (a symlink
                 * loop, which a concurrent rename can make of a parent for a moment) could be
                 * hiding something: refused. */
                if (!real && (errno == ENOENT || errno == ENOTDIR || errno == EACCES))
                        continue;
                if (!real)
                        return cordon_diag_set(l->diag, -errno,
                                               "blocked path '%s' (from %s) cannot be resolved: %m",
                                               it->value, it->origin);
                if (streq(real, "/"))
                        return cordon_diag_set(l->diag, -EINVAL,
                                               "blocked path '%s' (from %s) is the host root",
                                               it->value, it->origin);
                if ((r = cordon_list_add_unique(&l->masks, real, it->origin)) < 0)
                        return r;
        }
        return 0;
}

/* Every place a hidden host path shows up inside gets a mask: below a bind of one of its
 * parents, and over any bind of something inside it. This is what keeps a project or home bind
 * from re-exposing ~/.ssh. */
int cordon_lower_masks(struct lower *l)
{
        size_t n = l->p->n_fs;
        CORDON_LIST_FOREACH (m, &l->masks)
                for (size_t i = 0; i < n; i++) {
                        const struct cordon_fs_rule *r = &l->p->fs[i];
                        if (!r->host || !cordon_access_host_is_path(r->access))
                                continue;
                        _cleanup_free_ char *guest = NULL;
                        if (path_is_below(m->value, r->host)) {
                                const char *suffix = m->value + strlen(r->host);
                                guest = *suffix ? path_join(r->guest, suffix) : strdup(r->guest);
                        } else if (path_is_below(r->host, m->value))
                                guest = strdup(r->guest);
                        else
                                continue;
                        _cleanup_free_ char *norm = NULL;
                        if (!guest || path_normalize(guest, &norm) < 0)
                                return -ENOMEM;
                        int k = cordon_lower_put(l, norm, NULL, CORDON_ACCESS_MASKED, 0, m->origin);
                        if (k < 0)
                                return k;
                }
        return 0;
}

/* A project inside a hidden path would be covered by the mask: refuse it instead. */
int cordon_lower_check_project(struct lower *l)
{
        CORDON_LIST_FOREACH (it, &l->masks)
                if (l->p->project_dir && path_is_below(l->p->project_dir, it->value))
                        return cordon_diag_set(l->diag, -EPERM,
                                               "project directory '%s' lies inside blocked path "
                                               "'%s' (from %s)",
                                               l->p->project_dir, it->value, it->origin);
        return 0;
}
