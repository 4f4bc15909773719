/* The landlock backend's seccomp notifications, the supervisor side (see notify.h): one
 * io source of the loop on the listener, and the dispatcher that answers each notification at once:
 * a pty's peer opened here, /dev/shm names in the private directory (notify-fs.h), a note for a
 * create under the host's /tmp; the socket calls are notify-net.c's; "continue" for everything
 * else. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/supervisor/notify-fs.h"
#include "lib/supervisor/notify-internal.h"
#include "lib/supervisor/notify-unix.h"
#include "lib/supervisor/notify.h"
#include "lib/loop/loop.h"
#include "lib/mech/seccomp-notify.h"
#include "shared/fd-util.h"
#include "shared/path-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#define NATIVE_ARCH 0 /* any: the filter refuses foreign ABIs before they are notified */
#endif

/* How many notifications one wake-up answers before the loop polls the others again. */
#define NOTIFY_BATCH 32

/* ---- pure parts (unit-tested) ------------------------------------------------------------- */

int cordon_notify_ptpeer_flags(uint64_t arg, int *ret_flags, bool *ret_cloexec)
{
        /* The kernel reads the argument as an int. Anything beyond the access mode and the
         * three flags a peer open knows is refused rather than passed to an open made with
         * the supervisor's rights. */
        uint32_t f = (uint32_t)arg;
        const uint32_t known = O_ACCMODE | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
        if ((f & ~known) || (f & O_ACCMODE) == O_ACCMODE)
                return -EINVAL;
        /* O_NOCTTY always: without it the terminal could become the supervisor's own
         * controlling terminal. The command makes it its own with TIOCSCTTY, as after
         * glibc's openpty(), which asks for O_NOCTTY anyway. O_CLOEXEC is the copy's in the
         * caller (newfd_flags); the supervisor's is always close-on-exec. */
        *ret_flags = (int)(f & ~(uint32_t)O_CLOEXEC) | O_NOCTTY | O_CLOEXEC;
        *ret_cloexec = f & O_CLOEXEC;
        return 0;
}

bool cordon_notify_is_pty_master(const struct stat *st, int fl)
{
        /* /dev/ptmx and every devpts instance's ptmx are the character device 5:2; any open of
         * such a node is a pty master. An O_PATH descriptor has the same stat but no file
         * operations: refused here rather than left to the ioctl. */
        if (fl < 0 || (fl & O_PATH))
                return false;
        return S_ISCHR(st->st_mode) && major(st->st_rdev) == 5 && minor(st->st_rdev) == 2;
}

int cordon_notify_dir_of(pid_t pid, int dirfd, const char *path, char *buf, size_t n,
                         const char **ret_last)
{
        if (!path || !*path)
                return -ENOENT;
        const char *slash = strrchr(path, '/');
        const char *last = slash ? slash + 1 : path;
        if (!*last || streq(last, ".") || streq(last, ".."))
                return -EISDIR; /* "dir/", "..": no new name to create */
        size_t dirlen = slash ? (size_t)(slash - path) : 0;
        int k;
        if (path[0] == '/')
                k = snprintf(buf, n, "%.*s", dirlen ? (int)dirlen : 1, path);
        else if (dirfd == AT_FDCWD)
                k = snprintf(buf, n, "/proc/%d/cwd%s%.*s", (int)pid, dirlen ? "/" : "", (int)dirlen,
                             path);
        else if (dirfd >= 0)
                k = snprintf(buf, n, "/proc/%d/fd/%d%s%.*s", (int)pid, dirfd, dirlen ? "/" : "",
                             (int)dirlen, path);
        else
                return -EBADF;
        if (k < 0 || (size_t)k >= n)
                return -ENAMETOOLONG;
        *ret_last = last;
        return 0;
}

