/* Unit tests for src/lib/supervisor/dns-relay.c: which names resolve under which rules, and the
 * relay itself over UDP sockets on the loopback (a "sandbox" client, a fake upstream resolver):
 * refusals answered without asking upstream, answers relayed with the client's id, a blocked
 * address refused, the rate bound, the timeout. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/supervisor/dns-relay.h"
#include "lib/loop/loop.h"
#include "lib/net/dns-msg.h"

static struct cordon_net_rules *rules_with(const char *const *block, const char *const *except)
{
        struct cordon_net_rules *r = NULL;
        cr_assert_eq(cordon_net_rules_new(&r), 0);
        for (; block && *block; block++)
                cr_assert_eq(cordon_net_rules_add(r, *block, false, "test", NULL), 0);
        for (; except && *except; except++)
                cr_assert_eq(cordon_net_rules_add(r, *except, true, "test", NULL), 0);
        return r;
}

static bool allowed(const struct cordon_net_rules *r, const char *name)
{
        uint16_t ports[CORDON_DNS_PORTS_MAX];
        size_t n = cordon_dns_exception_ports(r, ports);
        struct cordon_net_verdict v;
        return cordon_dns_name_allowed(r, ports, n, name, &v);
}

Test(dns_relay, names_decided)
{
        const char *const star[] = {"*", NULL};
        const char *const except[] = {"ok.example", "*.corp.example", "web.example:443",
                                      "api.sendgrid.com", NULL};
        struct cordon_net_rules *r = rules_with(star, except);
        cr_expect(allowed(r, "ok.example"));
        cr_expect(allowed(r, "a.corp.example"));
        cr_expect_not(allowed(r, "corp.example"));
        cr_expect(allowed(r, "web.example"), "an exception with a port lets the name resolve");
        cr_expect_not(allowed(r, "other.example"));
        cr_expect_not(allowed(r, "api.sendgrid.com"), "a floor host never resolves");
        cordon_net_rules_free(r);

        /* `*` with `*:443` excepted: every name that may be reached on 443 resolves. */
        const char *const port443[] = {"*:443", NULL};
        r = rules_with(star, port443);
        cr_expect(allowed(r, "anything.example"));
        cr_expect_not(allowed(r, "api.sendgrid.com"));
        uint16_t ports[CORDON_DNS_PORTS_MAX];
        cr_expect_eq(cordon_dns_exception_ports(r, ports), 1);
        cr_expect_eq(ports[0], 443);
        cordon_net_rules_free(r);

        /* No rule: everything but the floor. */
        r = rules_with(NULL, NULL);
        cr_expect(allowed(r, "anything.example"));
        cr_expect_not(allowed(r, "api.sendgrid.com"));
        cr_expect_not(allowed(r, "localhost"));
        cordon_net_rules_free(r);

        const char *const one[] = {"bad.example", "*.evil.example", NULL};
        r = rules_with(one, NULL);
        cr_expect_not(allowed(r, "bad.example"));
        cr_expect_not(allowed(r, "x.evil.example"));
        cr_expect(allowed(r, "good.example"));
        cordon_net_rules_free(r);
}

/* The fixture: the relay's socket ("inside"), a client, a fake upstream. */
struct fixture {
        int inside, client, upstream;
        struct sockaddr_in inside_addr, upstream_addr;
        struct cordon_net_rules *rules;
        struct cordon_dns_relay *relay;
        struct cordon_loop *loop;
        int log[2];
};

