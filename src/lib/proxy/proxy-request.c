/* One egress-proxy connection from its first byte to its relay: reads one HTTP or SOCKS5
 * request, decides it by the network rules (the name first, then every resolved address; no DNS
 * query for a refused name), dials an address that passed (never re-resolved), answers, and
 * hands over to the relay (proxy-relay.c); or refuses with 403 / a SOCKS5 reply code. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/proxy/proxy-conn.h"
#include "lib/proxy/proxy-http.h"
#include "lib/proxy/proxy-socks.h"
#include "shared/macro.h"

#define SOCKS_HEAD_MAX 1024 /* a greeting and a request are at most 257 + 262 bytes */

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
        cordon_proxy_watch_close(&c->uw);
        free(c->up.pre);
        c->up.pre = NULL;
        if (c->proto == PROXY_PROTO_SOCKS5) {
                /* A reply code is all SOCKS5 has: the why is in NETWORK_LOG (c->message). */
                uint8_t out[CORDON_SOCKS_REPLY_MAX];
                size_t n = cordon_proxy_socks_reply(socks_code, NULL, 0, out);
                if (queue_reply(c, out, n) < 0)
                        return cordon_proxy_conn_end(c);
        } else {
                char out[2048];
                char line[1024];
                snprintf(line, sizeof(line), "cordon proxy: %s", c->message ?: reason);
                size_t n =
                    cordon_proxy_http_response_why(http_status, c->message, line, out, sizeof(out));
                if (queue_reply(c, out, n) < 0)
                        return cordon_proxy_conn_end(c);
        }
        c->state = PROXY_REFUSE;
        cordon_proxy_conn_set_deadline(c, CORDON_PROXY_DRAIN_TIMEOUT_MS);
        cordon_proxy_conn_update_interest(c);
}

/* @s for a message: printable ASCII only (an origin is a file name of any bytes). */
static void printable(char *s)
{
        for (; *s; s++)
                if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
                        *s = '?';
}

/* Remembers @dest among the first refused destinations of the proxy's stats. */
static void note_refused(struct cordon_proxy *p, const char *dest)
{
        for (size_t i = 0; i < CORDON_PROXY_REFUSED_FIRST; i++) {
                char *slot = p->stats.refused_first[i];
                if (streq(slot, dest))
                        return;
                if (!*slot) {
                        snprintf(slot, sizeof(p->stats.refused_first[i]), "%s", dest);
                        return;
                }
        }
}

/* What a refusal by the rules says, in one line: the destination (with the request's path when
 * a path entry decided), the rule that refused it and where that rule came from, and how to lift
 * it (in sandbox.conf's spelling, which every front end knows:
 * NETWORK_BLOCKLIST_EXCEPT+=('host')), or that nothing lifts it. @addr is the address that was
 * refused when the name passed and an address did not, else NULL. Sets c->message (NULL when
 * out of memory: the short reason is used then). */
