/* cordon's egress proxy engine: accepts clients, reads one HTTP or SOCKS5 request, decides it
 * by the network rules (name first, then every resolved address; no DNS query for a refused
 * name), dials an address that passed, and hands the connection to the relay (proxy-relay.c).
 * Everything is non-blocking on one epoll fd the caller polls. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/proxy/proxy-conn.h"
#include "lib/proxy/proxy-http.h"
#include "lib/proxy/proxy-log.h"
#include "lib/proxy/proxy-socks.h"
#include "shared/macro.h"

#define EVENTS_MAX       64
#define ACCEPTS_MAX      64   /* per dispatch, so one busy listener cannot starve the rest */
#define SOCKS_HEAD_MAX   1024 /* a greeting and a request are at most 257 + 262 bytes */
#define DRAIN_TIMEOUT_MS 2000 /* after a refusal, how long the client's input is drained */
#define ACCEPT_PAUSE_MS  100  /* after EMFILE on accept */

uint64_t cordon_proxy_now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t realtime_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void set_deadline(struct proxy_conn *c, unsigned ms)
{
        c->deadline = c->p->now + (uint64_t)ms * 1000u;
        if (c->p->next_deadline == 0 || c->deadline < c->p->next_deadline)
                c->p->next_deadline = c->deadline;
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
            .bytes_up = c->up.bytes,
            .bytes_down = c->down.bytes,
        };
        /* A log that cannot be written does not stop the traffic it describes; the caller
         * sees a full disk elsewhere. */
        (void)cordon_proxy_log_write(c->p->cfg.log_fd, &e);
}

static void update_listeners(struct cordon_proxy *p)
{
        bool want = p->stats.active < p->cfg.max_connections &&
                    (p->accept_pause_until == 0 || p->now >= p->accept_pause_until);
        if (want == p->accepting)
                return;
        p->accepting = want;
        for (unsigned i = 0; i < p->n_listeners; i++) {
                if (want)
                        (void)cordon_proxy_watch_set(p->epfd, &p->listeners[i], EPOLLIN);
                else
                        cordon_proxy_watch_remove(p->epfd, &p->listeners[i]);
        }
}

/* Ends @c: logs it, closes its sockets and moves it to the dead list (freed after the
 * dispatch, since events already fetched may still point at it). */
static void conn_end(struct proxy_conn *c)
{
        struct cordon_proxy *p = c->p;
        if (c->dead)
                return;
        log_conn(c);
        c->dead = true;
        cordon_proxy_query_cancel(c->query);
        c->query = NULL;
        cordon_proxy_watch_remove(p->epfd, &c->cw);
        cordon_proxy_watch_remove(p->epfd, &c->uw);
        c->cw.fd = safe_close(c->cw.fd);
        c->uw.fd = safe_close(c->uw.fd);
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
        p->stats.active--;
        update_listeners(p);
}

static void conn_error(struct proxy_conn *c, const char *reason)
{
        if (!c->verdict) {
                c->verdict = "error";
                c->reason = reason;
                c->p->stats.errors++;
        }
        conn_end(c);
}

/* What @c wants from epoll now; a socket that wants nothing is taken out of the set so that a
 * hang-up nobody waits for cannot wake the loop over and over. */
static void update_interest(struct proxy_conn *c)
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
                if (evs[i] == 0)
                        cordon_proxy_watch_remove(c->p->epfd, ws[i]);
                else if (cordon_proxy_watch_set(c->p->epfd, ws[i], evs[i]) < 0) {
                        conn_error(c, "cannot poll a socket");
                        return;
                }
        }
}

/* Queues @len bytes of the proxy's own for the client (a reply or a refusal). */
static int queue_reply(struct proxy_conn *c, const void *data, size_t len)
{
        struct proxy_dir *d = &c->down;
        char *n = realloc(d->pre, d->pre_len + len);
        if (!n)
                return -ENOMEM;
        memcpy(n + d->pre_len, data, len);
        d->pre = n;
        d->pre_len += len;
        d->pre_own = true;
        d->dst = &c->cw;
        return 0;
}

