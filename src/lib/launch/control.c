/* The control channel: a SOCK_SEQPACKET pair and its typed messages (see control.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/launch/control.h"

int cordon_control_pair(int ret[2])
{
        return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ret) < 0 ? -errno : 0;
}

int cordon_control_send(int sock, const struct cordon_control_msg *m)
{
        struct cordon_control_msg copy = *m;
        struct iovec iov = {.iov_base = &copy, .iov_len = sizeof(copy)};
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } u;
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
        if (m->type == CORDON_CONTROL_FD) {
                if (m->fd < 0)
                        return -EBADF;
                memset(&u, 0, sizeof(u));
                mh.msg_control = u.buf;
                mh.msg_controllen = sizeof(u.buf);
                struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &m->fd, sizeof(int));
        }
        ssize_t n;
        do
                n = sendmsg(sock, &mh, MSG_NOSIGNAL);
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
        return cordon_control_send(sock, &m);
}

int cordon_control_recv(int sock, int flags, struct cordon_control_msg *ret)
{
        struct cordon_control_msg m;
        struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } u;
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
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
        int fd = -1;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int)))
                memcpy(&fd, CMSG_DATA(c), sizeof(int));
        bool ok = n == (ssize_t)sizeof(m) && !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) &&
                  (m.type == CORDON_CONTROL_FD ? fd >= 0
                                               : fd < 0 && (m.type == CORDON_CONTROL_RELEASE ||
                                                            m.type == CORDON_CONTROL_REPORT));
        if (!ok) {
                if (fd >= 0)
                        (void)close(fd);
                return -EBADMSG;
        }
        m.fd = fd;
        *ret = m;
        return 1;
}