const char *cordon_notify_unix_note(enum cordon_seccomp_net rule)
{
        /* The ns backend's network namespace confines unix sockets (its mount view hides the
         * host's); under the landlock backend network mode open gives the command's own unix
         * sockets (tmux), never the host's (OPEN_UNIX). */
        if (rule == CORDON_SECCOMP_NET_NO_SOCKET)
                return "a unix socket was refused: the landlock backend has no network namespace, "
                       "so its isolated network refuses every socket(), unix ones too (tmux, "
                       "ssh-agent and D-Bus clients fail); use the ns backend or network mode "
                       "open (on Ubuntu the ns backend needs the AppArmor profile cordon "
                       "installs)";
        if (rule == CORDON_SECCOMP_NET_OPEN_UNIX)
                return "a unix socket was refused: the landlock backend has no mount view to hide "
                       "the host's unix sockets, and Landlock before ABI 9 cannot keep a connect() "
                       "from them, so even with the open network the command connects only to unix "
                       "sockets it bound itself, never to the host's services (ssh-agent, the "
                       "session bus, Docker, Slurm's munge: Slurm's commands go through cordon's "
                       "stubs) nor to abstract names; the ns backend hides them instead (on "
                       "Ubuntu it needs the AppArmor profile cordon installs)";
        return "a unix socket was refused: Landlock before ABI 9 cannot keep one from reaching the "
               "host's by their paths, so under the landlock backend the command connects only to "
               "unix sockets it bound itself, never to the host's (ssh-agent, the session bus, "
               "Docker) nor to abstract names (ssh-add and D-Bus clients fail), in every network "
               "mode; the ns backend hides the host's instead (on Ubuntu it needs the AppArmor "
               "profile cordon installs)";
}

const char *cordon_notify_unix_full_note(void)
{
        return "a unix socket was refused: the command has 1024 unix sockets bound at once, the "
               "most the landlock backend keeps track of; a bind beyond is refused until one of "
               "them is closed";
}

int cordon_notify_unix_errno(enum cordon_seccomp_net rule)
{
        int e =
            cordon_seccomp_unix_notified(&(struct cordon_seccomp_key){.net = rule, .notify = true});
        return e > 0 ? e : EACCES;
}

bool cordon_notify_connect_allowed(const void *sa, size_t len, uint16_t proxy_port)
{
        sa_family_t family;
        if (!sa || len < sizeof(family))
                return false;
        memcpy(&family, sa, sizeof(family));
        switch (family) {
        case AF_UNSPEC:
                /* Dissolves the association of a TCP socket; connects nothing. */
                return true;
        case AF_INET: {
                struct sockaddr_in in;
                if (len < sizeof(in) || proxy_port == 0)
                        return false;
                memcpy(&in, sa, sizeof(in));
                return in.sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
                       in.sin_port == htons(proxy_port);
        }
        case AF_INET6: {
                /* The kernel takes the RFC 2133 length (no scope id) too; a v4-mapped address
                 * needs none. */
                struct sockaddr_in6 in6 = {0};
                const size_t rfc2133 = offsetof(struct sockaddr_in6, sin6_scope_id);
                if (len < rfc2133 || proxy_port == 0)
                        return false;
                memcpy(&in6, sa, rfc2133);
                static const uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff, 127, 0, 0, 1};
                return memcmp(&in6.sin6_addr, mapped, sizeof(mapped)) == 0 &&
                       in6.sin6_port == htons(proxy_port);
        }
        default:
                return false;
        }
}

/* ---- the dispatcher ----------------------------------------------------------------------- */

int cordon_notify_answer_value(struct cordon_notify *n, uint64_t id, int64_t v)
{
        int r = cordon_seccomp_notif_return(n->listener, id, v);
        return r == -ENOENT ? ANSWER_DROP : ANSWER_DONE;
}

/* ioctl(fd, TIOCGPTPEER, flags): the peer of the caller's pty master, opened here, where
 * Landlock does not reach, and installed in the caller. */
