/* The filtered mode's resolver: the supervisor answers the sandbox's DNS queries on a UDP socket
 * PID 1 bound inside the sandbox's network namespace (CORDON_DNS_ADDR:53, which the sandbox's
 * resolv.conf names) and handed over on the control channel. Each query's name is decided by
 * the network rules before any resolver is asked, as the egress proxy decides names: a refused
 * name is answered REFUSED here and never leaves the host. An allowed one is forwarded, rebuilt
 * from its parsed parts, to the host's resolver from the supervisor's side, and the answer's
 * addresses are checked against the address rules, the default-blocked ranges and the floor (a
 * blocked one turns the whole answer into REFUSED, as the proxy refuses such a name). The
 * firewall drops every other packet to port 53, so this is the sandbox's only resolver.
 *
 * Bounds, so that the resolver is no fast channel either: CORDON_DNS_RATE queries a second
 * (a bucket of CORDON_DNS_BURST; queries beyond it are dropped unanswered), at most
 * CORDON_DNS_IN_FLIGHT forwarded at once (beyond: SERVFAIL), queries of at most
 * CORDON_DNS_QUERY_MAX bytes, answers of at most CORDON_DNS_ANSWER_MAX. There is no TCP
 * listener: a TCP connection to CORDON_DNS_ADDR:53 is refused (ECONNREFUSED).
 *
 * Runs on the sandbox's event loop (lib/loop/loop.h); not thread-safe. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/net/net-rules.h"
#include "lib/policy/net-modes.h" /* CORDON_DNS_ADDR */

#define CORDON_DNS_RATE      20 /* queries a second, sustained */
#define CORDON_DNS_BURST     40 /* queries at once after a quiet time */
#define CORDON_DNS_IN_FLIGHT 16 /* forwarded queries waiting for their answer */
#define CORDON_DNS_TIMEOUT_MS                                                                      \
        2500                      /* then the sandbox gets SERVFAIL and the next server is used    \
                                   */
#define CORDON_DNS_SERVERS_MAX 3  /* as many as a resolv.conf's nameserver lines count */
#define CORDON_DNS_PORTS_MAX   64 /* distinct ports of exceptions a name is tried with */

struct cordon_dns_server {
        struct cordon_net_addr addr;
        uint16_t port;
};

struct cordon_dns_relay_config {
        const struct cordon_net_rules *rules; /* not owned; must outlive the relay */
        const struct cordon_dns_server *servers;
        size_t n_servers; /* 0: every query is answered SERVFAIL */
        int log_fd;       /* NETWORK_LOG (not owned), or -EBADF: a line per refused name */
        /* 0: the defaults above (tests make them small) */
        unsigned rate, burst, timeout_ms;
};

#define CORDON_DNS_REFUSED_FIRST 4 /* names the stats keep */

struct cordon_dns_relay_stats {
        uint64_t queries; /* datagrams read from the sandbox */
        uint64_t refused; /* answered REFUSED (a name or an answer's address the rules refuse) */
        /* The first distinct names the rules refused (or whose answer they refused), in the
         * order refused; "" in the slots not used. */
        char refused_first[CORDON_DNS_REFUSED_FIRST][CORDON_NET_NAME_MAX + 1];
        uint64_t forwarded; /* sent to a resolver */
        uint64_t dropped;   /* over the rate, or not a query */
};

struct cordon_dns_relay;
struct cordon_loop;

/* A relay serving @sock (a bound UDP socket; taken, closed by the relay whatever the outcome)
 * with @cfg (copied; the rules are referenced) on @loop, which must outlive it: the socket and
 * one connected UDP socket per server (opened on the caller's side) are io sources there, the
 * queries' timeouts a timer. Returns 0, or -errno. */
int cordon_dns_relay_new(int sock, const struct cordon_dns_relay_config *cfg,
                         struct cordon_loop *loop, struct cordon_dns_relay **ret);
void cordon_dns_relay_get_stats(const struct cordon_dns_relay *d,
                                struct cordon_dns_relay_stats *ret);
struct cordon_dns_relay *cordon_dns_relay_free(struct cordon_dns_relay *d);

/* Judges from now on by @rules (borrowed, must outlive the relay, or the next call): a query
 * in flight is answered by them too. */
void cordon_dns_relay_set_rules(struct cordon_dns_relay *d, const struct cordon_net_rules *rules);
/* Whether the normalised name @name may be resolved: the name rules allow it on some port —
 * with no port (a rule with a port does not match then) or on one of the @n_ports ports (the
 * distinct ports of the exceptions, from cordon_dns_exception_ports()), so that an exception
 * `host:443` or `*:443` under a `*` block lets the name resolve. A floor host never resolves.
 * @ret: the verdict that decided (for a refusal, the one without a port). Thread-safe. */
bool cordon_dns_name_allowed(const struct cordon_net_rules *rules, const uint16_t *ports,
                             size_t n_ports, const char *name, struct cordon_net_verdict *ret);
/* The distinct ports of @rules' exceptions that can match a name (`*:port`, a bare port,
 * `host:port`, `*.suffix:port`), at most CORDON_DNS_PORTS_MAX (more are not tried). Returns
 * how many were stored in @ret. */
size_t cordon_dns_exception_ports(const struct cordon_net_rules *rules,
                                  uint16_t ret[CORDON_DNS_PORTS_MAX]);
