/* c-ares resolution for the egress proxy, on the proxy's event loop. Finished queries wait on a
 * list until the resolver's timer (armed to fire at once) runs their callbacks, so no callback
 * ever runs inside ares_getaddrinfo() or ares_process_fd() (c-ares may answer from /etc/hosts
 * synchronously, and a callback that frees its connection there would pull the rug from under
 * the caller). */
#include <ares.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "lib/policy/diag.h"
#include "lib/loop/loop.h"
#include "lib/net/net-server.h"
#include "lib/proxy/proxy-resolve.h"
#include "shared/macro.h"

#define DNS_SOCKETS_MAX 32 /* c-ares opens one UDP (and maybe one TCP) socket per server */

struct cordon_proxy_query {
        struct cordon_proxy_resolver *r;
        cordon_proxy_resolve_fn fn; /* NULL: cancelled */
        void *userdata;
        int error;
        struct cordon_net_addr addrs[CORDON_PROXY_RESOLVE_ADDRS_MAX];
        size_t n;
        struct cordon_proxy_query *next_done;
};

struct cordon_proxy_resolver {
        struct cordon_loop *loop;
        struct cordon_loop_timer *timer; /* c-ares's next timeout, or at once to deliver */
        ares_channel channel;
        bool channel_ok;
        struct cordon_proxy_watch socks[DNS_SOCKETS_MAX];
        struct cordon_proxy_query *done, **done_tail;
};

int cordon_proxy_watch_set(struct cordon_loop *loop, struct cordon_proxy_watch *w, uint32_t events,
                           cordon_loop_io_fn fn)
{
        if (w->io)
                return cordon_loop_io_set_events(w->io, events);
        if (!events)
                return 0;
        return cordon_loop_add_io(loop, w->fd, events, fn, w, &w->io);
}

void cordon_proxy_watch_remove(struct cordon_proxy_watch *w)
{
        if (w->io)
                (void)cordon_loop_io_set_events(w->io, 0);
}

void cordon_proxy_watch_close(struct cordon_proxy_watch *w)
{
        w->io = cordon_loop_io_free(w->io);
        w->fd = safe_close(w->fd);
}

/* The next wake-up: at once while finished queries wait for their callbacks, else c-ares's
 * next timeout. Called after every call into c-ares. */
static void arm(struct cordon_proxy_resolver *r)
{
        uint64_t at = CORDON_LOOP_NEVER;
        struct timeval tv;
        if (r->done)
                at = 0;
        else if (ares_timeout(r->channel, NULL, &tv))
                at = cordon_loop_now(r->loop) + (uint64_t)tv.tv_sec * 1000000u +
                     (uint64_t)tv.tv_usec;
        cordon_loop_timer_set(r->timer, at);
}

static int on_socket(struct cordon_loop_io *io, int fd, uint32_t events, void *userdata)
{
        (void)io;
        struct cordon_proxy_watch *w = userdata;
        struct cordon_proxy_resolver *r = w->owner;
        /* @w may be freed (its socket closed) or reused inside: not touched afterwards. */
        ares_process_fd(r->channel, events & (EPOLLIN | EPOLLERR | EPOLLHUP) ? fd : ARES_SOCKET_BAD,
                        events & (EPOLLOUT | EPOLLERR) ? fd : ARES_SOCKET_BAD);
        arm(r);
        return 0;
}

static void deliver(struct cordon_proxy_resolver *r)
{
        while (r->done) {
                struct cordon_proxy_query *q = r->done;
                r->done = q->next_done;
                if (!r->done)
                        r->done_tail = &r->done;
                if (q->fn)
                        q->fn(q->userdata, q->error, q->addrs, q->n);
                free(q);
        }
}

static int on_timer(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        struct cordon_proxy_resolver *r = userdata;
        /* c-ares's retries and timeouts (which may finish queries), then the callbacks. */
        ares_process_fd(r->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
        deliver(r);
        arm(r);
        return 0;
}

/* c-ares opens, changes and closes its sockets through here (it says (0, 0) before it closes
 * one). A socket's source is freed then, so that the loop never dispatches it again, even for
 * an event fetched in the same round. A failure to register leaves the socket unpolled; its
 * query then ends by the proxy's deadline. */
static void sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
        struct cordon_proxy_resolver *r = data;
        struct cordon_proxy_watch *w = NULL, *free_slot = NULL;

        for (size_t i = 0; i < DNS_SOCKETS_MAX; i++) {
                if (r->socks[i].fd == fd) {
                        w = &r->socks[i];
                        break;
                }
                if (r->socks[i].fd < 0 && !free_slot)
                        free_slot = &r->socks[i];
        }
        if (!readable && !writable) {
                if (w) {
                        w->io = cordon_loop_io_free(w->io);
                        w->fd = -EBADF; /* c-ares closes it */
                }
                return;
        }
        if (!w) {
                if (!free_slot)
                        return;
                w = free_slot;
                *w = (struct cordon_proxy_watch){
                    .kind = CORDON_PROXY_WATCH_DNS, .fd = fd, .owner = r};
        }
        (void)cordon_proxy_watch_set(
            r->loop, w, (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0), on_socket);
}

int cordon_proxy_resolver_new(struct cordon_loop *loop, const char *dns_server, unsigned timeout_ms,
                              struct cordon_proxy_resolver **ret, struct cordon_diag *diag)
{
        struct cordon_proxy_resolver *r;
        struct ares_options o = {};
        int mask = ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_FLAGS;
        char lookups[] = "b";

