/* Network namespace plumbing (isolated mode: loopback only) and the UTS hostname. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
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
        if (ifr.ifr_flags & IFF_UP)
                return 0;
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
