/* One client connection of the egress proxy and its relay, shared by proxy.c (accept,
 * handshake, decision, dial) and proxy-relay.c (the byte relay). Internal to src/lib/proxy. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/net/net-host.h"
#include "lib/net/net-rules.h"
#include "lib/proxy/proxy-resolve.h"
#include "lib/proxy/proxy-target.h"
#include "lib/proxy/proxy-watch.h"
#include "lib/proxy/proxy.h"

enum proxy_state {
        PROXY_SNIFF,       /* waiting for the first byte */
        PROXY_HTTP_HEAD,   /* reading an HTTP request head */
        PROXY_SOCKS_GREET, /* reading the SOCKS5 greeting */
        PROXY_SOCKS_REQ,   /* reading the SOCKS5 request */
        PROXY_RESOLVE,     /* waiting for c-ares */
        PROXY_DIAL,        /* connect() in progress */
        PROXY_RELAY,       /* tunnel up: bytes both ways */
        PROXY_REFUSE,      /* writing a refusal, then draining the client */
        PROXY_DRAIN,       /* refusal written: read and drop until EOF, then close */
};

enum proxy_protocol {
        PROXY_PROTO_NONE,
        PROXY_PROTO_CONNECT,
        PROXY_PROTO_HTTP,
        PROXY_PROTO_SOCKS5,
};

/* One direction of a tunnel: from @src to @dst through a pipe (or, when none could be made, a
 * buffer). */
struct proxy_dir {
        struct cordon_proxy_watch *src, *dst;
        int pipe_r, pipe_w;
        uint8_t *buf; /* fallback to read/write: pipe_bytes */
        size_t off;   /* fallback: first byte in @buf not written yet */
        size_t fill;  /* bytes in the pipe or buffer */
        size_t cap;   /* what the pipe or buffer holds */
        /* Bytes the proxy itself queued for @dst before the relay (a reply, a rewritten head,
         * bytes the client sent early); written first. Heap, freed once written. */
        char *pre;
        size_t pre_len, pre_off;
        uint64_t limit; /* bytes still taken from @src (UINT64_MAX: no limit) */
        bool eof;       /* @src reached EOF (or @limit 0) */
        bool shut;      /* @dst shut down for writing */
        uint64_t bytes; /* bytes written to @dst (pre included) */
        bool pre_own;   /* @pre is the proxy's own reply, not relayed bytes */
        bool grown;     /* the pipe was grown to CORDON_PROXY_PIPE_GROWN (counted in the proxy) */
};

struct proxy_conn {
        struct cordon_proxy *p;
        struct proxy_conn *prev, *next;   /* all connections, or the list of dead ones */
        struct cordon_proxy_watch cw, uw; /* client, upstream */
        enum proxy_state state;
        enum proxy_protocol proto;
        bool dead;
        char client[INET6_ADDRSTRLEN + 8];

        char *head; /* bytes of the request as received so far */
        size_t head_len, head_cap;

        struct cordon_proxy_target target;
        bool have_target;
        /* HTTP forward: the target's path and query in @head (until the head is freed at the
         * dial), for the rules' path entries and the refusal's message. */
        size_t path_off, path_len;
        uint64_t body_left; /* HTTP forward: body bytes still to take from the client */
        struct cordon_proxy_query *query;
        struct cordon_net_addr addrs[CORDON_PROXY_RESOLVE_ADDRS_MAX];
        size_t n_addrs, next_addr;
        int dial_error;
        char address[INET6_ADDRSTRLEN]; /* dialled */

        /* the decision, for the log */
        const struct cordon_net_rule *rule;
        const char *verdict;
        const char *reason;
        char *message; /* a refusal by the rules, as the client was told it (heap); or NULL */

        struct cordon_loop_timer *timer; /* the state's deadline (cordon_proxy_conn_timeout()) */
        uint64_t last_activity;          /* relay: when a byte last moved */
        struct proxy_dir up, down;
};

struct cordon_proxy {
        struct cordon_proxy_config cfg;
        char *dns_server;
        struct cordon_loop *loop;
        struct cordon_proxy_resolver *resolver;
        struct cordon_net_host *host; /* the host's own addresses, refused like the floor */
        struct cordon_proxy_watch listeners[CORDON_PROXY_LISTENERS_MAX];
        unsigned n_listeners;
        bool accepting;
        uint64_t accept_pause_until;            /* after EMFILE on accept; 0: none */
        struct cordon_loop_timer *accept_timer; /* ends the pause */
        /* Connections, and those ended: freed by @reap_timer (armed to fire at once), after
         * the callback that ended them has returned. */
        struct proxy_conn *conns, *dead;
        struct cordon_loop_timer *reap_timer;
        struct cordon_proxy_stats stats;
        unsigned grown_pipes; /* pipes grown for a stream, at most CORDON_PROXY_GROWN_MAX */
};

/* A direction that keeps its pipe full after CORDON_PROXY_GROW_AFTER bytes is a stream: its pipe
 * grows to CORDON_PROXY_PIPE_GROWN, fewer splice rounds per byte, for at most
 * CORDON_PROXY_GROWN_MAX pipes of the proxy at once (16 MiB of kernel memory at most), so 1,000
 * idle tunnels keep their small pipes. */
#define CORDON_PROXY_GROW_AFTER (1024 * 1024)
#define CORDON_PROXY_PIPE_GROWN (256 * 1024)
#define CORDON_PROXY_GROWN_MAX  64

#define CORDON_PROXY_DRAIN_TIMEOUT_MS 2000 /* after a refusal, how long the client is drained */

/* The loop's time of the current round. */
uint64_t cordon_proxy_now(const struct cordon_proxy *p);

/* proxy.c: a connection's timer (@ms from the current round, or at @usec), its interest after
 * a change of state, and its end (logged; freed once the callback has returned). conn_error
 * ends it with verdict "error" and @reason unless a verdict was given already. */
void cordon_proxy_conn_set_deadline(struct proxy_conn *c, unsigned ms);
void cordon_proxy_conn_set_deadline_at(struct proxy_conn *c, uint64_t usec);
void cordon_proxy_conn_update_interest(struct proxy_conn *c);
void cordon_proxy_conn_end(struct proxy_conn *c);
void cordon_proxy_conn_error(struct proxy_conn *c, const char *reason);

/* proxy-request.c: the loop reported @events on @w, one of @c's watches; @c's deadline passed. */
void cordon_proxy_conn_event(struct proxy_conn *c, struct cordon_proxy_watch *w, uint32_t events);
void cordon_proxy_conn_timeout(struct proxy_conn *c);

/* proxy-relay.c: sets up the pipes of @c's tunnel (pre-buffers already queued). Returns 0 or
 * -errno (no pipe and no memory). */
int cordon_proxy_relay_start(struct proxy_conn *c);
/* Moves bytes after epoll reported @events on @w (one of @c's watches). Returns 1 when the
 * tunnel is over (both ways done, or the response of an HTTP forward), 0 to go on, -errno on a
 * failure of either socket. */
int cordon_proxy_relay_event(struct proxy_conn *c, struct cordon_proxy_watch *w, uint32_t events);
/* The events @c's relay wants on the client and upstream sockets. */
void cordon_proxy_relay_interest(const struct proxy_conn *c, uint32_t *ret_client,
                                 uint32_t *ret_upstream);
void cordon_proxy_relay_clear(struct proxy_conn *c);
/* Writes @dir's pre-buffer; returns 1 when it is empty, 0 when the socket is full, -errno. */
int cordon_proxy_dir_flush_pre(struct proxy_dir *d);
