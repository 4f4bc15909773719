/* The landlock backend's notified socket calls (notify-internal.h): a refused unix socket with
 * its note, the command's own unix sockets' bind(), listen() and connect() kept to the ones it
 * bound (notify-unix.h), proxied mode's connect() made here, to the proxy only, and the open
 * network's made here to anywhere. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/supervisor/notify-internal.h"
#include "lib/supervisor/notify-unix.h"
#include "lib/supervisor/notify.h"
#include "lib/loop/loop.h"
#include "lib/mech/seccomp-notify.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

/* socket(AF_UNIX, SOCK_STREAM, 0), which the socket rule refuses: the rule's errno, whatever
 * the arguments (the filter notifies nothing else, and a mistake here must stay a refusal), and
 * the note the first time. An error reply, never "continue": nothing after the filter would keep
 * the socket from reaching the host's by path. O(1), no read of the caller's memory: a flood of
 * these costs one reply each and prints one line per run. The line goes out before the reply,
 * so it precedes whatever the command prints about the failure. */
int cordon_notify_on_unix_socket(struct cordon_notify *n, const struct seccomp_notif *req)
{
        if (!n->warned_unix && n->warn) {
                if (cordon_seccomp_notif_id_valid(n->listener, req->id) < 0)
                        return ANSWER_DROP;
                n->warned_unix = true;
                n->warn(n->userdata, cordon_notify_unix_note(n->socket_rule));
        }
        return cordon_notify_answer_value(n, req->id, -cordon_notify_unix_errno(n->socket_rule));
}

/* A unix socket's bind or connect the supervisor refuses because it would reach beyond the
 * command's own sockets (a host socket, an abstract name): EACCES, and the note the first time,
 * before the reply. */
static int refuse_unix(struct cordon_notify *n, const struct seccomp_notif *req)
{
        if (!n->warned_unix && n->warn) {
                if (cordon_seccomp_notif_id_valid(n->listener, req->id) < 0)
                        return ANSWER_DROP;
                n->warned_unix = true;
                n->warn(n->userdata, cordon_notify_unix_note(n->socket_rule));
        }
        return cordon_notify_answer_value(n, req->id, -EACCES);
}

/* The supervisor's copy of the caller's descriptor @fdno (pidfd_getfd): >= 0, ANSWER_DROP when
 * the caller is gone, or another -errno (-EBADF: no such descriptor; -EPERM and the like: the
 * caller cannot be reached, having made itself undumpable). */
static int caller_fd(struct cordon_notify *n, const struct seccomp_notif *req, int fdno)
{
        _cleanup_close_ int pidfd = cordon_seccomp_notif_pidfd(n->listener, req->id, req->pid);
        if (pidfd == -ENOENT)
                return ANSWER_DROP;
        if (pidfd < 0)
                return pidfd;
        int fd = cordon_seccomp_pidfd_getfd(pidfd, fdno);
        return fd == -ESRCH ? ANSWER_DROP : fd;
}

static int socket_domain(int sock)
{
        int domain = 0;
        socklen_t l = sizeof(domain);
        if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &l) < 0)
                return errno == ENOTSOCK ? -ENOTSOCK : -EACCES;
        return domain;
}

/* The @len bytes of address at the caller's @addr, read once into @buf: 0, ANSWER_DROP when the
 * caller is gone, or the -errno to answer (-EFAULT as the kernel would, -EACCES for a read that
 * failed otherwise: a call that cannot be checked is refused). */
static int read_address(struct cordon_notify *n, const struct seccomp_notif *req, uint64_t addr,
                        int len, void *buf)
{
        if (len <= 0)
                return 0;
        int r = cordon_seccomp_notif_read(n->listener, req->id, req->pid, addr, buf, (size_t)len);
        if (r == -ENOENT)
                return ANSWER_DROP;
        return r < 0 ? (r == -EFAULT ? -EFAULT : -EACCES) : 0;
}

