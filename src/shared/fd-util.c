/* File-descriptor helpers. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/openat2.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

int write_all(int fd, const void *buf, size_t len)
{
        const char *p = buf;
        while (len > 0) {
                ssize_t k = write(fd, p, len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        return -EIO;
                p += k;
                len -= (size_t)k;
        }
        return 0;
}

int read_full_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        return read_full_fd(fd, max, ret, ret_len);
}

int read_full_fd(int fd, size_t max, char **ret, size_t *ret_len)
{
        size_t cap = 4096, n = 0;
        _cleanup_free_ char *buf = malloc(cap + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (n == cap) {
                        if (cap > max)
                                return -EFBIG;
                        cap *= 2;
                        char *nb = realloc(buf, cap + 1);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                }
                ssize_t k = read(fd, buf + n, cap - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                n += (size_t)k;
                if (n > max)
                        return -EFBIG;
        }
        buf[n] = 0;
        if (ret_len)
                *ret_len = n;
        *ret = TAKE_PTR(buf);
        return 0;
}

int write_string_file_at(int dirfd, const char *path, const char *s)
{
        _cleanup_close_ int fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        return write_all(fd, s, strlen(s));
}

static int sys_close_range(unsigned first, unsigned last)
{
        return (int)syscall(SYS_close_range, first, last, 0);
}

int fds_cloexec_above_stdio(void)
{
        return syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0 ? -errno : 0;
}

int close_all_fds_except(const int *keep, size_t n)
{
        /* Close the gaps between the sorted keep-list entries; close_range exists since 5.9. */
        int sorted[16];
        if (n > ELEMENTSOF(sorted))
                return -E2BIG;
        memcpy(sorted, keep, n * sizeof(int));
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
                        int t = sorted[j];
                        sorted[j] = sorted[j - 1];
                        sorted[j - 1] = t;
                }
        unsigned next = 3;
        for (size_t i = 0; i < n; i++) {
                if (sorted[i] < (int)next)
                        continue;
                if ((unsigned)sorted[i] > next &&
                    sys_close_range(next, (unsigned)sorted[i] - 1) < 0)
                        return -errno;
                next = (unsigned)sorted[i] + 1;
        }
        if (sys_close_range(next, ~0U) < 0)
                return -errno;
        return 0;
}

int read_full_file_or_stdin(const char *path, size_t max, char **ret, size_t *ret_len)
{
        return streq(path, "-") ? read_full_fd(STDIN_FILENO, max, ret, ret_len)
                                : read_full_file(path, max, ret, ret_len);
}

static bool fd_is_closed(int fd)
{
        return fcntl(fd, F_GETFD) < 0 && errno == EBADF;
}

int stdio_guard_fill(struct stdio_guard *g)
{
        *g = (struct stdio_guard){.filled = 0, .ref = -EBADF};
        for (int fd = 0; fd < 3; fd++) {
                if (!fd_is_closed(fd))
                        continue;
                if (g->ref < 0) {
                        int n = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
                        if (n < 0)
                                return -errno;
                        g->ref = fcntl(n, F_DUPFD_CLOEXEC, 3);
                        int e = errno;
                        (void)close(n);
                        if (g->ref < 0)
                                return -e;
                }
                /* The lowest free number from @fd on: @fd itself, unless another thread took
                 * it meanwhile (then it is not ours to fill). */
                int d = fcntl(g->ref, F_DUPFD_CLOEXEC, fd);
                if (d == fd)
                        g->filled |= 1u << fd;
                else if (d >= 0)
                        (void)close(d);
        }
        return 0;
}

/* Whether @fd is still a copy of @ref: the same open file (kcmp), or where kcmp() is not
 * allowed, the same kind of file (both /dev/null). */
