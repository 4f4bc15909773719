/* Resolving without touching the host: what lowering would have created becomes a host action
 * of the policy, and the checks that follow see a planned entry as if it were there already. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/resolve/lower-internal.h"
#include "shared/macro.h"
#include "shared/path-util.h"

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

char *cordon_lower_realpath(const struct lower *l, const char *path)
{
        char *real = realpath(path, NULL);
        if (real || errno != ENOENT || l->p->n_actions == 0)
                return real;
        _cleanup_free_ char *prefix = strdup(path);
        if (!prefix)
                return NULL;
        /* The longest part that exists, then the rest, which the plan must hold. */
        for (char *slash; (slash = strrchr(prefix, '/'));) {
                *slash = 0;
                char *base = realpath(*prefix ? prefix : "/", NULL);
                if (base)
                        return join_planned(l, base, path + (slash - prefix));
                if (errno != ENOENT)
                        return NULL;
        }
        errno = ENOENT;
        return NULL;
}

int cordon_lower_lstat(const struct lower *l, const char *path, struct stat *ret)
{
        if (lstat(path, ret) == 0)
                return 0;
        int e = errno;
        if (e == ENOENT && l->p->n_actions > 0) {
                const struct cordon_host_action *a = cordon_policy_find_host_action(l->p, path);
                if (!a) {
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
