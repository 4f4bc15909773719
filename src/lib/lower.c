/* Lowering of the sandbox.conf model into a policy: resolves host paths, applies HOME_ACCESS,
 * maps every blocked path to each place it is visible inside, and builds the environment. */
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <glob.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/env-filter.h"
#include "lib/lower.h"
#include "lib/passwd-filter.h"
#include "lib/policy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define BUILTIN "built-in default"

struct lower {
        const struct cordon_settings *s;
        const struct cordon_host *h;
        struct cordon_policy *p;
        char **warnings;
        struct cordon_diag *diag;
        char *home_guest;         /* $HOME as the sandbox sees it */
        char *home_real;          /* its host realpath */
        struct cordon_list masks; /* host realpaths to hide, with their origin */
};

_printf_(2, 3) static int warn(struct lower *l, const char *fmt, ...)
{
        char *m = NULL;
        va_list ap;
        va_start(ap, fmt);
        int k = vasprintf(&m, fmt, ap);
        va_end(ap);
        return k < 0 ? -ENOMEM : strv_consume(&l->warnings, m);
}

static bool is_builtin(const char *origin)
{
        return streq_ptr(origin, BUILTIN);
}

/* Absolute, lexically normalised form of @path (relative ones are taken from the caller's
 * working directory); ".." is resolved by realpath only where the path exists. */
static int absolute(struct lower *l, const char *path, char **ret)
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
static int put(struct lower *l, const char *guest, const char *host, enum cordon_access access,
               unsigned flags, const char *origin)
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
        else if (cordon_policy_find_fs(p, guest) &&
                 cordon_policy_find_fs(p, guest)->access == CORDON_ACCESS_MASKED)
                return 0;
        return cordon_policy_add_fs(p, guest, host, access, flags, origin);
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

/* Binds host @path at the same path inside. A symlink is recreated as a symlink and its target
 * bound as well (the usr-merge links /bin, /lib, ... come out right this way). */
static int bind_same_path(struct lower *l, const char *path, enum cordon_access access,
                          const char *origin, const char *variable)
{
        _cleanup_free_ char *abs = NULL;
        int r = absolute(l, path, &abs);
        struct stat st;
        if (r >= 0 && lstat(abs, &st) < 0)
                r = -errno;
        if (r < 0) {
                if (r == -ENOENT && is_builtin(origin))
                        return 0;
                return cordon_diag_set(l->diag, r, "%s entry '%s' (from %s): %s", variable, path,
                                       origin, strerror(-r));
        }
        if (streq(abs, "/"))
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s entry '%s' (from %s): the host root cannot be bound",
                                       variable, path, origin);
        _cleanup_free_ char *real = realpath(abs, NULL);
        if (!real)
                return cordon_diag_set(l->diag, -errno, "%s entry '%s' (from %s): %m", variable,
                                       path, origin);
        if (S_ISLNK(st.st_mode)) {
                char target[PATH_MAX];
                ssize_t n = readlink(abs, target, sizeof(target) - 1);
                if (n < 0)
                        return cordon_diag_set(l->diag, -errno, "%s entry '%s': %m", variable,
                                               path);
                target[n] = 0;
                r = put(l, abs, target, CORDON_ACCESS_SYMLINK, 0, origin);
                if (r < 0)
                        return r;
                if (covered(l, real, access))
                        return 0;
        }
        if (streq(real, "/"))
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s entry '%s' (from %s): the host root cannot be bound",
                                       variable, path, origin);
        return put(l, real, real, access, 0, origin);
}

static int check_home_relative(struct lower *l, const struct cordon_item *it, const char *variable)
{
        const char *v = it->value;
        bool bad = !*v || v[0] == '/' || streq(v, "..") || startswith(v, "../") ||
                   strstr(v, "/../") || (strlen(v) >= 3 && streq(v + strlen(v) - 3, "/.."));
        if (bad)
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s entry '%s' (from %s) must be a path relative to $HOME "
                                       "without '..'",
                                       variable, v, it->origin);
        return 0;
}

