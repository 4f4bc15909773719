/* Addresses of the network rules: canonical IP literals only (inet_aton's lenient forms are
 * refused), their text, and prefix arithmetic (see net-rules.h and net-rules-internal.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/net/net-rules-internal.h"

/* A dotted quad: four decimal parts 0-255, no sign, no leading zeros. inet_aton's other forms
 * ("127.1", "2130706433", "0x7f000001", "0177.0.0.1") are refused, never read leniently. */
static int parse_v4(const char *s, struct in_addr *ret)
{
        uint32_t a = 0;
        for (int part = 0; part < 4; part++) {
                if (part > 0) {
                        if (*s != '.')
                                return -EINVAL;
                        s++;
                }
                if (*s < '0' || *s > '9')
                        return -EINVAL;
                unsigned v = 0;
                int digits = 0;
                const char *start = s;
                while (*s >= '0' && *s <= '9') {
                        v = v * 10 + (unsigned)(*s - '0');
                        if (++digits > 3)
                                return -EINVAL;
                        s++;
                }
                if (v > 255 || (digits > 1 && *start == '0'))
                        return -EINVAL;
                a = a << 8 | v;
        }
        if (*s)
                return -EINVAL;
        ret->s_addr = htonl(a);
        return 0;
}

int cordon_net_addr_parse(const char *s, struct cordon_net_addr *ret)
{
        struct cordon_net_addr a = {0};
        if (!s)
                return -EINVAL;
        if (strchr(s, ':')) {
                /* glibc's inet_pton refuses zones, and leading zeros in an embedded quad. */
                if (strlen(s) >= INET6_ADDRSTRLEN || inet_pton(AF_INET6, s, &a.v6) != 1)
                        return -EINVAL;
                a.family = AF_INET6;
        } else {
                if (parse_v4(s, &a.v4) < 0)
                        return -EINVAL;
                a.family = AF_INET;
        }
        *ret = a;
        return 0;
}

const char *cordon_net_addr_format(const struct cordon_net_addr *a, char *buf, size_t size)
{
        if (size == 0)
                return buf;
        if (!a || (a->family != AF_INET && a->family != AF_INET6) ||
            !inet_ntop(a->family,
                       a->family == AF_INET ? (const void *)&a->v4 : (const void *)&a->v6, buf,
                       (socklen_t)size))
                snprintf(buf, size, "?");
        return buf;
}

void cordon_net_addr_unmap(struct cordon_net_addr *a)
{
        if (a->family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&a->v6))
                return;
        struct in_addr v4;
        memcpy(&v4, &a->v6.s6_addr[12], 4);
        a->family = AF_INET;
        a->v4 = v4;
}

static const uint8_t *addr_bytes(const struct cordon_net_addr *a)
{
        return a->family == AF_INET ? (const uint8_t *)&a->v4 : a->v6.s6_addr;
}

unsigned cordon_net_addr_bits(int family)
{
        return family == AF_INET ? 32 : 128;
}

bool cordon_net_prefix_equal(const struct cordon_net_addr *a, const struct cordon_net_addr *b,
                             unsigned prefix)
{
        const uint8_t *x = addr_bytes(a), *y = addr_bytes(b);
        unsigned full = prefix / 8, rest = prefix % 8;
        if (memcmp(x, y, full) != 0)
                return false;
        if (rest == 0)
                return true;
        uint8_t mask = (uint8_t)(0xff << (8 - rest));
        return ((x[full] ^ y[full]) & mask) == 0;
}

void cordon_net_clear_host_bits(struct cordon_net_addr *a, unsigned prefix)
{
        uint8_t *x = a->family == AF_INET ? (uint8_t *)&a->v4 : a->v6.s6_addr;
        unsigned n = cordon_net_addr_bits(a->family) / 8;
        for (unsigned i = 0; i < n; i++) {
                if (prefix >= (i + 1) * 8)
                        continue;
                if (prefix <= i * 8)
                        x[i] = 0;
                else
                        x[i] &= (uint8_t)(0xff << (8 - (prefix - i * 8)));
        }
}
