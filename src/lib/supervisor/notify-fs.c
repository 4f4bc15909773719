/* The paths the landlock backend's notifications stand in for: the launch's private directory
 * under /dev/shm that replaces /dev/shm for the command, the operations done there on its behalf,
 * and the test for a create under the host's /tmp that no grant covers (notify-fs.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "lib/supervisor/notify-fs.h"
#include "shared/macro.h"
#include "shared/path-util.h"

#define SHM_ROOT   "/dev/shm"
#define DIR_PREFIX "cordon-shm-"
/* Entries are only ever files made here; a directory below is not expected at all, so a short
 * bound on the depth of the removal is enough to be robust without recursing without end. */
#define REMOVE_MAX_DEPTH 8

/* One path component the command may name: not empty, no slash, not "." or "..". */
static bool name_is_component(const char *name)
{
        return name && *name && !strchr(name, '/') && !streq(name, ".") && !streq(name, "..");
}

static int shm_root_open(void)
{
        /* /dev/shm itself may be a symbolic link (/run/shm on older systems): it is root's, so
         * following it is safe; everything below is opened relative to this descriptor. */
        int fd = open(SHM_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT || errno == ENOTDIR ? -ENOTSUP : negative_errno();
        struct statfs sfs;
        if (fstatfs(fd, &sfs) < 0) {
                int r = negative_errno();
                safe_close(fd);
                return r;
        }
        /* Only a tmpfs gives what shm_open() promises (memory that vanishes with the host's
         * reboot, mmap without a disk behind it); a directory on disk would quietly differ. */
        if (sfs.f_type != TMPFS_MAGIC) {
                safe_close(fd);
                return -ENOTSUP;
        }
        return fd;
}

static int random_suffix(char *buf, size_t n)
{
        static const char chars[] =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        unsigned char rnd[16];
        if (n > sizeof(rnd))
                return -EINVAL;
        ssize_t k = getrandom(rnd, n, 0);
        if (k < 0)
                return negative_errno();
        if ((size_t)k != n)
                return -EIO;
        for (size_t i = 0; i < n; i++)
                buf[i] = chars[rnd[i] % (sizeof(chars) - 1)];
        return 0;
}

/* The descriptor is the directory just made: ours, a directory, on the tmpfs of @rootfd, with no
 * subdirectory (a fresh one has two links). Sets its mode to exactly 0700 (a umask may have
 * taken bits away). */
static int verify_made_dir(int fd, int rootfd)
{
        struct stat st, root_st;
        struct statfs sfs;
        if (fstat(fd, &st) < 0 || fstat(rootfd, &root_st) < 0 || fstatfs(fd, &sfs) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || st.st_dev != root_st.st_dev ||
            sfs.f_type != TMPFS_MAGIC || st.st_nlink != 2)
                return -EBUSY;
        if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0)
                return negative_errno();
        return 0;
}