/* Creates directory @path and missing parents with mode 0700. */
static int mkdir_parents(const char *path, bool include_last, struct lower *l, bool report)
{
        _cleanup_free_ char *buf = strdup(path);
        if (!buf)
                return -ENOMEM;
        for (char *s = buf + 1;; s++) {
                bool end = *s == 0;
                if (*s != '/' && !end)
                        continue;
                if (end && !include_last)
                        break;
                char saved = *s;
                *s = 0;
                if (mkdir(buf, 0700) == 0) {
                        if (report) {
                                int r = warn(l, "created missing directory '%s'", buf);
                                if (r < 0)
                                        return r;
                        }
                } else if (errno != EEXIST)
                        return -errno;
                *s = saved;
                if (end)
                        break;
        }
        return 0;
}

static bool writable_target_allowed(struct lower *l, const char *real)
{
        if (path_is_below(real, l->home_real))
                return true;
        CORDON_LIST_FOREACH (it, &l->s->allowed_project_parents) {
                _cleanup_free_ char *parent = realpath(it->value, NULL);
                if (parent && path_is_below(real, parent))
                        return true;
        }
        return false;
}

static int home_entry(struct lower *l, const struct cordon_item *it, enum cordon_access access,
                      const char *variable)
{
        int r = check_home_relative(l, it, variable);
        if (r < 0)
                return r;
        _cleanup_free_ char *host = path_join(l->home_real, it->value);
        _cleanup_free_ char *guest_raw = path_join(l->home_guest, it->value);
        _cleanup_free_ char *guest = NULL;
        if (!host || !guest_raw || path_normalize(guest_raw, &guest) < 0)
                return -ENOMEM;
        struct stat st;
        if (access == CORDON_ACCESS_RW && lstat(host, &st) < 0 && errno == ENOENT) {
                r = mkdir_parents(host, true, l, false);
                if (r < 0)
                        return cordon_diag_set(l->diag, r, "cannot create %s entry '%s': %s",
                                               variable, host, strerror(-r));
        }
        if (lstat(host, &st) < 0)
                return 0; /* missing entries are skipped */
        if (access == CORDON_ACCESS_COPY && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
                return 0;
        _cleanup_free_ char *real = realpath(host, NULL);
        if (!real)
                return 0; /* dangling symlink */
        /* A symlink planted by an earlier session must not widen the next one: never the host
         * root, and writable entries only where a project could live. */
        if (streq(real, "/") || (access != CORDON_ACCESS_RO && !writable_target_allowed(l, real)))
                return warn(l, "%s entry '%s' (from %s) resolves to '%s'; not bound", variable,
                            it->value, it->origin, real);
        return put(l, guest, real, access, 0, it->origin);
}

static int lower_home(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        int r;
        if (!l->h->home || !path_is_absolute(l->h->home))
                return warn(l, "HOME is not set; the sandbox has no home directory");
        if (path_normalize(l->h->home, &l->home_guest) < 0 || streq(l->home_guest, "/"))
                return warn(l, "HOME='%s' is not usable; the sandbox has no home directory",
                            l->h->home);
        l->home_real = realpath(l->home_guest, NULL);
        if (!l->home_real)
                return warn(l, "home directory '%s' does not exist; the sandbox has none",
                            l->home_guest);
        l->p->home_dir = strdup(l->home_guest);
        l->p->home_access = s->home_access;

        switch (s->home_access) {
        case CORDON_HOME_TMPWRITE:
        case CORDON_HOME_RESTRICTED:
                r = put(l, l->home_guest, NULL, CORDON_ACCESS_TMPFS,
                        s->home_access == CORDON_HOME_RESTRICTED ? CORDON_FS_SEAL : 0,
                        s->home_access_origin);
                if (r < 0)
                        return r;
                CORDON_LIST_FOREACH (it, &s->home_readonly) {
                        if (cordon_list_find(&s->home_seeded, it->value))
                                continue; /* a seeded copy wins over the read-only bind */
                        if ((r = home_entry(l, it, CORDON_ACCESS_RO, "HOME_READONLY")) < 0)
                                return r;
                }
                break;
        case CORDON_HOME_READ:
                r = put(l, l->home_guest, l->home_real, CORDON_ACCESS_RO, 0, s->home_access_origin);
                if (r < 0)
                        return r;
                break;
        case CORDON_HOME_WRITE:
                return put(l, l->home_guest, l->home_real, CORDON_ACCESS_RW, 0,
                           s->home_access_origin);
        }
        CORDON_LIST_FOREACH (it, &s->home_writable)
                if ((r = home_entry(l, it, CORDON_ACCESS_RW, "HOME_WRITABLE")) < 0)
                        return r;
        CORDON_LIST_FOREACH (it, &s->home_seeded)
                if ((r = home_entry(l, it, CORDON_ACCESS_COPY, "HOME_SEEDED_FILES")) < 0)
                        return r;
        return 0;
}

static bool writable_inside(struct lower *l, const char *host)
{
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->access == CORDON_ACCESS_RW && path_is_below(host, r->host))
                        return true;
        }
        return false;
}

