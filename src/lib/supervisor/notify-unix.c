/* The command's own unix sockets (notify-unix.h): the bounded record of the sockets it bound, and
 * the test of a connect() target against it, through NETLINK_SOCK_DIAG (mech/unix-diag.h). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "lib/supervisor/notify-unix.h"
#include "lib/mech/unix-diag.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

struct entry {
        uint32_t ino;
        uint64_t cookie;
        struct timespec since; /* CLOCK_REALTIME_COARSE when the bind was seen */
};

struct cordon_unix_socks {
        struct entry *v;
        size_t n;
        int diag; /* the NETLINK_SOCK_DIAG socket, opened at first use; -1: none (yet) */
};

/* ---- pure parts (unit-tested) ------------------------------------------------------------- */

int cordon_unix_addr_parse(const void *sa, size_t len, char *path, size_t n)
{
        const size_t off = offsetof(struct sockaddr_un, sun_path);
        struct sockaddr_un un = {0};
        if (!sa || len < off || len > sizeof(un))
                return -EINVAL;
        memcpy(&un, sa, len);
        if (un.sun_family != AF_UNIX)
                return -EINVAL;
        if (len == off)
                return CORDON_UNIX_ADDR_UNNAMED;
        if (un.sun_path[0] == 0)
                return CORDON_UNIX_ADDR_ABSTRACT;
        /* The kernel ends the path at the first NUL or at @len, whichever comes first. */
        size_t l = strnlen(un.sun_path, len - off);
        if (!path || l >= n)
                return -ENAMETOOLONG;
        memcpy(path, un.sun_path, l);
        path[l] = 0;
        return CORDON_UNIX_ADDR_PATH;
}

int cordon_unix_target_path(pid_t pid, const char *path, char *buf, size_t n)
{
        if (!path || !*path)
                return -ENOENT;
        int k;
        if (path[0] != '/')
                k = snprintf(buf, n, "/proc/%d/cwd/%s", (int)pid, path);
        else {
                /* The caller's own /proc entries, which the supervisor's would stand for. */
                static const struct {
                        const char *prefix, *as;
                } own[] = {{"/proc/self", ""}, {"/proc/thread-self", ""}, {"/dev/fd", "/fd"}};
                const char *rest = NULL, *as = NULL;
                for (size_t i = 0; !rest && i < ELEMENTSOF(own); i++) {
                        const char *r = startswith(path, own[i].prefix);
                        if (r && (*r == 0 || *r == '/')) {
                                rest = r;
                                as = own[i].as;
                        }
                }
                if (rest)
                        k = snprintf(buf, n, "/proc/%d%s%s", (int)pid, as, rest);
                else
                        k = snprintf(buf, n, "%s", path);
        }
        if (k < 0 || (size_t)k >= n)
                return -ENAMETOOLONG;
        return 0;
}

bool cordon_unix_born_after(int64_t btime_sec, const struct timespec *since)
{
        return since && btime_sec >= (int64_t)since->tv_sec;
}

int cordon_unix_mount_dev(const char *mountinfo, uint64_t mnt_id, dev_t *ret)
{
        for (const char *line = mountinfo; line && *line;) {
                unsigned long long id;
                unsigned maj, min;
                int k = 0;
                if (sscanf(line, "%llu %*u %u:%u%n", &id, &maj, &min, &k) == 3 && k > 0 &&
                    id == mnt_id) {
                        *ret = makedev(maj, min);
                        return 0;
                }
                line = strchr(line, '\n');
                if (line)
                        line++;
        }
        return -ENOENT;
}

/* ---- the record --------------------------------------------------------------------------- */

/* The super block's device of the file system the mount @mnt_id shows (see
 * cordon_unix_mount_dev()), or -errno. */
static int super_dev(uint64_t mnt_id, dev_t *ret)
{
        /* A mount table is read whole; one of 16 MiB is no table to trust anyway. */
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        int r = read_full_file("/proc/self/mountinfo", 16u << 20, &buf, &size);
        if (r < 0)
                return r;
        return cordon_unix_mount_dev(buf, mnt_id, ret);
}

int cordon_unix_socks_new(struct cordon_unix_socks **ret)
{
        struct cordon_unix_socks *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->diag = -EBADF;
        *ret = s;
        return 0;
}

void cordon_unix_socks_free(struct cordon_unix_socks *s)
{
        if (!s)
                return;
        safe_close(s->diag);
        free(s->v);
        free(s);
}

size_t cordon_unix_socks_count(const struct cordon_unix_socks *s)
{
        return s ? s->n : 0;
}

static int diag_socket(struct cordon_unix_socks *s)
{
        if (s->diag < 0)
                s->diag = cordon_unix_diag_open();
        return s->diag;
}

/* After an unexpected answer the socket may hold the rest of it: the next query opens another. */
static void diag_reset(struct cordon_unix_socks *s)
{
        s->diag = safe_close(s->diag);
}

/* What the kernel says of entry @i now: 0 with *@ret, -ENOENT when it is gone (and dropped from
 * the record), -errno. */
