/* Host and port parsing shared by the proxy's HTTP and SOCKS5 front ends: names are
 * normalised, IP literals accepted only in canonical form (never resolved leniently). */
#include <errno.h>
#include <string.h>

#include "lib/proxy/proxy-target.h"
#include "shared/macro.h"

int cordon_proxy_target_set_host(struct cordon_proxy_target *t, const char *s, size_t len,
                                 bool brackets)
{
        char buf[INET6_ADDRSTRLEN + 1];

        if (len == 0 || memchr(s, 0, len))
                return -EINVAL;
        if (s[0] == '[') {
                /* [v6] only; no zone ids, no IPv4 in brackets */
                if (!brackets || len < 3 || s[len - 1] != ']' || len - 2 >= sizeof(buf))
                        return -EINVAL;
                memcpy(buf, s + 1, len - 2);
                buf[len - 2] = 0;
                if (cordon_net_addr_parse(buf, &t->addr) < 0 || t->addr.family != AF_INET6)
                        return -EINVAL;
                t->is_addr = true;
                cordon_net_addr_format(&t->addr, t->host, sizeof(t->host));
                return 0;
        }
        if (len < sizeof(buf)) {
                memcpy(buf, s, len);
                buf[len] = 0;
                if (cordon_net_addr_parse(buf, &t->addr) == 0) {
                        /* A bare IPv6 literal is ambiguous next to a port: brackets needed. */
                        if (brackets && t->addr.family == AF_INET6)
                                return -EINVAL;
                        t->is_addr = true;
                        cordon_net_addr_format(&t->addr, t->host, sizeof(t->host));
                        return 0;
                }
        }
        /* Letters, digits, '-', '_' and dots only: nothing a resolver or an origin could read
         * differently ("%2e", "\\.", a '/' or '@' smuggled in). */
        for (size_t i = 0; i < len; i++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.",
                            s[i]))
                        return -EINVAL;
        t->is_addr = false;
        memset(&t->addr, 0, sizeof(t->addr));
        return cordon_net_name_normalize(s, len, t->host) < 0 ? -EINVAL : 0;
}

int cordon_proxy_port_parse(const char *s, size_t len, uint16_t *ret)
{
        unsigned v = 0;

        if (len == 0 || len > 5)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                v = v * 10 + (unsigned)(s[i] - '0');
        }
        if (v == 0 || v > 65535)
                return -EINVAL;
        *ret = (uint16_t)v;
        return 0;
}

int cordon_proxy_target_parse_authority(const char *s, size_t len, uint16_t default_port,
                                        struct cordon_proxy_target *ret)
{
        struct cordon_proxy_target t = {};
        size_t hlen = len;
        const char *colon = NULL;

        if (len == 0)
                return -EINVAL;
        if (s[0] == '[') {
                const char *close = memchr(s, ']', len);
                if (!close)
                        return -EINVAL;
                hlen = (size_t)(close - s) + 1;
                if (hlen < len) {
                        if (s[hlen] != ':')
                                return -EINVAL;
                        colon = s + hlen;
                }
        } else {
                colon = memchr(s, ':', len);
                if (colon)
                        hlen = (size_t)(colon - s);
        }
        if (colon) {
                size_t plen = len - hlen - 1;
                if (cordon_proxy_port_parse(colon + 1, plen, &t.port) < 0)
                        return -EINVAL;
        } else if (default_port == 0)
                return -EINVAL;
        else
                t.port = default_port;
        if (cordon_proxy_target_set_host(&t, s, hlen, true) < 0)
                return -EINVAL;
        *ret = t;
        return 0;
}

bool cordon_proxy_target_equal(const struct cordon_proxy_target *a,
                               const struct cordon_proxy_target *b)
{
        return a->port == b->port && a->is_addr == b->is_addr && streq(a->host, b->host);
}