/* Answers a refusal and closes: 403/400/... for HTTP, a reply code for SOCKS5. @verdict is
 * "deny" (the rules or a malformed request) or "error" (upstream failure). */
static void refuse(struct proxy_conn *c, const char *verdict, int http_status,
                   enum cordon_socks_reply socks_code, const char *reason)
{
        c->verdict = verdict;
        c->reason = reason;
        if (streq(verdict, "deny"))
                c->p->stats.refused++;
        else
                c->p->stats.errors++;
        cordon_proxy_query_cancel(c->query);
        c->query = NULL;
        if (c->uw.fd >= 0) {
                cordon_proxy_watch_remove(c->p->epfd, &c->uw);
                c->uw.fd = safe_close(c->uw.fd);
        }
        free(c->up.pre);
        c->up.pre = NULL;
        if (c->proto == PROXY_PROTO_SOCKS5) {
                uint8_t out[CORDON_SOCKS_REPLY_MAX];
                size_t n = cordon_proxy_socks_reply(socks_code, NULL, 0, out);
                if (queue_reply(c, out, n) < 0)
                        return conn_end(c);
        } else {
                char out[512];
                char line[300];
                snprintf(line, sizeof(line), "cordon proxy: %s", reason);
                size_t n = cordon_proxy_http_response(http_status, line, out, sizeof(out));
                if (queue_reply(c, out, n) < 0)
                        return conn_end(c);
        }
        c->state = PROXY_REFUSE;
        set_deadline(c, DRAIN_TIMEOUT_MS);
        update_interest(c);
}

static void refuse_rules(struct proxy_conn *c, const struct cordon_net_verdict *v)
{
        c->rule = v->rule;
        refuse(c, "deny", 403, CORDON_SOCKS_NOT_ALLOWED, v->reason ?: "refused by the rules");
}

static void dial_next(struct proxy_conn *c);

static void dial_failed(struct proxy_conn *c)
{
        int e = c->dial_error;
        if (e == ETIMEDOUT)
                refuse(c, "error", 504, CORDON_SOCKS_HOST_UNREACHABLE, "connection timed out");
        else if (e == ECONNREFUSED)
                refuse(c, "error", 502, CORDON_SOCKS_REFUSED, "connection refused");
        else if (e == ENETUNREACH)
                refuse(c, "error", 502, CORDON_SOCKS_NET_UNREACHABLE, "network unreachable");
        else
                refuse(c, "error", 502, CORDON_SOCKS_HOST_UNREACHABLE, "host unreachable");
}

static void dial_connected(struct proxy_conn *c)
{
        int r;

        if (c->proto == PROXY_PROTO_SOCKS5) {
                struct sockaddr_storage sa;
                socklen_t len = sizeof(sa);
                struct cordon_net_addr bound = {.family = AF_INET};
                uint16_t port = 0;
                if (getsockname(c->uw.fd, (struct sockaddr *)&sa, &len) == 0) {
                        if (sa.ss_family == AF_INET6) {
                                const struct sockaddr_in6 *s6 = (const void *)&sa;
                                bound.family = AF_INET6;
                                bound.v6 = s6->sin6_addr;
                                port = ntohs(s6->sin6_port);
                        } else if (sa.ss_family == AF_INET) {
                                const struct sockaddr_in *s4 = (const void *)&sa;
                                bound.v4 = s4->sin_addr;
                                port = ntohs(s4->sin_port);
                        }
                }
                uint8_t out[CORDON_SOCKS_REPLY_MAX];
                size_t n = cordon_proxy_socks_reply(CORDON_SOCKS_OK, &bound, port, out);
                r = queue_reply(c, out, n);
        } else if (c->proto == PROXY_PROTO_CONNECT) {
                char out[64];
                size_t n = cordon_proxy_http_response(200, NULL, out, sizeof(out));
                r = queue_reply(c, out, n);
        } else
                r = 0;
        if (r >= 0)
                r = cordon_proxy_relay_start(c);
        if (r < 0)
                return conn_error(c, "out of memory or descriptors");
        free(c->head);
        c->head = NULL;
        c->head_len = c->head_cap = 0;
        c->verdict = "allow";
        c->reason = "allowed";
        c->state = PROXY_RELAY;
        c->last_activity = c->p->now;
        set_deadline(c, c->p->cfg.idle_timeout_ms);
        /* Whatever is queued goes out as soon as the sockets take it. */
        int done = cordon_proxy_relay_event(c, &c->uw, EPOLLOUT);
        if (done >= 0)
                done = cordon_proxy_relay_event(c, &c->cw, EPOLLOUT);
        if (done < 0)
                return conn_error(c, "relay failed");
        if (done > 0)
                return conn_end(c);
        update_interest(c);
}

