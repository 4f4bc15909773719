/* The host's own addresses (see net-host.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/net/net-host.h"
#include "shared/macro.h"

static bool addr_equal(const struct cordon_net_addr *a, const struct cordon_net_addr *b)
{
        if (a->family != b->family)
                return false;
        return a->family == AF_INET ? a->v4.s_addr == b->v4.s_addr
                                    : memcmp(&a->v6, &b->v6, sizeof(a->v6)) == 0;
}

static int addrs_append(struct cordon_net_addr **v, size_t *n, const struct cordon_net_addr *a)
{
        for (size_t i = 0; i < *n; i++)
                if (addr_equal(&(*v)[i], a))
                        return 0;
        struct cordon_net_addr *grown = realloc(*v, (*n + 1) * sizeof(**v));
        if (!grown)
                return -ENOMEM;
        grown[(*n)++] = *a;
        *v = grown;
        return 0;
}

int cordon_net_host_addrs(struct cordon_net_addr **ret, size_t *ret_n)
{
        struct ifaddrs *ifa = NULL;
        if (getifaddrs(&ifa) < 0)
                return -errno;
        _cleanup_free_ struct cordon_net_addr *v = NULL;
        size_t n = 0;
        int r = 0;
        for (struct ifaddrs *i = ifa; i && r >= 0; i = i->ifa_next) {
                if (!i->ifa_addr)
                        continue;
                struct cordon_net_addr a = {.family = i->ifa_addr->sa_family};
                if (a.family == AF_INET) {
                        a.v4 = ((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr;
                        if ((ntohl(a.v4.s_addr) >> 24) == 127 ||
                            (ntohl(a.v4.s_addr) >> 16) == 0xa9fe)
                                continue;
                } else if (a.family == AF_INET6) {
                        a.v6 = ((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr;
                        if (IN6_IS_ADDR_LOOPBACK(&a.v6) || IN6_IS_ADDR_LINKLOCAL(&a.v6))
                                continue;
                } else {
                        continue;
                }
                r = addrs_append(&v, &n, &a);
        }
        freeifaddrs(ifa);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

struct cordon_net_host {
        int nl;     /* the netlink watch, or -1: read on every decision */
        bool stale; /* a change was announced since the last read */
        struct cordon_net_addr *v;
        size_t n;
};

static int watch_open(void)
{
        int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
        if (fd < 0)
                return -errno;
        struct sockaddr_nl sa = {.nl_family = AF_NETLINK,
                                 .nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR};
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

/* Empties the watch; any message (or an overflow, which lost some) makes the list stale. */
static void watch_drain(struct cordon_net_host *h)
{
        char buf[8192];
        for (;;) {
                ssize_t k = recv(h->nl, buf, sizeof(buf), MSG_DONTWAIT);
                if (k > 0) {
                        h->stale = true;
                        continue;
                }
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0 && errno == EAGAIN)
                        return;
                /* ENOBUFS: messages were lost; anything else: the watch is gone, read on
                 * every decision from now on. */
                h->stale = true;
                if (k < 0 && errno == ENOBUFS)
                        continue;
                h->nl = safe_close(h->nl);
                return;
        }
}

static int reread(struct cordon_net_host *h)
{
        struct cordon_net_addr *v = NULL;
        size_t n = 0;
        int r = cordon_net_host_addrs(&v, &n);
        if (r < 0)
                return r;
        free(h->v);
        h->v = v;
        h->n = n;
        h->stale = false;
        return 0;
}

int cordon_net_host_new(struct cordon_net_host **ret)
{
        struct cordon_net_host *h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        /* The watch first: a change between the read and the subscription would be lost. */
        h->nl = watch_open();
        int r = reread(h);
        if (r < 0) {
                cordon_net_host_free(h);
                return r;
        }
        *ret = h;
        return 0;
}

struct cordon_net_host *cordon_net_host_free(struct cordon_net_host *h)
{
        if (!h)
                return NULL;
        safe_close(h->nl);
        free(h->v);
        free(h);
        return NULL;
}

int cordon_net_host_has(struct cordon_net_host *h, const struct cordon_net_addr *a)
{
        if (!h || !a)
                return -EINVAL;
        if (h->nl >= 0)
                watch_drain(h);
        if (h->nl < 0 || h->stale) {
                int r = reread(h);
                if (r < 0)
                        return r;
        }
        struct cordon_net_addr x = *a;
        if (x.family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&x.v6)) {
                struct in_addr v4;
                memcpy(&v4, &x.v6.s6_addr[12], 4);
                x.family = AF_INET;
                x.v4 = v4;
        }
        for (size_t i = 0; i < h->n; i++)
                if (addr_equal(&h->v[i], &x))
                        return 1;
        return 0;
}