int cordon_shm_dir_create(char **ret_path, int *ret_fd)
{
        _cleanup_close_ int rootfd = shm_root_open();
        if (rootfd < 0)
                return rootfd;

        char name[] = DIR_PREFIX "XXXXXX";
        char *x = name + strlen(DIR_PREFIX);
        int r = -EEXIST;
        for (unsigned attempt = 0; attempt < 100 && r == -EEXIST; attempt++) {
                if ((r = random_suffix(x, strlen(x))) < 0)
                        return r;
                /* /dev/shm is sticky and world-writable: mkdir fails on a name someone planted
                 * (a symlink, a directory of theirs) rather than reusing it. */
                r = mkdirat(rootfd, name, 0700) < 0 ? negative_errno() : 0;
        }
        if (r < 0)
                return r;

        _cleanup_close_ int fd =
            openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if ((r = verify_made_dir(fd, rootfd)) < 0) {
                /* Not what was made (or not as made): remove it only when it is the one opened
                 * here, and empty; leave anything else where it is. */
                struct stat a, b;
                if (fstat(fd, &a) == 0 && fstatat(rootfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
                    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                        (void)unlinkat(rootfd, name, AT_REMOVEDIR);
                return r;
        }

        char *path = path_join(SHM_ROOT, name);
        if (!path)
                return -ENOMEM;
        *ret_path = path;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* Unlinks every entry of @dirfd, never following a symbolic link (unlinkat removes the link
 * itself) and never leaving the file system of @dirfd (a mount on a subdirectory is skipped). */
static void empty_dir(int dirfd, unsigned depth)
{
        struct stat dst;
        if (fstat(dirfd, &dst) < 0)
                return;
        int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        DIR *d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return;
        }
        /* Entries removed while reading may make readdir() skip some: read again until a pass
         * removes nothing (bounded: a pass that removes something shrinks the directory). */
        for (unsigned pass = 0; pass < 16; pass++) {
                bool removed = false;
                rewinddir(d);
                struct dirent *de;
                while ((de = readdir(d))) {
                        if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                                continue;
                        if (unlinkat(dirfd, de->d_name, 0) == 0) {
                                removed = true;
                                continue;
                        }
                        if ((errno != EISDIR && errno != EPERM) || depth >= REMOVE_MAX_DEPTH)
                                continue;
                        int sub = openat(dirfd, de->d_name,
                                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (sub < 0)
                                continue;
                        struct stat sst;
                        bool same_fs = fstat(sub, &sst) == 0 && sst.st_dev == dst.st_dev;
                        if (same_fs)
                                empty_dir(sub, depth + 1);
                        safe_close(sub);
                        if (same_fs && unlinkat(dirfd, de->d_name, AT_REMOVEDIR) == 0)
                                removed = true;
                }
                if (!removed)
                        break;
        }
        closedir(d);
}

/* The entry name of @path when it is one of ours: "/dev/shm/cordon-shm-…", one component. */
static const char *own_dir_name(const char *path)
{
        const char *name = startswith(path, SHM_ROOT "/");
        if (!name || !startswith(name, DIR_PREFIX) || !name_is_component(name))
                return NULL;
        return name;
}

void cordon_shm_dir_remove(int dirfd, const char *path)
{
        const char *name = path ? own_dir_name(path) : NULL;
        _cleanup_close_ int rootfd =
            name ? open(SHM_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -EBADF;
        _cleanup_close_ int own = -EBADF;
        if (dirfd < 0) {
                /* Only by path: open it without following a link and empty it only when it is
                 * ours, as cordon_shm_dir_create() made it. */
                if (rootfd < 0)
                        return;
                own = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;
                if (own < 0 || fstat(own, &st) < 0 || st.st_uid != geteuid() ||
                    (st.st_mode & 07777) != 0700)
                        return;
                dirfd = own;
        }

        empty_dir(dirfd, 0);

        /* The path goes only when it still names the directory emptied above: someone may have
         * renamed ours away and put another directory there. */
        struct stat a, b;
        if (rootfd < 0 || fstat(dirfd, &a) < 0 ||
            fstatat(rootfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0 || a.st_dev != b.st_dev ||
            a.st_ino != b.st_ino)
                return;
        (void)unlinkat(rootfd, name, AT_REMOVEDIR);
}

int cordon_shm_name(const char *path, const char **ret_name)
{
        const char *name = path ? startswith(path, SHM_ROOT "/") : NULL;
        if (!name || !name_is_component(name))
                return 0;
        if (strlen(name) > NAME_MAX)
                return -ENAMETOOLONG;
        *ret_name = name;
        return 1;
}

#ifdef __O_LARGEFILE
#define SHM_O_LARGEFILE __O_LARGEFILE
#else
#define SHM_O_LARGEFILE O_LARGEFILE
#endif

/* The flags kept as given: the access mode and what glibc's sem_open()/shm_open() and ordinary
 * open()/creat() pass. O_NOFOLLOW, O_NOCTTY and O_LARGEFILE change nothing for a regular file
 * opened without following a link. Everything else is refused: O_PATH, O_DIRECTORY and
 * O_TMPFILE would hand over something other than a regular file, O_ASYNC arms signals, and
 * flags unknown today may mean anything tomorrow. */
#define SHM_OPEN_FLAGS                                                                             \
        (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | \
         O_NOCTTY | SHM_O_LARGEFILE)

int cordon_shm_open(int dirfd, const char *name, int flags, mode_t mode)
{
        if (dirfd < 0 || !name_is_component(name) || (flags & ~SHM_OPEN_FLAGS) ||
            (flags & O_ACCMODE) == O_ACCMODE)
                return -EINVAL;
        if (strlen(name) > NAME_MAX)
                return -ENAMETOOLONG;

        /* Close-on-exec here whatever the command asked (the supervisor starts other
         * programs); the caller hands O_CLOEXEC on as the added descriptor's flag. O_NONBLOCK
         * for the open itself: a FIFO planted in the directory must not stall the supervisor. */
        _cleanup_close_ int fd =
            openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode & 0777);
        if (fd < 0)
                return negative_errno();
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EACCES;
        if (!(flags & O_NONBLOCK)) {
                int fl = fcntl(fd, F_GETFL);
                if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
                        return negative_errno();
        }
        return TAKE_FD(fd);
}

int cordon_shm_link(int dirfd, const char *oldname, const char *newname)
{
        if (dirfd < 0 || !name_is_component(oldname) || !name_is_component(newname))
                return -EINVAL;
        if (strlen(oldname) > NAME_MAX || strlen(newname) > NAME_MAX)
                return -ENAMETOOLONG;
        /* Flags 0: a symbolic link is linked as itself, never followed. */
        return RET_NERRNO(linkat(dirfd, oldname, dirfd, newname, 0));
}

int cordon_shm_unlink(int dirfd, const char *name)
{
        if (dirfd < 0 || !name_is_component(name))
                return -EINVAL;
        if (strlen(name) > NAME_MAX)
                return -ENAMETOOLONG;
        return RET_NERRNO(unlinkat(dirfd, name, 0));
}

bool cordon_tmp_gap(const char *abs_path, const char *const *writable, size_t n_writable)
{
        /* Never a grant depends on the answer: "no" leaves the decision to Landlock (only the
         * note is lost), so whatever does not normalise (relative, "..", out of memory) is no
         * gap; a wrong "yes" would refuse what Landlock allows. */
        _cleanup_free_ char *p = NULL;
        if (!abs_path || path_normalize(abs_path, &p) < 0)
                return false;
        if (!path_is_below(p, "/tmp"))
                return false;
        for (size_t i = 0; i < n_writable; i++) {
                if (!writable || !writable[i])
                        continue;
                _cleanup_free_ char *w = NULL;
                /* Unsure whether a grant covers it: Landlock decides, not the note. */
                if (path_normalize(writable[i], &w) < 0)
                        return false;
                if (path_is_below(p, w))
                        return false;
        }
        return true;
}