static int on_ptpeer(struct cordon_notify *n, const struct seccomp_notif *req)
{
        int flags;
        bool cloexec;
        if (cordon_notify_ptpeer_flags(req->data.args[2], &flags, &cloexec) < 0)
                return cordon_notify_answer_value(n, req->id, -EINVAL);
        /* The kernel reads the descriptor as an unsigned int. */
        uint32_t fdno = (uint32_t)req->data.args[0];
        if (fdno > INT_MAX)
                return cordon_notify_answer_value(n, req->id, -EBADF);

        _cleanup_close_ int pidfd = cordon_seccomp_notif_pidfd(n->listener, req->id, req->pid);
        if (pidfd == -ENOENT)
                return ANSWER_DROP;
        /* Not ours to reach (the command made itself undumpable, or a thread on a kernel
         * without PIDFD_THREAD): the call runs as made, and Landlock refuses it. */
        if (pidfd < 0)
                return ANSWER_CONTINUE;
        _cleanup_close_ int fd = cordon_seccomp_pidfd_getfd(pidfd, (int)fdno);
        if (fd == -EBADF)
                return cordon_notify_answer_value(n, req->id, -EBADF);
        if (fd == -ESRCH)
                return ANSWER_DROP;
        if (fd < 0)
                return ANSWER_CONTINUE;
        struct stat st;
        if (fstat(fd, &st) < 0 || !cordon_notify_is_pty_master(&st, fcntl(fd, F_GETFL)))
                return cordon_notify_answer_value(n, req->id,
                                                  -ENOTTY); /* the kernel's answer for a non-pty */
        _cleanup_close_ int peer = ioctl(fd, TIOCGPTPEER, flags);
        if (peer < 0)
                return cordon_notify_answer_value(n, req->id, negative_errno());
        int r = cordon_seccomp_notif_send_fd(n->listener, req->id, peer, cloexec);
        if (r == -ENOENT)
                return ANSWER_DROP;
        /* Anything else (EMFILE in the caller...) is the caller's answer. */
        return r < 0 ? cordon_notify_answer_value(n, req->id, r) : ANSWER_DONE;
}

/* The string argument @addr of the caller, or 0 with @buf untouched when it cannot be read
 * (the call then runs as made). */
static int read_path(struct cordon_notify *n, const struct seccomp_notif *req, uint64_t addr,
                     char buf[static PATH_MAX])
{
        int r =
            cordon_seccomp_notif_read_string(n->listener, req->id, req->pid, addr, buf, PATH_MAX);
        if (r == -ENOENT)
                return ANSWER_DROP;
        return r < 0 ? ANSWER_CONTINUE : 0;
}

static void warn_tmp(struct cordon_notify *n, const char *path)
{
        if (n->warned_tmp || !n->warn)
                return;
        n->warned_tmp = true;
        char msg[PATH_MAX + 256];
        if (n->tmpdir)
                snprintf(msg, sizeof(msg),
                         "the landlock backend has no private /tmp: creating '%s' was refused "
                         "(use $TMPDIR, which is private, or the ns backend)",
                         path);
        else
                snprintf(msg, sizeof(msg),
                         "creating '%s' was refused: the capability policy gives no writable "
                         "temporary directory (the user_temp preset with write_text would)",
                         path);
        n->warn(n->userdata, msg);
}

/* A create at @path (relative to @dirfd) by the caller: EACCES with the note when it lands in
 * the host's /tmp outside every writable grant, else the call runs as made. A wrong guess here
 * (a directory renamed meanwhile) only changes whether the note is given: Landlock decides
 * either way. */
