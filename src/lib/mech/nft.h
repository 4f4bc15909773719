/* The filtered mode's firewall: the address and port rules of the network rule set lowered into
 * an nftables ruleset (inet family, output hook, TCP and UDP) that the child loads into its own
 * network namespace before it drops its capabilities. Host-name rules cannot be enforced at
 * this layer (a packet carries no name): they are handed back, unapplied. */
#pragma once

#include <stddef.h>

#include "lib/net/net-rules.h"

/* What a refused packet gets: an ICMP "administratively prohibited" error generated locally, so
 * a program fails at once: a TCP connect() fails with EHOSTUNREACH (IPv4; EACCES over IPv6, the
 * kernel's mapping of that ICMPv6 code), a UDP send() with EPERM (the packet is dropped on its
 * way out). tests/unit/test-net-filtered.c pins both. */
#define CORDON_NFT_REJECT "reject with icmpx type admin-prohibited"

/* Addresses the ruleset treats specially. */
struct cordon_nft_extra {
        /* The host's own interface addresses: refused, never liftable, so that services the
         * host binds to a wildcard address cannot be reached through pasta. */
        const struct cordon_net_addr *host;
        size_t n_host;
};

struct cordon_nft_plan {
        char *text; /* the ruleset, as `nft -f` reads it */
        /* Rules this layer cannot enforce, owned by the rule set they came from: the name rules
         * (HOST, SUFFIX) that are not part of the built-in floor. The floor's names are never
         * listed (they are always there); the proxied mode is the one that enforces names. */
        const struct cordon_net_rule **unapplied;
        size_t n_unapplied;
};

/* Lowers @rules (@n of them, any order: the floor and the default-blocked ranges included as
 * the rule set holds them) into @ret. Most specific wins through the order of the rules:
 * traffic on the sandbox's own loopback and IPv6 neighbour discovery first, then the floor (never
 * lifted), port 53 over TCP and UDP refused (the sandbox's resolver is cordon's, on its loopback:
 * lib/supervisor/dns-relay.h), the host's addresses, every IPv4 block and host address inside the
 * IPv6 forms that carry one (net-embedded.c, matched by payload, never lifted), a jump to the
 * admin tier (a chain of the admin's rules, most specific first: an admin block rejects, an admin
 * exception returns), then every other rule by specificity,
 * most specific first (a longer prefix before a shorter one, with a port before the same without,
 * any address before `*` with a port before `*`), the exception first at equal specificity.
 * Returns 0 or -ENOMEM; release @ret with cordon_nft_plan_clear(). */
int cordon_nft_plan_build(const struct cordon_net_rule *const *rules, size_t n,
                          const struct cordon_nft_extra *extra, struct cordon_nft_plan *ret);
void cordon_nft_plan_clear(struct cordon_nft_plan *p);

/* The nameserver addresses of @path (an /etc/resolv.conf), without scoped IPv6 ones: the
 * resolvers the filtered mode's relay forwards to. A missing file is none. Returns 0 with a
 * malloc'ed array or -errno. */
int cordon_nft_resolvers(const char *path, struct cordon_net_addr **ret, size_t *ret_n);

/* Child side: loads @text into the current network namespace with libnftables. Needs
 * CAP_NET_ADMIN there. Returns 0 or -errno (-EINVAL when nftables refused the text). */
int cordon_nft_load(const char *text);
/* Opens libnftables (once per process; it is not linked, see nft.c): supervisor side, before
 * the child needs cordon_nft_load(). Returns 0, or -ENOPKG with the loader's message in
 * *@ret_error (may be NULL). Thread-safe. */
int cordon_nft_open(const char **ret_error);
