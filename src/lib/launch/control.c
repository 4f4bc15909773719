/* The control channel: a SOCK_SEQPACKET pair and its typed messages (see control.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/launch/control.h"

int cordon_control_pair(int ret[2])
{
        return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ret) < 0 ? -errno : 0;
}

int cordon_control_send_payload(int sock, const struct cordon_control_msg *m, const void *payload,
                                size_t len)
{
        if (len > CORDON_CONTROL_PAYLOAD_MAX)
                return -EMSGSIZE;
        struct cordon_control_msg copy = *m;
        copy.payload_len = (uint32_t)len;
        struct iovec iov[2] = {{.iov_base = &copy, .iov_len = sizeof(copy)},
                               {.iov_base = (void *)(uintptr_t)payload, .iov_len = len}};
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int) * CORDON_CONTROL_FDS_MAX)];
        } u;
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
        const int *fds = NULL;
        size_t n_fds = 0;
        if (m->type == CORDON_CONTROL_FD) {
                if (m->fd < 0)
                        return -EBADF;
                fds = &m->fd;
                n_fds = 1;
        } else if (m->type == CORDON_CONTROL_STARTED && m->fd >= 0) {
                fds = &m->fd;
                n_fds = 1;
        } else if (m->type == CORDON_CONTROL_EXEC) {
                if (m->n_fds > CORDON_CONTROL_FDS_MAX)
                        return -EINVAL;
                fds = m->fds;
                n_fds = m->n_fds;
                for (size_t i = 0; i < n_fds; i++)
                        if (fds[i] < 0)
                                return -EBADF;
        }
        if (n_fds > 0) {
                memset(&u, 0, sizeof(u));
                mh.msg_control = u.buf;
                mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
                struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
                memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
        }
        ssize_t n;
        do
                n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        return n == (ssize_t)(sizeof(copy) + len) ? 0 : -EIO;
}

int cordon_control_send(int sock, const struct cordon_control_msg *m)
{
        return cordon_control_send_payload(sock, m, NULL, 0);
}

int cordon_control_write(int fd, const struct cordon_control_msg *m)
{
        ssize_t n;
        do
                n = write(fd, m, sizeof(*m));
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        return n == (ssize_t)sizeof(*m) ? 0 : -EIO;
}

int cordon_control_report(int sock, int step, int err, int rule)
{
        struct cordon_control_msg m = {.type = CORDON_CONTROL_REPORT,
                                       .step = step,
                                       .err = err < 0 ? -err : err,
                                       .rule = rule,
                                       .fd = -1};
        return cordon_control_write(sock, &m);
}

/* How many descriptors a message of @type brings (-1: as its n_fds says). */
static int fds_of(uint32_t type)
{
        switch (type) {
        case CORDON_CONTROL_FD:
                return 1;
        case CORDON_CONTROL_EXEC:
                return -1;
        case CORDON_CONTROL_STARTED:
                return -2; /* none, or a pidfd of the command */
        default:
                return 0;
        }
}

static void close_all(const int *fds, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (fds[i] >= 0)
                        (void)close(fds[i]);
}

int cordon_control_recv_payload(int sock, int flags, struct cordon_control_msg *ret, void *buf,
                                size_t cap)
{
        struct cordon_control_msg m;
        struct iovec iov[2] = {{.iov_base = &m, .iov_len = sizeof(m)},
                               {.iov_base = buf, .iov_len = buf ? cap : 0}};
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int) * CORDON_CONTROL_FDS_MAX)];
        } u;
        struct msghdr mh = {.msg_iov = iov,
                            .msg_iovlen = buf && cap ? 2 : 1,
                            .msg_control = u.buf,
                            .msg_controllen = sizeof(u.buf)};
        ssize_t n;
        /* ECONNRESET: the other end closed with a message of ours unread. The kernel says so
         * once, before the messages it had sent, which the next call still reads, and then its
         * end of file. It happens when the filtered mode's child went on once its namespace
         * was configured while pasta said it was ready: the second release comes, and nobody
         * reads it. */
        bool reset = false;
        do
                n = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC);
        while (n < 0 && (errno == EINTR || (errno == ECONNRESET && !reset && (reset = true))));
        if (n < 0)
                return -errno;
        if (n == 0)
                return 0;
        int fds[CORDON_CONTROL_FDS_MAX] = {-1, -1, -1};
        size_t n_fds = 0;
        bool odd_cmsg = false;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
                    c->cmsg_len < CMSG_LEN(0)) {
                        odd_cmsg = true;
                        continue;
                }
                size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < k; i++) {
                        int fd;
                        memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                        if (n_fds < CORDON_CONTROL_FDS_MAX)
                                fds[n_fds++] = fd;
                        else if (fd >= 0)
                                (void)close(fd), odd_cmsg = true;
                }
        }
        int want = (size_t)n >= sizeof(m) ? fds_of(m.type) : 0;
        size_t payload = (size_t)n >= sizeof(m) ? (size_t)n - sizeof(m) : 0;
        bool ok = (size_t)n >= sizeof(m) && !odd_cmsg &&
                  !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) && m.type >= CORDON_CONTROL_RELEASE &&
                  m.type < _CORDON_CONTROL_TYPE_MAX && m.payload_len == payload &&
                  (m.type == CORDON_CONTROL_EXEC
                       ? m.n_fds <= CORDON_CONTROL_FDS_MAX && n_fds == m.n_fds
                       : payload == 0 && (want == -2 ? n_fds <= 1 : (size_t)want == n_fds));
        if (!ok) {
                close_all(fds, n_fds);
                return -EBADMSG;
        }
        if (m.type == CORDON_CONTROL_FD || m.type == CORDON_CONTROL_STARTED) {
                m.fd = fds[0];
                m.n_fds = 0;
        } else {
                m.fd = -1;
                if (m.type != CORDON_CONTROL_EXEC)
                        m.n_fds = 0;
        }
        memcpy(m.fds, fds, sizeof(m.fds));
        *ret = m;
        return 1;
}

int cordon_control_recv(int sock, int flags, struct cordon_control_msg *ret)
{
        struct cordon_control_msg m;
        int r = cordon_control_recv_payload(sock, flags, &m, NULL, 0);
        if (r <= 0)
                return r;
        if (m.type == CORDON_CONTROL_EXEC) {
                close_all(m.fds, m.n_fds);
                return -EBADMSG;
        }
        *ret = m;
        return 1;
}
