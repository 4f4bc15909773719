/* The chaperon's registry of the jobs sandboxes submitted (SLURM_SCOPE session and project): one
 * line per job, "ID<TAB>SESSION<TAB>PROJECT", appended under an flock() in jobs.tsv of the
 * chaperon's state directory (the log's, 0700 and the user's own). Nothing of a sandbox's
 * writes it: only the chaperon, after sbatch said which id it got. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/fd-util.h"
#include "slurm/chaperon.h"

#define REGISTRY     "jobs.tsv"
#define REGISTRY_MAX (16u * 1024 * 1024)
#define IDS_MAX      100000u

static int open_registry(const struct chaperon_config *c, int flags)
{
        char err[256];
        _cleanup_close_ int dfd =
            dir_open_owned(AT_FDCWD, c->state_dir, DIR_OPEN_CREATE | DIR_OPEN_PRIVATE, c->state_dir,
                           err, sizeof(err));
        if (dfd < 0)
                return dfd;
        int fd = openat(dfd, REGISTRY, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
                close(fd);
                return -EPERM;
        }
        return fd;
}

int chaperon_jobs_add(const struct chaperon_config *c, uint32_t id)
{
        if (strpbrk(c->project, "\t\n") || strpbrk(c->session, "\t\n"))
                return -EINVAL;
        _cleanup_close_ int fd = open_registry(c, O_WRONLY | O_APPEND | O_CREAT);
        if (fd < 0)
                return fd;
        if (flock(fd, LOCK_EX) < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if ((uint64_t)st.st_size > REGISTRY_MAX)
                return -EFBIG;
        char *line = NULL;
        int n = asprintf(&line, "%u\t%s\t%s\n", id, c->session, c->project);
        if (n < 0)
                return -ENOMEM;
        int r = write_all(fd, line, (size_t)n);
        free(line);
        return r;
}

static int cmp_u32(const void *a, const void *b)
{
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? -1 : x > y;
}

int chaperon_jobs_in_scope(const struct chaperon_config *c, uint32_t **ret, size_t *ret_n)
{
        *ret = NULL;
        *ret_n = 0;
        _cleanup_close_ int fd = open_registry(c, O_RDONLY);
        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return fd;
        if (flock(fd, LOCK_SH) < 0)
                return -errno;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_full_fd(fd, REGISTRY_MAX, &text, &len);
        if (r < 0)
                return r;
        _cleanup_free_ uint32_t *ids = NULL;
        size_t n = 0;
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (!next)
                        break; /* a line being written */
                *next++ = 0;
                char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
                if (!t2)
                        continue;
                *t1 = *t2 = 0;
                const char *session = t1 + 1, *project = t2 + 1;
                bool in = c->scope == 0 ? streq(session, c->session) : streq(project, c->project);
                char *end = NULL;
                unsigned long id = strtoul(line, &end, 10);
                if (!in || *end || end == line || id == 0 || id > UINT32_MAX)
                        continue;
                if (n >= IDS_MAX)
                        return -E2BIG;
                uint32_t *m = realloc(ids, (n + 1) * sizeof(*ids));
                if (!m)
                        return -ENOMEM;
                ids = m;
                ids[n++] = (uint32_t)id;
        }
        if (n) {
                qsort(ids, n, sizeof(*ids), cmp_u32);
                size_t k = 1;
                for (size_t i = 1; i < n; i++)
                        if (ids[i] != ids[k - 1])
                                ids[k++] = ids[i];
                n = k;
        }
        *ret = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}
