/* fd-based mount helpers. */
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/mech/mount-util.h"
#include "shared/macro.h"

int cordon_open_beneath(int dirfd, const char *path, int flags)
{
        struct open_how how = {
            .flags = (unsigned long long)(flags | O_PATH | O_CLOEXEC),
            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
        return fd < 0 ? -errno : (int)fd;
}

int cordon_open_host_path(const char *path)
{
        struct open_how how = {
            .flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
            .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
        return fd < 0 ? -errno : (int)fd;
}

int cordon_clone_tree(int fd, unsigned long long attr_set, bool recursive)
{
        unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH;
        if (recursive)
                flags |= AT_RECURSIVE;
        _cleanup_close_ int t = (int)syscall(SYS_open_tree, fd, "", flags);
        if (t < 0)
                return -errno;
        if (attr_set) {
                struct mount_attr a = {.attr_set = attr_set};
                if (syscall(SYS_mount_setattr, t, "",
                            AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a, sizeof(a)) < 0)
                        return -errno;
        }
        return TAKE_FD(t);
}

int cordon_move_mount_fd(int from, int to_fd)
{
        if (syscall(SYS_move_mount, from, "", to_fd, "",
                    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
                return -errno;
        return 0;
}

int cordon_mkdir_p_beneath(int rootfd, const char *rel)
{
        _cleanup_close_ int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        const char *p = rel;
        while (*p) {
                while (*p == '/')
                        p++;
                if (!*p)
                        break;
                const char *e = strchrnul(p, '/');
                char name[256];
                size_t len = (size_t)(e - p);
                if (len >= sizeof(name))
                        return -ENAMETOOLONG;
                memcpy(name, p, len);
                name[len] = 0;
                if (streq(name, "..") || streq(name, "."))
                        return -EINVAL;
                int n = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (n < 0 && errno == ENOENT) {
                        if (mkdirat(fd, name, 0755) < 0 && errno != EEXIST)
                                return -errno;
                        n = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                }
                if (n < 0)
                        return -errno;
                safe_close(fd);
                fd = n;
                p = e;
        }
        return TAKE_FD(fd);
}

int cordon_make_mountpoint(int rootfd, const char *rel, bool dir)
{
        int fd = cordon_open_beneath(rootfd, rel, O_NOFOLLOW);
        if (fd >= 0 || fd != -ENOENT)
                return fd;

        const char *slash = strrchr(rel, '/');
        _cleanup_close_ int parent = -EBADF;
        const char *name = rel;
        if (slash) {
                char buf[4096];
                size_t len = (size_t)(slash - rel);
                if (len >= sizeof(buf))
                        return -ENAMETOOLONG;
                memcpy(buf, rel, len);
                buf[len] = 0;
                parent = cordon_mkdir_p_beneath(rootfd, buf);
                name = slash + 1;
        } else
                parent = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
        if (parent < 0)
                return parent == -1 ? -errno : parent;
        if (dir) {
                if (mkdirat(parent, name, 0755) < 0 && errno != EEXIST)
                        return -errno;
        } else {
                int f = openat(parent, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
                               0644);
                if (f < 0 && errno != EEXIST)
                        return -errno;
                safe_close(f);
        }
        fd = openat(parent, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

int cordon_mount_on_fd(const char *source, int fd, const char *fstype, unsigned long flags,
                       const char *data)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        return mount(source, path, fstype, flags, data) < 0 ? -errno : 0;
}