static int on_create(struct cordon_notify *n, const struct seccomp_notif *req, int dirfd,
                     const char *path)
{
        char dir[PATH_MAX + 64];
        const char *last;
        if (cordon_notify_dir_of(req->pid, dirfd, path, dir, sizeof(dir), &last) < 0)
                return ANSWER_CONTINUE;
        /* The note is for /tmp only: a create elsewhere (most are relative, in the project)
         * costs one readlink, no path walk. A path that reaches /tmp through "..", or a
         * symlink outside it, goes without the note: Landlock refuses it all the same. */
        if (path[0] == '/') {
                if (!path_is_below(path, "/tmp"))
                        return ANSWER_CONTINUE;
        } else {
                /* "/proc/PID/cwd" or "/proc/PID/fd/N", before the relative directory. */
                char link[64], base[PATH_MAX];
                if (dirfd == AT_FDCWD)
                        snprintf(link, sizeof(link), "/proc/%d/cwd", (int)req->pid);
                else
                        snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)req->pid, dirfd);
                ssize_t k = readlink(link, base, sizeof(base) - 1);
                if (k <= 0)
                        return ANSWER_CONTINUE;
                base[k] = 0;
                if (!path_is_below(base, "/tmp"))
                        return ANSWER_CONTINUE;
        }
        /* Only a create in /tmp itself: what `mktemp -d /tmp/x.XXXX` or `> /tmp/f` do. Deeper
         * (a project, a home or a test directory that happens to live under /tmp) a refusal has
         * other reasons (a read-only path, a mask, a carve) and the note would mislead. */
        _cleanup_free_ char *real = realpath(dir, NULL);
        if (!real || !streq(real, "/tmp"))
                return ANSWER_CONTINUE;
        _cleanup_free_ char *abs = NULL;
        if (asprintf(&abs, "%s/%s", streq(real, "/") ? "" : real, last) < 0)
                return ANSWER_CONTINUE;
        if (!cordon_tmp_gap(abs, (const char *const *)n->writable, n->n_writable))
                return ANSWER_CONTINUE;
        /* A name that is there already creates nothing: the kernel answers as it would (EEXIST
         * for mkdir or O_EXCL, an open Landlock decides otherwise), not the note's EACCES. */
        struct stat st;
        if (fstatat(AT_FDCWD, abs, &st, AT_SYMLINK_NOFOLLOW) == 0)
                return ANSWER_CONTINUE;
        /* Still the caller's call: the pid may have been reused while the path was walked. */
        if (cordon_seccomp_notif_id_valid(n->listener, req->id) < 0)
                return ANSWER_DROP;
        /* The note before the reply, so that it precedes what the command prints about the
         * refusal (written to the same terminal or pipe). */
        warn_tmp(n, abs);
        return cordon_notify_answer_value(n, req->id, -EACCES);
}

/* open/openat/creat with O_CREAT: a /dev/shm name is created in the private directory and the
 * descriptor installed in the caller; anything else goes to on_create(). Without O_CREAT (the
 * filter notifies those with O_NOFOLLOW, as shm_open() and sem_open() open an existing name): a
 * /dev/shm name is opened in the private directory only, never the host's, so a name that is not
 * there answers ENOENT; anything else runs as made, and Landlock decides. The path is read once
 * and only that copy is looked at; the descriptor goes to the caller only while its call is
 * still pending (ADDFD fails otherwise). */
static int on_open(struct cordon_notify *n, const struct seccomp_notif *req, int dirfd,
                   uint64_t addr, int flags, mode_t mode)
{
        const bool create = flags & O_CREAT;
        /* No private directory (PRIVATE_IPC=false): nothing to serve, and no read of the
         * caller's memory for the opens that only reach here for it. */
        if (!create && n->shm_dirfd < 0)
                return ANSWER_CONTINUE;
        char path[PATH_MAX];
        int r = read_path(n, req, addr, path);
        if (r != 0)
                return r;
        const char *name;
        if (n->shm_dirfd >= 0 && cordon_shm_name(path, &name) > 0) {
                _cleanup_close_ int fd = cordon_shm_open(n->shm_dirfd, name, flags, mode);
                if (fd < 0)
                        return cordon_notify_answer_value(n, req->id, fd);
                r = cordon_seccomp_notif_send_fd(n->listener, req->id, fd, flags & O_CLOEXEC);
                if (r == -ENOENT)
                        return ANSWER_DROP;
                return r < 0 ? cordon_notify_answer_value(n, req->id, r) : ANSWER_DONE;
        }
        return create ? on_create(n, req, dirfd, path) : ANSWER_CONTINUE;
}

static int on_mkdir(struct cordon_notify *n, const struct seccomp_notif *req, int dirfd,
                    uint64_t addr)
{
        char path[PATH_MAX];
        int r = read_path(n, req, addr, path);
        return r != 0 ? r : on_create(n, req, dirfd, path);
}

