/* The filtered mode's resolver on the sandbox's event loop (see dns-relay.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#include "lib/supervisor/dns-relay.h"
#include "lib/loop/loop.h"
#include "lib/net/dns-msg.h"
#include "lib/proxy/proxy-log.h"
#include "shared/macro.h"

/* Datagrams read in one dispatch from each socket before the others get their turn. */
#define READS_PER_DISPATCH 16

struct pending {
        bool used;
        uint16_t up_id;  /* the id sent upstream */
        unsigned server; /* the index it went to */
        uint64_t deadline;
        struct sockaddr_storage client;
        socklen_t client_len;
        uint16_t client_id;
        /* The question as sent upstream (what the answer must carry) and as the sandbox sent
         * it (what the answer it gets carries: the same bytes but for the letters' case). */
        uint8_t question[CORDON_NET_NAME_MAX + 2 + 4];
        uint8_t client_question[CORDON_NET_NAME_MAX + 2 + 4];
        size_t question_len;
        char name[CORDON_NET_NAME_MAX + 1];
};

struct cordon_dns_relay {
        struct cordon_dns_relay_config cfg;
        struct cordon_dns_server servers[CORDON_DNS_SERVERS_MAX];
        int sock;
        int up[CORDON_DNS_SERVERS_MAX];
        unsigned next_server;
        uint16_t ports[CORDON_DNS_PORTS_MAX];
        size_t n_ports;
        /* The token bucket, in millionths of a query. */
        uint64_t tokens, refilled;
        struct pending pending[CORDON_DNS_IN_FLIGHT];
        struct cordon_loop_io *sock_io, *up_io[CORDON_DNS_SERVERS_MAX];
        struct cordon_loop_timer *timer; /* the first pending query's timeout */
        struct cordon_dns_relay_stats stats;
};

size_t cordon_dns_exception_ports(const struct cordon_net_rules *rules,
                                  uint16_t ret[CORDON_DNS_PORTS_MAX])
{
        size_t n = 0;
        for (size_t i = 0; rules && i < cordon_net_rules_count(rules); i++) {
                const struct cordon_net_rule *r = cordon_net_rules_get(rules, i);
                if (!r->exception || r->floor || !r->port || r->kind == CORDON_NET_RULE_CIDR)
                        continue;
                bool seen = false;
                for (size_t j = 0; j < n && !seen; j++)
                        seen = ret[j] == r->port;
                if (!seen && n < CORDON_DNS_PORTS_MAX)
                        ret[n++] = r->port;
        }
        return n;
}

bool cordon_dns_name_allowed(const struct cordon_net_rules *rules, const uint16_t *ports,
                             size_t n_ports, const char *name, struct cordon_net_verdict *ret)
{
        cordon_net_rules_check_name(rules, name, 0, ret);
        if (ret->allow || (ret->rule && ret->rule->floor))
                return ret->allow;
        for (size_t i = 0; i < n_ports; i++) {
                struct cordon_net_verdict v;
                cordon_net_rules_check_name(rules, name, ports[i], &v);
                if (v.allow) {
                        *ret = v;
                        return true;
                }
        }
        return false;
}

static uint64_t realtime_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void format_client(const struct sockaddr_storage *ss, char *buf, size_t size)
{
        char a[INET6_ADDRSTRLEN] = "?";
        unsigned port = 0;
        if (ss->ss_family == AF_INET) {
                const struct sockaddr_in *s = (const struct sockaddr_in *)(const void *)ss;
                inet_ntop(AF_INET, &s->sin_addr, a, sizeof(a));
                port = ntohs(s->sin_port);
                snprintf(buf, size, "%s:%u", a, port);
        } else {
                const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)(const void *)ss;
                inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof(a));
                port = ntohs(s->sin6_port);
                snprintf(buf, size, "[%s]:%u", a, port);
        }
}

/* Remembers @name among the first names the rules refused. */
static void note_refused(struct cordon_dns_relay *d, const char *name)
{
        for (size_t i = 0; name && *name && i < CORDON_DNS_REFUSED_FIRST; i++) {
                char *slot = d->stats.refused_first[i];
                if (streq(slot, name))
                        return;
                if (!*slot) {
                        snprintf(slot, sizeof(d->stats.refused_first[i]), "%s", name);
                        return;
                }
        }
}

