/* c-ares resolution for the egress proxy, on the proxy's own epoll. Finished queries wait on a
 * list until cordon_proxy_resolver_deliver() runs their callbacks, so no callback ever runs
 * inside ares_getaddrinfo() or ares_process_fd() (c-ares may answer from /etc/hosts
 * synchronously, and a callback that frees its connection there would pull the rug from under
 * the caller). */
#include <ares.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#include "lib/policy/diag.h"
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
        int epfd;
        ares_channel channel;
        bool channel_ok;
        struct cordon_proxy_watch socks[DNS_SOCKETS_MAX];
        struct cordon_proxy_query *done, **done_tail;
};

int cordon_proxy_watch_set(int epfd, struct cordon_proxy_watch *w, uint32_t events)
{
        if (w->registered && w->events == events)
                return 0;
        struct epoll_event ev = {.events = events, .data.ptr = w};
        if (epoll_ctl(epfd, w->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, w->fd, &ev) < 0)
                return negative_errno();
        w->registered = true;
        w->events = events;
        return 0;
}

void cordon_proxy_watch_remove(int epfd, struct cordon_proxy_watch *w)
{
        if (w->registered)
                (void)epoll_ctl(epfd, EPOLL_CTL_DEL, w->fd, NULL);
        w->registered = false;
        w->events = 0;
}

/* c-ares opens, changes and closes its sockets through here. The watches are slots of a fixed
 * array, never freed while the resolver lives: an event fetched in the same epoll batch as the
 * one whose processing closed the socket still points at valid memory (at worst at a slot
 * reused for another socket, which then sees one spurious, harmless ares_process_fd()). A
 * failure to register leaves the socket unpolled; its query then ends by the proxy's deadline. */
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
                        cordon_proxy_watch_remove(r->epfd, w);
                        w->fd = -EBADF;
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
        (void)cordon_proxy_watch_set(r->epfd, w,
                                     (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0));
}

int cordon_proxy_resolver_new(int epfd, const char *dns_server, unsigned timeout_ms,
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
        r->epfd = epfd;
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
        if (ares_init_options(&r->channel, &o, mask) != ARES_SUCCESS) {
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
        return 0;
}

void cordon_proxy_query_cancel(struct cordon_proxy_query *q)
{
        if (q)
                q->fn = NULL;
}

void cordon_proxy_resolver_event(struct cordon_proxy_resolver *r, struct cordon_proxy_watch *w,
                                 uint32_t events)
{
        int fd = w->fd;
        if (fd < 0)
                return; /* closed by an earlier event of the same batch */
        ares_process_fd(r->channel, events & (EPOLLIN | EPOLLERR | EPOLLHUP) ? fd : ARES_SOCKET_BAD,
                        events & (EPOLLOUT | EPOLLERR) ? fd : ARES_SOCKET_BAD);
}

uint64_t cordon_proxy_resolver_deadline(struct cordon_proxy_resolver *r, uint64_t now)
{
        struct timeval tv, *t = ares_timeout(r->channel, NULL, &tv);
        if (!t)
                return 0;
        return now + (uint64_t)t->tv_sec * 1000000u + (uint64_t)t->tv_usec;
}

void cordon_proxy_resolver_timers(struct cordon_proxy_resolver *r)
{
        ares_process_fd(r->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
}

void cordon_proxy_resolver_deliver(struct cordon_proxy_resolver *r)
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
