/* cordon's egress proxy engine: the proxy's lifetime, its listeners, accepting clients, the
 * callbacks of its sources and timers on the loop, and how a connection ends (its log line).
 * What a connection does in between is proxy-request.c; the byte relay is proxy-relay.c.
 * Everything is non-blocking on the caller's loop. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/loop/loop.h"
#include "lib/policy/diag.h"
#include "lib/proxy/proxy-conn.h"
#include "lib/proxy/proxy-log.h"
#include "shared/macro.h"

#define ACCEPTS_MAX     64  /* per round, so one busy listener cannot starve the rest */
#define ACCEPT_PAUSE_MS 100 /* after EMFILE on accept */

uint64_t cordon_proxy_now(const struct cordon_proxy *p)
{
        return cordon_loop_now(p->loop);
}

static uint64_t realtime_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void cordon_proxy_conn_set_deadline_at(struct proxy_conn *c, uint64_t usec)
{
        cordon_loop_timer_set(c->timer, usec);
}

void cordon_proxy_conn_set_deadline(struct proxy_conn *c, unsigned ms)
{
        cordon_proxy_conn_set_deadline_at(c, cordon_proxy_now(c->p) + (uint64_t)ms * 1000u);
}

static const char *protocol_name(enum proxy_protocol proto)
{
        switch (proto) {
        case PROXY_PROTO_CONNECT:
                return "connect";
        case PROXY_PROTO_SOCKS5:
                return "socks5";
        default:
                return "http";
        }
}

static void log_conn(struct proxy_conn *c)
{
        if (c->p->cfg.log_fd < 0 || !c->verdict)
                return;
        struct cordon_proxy_log_entry e = {
            .realtime_usec = realtime_usec(),
            .client = c->client,
            .protocol = protocol_name(c->proto),
            .host = c->have_target ? c->target.host : NULL,
            .port = c->have_target ? c->target.port : 0,
            .address = c->address[0] ? c->address : NULL,
            .rule = c->rule ? c->rule->pattern : NULL,
            .origin = c->rule ? c->rule->origin : NULL,
            .verdict = c->verdict,
            .reason = c->reason,
            .message = c->message,
            .bytes_up = c->up.bytes,
            .bytes_down = c->down.bytes,
        };
        /* A log that cannot be written does not stop the traffic it describes; the caller
         * sees a full disk elsewhere. */
        (void)cordon_proxy_log_write(c->p->cfg.log_fd, &e);
}

static int on_watch(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata);

static void update_listeners(struct cordon_proxy *p)
{
        bool want = p->stats.active < p->cfg.max_connections && p->accept_pause_until == 0;
        if (want == p->accepting)
                return;
        p->accepting = want;
        for (unsigned i = 0; i < p->n_listeners; i++)
                (void)cordon_proxy_watch_set(p->loop, &p->listeners[i], want ? EPOLLIN : 0,
                                             on_watch);
}

/* Ends @c: logs it, closes its sockets and moves it to the dead list (freed by the reap timer,
 * once the callback that is still using @c has returned; the loop dispatches none of its
 * sources from now on). */
void cordon_proxy_conn_end(struct proxy_conn *c)
{
        struct cordon_proxy *p = c->p;
        if (c->dead)
                return;
        log_conn(c);
        free(c->message);
        c->message = NULL;
        c->dead = true;
        cordon_proxy_query_cancel(c->query);
        c->query = NULL;
        c->timer = cordon_loop_timer_free(c->timer);
        cordon_proxy_watch_close(&c->cw);
        cordon_proxy_watch_close(&c->uw);
        cordon_proxy_relay_clear(c);
        free(c->head);
        c->head = NULL;
        if (c->prev)
                c->prev->next = c->next;
        else
                p->conns = c->next;
        if (c->next)
                c->next->prev = c->prev;
        c->prev = NULL;
        c->next = p->dead;
        p->dead = c;
        cordon_loop_timer_set(p->reap_timer, 0);
        p->stats.active--;
        update_listeners(p);
}

void cordon_proxy_conn_error(struct proxy_conn *c, const char *reason)
{
        if (!c->verdict) {
                c->verdict = "error";
                c->reason = reason;
                c->p->stats.errors++;
        }
        cordon_proxy_conn_end(c);
}

/* What @c wants from the loop now; a socket that wants nothing is out of the epoll set, so that
 * a hang-up nobody waits for cannot wake the loop over and over. */