/* A line in NETWORK_LOG for a refusal; a log that fails is not the sandbox's failure. */
static void log_refusal(struct cordon_dns_relay *d, const struct sockaddr_storage *client,
                        const char *name, const struct cordon_net_addr *addr,
                        const struct cordon_net_verdict *v, const char *reason)
{
        d->stats.refused++;
        /* The rules' refusals are named at the end; malformed queries are only counted. */
        if (!reason)
                note_refused(d, name);
        if (d->cfg.log_fd < 0)
                return;
        char who[INET6_ADDRSTRLEN + 16], abuf[INET6_ADDRSTRLEN];
        format_client(client, who, sizeof(who));
        const struct cordon_proxy_log_entry e = {
            .realtime_usec = realtime_usec(),
            .client = who,
            .protocol = "dns",
            .host = name && *name ? name : NULL,
            .address = addr ? cordon_net_addr_format(addr, abuf, sizeof(abuf)) : NULL,
            .rule = v && v->rule ? v->rule->pattern : NULL,
            .origin = v && v->rule ? v->rule->origin : NULL,
            .verdict = "deny",
            .reason = reason           ? reason
                      : v && v->reason ? v->reason
                                       : "refused",
        };
        (void)cordon_proxy_log_write(d->cfg.log_fd, &e);
}

static void answer(struct cordon_dns_relay *d, const uint8_t *buf, size_t len,
                   const struct sockaddr_storage *client, socklen_t client_len)
{
        (void)sendto(d->sock, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL,
                     (const struct sockaddr *)client, client_len);
}

static void answer_error(struct cordon_dns_relay *d, const uint8_t *query, size_t len,
                         const struct cordon_dns_query *q, enum cordon_dns_rcode rcode,
                         const struct sockaddr_storage *client, socklen_t client_len)
{
        uint8_t out[CORDON_DNS_QUERY_MAX];
        size_t n = cordon_dns_reply(query, len, q, rcode, out, sizeof(out));
        if (n)
                answer(d, out, n, client, client_len);
}

/* Whether the bucket has a query's token left (and takes it). */
static bool take_token(struct cordon_dns_relay *d)
{
        uint64_t now = cordon_now_usec();
        uint64_t rate = d->cfg.rate, cap = (uint64_t)d->cfg.burst * 1000000;
        d->tokens += (now - d->refilled) * rate;
        if (d->tokens > cap)
                d->tokens = cap;
        d->refilled = now;
        if (d->tokens < 1000000)
                return false;
        d->tokens -= 1000000;
        return true;
}

static struct pending *find_free(struct cordon_dns_relay *d)
{
        for (size_t i = 0; i < CORDON_DNS_IN_FLIGHT; i++)
                if (!d->pending[i].used)
                        return &d->pending[i];
        return NULL;
}

static bool id_in_use(const struct cordon_dns_relay *d, uint16_t id)
{
        for (size_t i = 0; i < CORDON_DNS_IN_FLIGHT; i++)
                if (d->pending[i].used && d->pending[i].up_id == id)
                        return true;
        return false;
}

/* An id nobody outside can guess, so that a forged answer has to race 16 random bits and the
 * socket's random port. */
static uint16_t new_id(const struct cordon_dns_relay *d)
{
        uint16_t id;
        do {
                if (getrandom(&id, sizeof(id), 0) != sizeof(id))
                        id = (uint16_t)(cordon_now_usec() * 2654435761u >> 7);
        } while (id_in_use(d, id));
        return id;
}

