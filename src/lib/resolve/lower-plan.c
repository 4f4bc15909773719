/* Resolving without touching the host: what lowering would have created becomes a host action
 * of the policy, and the checks that follow see a planned entry as if it were there already.
 * Also the cheap ways resolve looks at the host: a realpath through the directories already
 * known, and a directory read into a stack buffer. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/resolve/lower-internal.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

int cordon_lower_plan(struct lower *l, enum cordon_host_action_kind kind, const char *path,
                      mode_t mode, const char *contents, const char *reason, const char *warning)
{
        return cordon_policy_add_host_action(l->p, kind, path, mode, contents, reason, warning);
}

/* Appends the components of @rest to @base (a realpath, taken), each of them planned: a path
 * that exists only in the plan. NULL with errno ENOENT when one is not planned. */
static char *join_planned(const struct lower *l, char *base, const char *rest)
{
        _cleanup_free_ char *cur = base;
        for (const char *p = rest;;) {
                while (*p == '/')
                        p++;
                if (!*p)
                        return TAKE_PTR(cur);
                const char *e = strchrnul(p, '/');
                _cleanup_free_ char *name = strndup(p, (size_t)(e - p));
                if (!name)
                        return NULL;
                if (streq(name, "."))
                        goto next;
                char *joined = streq(name, "..") ? NULL : path_join(cur, name);
                const struct cordon_host_action *a =
                    joined ? cordon_policy_find_host_action(l->p, joined) : NULL;
                free(cur);
                cur = joined;
                if (!a || (*e && a->kind != CORDON_HOST_MKDIR)) {
                        errno = !a ? ENOENT : ENOTDIR;
                        return NULL;
                }
        next:
                p = e;
        }
}

static uint64_t path_hash(const char *path)
{
        uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
        for (const unsigned char *c = (const unsigned char *)path; *c; c++)
                h = (h ^ *c) * 0x100000001b3ULL;
        return h;
}

static struct lower_stat_slot *stat_slot(const struct lower_stat_cache *c, const char *path,
                                         uint64_t h)
{
        size_t mask = c->n_slots - 1;
        struct lower_stat_slot *s = &c->slots[h & mask];
        while (s->e && (s->hash != h || !streq(s->e->path, path)))
                s = &c->slots[(size_t)(s - c->slots + 1) & mask];
        return s;
}

/* Keeps @err and @st for @path; a full cache grows, and one that cannot just forgets. */
static void stat_keep(struct lower_stat_cache *c, const char *path, uint64_t h, int err,
                      const struct stat *st)
{
        if (2 * (c->n + 1) > c->n_slots) {
                size_t n_slots = c->n_slots ? 2 * c->n_slots : 64;
                struct lower_stat_slot *slots = calloc(n_slots, sizeof(*slots));
                if (!slots)
                        return;
                struct lower_stat_cache grown = {.slots = slots, .n_slots = n_slots, .n = c->n};
                for (size_t i = 0; i < c->n_slots; i++)
                        if (c->slots[i].e)
                                *stat_slot(&grown, c->slots[i].e->path, c->slots[i].hash) =
                                    c->slots[i];
                free(c->slots);
                *c = grown;
        }
        size_t len = strlen(path);
        struct lower_stat_entry *e = malloc(sizeof(*e) + len + 1);
        if (!e)
                return;
        e->err = err;
        if (!err)
                e->st = *st;
        memcpy(e->path, path, len + 1);
        *stat_slot(c, path, h) = (struct lower_stat_slot){.hash = h, .e = e};
        c->n++;
}

int cordon_lower_host_lstat(const struct lower *l, const char *path, struct stat *ret)
{
        struct lower_stat_cache *c = l->stats;
        if (!c)
                return lstat(path, ret);
        uint64_t h = path_hash(path);
        if (c->n_slots) {
                const struct lower_stat_entry *e = stat_slot(c, path, h)->e;
                if (e) {
                        if (e->err) {
                                errno = e->err;
                                return -1;
                        }
                        *ret = e->st;
                        return 0;
                }
        }
        int r = lstat(path, ret);
        int err = r < 0 ? errno : 0;
        /* Only answers about the path itself: not a lack of memory or of a descriptor. */
        if (r == 0 || err == ENOENT || err == ENOTDIR || err == EACCES || err == ELOOP ||
            err == ENAMETOOLONG)
                stat_keep(c, path, h, err, ret);
        errno = err;
        return r;
}

