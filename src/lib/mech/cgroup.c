/* Operations on cgroupfs directories, the same for v1 and v2: control files, the sandbox's leaf,
 * killing everything inside it, and removing it. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/mech/cgroup.h"
#include "lib/mech/res-limits.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

/* Sub-cgroups deeper than this below the sandbox's leaf are not walked. */
#define MAX_DEPTH 32
/* Processes signalled per round of the kill loop. */
#define KILL_BATCH 1024

static int join(const char *dir, const char *file, char *buf, size_t n)
{
        int k = snprintf(buf, n, "%s/%s", streq(dir, "/") ? "" : dir, file);
        return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

static void sleep_ms(long ms)
{
        struct timespec ts = {.tv_sec = 0, .tv_nsec = ms * 1000000L};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

int cordon_cgroup_read(const char *dir, const char *file, char **ret)
{
        char path[CORDON_LIMITS_PATH_MAX];
        int r = join(dir, file, path, sizeof(path));
        if (r < 0)
                return r;
        return read_full_file(path, 1 << 20, ret, NULL);
}

int cordon_cgroup_write(const char *dir, const char *file, const char *value, bool create)
{
        char path[CORDON_LIMITS_PATH_MAX];
        int r = join(dir, file, path, sizeof(path));
        if (r < 0)
                return r;
        _cleanup_close_ int fd =
            open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | (create ? O_CREAT : 0), 0644);
        if (fd < 0)
                return -errno;
        /* One write(): cgroupfs parses every write on its own, so a value must not be split. */
        size_t len = strlen(value);
        ssize_t k = write(fd, value, len);
        if (k < 0)
                return -errno;
        return (size_t)k == len ? 0 : -EIO;
}

static bool is_digit_(char c)
{
        return c >= '0' && c <= '9';
}

int cordon_cgroup_read_key(const char *dir, const char *file, const char *key,
                           unsigned long long *ret)
{
        _cleanup_free_ char *text = NULL;
        int r = cordon_cgroup_read(dir, file, &text);
        if (r < 0)
                return r;
        size_t l = key ? strlen(key) : 0;
        for (const char *line = text; *line;) {
                if (!key || (strncmp(line, key, l) == 0 && line[l] == ' ')) {
                        const char *num = key ? line + l + 1 : line;
                        char *end;
                        errno = 0;
                        unsigned long long v = strtoull(num, &end, 10);
                        if (errno != 0 || end == num || !is_digit_(*num) || (*end && *end != '\n'))
                                return -EINVAL;
                        *ret = v;
                        return 0;
                }
                line = strchrnul(line, '\n');
                line += *line == '\n';
        }
        return -ENOENT;
}

bool cordon_cgroup_has_procs(const char *dir)
{
        _cleanup_free_ char *text = NULL;
        if (cordon_cgroup_read(dir, "cgroup.procs", &text) < 0)
                return false;
        return text[strspn(text, " \n")] != 0;
}

int cordon_cgroup_make_leaf(const char *parent, char *ret, size_t n)
{
        static atomic_uint seq;
        char name[64];
        snprintf(name, sizeof(name), "cordon-%d-%u", (int)getpid(), atomic_fetch_add(&seq, 1));
        int r = join(parent, name, ret, n);
        if (r < 0)
                return r;
        if (mkdir(ret, 0755) == 0)
                return 0;
        if (errno != EEXIST)
                return -errno;
        /* Same pid and counter: left behind by an earlier process whose pid we now have. rmdir()
         * only succeeds on an empty cgroup, so nothing alive is disturbed. */
        if (rmdir(ret) < 0 || mkdir(ret, 0755) < 0)
                return -errno;
        return 0;
}

/* A growable list of pids. */
struct pids {
        pid_t *v;
        size_t n, cap;
};

static int pids_add(struct pids *p, pid_t pid)
{
        if (p->n == p->cap) {
                size_t cap = p->cap ? p->cap * 2 : 64;
                pid_t *v = reallocarray(p->v, cap, sizeof(pid_t));
                if (!v)
                        return -ENOMEM;
                p->v = v;
                p->cap = cap;
        }
        p->v[p->n++] = pid;
        return 0;
}

static int cmp_pid(const void *a, const void *b)
{
        pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
        return (x > y) - (x < y);
}

/* Appends the processes of @dir and of its sub-cgroups to @p. */
static int collect(const char *dir, unsigned depth, struct pids *p)
{
        _cleanup_free_ char *text = NULL;
        int r = cordon_cgroup_read(dir, "cgroup.procs", &text);
        if (r == -ENOENT && depth > 0)
                return 0; /* a sub-cgroup removed meanwhile */
        if (r < 0)
                return r;
        for (char *s = text, *end; *s; s = end) {
                s += strspn(s, " \n");
                if (!*s)
                        break;
                long v = strtol(s, &end, 10);
                if (end == s || v <= 0 || v > INT32_MAX)
                        return -EINVAL;
                r = pids_add(p, (pid_t)v);
                if (r < 0)
                        return r;
        }
        if (depth >= MAX_DEPTH)
                return 0;
        DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT && depth > 0 ? 0 : -errno;
        r = 0;
        for (struct dirent *de; r >= 0 && (de = readdir(d));) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                char sub[CORDON_LIMITS_PATH_MAX];
                r = join(dir, de->d_name, sub, sizeof(sub));
                if (r >= 0)
                        r = collect(sub, depth + 1, p);
        }
        closedir(d);
        return r;
}

