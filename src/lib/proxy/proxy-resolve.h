/* Asynchronous name resolution for the egress proxy with c-ares: A and AAAA for one name,
 * driven by the proxy's event loop (the channel's sockets are io sources there, made through
 * ARES_OPT_SOCK_STATE_CB and handed to ares_process_fd(); c-ares's timeouts are a loop timer),
 * never blocking. Not thread-safe: one resolver per proxy, used from its thread. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"
#include "lib/net/net-rules.h"
#include "lib/proxy/proxy-watch.h"

#define CORDON_PROXY_RESOLVE_ADDRS_MAX 16 /* addresses kept per name */

struct cordon_proxy_resolver;
struct cordon_proxy_query;

struct cordon_loop;

/* Called from a timer of the resolver's own on the loop (never from inside another resolver
 * call, nor from c-ares):
 * @error 0 with @n >= 1 addresses, or -ENOENT (no such name or no address), -ETIMEDOUT,
 * -ECONNREFUSED (the server refused), -EIO. The query is freed after the call. */
typedef void (*cordon_proxy_resolve_fn)(void *userdata, int error,
                                        const struct cordon_net_addr *addrs, size_t n);

/* A resolver on @loop (which must outlive it). @dns_server: "ADDR[:PORT]" (IPv6 as "[ADDR]:PORT"),
 * then only that server is asked and /etc/hosts is not read; NULL: the host's resolver
 * configuration (/etc/resolv.conf, /etc/hosts). Search domains are never applied: the name
 * the rules decided on is the name asked. @timeout_ms bounds each query. Returns 0; -EINVAL
 * with @diag naming the DNS server; -ENOMEM; -EIO when c-ares cannot start. */
int cordon_proxy_resolver_new(struct cordon_loop *loop, const char *dns_server, unsigned timeout_ms,
                              struct cordon_proxy_resolver **ret, struct cordon_diag *diag);
/* Frees @r; queries still running are dropped without their callback. */
void cordon_proxy_resolver_free(struct cordon_proxy_resolver *r);

/* Starts resolving the normalised @name. Returns 0 with *@ret set (valid until its callback has
 * run or it is cancelled), or -ENOMEM. */
int cordon_proxy_resolve(struct cordon_proxy_resolver *r, const char *name,
                         cordon_proxy_resolve_fn fn, void *userdata,
                         struct cordon_proxy_query **ret);
/* Drops @q: its callback will not run. */
void cordon_proxy_query_cancel(struct cordon_proxy_query *q);