void cordon_proxy_conn_update_interest(struct proxy_conn *c)
{
        uint32_t ce = 0, ue = 0;
        switch (c->state) {
        case PROXY_SNIFF:
        case PROXY_HTTP_HEAD:
        case PROXY_SOCKS_GREET:
        case PROXY_SOCKS_REQ:
                ce = EPOLLIN | (c->down.pre ? EPOLLOUT : 0);
                break;
        case PROXY_RESOLVE:
                ce = c->down.pre ? EPOLLOUT : 0;
                break;
        case PROXY_DIAL:
                ce = c->down.pre ? EPOLLOUT : 0;
                ue = EPOLLOUT;
                break;
        case PROXY_RELAY:
                cordon_proxy_relay_interest(c, &ce, &ue);
                break;
        case PROXY_REFUSE:
                ce = EPOLLOUT;
                break;
        case PROXY_DRAIN:
                ce = EPOLLIN;
                break;
        }
        struct cordon_proxy_watch *ws[] = {&c->cw, &c->uw};
        uint32_t evs[] = {ce, ue};
        for (size_t i = 0; i < 2; i++) {
                if (ws[i]->fd < 0)
                        continue;
                if (cordon_proxy_watch_set(c->p->loop, ws[i], evs[i], on_watch) < 0) {
                        cordon_proxy_conn_error(c, "cannot poll a socket");
                        return;
                }
        }
}

static int on_conn_timer(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        struct proxy_conn *c = userdata;
        if (!c->dead)
                cordon_proxy_conn_timeout(c);
        return 0;
}

static void accept_clients(struct cordon_proxy *p, struct cordon_proxy_watch *l)
{
        for (unsigned i = 0; i < ACCEPTS_MAX && p->stats.active < p->cfg.max_connections; i++) {
                struct sockaddr_storage sa;
                socklen_t salen = sizeof(sa);
                int fd =
                    accept4(l->fd, (struct sockaddr *)&sa, &salen, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (fd < 0) {
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                            errno == ENOMEM) {
                                /* Out of descriptors: stop polling the listener for a moment
                                 * rather than spin on it. */
                                p->accept_pause_until =
                                    cordon_proxy_now(p) + ACCEPT_PAUSE_MS * 1000u;
                                cordon_loop_timer_set(p->accept_timer, p->accept_pause_until);
                                update_listeners(p);
                        }
                        return;
                }
                struct proxy_conn *c = calloc(1, sizeof(*c));
                if (!c || cordon_loop_add_timer(p->loop, CORDON_LOOP_NEVER, on_conn_timer, c,
                                                &c->timer) < 0) {
                        free(c);
                        close(fd);
                        return;
                }
                struct cordon_loop_timer *timer = c->timer;
                *c = (struct proxy_conn){
                    .timer = timer,
                    .p = p,
                    .cw = {.kind = CORDON_PROXY_WATCH_CLIENT, .fd = fd, .owner = c},
                    .uw = {.kind = CORDON_PROXY_WATCH_UPSTREAM, .fd = -EBADF, .owner = c},
                    .up = {.pipe_r = -EBADF, .pipe_w = -EBADF, .limit = UINT64_MAX},
                    .down = {.pipe_r = -EBADF, .pipe_w = -EBADF, .limit = UINT64_MAX},
                };
                c->down.dst = &c->cw;
                c->up.dst = &c->uw;
                char a[INET6_ADDRSTRLEN] = "?";
                if (sa.ss_family == AF_INET6) {
                        const struct sockaddr_in6 *s6 = (const void *)&sa;
                        inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
                        snprintf(c->client, sizeof(c->client), "[%s]:%u", a, ntohs(s6->sin6_port));
                } else if (sa.ss_family == AF_INET) {
                        const struct sockaddr_in *s4 = (const void *)&sa;
                        inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
                        snprintf(c->client, sizeof(c->client), "%s:%u", a, ntohs(s4->sin_port));
                } else
                        snprintf(c->client, sizeof(c->client), "?");
                c->next = p->conns;
                if (p->conns)
                        p->conns->prev = c;
                p->conns = c;
                p->stats.active++;
                p->stats.connections++;
                cordon_proxy_conn_set_deadline(c, CORDON_PROXY_REQUEST_TIMEOUT_MS);
                cordon_proxy_conn_update_interest(c);
        }
        update_listeners(p);
}

static int on_watch(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)fd;
        struct cordon_proxy_watch *w = userdata;
        switch (w->kind) {
        case CORDON_PROXY_WATCH_LISTENER:
                accept_clients(w->owner, w);
                break;
        case CORDON_PROXY_WATCH_CLIENT:
        case CORDON_PROXY_WATCH_UPSTREAM: {
                struct proxy_conn *c = w->owner;
                if (!c->dead)
                        cordon_proxy_conn_event(c, w, revents);
                break;
        }
        case CORDON_PROXY_WATCH_DNS:
                break; /* the resolver's own (proxy-resolve.c) */
        }
        /* A connection's failure ends the connection, never the loop. */
        return 0;
}

static int on_accept_pause(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        struct cordon_proxy *p = userdata;
        p->accept_pause_until = 0;
        update_listeners(p);
        return 0;
}