static void refusal_message(struct proxy_conn *c, const struct cordon_net_verdict *v,
                            const char *addr)
{
        /* The exception that let the name pass is not what refused its address. */
        const struct cordon_net_rule *rule = v->rule && !v->rule->exception ? v->rule : NULL;
        const char *reason = v->reason ?: "refused by the rules";
        char dest[CORDON_NET_NAME_MAX + 10], what[2 * CORDON_NET_PATTERN_MAX], by[700], fix[400];
        /* The path the request named, quoted (the sandbox wrote it), when a path decided. */
        char path[CORDON_NET_QUOTE_MAX + 16] = "";
        if (!addr && c->proto == PROXY_PROTO_HTTP && c->head && v->rule &&
            (v->unclear_path || v->rule->path)) {
                char q[CORDON_NET_QUOTE_MAX];
                cordon_net_quote(q, sizeof(q), c->head + c->path_off, c->path_len);
                snprintf(path, sizeof(path), " path \"%s\"", c->path_len ? q : "/");
        }
        bool v6 = c->target.is_addr && c->target.addr.family == AF_INET6;
        snprintf(dest, sizeof(dest), v6 ? "[%s]:%u" : "%s:%u", c->target.host,
                 (unsigned)c->target.port);
        note_refused(c->p, dest);
        /* The exception that would lift it: the name, or the address an address rule refused,
         * with the port when the rule has one (an exception without beats none with). */
        const char *lift = addr ?: c->target.host;
        /* A v4 rule that refused a v6 address judged the IPv4 address inside (NAT64, 6to4...):
         * that one needs the exception. */
        char inner_text[INET6_ADDRSTRLEN];
        struct cordon_net_addr a, inner;
        if (rule && rule->kind == CORDON_NET_RULE_CIDR && rule->addr.family == AF_INET &&
            cordon_net_addr_parse(lift, &a) == 0 && a.family == AF_INET6 &&
            cordon_net_addr_embedded(&a, &inner, NULL))
                lift = cordon_net_addr_format(&inner, inner_text, sizeof(inner_text));
        bool lift_v6 = strchr(lift, ':') != NULL;
        if (rule && rule->port)
                snprintf(what, sizeof(what), lift_v6 ? "[%s]:%u" : "%s:%u", lift,
                         (unsigned)rule->port);
        else
                snprintf(what, sizeof(what), "%s", lift);
        /* A path entry is lifted by an exception of the host and that path (an exception wins
         * the tie, and an exact host outranks a glob). */
        if (rule && rule->path && !addr)
                snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s", rule->path);
        if (v->unclear_path)
                snprintf(by, sizeof(by), "%s, and rule \"%s\" (%s) applies to this host", reason,
                         v->rule->pattern, v->rule->origin ?: "built-in");
        else if (!rule)
                snprintf(by, sizeof(by), "%s", reason);
        else if (rule->floor)
                snprintf(by, sizeof(by), "the built-in floor, rule \"%s\" (%s)", rule->pattern,
                         reason);
        else {
                /* The built-in and the admin's rules say what they are; a user's is named by
                 * its pattern and origin alone. */
                bool say = rule->admin || !rule->origin || streq(rule->origin, "built-in default");
                snprintf(by, sizeof(by), "rule \"%s\" (%s)%s%s", rule->pattern,
                         rule->origin ?: "built-in", say ? ": " : "", say ? reason : "");
        }
        if (v->unclear_path)
                snprintf(fix, sizeof(fix),
                         "no exception lifts it: send the path plainly (no \"//\", \".\" or "
                         "\"..\" segments, no encoded \"/\")");
        else if (!rule || rule->floor)
                snprintf(fix, sizeof(fix), "no setting lifts it");
        else if (rule->admin)
                snprintf(fix, sizeof(fix), "only the admin baseline can lift it");
        else
                snprintf(fix, sizeof(fix), "to allow it: NETWORK_BLOCKLIST_EXCEPT+=('%s')", what);
        char *m = NULL;
        if (asprintf(&m, "cordon refused %s%s%s%s%s %s %s; %s", dest, path,
                     addr ? " (address " : "", addr ?: "", addr ? ")" : "",
                     v->unclear_path ? "for" : "by", by, fix) < 0)
                return;
        printable(m);
        free(c->message);
        c->message = m;
}

static void refuse_rules(struct proxy_conn *c, const struct cordon_net_verdict *v)
{
        c->rule = v->rule;
        refusal_message(c, v, NULL);
        refuse(c, "deny", 403, CORDON_SOCKS_NOT_ALLOWED, v->reason ?: "refused by the rules");
}

/* A name that passed, refused at an address (c->address): the message names both. */
static void refuse_address(struct proxy_conn *c, const struct cordon_net_verdict *v)
{
        c->rule = v->rule;
        refusal_message(c, v, c->address);
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
                return cordon_proxy_conn_error(c, "out of memory or descriptors");
        free(c->head);
        c->head = NULL;
        c->head_len = c->head_cap = 0;
        c->verdict = "allow";
        c->reason = "allowed";
        c->state = PROXY_RELAY;
        c->last_activity = cordon_proxy_now(c->p);
        cordon_proxy_conn_set_deadline(c, c->p->cfg.idle_timeout_ms);
        /* Whatever is queued goes out as soon as the sockets take it. */
        int done = cordon_proxy_relay_event(c, &c->uw, EPOLLOUT);
        if (done >= 0)
                done = cordon_proxy_relay_event(c, &c->cw, EPOLLOUT);
        if (done < 0)
                return cordon_proxy_conn_error(c, "relay failed");
        if (done > 0)
                return cordon_proxy_conn_end(c);
        cordon_proxy_conn_update_interest(c);
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
                        cordon_proxy_conn_set_deadline(c, c->p->cfg.connect_timeout_ms);
                        cordon_proxy_conn_update_interest(c);
                        return;
                }
                c->dial_error = errno;
                cordon_proxy_watch_close(&c->uw);
        }
        dial_failed(c);
}