static int udp_bound(struct sockaddr_in *ret)
{
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        cr_assert_geq(fd, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
        socklen_t l = sizeof(*ret);
        cr_assert_eq(getsockname(fd, (struct sockaddr *)ret, &l), 0);
        return fd;
}

static void setup(struct fixture *f, unsigned rate, unsigned burst, unsigned timeout_ms)
{
        const char *const star[] = {"*", NULL};
        const char *const except[] = {"ok.example", "rebind.example", NULL};
        f->rules = rules_with(star, except);
        f->inside = udp_bound(&f->inside_addr);
        f->upstream = udp_bound(&f->upstream_addr);
        struct sockaddr_in c;
        f->client = udp_bound(&c);
        cr_assert_eq(pipe2(f->log, O_CLOEXEC | O_NONBLOCK), 0);
        const struct cordon_dns_server server = {
            .addr = {.family = AF_INET, .v4 = f->upstream_addr.sin_addr},
            .port = ntohs(f->upstream_addr.sin_port)};
        const struct cordon_dns_relay_config cfg = {.rules = f->rules,
                                                    .servers = &server,
                                                    .n_servers = 1,
                                                    .log_fd = f->log[1],
                                                    .rate = rate,
                                                    .burst = burst,
                                                    .timeout_ms = timeout_ms};
        cr_assert_eq(cordon_loop_new(&f->loop), 0);
        cr_assert_eq(cordon_dns_relay_new(f->inside, &cfg, f->loop, &f->relay), 0);
}

static void teardown(struct fixture *f)
{
        cordon_dns_relay_free(f->relay);
        cordon_loop_free(f->loop);
        cordon_net_rules_free(f->rules);
        close(f->client);
        close(f->upstream);
        close(f->log[0]);
        close(f->log[1]);
}

static int quit(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        cordon_loop_quit(userdata, 0);
        return 0;
}

/* Runs the loop for @ms milliseconds. */
static void run_for(struct fixture *f, unsigned ms)
{
        struct cordon_loop_timer *t;
        cr_assert_eq(
            cordon_loop_add_timer(f->loop, cordon_now_usec() + ms * 1000u, quit, f->loop, &t), 0);
        cr_assert_eq(cordon_loop_run(f->loop), 0);
        cordon_loop_timer_free(t);
}

static size_t query(uint8_t *b, uint16_t id, const char *name)
{
        const struct cordon_dns_query q = {.rd = true, .qtype = 1, .qclass = 1};
        int n = cordon_dns_query_build(&q, name, id, b, 512);
        cr_assert_gt(n, 0);
        return (size_t)n;
}

static void ask(struct fixture *f, uint16_t id, const char *name)
{
        uint8_t b[512];
        size_t n = query(b, id, name);
        cr_assert_eq(
            sendto(f->client, b, n, 0, (struct sockaddr *)&f->inside_addr, sizeof(f->inside_addr)),
            (ssize_t)n);
}

static ssize_t take(int fd, uint8_t *b, size_t size, struct sockaddr_in *from)
{
        socklen_t l = sizeof(*from);
        return recvfrom(fd, b, size, MSG_DONTWAIT, (struct sockaddr *)from, &l);
}

/* Answers the query the upstream got with one A record. */
static void upstream_answers(struct fixture *f, const char *addr)
{
        uint8_t b[512];
        struct sockaddr_in from;
        ssize_t n = take(f->upstream, b, sizeof(b), &from);
        cr_assert_gt(n, 12, "the upstream got no query");
        b[2] |= 0x80;
        b[3] = 0x80;
        b[7] = 1; /* one answer */
        const uint8_t rr[] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4};
        memcpy(b + n, rr, sizeof(rr));
        inet_pton(AF_INET, addr, b + n + sizeof(rr));
        size_t len = (size_t)n + sizeof(rr) + 4;
        cr_assert_eq(sendto(f->upstream, b, len, 0, (struct sockaddr *)&from, sizeof(from)),
                     (ssize_t)len);
}

Test(dns_relay, refused_name_never_forwarded)
{
        struct fixture f = {0};
        setup(&f, 0, 0, 0);
        ask(&f, 0x1111, "blocked.example");
        run_for(&f, 50);
        uint8_t b[4096];
        struct sockaddr_in from;
        ssize_t n = take(f.client, b, sizeof(b), &from);
        cr_assert_gt(n, 12);
        cr_expect_eq(b[0] << 8 | b[1], 0x1111);
        cr_expect_eq(cordon_dns_rcode(b), CORDON_DNS_REFUSED);
        cr_expect_lt(take(f.upstream, b, sizeof(b), &from), 0, "nothing reached the upstream");
        char line[1024] = "";
        cr_assert_gt(read(f.log[0], line, sizeof(line) - 1), 0);
        cr_expect(strstr(line, "\"protocol\":\"dns\",\"host\":\"blocked.example\""), "%s", line);
        cr_expect(strstr(line, "\"rule\":\"*\""), "%s", line);
        struct cordon_dns_relay_stats st;
        cordon_dns_relay_get_stats(f.relay, &st);
        cr_expect_eq(st.refused, 1);
        cr_expect_eq(st.forwarded, 0);
        teardown(&f);
}