/* bind(fd, addr, len) under cordon_seccomp_unix_supervised(): a unix socket about to be bound to
 * a path is recorded as the command's (notify-unix.h), then the call continues, and the kernel
 * binds it under the command's Landlock domain, whose rule for making socket files decides
 * where. Continuing is safe here whatever another thread changes meanwhile: the kernel and
 * Landlock check the call as made, and what the record gives is checked again at each connect
 * (the socket file it is bound to, as the kernel reports it then). An abstract name is refused:
 * nothing of the sandbox may connect to one, and it would take a name in the host's namespace
 * that a host process may look for (a thread that swaps the name for an abstract one after it
 * was read here still gets it bound: see notify-unix.h). Anything that is not a unix socket's
 * bind, or that cannot be looked at, continues unrecorded: its socket is just none of those a
 * connect may reach. */
int cordon_notify_on_bind(struct cordon_notify *n, const struct seccomp_notif *req)
{
        const __u64 *a = req->data.args;
        int fdno = (int)(int32_t)(uint32_t)a[0];
        int len = (int)(int32_t)(uint32_t)a[2];
        if (fdno < 0 || len < 0 || (size_t)len > sizeof(struct sockaddr_un))
                return ANSWER_CONTINUE; /* the kernel refuses it (EBADF, EINVAL) */
        _cleanup_close_ int sock = caller_fd(n, req, fdno);
        if (sock == ANSWER_DROP)
                return ANSWER_DROP;
        if (sock < 0 || socket_domain(sock) != AF_UNIX)
                return ANSWER_CONTINUE;
        struct sockaddr_un sa = {0};
        if (len > 0) {
                int r = cordon_seccomp_notif_read(n->listener, req->id, req->pid, a[1], &sa,
                                                  (size_t)len);
                if (r == -ENOENT)
                        return ANSWER_DROP;
                if (r < 0)
                        return ANSWER_CONTINUE;
        }
        char path[sizeof(sa.sun_path) + 1];
        int kind = cordon_unix_addr_parse(&sa, (size_t)len, path, sizeof(path));
        if (kind == CORDON_UNIX_ADDR_ABSTRACT)
                return refuse_unix(n, req);
        /* An autobound name is abstract too, but random: nothing can be looking for it. */
        if (kind != CORDON_UNIX_ADDR_PATH)
                return ANSWER_CONTINUE;
        int r = cordon_unix_socks_add(n->socks, sock);
        if (r == -ENOSPC) {
                if (!n->warned_unix_full && n->warn) {
                        if (cordon_seccomp_notif_id_valid(n->listener, req->id) < 0)
                                return ANSWER_DROP;
                        n->warned_unix_full = true;
                        n->warn(n->userdata, cordon_notify_unix_full_note());
                }
                return cordon_notify_answer_value(n, req->id, -EACCES);
        }
        /* Not recorded for another reason (sock_diag failed): refused here rather than bound
         * and then unreachable. */
        if (r < 0)
                return cordon_notify_answer_value(n, req->id, -EACCES);
        return ANSWER_CONTINUE;
}

/* listen(fd, backlog) under cordon_seccomp_unix_supervised(): made here, on the supervisor's copy
 * of the caller's socket, when it is a unix one (the kernel refuses an unbound one: no autobind
 * for unix listeners); anything else answers EACCES, as the stream rules do without the
 * supervisor (a TCP socket never bound would get a port of its own on every address, past
 * Landlock's bind rule). Never "continue": another thread could have put a TCP socket at the
 * same number by then. The listener's peer credentials (SO_PEERCRED of its clients) are the
 * supervisor's: the same user, another process id. */
int cordon_notify_on_listen(struct cordon_notify *n, const struct seccomp_notif *req)
{
        const __u64 *a = req->data.args;
        int fdno = (int)(int32_t)(uint32_t)a[0];
        int backlog = (int)(int32_t)(uint32_t)a[1];
        if (fdno < 0)
                return cordon_notify_answer_value(n, req->id, -EBADF);
        _cleanup_close_ int sock = caller_fd(n, req, fdno);
        if (sock == ANSWER_DROP)
                return ANSWER_DROP;
        if (sock < 0)
                return cordon_notify_answer_value(n, req->id, sock == -EBADF ? -EBADF : -EACCES);
        int domain = socket_domain(sock);
        if (domain == -ENOTSOCK)
                return cordon_notify_answer_value(n, req->id, -ENOTSOCK);
        /* The open network listens on any socket: made here all the same, on the copy. */
        if (domain != AF_UNIX && n->socket_rule != CORDON_SECCOMP_NET_OPEN_UNIX)
                return cordon_notify_answer_value(n, req->id, -EACCES);
        return cordon_notify_answer_value(n, req->id,
                                          listen(sock, backlog) < 0 ? negative_errno() : 0);
}

