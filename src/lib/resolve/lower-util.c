/* The lowering's shared helpers: warnings, absolute paths, adding a rule, binding a host path at
 * the same place, and the checks every step asks (could a sandbox write here, a planted link, a
 * writable root). The steps themselves are in lower.c's table and the lower-*.c files. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/policy/output-file.h"
#include "lib/policy/policy.h"
#include "lib/resolve/lower-internal.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

_printf_(2, 3) int cordon_lower_warn(struct lower *l, const char *fmt, ...)
{
        char *m = NULL;
        va_list ap;
        va_start(ap, fmt);
        int k = vasprintf(&m, fmt, ap);
        va_end(ap);
        return k < 0 ? -ENOMEM : strv_consume(&l->warnings, m);
}

/* Absolute, lexically normalised form of @path (relative ones are taken from the caller's
 * working directory); ".." is resolved by realpath only where the path exists. */
int cordon_lower_absolute(struct lower *l, const char *path, char **ret)
{
        _cleanup_free_ char *joined =
            path_is_absolute(path) ? strdup(path) : path_join(l->h->cwd, path);
        if (!joined)
                return -ENOMEM;
        int r = path_normalize(joined, ret);
        if (r == -EINVAL) {
                /* ".." components: only realpath can say where they lead. */
                char *real = realpath(joined, NULL);
                if (!real)
                        return -errno;
                *ret = real;
                return 0;
        }
        return r;
}

/* Adds a rule, replacing an earlier non-mask rule for the same guest path: later sources
 * (flags after defaults) win. */
int cordon_lower_put(struct lower *l, const char *guest, const char *host,
                     enum cordon_access access, unsigned flags, const char *origin)
{
        struct cordon_policy *p = l->p;
        if (access != CORDON_ACCESS_MASKED)
                for (size_t i = 0; i < p->n_fs; i++) {
                        struct cordon_fs_rule *r = &p->fs[i];
                        if (r->access == CORDON_ACCESS_MASKED || !streq(r->guest, guest))
                                continue;
                        char *h = host ? strdup(host) : NULL, *o = strdup(origin);
                        if ((host && !h) || !o) {
                                free(h);
                                free(o);
                                return -ENOMEM;
                        }
                        free(r->host);
                        free(r->origin);
                        *r = (struct cordon_fs_rule){.guest = r->guest,
                                                     .host = h,
                                                     .access = access,
                                                     .flags = flags,
                                                     .origin = o};
                        return 0;
                }
        else
                /* Already masked there (a configuration copy may lie over the mask). */
                for (size_t i = 0; i < p->n_fs; i++)
                        if (p->fs[i].access == CORDON_ACCESS_MASKED && streq(p->fs[i].guest, guest))
                                return 0;
        return cordon_policy_add_fs(p, guest, host, access, flags, origin);
}

bool cordon_lower_sandbox_can_write(const struct lower *l, const char *host)
{
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->access == CORDON_ACCESS_RW && r->host && path_is_below(host, r->host))
                        return true;
        }
        return false;
}

/* True when some sandbox could write directory @dir (a host realpath) and so could have planted a
 * symlink there: @dir is at or below a read-write bind of the policy being lowered, or strictly
 * below an allowed project parent, where it is, or lies inside, a possible project of another
 * run. The parents themselves are never projects, nor are the home directories and their
 * parents (lower_project() refuses them), so no project contains those. */
static bool sandbox_could_write(const struct lower *l, const char *dir)
{
        if (cordon_lower_sandbox_can_write(l, dir))
                return true;
        if ((l->home_real && path_is_below(l->home_real, dir)) ||
            (l->account_home_real && path_is_below(l->account_home_real, dir)))
                return false;
        CORDON_LIST_FOREACH (it, &l->s->allowed_project_parents) {
                _cleanup_free_ char *parent = cordon_lower_parent_realpath(l, it->value);
                if (parent && path_is_below(dir, parent) && !streq(dir, parent))
                        return true;
        }
        return false;
}