static void dial_next(struct proxy_conn *c)
{
        while (c->next_addr < c->n_addrs) {
                const struct cordon_net_addr *a = &c->addrs[c->next_addr++];
                struct sockaddr_storage sa = {};
                socklen_t salen;
                if (a->family == AF_INET) {
                        struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
                        s4->sin_family = AF_INET;
                        s4->sin_addr = a->v4;
                        s4->sin_port = htons(c->target.port);
                        salen = sizeof(*s4);
                } else {
                        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;
                        s6->sin6_family = AF_INET6;
                        s6->sin6_addr = a->v6;
                        s6->sin6_port = htons(c->target.port);
                        salen = sizeof(*s6);
                }
                cordon_net_addr_format(a, c->address, sizeof(c->address));
                if (c->p->cfg.connect_hook) {
                        int r = c->p->cfg.connect_hook(c->p->cfg.connect_hook_userdata, a,
                                                       c->target.port, &sa, &salen);
                        if (r < 0) {
                                c->dial_error = -r;
                                continue;
                        }
                }
                int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
                if (fd < 0) {
                        c->dial_error = errno;
                        continue;
                }
                c->uw.fd = fd;
                if (connect(fd, (struct sockaddr *)&sa, salen) == 0)
                        return dial_connected(c);
                if (errno == EINPROGRESS) {
                        c->state = PROXY_DIAL;
                        set_deadline(c, c->p->cfg.connect_timeout_ms);
                        update_interest(c);
                        return;
                }
                c->dial_error = errno;
                c->uw.fd = safe_close(c->uw.fd);
        }
        dial_failed(c);
}