/* connect() of a unix socket on the caller's behalf, without blocking the event loop for long: a
 * unix connect completes at once or not at all; a listener whose backlog is full answers EAGAIN,
 * which a blocking caller would wait out: it is tried again for CONNECT_WAIT_MS at most. */
static int connect_unix_as_caller(int sock, int fl, const struct sockaddr_un *sa, socklen_t len)
{
        const bool blocking = !(fl & O_NONBLOCK);
        if (blocking && fcntl(sock, F_SETFL, fl | O_NONBLOCK) < 0)
                return negative_errno();
        int r;
        for (unsigned waited = 0;; waited += 5) {
                r = connect(sock, (const struct sockaddr *)sa, len) < 0 ? negative_errno() : 0;
                if (r != -EAGAIN || !blocking || waited >= CONNECT_WAIT_MS)
                        break;
                (void)poll(NULL, 0, 5);
        }
        if (blocking)
                (void)fcntl(sock, F_SETFL, fl);
        return r;
}

/* connect() of a unix stream or seqpacket socket (@sock, the supervisor's copy of the caller's)
 * under cordon_seccomp_unix_supervised(), to the @len bytes of address at the caller's @addr.
 * The address is read once; an abstract name is refused (a connect made here would not be
 * under the command's Landlock scope, which keeps the host's abstract sockets out). A path is
 * resolved as the caller would (its cwd for a relative one), opened here (O_PATH, following
 * symlinks as the kernel's connect does: only what the descriptor is counts), and must be the
 * socket file of a socket the command bound (notify-unix.h); then the supervisor's copy is
 * connected through /proc/self/fd/N, which reaches exactly that inode whatever happens to the
 * path meanwhile. A socket file no socket is bound to answers ECONNREFUSED as the kernel would
 * (tmux removes a stale one and starts its server); a live one of the host's EACCES, with the
 * note. The client's peer credentials (SO_PEERCRED at the listener) are the supervisor's: the
 * same user, another process id. */
static int on_connect_unix(struct cordon_notify *n, const struct seccomp_notif *req, int sock,
                           uint64_t addr, int len)
{
        int type = 0;
        socklen_t tl = sizeof(type);
        if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
                return cordon_notify_answer_value(n, req->id, -EACCES);
        /* A datagram socket (inherited, or a pair's end) is never connected here: its sends may
         * name any destination anyway. */
        if (type != SOCK_STREAM && type != SOCK_SEQPACKET)
                return cordon_notify_answer_value(n, req->id, -EACCES);
        if ((size_t)len > sizeof(struct sockaddr_un))
                return cordon_notify_answer_value(n, req->id, -EINVAL);
        struct sockaddr_un sa = {0};
        int got = read_address(n, req, addr, len, &sa);
        if (got == ANSWER_DROP)
                return got;
        if (got < 0)
                return cordon_notify_answer_value(n, req->id, got);
        char path[sizeof(sa.sun_path) + 1];
        int kind = cordon_unix_addr_parse(&sa, (size_t)len, path, sizeof(path));
        if (kind < 0 || kind == CORDON_UNIX_ADDR_UNNAMED)
                return cordon_notify_answer_value(n, req->id, -EINVAL);
        if (kind == CORDON_UNIX_ADDR_ABSTRACT)
                return refuse_unix(n, req);
        char target[PATH_MAX];
        int r = cordon_unix_target_path(req->pid, path, target, sizeof(target));
        if (r < 0)
                return cordon_notify_answer_value(n, req->id, r);
        _cleanup_close_ int fd = open(target, O_PATH | O_CLOEXEC);
        r = fd < 0 ? negative_errno() : 0;
        /* /proc/PID was the caller's only if its call is still pending. */
        if (cordon_seccomp_notif_id_valid(n->listener, req->id) < 0)
                return ANSWER_DROP;
        if (r < 0)
                return cordon_notify_answer_value(
                    n, req->id, r); /* ENOENT, ENOTDIR, ELOOP...: what stat says */
        struct stat st;
        if (fstat(fd, &st) < 0)
                return cordon_notify_answer_value(n, req->id, -EACCES);
        if (!S_ISSOCK(st.st_mode))
                return cordon_notify_answer_value(n, req->id, -ECONNREFUSED);
        bool live = true;
        r = cordon_unix_socks_owns(n->socks, fd, &live);
        if (r < 0)
                return cordon_notify_answer_value(n, req->id, -EACCES);
        if (r == 0)
                return live ? refuse_unix(n, req)
                            : cordon_notify_answer_value(n, req->id, -ECONNREFUSED);
        struct sockaddr_un via = {.sun_family = AF_UNIX};
        int k = snprintf(via.sun_path, sizeof(via.sun_path), "/proc/self/fd/%d", fd);
        if (k < 0 || (size_t)k >= sizeof(via.sun_path))
                return cordon_notify_answer_value(n, req->id, -EACCES);
        int fl = fcntl(sock, F_GETFL);
        if (fl < 0)
                return cordon_notify_answer_value(n, req->id, -EACCES);
        socklen_t vl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)k + 1);
        return cordon_notify_answer_value(n, req->id, connect_unix_as_caller(sock, fl, &via, vl));
}