static void handle_query(struct cordon_dns_relay *d, const uint8_t *buf, size_t len,
                         const struct sockaddr_storage *client, socklen_t client_len)
{
        struct cordon_dns_query q;
        int r = cordon_dns_query_parse(buf, len, &q);
        if (r == -EPROTO) {
                d->stats.dropped++;
                return;
        }
        if (r < 0)
                return answer_error(d, buf, len, &q, CORDON_DNS_FORMERR, client, client_len);
        char name[CORDON_NET_NAME_MAX + 1];
        if (q.qclass != CORDON_DNS_CLASS_IN || cordon_dns_qtype_is_meta(q.qtype)) {
                log_refusal(d, client, q.name, NULL, NULL,
                            q.qclass != CORDON_DNS_CLASS_IN ? "not class IN" : "a meta query type");
                return answer_error(d, buf, len, &q, CORDON_DNS_REFUSED, client, client_len);
        }
        if (cordon_net_name_normalize(q.name, strlen(q.name), name) < 0) {
                log_refusal(d, client, q.name, NULL, NULL, "not a host name");
                return answer_error(d, buf, len, &q, CORDON_DNS_REFUSED, client, client_len);
        }
        struct cordon_net_verdict v;
        if (!cordon_dns_name_allowed(d->cfg.rules, d->ports, d->n_ports, name, &v)) {
                log_refusal(d, client, name, NULL, &v, NULL);
                return answer_error(d, buf, len, &q, CORDON_DNS_REFUSED, client, client_len);
        }
        struct pending *p = d->cfg.n_servers ? find_free(d) : NULL;
        if (!p) {
                d->stats.dropped++;
                return answer_error(d, buf, len, &q, CORDON_DNS_SERVFAIL, client, client_len);
        }
        uint8_t out[CORDON_DNS_QUERY_MAX];
        uint16_t id = new_id(d);
        r = cordon_dns_query_build(&q, name, id, out, sizeof(out));
        if (r < 0 || (size_t)r - CORDON_DNS_HEADER - (q.edns ? 11 : 0) != q.question_len)
                return answer_error(d, buf, len, &q, CORDON_DNS_SERVFAIL, client, client_len);
        unsigned server = d->next_server % d->cfg.n_servers;
        if (send(d->up[server], out, (size_t)r, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
                d->next_server++;
                return answer_error(d, buf, len, &q, CORDON_DNS_SERVFAIL, client, client_len);
        }
        *p = (struct pending){
            .used = true,
            .up_id = id,
            .server = server,
            .deadline = cordon_now_usec() + (uint64_t)d->cfg.timeout_ms * 1000,
            .client = *client,
            .client_len = client_len,
            .client_id = q.id,
            .question_len = q.question_len,
        };
        memcpy(p->question, out + CORDON_DNS_HEADER, q.question_len);
        memcpy(p->client_question, buf + CORDON_DNS_HEADER, q.question_len);
        snprintf(p->name, sizeof(p->name), "%s", name);
        d->stats.forwarded++;
}

struct check {
        const struct cordon_net_rules *rules;
        struct cordon_net_verdict denial;
        struct cordon_net_addr addr;
};

/* An answer's address: judged as the proxy judges the addresses of a name it resolved. */
static int check_addr(void *userdata, const struct cordon_net_addr *addr)
{
        struct check *c = userdata;
        cordon_net_rules_check_addr(c->rules, addr, 0, true, &c->denial);
        if (c->denial.allow)
                return 0;
        c->addr = *addr;
        return -EPERM;
}

static void handle_answer(struct cordon_dns_relay *d, unsigned server, uint8_t *buf, size_t len)
{
        if (len < CORDON_DNS_HEADER)
                return;
        uint16_t id = (uint16_t)(buf[0] << 8 | buf[1]);
        struct pending *p = NULL;
        for (size_t i = 0; i < CORDON_DNS_IN_FLIGHT && !p; i++)
                if (d->pending[i].used && d->pending[i].up_id == id &&
                    d->pending[i].server == server)
                        p = &d->pending[i];
        if (!p)
                return;
        struct check c = {.rules = d->cfg.rules};
        int r = cordon_dns_answer_walk(buf, len, id, p->question, p->question_len, check_addr, &c);
        if (r == -EBADMSG)
                return; /* not the answer (or a broken one): the real one may still come */
        if (r < 0) {
                log_refusal(d, &p->client, p->name, &c.addr, &c.denial, NULL);
                /* The query as the sandbox sent it, to answer with its question. */
                uint8_t q[CORDON_DNS_HEADER + sizeof(p->client_question)] = {0};
                q[0] = (uint8_t)(p->client_id >> 8);
                q[1] = (uint8_t)p->client_id;
                q[2] = buf[2] & 0x01; /* RD */
                q[5] = 1;
                memcpy(q + CORDON_DNS_HEADER, p->client_question, p->question_len);
                const struct cordon_dns_query qq = {.question_len = p->question_len};
                answer_error(d, q, CORDON_DNS_HEADER + p->question_len, &qq, CORDON_DNS_REFUSED,
                             &p->client, p->client_len);
        } else {
                buf[0] = (uint8_t)(p->client_id >> 8);
                buf[1] = (uint8_t)p->client_id;
                memcpy(buf + CORDON_DNS_HEADER, p->client_question, p->question_len);
                answer(d, buf, len, &p->client, p->client_len);
        }
        p->used = false;
}

static void expire(struct cordon_dns_relay *d)
{
        uint64_t now = cordon_now_usec();
        for (size_t i = 0; i < CORDON_DNS_IN_FLIGHT; i++) {
                struct pending *p = &d->pending[i];
                if (!p->used || p->deadline > now)
                        continue;
                /* That server did not answer: the next query tries the next one. */
                if (p->server == d->next_server % d->cfg.n_servers)
                        d->next_server++;
                uint8_t q[CORDON_DNS_HEADER + sizeof(p->client_question)] = {0};
                q[0] = (uint8_t)(p->client_id >> 8);
                q[1] = (uint8_t)p->client_id;
                q[2] = 0x01;
                q[5] = 1;
                memcpy(q + CORDON_DNS_HEADER, p->client_question, p->question_len);
                const struct cordon_dns_query qq = {.question_len = p->question_len};
                answer_error(d, q, CORDON_DNS_HEADER + p->question_len, &qq, CORDON_DNS_SERVFAIL,
                             &p->client, p->client_len);
                p->used = false;
        }
}

/* Expires what is due and arms the timer for the next pending query's timeout. */
static void expire_and_arm(struct cordon_dns_relay *d)
{
        expire(d);
        uint64_t next = CORDON_LOOP_NEVER;
        for (size_t i = 0; i < CORDON_DNS_IN_FLIGHT; i++)
                if (d->pending[i].used && d->pending[i].deadline < next)
                        next = d->pending[i].deadline;
        cordon_loop_timer_set(d->timer, next);
}

static void read_queries(struct cordon_dns_relay *d)
{
        for (unsigned k = 0; k < READS_PER_DISPATCH; k++) {
                /* One byte more than a query may have: a longer datagram shows as cut. */
                uint8_t buf[CORDON_DNS_QUERY_MAX + 1];
                struct sockaddr_storage client;
                socklen_t client_len = sizeof(client);
                ssize_t n = recvfrom(d->sock, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
                                     (struct sockaddr *)&client, &client_len);
                if (n < 0)
                        return; /* EAGAIN, or an error the next poll shows again */
                d->stats.queries++;
                if (!take_token(d)) {
                        d->stats.dropped++;
                        continue;
                }
                handle_query(d, buf, (size_t)n > sizeof(buf) ? sizeof(buf) : (size_t)n, &client,
                             client_len);
        }
}

static void read_answers(struct cordon_dns_relay *d, unsigned server)
{
        for (unsigned k = 0; k < READS_PER_DISPATCH; k++) {
                uint8_t buf[CORDON_DNS_ANSWER_MAX];
                ssize_t n = recv(d->up[server], buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
                if (n < 0)
                        return;
                if ((size_t)n > sizeof(buf))
                        continue; /* cut: its records cannot all be checked */
                handle_answer(d, server, buf, (size_t)n);
        }
}

/* The resolver's troubles never end the sandbox: its callbacks always return 0. */
static int on_query(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)fd;
        (void)revents;
        struct cordon_dns_relay *d = userdata;
        read_queries(d);
        expire_and_arm(d);
        return 0;
}

static int on_answer(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)fd;
        (void)revents;
        struct cordon_dns_relay *d = userdata;
        for (unsigned i = 0; i < d->cfg.n_servers; i++)
                if (d->up_io[i] == io)
                        read_answers(d, i);
        expire_and_arm(d);
        return 0;
}