/* epoll says the dial finished, one way or the other. */
static void dial_event(struct proxy_conn *c)
{
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(c->uw.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                err = errno;
        if (err == 0)
                return dial_connected(c);
        c->dial_error = err;
        cordon_proxy_watch_remove(c->p->epfd, &c->uw);
        c->uw.fd = safe_close(c->uw.fd);
        dial_next(c);
}

static void resolved(void *userdata, int error, const struct cordon_net_addr *addrs, size_t n)
{
        struct proxy_conn *c = userdata;
        struct cordon_net_verdict first_denial = {};
        const struct cordon_net_rule *name_rule = c->rule;

        c->query = NULL;
        if (error == -ETIMEDOUT)
                return refuse(c, "error", 504, CORDON_SOCKS_HOST_UNREACHABLE,
                              "name resolution timed out");
        if (error < 0)
                return refuse(c, "error", 502, CORDON_SOCKS_HOST_UNREACHABLE,
                              "the name does not resolve");
        /* Every address is checked; only those that pass are ever dialled, in the order
         * served (no re-resolution later, so DNS rebinding has nothing to race). */
        c->n_addrs = 0;
        for (size_t i = 0; i < n; i++) {
                struct cordon_net_verdict v;
                cordon_net_rules_check_addr(c->p->cfg.rules, &addrs[i], c->target.port, true, &v);
                if (v.allow) {
                        if (c->n_addrs == 0 && v.rule)
                                c->rule = v.rule; /* an address exception decided */
                        c->addrs[c->n_addrs++] = addrs[i];
                } else if (!first_denial.reason)
                        first_denial = v;
        }
        if (c->n_addrs == 0) {
                cordon_net_addr_format(&addrs[0], c->address, sizeof(c->address));
                if (!first_denial.rule)
                        first_denial.rule = name_rule;
                return refuse_rules(c, &first_denial);
        }
        c->next_addr = 0;
        dial_next(c);
}

/* The request named its target: decide, then resolve or dial. */
static void decide(struct proxy_conn *c)
{
        const struct cordon_net_rules *rules = c->p->cfg.rules;
        struct cordon_net_verdict v;

        c->have_target = true;
        if (c->target.is_addr) {
                cordon_net_rules_check_addr(rules, &c->target.addr, c->target.port, false, &v);
                if (!v.allow)
                        return refuse_rules(c, &v);
                c->rule = v.rule;
                c->addrs[0] = c->target.addr;
                c->n_addrs = 1;
                return dial_next(c);
        }
        cordon_net_rules_check_name(rules, c->target.host, c->target.port, &v);
        if (!v.allow)
                return refuse_rules(c, &v); /* no DNS query for a refused name */
        c->rule = v.rule;
        c->state = PROXY_RESOLVE;
        set_deadline(c, c->p->cfg.dns_timeout_ms);
        if (cordon_proxy_resolve(c->p->resolver, c->target.host, resolved, c, &c->query) < 0)
                return conn_error(c, "out of memory");
        update_interest(c);
}

/* Keeps @len bytes from @from for the upstream, after what is queued already. */
static int queue_up(struct proxy_conn *c, const char *from, size_t len)
{
        if (len == 0)
                return 0;
        struct proxy_dir *d = &c->up;
        char *n = realloc(d->pre, d->pre_len + len);
        if (!n)
                return -ENOMEM;
        memcpy(n + d->pre_len, from, len);
        d->pre = n;
        d->pre_len += len;
        return 0;
}

static void http_head(struct proxy_conn *c)
{
        struct cordon_proxy_http_request req;
        int r = cordon_proxy_http_parse(c->head, c->head_len, c->p->cfg.max_header_bytes, &req);
        if (r == -EAGAIN)
                return;
        c->proto = req.connect ? PROXY_PROTO_CONNECT : PROXY_PROTO_HTTP;
        if (r == -ENOMEM)
                return conn_error(c, "out of memory");
        if (r < 0) {
                /* The target is logged when the parser got that far. */
                if (req.target.host[0]) {
                        c->target = req.target;
                        c->have_target = true;
                }
                return refuse(c, "deny", req.status, 0, req.reason);
        }
        c->target = req.target;
        size_t extra = c->head_len - req.head_len;
        const char *rest = c->head + req.head_len;
        if (req.connect)
                r = queue_up(c, rest, extra); /* early bytes of the tunnel */
        else {
                c->up.pre = TAKE_PTR(req.forward);
                c->up.pre_len = req.forward_len;
                /* The body follows, framed by Content-Length; pipelined requests after it are
                 * not forwarded (one request per upstream connection). */
                size_t body = extra < req.body_len ? extra : (size_t)req.body_len;
                r = queue_up(c, rest, body);
                c->body_left = req.body_len - body;
        }
        cordon_proxy_http_request_clear(&req);
        if (r < 0)
                return conn_error(c, "out of memory");
        c->up.limit = req.connect ? UINT64_MAX : c->body_left;
        decide(c);
}

static void socks_head(struct proxy_conn *c)
{
        size_t used = 0;
        if (c->state == PROXY_SOCKS_GREET) {
                int m = cordon_proxy_socks_greeting((const uint8_t *)c->head, c->head_len, &used);
                if (m == -EAGAIN)
                        return;
                if (m < 0)
                        return refuse(c, "deny", 400, CORDON_SOCKS_GENERAL_FAILURE,
                                      "malformed SOCKS5 greeting");
                uint8_t reply[2] = {CORDON_SOCKS_VERSION, (uint8_t)m};
                if (queue_reply(c, reply, 2) < 0)
                        return conn_error(c, "out of memory");
                if (m == CORDON_SOCKS_METHOD_NONE) {
                        c->verdict = "deny";
                        c->reason = "SOCKS5 client does not offer no-authentication";
                        c->p->stats.refused++;
                        c->state = PROXY_REFUSE;
                        set_deadline(c, DRAIN_TIMEOUT_MS);
                        return update_interest(c);
                }
                memmove(c->head, c->head + used, c->head_len - used);
                c->head_len -= used;
                c->state = PROXY_SOCKS_REQ;
        }
        struct cordon_proxy_socks_request req;
        int r = cordon_proxy_socks_request((const uint8_t *)c->head, c->head_len, &req);
        if (r == -EAGAIN)
                return update_interest(c);
        if (r < 0)
                return refuse(c, "deny", 400, req.reply, req.reason);
        c->target = req.target;
        c->up.limit = UINT64_MAX;
        if (queue_up(c, c->head + req.used, c->head_len - req.used) < 0)
                return conn_error(c, "out of memory");
        decide(c);
}

/* Reads the request while it is incomplete. */
static void handshake_read(struct proxy_conn *c)
{
        size_t max = c->state == PROXY_HTTP_HEAD || c->state == PROXY_SNIFF
                         ? c->p->cfg.max_header_bytes
                         : SOCKS_HEAD_MAX;
        if (c->head_len == c->head_cap) {
                size_t cap = c->head_cap ? c->head_cap * 2 : 1024;
                if (cap > max)
                        cap = max;
                if (cap <= c->head_len)
                        return refuse(c, "deny", 431, CORDON_SOCKS_GENERAL_FAILURE,
                                      "request too long");
                char *n = realloc(c->head, cap);
                if (!n)
                        return conn_error(c, "out of memory");
                c->head = n;
                c->head_cap = cap;
        }
        ssize_t n = recv(c->cw.fd, c->head + c->head_len, c->head_cap - c->head_len, 0);
        if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return;
                return conn_end(c); /* nothing was decided: no log line */
        }
        if (n == 0) {
                if (c->head_len > 0) {
                        c->proto = c->state == PROXY_SOCKS_GREET || c->state == PROXY_SOCKS_REQ
                                       ? PROXY_PROTO_SOCKS5
                                       : PROXY_PROTO_HTTP;
                        return conn_error(c, "client closed before the request was complete");
                }
                return conn_end(c);
        }
        c->head_len += (size_t)n;
        if (c->state == PROXY_SNIFF) {
                /* One port, two protocols: SOCKS5 starts with its version byte, which no HTTP
                 * method does. */
                c->state = (uint8_t)c->head[0] == CORDON_SOCKS_VERSION ? PROXY_SOCKS_GREET
                                                                       : PROXY_HTTP_HEAD;
                c->proto = c->state == PROXY_SOCKS_GREET ? PROXY_PROTO_SOCKS5 : PROXY_PROTO_HTTP;
        }
        if (c->state == PROXY_HTTP_HEAD)
                http_head(c);
        else
                socks_head(c);
}

