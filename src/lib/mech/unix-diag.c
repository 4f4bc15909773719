/* NETLINK_SOCK_DIAG for unix sockets (unix-diag.h): one request, its answers read until the one
 * that ends it. No capability is needed: any process may ask about the sockets of its network
 * namespace. */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/mech/unix-diag.h"
#include "shared/macro.h"

/* Large enough for a page of dump answers, which the kernel fills up to about 8 KiB. */
#define DIAG_BUF 32768

int cordon_unix_diag_open(void)
{
        int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
        if (fd < 0)
                return negative_errno();
        /* The kernel answers at once; a bound on the wait keeps a surprise from stalling the
         * supervisor's event loop for ever. */
        struct timeval tv = {.tv_sec = 1};
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        return fd;
}

int cordon_unix_diag_parse(const void *payload, size_t len, struct cordon_unix_diag *ret)
{
        struct unix_diag_msg m;
        if (len < sizeof(m))
                return -EBADMSG;
        memcpy(&m, payload, sizeof(m));
        if (m.udiag_family != AF_UNIX)
                return -EBADMSG;
        *ret = (struct cordon_unix_diag){
            .ino = m.udiag_ino,
            .cookie = (uint64_t)m.udiag_cookie[1] << 32 | m.udiag_cookie[0],
        };
        const unsigned char *p = (const unsigned char *)payload + NLMSG_ALIGN(sizeof(m));
        size_t left = len > NLMSG_ALIGN(sizeof(m)) ? len - NLMSG_ALIGN(sizeof(m)) : 0;
        while (left >= sizeof(struct nlattr)) {
                struct nlattr a;
                memcpy(&a, p, sizeof(a));
                if (a.nla_len < sizeof(a) || a.nla_len > left)
                        return -EBADMSG;
                const unsigned char *data = p + NLA_HDRLEN;
                size_t dlen = a.nla_len - NLA_HDRLEN;
                switch (a.nla_type & NLA_TYPE_MASK) {
                case UNIX_DIAG_NAME:
                        ret->named = true;
                        break;
                case UNIX_DIAG_VFS: {
                        struct unix_diag_vfs v;
                        if (dlen < sizeof(v))
                                return -EBADMSG;
                        memcpy(&v, data, sizeof(v));
                        /* The kernel's own dev_t (MAJOR << 20 | MINOR), not stat()'s. */
                        ret->has_vfs = true;
                        ret->vfs_dev = makedev(v.udiag_vfs_dev >> 20, v.udiag_vfs_dev & 0xfffff);
                        ret->vfs_ino = v.udiag_vfs_ino;
                        break;
                }
                default:
                        break;
                }
                size_t step = NLA_ALIGN(a.nla_len);
                if (step >= left)
                        break;
                p += step;
                left -= step;
        }
        return 0;
}

static int send_request(int nl, uint32_t seq, uint16_t flags, uint32_t ino, uint64_t cookie,
                        uint32_t show)
{
        struct {
                struct nlmsghdr h;
                struct unix_diag_req r;
        } req = {
            .h = {.nlmsg_len = sizeof(req),
                  .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                  .nlmsg_flags = flags,
                  .nlmsg_seq = seq},
            .r = {.sdiag_family = AF_UNIX,
                  .udiag_states = UINT32_MAX,
                  .udiag_ino = ino,
                  .udiag_show = show,
                  .udiag_cookie = {(uint32_t)cookie, (uint32_t)(cookie >> 32)}},
        };
        struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
        for (;;) {
                ssize_t k =
                    sendto(nl, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel));
                if (k == (ssize_t)sizeof(req))
                        return 0;
                if (k < 0 && errno == EINTR)
                        continue;
                return k < 0 ? negative_errno() : -EIO;
        }
}

/* Reads the answers to request @seq, calling @each on every socket's; stops at the first
 * answer that is not a dump's part (a get), or at NLMSG_DONE. Returns 0, the error the kernel
 * answered, -EIO for a broken answer. */
