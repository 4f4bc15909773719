/* cordon-serve's listening sockets (see serve-socket.h). The directory holding the unix socket is
 * what keeps other users out (a socket's own mode is not honoured by every system): it must be
 * ours and 0700, checked on an O_NOFOLLOW descriptor. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "serve/serve-socket.h"
#include "shared/macro.h"

#define SERVE_BACKLOG 64

_printf_(4, 5) static int fail(int r, char *err, size_t n, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
        return r;
}

/* @path is a directory of ours, mode 0700, not a symlink. */
static int check_private_dir(const char *path, char *err, size_t n)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return fail(
                    -errno, err, n, "cannot open directory '%s': %s%s", path, strerror(errno),
                    errno == ENOTDIR || errno == ELOOP ? " (a symlink or not a directory)" : "");
        struct stat st;
        if (fstat(fd, &st) < 0)
                return fail(-errno, err, n, "cannot stat '%s': %m", path);
        if (st.st_uid != geteuid())
                return fail(-EPERM, err, n, "directory '%s' belongs to uid %u, not to us (%u)",
                            path, (unsigned)st.st_uid, (unsigned)geteuid());
        if ((st.st_mode & 07777) != 0700)
                return fail(-EPERM, err, n,
                            "directory '%s' has mode %04o; it must be 0700 (no group or other "
                            "access)",
                            path, (unsigned)(st.st_mode & 07777));
        return 0;
}

int serve_socket_default_path(char **ret, char *err, size_t n)
{
        const char *rt = getenv("XDG_RUNTIME_DIR");
        if (!rt || rt[0] != '/')
                return fail(-ENXIO, err, n,
                            "XDG_RUNTIME_DIR is %s: set it to your runtime directory, or give "
                            "the socket's path with --socket",
                            rt ? "not an absolute path" : "not set");
        int r = check_private_dir(rt, err, n);
        if (r < 0)
                return r;
        char *p;
        if (asprintf(&p, "%s/cordon/serve.sock", rt) < 0)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int serve_socket_from_activation(struct serve_socket *ret, char *err, size_t n)
{
        const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
        if (!pid || !fds)
                return 0;
        char *e;
        long p = strtol(pid, &e, 10);
        if (*e || p != getpid())
                return 0; /* meant for another process */
        long k = strtol(fds, &e, 10);
        unsetenv("LISTEN_PID");
        unsetenv("LISTEN_FDS");
        unsetenv("LISTEN_FDNAMES");
        if (*e || k != 1)
                return fail(-EINVAL, err, n, "LISTEN_FDS is '%s': expected exactly one socket",
                            fds);
        int fd = 3; /* SD_LISTEN_FDS_START */
        int type = 0, domain = 0, listening = 0;
        socklen_t len = sizeof(int);
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
            getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 ||
            getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0)
                return fail(-errno, err, n, "the socket passed in LISTEN_FDS: %m");
        if (type != SOCK_STREAM || domain != AF_UNIX || !listening)
                return fail(-EINVAL, err, n,
                            "the socket passed in LISTEN_FDS is not a listening unix stream "
                            "socket");
        if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
                return fail(-errno, err, n, "the socket passed in LISTEN_FDS: %m");
        *ret = SERVE_SOCKET_NULL;
        ret->fd = fd;
        return 1;
}

/* Something listens on @path: 1; nobody (a stale socket): 0; -errno. */
static int socket_is_live(const struct sockaddr_un *sa)
{
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
                return 1;
        return errno == ECONNREFUSED || errno == ENOENT ? 0 : -errno;
}

