/* IPv6 addresses that carry an IPv4 address (see cordon_net_addr_embedded() in net-rules.h):
 * a NAT64 translator, a 6to4 or Teredo relay, or the kernel's own SIT tunnel sends such a
 * packet on to the IPv4 address inside, so the floor and the rules judge that address too. */
#include <arpa/inet.h>
#include <string.h>

#include "lib/net/net-rules.h"
#include "shared/macro.h"

/* clang-format off */
const struct cordon_net_embedding cordon_net_embeddings[] = {
    /* RFC 4291 2.5.5.1, deprecated but still routed by a SIT tunnel where one is loaded. */
    { "IPv4-compatible", "::", 96, {12, 13, 14, 15}, false },
    /* RFC 2765 (SIIT). */
    { "IPv4-translated", "::ffff:0:0:0", 96, {12, 13, 14, 15}, false },
    /* RFC 6052's well-known prefix. */
    { "NAT64", "64:ff9b::", 96, {12, 13, 14, 15}, false },
    /* RFC 8215's local-use prefix, in RFC 6052's /48 layout: bits 64-71 (the "u" octet) are
     * skipped, the IPv4 address sits around them. */
    { "NAT64 local-use", "64:ff9b:1::", 48, {6, 7, 9, 10}, false },
    /* RFC 3056: 2002:AABB:CCDD::/48 is the site behind AA.BB.CC.DD. */
    { "6to4", "2002::", 16, {2, 3, 4, 5}, false },
    /* RFC 4380: the client's address, inverted, in the last 32 bits. */
    { "Teredo", "2001::", 32, {12, 13, 14, 15}, true },
};
/* clang-format on */

const size_t cordon_net_n_embeddings = ELEMENTSOF(cordon_net_embeddings);

static bool in_prefix(const struct in6_addr *a, const struct cordon_net_embedding *e)
{
        struct in6_addr p;
        if (inet_pton(AF_INET6, e->prefix, &p) != 1)
                return false;
        unsigned full = e->prefix_len / 8;
        /* Every prefix in the table is a whole number of bytes. */
        return memcmp(a->s6_addr, p.s6_addr, full) == 0;
}

bool cordon_net_addr_embedded(const struct cordon_net_addr *a, struct cordon_net_addr *ret,
                              const char **ret_form)
{
        if (!a || a->family != AF_INET6)
                return false;
        for (size_t i = 0; i < cordon_net_n_embeddings; i++) {
                const struct cordon_net_embedding *e = &cordon_net_embeddings[i];
                if (!in_prefix(&a->v6, e))
                        continue;
                /* :: and ::1 are themselves (the floor has both), not 0.0.0.0 and 0.0.0.1. */
                if (e->prefix_len == 96 && streq(e->prefix, "::") &&
                    (IN6_IS_ADDR_UNSPECIFIED(&a->v6) || IN6_IS_ADDR_LOOPBACK(&a->v6)))
                        return false;
                struct cordon_net_addr v4 = {.family = AF_INET};
                uint8_t *b = (uint8_t *)&v4.v4;
                for (size_t k = 0; k < 4; k++)
                        b[k] = (uint8_t)(e->inverted ? ~a->v6.s6_addr[e->at[k]]
                                                     : a->v6.s6_addr[e->at[k]]);
                if (ret)
                        *ret = v4;
                if (ret_form)
                        *ret_form = e->name;
                return true;
        }
        return false;
}
