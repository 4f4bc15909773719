/* Files cordon writes on the host for a run: refused where a sandbox could forge them or could
 * have planted a link on their way, opened beneath their directory without following links. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/policy/output-file.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"

int cordon_path_find_link(const char *path, const char *cwd,
                          bool (*suspect)(const char *dir, const void *userdata),
                          const void *userdata, char **ret_link, char **ret_target)
{
        _cleanup_free_ char *cur = path_is_absolute(path) ? strdup("/")
                                   : cwd                  ? realpath(cwd, NULL)
                                                          : getcwd(NULL, 0);
        if (!cur)
                return path_is_absolute(path) ? -ENOMEM : 0;
        _cleanup_free_ char *rest = strdup(path);
        if (!rest)
                return -ENOMEM;
        for (unsigned links = 0;;) {
                const char *p = rest;
                while (*p == '/')
                        p++;
                if (!*p)
                        return 0;
                const char *e = strchrnul(p, '/');
                _cleanup_free_ char *name = strndup(p, (size_t)(e - p));
                _cleanup_free_ char *tail = strdup(e);
                if (!name || !tail)
                        return -ENOMEM;
                free(rest);
                rest = TAKE_PTR(tail);
                if (streq(name, "."))
                        continue;
                if (streq(name, "..")) {
                        char *slash = strrchr(cur, '/');
                        slash[slash == cur] = 0; /* cur is absolute and normalised */
                        continue;
                }
                _cleanup_free_ char *next = path_join(cur, name);
                if (!next)
                        return -ENOMEM;
                struct stat st;
                if (lstat(next, &st) < 0)
                        return 0;
                if (!S_ISLNK(st.st_mode)) {
                        free(cur);
                        cur = TAKE_PTR(next);
                        continue;
                }
                char target[PATH_MAX];
                ssize_t n = readlink(next, target, sizeof(target) - 1);
                if (n < 0)
                        return -errno;
                target[n] = 0;
                if (suspect(cur, userdata)) {
                        char *t = strdup(target);
                        if (!t)
                                return -ENOMEM;
                        *ret_link = TAKE_PTR(next);
                        *ret_target = t;
                        return 1;
                }
                if (++links > 40)
                        return -ELOOP;
                char *joined = NULL;
                if (asprintf(&joined, "%s%s", target, rest) < 0)
                        return -ENOMEM;
                free(rest);
                rest = joined;
                if (target[0] == '/')
                        strcpy(cur, "/");
        }
}

bool cordon_policy_could_write_dir(const struct cordon_policy *p, const char *dir)
{
        if (cordon_policy_writable_bind(p, dir))
                return true;
        for (char **h = p->link_homes; h && *h; h++)
                if (path_is_below(*h, dir))
                        return false;
        for (char **q = p->link_parents; q && *q; q++)
                if (path_is_below(dir, *q) && !streq(dir, *q))
                        return true;
        return false;
}

static bool could_write(const char *dir, const void *userdata)
{
        return cordon_policy_could_write_dir(userdata, dir);
}

/* The checks both kinds of output share; on success @ret_dir_fd is its directory, opened
 * without following links, and @ret_name the file's name in it. */
static int open_output_dir(const struct cordon_policy *p, const char *path, const char *variable,
                           int *ret_dir_fd, char **ret_name, struct cordon_diag *diag)
{
        const char *slash = strrchr(path, '/');
        const char *name = slash ? slash + 1 : path;
        if (!*name || streq(name, ".") || streq(name, ".."))
                return cordon_diag_set(diag, -EINVAL, "%s '%s' names no file", variable, path);
        _cleanup_free_ char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
        if (!dir)
                return -ENOMEM;
        /* The directories on the way; a link at the name itself is never followed (O_NOFOLLOW,
         * or replaced by rename). */
        _cleanup_free_ char *link = NULL, *target = NULL;
        int r = cordon_path_find_link(*dir ? dir : "/", NULL, could_write, p, &link, &target);
        if (r < 0)
                return cordon_diag_set(diag, r, "%s '%s': %s", variable, path, strerror(-r));
        if (r > 0)
                return cordon_diag_set(diag, -EPERM,
                                       "%s '%s' goes through symlink '%s' -> '%s' in a directory "
                                       "a sandbox can write; name a path without it",
                                       variable, path, link, target);
        _cleanup_free_ char *real = realpath(*dir ? dir : "/", NULL);
        if (!real)
                return cordon_diag_set(diag, -errno, "%s '%s': %m", variable, path);
        _cleanup_free_ char *full = path_join(real, name);
        if (!full)
                return -ENOMEM;
        const char *bind = cordon_policy_writable_bind(p, full);
        if (bind)
                return cordon_diag_set(diag, -EPERM,
                                       "%s '%s' lies in '%s', which the sandbox can write: it "
                                       "could replace the file, or plant a symlink there for "
                                       "cordon to write through; choose a path outside the "
                                       "sandbox's writable directories",
                                       variable, path, bind);
        /* The resolved directory holds no link now: one swapped in since is refused, not
         * followed. */
        struct open_how how = {
            .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
            .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        _cleanup_close_ int fd = (int)syscall(SYS_openat2, AT_FDCWD, real, &how, sizeof(how));
        if (fd < 0)
                return cordon_diag_set(diag, -errno, "%s '%s': %m", variable, path);
        char *n = strdup(name);
        if (!n)
                return -ENOMEM;
        *ret_dir_fd = TAKE_FD(fd);
        *ret_name = n;
        return 0;
}

_public_ int cordon_policy_open_output_dir(const struct cordon_policy *p, const char *path,
                                           const char *variable, int *ret_dir_fd, char **ret_name,
                                           struct cordon_diag *diag)
{
        if (!p || !path || !variable || !ret_dir_fd || !ret_name)
                return -EINVAL;
        return open_output_dir(p, path, variable, ret_dir_fd, ret_name, diag);
}

int cordon_policy_open_output_append(const struct cordon_policy *p, const char *path,
                                     const char *variable, int *ret_fd, struct cordon_diag *diag)
{
        _cleanup_close_ int dir_fd = -EBADF;
        _cleanup_free_ char *name = NULL;
        int r = open_output_dir(p, path, variable, &dir_fd, &name, diag);
        if (r < 0)
                return r;
        /* Appended to, never through a symlink, and only a regular file: a FIFO an earlier
         * sandbox left there would block the start forever, a device would take the lines
         * elsewhere. O_NONBLOCK keeps the open itself from waiting on a FIFO. */
        _cleanup_close_ int fd = openat(
            dir_fd, name,
            O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
        if (fd < 0)
                return cordon_diag_set(diag, -errno, "%s '%s': cannot open it for appending: %m",
                                       variable, path);
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return cordon_diag_set(diag, -EPERM, "%s '%s' is not a regular file", variable,
                                       path);
        *ret_fd = TAKE_FD(fd);
        return 0;
}