static void conn_event(struct proxy_conn *c, struct cordon_proxy_watch *w, uint32_t events)
{
        int r;

        switch (c->state) {
        case PROXY_SNIFF:
        case PROXY_HTTP_HEAD:
        case PROXY_SOCKS_GREET:
        case PROXY_SOCKS_REQ:
        case PROXY_RESOLVE:
        case PROXY_DIAL:
                if (w == &c->uw && c->state == PROXY_DIAL)
                        return dial_event(c);
                if (w == &c->cw && (events & EPOLLOUT)) {
                        r = cordon_proxy_dir_flush_pre(&c->down);
                        if (r < 0)
                                return conn_end(c);
                }
                if (w == &c->cw && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) &&
                    c->state <= PROXY_SOCKS_REQ)
                        return handshake_read(c);
                return update_interest(c);
        case PROXY_RELAY:
                r = cordon_proxy_relay_event(c, w, events);
                if (r < 0)
                        return conn_end(c); /* a reset ends a tunnel; it was allowed */
                if (r > 0 && c->proto == PROXY_PROTO_HTTP) {
                        /* The response is out and the client's side shut: drain what the
                         * client may still send (a request on a connection it thought it
                         * could keep) so that closing does not reset the response away. */
                        cordon_proxy_watch_remove(c->p->epfd, &c->uw);
                        c->uw.fd = safe_close(c->uw.fd);
                        c->state = PROXY_DRAIN;
                        set_deadline(c, DRAIN_TIMEOUT_MS);
                        return update_interest(c);
                }
                if (r > 0)
                        return conn_end(c);
                return update_interest(c);
        case PROXY_REFUSE:
                r = cordon_proxy_dir_flush_pre(&c->down);
                if (r < 0)
                        return conn_end(c);
                if (r == 0)
                        return;
                /* Written: shut our side and drain the client's, so that a close with unread
                 * input does not reset the connection and destroy the refusal in flight. */
                (void)shutdown(c->cw.fd, SHUT_WR);
                c->state = PROXY_DRAIN;
                return update_interest(c);
        case PROXY_DRAIN: {
                char buf[4096];
                ssize_t n = recv(c->cw.fd, buf, sizeof(buf), 0);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                        return conn_end(c);
                return;
        }
        }
}