/* Credential directories: hidden in every mode. Where the sandbox could create one on the host
 * (home writable), an empty one is made first so that it can be covered. */
static int lower_home_blocked(struct lower *l)
{
        if (!l->home_real)
                return 0;
        CORDON_LIST_FOREACH (it, &l->s->home_always_blocked) {
                int r = check_home_relative(l, it, "blocked home entry");
                if (r < 0)
                        return r;
                _cleanup_free_ char *host = path_join(l->home_real, it->value);
                _cleanup_free_ char *guest = path_join(l->home_guest, it->value);
                if (!host || !guest)
                        return -ENOMEM;
                struct stat st;
                if (lstat(host, &st) < 0 && errno == ENOENT && writable_inside(l, host)) {
                        if (mkdir(host, 0700) < 0)
                                return cordon_diag_set(l->diag, -errno,
                                                       "cannot create '%s' to keep it hidden: %m",
                                                       host);
                        if ((r = warn(l, "created empty '%s' so the sandbox cannot create it",
                                      host)) < 0)
                                return r;
                }
                /* A symlink itself cannot be covered; its target is, wherever it is visible. */
                bool link = lstat(host, &st) == 0 && S_ISLNK(st.st_mode);
                if (!link && (r = put(l, guest, NULL, CORDON_ACCESS_MASKED, 0, it->origin)) < 0)
                        return r;
                _cleanup_free_ char *real = realpath(host, NULL);
                if (real && (r = cordon_list_add_unique(&l->masks, real, it->origin)) < 0)
                        return r;
        }
        return 0;
}

static int lower_project(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        const char *given = s->project_dir ?: l->h->cwd;
        const char *origin = s->project_dir ? strempty(s->project_dir_origin) : "working directory";
        _cleanup_free_ char *abs = NULL;
        int r = absolute(l, given, &abs);
        _cleanup_free_ char *real = r >= 0 ? realpath(abs, NULL) : NULL;
        if (!real)
                return cordon_diag_set(l->diag, r < 0 ? r : -errno,
                                       "project directory '%s' (from %s): %s", given, origin,
                                       strerror(r < 0 ? -r : errno));
        struct stat st;
        if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
                return cordon_diag_set(l->diag, -ENOTDIR,
                                       "project directory '%s' is not a directory", real);
        if (streq(real, "/"))
                return cordon_diag_set(l->diag, -EPERM,
                                       "project directory '/' is not allowed: it would make the "
                                       "whole host writable");
        if (l->home_real && streq(real, l->home_real))
                return cordon_diag_set(l->diag, -EPERM,
                                       "project directory '%s' is the home directory; use a "
                                       "directory below it",
                                       real);

        bool allowed = false;
        char list[1024] = "";
        CORDON_LIST_FOREACH (it, &s->allowed_project_parents) {
                _cleanup_free_ char *parent = realpath(it->value, NULL);
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
                                       "project directory '%s' is not below an allowed parent "
                                       "(%s; the parent itself does not count); add one with "
                                       "--allow-parent",
                                       real, *list ? list : "none");

        r = put(l, real, real, CORDON_ACCESS_RW, 0, origin);
        if (r < 0)
                return r;
        l->p->project_dir = strdup(real);
        return cordon_policy_set_cwd(l->p, real);
}