int serve_socket_listen(const char *path, struct serve_socket *ret, char *err, size_t n)
{
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (path[0] != '/')
                return fail(-EINVAL, err, n, "socket path '%s' is not absolute", path);
        if (strlen(path) >= sizeof(sa.sun_path))
                return fail(-ENAMETOOLONG, err, n, "socket path '%s' is longer than %zu bytes",
                            path, sizeof(sa.sun_path) - 1);
        strcpy(sa.sun_path, path);

        _cleanup_free_ char *dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        *strrchr(dir, '/') = 0;
        if (!*dir)
                return fail(-EINVAL, err, n, "socket path '%s' is directly under /", path);
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return fail(-errno, err, n, "cannot create directory '%s': %m", dir);
        int r = check_private_dir(dir, err, n);
        if (r < 0)
                return r;

        /* One daemon per socket: the lock is held for the daemon's life, so a second one is
         * refused even while the first is still starting. The lock file stays (removing it
         * would race with the next daemon taking it). */
        _cleanup_free_ char *lock_path = NULL;
        if (asprintf(&lock_path, "%s.lock", path) < 0)
                return -ENOMEM;
        _cleanup_close_ int lock_fd =
            open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (lock_fd < 0)
                return fail(-errno, err, n, "cannot open '%s': %m", lock_path);
        if (flock(lock_fd, LOCK_EX | LOCK_NB) < 0)
                return fail(errno == EWOULDBLOCK ? -EADDRINUSE : -errno, err, n,
                            "another cordon-serve is listening on '%s'", path);

        struct stat st;
        if (lstat(path, &st) == 0) {
                if (!S_ISSOCK(st.st_mode))
                        return fail(-EEXIST, err, n, "'%s' exists and is not a socket", path);
                r = socket_is_live(&sa);
                if (r < 0)
                        return fail(r, err, n, "cannot tell whether '%s' is live: %s", path,
                                    strerror(-r));
                if (r > 0)
                        return fail(-EADDRINUSE, err, n, "something is listening on '%s'", path);
                if (unlink(path) < 0)
                        return fail(-errno, err, n, "cannot remove the stale socket '%s': %m",
                                    path);
        } else if (errno != ENOENT)
                return fail(-errno, err, n, "cannot stat '%s': %m", path);

        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return fail(-errno, err, n, "cannot create a socket: %m");
        mode_t old = umask(0177); /* the socket is made 0600, never wider for a moment */
        r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
        umask(old);
        if (r < 0)
                return fail(-errno, err, n, "cannot bind '%s': %m", path);
        if (lstat(path, &st) < 0 || listen(fd, SERVE_BACKLOG) < 0) {
                r = -errno;
                (void)unlink(path);
                return fail(r, err, n, "cannot listen on '%s': %s", path, strerror(-r));
        }
        char *p = strdup(path);
        if (!p) {
                (void)unlink(path);
                return -ENOMEM;
        }
        *ret = (struct serve_socket){.fd = TAKE_FD(fd),
                                     .lock_fd = TAKE_FD(lock_fd),
                                     .path = p,
                                     .dev = st.st_dev,
                                     .ino = st.st_ino};
        return 0;
}

int serve_socket_listen_tcp(uint16_t *port, struct serve_socket *ret, char *err, size_t n)
{
        _cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return fail(-errno, err, n, "cannot create a TCP socket: %m");
        int one = 1;
        (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        struct sockaddr_in sa = {.sin_family = AF_INET,
                                 .sin_port = htons(*port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(sa);
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, SERVE_BACKLOG) < 0 ||
            getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
                return fail(-errno, err, n, "cannot listen on 127.0.0.1:%u: %m", (unsigned)*port);
        *port = ntohs(sa.sin_port);
        *ret = SERVE_SOCKET_NULL;
        ret->fd = TAKE_FD(fd);
        return 0;
}

void serve_socket_close(struct serve_socket *s)
{
        struct stat st;
        s->fd = safe_close(s->fd);
        /* Only the socket we made: a daemon started after us (once we stopped listening) may
         * have put its own there. The lock is still held, so none can have yet. */
        if (s->path && lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
                (void)unlink(s->path);
        s->lock_fd = safe_close(s->lock_fd);
        free(s->path);
        s->path = NULL;
}