static void conn_timeout(struct proxy_conn *c)
{
        switch (c->state) {
        case PROXY_RELAY: {
                uint64_t idle_until =
                    c->last_activity + (uint64_t)c->p->cfg.idle_timeout_ms * 1000u;
                if (idle_until > c->p->now) {
                        c->deadline = idle_until;
                        return;
                }
                c->reason = "idle timeout";
                return conn_end(c);
        }
        case PROXY_RESOLVE:
                return refuse(c, "error", 504, CORDON_SOCKS_HOST_UNREACHABLE,
                              "name resolution timed out");
        case PROXY_DIAL:
                c->dial_error = ETIMEDOUT;
                cordon_proxy_watch_remove(c->p->epfd, &c->uw);
                c->uw.fd = safe_close(c->uw.fd);
                return dial_next(c);
        case PROXY_REFUSE:
        case PROXY_DRAIN:
                return conn_end(c);
        default:
                if (c->head_len > 0)
                        return conn_error(c, "request not complete in time");
                return conn_end(c);
        }
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
                                p->accept_pause_until = p->now + ACCEPT_PAUSE_MS * 1000u;
                                if (p->next_deadline == 0 ||
                                    p->accept_pause_until < p->next_deadline)
                                        p->next_deadline = p->accept_pause_until;
                                update_listeners(p);
                        }
                        return;
                }
                struct proxy_conn *c = calloc(1, sizeof(*c));
                if (!c) {
                        close(fd);
                        return;
                }
                *c = (struct proxy_conn){
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
                set_deadline(c, CORDON_PROXY_REQUEST_TIMEOUT_MS);
                update_interest(c);
        }
        update_listeners(p);
}

static void run_timers(struct cordon_proxy *p)
{
        if (p->accept_pause_until && p->now >= p->accept_pause_until) {
                p->accept_pause_until = 0;
                update_listeners(p);
        }
        if (p->next_deadline == 0 || p->now < p->next_deadline)
                return;
        /* A linear walk, only when the earliest deadline (a lower bound kept on the cheap)
         * has passed: at the connection limit that is 1024 compares every few seconds. */
        uint64_t next = 0;
        for (struct proxy_conn *c = p->conns, *n; c; c = n) {
                n = c->next;
                if (c->deadline && c->deadline <= p->now)
                        conn_timeout(c);
        }
        for (struct proxy_conn *c = p->conns; c; c = c->next)
                if (c->deadline && (next == 0 || c->deadline < next))
                        next = c->deadline;
        if (p->accept_pause_until && (next == 0 || p->accept_pause_until < next))
                next = p->accept_pause_until;
        p->next_deadline = next;
}

