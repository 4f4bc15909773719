/* Host actions of a policy: planned by lowering without touching the host, taken by the launcher
 * before the sandbox starts, each relative to a parent opened without following symlinks. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/resolve/host-action.h"
#include "lib/policy/policy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

static void action_clear(struct cordon_host_action *a)
{
        free(a->path);
        free(a->contents);
        free(a->reason);
        free(a->warning);
}

void cordon_host_actions_free(struct cordon_host_action *a, size_t n)
{
        for (size_t i = 0; i < n; i++)
                action_clear(&a[i]);
        free(a);
}

const struct cordon_host_action *cordon_policy_find_host_action(const struct cordon_policy *p,
                                                                const char *path)
{
        for (size_t i = 0; i < p->n_actions; i++)
                if (streq(p->actions[i].path, path))
                        return &p->actions[i];
        return NULL;
}

int cordon_policy_add_host_action(struct cordon_policy *p, enum cordon_host_action_kind kind,
                                  const char *path, mode_t mode, const char *contents,
                                  const char *reason, const char *warning)
{
        if (cordon_policy_find_host_action(p, path))
                return 0;
        struct cordon_host_action a = {
            .kind = kind,
            .path = strdup(path),
            .mode = mode,
            .contents = contents ? strdup(contents) : NULL,
            .reason = strdup(strempty(reason)),
            .warning = warning ? strdup(warning) : NULL,
        };
        struct cordon_host_action *n =
            !a.path || (contents && !a.contents) || !a.reason || (warning && !a.warning)
                ? NULL
                : reallocarray(p->actions, p->n_actions + 1, sizeof(*p->actions));
        if (!n) {
                action_clear(&a);
                return -ENOMEM;
        }
        p->actions = n;
        p->actions[p->n_actions++] = a;
        return 0;
}

/* Opens directory @path with no symlink followed in any component: resolving saw none there. */
static int open_parent(const char *path)
{
        struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
        return fd < 0 ? -errno : fd;
}

/* Takes action @a. Returns 1 when it created something, 0 when what it plans was already there,
 * or -errno. */
static int apply_one(const struct cordon_host_action *a)
{
        const char *slash = strrchr(a->path, '/');
        if (!slash || !slash[1] || a->path[0] != '/')
                return -EINVAL;
        _cleanup_free_ char *parent =
            slash == a->path ? strdup("/") : strndup(a->path, (size_t)(slash - a->path));
        if (!parent)
                return -ENOMEM;
        const char *name = slash + 1;
        _cleanup_close_ int dir = open_parent(parent);
        if (dir < 0)
                return dir;
        if (a->kind == CORDON_HOST_MKDIR) {
                if (mkdirat(dir, name, a->mode) == 0)
                        return 1;
        } else {
                _cleanup_close_ int f = openat(
                    dir, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, a->mode);
                if (f >= 0) {
                        int r = write_all(f, strempty(a->contents), strlen(strempty(a->contents)));
                        return r < 0 ? r : 1;
                }
        }
        if (errno != EEXIST)
                return -errno;
        /* Made meanwhile (another cordon starting on the same home or project): fine when it is
         * what was planned, which the rules were built on; a symlink or another kind is not. */
        struct stat st;
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        bool same = a->kind == CORDON_HOST_MKDIR ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
        return same ? 0 : -EEXIST;
}

int cordon_policy_apply(const struct cordon_policy *p, void (*warn)(void *, const char *),
                        void *userdata, struct cordon_diag *diag)
{
        for (size_t i = 0; i < p->n_actions; i++) {
                const struct cordon_host_action *a = &p->actions[i];
                int r = apply_one(a);
                if (r < 0) {
                        const char *why = r == -ELOOP    ? "a symlink is on its path now"
                                          : r == -EEXIST ? "something else is there now"
                                                         : strerror(-r);
                        return cordon_diag_set(diag, r, "cannot create '%s' (%s): %s", a->path,
                                               a->reason, why);
                }
                if (r > 0 && a->warning && warn)
                        warn(userdata, a->warning);
        }
        return 0;
}
