/* ADDR[:PORT] and [V6]:PORT, for the proxy's DNS server. */
#include <errno.h>
#include <string.h>

#include "lib/net/net-server.h"

static int parse_port(const char *s, uint16_t *ret)
{
        unsigned v = 0;
        if (!*s || *s == '0')
                return -EINVAL;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return -EINVAL;
                v = v * 10 + (unsigned)(*s - '0');
                if (v > 65535)
                        return -EINVAL;
        }
        *ret = (uint16_t)v;
        return 0;
}

int cordon_net_parse_server(const char *s, struct cordon_net_addr *ret_addr, uint16_t *ret_port)
{
        char buf[64];
        const char *port = NULL;
        size_t n = strlen(s);
        if (n == 0 || n >= sizeof(buf))
                return -EINVAL;
        memcpy(buf, s, n + 1);
        if (buf[0] == '[') {
                char *close = strchr(buf, ']');
                if (!close || (close[1] && close[1] != ':'))
                        return -EINVAL;
                *close = 0;
                if (close[1] == ':')
                        port = close + 2;
                if (cordon_net_addr_parse(buf + 1, ret_addr) < 0 || ret_addr->family != AF_INET6)
                        return -EINVAL;
        } else {
                char *colon = strchr(buf, ':');
                /* One colon: an IPv4 address and a port; more: a bare IPv6 address. */
                if (colon && !strchr(colon + 1, ':')) {
                        *colon = 0;
                        port = colon + 1;
                }
                if (cordon_net_addr_parse(buf, ret_addr) < 0 ||
                    (port && ret_addr->family != AF_INET))
                        return -EINVAL;
        }
        *ret_port = 53;
        return port ? parse_port(port, ret_port) : 0;
}