static bool could_write(const char *dir, const void *userdata)
{
        return sandbox_could_write(userdata, dir);
}

/* cordon_path_find_link() with this lowering's notion of where a sandbox could write. */
int cordon_lower_find_planted_link(struct lower *l, const char *path, char **ret_link,
                                   char **ret_target)
{
        if (!path_is_absolute(path) && !l->h->cwd)
                return 0;
        return cordon_path_find_link(path, l->h->cwd, could_write, l, ret_link, ret_target);
}

/* Refuses @path (an entry of @variable) when it passes through a symlink some sandbox could
 * have planted: a link `sub -> ~` left in a project would otherwise turn a later bind of "sub"
 * into all of the home directory. */
int cordon_lower_refuse_planted_link(struct lower *l, const char *path, const char *what,
                                     const char *origin)
{
        _cleanup_free_ char *link = NULL, *target = NULL;
        int r = cordon_lower_find_planted_link(l, path, &link, &target);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "%s '%s' (from %s): %s", what, path, origin,
                                       strerror(-r));
        if (r > 0)
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '%s' (from %s) goes through symlink '%s' -> '%s' in a "
                                       "directory a sandbox can write; name the resolved path "
                                       "instead",
                                       what, path, origin, link, target);
        return 0;
}

/* The mounts the sandbox makes for itself: a bind over them would silently replace them with
 * the host's (its processes, all of its devices, every other program's /tmp). */
static int refuse_private_mount(struct lower *l, const char *path, const char *given,
                                const char *variable, const char *origin)
{
        const char *what = NULL, *hint = NULL;
        if (path_is_below(path, "/proc"))
                what = "/proc", hint = "it cannot be bound";
        else if (path_is_below(path, "/dev"))
                what = "/dev", hint = "expose device nodes through DEVICES";
        else if (l->s->private_tmp && streq(path, "/tmp"))
                what = "/tmp", hint = "turn PRIVATE_TMP off to share the host's /tmp";
        if (!what)
                return 0;
        return cordon_diag_set(l->diag, -EINVAL,
                               "%s entry '%s' (from %s) would replace the sandbox's own %s; %s",
                               variable, given, origin, what, hint);
}

/* True when @real is already visible read-only or read-write at the same path via a bind. */
static bool covered(struct lower *l, const char *real, enum cordon_access access)
{
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->access == access && r->host && streq(r->host, r->guest) &&
                    path_is_below(real, r->host))
                        return true;
        }
        return false;
}

/* Binds host @path at the same path inside (see lower-internal.h). A symlink is recreated as a
 * symlink and its target bound as well (the usr-merge links /bin, /lib, ... come out right this
 * way). */