/* True when the sandbox can write inside host directory @dir (it lies below a read-write bind). */
static bool sandbox_writable_dir(struct lower *l, const char *dir)
{
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->access == CORDON_ACCESS_RW && r->host && path_is_below(dir, r->host))
                        return true;
        }
        return false;
}

/* Creates an empty placeholder for blocked file @abs, with any missing parent directories.
 * Symlinks on the way are followed only where the sandbox could not have planted them: a link
 * inside a directory the sandbox can write would let it point the placeholder anywhere. */
static int create_placeholder(struct lower *l, const char *abs, const char *origin)
{
        _cleanup_free_ char *cur = strdup("/");
        _cleanup_close_ int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (!cur || dir < 0)
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
                if (!next)
                        return -ENOMEM;
                if (last) {
                        int fd = openat(dir, name,
                                        O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
                        if (fd < 0)
                                return -errno;
                        close(fd);
                        return warn(l, "created empty placeholder '%s' for blocked file (from %s)",
                                    next, origin);
                }
                struct stat st;
                if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno != ENOENT)
                                return -errno;
                        if (mkdirat(dir, name, 0700) < 0)
                                return -errno;
                        if ((r = warn(l, "created missing directory '%s'", next)) < 0)
                                return r;
                } else if (S_ISLNK(st.st_mode)) {
                        if (sandbox_writable_dir(l, cur))
                                return cordon_diag_set(l->diag, -ELOOP,
                                                       "blocked file '%s' (from %s) goes through "
                                                       "symlink '%s' in a directory the sandbox "
                                                       "can write; refusing to follow it",
                                                       abs, origin, next);
                        char *real = realpath(next, NULL);
                        if (!real)
                                return -errno;
                        free(next);
                        next = real;
                }
                int nd = openat(AT_FDCWD, next, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (nd < 0)
                        return -errno;
                safe_close(dir);
                dir = nd;
                free(cur);
                cur = TAKE_PTR(next);
                p = e;
        }
}

/* BLOCKED_FILES: a missing file is created as an empty placeholder so that it can be covered; if
 * that is impossible the run is refused rather than left unprotected. Runs once the read-write
 * binds are known, so placeholders never follow a symlink the sandbox could have planted. */
static int lower_blocked_files(struct lower *l)
{
        CORDON_LIST_FOREACH (it, &l->s->blocked_files) {
                _cleanup_free_ char *abs = NULL;
                int r = absolute(l, it->value, &abs);
                if (r < 0)
                        return cordon_diag_set(l->diag, r, "blocked file '%s' (from %s): %s",
                                               it->value, it->origin, strerror(-r));
                struct stat st;
                if (lstat(abs, &st) < 0) {
                        if (errno != ENOENT)
                                return cordon_diag_set(l->diag, -errno,
                                                       "blocked file '%s' (from %s): %m", abs,
                                                       it->origin);
                        r = create_placeholder(l, abs, it->origin);
                        if (r < 0) {
                                if (l->diag && *l->diag->message)
                                        return r;
                                return cordon_diag_set(
                                    l->diag, r,
                                    "cannot create a placeholder for blocked file '%s' (from "
                                    "%s): %s; refusing to run with it unprotected",
                                    abs, it->origin, strerror(-r));
                        }
                }
                _cleanup_free_ char *real = realpath(abs, NULL);
                if (!real)
                        return cordon_diag_set(l->diag, -errno, "blocked file '%s': %m", abs);
                if ((r = cordon_list_add_unique(&l->masks, real, it->origin)) < 0)
                        return r;
        }
        return 0;
}