/* connect(@sock, @sa, @len) for a caller whose socket is blocking or not (@fl, its file status
 * flags), without blocking the event loop: a blocking socket is made non-blocking for the call
 * and the handshake awaited for CONNECT_WAIT_MS at most. The flags belong to the open file, which
 * the caller shares: they are put back before the answer. */
static int connect_as_caller(int sock, int fl, const void *sa, socklen_t len)
{
        const bool blocking = !(fl & O_NONBLOCK);
        if (blocking && fcntl(sock, F_SETFL, fl | O_NONBLOCK) < 0)
                return negative_errno();
        int r = connect(sock, sa, len) < 0 ? negative_errno() : 0;
        if (blocking && r == -EINPROGRESS) {
                struct pollfd p = {.fd = sock, .events = POLLOUT};
                int k;
                do
                        k = poll(&p, 1, CONNECT_WAIT_MS);
                while (k < 0 && errno == EINTR);
                int err = 0;
                socklen_t el = sizeof(err);
                if (k < 0)
                        r = negative_errno();
                else if (k == 0)
                        r = -ETIMEDOUT;
                else if (getsockopt(sock, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
                        r = negative_errno();
                else
                        r = -err;
        }
        if (blocking)
                (void)fcntl(sock, F_SETFL, fl);
        return r;
}

/* ---- the open network's connects (OPEN_UNIX) ---------------------------------------------- */

struct cordon_pending_connect {
        struct cordon_notify *n;
        uint64_t id;
        int sock; /* the supervisor's copy of the caller's socket */
        struct cordon_loop_io *io;
        struct cordon_loop_timer *timeout; /* the caller's SO_SNDTIMEO, when it set one */
        struct cordon_pending_connect *prev, *next;
};

static void pending_free(struct cordon_pending_connect *pc)
{
        struct cordon_notify *n = pc->n;
        if (pc->prev)
                pc->prev->next = pc->next;
        else
                n->pending = pc->next;
        if (pc->next)
                pc->next->prev = pc->prev;
        n->n_pending--;
        cordon_loop_io_free(pc->io);
        cordon_loop_timer_free(pc->timeout);
        safe_close(pc->sock);
        free(pc);
}

void cordon_notify_pending_free(struct cordon_notify *n)
{
        while (n && n->pending)
                pending_free(n->pending);
}

/* The awaited handshake is over (the socket is writable, or has an error): the caller gets what
 * its blocking connect() would have returned. Its call may have ended meanwhile (a signal, its
 * exit): the answer then goes nowhere. */
static int on_connected(struct cordon_loop_io *io, int fd, uint32_t events, void *userdata)
{
        (void)io;
        struct cordon_pending_connect *pc = userdata;
        int err = 0;
        socklen_t el = sizeof(err);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
                err = errno;
        else if (err == 0 && !(events & EPOLLOUT))
                err = ECONNRESET; /* hung up without saying why */
        (void)cordon_notify_answer_value(pc->n, pc->id, -err);
        pending_free(pc);
        return 0;
}

/* The caller's send timeout (SO_SNDTIMEO) is over before the handshake: its blocking connect()
 * would return EINPROGRESS now, the handshake going on in the kernel. */
static int on_connect_timeout(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        struct cordon_pending_connect *pc = userdata;
        (void)cordon_notify_answer_value(pc->n, pc->id, -EINPROGRESS);
        pending_free(pc);
        return 0;
}

/* The send timeout of @sock in microseconds; 0: none (or it cannot be read). The command sets
 * it: one of a year or more (which could overflow the deadline) counts as none. */
static uint64_t send_timeout_usec(int sock)
{
        struct timeval tv = {0};
        socklen_t l = sizeof(tv);
        if (getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, &l) < 0 || tv.tv_sec < 0 ||
            tv.tv_usec < 0 || tv.tv_sec >= 366 * 24 * 3600)
                return 0;
        return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* Answers notification @id when @sock's handshake is over, or with EINPROGRESS once the
 * caller's send timeout is; takes @sock. */
static int await_connect(struct cordon_notify *n, uint64_t id, int sock)
{
        _cleanup_close_ int fd = sock;
        if (!n->loop || n->n_pending >= CONNECTS_PENDING_MAX)
                return cordon_notify_answer_value(n, id, -EAGAIN);
        struct cordon_pending_connect *pc = calloc(1, sizeof(*pc));
        if (!pc)
                return cordon_notify_answer_value(n, id, -ENOMEM);
        *pc = (struct cordon_pending_connect){.n = n, .id = id, .sock = -EBADF, .next = n->pending};
        int r = cordon_loop_add_io(n->loop, fd, EPOLLOUT, on_connected, pc, &pc->io);
        uint64_t timeout = r < 0 ? 0 : send_timeout_usec(fd);
        if (r >= 0 && timeout &&
            (r = cordon_loop_add_timer(n->loop, cordon_loop_now(n->loop) + timeout,
                                       on_connect_timeout, pc, &pc->timeout)) < 0)
                cordon_loop_io_free(pc->io);
        if (r < 0) {
                free(pc);
                return cordon_notify_answer_value(n, id, -EAGAIN);
        }
        pc->sock = TAKE_FD(fd);
        if (n->pending)
                n->pending->prev = pc;
        n->pending = pc;
        n->n_pending++;
        return ANSWER_DONE;
}

/* connect(fd, addr, len) of any socket but a unix one under the open network (OPEN_UNIX): every
 * destination is the command's, but the connect is made here, on the supervisor's copy of the
 * socket with one copy of the address, never "continue" (another thread could have put a unix
 * socket at that number, or a host socket's path in the address, by the time the kernel read
 * them again). A non-blocking socket gets the kernel's answer at once (EINPROGRESS); a blocking
 * one is connected without blocking, and answered once the handshake is over (or, as the kernel
 * would, with EINPROGRESS once its SO_SNDTIMEO is), so a slow peer holds up neither the loop nor
 * the command's other calls. */
static int on_connect_open(struct cordon_notify *n, const struct seccomp_notif *req, int sock,
                           uint64_t addr, int len)
{
        struct sockaddr_storage sa = {0};
        int k = read_address(n, req, addr, len, &sa);
        if (k == ANSWER_DROP)
                return k;
        if (k < 0)
                return cordon_notify_answer_value(n, req->id, k);
        int fl = fcntl(sock, F_GETFL);
        if (fl < 0)
                return cordon_notify_answer_value(n, req->id, -EACCES);
        const bool blocking = !(fl & O_NONBLOCK);
        if (blocking && fcntl(sock, F_SETFL, fl | O_NONBLOCK) < 0)
                return cordon_notify_answer_value(n, req->id, negative_errno());
        int r =
            connect(sock, (const struct sockaddr *)&sa, (socklen_t)len) < 0 ? negative_errno() : 0;
        /* The flags belong to the open file, which the caller shares: put back at once (the
         * handshake goes on without them). */
        if (blocking)
                (void)fcntl(sock, F_SETFL, fl);
        /* A blocking connect waits, even for one already under way (EALREADY). */
        if (!blocking || (r != -EINPROGRESS && r != -EALREADY))
                return cordon_notify_answer_value(n, req->id, r);
        int copy = fcntl(sock, F_DUPFD_CLOEXEC, 3);
        if (copy < 0)
                return cordon_notify_answer_value(n, req->id, -EAGAIN);
        return await_connect(n, req->id, copy);
}

/* Whether @sock is a TCP socket of AF_INET or AF_INET6 (the stream rules let the command make
 * nothing else of those families); 0, -ENOTSOCK, or -EACCES for any other socket. */
static int check_tcp(int sock)
{
        int domain = 0, type = 0, proto = 0;
        socklen_t l1 = sizeof(domain), l2 = sizeof(type), l3 = sizeof(proto);
        if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &l1) < 0)
                return errno == ENOTSOCK ? -ENOTSOCK : -EACCES;
        if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &l2) < 0 ||
            getsockopt(sock, SOL_SOCKET, SO_PROTOCOL, &proto, &l3) < 0)
                return -EACCES;
        if ((domain != AF_INET && domain != AF_INET6) || type != SOCK_STREAM ||
            proto != IPPROTO_TCP)
                return -EACCES;
        return 0;
}

