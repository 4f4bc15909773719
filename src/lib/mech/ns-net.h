/* Network and UTS namespaces. */
#pragma once

#include <stdint.h>

/* Child side: brings the loopback interface of the current network namespace up. */
int cordon_ns_net_loopback_up(void);
/* Child side, after the loopback is up: a listening TCP socket on 127.0.0.1:@port of the current
 * network namespace, close-on-exec, for the supervisor to serve from outside. Returns the fd or
 * -errno. No allocation. */
int cordon_ns_net_listen_loopback(uint16_t port);
/* Child side, after the loopback is up: a non-blocking UDP socket bound to @addr (IPv4 text) and
 * @port of the current network namespace, close-on-exec (the filtered mode's resolver). Returns
 * the fd or -errno. No allocation. */
int cordon_ns_net_bind_udp(const char *addr, uint16_t port);
/* Child side: sets the hostname of the current UTS namespace. */
int cordon_ns_uts_set_hostname(const char *name);

/* The families whose default route the filtered mode's pasta configures: a bit per family
 * (CORDON_NS_NET_ROUTE_V4, _V6) the host has a usable default route for, as pasta picks the
 * interfaces it copies (read from /proc/net/route and /proc/net/ipv6_route). 0 when none can be
 * read. Supervisor side, before the clone. */
#define CORDON_NS_NET_ROUTE_V4 1u
#define CORDON_NS_NET_ROUTE_V6 2u
unsigned cordon_ns_net_host_default_routes(void);

/* Child side: waits until the current network namespace has a default route for every family in
 * @want (1: then the namespace is configured), or until @other is readable or hung up (0).
 * Subscribes to route changes before it lists the routes, so one added at any moment is seen.
 * Only system calls, no allocation (between clone and exec). -errno when netlink fails: the
 * caller then waits for @other alone. */
int cordon_ns_net_wait_default_routes(unsigned want, int other);
