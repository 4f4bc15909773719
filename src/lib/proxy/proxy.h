/* cordon's egress proxy (--net proxied): HTTP CONNECT, absolute-URI HTTP forwarding and SOCKS5
 * on one listening port (the first byte tells SOCKS5 from HTTP), every connection decided by
 * the network rules (src/lib/net/net-rules.h) before any DNS query or dial, names resolved
 * asynchronously with c-ares, bytes relayed with splice(2).
 *
 * splice(2) into a socket whose peer has gone raises SIGPIPE (splice has no MSG_NOSIGNAL): the
 * relay blocks it in its thread while it moves bytes and takes back one it raised, so the
 * caller's disposition is left alone.
 *
 * It runs on the caller's event loop (lib/loop/loop.h): its listeners, connections and c-ares's
 * sockets are io sources there, its timeouts loop timers. The listening sockets come from inside
 * the sandbox's network namespace; outgoing connections are made from the namespace of the
 * thread that runs the loop (the host's). Not thread-safe: the loop's thread drives the proxy.
 *
 * Bounds (each a config field; 0 takes the default):
 *   max_connections     1024    client connections at once, handshakes included; at the limit
 *                               the proxy stops accepting (clients wait in the listen backlog)
 *                               until one ends
 *   max_header_bytes    16 KiB  an HTTP request head; longer is refused with 431
 *   idle_timeout_ms     10 min  a tunnel with no byte either way is closed
 *   dns_timeout_ms      5 s     resolving one name (A and AAAA together)
 *   connect_timeout_ms  10 s    each dial; the next address that passed is tried after it
 *   pipe_bytes          16 KiB  the kernel pipe per direction of a tunnel (F_SETPIPE_SZ)
 * Fixed: a client has 10 s from accept to a complete request (CORDON_PROXY_REQUEST_TIMEOUT_MS).
 * Per tunnel the proxy holds one small struct and, in the kernel, two pipes of pipe_bytes;
 * nothing it allocates grows with the traffic. A pipe that cannot be created (EMFILE) falls
 * back to a read/write buffer of pipe_bytes per direction.
 *
 * HTTP forwarding sends one request per upstream connection: the request goes to the origin
 * in origin-form with `Connection: close`, its body (framed by Content-Length only) follows,
 * further pipelined requests are not forwarded, and the client connection closes when the
 * origin's response ends. Keep-alive to the proxy is therefore never offered. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cordon/cordon.h"
#include "lib/net/net-rules.h"

#define CORDON_PROXY_MAX_CONNECTIONS_DEFAULT    1024u
#define CORDON_PROXY_MAX_HEADER_BYTES_DEFAULT   (16u * 1024u)
#define CORDON_PROXY_IDLE_TIMEOUT_MS_DEFAULT    (10u * 60u * 1000u)
#define CORDON_PROXY_DNS_TIMEOUT_MS_DEFAULT     5000u
#define CORDON_PROXY_CONNECT_TIMEOUT_MS_DEFAULT 10000u
#define CORDON_PROXY_PIPE_BYTES_DEFAULT         (16u * 1024u)
#define CORDON_PROXY_REQUEST_TIMEOUT_MS         10000u
#define CORDON_PROXY_LISTENERS_MAX              8

struct cordon_proxy_config {
        const struct cordon_net_rules *rules; /* not owned; must outlive the proxy */
        const char *dns_server;               /* "ADDR[:PORT]"; NULL: the host's resolver */
        int log_fd;                           /* one JSON line per decision; -1: none. Not owned */
        unsigned max_connections;
        size_t max_header_bytes;
        unsigned idle_timeout_ms;
        unsigned dns_timeout_ms;
        unsigned connect_timeout_ms;
        size_t pipe_bytes;
        /* For tests only: called after the rules allowed @addr:@port and before the dial, with
         * @sa/@salen holding that address; it may rewrite them (to reach a test server on
         * loopback, which the floor refuses). A negative return fails the dial with it. */
        int (*connect_hook)(void *userdata, const struct cordon_net_addr *addr, uint16_t port,
                            struct sockaddr_storage *sa, socklen_t *salen);
        void *connect_hook_userdata;
};

#define CORDON_PROXY_REFUSED_FIRST 4 /* destinations the stats name */

struct cordon_proxy_stats {
        uint64_t connections; /* accepted, in total */
        unsigned active;      /* open now */
        uint64_t refused;     /* denied by the rules or refused as malformed */
        /* The first distinct destinations the rules refused ("host:port", "addr:port",
         * "[v6]:port"), in order; "" past the last. */
        char refused_first[CORDON_PROXY_REFUSED_FIRST][CORDON_NET_NAME_MAX + 10];
        uint64_t errors;     /* failed upstream: DNS, dial, timeouts */
        uint64_t bytes_up;   /* client to origin (forwarded heads included) */
        uint64_t bytes_down; /* origin to client (the proxy's own replies not included) */
};

struct cordon_proxy;
struct cordon_loop;

/* A proxy with no listener yet, on @loop (which must outlive it). @cfg is copied (not
 * @cfg->rules, which is borrowed). Returns 0; -EINVAL with @diag (no rules, a malformed
 * dns_server); -ENOMEM. */
int cordon_proxy_new(const struct cordon_proxy_config *cfg, struct cordon_loop *loop,
                     struct cordon_proxy **ret, struct cordon_diag *diag);
/* Frees @p, closing every connection and listener (a connection still open is logged as
 * ending) and removing its sources from the loop. Not from a callback of the loop. Accepts
 * NULL. */
void cordon_proxy_free(struct cordon_proxy *p);

/* Takes ownership of the listening TCP socket @fd (closed on failure too) and sets it
 * non-blocking. Returns 0, -ENOSPC beyond CORDON_PROXY_LISTENERS_MAX, -errno. */
int cordon_proxy_add_listener(struct cordon_proxy *p, int fd);

/* Decides by @rules (borrowed: must outlive the proxy, or the next call) from now on, and
 * judges every open connection that has a destination again: one the new rules refuse is
 * closed, and none keeps a pointer into the old set. Returns how many were closed. */
size_t cordon_proxy_set_rules(struct cordon_proxy *p, const struct cordon_net_rules *rules);

void cordon_proxy_get_stats(const struct cordon_proxy *p, struct cordon_proxy_stats *ret);