Test(dns_relay, allowed_name_relayed)
{
        struct fixture f = {0};
        setup(&f, 0, 0, 0);
        ask(&f, 0x2222, "OK.example");
        run_for(&f, 50);
        upstream_answers(&f, "198.51.100.7");
        run_for(&f, 50);
        uint8_t b[4096];
        struct sockaddr_in from;
        ssize_t n = take(f.client, b, sizeof(b), &from);
        cr_assert_gt(n, 12);
        cr_expect_eq(b[0] << 8 | b[1], 0x2222, "the client's id");
        cr_expect_eq(cordon_dns_rcode(b), CORDON_DNS_NOERROR);
        cr_expect_eq(memcmp(b + 12, "\2OK\7example", 11), 0, "the client's spelling");
        cr_expect_eq(memcmp(b + n - 4, "\xc6\x33\x64\x07", 4), 0);
        teardown(&f);
}

Test(dns_relay, blocked_answer_refused)
{
        struct fixture f = {0};
        setup(&f, 0, 0, 0);
        ask(&f, 0x3333, "rebind.example");
        run_for(&f, 50);
        upstream_answers(&f, "10.1.2.3");
        run_for(&f, 50);
        uint8_t b[4096];
        struct sockaddr_in from;
        cr_assert_gt(take(f.client, b, sizeof(b), &from), 12);
        cr_expect_eq(b[0] << 8 | b[1], 0x3333);
        cr_expect_eq(cordon_dns_rcode(b), CORDON_DNS_REFUSED);
        char line[1024] = "";
        cr_assert_gt(read(f.log[0], line, sizeof(line) - 1), 0);
        cr_expect(strstr(line, "\"address\":\"10.1.2.3\""), "%s", line);
        teardown(&f);
}

Test(dns_relay, rate_bounded)
{
        struct fixture f = {0};
        setup(&f, 1, 3, 0);
        for (int i = 0; i < 10; i++)
                ask(&f, (uint16_t)i, "blocked.example");
        run_for(&f, 50);
        uint8_t b[4096];
        struct sockaddr_in from;
        int answers = 0;
        while (take(f.client, b, sizeof(b), &from) > 0)
                answers++;
        cr_expect_eq(answers, 3, "the burst, then nothing");
        struct cordon_dns_relay_stats st;
        cordon_dns_relay_get_stats(f.relay, &st);
        cr_expect_eq(st.queries, 10);
        cr_expect_eq(st.dropped, 7);
        teardown(&f);
}

Test(dns_relay, timeout_servfail)
{
        struct fixture f = {0};
        setup(&f, 0, 0, 40);
        ask(&f, 0x4444, "ok.example");
        run_for(&f, 150);
        uint8_t b[4096];
        struct sockaddr_in from;
        cr_assert_gt(take(f.client, b, sizeof(b), &from), 12);
        cr_expect_eq(b[0] << 8 | b[1], 0x4444);
        cr_expect_eq(cordon_dns_rcode(b), CORDON_DNS_SERVFAIL);
        /* A late answer finds nothing to answer. */
        upstream_answers(&f, "198.51.100.7");
        run_for(&f, 30);
        cr_expect_lt(take(f.client, b, sizeof(b), &from), 0);
        teardown(&f);
}

Test(dns_relay, malformed_formerr)
{
        struct fixture f = {0};
        setup(&f, 0, 0, 0);
        uint8_t b[512];
        size_t n = query(b, 0x5555, "ok.example");
        b[5] = 2; /* two questions */
        cr_assert_eq(
            sendto(f.client, b, n, 0, (struct sockaddr *)&f.inside_addr, sizeof(f.inside_addr)),
            (ssize_t)n);
        run_for(&f, 50);
        struct sockaddr_in from;
        cr_assert_eq(take(f.client, b, sizeof(b), &from), 12);
        cr_expect_eq(cordon_dns_rcode(b), CORDON_DNS_FORMERR);
        teardown(&f);
}