static int read_answers(int nl, uint32_t seq, bool dump,
                        int (*each)(const struct cordon_unix_diag *d, void *userdata),
                        void *userdata)
{
        /* The kernel sizes a dump's parts after the reader's buffer, up to 32 KiB. */
        _cleanup_free_ unsigned char *buf = malloc(DIAG_BUF);
        if (!buf)
                return -ENOMEM;
        int result = 0;
        for (;;) {
                struct sockaddr_nl from = {0};
                struct iovec iov = {.iov_base = buf, .iov_len = DIAG_BUF};
                struct msghdr mh = {.msg_name = &from,
                                    .msg_namelen = sizeof(from),
                                    .msg_iov = &iov,
                                    .msg_iovlen = 1};
                ssize_t n = recvmsg(nl, &mh, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno == EAGAIN ? -ETIMEDOUT : negative_errno();
                if (n == 0 || (mh.msg_flags & MSG_TRUNC))
                        return -EIO;
                /* Only the kernel's answers count. */
                if (from.nl_pid != 0)
                        continue;
                size_t left = (size_t)n;
                for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left);
                     h = NLMSG_NEXT(h, left)) {
                        if (h->nlmsg_seq != seq)
                                continue;
                        if (h->nlmsg_type == NLMSG_DONE)
                                return result;
                        if (h->nlmsg_type == NLMSG_ERROR) {
                                const struct nlmsgerr *e = NLMSG_DATA(h);
                                if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
                                        return -EIO;
                                return e->error < 0 ? e->error : -EIO;
                        }
                        if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
                                continue;
                        struct cordon_unix_diag d;
                        if (cordon_unix_diag_parse(NLMSG_DATA(h), h->nlmsg_len - NLMSG_HDRLEN, &d) <
                            0)
                                return -EIO;
                        /* A dump is read to its end whatever @each says, so that no part of it
                         * is left for the next request to find. */
                        if (result == 0)
                                result = each(&d, userdata);
                        if (!dump)
                                return result;
                }
        }
}

static uint32_t next_seq(void)
{
        static atomic_uint seq;
        return (uint32_t)atomic_fetch_add_explicit(&seq, 1, memory_order_relaxed) + 1;
}

static int store(const struct cordon_unix_diag *d, void *userdata)
{
        *(struct cordon_unix_diag *)userdata = *d;
        return 0;
}

int cordon_unix_diag_get(int nl, uint32_t ino, uint64_t cookie, struct cordon_unix_diag *ret)
{
        if (nl < 0 || ino == 0 || !ret)
                return -EINVAL;
        const uint32_t seq = next_seq();
        int r = send_request(nl, seq, NLM_F_REQUEST, ino, cookie, UDIAG_SHOW_NAME | UDIAG_SHOW_VFS);
        if (r < 0)
                return r;
        struct cordon_unix_diag d = {0};
        r = read_answers(nl, seq, false, store, &d);
        if (r < 0)
                return r;
        /* The answer is about the socket asked for, or none at all. */
        if (d.ino != ino)
                return -EIO;
        *ret = d;
        return 0;
}

struct bound_at {
        const dev_t *devs;
        size_t n_devs;
        uint32_t ino;
};

static int match_vfs(const struct cordon_unix_diag *d, void *userdata)
{
        const struct bound_at *b = userdata;
        if (!d->has_vfs || d->vfs_ino != b->ino)
                return 0;
        for (size_t i = 0; i < b->n_devs; i++)
                if (d->vfs_dev == b->devs[i])
                        return 1;
        return 0;
}

int cordon_unix_diag_bound_at(int nl, const dev_t *devs, size_t n_devs, uint32_t ino)
{
        if (nl < 0 || !devs || n_devs == 0)
                return -EINVAL;
        const uint32_t seq = next_seq();
        int r = send_request(nl, seq, NLM_F_REQUEST | NLM_F_DUMP, 0, CORDON_UNIX_DIAG_NOCOOKIE,
                             UDIAG_SHOW_VFS);
        if (r < 0)
                return r;
        struct bound_at b = {.devs = devs, .n_devs = n_devs, .ino = ino};
        return read_answers(nl, seq, true, match_vfs, &b);
}