int cordon_proxy_dispatch(struct cordon_proxy *p)
{
        struct epoll_event events[EVENTS_MAX];
        int n = epoll_wait(p->epfd, events, EVENTS_MAX, 0);
        if (n < 0 && errno != EINTR)
                return negative_errno();
        p->now = cordon_proxy_now();
        for (int i = 0; i < n; i++) {
                struct cordon_proxy_watch *w = events[i].data.ptr;
                switch (w->kind) {
                case CORDON_PROXY_WATCH_LISTENER:
                        accept_clients(p, w);
                        break;
                case CORDON_PROXY_WATCH_DNS:
                        cordon_proxy_resolver_event(p->resolver, w, events[i].events);
                        break;
                case CORDON_PROXY_WATCH_CLIENT:
                case CORDON_PROXY_WATCH_UPSTREAM: {
                        struct proxy_conn *c = w->owner;
                        if (!c->dead)
                                conn_event(c, w, events[i].events);
                        break;
                }
                }
        }
        cordon_proxy_resolver_timers(p->resolver);
        cordon_proxy_resolver_deliver(p->resolver);
        run_timers(p);
        while (p->dead) {
                struct proxy_conn *c = p->dead;
                p->dead = c->next;
                free(c);
        }
        return 0;
}

uint64_t cordon_proxy_deadline(const struct cordon_proxy *p)
{
        uint64_t d = p->next_deadline;
        uint64_t r = cordon_proxy_resolver_deadline(p->resolver, cordon_proxy_now());
        if (r && (d == 0 || r < d))
                d = r;
        return d;
}

int cordon_proxy_fd(const struct cordon_proxy *p)
{
        return p->epfd;
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
        *w = (struct cordon_proxy_watch){.kind = CORDON_PROXY_WATCH_LISTENER, .fd = owned};
        if (p->accepting) {
                int r = cordon_proxy_watch_set(p->epfd, w, EPOLLIN);
                if (r < 0)
                        return r;
        }
        TAKE_FD(owned);
        p->n_listeners++;
        return 0;
}

int cordon_proxy_new(const struct cordon_proxy_config *cfg, struct cordon_proxy **ret,
                     struct cordon_diag *diag)
{
        if (!cfg || !cfg->rules)
                return cordon_diag_set(diag, -EINVAL, "The egress proxy needs a rule set");
        struct cordon_proxy *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->cfg = *cfg;
        p->epfd = -EBADF;
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
        p->epfd = epoll_create1(EPOLL_CLOEXEC);
        if (p->epfd < 0) {
                int r = negative_errno();
                cordon_proxy_free(p);
                return cordon_diag_set(diag, r, "Failed to create the egress proxy's epoll fd");
        }
        int r = cordon_proxy_resolver_new(p->epfd, p->cfg.dns_server, p->cfg.dns_timeout_ms,
                                          &p->resolver, diag);
        if (r < 0) {
                cordon_proxy_free(p);
                return r;
        }
        p->accepting = true;
        *ret = p;
        return 0;
}

void cordon_proxy_free(struct cordon_proxy *p)
{
        if (!p)
                return;
        p->now = cordon_proxy_now();
        while (p->conns) {
                struct proxy_conn *c = p->conns;
                if (!c->verdict) {
                        c->verdict = "error";
                        c->reason = "proxy shut down";
                } else if (c->state == PROXY_RELAY)
                        c->reason = "proxy shut down";
                conn_end(c);
        }
        while (p->dead) {
                struct proxy_conn *c = p->dead;
                p->dead = c->next;
                free(c);
        }
        cordon_proxy_resolver_free(p->resolver);
        for (unsigned i = 0; i < p->n_listeners; i++)
                safe_close(p->listeners[i].fd);
        safe_close(p->epfd);
        free(p->dns_server);
        free(p);
}

void cordon_proxy_get_stats(const struct cordon_proxy *p, struct cordon_proxy_stats *ret)
{
        *ret = p->stats;
}