int cordon_lower_bind_lstated(struct lower *l, const char *path, const struct stat *lstated,
                              enum cordon_access access, const char *origin, const char *variable,
                              bool missing_ok)
{
        _cleanup_free_ char *abs = NULL;
        int r = cordon_lower_absolute(l, path, &abs);
        struct stat st;
        /* @lstated: what lstat() of @path gave the caller, good for @abs if it is the same. */
        bool known = r >= 0 && lstated && streq(abs, path);
        if (known)
                st = *lstated;
        else if (r >= 0 && cordon_lower_lstat(l, abs, &st) < 0)
                r = -errno;
        if (r < 0) {
                if (r == -ENOENT && cordon_lower_is_builtin(origin))
                        return 0;
                if (r == -ENOENT && missing_ok)
                        return CORDON_LOWER_BIND_MISSING;
                return cordon_diag_set(l->diag, r, "%s entry '%s' (from %s): %s", variable, path,
                                       origin, strerror(-r));
        }
        if (streq(abs, "/"))
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s entry '%s' (from %s): the host root cannot be bound",
                                       variable, path, origin);
        _cleanup_free_ char *real = cordon_lower_realpath_lstated(l, abs, known ? &st : NULL);
        /* A symlink to nothing grants nothing either (so would a path removed since lstat()):
         * a built-in entry is skipped, as a missing one is. */
        if (!real && errno == ENOENT && cordon_lower_is_builtin(origin))
                return 0;
        if (!real && errno == ENOENT && missing_ok)
                return CORDON_LOWER_BIND_MISSING;
        if (!real)
                return cordon_diag_set(l->diag, -errno, "%s entry '%s' (from %s): %m", variable,
                                       path, origin);
        if (!cordon_lower_is_builtin(origin) &&
            ((r = refuse_private_mount(l, abs, path, variable, origin)) < 0 ||
             (r = refuse_private_mount(l, real, path, variable, origin)) < 0))
                return r;
        if (S_ISLNK(st.st_mode)) {
                char target[PATH_MAX];
                ssize_t n = readlink(abs, target, sizeof(target) - 1);
                if (n < 0)
                        return cordon_diag_set(l->diag, -errno, "%s entry '%s': %m", variable,
                                               path);
                target[n] = 0;
                r = cordon_lower_put(l, abs, target, CORDON_ACCESS_SYMLINK, 0, origin);
                if (r < 0)
                        return r;
                if (covered(l, real, access))
                        return 0;
        }
        if (streq(real, "/"))
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s entry '%s' (from %s): the host root cannot be bound",
                                       variable, path, origin);
        r = cordon_lower_put(l, real, real, access, 0, origin);
        return r < 0 ? r : 0; /* never CORDON_LOWER_BIND_MISSING */
}

int cordon_lower_bind_same_path(struct lower *l, const char *path, enum cordon_access access,
                                const char *origin, const char *variable)
{
        return cordon_lower_bind_lstated(l, path, NULL, access, origin, variable, false);
}

/* What a directory the sandbox may write must not be (@real resolved, @what names it in the
 * message): the root, the home or a parent of it, or anything not strictly below an allowed
 * project parent. The project directory and every writable root of a capability policy are
 * held to it alike. */
int cordon_lower_check_writable_root(struct lower *l, const char *real, const char *what)
{
        const struct cordon_settings *s = l->s;
        if (streq(real, "/"))
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '/' is not allowed: it would make the whole host "
                                       "writable",
                                       what);
        /* Checked on the resolved path, against $HOME and the account's home alike. */
        const char *const homes[] = {l->home_real, l->account_home_real};
        for (size_t i = 0; i < ELEMENTSOF(homes); i++) {
                if (!homes[i] || !path_is_below(homes[i], real))
                        continue;
                if (streq(real, homes[i]))
                        return cordon_diag_set(l->diag, -EPERM,
                                               "%s '%s' is the home directory; use a "
                                               "directory below it",
                                               what, real);
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '%s' is a parent of the home directory '%s'; use a "
                                       "directory below the home directory",
                                       what, real, homes[i]);
        }

        bool allowed = false;
        char list[1024] = "";
        CORDON_LIST_FOREACH (it, &s->allowed_project_parents) {
                _cleanup_free_ char *parent = cordon_lower_parent_realpath(l, it->value);
                if (strlen(list) + strlen(it->value) + 3 < sizeof(list)) {
                        if (*list)
                                strcat(list, ", ");
                        strcat(list, it->value);
                }
                /* Strictly below: /tmp itself would share every other program's files. */
                if (parent && path_is_below(real, parent) && !streq(real, parent))
                        allowed = true;
        }
        if (!allowed)
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '%s' is not below an allowed parent (%s; the "
                                       "parent itself does not count); add one to "
                                       "ALLOWED_PROJECT_PARENTS",
                                       what, real, *list ? list : "none");

        /* The admin baseline's DENIED_WRITABLE_PATHS (the working directory as project is only
         * known here). */
        const struct cordon_item *hit = NULL;
        int r = cordon_settings_path_denied(&s->denied_writable_paths, real, &hit);
        if (r < 0)
                return r;
        if (r > 0)
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '%s' overlaps admin-denied DENIED_WRITABLE_PATHS "
                                       "entry '%s' (from %s)",
                                       what, real, hit->value, hit->origin);

        return 0;
}