static int on_timeout(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        expire_and_arm(userdata);
        return 0;
}

int cordon_dns_relay_new(int sock, const struct cordon_dns_relay_config *cfg,
                         struct cordon_loop *loop, struct cordon_dns_relay **ret)
{
        _cleanup_close_ int s = sock;
        if (!cfg || !cfg->rules || !loop || sock < 0 || cfg->n_servers > CORDON_DNS_SERVERS_MAX)
                return -EINVAL;
        struct cordon_dns_relay *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->cfg = *cfg;
        d->cfg.servers = d->servers;
        if (!d->cfg.rate)
                d->cfg.rate = CORDON_DNS_RATE;
        if (!d->cfg.burst)
                d->cfg.burst = CORDON_DNS_BURST;
        if (!d->cfg.timeout_ms)
                d->cfg.timeout_ms = CORDON_DNS_TIMEOUT_MS;
        d->sock = -EBADF;
        for (size_t i = 0; i < CORDON_DNS_SERVERS_MAX; i++)
                d->up[i] = -EBADF;
        for (size_t i = 0; i < cfg->n_servers; i++) {
                const struct cordon_dns_server *sv = &cfg->servers[i];
                d->servers[i] = *sv;
                struct sockaddr_storage ss = {0};
                socklen_t sl;
                if (sv->addr.family == AF_INET) {
                        struct sockaddr_in *a = (struct sockaddr_in *)(void *)&ss;
                        *a = (struct sockaddr_in){.sin_family = AF_INET,
                                                  .sin_port = htons(sv->port),
                                                  .sin_addr = sv->addr.v4};
                        sl = sizeof(*a);
                } else {
                        struct sockaddr_in6 *a = (struct sockaddr_in6 *)(void *)&ss;
                        *a = (struct sockaddr_in6){.sin6_family = AF_INET6,
                                                   .sin6_port = htons(sv->port),
                                                   .sin6_addr = sv->addr.v6};
                        sl = sizeof(*a);
                }
                /* Connected: the kernel drops datagrams from any other address and port. */
                d->up[i] = socket(sv->addr.family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
                if (d->up[i] < 0 || connect(d->up[i], (struct sockaddr *)&ss, sl) < 0) {
                        int r = -errno;
                        cordon_dns_relay_free(d);
                        return r;
                }
        }
        d->n_ports = cordon_dns_exception_ports(cfg->rules, d->ports);
        d->tokens = (uint64_t)d->cfg.burst * 1000000;
        d->refilled = cordon_now_usec();
        d->sock = TAKE_FD(s);
        int r = cordon_loop_add_io(loop, d->sock, EPOLLIN, on_query, d, &d->sock_io);
        for (size_t i = 0; r >= 0 && i < cfg->n_servers; i++)
                r = cordon_loop_add_io(loop, d->up[i], EPOLLIN, on_answer, d, &d->up_io[i]);
        if (r >= 0)
                r = cordon_loop_add_timer(loop, CORDON_LOOP_NEVER, on_timeout, d, &d->timer);
        if (r < 0) {
                cordon_dns_relay_free(d);
                return r;
        }
        *ret = d;
        return 0;
}

void cordon_dns_relay_get_stats(const struct cordon_dns_relay *d,
                                struct cordon_dns_relay_stats *ret)
{
        *ret = d ? d->stats : (struct cordon_dns_relay_stats){0};
}

struct cordon_dns_relay *cordon_dns_relay_free(struct cordon_dns_relay *d)
{
        if (!d)
                return NULL;
        /* The sources first: a descriptor closed while still in the epoll set could come back
         * under its number. */
        cordon_loop_io_free(d->sock_io);
        cordon_loop_timer_free(d->timer);
        safe_close(d->sock);
        for (size_t i = 0; i < CORDON_DNS_SERVERS_MAX; i++) {
                cordon_loop_io_free(d->up_io[i]);
                safe_close(d->up[i]);
        }
        free(d);
        return NULL;
}

void cordon_dns_relay_set_rules(struct cordon_dns_relay *d, const struct cordon_net_rules *rules)
{
        d->cfg.rules = rules;
        d->n_ports = cordon_dns_exception_ports(rules, d->ports);
}