static void free_dead(struct cordon_proxy *p)
{
        while (p->dead) {
                struct proxy_conn *c = p->dead;
                p->dead = c->next;
                free(c);
        }
}

static int on_reap(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        free_dead(userdata);
        return 0;
}

int cordon_proxy_add_listener(struct cordon_proxy *p, int fd)
{
        _cleanup_close_ int owned = fd;
        if (p->n_listeners >= CORDON_PROXY_LISTENERS_MAX)
                return -ENOSPC;
        int fl = fcntl(owned, F_GETFL);
        if (fl < 0 || fcntl(owned, F_SETFL, fl | O_NONBLOCK) < 0)
                return negative_errno();
        struct cordon_proxy_watch *w = &p->listeners[p->n_listeners];
        *w = (struct cordon_proxy_watch){
            .kind = CORDON_PROXY_WATCH_LISTENER, .fd = owned, .owner = p};
        if (p->accepting) {
                int r = cordon_proxy_watch_set(p->loop, w, EPOLLIN, on_watch);
                if (r < 0)
                        return r;
        }
        TAKE_FD(owned);
        p->n_listeners++;
        return 0;
}

int cordon_proxy_new(const struct cordon_proxy_config *cfg, struct cordon_loop *loop,
                     struct cordon_proxy **ret, struct cordon_diag *diag)
{
        if (!cfg || !cfg->rules)
                return cordon_diag_set(diag, -EINVAL, "The egress proxy needs a rule set");
        if (!loop)
                return -EINVAL;
        struct cordon_proxy *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->cfg = *cfg;
        p->loop = loop;
        if (!p->cfg.max_connections)
                p->cfg.max_connections = CORDON_PROXY_MAX_CONNECTIONS_DEFAULT;
        if (!p->cfg.max_header_bytes)
                p->cfg.max_header_bytes = CORDON_PROXY_MAX_HEADER_BYTES_DEFAULT;
        if (!p->cfg.idle_timeout_ms)
                p->cfg.idle_timeout_ms = CORDON_PROXY_IDLE_TIMEOUT_MS_DEFAULT;
        if (!p->cfg.dns_timeout_ms)
                p->cfg.dns_timeout_ms = CORDON_PROXY_DNS_TIMEOUT_MS_DEFAULT;
        if (!p->cfg.connect_timeout_ms)
                p->cfg.connect_timeout_ms = CORDON_PROXY_CONNECT_TIMEOUT_MS_DEFAULT;
        if (!p->cfg.pipe_bytes)
                p->cfg.pipe_bytes = CORDON_PROXY_PIPE_BYTES_DEFAULT;
        p->cfg.dns_server = NULL;
        if (cfg->dns_server) {
                p->dns_server = strdup(cfg->dns_server);
                if (!p->dns_server) {
                        cordon_proxy_free(p);
                        return -ENOMEM;
                }
                p->cfg.dns_server = p->dns_server;
        }
        int r = cordon_loop_add_timer(loop, CORDON_LOOP_NEVER, on_reap, p, &p->reap_timer);
        if (r >= 0)
                r = cordon_loop_add_timer(loop, CORDON_LOOP_NEVER, on_accept_pause, p,
                                          &p->accept_timer);
        if (r < 0) {
                cordon_proxy_free(p);
                return r;
        }
        r = cordon_proxy_resolver_new(loop, p->cfg.dns_server, p->cfg.dns_timeout_ms, &p->resolver,
                                      diag);
        if (r < 0) {
                cordon_proxy_free(p);
                return r;
        }
        if ((r = cordon_net_host_new(&p->host)) < 0) {
                cordon_proxy_free(p);
                return cordon_diag_set(diag, r, "Failed to list the host's own addresses: %s",
                                       strerror(-r));
        }
        p->accepting = true;
        *ret = p;
        return 0;
}

void cordon_proxy_free(struct cordon_proxy *p)
{
        if (!p)
                return;
        while (p->conns) {
                struct proxy_conn *c = p->conns;
                if (!c->verdict) {
                        c->verdict = "error";
                        c->reason = "proxy shut down";
                } else if (c->state == PROXY_RELAY)
                        c->reason = "proxy shut down";
                cordon_proxy_conn_end(c);
        }
        free_dead(p);
        cordon_proxy_resolver_free(p->resolver);
        cordon_net_host_free(p->host);
        for (unsigned i = 0; i < p->n_listeners; i++)
                cordon_proxy_watch_close(&p->listeners[i]);
        cordon_loop_timer_free(p->reap_timer);
        cordon_loop_timer_free(p->accept_timer);
        free(p->dns_server);
        free(p);
}

void cordon_proxy_get_stats(const struct cordon_proxy *p, struct cordon_proxy_stats *ret)
{
        *ret = p->stats;
}