void cordon_lower_stat_cache_clear(struct lower_stat_cache *c)
{
        for (size_t i = 0; i < c->n_slots; i++)
                free(c->slots[i].e);
        free(c->slots);
        *c = (struct lower_stat_cache){0};
}

/* The longest directory of @cache that @path (normalised) lies at or below, as a length; 0 for
 * none. */
static size_t known_prefix(const struct lower_real_dirs *cache, const char *path)
{
        size_t best = 0;
        STRV_FOREACH (d, cache->dirs) {
                size_t n = strlen(*d);
                if (n > best && strncmp(path, *d, n) == 0 && (path[n] == '/' || !path[n]))
                        best = n;
        }
        return best;
}

/* @last, when not NULL, is what lstat() said of @path itself a moment ago (never a planned
 * entry's made-up stat): it stands in for the lstat() of the final component. */
static char *host_realpath(const struct lower *l, const char *path, unsigned links,
                           const struct stat *last)
{
        _cleanup_free_ char *norm = NULL;
        /* Only paths already in normal form: "." or a trailing '/' after a file, "..", and
         * doubled slashes keep glibc's answer. */
        if (!l->real_dirs || !path_is_absolute(path) || path_normalize(path, &norm) < 0 ||
            !streq(norm, path))
                return realpath(path, NULL);
        size_t known = known_prefix(l->real_dirs, norm);
        if (streq(norm, "/") || !norm[known])
                return TAKE_PTR(norm);
        for (char *c = norm + known + 1;; c++) {
                if (*c && *c != '/')
                        continue;
                char saved = *c;
                *c = 0;
                struct stat st;
                if (!saved && last)
                        st = *last;
                else if (cordon_lower_host_lstat(l, norm, &st) < 0)
                        return NULL; /* errno as realpath() gives it: ENOENT, ENOTDIR, EACCES */
                if (S_ISLNK(st.st_mode)) {
                        /* Followed as the kernel would: its target, from the directory that
                         * holds it (a realpath), then the rest. */
                        char target[PATH_MAX];
                        ssize_t n = readlink(norm, target, sizeof(target) - 1);
                        if (n < 0)
                                return NULL;
                        if ((size_t)n >= sizeof(target) - 1)
                                return realpath(path, NULL); /* maybe cut short: glibc's say */
                        target[n] = 0;
                        if (++links > 40) {
                                errno = ELOOP;
                                return NULL;
                        }
                        char *slash = strrchr(norm, '/');
                        *slash = 0;
                        _cleanup_free_ char *next = NULL;
                        if (asprintf(&next, "%s/%s%s%s", target[0] == '/' ? "" : norm, target,
                                     saved ? "/" : "", saved ? c + 1 : "") < 0) {
                                errno = ENOMEM;
                                return NULL;
                        }
                        _cleanup_free_ char *next_norm = NULL;
                        if (path_normalize(next, &next_norm) < 0)
                                return realpath(next, NULL); /* ".." in the target */
                        return host_realpath(l, next_norm, links, NULL);
                }
                if (S_ISDIR(st.st_mode) && strv_extend(&l->real_dirs->dirs, norm) < 0) {
                        errno = ENOMEM;
                        return NULL;
                }
                if (!saved)
                        return TAKE_PTR(norm);
                if (!S_ISDIR(st.st_mode)) {
                        errno = ENOTDIR;
                        return NULL;
                }
                *c = saved;
        }
}

char *cordon_lower_host_realpath(const struct lower *l, const char *path)
{
        return host_realpath(l, path, 0, NULL);
}

char *cordon_lower_parent_realpath(const struct lower *l, const char *value)
{
        _cleanup_free_ char *expanded = NULL;
        int r = cordon_settings_expand_home(value, l->s->home, &expanded);
        if (r <= 0) {
                errno = r < 0 ? -r : ENOENT;
                return NULL;
        }
        return cordon_lower_host_realpath(l, expanded);
}

char *cordon_lower_realpath(const struct lower *l, const char *path)
{
        return cordon_lower_realpath_lstated(l, path, NULL);
}

