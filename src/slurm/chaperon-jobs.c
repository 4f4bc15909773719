/* The chaperon's registry of the jobs sandboxes submitted (SLURM_SCOPE session and project): one
 * line per job, "ID<TAB>SESSION<TAB>PROJECT", appended under an flock() in jobs.tsv of the
 * chaperon's state directory (the log's, 0700 and the user's own). Nothing of a sandbox's
 * writes it: only the chaperon, after sbatch said which id it got. Once it passes
 * REGISTRY_ROTATE, the add that meets it keeps the newest half of the lines (the oldest jobs
 * have long ended), written to a new file renamed over it, all under the lock of jobs.lock. */
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

#define REGISTRY        "jobs.tsv"
#define REGISTRY_NEW    "jobs.tsv.new"
#define REGISTRY_LOCK   "jobs.lock"
#define REGISTRY_MAX    (16u * 1024 * 1024)
#define REGISTRY_ROTATE (REGISTRY_MAX / 2)
#define IDS_MAX         100000u

static int open_in_state(const struct chaperon_config *c, const char *name, int flags)
{
        char err[256];
        _cleanup_close_ int dfd =
            dir_open_owned(AT_FDCWD, c->state_dir, DIR_OPEN_CREATE | DIR_OPEN_PRIVATE, c->state_dir,
                           err, sizeof(err));
        if (dfd < 0)
                return dfd;
        /* Non-blocking: a FIFO put there fails its checks below rather than hang the open. */
        int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
                close(fd);
                return -EPERM;
        }
        return fd;
}

static int open_registry(const struct chaperon_config *c, int flags)
{
        return open_in_state(c, REGISTRY, flags);
}

/* Keeps the newest half of the registry's lines: a new file renamed over it. Called with the
 * lock file held. */
static int rotate(const struct chaperon_config *c, int fd)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        if (lseek(fd, 0, SEEK_SET) < 0)
                return -errno;
        int r = read_full_fd(fd, REGISTRY_MAX, &text, &len);
        if (r < 0)
                return r;
        const char *keep = text + len / 2;
        const char *nl = memchr(keep, '\n', len - (size_t)(keep - text));
        keep = nl ? nl + 1 : text + len;
        char err[256];
        _cleanup_close_ int dfd = dir_open_owned(AT_FDCWD, c->state_dir, DIR_OPEN_PRIVATE,
                                                 c->state_dir, err, sizeof(err));
        if (dfd < 0)
                return dfd;
        (void)unlinkat(dfd, REGISTRY_NEW, 0);
        _cleanup_close_ int nfd =
            openat(dfd, REGISTRY_NEW, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (nfd < 0)
                return -errno;
        r = write_all(nfd, keep, len - (size_t)(keep - text));
        if (r < 0 || renameat(dfd, REGISTRY_NEW, dfd, REGISTRY) < 0) {
                r = r < 0 ? r : -errno;
                (void)unlinkat(dfd, REGISTRY_NEW, 0);
                return r;
        }
        return 0;
}

int chaperon_jobs_add(const struct chaperon_config *c, uint32_t id)
{
        if (strpbrk(c->project, "\t\n") || strpbrk(c->session, "\t\n"))
                return -EINVAL;
        /* Writers take the lock file, so that a rotation's rename cannot strand an append on
         * the file it replaced; readers lock the registry itself (shared). */
        _cleanup_close_ int lock = open_in_state(c, REGISTRY_LOCK, O_RDONLY | O_CREAT);
        if (lock < 0)
                return lock;
        if (flock(lock, LOCK_EX) < 0)
                return -errno;
        _cleanup_close_ int fd = open_registry(c, O_RDWR | O_APPEND | O_CREAT);
        if (fd < 0)
                return fd;
        if (flock(fd, LOCK_EX) < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if ((uint64_t)st.st_size > REGISTRY_MAX)
                return -EFBIG;
        if ((uint64_t)st.st_size >= REGISTRY_ROTATE) {
                int r = rotate(c, fd);
                if (r < 0)
                        return r;
                fd = safe_close(fd);
                if ((fd = open_registry(c, O_RDWR | O_APPEND)) < 0)
                        return fd;
                if (flock(fd, LOCK_EX) < 0)
                        return -errno;
        }
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
        size_t n = 0, cap = 0;
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
                if (n == cap) {
                        /* doubled, up to IDS_MAX: one copy per id was quadratic */
                        size_t want = cap ? cap * 2 : 64;
                        if (want > IDS_MAX)
                                want = IDS_MAX;
                        uint32_t *m = realloc(ids, want * sizeof(*ids));
                        if (!m)
                                return -ENOMEM;
                        ids = m;
                        cap = want;
                }
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