static int pidfd_open_(pid_t pid)
{
        return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int pidfd_kill(int pidfd)
{
        return (int)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
}

/* One round: SIGKILL to the processes listed now, at most KILL_BATCH of them (each costs an fd
 * for a moment). Returns how many were listed, or -errno. */
static int kill_round(const char *dir)
{
        struct pids before = {0}, after = {0};
        int *fds = NULL, r;
        size_t n = 0;

        r = collect(dir, 0, &before);
        if (r < 0 || before.n == 0)
                goto out;
        n = before.n < KILL_BATCH ? before.n : KILL_BATCH;
        fds = calloc(n, sizeof(int));
        if (!fds) {
                r = -ENOMEM;
                goto out;
        }
        /* A listed pid may exit and be reused by a process outside the sandbox before we signal
         * it. Pin each one with a pidfd first, then list again: a pid still listed belongs to
         * the process the pidfd holds, because a live process keeps its pid; and if that
         * process died meanwhile, signalling its pidfd hits nobody. fds[i] holds the pidfd or
         * -errno. */
        for (size_t i = 0; i < n; i++) {
                fds[i] = pidfd_open_(before.v[i]);
                if (fds[i] < 0)
                        fds[i] = -errno;
                if (fds[i] < 0 && fds[i] != -ESRCH && fds[i] != -ENOSYS) {
                        r = fds[i];
                        goto out_fds;
                }
        }
        r = collect(dir, 0, &after);
        if (r < 0)
                goto out_fds;
        qsort(after.v, after.n, sizeof(pid_t), cmp_pid);
        for (size_t i = 0; i < n; i++) {
                if (!bsearch(&before.v[i], after.v, after.n, sizeof(pid_t), cmp_pid))
                        continue;
                if (fds[i] >= 0)
                        (void)pidfd_kill(fds[i]);
                else if (fds[i] == -ENOSYS)
                        (void)kill(before.v[i], SIGKILL); /* Linux < 5.3: the race remains */
        }
        r = (int)(before.n > INT32_MAX ? INT32_MAX : before.n);
out_fds:
        for (size_t i = 0; i < n; i++)
                safe_close(fds[i]);
out:
        free(fds);
        free(before.v);
        free(after.v);
        return r;
}

int cordon_cgroup_kill_tree(const char *dir)
{
        /* Killed processes stay listed until they have exited (not until reaped: zombies are
         * not listed); a process forked meanwhile shows up in the next round. */
        for (int round = 0; round < 1000; round++) {
                int r = kill_round(dir);
                if (r <= 0)
                        return r;
                sleep_ms(1);
        }
        return -EBUSY;
}

static int remove_tree(const char *dir, unsigned depth)
{
        DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        int r = 0;
        for (struct dirent *de; r >= 0 && (de = readdir(d));) {
                if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                char sub[CORDON_LIMITS_PATH_MAX];
                r = join(dir, de->d_name, sub, sizeof(sub));
                if (r >= 0)
                        r = depth < MAX_DEPTH ? remove_tree(sub, depth + 1) : -ELOOP;
        }
        closedir(d);
        if (r < 0)
                return r;
        /* A cgroup stays busy for a moment after its last process exited. */
        for (int tries = 0;; tries++) {
                if (rmdir(dir) == 0 || errno == ENOENT)
                        return 0;
                if (errno != EBUSY || tries == 100)
                        return -errno;
                sleep_ms(2);
        }
}

int cordon_cgroup_remove_tree(const char *dir)
{
        return remove_tree(dir, 0);
}