char *cordon_lower_realpath_lstated(const struct lower *l, const char *path, const struct stat *st)
{
        char *real = host_realpath(l, path, 0, st);
        if (real || errno != ENOENT || l->p->n_actions == 0)
                return real;
        _cleanup_free_ char *prefix = strdup(path);
        if (!prefix)
                return NULL;
        /* The longest part that exists, then the rest, which the plan must hold. */
        for (char *slash; (slash = strrchr(prefix, '/'));) {
                *slash = 0;
                char *base = cordon_lower_host_realpath(l, *prefix ? prefix : "/");
                if (base)
                        return join_planned(l, base, path + (slash - prefix));
                if (errno != ENOENT)
                        return NULL;
        }
        errno = ENOENT;
        return NULL;
}

/* True when @path is absolute and normal and its parent a directory of the realpath cache. */
static bool parent_is_real(const struct lower *l, const char *path)
{
        const char *slash = strrchr(path, '/');
        if (!l->real_dirs || !path_is_normal(path) || slash == path)
                return false;
        size_t n = (size_t)(slash - path);
        STRV_FOREACH (d, l->real_dirs->dirs)
                if (strlen(*d) == n && memcmp(*d, path, n) == 0)
                        return true;
        return false;
}

int cordon_lower_lstat(const struct lower *l, const char *path, struct stat *ret)
{
        if (cordon_lower_host_lstat(l, path, ret) == 0)
                return 0;
        int e = errno;
        if (e == ENOENT && l->p->n_actions > 0) {
                const struct cordon_host_action *a = cordon_policy_find_host_action(l->p, path);
                /* In a directory known to be its own realpath, @path is its own as well: the
                 * lookup above was the one a realpath would make. */
                if (!a && !parent_is_real(l, path)) {
                        _cleanup_free_ char *real = cordon_lower_realpath(l, path);
                        a = real ? cordon_policy_find_host_action(l->p, real) : NULL;
                }
                if (a) {
                        *ret = (struct stat){
                            .st_mode = (a->kind == CORDON_HOST_MKDIR ? S_IFDIR : S_IFREG) | a->mode,
                            .st_nlink = 1,
                        };
                        return 0;
                }
        }
        errno = e;
        return -1;
}

int cordon_lower_plan_mkdir_p(struct lower *l, const char *path, const char *reason)
{
        _cleanup_free_ char *norm = NULL;
        int r = path_normalize(path, &norm);
        if (r < 0)
                return r;
        _cleanup_free_ char *prefix = strdup(norm);
        if (!prefix)
                return -ENOMEM;
        /* As mkdir -p: the part that exists is followed where it leads, the rest is made. */
        struct stat st;
        while (cordon_lower_lstat(l, prefix, &st) < 0) {
                if (errno != ENOENT)
                        return -errno;
                char *slash = strrchr(prefix, '/');
                if (!slash || slash == prefix) {
                        prefix[1] = 0;
                        break;
                }
                *slash = 0;
        }
        _cleanup_free_ char *cur = cordon_lower_realpath(l, prefix);
        if (!cur)
                return -errno;
        if (cordon_lower_lstat(l, cur, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        for (const char *p = norm + (streq(prefix, "/") ? 0 : strlen(prefix));;) {
                while (*p == '/')
                        p++;
                if (!*p)
                        return 0;
                const char *e = strchrnul(p, '/');
                _cleanup_free_ char *name = strndup(p, (size_t)(e - p));
                char *next = name ? path_join(cur, name) : NULL;
                if (!next)
                        return -ENOMEM;
                free(cur);
                cur = next;
                if ((r = cordon_lower_plan(l, CORDON_HOST_MKDIR, cur, 0700, NULL, reason, NULL)) <
                    0)
                        return r;
                p = e;
        }
}

int cordon_lower_read_dir(const char *dir, off_t max_size,
                          int (*fn)(const char *name, void *userdata), void *userdata)
{
        _cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (max_size > 0 && (fstat(fd, &st) < 0 || st.st_size > max_size))
                return -EFBIG;
        /* On the stack: opendir() would malloc() 32 KiB and fstat() the directory first. */
        _Alignas(struct dirent64) char buf[8192];
        for (;;) {
                ssize_t n = getdents64(fd, buf, sizeof(buf));
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return 0;
                for (ssize_t off = 0; off < n;) {
                        const struct dirent64 *de = (const struct dirent64 *)(buf + off);
                        off += de->d_reclen;
                        int r = fn(de->d_name, userdata);
                        if (r != 0)
                                return r;
                }
        }
}