static int on_link(struct cordon_notify *n, const struct seccomp_notif *req, int newdirfd,
                   uint64_t oldaddr, uint64_t newaddr, uint64_t flags)
{
        char oldpath[PATH_MAX], newpath[PATH_MAX];
        int r = read_path(n, req, oldaddr, oldpath);
        if (r == 0)
                r = read_path(n, req, newaddr, newpath);
        if (r != 0)
                return r;
        const char *oldname, *newname;
        /* Both names in /dev/shm (sem_open() links its temporary file to the name): done in
         * the private directory. One of them elsewhere is left to Landlock, which keeps
         * /dev/shm closed. */
        if (n->shm_dirfd >= 0 && (flags & ~(uint64_t)AT_SYMLINK_FOLLOW) == 0 &&
            cordon_shm_name(oldpath, &oldname) > 0 && cordon_shm_name(newpath, &newname) > 0)
                return cordon_notify_answer_value(n, req->id,
                                                  cordon_shm_link(n->shm_dirfd, oldname, newname));
        return on_create(n, req, newdirfd, newpath);
}

static int on_unlink(struct cordon_notify *n, const struct seccomp_notif *req, uint64_t addr,
                     uint64_t flags)
{
        char path[PATH_MAX];
        int r = read_path(n, req, addr, path);
        if (r != 0)
                return r;
        const char *name;
        if (n->shm_dirfd >= 0 && flags == 0 && cordon_shm_name(path, &name) > 0)
                return cordon_notify_answer_value(n, req->id,
                                                  cordon_shm_unlink(n->shm_dirfd, name));
        return ANSWER_CONTINUE;
}

/* The descriptor argument of an *at() call, as the kernel reads it (an int). */
static int dirfd_arg(uint64_t a)
{
        return (int)(int32_t)(uint32_t)a;
}

static int dispatch_one(struct cordon_notify *n, const struct seccomp_notif *req)
{
        const __u64 *a = req->data.args;
        if (NATIVE_ARCH && req->data.arch != NATIVE_ARCH)
                return ANSWER_CONTINUE;
        switch (req->data.nr) {
        case SYS_socket:
                return cordon_notify_on_unix_socket(n, req);
        case SYS_bind:
                return n->socks ? cordon_notify_on_bind(n, req) : ANSWER_CONTINUE;
        case SYS_listen:
                /* Notified only with the record (the filter refuses it otherwise). */
                return n->socks ? cordon_notify_on_listen(n, req)
                                : cordon_notify_answer_value(n, req->id, -EACCES);
        case SYS_connect:
                if (cordon_seccomp_connect_notified(
                        &(struct cordon_seccomp_key){.net = n->socket_rule, .notify = true}))
                        return cordon_notify_on_connect(n, req);
                return ANSWER_CONTINUE;
        case SYS_ioctl:
                if ((uint32_t)a[1] == TIOCGPTPEER)
                        return on_ptpeer(n, req);
                return ANSWER_CONTINUE;
#ifdef SYS_open
        case SYS_open:
                return on_open(n, req, AT_FDCWD, a[0], (int)a[1], (mode_t)a[2]);
#endif
        case SYS_openat:
                return on_open(n, req, dirfd_arg(a[0]), a[1], (int)a[2], (mode_t)a[3]);
#ifdef SYS_creat
        case SYS_creat:
                return on_open(n, req, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, (mode_t)a[1]);
#endif
#ifdef SYS_mkdir
        case SYS_mkdir:
                return on_mkdir(n, req, AT_FDCWD, a[0]);
#endif
        case SYS_mkdirat:
                return on_mkdir(n, req, dirfd_arg(a[0]), a[1]);
#ifdef SYS_link
        case SYS_link:
                return on_link(n, req, AT_FDCWD, a[0], a[1], 0);
#endif
        case SYS_linkat:
                /* The new name is what the /tmp note looks at; the old one only counts for
                 * /dev/shm, where names are absolute. */
                return on_link(n, req, dirfd_arg(a[2]), a[1], a[3], a[4]);
#ifdef SYS_unlink
        case SYS_unlink:
                return on_unlink(n, req, a[0], 0);
#endif
        case SYS_unlinkat:
                return on_unlink(n, req, a[1], a[2]);
        default:
                return ANSWER_CONTINUE;
        }
}