/* EXTRA_BLOCKED_PATHS: hidden where they exist; a missing one has nothing to hide. */
static int lower_extra_blocked(struct lower *l)
{
        CORDON_LIST_FOREACH (it, &l->s->extra_blocked_paths) {
                _cleanup_free_ char *abs = NULL;
                int r = absolute(l, it->value, &abs);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return cordon_diag_set(l->diag, r, "blocked path '%s' (from %s): %s",
                                               it->value, it->origin, strerror(-r));
                _cleanup_free_ char *real = realpath(abs, NULL);
                if (!real)
                        continue;
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
static int lower_masks(struct lower *l)
{
        size_t n = l->p->n_fs;
        CORDON_LIST_FOREACH (m, &l->masks)
                for (size_t i = 0; i < n; i++) {
                        const struct cordon_fs_rule *r = &l->p->fs[i];
                        if (!r->host ||
                            !(cordon_access_is_bind(r->access) || r->access == CORDON_ACCESS_COPY))
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
                        int k = put(l, norm, NULL, CORDON_ACCESS_MASKED, 0, m->origin);
                        if (k < 0)
                                return k;
                }
        return 0;
}

static bool blacklisted(const struct cordon_settings *s, const char *path)
{
        CORDON_LIST_FOREACH (b, &s->devices_blacklist)
                if (fnmatch(b->value, path, 0) == 0 || path_is_below(path, b->value))
                        return true;
        return false;
}

static const struct cordon_settings *walk_settings;
static int walk_found;
static int walk_cb(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
        if (blacklisted(walk_settings, fpath) || S_ISBLK(sb->st_mode)) {
                walk_found = 1;
                return 1;
        }
        return 0;
}

static int lower_devices(struct lower *l)
{
        CORDON_LIST_FOREACH (it, &l->s->devices) {
                glob_t g = {0};
                int k = glob(it->value, GLOB_NOSORT, NULL, &g);
                if (k == GLOB_NOMATCH || (k == 0 && g.gl_pathc == 0)) {
                        globfree(&g);
                        if (!is_builtin(it->origin) &&
                            warn(l, "device '%s' (from %s) matches nothing", it->value,
                                 it->origin) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (k != 0) {
                        globfree(&g);
                        return -ENOMEM;
                }
                for (size_t i = 0; i < g.gl_pathc; i++) {
                        const char *m = g.gl_pathv[i];
                        _cleanup_free_ char *real = realpath(m, NULL);
                        struct stat st;
                        bool refuse = !real || !path_is_below(real, "/dev") ||
                                      streq(real, "/dev") || blacklisted(l->s, m) ||
                                      blacklisted(l->s, real) || stat(real, &st) < 0;
                        if (!refuse && S_ISDIR(st.st_mode)) {
                                walk_settings = l->s;
                                walk_found = 0;
                                nftw(real, walk_cb, 16, FTW_PHYS);
                                refuse = walk_found;
                        } else if (!refuse && !S_ISCHR(st.st_mode))
                                refuse = true; /* raw block devices bypass every file permission */
                        if (refuse) {
                                if (warn(l,
                                         "device '%s' (from %s) is blacklisted or not a device "
                                         "under /dev; not exposed",
                                         m, it->origin) < 0) {
                                        globfree(&g);
                                        return -ENOMEM;
                                }
                                continue;
                        }
                        k = put(l, real, real, CORDON_ACCESS_DEVICE, 0, it->origin);
                        if (k < 0) {
                                globfree(&g);
                                return k;
                        }
                }
                globfree(&g);
        }
        return 0;
}

static int lower_passwd(struct lower *l)
{
        const struct cordon_host *h = l->h;
        if (!l->s->filter_passwd || !cordon_policy_find_fs(l->p, "/etc"))
                return 0;
        _cleanup_free_ char *pw = NULL, *gr = NULL, *pw_out = NULL, *gr_out = NULL;
        _cleanup_free_ char *self_pw = NULL, *self_gr = NULL;
        int r = read_full_file(h->passwd_path ?: "/etc/passwd", 16u << 20, &pw, NULL);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "cannot read the passwd database: %s",
                                       strerror(-r));
        r = read_full_file(h->group_path ?: "/etc/group", 16u << 20, &gr, NULL);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "cannot read the group database: %s",
                                       strerror(-r));

        struct passwd *pwd = getpwuid(h->uid);
        if (pwd)
                r = asprintf(&self_pw, "%s:x:%u:%u:%s:%s:%s", pwd->pw_name, (unsigned)pwd->pw_uid,
                             (unsigned)pwd->pw_gid, strempty(pwd->pw_gecos), strempty(pwd->pw_dir),
                             strempty(pwd->pw_shell));
        else
                r = asprintf(&self_pw, "user:x:%u:%u::%s:/bin/sh", (unsigned)h->uid,
                             (unsigned)h->gid, l->home_guest ?: "/");
        if (r < 0)
                return -ENOMEM;
        struct group *grp = getgrgid(h->gid);
        if (asprintf(&self_gr, "%s:x:%u:", grp ? grp->gr_name : "user", (unsigned)h->gid) < 0)
                return -ENOMEM;
        if ((r = cordon_passwd_filter(pw, h->uid, self_pw, &pw_out)) < 0 ||
            (r = cordon_group_filter(gr, h->gid, self_gr, &gr_out)) < 0)
                return r;
        if ((r = put(l, "/etc/passwd", pw_out, CORDON_ACCESS_DATA, 0, "FILTER_PASSWD")) < 0 ||
            (r = put(l, "/etc/group", gr_out, CORDON_ACCESS_DATA, 0, "FILTER_PASSWD")) < 0 ||
            (r = put(l, "/etc/nsswitch.conf", cordon_nsswitch_files_only(), CORDON_ACCESS_DATA, 0,
                     "FILTER_PASSWD")) < 0)
                return r;
        return 0;
}

static int lower_env(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        struct cordon_env_rules *e = &l->p->env_rules;
        int r;
        if ((r = cordon_list_copy(&e->blocked_names, &s->blocked_env_vars)) < 0 ||
            (r = cordon_list_copy(&e->blocked_patterns, &s->blocked_env_patterns)) < 0 ||
            (r = cordon_list_copy(&e->allowed, &s->allowed_env_vars)) < 0)
                return r;
        CORDON_LIST_FOREACH (it, &s->sandbox_env) {
                const char *eq = strchr(it->value, '=');
                if (!eq || !cordon_env_name_is_valid(it->value, (size_t)(eq - it->value)))
                        return cordon_diag_set(l->diag, -EINVAL,
                                               "environment entry '%s' (from %s) is not NAME=VALUE",
                                               it->value, it->origin);
                if ((r = cordon_list_add(&e->set, it->value, it->origin)) < 0)
                        return r;
        }
        _cleanup_free_ char *pwd = NULL;
        if (asprintf(&pwd, "PWD=%s", strempty(l->p->cwd)) < 0)
                return -ENOMEM;
        if ((r = cordon_list_add(&e->set, "SANDBOX_ACTIVE=1", "cordon")) < 0 ||
            (r = cordon_list_add(&e->set, "SANDBOX_BACKEND=ns", "cordon")) < 0 ||
            (l->p->cwd && (r = cordon_list_add(&e->set, pwd, "cordon")) < 0))
                return r;
        r = cordon_env_filter(e, l->h->envp, &l->p->envp, &l->p->n_env_blocked);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "cannot build the environment: %s",
                                       strerror(-r));
        return 0;
}

static int lower_system(struct lower *l)
{
        int r;
        if (l->s->private_tmp)
                r = put(l, "/tmp", NULL, CORDON_ACCESS_TMPFS, 0, "PRIVATE_TMP");
        else
                r = put(l, "/tmp", "/tmp", CORDON_ACCESS_RW, 0, "PRIVATE_TMP");
        if (r < 0)
                return r;
        if ((r = put(l, "/dev", NULL, CORDON_ACCESS_DEV, 0, BUILTIN)) < 0 ||
            (r = put(l, "/proc", NULL, CORDON_ACCESS_PROC, 0, BUILTIN)) < 0)
                return r;
        if (!l->s->private_ipc &&
            (r = put(l, "/dev/shm", "/dev/shm", CORDON_ACCESS_RW, 0, "PRIVATE_IPC")) < 0)
                return r;
        /* Kernel knobs stay read-only even for root inside the user namespace. */
        static const char *const proc_ro[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
                                              "/proc/bus"};
        for (size_t i = 0; i < ELEMENTSOF(proc_ro); i++)
                if ((r = cordon_policy_add_fs(l->p, proc_ro[i], NULL, CORDON_ACCESS_RO,
                                              CORDON_FS_OPTIONAL, BUILTIN)) < 0)
                        return r;
        return 0;
}

/* A project inside a hidden path would be covered by the mask: refuse it instead. */
static int check_project_not_blocked(struct lower *l)
{
        CORDON_LIST_FOREACH (it, &l->masks)
                if (l->p->project_dir && path_is_below(l->p->project_dir, it->value))
                        return cordon_diag_set(l->diag, -EPERM,
                                               "project directory '%s' lies inside blocked path "
                                               "'%s' (from %s)",
                                               l->p->project_dir, it->value, it->origin);
        return 0;
}

/* READONLY_MOUNTS, either the built-in entries or the others: plain directories first, then
 * symlinks, so that a usr-merge link finds its target already bound. */
static int lower_readonly_mounts(struct lower *l, bool builtin)
{
        for (int pass = 0; pass < 2; pass++)
                CORDON_LIST_FOREACH (it, &l->s->readonly_mounts) {
                        struct stat st;
                        bool link = lstat(it->value, &st) == 0 && S_ISLNK(st.st_mode);
                        if (link != (pass == 1) || is_builtin(it->origin) != builtin)
                                continue;
                        int r = bind_same_path(l, it->value, CORDON_ACCESS_RO, it->origin,
                                               "READONLY_MOUNTS");
                        if (r < 0)
                                return r;
                }
        return 0;
}

int cordon_settings_lower(const struct cordon_settings *s, const struct cordon_host *h,
                          struct cordon_policy **ret, char ***ret_warnings,
                          struct cordon_diag *diag)
{
        struct lower l = {.s = s, .h = h, .diag = diag};
        int r;

        if (s->net_mode != CORDON_NET_ISOLATED) {
                r = cordon_diag_set(diag, -EOPNOTSUPP,
                                    "network mode '%s' is not supported yet; only 'isolated' is",
                                    cordon_net_mode_to_string(s->net_mode));
                goto fail;
        }
        l.p = cordon_policy_new();
        if (!l.p)
                return -ENOMEM;
        l.p->identity.uid = h->uid;
        l.p->identity.gid = h->gid;

        /* Built-in system paths, then the home directory, then what the user asked for, so an
         * explicit --ro or --rw of a path wins over the defaults for that same path. */
        if ((r = lower_readonly_mounts(&l, true)) < 0 || (r = lower_system(&l)) < 0 ||
            (r = lower_home(&l)) < 0 || (r = lower_readonly_mounts(&l, false)) < 0)
                goto fail;
        CORDON_LIST_FOREACH (it, &s->extra_writable_paths)
                if ((r = bind_same_path(&l, it->value, CORDON_ACCESS_RW, it->origin,
                                        "EXTRA_WRITABLE_PATHS")) < 0)
                        goto fail;
        /* Credential directories and placeholders come after every read-write bind is known, so
         * that "could the sandbox create this?" sees all of them. */
        if ((r = lower_project(&l)) < 0 || (r = lower_home_blocked(&l)) < 0 ||
            (r = lower_extra_blocked(&l)) < 0 || (r = lower_blocked_files(&l)) < 0 ||
            (r = check_project_not_blocked(&l)) < 0 || (r = lower_devices(&l)) < 0 ||
            (r = lower_passwd(&l)) < 0 || (r = lower_masks(&l)) < 0 || (r = lower_env(&l)) < 0)
                goto fail;
        if ((r = cordon_policy_set_hostname(l.p, "cordon")) < 0 ||
            (r = cordon_policy_set_net_mode(l.p, s->net_mode, BUILTIN)) < 0)
                goto fail;
        if ((r = cordon_policy_validate(l.p, diag)) < 0)
                goto fail;

        *ret = TAKE_PTR(l.p);
        if (ret_warnings)
                *ret_warnings = TAKE_PTR(l.warnings);
        r = 0;
fail:
        if (r == -ENOMEM && diag && !*diag->message)
                cordon_diag_set(diag, r, "out of memory");
        cordon_policy_free(l.p);
        strv_free(l.warnings);
        free(l.home_guest);
        free(l.home_real);
        cordon_list_clear(&l.masks);
        return r;
}