static int query(struct cordon_unix_socks *s, size_t i, struct cordon_unix_diag *ret)
{
        int nl = diag_socket(s);
        if (nl < 0)
                return nl;
        int r = cordon_unix_diag_get(nl, s->v[i].ino, s->v[i].cookie, ret);
        if (r == -ENOENT || r == -ESTALE) {
                /* Closed (its number may be another socket's by now): forgotten. */
                s->v[i] = s->v[--s->n];
                return -ENOENT;
        }
        if (r < 0)
                diag_reset(s);
        return r;
}

/* Drops every entry whose socket is gone. */
static int prune(struct cordon_unix_socks *s)
{
        struct cordon_unix_diag d;
        for (size_t i = 0; i < s->n;) {
                int r = query(s, i, &d);
                if (r == -ENOENT)
                        continue; /* entry i is another one now */
                if (r < 0)
                        return r;
                i++;
        }
        return 0;
}

int cordon_unix_socks_add(struct cordon_unix_socks *s, int sock)
{
        if (!s || sock < 0)
                return -EINVAL;
        struct timespec now;
        if (clock_gettime(CLOCK_REALTIME_COARSE, &now) < 0)
                return negative_errno();
        struct stat st;
        if (fstat(sock, &st) < 0)
                return negative_errno();
        if (!S_ISSOCK(st.st_mode))
                return -ENOTSOCK;
        /* sockfs numbers its inodes with 32 bits, as sock_diag asks for them. */
        if (st.st_ino == 0 || st.st_ino > UINT32_MAX)
                return -EOVERFLOW;
        int nl = diag_socket(s);
        if (nl < 0)
                return nl;
        /* @sock is held open here, so the number is this socket's while it is asked about. */
        struct cordon_unix_diag d;
        int r = cordon_unix_diag_get(nl, (uint32_t)st.st_ino, CORDON_UNIX_DIAG_NOCOOKIE, &d);
        if (r < 0) {
                diag_reset(s);
                return r;
        }
        /* Bound already (an inherited socket of the host's, say): the bind fails, and the socket
         * is not one the command gave a name. */
        if (d.named)
                return 0;
        for (size_t i = 0; i < s->n; i++)
                if (s->v[i].ino == d.ino && s->v[i].cookie == d.cookie)
                        return 1; /* a bind tried again: the earlier time stands */
        if (s->n >= CORDON_UNIX_SOCKS_MAX && (r = prune(s)) < 0)
                return r;
        if (s->n >= CORDON_UNIX_SOCKS_MAX)
                return -ENOSPC;
        if (!s->v) {
                s->v = calloc(CORDON_UNIX_SOCKS_MAX, sizeof(*s->v));
                if (!s->v)
                        return -ENOMEM;
        }
        s->v[s->n++] = (struct entry){.ino = d.ino, .cookie = d.cookie, .since = now};
        return 1;
}

/* The devices the socket diagnostics may name for the file @sx describes: stat()'s, and the
 * super block's when the mount table says another (btrfs). Returns how many (1 or 2). */
static size_t target_devs(const struct statx *sx, dev_t devs[static 2])
{
        devs[0] = makedev(sx->stx_dev_major, sx->stx_dev_minor);
        dev_t sb;
        if ((sx->stx_mask & STATX_MNT_ID) && super_dev(sx->stx_mnt_id, &sb) >= 0 && sb != devs[0]) {
                devs[1] = sb;
                return 2;
        }
        return 1;
}

int cordon_unix_socks_owns(struct cordon_unix_socks *s, int fd, bool *ret_live)
{
        if (!s || fd < 0)
                return -EINVAL;
        struct statx sx;
        if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO | STATX_BTIME | STATX_MNT_ID, &sx) <
            0)
                return negative_errno();
        if (!(sx.stx_mask & STATX_TYPE) || !S_ISSOCK(sx.stx_mode))
                return -ENOTSOCK;
        /* stat()'s device first; the mount table is read only when it does not match. */
        dev_t devs[2] = {makedev(sx.stx_dev_major, sx.stx_dev_minor)};
        size_t n_devs = 0;
        const uint32_t ino = (uint32_t)sx.stx_ino;
        /* Without a birth time the inode number alone would have to tell, and it cannot (see
         * notify-unix.h): not one of ours, whatever the number says. */
        const bool has_btime = sx.stx_mask & STATX_BTIME;
        for (size_t i = 0; has_btime && i < s->n;) {
                struct cordon_unix_diag d;
                const struct timespec since = s->v[i].since;
                int r = query(s, i, &d);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return r;
                i++;
                if (!d.has_vfs || d.vfs_ino != ino ||
                    !cordon_unix_born_after(sx.stx_btime.tv_sec, &since))
                        continue;
                if (d.vfs_dev == devs[0])
                        return 1;
                if (n_devs == 0)
                        n_devs = target_devs(&sx, devs);
                if (n_devs == 2 && d.vfs_dev == devs[1])
                        return 1;
        }
        if (ret_live) {
                if (n_devs == 0)
                        n_devs = target_devs(&sx, devs);
                int nl = diag_socket(s);
                int r = nl < 0 ? nl : cordon_unix_diag_bound_at(nl, devs, n_devs, ino);
                if (r < 0)
                        diag_reset(s);
                /* Unknown counts as a live socket: the refusal, not "no one there". */
                *ret_live = r != 0;
        }
        return 0;
}
