/* The host's own addresses, the one source the filtered mode's firewall (nft.c) and the egress
 * proxy share: a service the host binds to a wildcard address (0.0.0.0, ::) answers on every
 * one of them, so neither mode may lead there. */
#pragma once

#include <stddef.h>

#include "lib/net/net-rules.h"

/* The host's interface addresses now (getifaddrs), both families, every interface, without the
 * loopback and link-local ones (the floor has those). Returns 0 with a malloc'ed array
 * (possibly empty, *@ret NULL) or -errno. */
int cordon_net_host_addrs(struct cordon_net_addr **ret, size_t *ret_n);

/* The host's addresses kept current for a long-lived decider (the proxy): a netlink socket
 * subscribed to address changes (RTM_NEWADDR, RTM_DELADDR) is opened before the first read, and
 * the list is read again only after a change was announced (or the socket overflowed), so a
 * decision costs one non-blocking recv() while nothing changes. Without the socket every
 * decision reads the list again. Not thread-safe. */
struct cordon_net_host;

/* Returns 0, -ENOMEM or -errno of the first read. */
int cordon_net_host_new(struct cordon_net_host **ret);
struct cordon_net_host *cordon_net_host_free(struct cordon_net_host *h);

/* Whether @a (an IPv4-mapped address as the IPv4 one) is one of the host's addresses now.
 * Returns 1, 0, or -errno when the list cannot be read again (the caller refuses: fail
 * closed). */
int cordon_net_host_has(struct cordon_net_host *h, const struct cordon_net_addr *a);