/* connect(fd, addr, len) under proxied mode's stream rules: Landlock's TCP rule lets any host at
 * the proxy's port through, so the destination is checked here, on one copy of the address,
 * and the connect made here, on the supervisor's copy of the socket; never "continue", which
 * would have the kernel read the address and look the descriptor up again after another thread
 * could have changed either. A unix socket (inherited, a socketpair's end, or made under
 * STREAM_UNIX) is refused too: letting its connect continue would leave that race open
 * (a TCP socket dup2()ed over the same number), and making it here would bypass Landlock's
 * rules for unix sockets. A caller the supervisor cannot reach (it made itself undumpable)
 * is refused: a confinement that cannot be checked fails closed. */
int cordon_notify_on_connect(struct cordon_notify *n, const struct seccomp_notif *req)
{
        const __u64 *a = req->data.args;
        /* The kernel reads the descriptor and the length as ints. */
        int fdno = (int)(int32_t)(uint32_t)a[0];
        int len = (int)(int32_t)(uint32_t)a[2];
        if (fdno < 0)
                return cordon_notify_answer_value(n, req->id, -EBADF);
        if (len < 0 || (size_t)len > sizeof(struct sockaddr_storage))
                return cordon_notify_answer_value(n, req->id, -EINVAL);

        _cleanup_close_ int sock = caller_fd(n, req, fdno);
        if (sock == ANSWER_DROP)
                return ANSWER_DROP;
        if (sock < 0)
                return cordon_notify_answer_value(n, req->id, sock == -EBADF ? -EBADF : -EACCES);
        int domain = socket_domain(sock);
        if (n->socks && domain == AF_UNIX)
                return on_connect_unix(n, req, sock, a[1], len);
        if (n->socket_rule == CORDON_SECCOMP_NET_OPEN_UNIX) {
                /* Only a socket known not to be a unix one is connected anywhere: one whose
                 * family cannot be told is refused, never taken for another. */
                if (domain < 0 || domain == AF_UNIX)
                        return cordon_notify_answer_value(
                            n, req->id, domain == -ENOTSOCK ? -ENOTSOCK : -EACCES);
                return on_connect_open(n, req, sock, a[1], len);
        }
        int r = check_tcp(sock);
        if (r < 0)
                return cordon_notify_answer_value(n, req->id, r);

        struct sockaddr_storage sa = {0};
        r = read_address(n, req, a[1], len, &sa);
        if (r == ANSWER_DROP)
                return r;
        if (r < 0)
                return cordon_notify_answer_value(n, req->id, r);
        if (!cordon_notify_connect_allowed(&sa, (size_t)len, n->proxy_port))
                return cordon_notify_answer_value(n, req->id, -EACCES);
        int fl = fcntl(sock, F_GETFL);
        if (fl < 0)
                return cordon_notify_answer_value(n, req->id, -EACCES);
        return cordon_notify_answer_value(n, req->id,
                                          connect_as_caller(sock, fl, &sa, (socklen_t)len));
}