/* The loop says the dial finished, one way or the other. */
static void dial_event(struct proxy_conn *c)
{
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(c->uw.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                err = errno;
        if (err == 0)
                return dial_connected(c);
        c->dial_error = err;
        cordon_proxy_watch_close(&c->uw);
        dial_next(c);
}

/* Decides @addr by the rules, then refuses it when it is one of the host's own addresses (as
 * written or the IPv4 address a NAT64, 6to4 or Teredo form carries): a service the host binds
 * to 0.0.0.0 or :: answers there, and the proxy dials from the host. Like the floor, no
 * exception lifts it; a list that cannot be read refuses (fail closed). */
static void judge(struct proxy_conn *c, const struct cordon_net_addr *addr, bool by_name,
                  struct cordon_net_verdict *v)
{
        cordon_net_rules_check_addr(c->p->cfg.rules, addr, c->target.port, by_name, v);
        if (!v->allow)
                return;
        struct cordon_net_addr inner;
        int r = cordon_net_host_has(c->p->host, addr);
        if (r == 0 && cordon_net_addr_embedded(addr, &inner, NULL))
                r = cordon_net_host_has(c->p->host, &inner);
        if (r != 0)
                *v = (struct cordon_net_verdict){
                    .allow = false,
                    .reason = r > 0 ? "floor: the host's own address"
                                    : "the host's own addresses cannot be read"};
}

static void resolved(void *userdata, int error, const struct cordon_net_addr *addrs, size_t n)
{
        struct proxy_conn *c = userdata;
        struct cordon_net_verdict first_denial = {};
        struct cordon_net_addr first_addr = n ? addrs[0] : (struct cordon_net_addr){0};
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
                judge(c, &addrs[i], true, &v);
                if (v.allow) {
                        if (c->n_addrs == 0 && v.rule)
                                c->rule = v.rule; /* an address exception decided */
                        c->addrs[c->n_addrs++] = addrs[i];
                } else if (!first_denial.reason) {
                        first_denial = v;
                        first_addr = addrs[i];
                }
        }
        if (c->n_addrs == 0) {
                if (!first_denial.rule)
                        first_denial.rule = name_rule;
                cordon_net_addr_format(&first_addr, c->address, sizeof(c->address));
                return refuse_address(c, &first_denial);
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
                judge(c, &c->target.addr, false, &v);
                if (!v.allow)
                        return refuse_rules(c, &v);
                c->rule = v.rule;
                c->addrs[0] = c->target.addr;
                c->n_addrs = 1;
                return dial_next(c);
        }
        /* A plain HTTP request shows its path, which path entries decide; a tunnel does not. */
        if (c->proto == PROXY_PROTO_HTTP)
                cordon_net_rules_check_request(rules, c->target.host, c->target.port,
                                               c->head + c->path_off, c->path_len, &v);
        else
                cordon_net_rules_check_name(rules, c->target.host, c->target.port, &v);
        if (!v.allow)
                return refuse_rules(c, &v); /* no DNS query for a refused name */
        c->rule = v.rule;
        c->state = PROXY_RESOLVE;
        cordon_proxy_conn_set_deadline(c, c->p->cfg.dns_timeout_ms);
        if (cordon_proxy_resolve(c->p->resolver, c->target.host, resolved, c, &c->query) < 0)
                return cordon_proxy_conn_error(c, "out of memory");
        cordon_proxy_conn_update_interest(c);
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
                return cordon_proxy_conn_error(c, "out of memory");
        if (r < 0) {
                /* The target is logged when the parser got that far. */
                if (req.target.host[0]) {
                        c->target = req.target;
                        c->have_target = true;
                }
                return refuse(c, "deny", req.status, 0, req.reason);
        }
        c->target = req.target;
        c->path_off = req.path_off;
        c->path_len = req.path_len;
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
                return cordon_proxy_conn_error(c, "out of memory");
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
                        return cordon_proxy_conn_error(c, "out of memory");
                if (m == CORDON_SOCKS_METHOD_NONE) {
                        c->verdict = "deny";
                        c->reason = "SOCKS5 client does not offer no-authentication";
                        c->p->stats.refused++;
                        c->state = PROXY_REFUSE;
                        cordon_proxy_conn_set_deadline(c, CORDON_PROXY_DRAIN_TIMEOUT_MS);
                        return cordon_proxy_conn_update_interest(c);
                }
                memmove(c->head, c->head + used, c->head_len - used);
                c->head_len -= used;
                c->state = PROXY_SOCKS_REQ;
        }
        struct cordon_proxy_socks_request req;
        int r = cordon_proxy_socks_request((const uint8_t *)c->head, c->head_len, &req);
        if (r == -EAGAIN)
                return cordon_proxy_conn_update_interest(c);
        if (r < 0)
                return refuse(c, "deny", 400, req.reply, req.reason);
        c->target = req.target;
        c->up.limit = UINT64_MAX;
        if (queue_up(c, c->head + req.used, c->head_len - req.used) < 0)
                return cordon_proxy_conn_error(c, "out of memory");
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
                        return cordon_proxy_conn_error(c, "out of memory");
                c->head = n;
                c->head_cap = cap;
        }
        ssize_t n = recv(c->cw.fd, c->head + c->head_len, c->head_cap - c->head_len, 0);
        if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return;
                return cordon_proxy_conn_end(c); /* nothing was decided: no log line */
        }
        if (n == 0) {
                if (c->head_len > 0) {
                        c->proto = c->state == PROXY_SOCKS_GREET || c->state == PROXY_SOCKS_REQ
                                       ? PROXY_PROTO_SOCKS5
                                       : PROXY_PROTO_HTTP;
                        return cordon_proxy_conn_error(
                            c, "client closed before the request was complete");
                }
                return cordon_proxy_conn_end(c);
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

void cordon_proxy_conn_event(struct proxy_conn *c, struct cordon_proxy_watch *w, uint32_t events)
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
                                return cordon_proxy_conn_end(c);
                }
                if (w == &c->cw && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) &&
                    c->state <= PROXY_SOCKS_REQ)
                        return handshake_read(c);
                return cordon_proxy_conn_update_interest(c);
        case PROXY_RELAY:
                r = cordon_proxy_relay_event(c, w, events);
                if (r < 0)
                        return cordon_proxy_conn_end(c); /* a reset ends a tunnel; it was allowed */
                if (r > 0 && c->proto == PROXY_PROTO_HTTP) {
                        /* The response is out and the client's side shut: drain what the
                         * client may still send (a request on a connection it thought it
                         * could keep) so that closing does not reset the response away. */
                        cordon_proxy_watch_close(&c->uw);
                        c->state = PROXY_DRAIN;
                        cordon_proxy_conn_set_deadline(c, CORDON_PROXY_DRAIN_TIMEOUT_MS);
                        return cordon_proxy_conn_update_interest(c);
                }
                if (r > 0)
                        return cordon_proxy_conn_end(c);
                return cordon_proxy_conn_update_interest(c);
        case PROXY_REFUSE:
                r = cordon_proxy_dir_flush_pre(&c->down);
                if (r < 0)
                        return cordon_proxy_conn_end(c);
                if (r == 0)
                        return;
                /* Written: shut our side and drain the client's, so that a close with unread
                 * input does not reset the connection and destroy the refusal in flight. */
                (void)shutdown(c->cw.fd, SHUT_WR);
                c->state = PROXY_DRAIN;
                return cordon_proxy_conn_update_interest(c);
        case PROXY_DRAIN: {
                char buf[4096];
                ssize_t n = recv(c->cw.fd, buf, sizeof(buf), 0);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                        return cordon_proxy_conn_end(c);
                return;
        }
        }
}

void cordon_proxy_conn_timeout(struct proxy_conn *c)
{
        switch (c->state) {
        case PROXY_RELAY: {
                uint64_t idle_until =
                    c->last_activity + (uint64_t)c->p->cfg.idle_timeout_ms * 1000u;
                if (idle_until > cordon_proxy_now(c->p)) {
                        cordon_proxy_conn_set_deadline_at(c, idle_until);
                        return;
                }
                c->reason = "idle timeout";
                return cordon_proxy_conn_end(c);
        }
        case PROXY_RESOLVE:
                return refuse(c, "error", 504, CORDON_SOCKS_HOST_UNREACHABLE,
                              "name resolution timed out");
        case PROXY_DIAL:
                c->dial_error = ETIMEDOUT;
                cordon_proxy_watch_close(&c->uw);
                return dial_next(c);
        case PROXY_REFUSE:
        case PROXY_DRAIN:
                return cordon_proxy_conn_end(c);
        default:
                if (c->head_len > 0)
                        return cordon_proxy_conn_error(c, "request not complete in time");
                return cordon_proxy_conn_end(c);
        }
}
