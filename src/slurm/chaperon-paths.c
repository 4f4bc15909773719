/* The chaperon's second look at a path a submission names (chaperon.h): the checker judged it
 * lexically; here what is on the host is opened by descriptor, from the root it lies below, with
 * no symbolic link followed, so that a link the sandbox planted in its project (out.log ->
 * ~/.bashrc, a directory -> ~/.ssh) refuses the submission instead of leading Slurm, which
 * writes the job's files outside any sandbox, somewhere else. What changes after the check is
 * the residual race (docs/ARCHITECTURE.md, "The chaperon"). */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shared/fd-util.h"
#include "shared/path-util.h"
#include "slurm/chaperon.h"

/* The deepest root @path lies below (or is). */
static const char *root_of(const struct chaperon_config *c, const char *path)
{
        const char *best = NULL;
        const struct cordon_list *lists[] = {&c->write_roots, &c->read_roots};
        if (path_is_below(path, c->project))
                best = c->project;
        for (size_t k = 0; k < 2; k++)
                CORDON_LIST_FOREACH (it, lists[k]) {
                        if (path_is_below(path, it->value) &&
                            (!best || strlen(it->value) > strlen(best)))
                                best = it->value;
                }
        return best;
}

int chaperon_recheck_path(const void *userdata, const char *path, bool write)
{
        (void)write;
        const struct chaperon_config *c = userdata;
        const char *root = root_of(c, path);
        if (!root)
                return -EPERM; /* the checker let no such path through */
        _cleanup_close_ int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rfd < 0)
                return errno == ENOENT ? 0 : -errno;
        const char *rest = path + strlen(root);
        rest += strspn(rest, "/");
        if (!*rest)
                return 0;
        /* Up to the last component, or to the first holding a '%' pattern (its expansion is
         * Slurm's): those directories, then the last component itself, never a link. */
        _cleanup_free_ char *dirs = strdup(rest);
        if (!dirs)
                return -ENOMEM;
        char *pct = strchr(dirs, '%');
        char *last = NULL;
        if (pct) {
                char *slash = pct;
                while (slash > dirs && *slash != '/')
                        slash--;
                *slash = 0;
        } else {
                last = strrchr(dirs, '/');
                if (last)
                        *last++ = 0;
                else
                        last = dirs; /* the root itself holds it */
        }
        _cleanup_close_ int dfd = -EBADF;
        if (last == dirs || !*dirs)
                dfd = fcntl(rfd, F_DUPFD_CLOEXEC, 3);
        else {
                struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                                       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
                                                  RESOLVE_NO_MAGICLINKS};
                dfd = (int)syscall(SYS_openat2, rfd, dirs, &how, sizeof(how));
        }
        if (dfd < 0)
                return errno == ENOENT ? 0 : -errno; /* ELOOP: a link on the way */
        if (!last || !*last)
                return 0;
        struct stat st;
        if (fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        return S_ISLNK(st.st_mode) ? -ELOOP : 0;
}