        if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
                return cordon_diag_set(diag, -EIO, "Failed to initialise c-ares");
        r = calloc(1, sizeof(*r));
        if (!r) {
                ares_library_cleanup();
                return -ENOMEM;
        }
        r->loop = loop;
        r->done_tail = &r->done;
        for (size_t i = 0; i < DNS_SOCKETS_MAX; i++)
                r->socks[i].fd = -EBADF;

        o.sock_state_cb = sock_state;
        o.sock_state_cb_data = r;
        /* Two tries, each half the time: the caller's deadline is the real bound. */
        o.timeout = (int)(timeout_ms / 2 ?: 1);
        o.tries = 2;
        /* The name the rules decided on is the name asked: no search domains. */
        o.flags = ARES_FLAG_NOSEARCH;
        if (dns_server) {
                /* An explicit server is the only source: not the host's /etc/hosts either. */
                o.lookups = lookups;
                mask |= ARES_OPT_LOOKUPS;
        }
        if (cordon_loop_add_timer(loop, CORDON_LOOP_NEVER, on_timer, r, &r->timer) < 0) {
                free(r);
                ares_library_cleanup();
                return -ENOMEM;
        }
        if (ares_init_options(&r->channel, &o, mask) != ARES_SUCCESS) {
                cordon_loop_timer_free(r->timer);
                free(r);
                ares_library_cleanup();
                return cordon_diag_set(diag, -EIO, "Failed to start the c-ares resolver");
        }
        r->channel_ok = true;
        if (dns_server) {
                struct ares_addr_port_node *servers = NULL;
                struct cordon_net_addr addr;
                uint16_t port;
                /* The grammar of NETWORK_PROXY_DNS (canonical addresses only), then c-ares's. */
                bool ok = cordon_net_parse_server(dns_server, &addr, &port) >= 0 &&
                          ares_set_servers_ports_csv(r->channel, dns_server) == ARES_SUCCESS &&
                          ares_get_servers_ports(r->channel, &servers) == ARES_SUCCESS && servers &&
                          !servers->next;
                ares_free_data(servers);
                if (!ok) {
                        cordon_proxy_resolver_free(r);
                        return cordon_diag_set(diag, -EINVAL,
                                               "DNS server '%s' is not ADDR[:PORT] "
                                               "(an IPv6 address as [ADDR]:PORT)",
                                               dns_server);
                }
        }
        *ret = r;
        return 0;
}

void cordon_proxy_resolver_free(struct cordon_proxy_resolver *r)
{
        if (!r)
                return;
        /* Running queries end with ARES_EDESTRUCTION here; their callbacks are dropped below. */
        if (r->channel_ok)
                ares_destroy(r->channel);
        /* Whatever c-ares did not say it closed. */
        for (size_t i = 0; i < DNS_SOCKETS_MAX; i++)
                r->socks[i].io = cordon_loop_io_free(r->socks[i].io);
        cordon_loop_timer_free(r->timer);
        while (r->done) {
                struct cordon_proxy_query *q = r->done;
                r->done = q->next_done;
                free(q);
        }
        free(r);
        ares_library_cleanup();
}

static int ares_error(int status)
{
        switch (status) {
        case ARES_ENOTFOUND:
        case ARES_ENODATA:
        case ARES_ENONAME:
        case ARES_EBADNAME:
                return -ENOENT;
        case ARES_ETIMEOUT:
                return -ETIMEDOUT;
        case ARES_EREFUSED:
                return -ECONNREFUSED;
        case ARES_ENOMEM:
                return -ENOMEM;
        default:
                return -EIO;
        }
}

static void addrinfo_done(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
        struct cordon_proxy_query *q = arg;

        if (status == ARES_EDESTRUCTION) {
                /* The resolver is going away: nobody will deliver this. */
                ares_freeaddrinfo(res);
                free(q);
                return;
        }
        q->error = status == ARES_SUCCESS ? 0 : ares_error(status);
        for (struct ares_addrinfo_node *n = res ? res->nodes : NULL;
             n && q->n < CORDON_PROXY_RESOLVE_ADDRS_MAX; n = n->ai_next) {
                struct cordon_net_addr *a = &q->addrs[q->n];
                if (n->ai_family == AF_INET && n->ai_addrlen >= sizeof(struct sockaddr_in)) {
                        a->family = AF_INET;
                        a->v4 = ((const struct sockaddr_in *)(const void *)n->ai_addr)->sin_addr;
                } else if (n->ai_family == AF_INET6 &&
                           n->ai_addrlen >= sizeof(struct sockaddr_in6)) {
                        a->family = AF_INET6;
                        a->v6 = ((const struct sockaddr_in6 *)(const void *)n->ai_addr)->sin6_addr;
                } else
                        continue;
                q->n++;
        }
        if (q->error == 0 && q->n == 0)
                q->error = -ENOENT;
        ares_freeaddrinfo(res);
        *q->r->done_tail = q;
        q->r->done_tail = &q->next_done;
}

int cordon_proxy_resolve(struct cordon_proxy_resolver *r, const char *name,
                         cordon_proxy_resolve_fn fn, void *userdata,
                         struct cordon_proxy_query **ret)
{
        struct cordon_proxy_query *q = calloc(1, sizeof(*q));
        struct ares_addrinfo_hints hints = {.ai_family = AF_UNSPEC,
                                            /* no sorting: it connect()s UDP sockets to every
                                             * answer to rank them; the order served is fine */
                                            .ai_flags = ARES_AI_NOSORT};
        if (!q)
                return -ENOMEM;
        q->r = r;
        q->fn = fn;
        q->userdata = userdata;
        *ret = q;
        ares_getaddrinfo(r->channel, name, NULL, &hints, addrinfo_done, q);
        arm(r);
        return 0;
}

void cordon_proxy_query_cancel(struct cordon_proxy_query *q)
{
        if (q)
                q->fn = NULL;
}
