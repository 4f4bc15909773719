/* Opening a program the supervisor runs outside the sandbox so that only root could have chosen
 * it (host-program.h): the walk config-files.c makes for the admin baseline, following the
 * symlinks root owns, since packages install programs behind them (/usr/bin/pasta -> passt). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mech/host-program.h"
#include "lib/policy/diag.h"
#include "shared/macro.h"

/* Symlinks followed on one path, as the kernel's MAXSYMLINKS. */
#define LINKS_MAX 40

/* A directory on the way: root's and writable by nobody else, or root's and sticky (/tmp),
 * where nobody can rename or replace an entry they do not own. */
static int check_dir(int fd, const char *comp, const char *path, const char *variable,
                     struct cordon_diag *diag)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return cordon_diag_set(diag, -errno, "%s: program '%s': cannot check '%s': %m",
                                       variable, path, comp);
        if (st.st_uid != 0)
                return cordon_diag_set(diag, -EPERM,
                                       "%s: program '%s': directory '%s' on its path belongs to "
                                       "uid %u, not root: whoever owns it could replace the "
                                       "program cordon runs outside the sandbox",
                                       variable, path, comp, (unsigned)st.st_uid);
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
                return cordon_diag_set(diag, -EPERM,
                                       "%s: program '%s': directory '%s' on its path is writable "
                                       "by group or others (mode %04o): they could replace the "
                                       "program cordon runs outside the sandbox",
                                       variable, path, comp, (unsigned)(st.st_mode & 07777));
        return 0;
}

static int open_root(const char *path, const char *variable, struct cordon_diag *diag)
{
        int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return cordon_diag_set(diag, -errno, "%s: cannot open /: %m", variable);
        int r = check_dir(fd, "/", path, variable, diag);
        if (r < 0) {
                safe_close(fd);
                return r;
        }
        return fd;
}

int cordon_host_program_open(const char *path, const char *variable, int *ret_fd,
                             struct cordon_diag *diag)
{
        if (!path || path[0] != '/')
                return cordon_diag_set(diag, -EINVAL, "%s: program '%s' is not an absolute path",
                                       variable, strempty(path));
        /* What is left to walk: the path, then each link's target in front of its rest. */
        _cleanup_free_ char *rest = strdup(path);
        if (!rest)
                return -ENOMEM;
        _cleanup_close_ int dfd = open_root(path, variable, diag);
        if (dfd < 0)
                return dfd;
        unsigned links = 0;
        for (;;) {
                char *p = rest + strspn(rest, "/");
                if (!*p)
                        return cordon_diag_set(diag, -EPERM,
                                               "%s: program '%s' is a directory, not a file",
                                               variable, path);
                size_t n = strcspn(p, "/");
                char comp[NAME_MAX + 1];
                if (n > NAME_MAX)
                        return cordon_diag_set(diag, -ENAMETOOLONG, "%s: program '%s': %s",
                                               variable, path, strerror(ENAMETOOLONG));
                memcpy(comp, p, n);
                comp[n] = 0;
                memmove(rest, p + n, strlen(p + n) + 1);
                bool last = rest[strspn(rest, "/")] == 0;
                if (streq(comp, ".") && !last)
                        continue;
                /* "..": its directory is checked like any other. */
                _cleanup_close_ int fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return cordon_diag_set(diag, -errno, "%s: program '%s': '%s': %m", variable,
                                               path, comp);
                struct stat st;
                if (fstat(fd, &st) < 0)
                        return cordon_diag_set(diag, -errno, "%s: program '%s': '%s': %m", variable,
                                               path, comp);
                if (S_ISLNK(st.st_mode)) {
                        /* A link in a directory root alone can write is root's choice; a link
                         * someone else owns in a sticky one (/tmp) is theirs. */
                        if (st.st_uid != 0)
                                return cordon_diag_set(diag, -EPERM,
                                                       "%s: program '%s': symlink '%s' on its "
                                                       "path belongs to uid %u, not root",
                                                       variable, path, comp, (unsigned)st.st_uid);
                        if (++links > LINKS_MAX)
                                return cordon_diag_set(diag, -EPERM,
                                                       "%s: program '%s': too many symlinks",
                                                       variable, path);
                        char target[PATH_MAX];
                        ssize_t k = readlinkat(fd, "", target, sizeof(target) - 1);
                        if (k <= 0)
                                return cordon_diag_set(diag, k < 0 ? -errno : -ENOENT,
                                                       "%s: program '%s': cannot read symlink "
                                                       "'%s'",
                                                       variable, path, comp);
                        target[k] = 0;
                        char *joined = NULL;
                        if (asprintf(&joined, "%s/%s", target, rest) < 0)
                                return -ENOMEM;
                        free(rest);
                        rest = joined;
                        if (strlen(rest) > PATH_MAX)
                                return cordon_diag_set(diag, -ENAMETOOLONG, "%s: program '%s': %s",
                                                       variable, path, strerror(ENAMETOOLONG));
                        if (target[0] == '/') {
                                safe_close(dfd);
                                if ((dfd = open_root(path, variable, diag)) < 0)
                                        return dfd;
                        }
                        continue;
                }
                if (S_ISDIR(st.st_mode) && !last) {
                        int r = check_dir(fd, comp, path, variable, diag);
                        if (r < 0)
                                return r;
                        safe_close(dfd);
                        dfd = TAKE_FD(fd);
                        continue;
                }
                if (!last)
                        return cordon_diag_set(diag, -ENOTDIR, "%s: program '%s': '%s': %s",
                                               variable, path, comp, strerror(ENOTDIR));
                if (!S_ISREG(st.st_mode))
                        return cordon_diag_set(
                            diag, -EPERM, "%s: program '%s' is not a regular file", variable, path);
                if (st.st_uid != 0)
                        return cordon_diag_set(diag, -EPERM,
                                               "%s: program '%s' belongs to uid %u, not root: "
                                               "cordon runs it outside the sandbox, so it must "
                                               "be root's (a sandbox could have written it)",
                                               variable, path, (unsigned)st.st_uid);
                if (st.st_mode & (S_IWGRP | S_IWOTH))
                        return cordon_diag_set(diag, -EPERM,
                                               "%s: program '%s' is writable by group or others "
                                               "(mode %04o): cordon runs it outside the "
                                               "sandbox, so only root may write it",
                                               variable, path, (unsigned)(st.st_mode & 07777));
                *ret_fd = TAKE_FD(fd);
                return 0;
        }
}