static bool same_file(int fd, int ref)
{
        pid_t self = getpid();
        long k = syscall(SYS_kcmp, self, self, 0 /* KCMP_FILE */, fd, ref);
        if (k >= 0)
                return k == 0;
        struct stat a, b;
        return fstat(fd, &a) == 0 && fstat(ref, &b) == 0 && a.st_rdev == b.st_rdev &&
               a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

void stdio_guard_release(struct stdio_guard *g)
{
        if (!g)
                return;
        for (int fd = 0; fd < 3 && g->ref >= 3; fd++)
                if ((g->filled & (1u << fd)) && same_file(fd, g->ref))
                        (void)close(fd);
        if (g->ref >= 3)
                (void)close(g->ref);
        *g = (struct stdio_guard){.filled = 0, .ref = -EBADF};
}

int stdio_open_missing(void)
{
        for (int fd = 0; fd < 3; fd++) {
                if (!fd_is_closed(fd))
                        continue;
                /* The lowest free number: @fd, as those below it are open. */
                int n = open("/dev/null", O_RDWR | O_NOCTTY);
                if (n < 0)
                        return -errno;
                if (n != fd) {
                        (void)close(n);
                        return -EBUSY;
                }
        }
        return 0;
}

static int name_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int dir_read_names(DIR *d, size_t max, char ***ret, size_t *ret_n)
{
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0;
        for (;;) {
                errno = 0;
                struct dirent *de = readdir(d);
                if (!de) {
                        if (errno)
                                return -errno;
                        break;
                }
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (n >= max)
                        return -E2BIG;
                char **nn = reallocarray(names, n + 2, sizeof(*nn));
                if (!nn)
                        return -ENOMEM;
                names = nn;
                if (!(names[n] = strdup(de->d_name)))
                        return -ENOMEM;
                names[++n] = NULL;
        }
        if (n)
                qsort(names, n, sizeof(*names), name_cmp);
        else if (!(names = calloc(1, sizeof(*names))))
                return -ENOMEM;
        *ret = TAKE_PTR(names);
        if (ret_n)
                *ret_n = n;
        return 0;
}

/* Deeper than this, a directory is moved up to the top of the tree instead of being entered: the
 * walk holds at most this many descriptors, and a chain of any depth (or of a path longer than
 * PATH_MAX) is still removed, in a later pass over the top. */
#define REMOVE_TREE_MAX_DEPTH  32U
#define REMOVE_TREE_MAX_PASSES 100000U

static int open_subdir(int dirfd, const char *name)
{
        struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
                               .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV |
                                          RESOLVE_NO_MAGICLINKS};
        return (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
}

/* Removes what directory @fd holds, on device @dev only; returns whether something was moved up
 * to @top (another pass is due). */
static bool empty_dir(int top, int fd, unsigned depth, dev_t dev, unsigned *serial)
{
        int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (dup_fd < 0)
                return false;
        DIR *d = fdopendir(dup_fd);
        if (!d) {
                close(dup_fd);
                return false;
        }
        rewinddir(d); /* the duplicate shares its offset with @fd, read to the end before */
        bool moved = false;
        struct dirent *de;
        while ((de = readdir(d))) {
                const char *name = de->d_name;
                struct stat st;
                if (!strcmp(name, ".") || !strcmp(name, ".."))
                        continue;
                if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != dev)
                        continue; /* gone, or another filesystem's: left */
                if (!S_ISDIR(st.st_mode)) {
                        (void)unlinkat(fd, name, 0);
                        continue;
                }
                if (unlinkat(fd, name, AT_REMOVEDIR) == 0)
                        continue;
                if (depth >= REMOVE_TREE_MAX_DEPTH) {
                        for (unsigned tries = 0; tries < 16; tries++) {
                                char up[48];
                                snprintf(up, sizeof(up), ".remove-tree-%u", (*serial)++);
                                if (renameat2(fd, name, top, up, RENAME_NOREPLACE) == 0) {
                                        moved = true;
                                        break;
                                }
                                if (errno != EEXIST)
                                        break;
                        }
                        continue;
                }
                /* A directory made unwritable or unreadable would keep its entries. */
                if ((st.st_mode & 0700) != 0700 &&
                    fchmodat(fd, name, (st.st_mode & 07777) | 0700, 0) < 0)
                        continue;
                int sub = open_subdir(fd, name);
                if (sub < 0)
                        continue; /* a mount point of the same device, or gone */
                moved |= empty_dir(top, sub, depth + 1, dev, serial);
                close(sub);
                (void)unlinkat(fd, name, AT_REMOVEDIR);
        }
        closedir(d);
        return moved;
}