static int on_listener(struct cordon_loop_io *io, int fd, uint32_t events, void *userdata)
{
        (void)fd;
        struct cordon_notify *n = userdata;
        /* The epoll bits of these are poll()'s. */
        short revents = (short)events;
        for (unsigned i = 0; i < NOTIFY_BATCH && (revents & POLLIN); i++) {
                struct seccomp_notif req;
                int r = cordon_seccomp_notif_recv(n->listener, &req);
                if (r < 0) {
                        /* ENOENT: the caller went away between the poll and the receive. */
                        if (r != -ENOENT && r != -EAGAIN)
                                revents |= POLLERR;
                        break;
                }
                r = dispatch_one(n, &req);
                if (r == ANSWER_CONTINUE)
                        (void)cordon_seccomp_notif_continue(n->listener, req.id);
                struct pollfd p = {.fd = n->listener, .events = POLLIN};
                if (poll(&p, 1, 0) <= 0)
                        break;
                revents = p.revents;
        }
        /* Every process under the filter is gone (or the listener broke): nothing will come
         * any more, and a hung-up descriptor would wake the loop for ever. */
        if ((revents & (POLLHUP | POLLERR | POLLNVAL)) && !(revents & POLLIN))
                (void)cordon_loop_io_set_enabled(io, false);
        return 0;
}

/* ---- the object --------------------------------------------------------------------------- */

int cordon_notify_new(int listener, const struct cordon_notify_config *cfg,
                      struct cordon_notify **ret)
{
        _cleanup_close_ int fd = listener;
        if (listener < 0 || !cfg || !ret)
                return -EINVAL;
        /* Speed only: a kernel before 6.6 answers the same, with a wake-up elsewhere. */
        (void)cordon_seccomp_notify_sync_wakeup(listener);
        _cleanup_free_ struct cordon_notify *n = calloc(1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        _cleanup_strv_free_ char **writable = NULL;
        for (size_t i = 0; i < cfg->n_writable; i++)
                if (cfg->writable[i] && strv_extend(&writable, cfg->writable[i]) < 0)
                        return -ENOMEM;
        if (cordon_seccomp_unix_supervised(
                &(struct cordon_seccomp_key){.net = cfg->socket_rule, .notify = true})) {
                int r = cordon_unix_socks_new(&n->socks);
                if (r < 0)
                        return r;
        }
        int shm = -EBADF;
        if (cfg->shm_dirfd >= 0 && (shm = fcntl(cfg->shm_dirfd, F_DUPFD_CLOEXEC, 3)) < 0) {
                int r = negative_errno();
                cordon_unix_socks_free(n->socks);
                return r;
        }
        n->listener = TAKE_FD(fd);
        n->shm_dirfd = shm;
        n->n_writable = strv_length(writable);
        n->writable = TAKE_PTR(writable);
        n->warn = cfg->warn;
        n->userdata = cfg->userdata;
        n->socket_rule = cfg->socket_rule;
        n->tmpdir = cfg->tmpdir;
        n->proxy_port = cfg->proxy_port;
        *ret = TAKE_PTR(n);
        return 0;
}

int cordon_notify_attach(struct cordon_notify *n, struct cordon_loop *loop)
{
        if (!n || !loop || n->io)
                return -EINVAL;
        int r = cordon_loop_add_io(loop, n->listener, EPOLLIN, on_listener, n, &n->io);
        if (r >= 0)
                n->loop = loop;
        return r;
}

void cordon_notify_detach(struct cordon_notify *n)
{
        if (!n)
                return;
        cordon_notify_pending_free(n);
        n->io = cordon_loop_io_free(n->io);
        n->loop = NULL;
}

void cordon_notify_free(struct cordon_notify *n)
{
        if (!n)
                return;
        cordon_notify_detach(n);
        safe_close(n->listener);
        safe_close(n->shm_dirfd);
        strv_free(n->writable);
        cordon_unix_socks_free(n->socks);
        free(n);
}
