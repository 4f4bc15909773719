/* Network namespace plumbing (isolated mode: loopback only; filtered mode: the wait for the
 * routes pasta configures) and the UTS hostname. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/route.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/mech/ns-net.h"
#include "shared/macro.h"

int cordon_ns_net_loopback_up(void)
{
        _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        struct ifreq ifr = {0};
        strcpy(ifr.ifr_name, "lo");
        if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
                return -errno;
        /* Set even when it reads as up: the read takes no lock, and pasta (filtered mode) may
         * be bringing lo up at that moment, its flag set before 127.0.0.1/8 is added. The set
         * takes the rtnl lock, so it returns only once that is done, and a bind to the
         * loopback's addresses after it cannot fail with EADDRNOTAVAIL (seen once in a CI run:
         * the DNS socket on 127.0.0.53). */
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
                return -errno;
        return 0;
}

int cordon_ns_net_bind_udp(const char *addr, uint16_t port)
{
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
        if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
                return -EINVAL;
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
                int r = -errno;
                (void)close(fd);
                return r;
        }
        return fd;
}

int cordon_ns_uts_set_hostname(const char *name)
{
        return sethostname(name, strlen(name)) < 0 ? -errno : 0;
}

int cordon_ns_net_listen_loopback(uint16_t port)
{
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        struct sockaddr_in a = {
            .sin_family = AF_INET,
            .sin_port = htons(port),
            .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
        };
        if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 512) < 0) {
                int r = -errno;
                (void)close(fd);
                return r;
        }
        return fd;
}

/* One table's default route on a line of @path: the destination all zeros and the prefix 0, an
 * interface other than "lo", up and not a reject route (the kernel's IPv6 "::/0 dev lo" is one). */
static bool host_has_default(const char *path, bool v6)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        char buf[16384];
        size_t len = 0;
        ssize_t k;
        while (len < sizeof(buf) - 1 && (k = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
                len += (size_t)k;
        buf[len] = 0;
        for (char *line = buf, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                char a[64], b[64], c[64], d[64], e[64], f[64], g[64], h[64], i[64];
                unsigned long flags = 0;
                if (v6) {
                        /* dest plen src plen next-hop metric refcnt use flags iface */
                        if (sscanf(line, "%63s %63s %63s %63s %63s %63s %63s %63s %lx %63s", a, b,
                                   c, d, e, f, g, h, &flags, i) != 10)
                                continue;
                        if (strspn(a, "0") == 32 && streq(b, "00") && !streq(i, "lo") &&
                            (flags & RTF_UP) && !(flags & RTF_REJECT))
                                return true;
                } else {
                        /* iface dest gateway flags refcnt use metric mask ... */
                        if (sscanf(line, "%63s %63s %63s %lx %63s %63s %63s %63s", i, a, c, &flags,
                                   d, e, f, b) != 8)
                                continue;
                        if (streq(a, "00000000") && streq(b, "00000000") && !streq(i, "lo") &&
                            (flags & RTF_UP) && !(flags & RTF_REJECT))
                                return true;
                }
        }
        return false;
}

unsigned cordon_ns_net_host_default_routes(void)
{
        return (host_has_default("/proc/net/route", false) ? CORDON_NS_NET_ROUTE_V4 : 0) |
               (host_has_default("/proc/net/ipv6_route", true) ? CORDON_NS_NET_ROUTE_V6 : 0);
}

/* The families of the default routes in the netlink messages of @buf[0..@len), added to *@seen.
 * Returns 1 at the end of a dump (NLMSG_DONE), -errno for an error the kernel reported, else 0. */
static int note_routes(char *buf, size_t len, unsigned *seen)
{
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len);
             h = NLMSG_NEXT(h, len)) {
                if (h->nlmsg_type == NLMSG_DONE)
                        return 1;
                if (h->nlmsg_type == NLMSG_ERROR) {
                        const struct nlmsgerr *e = NLMSG_DATA(h);
                        if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error)
                                return e->error < 0 ? e->error : -e->error;
                        continue;
                }
                if (h->nlmsg_type != RTM_NEWROUTE ||
                    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
                        continue;
                const struct rtmsg *rt = NLMSG_DATA(h);
                if (rt->rtm_dst_len != 0 || rt->rtm_type != RTN_UNICAST ||
                    rt->rtm_table != RT_TABLE_MAIN)
                        continue;
                if (rt->rtm_family == AF_INET)
                        *seen |= CORDON_NS_NET_ROUTE_V4;
                else if (rt->rtm_family == AF_INET6)
                        *seen |= CORDON_NS_NET_ROUTE_V6;
        }
        return 0;
}

int cordon_ns_net_wait_default_routes(unsigned want, int other)
{
        _cleanup_close_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (fd < 0)
                return -errno;
        struct sockaddr_nl sa = {.nl_family = AF_NETLINK,
                                 .nl_groups = RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE};
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                return -errno;
        struct {
                struct nlmsghdr h;
                struct rtmsg rt;
        } req = {.h = {.nlmsg_len = sizeof(req),
                       .nlmsg_type = RTM_GETROUTE,
                       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                       .nlmsg_seq = 1},
                 .rt = {.rtm_family = AF_UNSPEC}};
        struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
        if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
                return -errno;
        unsigned seen = 0;
        /* Aligned for the headers; one read takes what the kernel queued as one datagram. */
        _Alignas(struct nlmsghdr) char buf[8192];
        for (;;) {
                if ((seen & want) == want)
                        return 1;
                struct pollfd pfd[2] = {{.fd = other, .events = POLLIN},
                                        {.fd = fd, .events = POLLIN}};
                if (poll(pfd, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (pfd[0].revents)
                        return 0;
                if (!pfd[1].revents)
                        continue;
                ssize_t k = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                if (k < 0) {
                        if (errno == EINTR || errno == EAGAIN)
                                continue;
                        return -errno; /* ENOBUFS: messages lost; the caller waits for @other */
                }
                int r = note_routes(buf, (size_t)k, &seen);
                if (r < 0)
                        return r;
        }
}