void remove_tree_physical(const char *path)
{
        if (rmdir(path) == 0 || errno == ENOENT)
                return;
        struct stat st;
        if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
                return;
        if ((st.st_mode & 0700) != 0700)
                (void)chmod(path, (st.st_mode & 07777) | 0700);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return;
        if (fstat(fd, &st) == 0) {
                unsigned serial = 0;
                for (unsigned pass = 0; pass < REMOVE_TREE_MAX_PASSES; pass++)
                        if (!empty_dir(fd, fd, 0, st.st_dev, &serial))
                                break;
        }
        close(fd);
        (void)rmdir(path);
}

int read_regular_file_at(int dirfd, const char *path, uint64_t resolve, size_t max,
                         struct stat *ret_st, char **ret, size_t *ret_len)
{
        struct open_how how = {.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK,
                               .resolve = resolve};
        _cleanup_close_ int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
        struct stat st;
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        if ((size_t)st.st_size > max)
                return -EFBIG;
        if (ret_st)
                *ret_st = st;
        return read_full_fd(fd, max, ret, ret_len);
}

int fd_send(int sock, char tag, int fd)
{
        struct iovec iov = {.iov_base = &tag, .iov_len = 1};
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } u = {0};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
        if (fd >= 0) {
                mh.msg_control = u.buf;
                mh.msg_controllen = sizeof(u.buf);
                struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
                cm->cmsg_level = SOL_SOCKET;
                cm->cmsg_type = SCM_RIGHTS;
                cm->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(cm), &fd, sizeof(int));
        }
        return sendmsg(sock, &mh, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

int fd_recv(int sock, char *ret_tag)
{
        char c = 0;
        struct iovec iov = {.iov_base = &c, .iov_len = 1};
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } u;
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = u.buf,
                            .msg_controllen = sizeof(u.buf)};
        ssize_t k = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        if (k < 0)
                return -errno;
        if (k != 1)
                return -EPIPE;
        if (ret_tag)
                *ret_tag = c;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        if (!cm)
                return -ENOENT;
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
            cm->cmsg_len != CMSG_LEN(sizeof(int)))
                return -EBADMSG;
        int fd;
        memcpy(&fd, CMSG_DATA(cm), sizeof(int));
        return fd;
}

int dir_open_owned(int dirfd, const char *name, unsigned flags, const char *shown, char *err,
                   size_t n)
{
        const bool nofollow = flags & DIR_OPEN_NOFOLLOW;
        const int oflags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
        _cleanup_close_ int fd = openat(dirfd, name, oflags);
        if (fd < 0 && errno == ENOENT && (flags & DIR_OPEN_CREATE)) {
                if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST) {
                        int r = -errno;
                        snprintf(err, n, "cannot create directory '%s': %s", shown, strerror(-r));
                        return r;
                }
                fd = openat(dirfd, name, oflags);
        }
        if (fd < 0) {
                int r = -errno;
                struct stat st;
                /* O_NOFOLLOW with O_DIRECTORY says ENOTDIR for a symlink: say what it is. */
                if (nofollow && (r == -ENOTDIR || r == -ELOOP) &&
                    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
                        snprintf(err, n,
                                 "cannot open directory '%s': it is a symlink (not followed)",
                                 shown);
                        return -ELOOP;
                }
                snprintf(err, n, "cannot open directory '%s': %s", shown, strerror(-r));
                return r;
        }
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                snprintf(err, n, "cannot stat '%s': %s", shown, strerror(-r));
                return r;
        }
        if (st.st_uid != geteuid()) {
                snprintf(err, n, "directory '%s' belongs to uid %u, not to us (%u)", shown,
                         (unsigned)st.st_uid, (unsigned)geteuid());
                return -EPERM;
        }
        if ((flags & DIR_OPEN_PRIVATE) && (st.st_mode & 077)) {
                snprintf(err, n,
                         "directory '%s' has mode %04o; it must give no access to group or others "
                         "(0700)",
                         shown, (unsigned)(st.st_mode & 07777));
                return -EPERM;
        }
        return TAKE_FD(fd);
}
