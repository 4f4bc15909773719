/* Engine tests for src/lib/proxy/proxy.c: the proxy runs in a thread of the test on loopback,
 * with a DNS server, an echo server and an HTTP origin of the test's own. The floor refuses
 * loopback, so the targets are addresses in 198.18.0.0/15 (the test DNS server answers those)
 * and the test-only connect hook redirects each allowed dial to the local server, recording
 * what the proxy wanted to dial. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/loop/loop.h"
#include "lib/net/net-host.h"
#include "lib/net/net-rules.h"
#include "lib/proxy/proxy.h"

#define ALLOWED_ADDR "198.18.5.5"

/* ---- servers of the test ---- */

static int listen_loopback(int type, uint16_t *ret_port)
{
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(sa);
        int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
        cr_assert_geq(fd, 0);
        cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        if (type == SOCK_STREAM)
                cr_assert_eq(listen(fd, 64), 0);
        cr_assert_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
        *ret_port = ntohs(sa.sin_port);
        return fd;
}

static atomic_int dns_queries_blocked; /* queries for names under blocked.test */
static atomic_int dns_queries;

/* A DNS server that answers A queries: rebind.test → 127.0.0.1, private.test → 10.0.0.1,
 * mixed.test → 127.0.0.1 and 198.18.5.5, slow.test → no answer, nx.test → NXDOMAIN, anything
 * else → 198.18.5.5. AAAA: no data. */
static void *dns_thread(void *arg)
{
        int fd = *(int *)arg;
        uint8_t q[512], a[600];
        for (;;) {
                struct sockaddr_storage from;
                socklen_t flen = sizeof(from);
                ssize_t n = recvfrom(fd, q, sizeof(q), 0, (struct sockaddr *)&from, &flen);
                if (n < 12)
                        return NULL; /* shut down */
                atomic_fetch_add(&dns_queries, 1);
                char name[256] = "";
                size_t off = 12, nl = 0;
                while (off < (size_t)n && q[off] && nl < 200) {
                        size_t l = q[off++];
                        if (nl)
                                name[nl++] = '.';
                        memcpy(name + nl, q + off, l);
                        nl += l;
                        off += l;
                }
                name[nl] = 0;
                off++;
                uint16_t qtype = (uint16_t)(q[off] << 8 | q[off + 1]);
                size_t qend = off + 4;
                if (strstr(name, "blocked.test"))
                        atomic_fetch_add(&dns_queries_blocked, 1);
                if (strcmp(name, "slow.test") == 0)
                        continue;
                memcpy(a, q, qend);
                a[2] = 0x81;
                a[3] = strcmp(name, "nx.test") == 0 ? 0x83 : 0x80;
                a[6] = a[7] = 0;
                a[8] = a[9] = a[10] = a[11] = 0;
                size_t len = qend;
                const char *addrs[2] = {ALLOWED_ADDR, NULL};
                if (strcmp(name, "rebind.test") == 0)
                        addrs[0] = "127.0.0.1";
                else if (strcmp(name, "private.test") == 0)
                        addrs[0] = "10.0.0.1";
                else if (strcmp(name, "mixed.test") == 0) {
                        addrs[0] = "127.0.0.1";
                        addrs[1] = ALLOWED_ADDR;
                }
                if (qtype == 1 && a[3] == 0x80) {
                        for (size_t i = 0; i < 2 && addrs[i]; i++) {
                                uint8_t rr[16] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4};
                                inet_pton(AF_INET, addrs[i], rr + 12);
                                memcpy(a + len, rr, 16);
                                len += 16;
                                a[7]++;
                        }
                }
                sendto(fd, a, len, 0, (struct sockaddr *)&from, flen);
        }
}

/* Echo server: one thread per connection, echoes until EOF, then closes. */
static void *echo_conn(void *arg)
{
        int fd = (int)(intptr_t)arg;
        char buf[4096];
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                if (write(fd, buf, (size_t)n) != n)
                        break;
        close(fd);
        return NULL;
}

static void *accept_thread(void *arg)
{
        int fd = *(int *)arg;
        for (;;) {
                int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        return NULL;
                pthread_t t;
                pthread_create(&t, NULL, echo_conn, (void *)(intptr_t)c);
                pthread_detach(t);
        }
}

/* HTTP origin: reads one request head (and the body of Content-Length 5, if any), keeps it
 * in last_request, answers "hello" and closes. */
static char last_request[4096];
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;

static void *http_conn(void *arg)
{
        int fd = (int)(intptr_t)arg;
        char buf[4096];
        size_t len = 0;
        ssize_t n;
        while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
                len += (size_t)n;
                buf[len] = 0;
                char *end = strstr(buf, "\r\n\r\n");
                if (end &&
                    (!strstr(buf, "Content-Length: 5") || (size_t)(end + 4 - buf) + 5 <= len))
                        break;
        }
        buf[len] = 0;
        pthread_mutex_lock(&last_lock);
        memcpy(last_request, buf, len + 1);
        pthread_mutex_unlock(&last_lock);
        const char *resp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
        (void)!write(fd, resp, strlen(resp));
        close(fd);
        return NULL;
}

static void *http_accept_thread(void *arg)
{
        int fd = *(int *)arg;
        for (;;) {
                int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        return NULL;
                pthread_t t;
                pthread_create(&t, NULL, http_conn, (void *)(intptr_t)c);
                pthread_detach(t);
        }
}

/* ---- the proxy in a thread ---- */

static int dns_fd = -1, echo_fd = -1, http_fd = -1, closed_port_fd = -1;
static uint16_t dns_port, echo_port, http_port, closed_port;
static pthread_t dns_t, echo_t, http_t;

static struct cordon_net_rules *rules;
static struct cordon_loop *loop;
static struct cordon_proxy *proxy;
static int stop_fd = -1;
static pthread_t proxy_t;
static uint16_t proxy_port;
static int log_pipe[2] = {-1, -1};
static atomic_int dials;
static char dialled[64];
static uint16_t redirect_port; /* 0: the echo server */

static int hook(void *ud, const struct cordon_net_addr *addr, uint16_t port,
                struct sockaddr_storage *sa, socklen_t *salen)
{
        struct sockaddr_in *s4 = (struct sockaddr_in *)sa;
        char a[INET6_ADDRSTRLEN];
        snprintf(dialled, sizeof(dialled), "%s:%u", cordon_net_addr_format(addr, a, sizeof(a)),
                 port);
        atomic_fetch_add(&dials, 1);
        *s4 = (struct sockaddr_in){.sin_family = AF_INET,
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                                   .sin_port = htons(port == 80      ? http_port
                                                     : redirect_port ? redirect_port
                                                                     : echo_port)};
        *salen = sizeof(*s4);
        return 0;
}

/* The proxy's loop, driven as an embedding caller would: its fd polled beside our own. */
static void *proxy_thread(void *arg)
{
        (void)arg;
        for (;;) {
                struct pollfd fds[2] = {{.fd = cordon_loop_get_fd(loop), .events = POLLIN},
                                        {.fd = stop_fd, .events = POLLIN}};
                uint64_t d = cordon_loop_get_timeout(loop);
                int timeout = d == CORDON_LOOP_NEVER ? -1 : (int)((d + 999) / 1000);
                poll(fds, 2, timeout);
                if (fds[1].revents)
                        return NULL;
                if (cordon_loop_process(loop, 0) < 0)
                        return NULL;
        }
}

static void start_servers(void)
{
        signal(SIGPIPE, SIG_IGN);
        dns_fd = listen_loopback(SOCK_DGRAM, &dns_port);
        echo_fd = listen_loopback(SOCK_STREAM, &echo_port);
        http_fd = listen_loopback(SOCK_STREAM, &http_port);
        /* a port nobody listens on: bound, not listening */
        closed_port_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(sa);
        cr_assert_eq(bind(closed_port_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        getsockname(closed_port_fd, (struct sockaddr *)&sa, &len);
        closed_port = ntohs(sa.sin_port);
        pthread_create(&dns_t, NULL, dns_thread, &dns_fd);
        pthread_create(&echo_t, NULL, accept_thread, &echo_fd);
        pthread_create(&http_t, NULL, http_accept_thread, &http_fd);
}

static void start_proxy(struct cordon_proxy_config *cfg, const char *const *blocks,
                        const char *const *allows)
{
        struct cordon_diag diag = {};
        char dns[32];
        start_servers();
        cr_assert_eq(cordon_net_rules_new(&rules), 0);
        for (size_t i = 0; blocks && blocks[i]; i++)
                cr_assert_eq(cordon_net_rules_add(rules, blocks[i], false, "test", &diag), 0, "%s",
                             diag.message);
        for (size_t i = 0; allows && allows[i]; i++)
                cr_assert_eq(cordon_net_rules_add(rules, allows[i], true, "test", &diag), 0, "%s",
                             diag.message);
        snprintf(dns, sizeof(dns), "127.0.0.1:%u", dns_port);
        cr_assert_eq(pipe2(log_pipe, O_CLOEXEC | O_NONBLOCK), 0);
        cfg->rules = rules;
        cfg->dns_server = dns;
        cfg->log_fd = log_pipe[1];
        cfg->connect_hook = hook;
        cr_assert_eq(cordon_loop_new(&loop), 0);
        cr_assert_eq(cordon_proxy_new(cfg, loop, &proxy, &diag), 0, "%s", diag.message);
        uint16_t port;
        int lfd = listen_loopback(SOCK_STREAM, &port);
        proxy_port = port;
        cr_assert_eq(cordon_proxy_add_listener(proxy, lfd), 0);
        stop_fd = eventfd(0, EFD_CLOEXEC);
        pthread_create(&proxy_t, NULL, proxy_thread, NULL);
}

static void setup(void)
{
        struct cordon_proxy_config cfg = {.dns_timeout_ms = 500, .connect_timeout_ms = 500};
        static const char *const blocks[] = {"*.blocked.test", "198.18.9.9", NULL};
        static const char *const allows[] = {"rebind.test", NULL};
        start_proxy(&cfg, blocks, allows);
}

static void teardown(void)
{
        uint64_t one = 1;
        if (stop_fd >= 0) {
                (void)!write(stop_fd, &one, sizeof(one));
                pthread_join(proxy_t, NULL);
        }
        cordon_proxy_free(proxy);
        cordon_loop_free(loop);
        cordon_net_rules_free(rules);
        shutdown(dns_fd, SHUT_RDWR);
        shutdown(echo_fd, SHUT_RDWR);
        shutdown(http_fd, SHUT_RDWR);
}

/* ---- client helpers ---- */

static int client(void)
{
        struct sockaddr_in sa = {.sin_family = AF_INET,
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                                 .sin_port = htons(proxy_port)};
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        cr_assert_geq(fd, 0);
        cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        struct timeval tv = {.tv_sec = 5};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        return fd;
}

static void send_all(int fd, const void *buf, size_t len)
{
        cr_assert_eq(write(fd, buf, len), (ssize_t)len);
}

/* Reads until EOF (or @max bytes); returns the length, NUL-terminated. */
static size_t read_all(int fd, char *buf, size_t max)
{
        size_t len = 0;
        ssize_t n;
        while (len < max - 1 && (n = read(fd, buf + len, max - 1 - len)) > 0)
                len += (size_t)n;
        buf[len] = 0;
        return len;
}

/* Reads exactly @len bytes. */
static void read_n(int fd, void *buf, size_t len)
{
        size_t got = 0;
        while (got < len) {
                ssize_t n = read(fd, (char *)buf + got, len - got);
                cr_assert_gt(n, 0, "short read: %zu of %zu", got, len);
                got += (size_t)n;
        }
}

/* Reads an HTTP response head (up to CRLF CRLF). */
static void read_head(int fd, char *buf, size_t max)
{
        size_t len = 0;
        while (len < max - 1) {
                ssize_t n = read(fd, buf + len, 1);
                cr_assert_eq(n, 1, "head cut short: %.*s", (int)len, buf);
                len++;
                buf[len] = 0;
                if (len >= 4 && memcmp(buf + len - 4, "\r\n\r\n", 4) == 0)
                        return;
        }
        cr_assert_fail("head too long");
}

/* The next log line as JSON (waits up to 2 s for it). */
static json_t *next_log(void)
{
        static char pending[8192];
        static size_t plen;
        for (int i = 0; i < 200; i++) {
                char *nl = memchr(pending, '\n', plen);
                if (nl) {
                        json_error_t err;
                        json_t *j = json_loadb(pending, (size_t)(nl - pending), 0, &err);
                        cr_assert_not_null(j, "bad log line: %.*s", (int)(nl - pending), pending);
                        plen -= (size_t)(nl + 1 - pending);
                        memmove(pending, nl + 1, plen);
                        return j;
                }
                ssize_t n = read(log_pipe[0], pending + plen, sizeof(pending) - plen);
                if (n > 0)
                        plen += (size_t)n;
                else
                        usleep(10000);
        }
        cr_assert_fail("no log line");
        return NULL;
}

static const char *jstr(json_t *o, const char *k)
{
        return json_string_value(json_object_get(o, k));
}

struct writer_arg {
        int fd;
        const char *buf;
        size_t len;
};

static void *writer(void *p)
{
        struct writer_arg *a = p;
        size_t off = 0;
        while (off < a->len) {
                ssize_t n = write(a->fd, a->buf + off, a->len - off);
                if (n <= 0)
                        break;
                off += (size_t)n;
        }
        shutdown(a->fd, SHUT_WR);
        return NULL;
}

static void expect_refused_http(const char *request, const char *status_line, const char *reason)
{
        int fd = client();
        char buf[2048];
        send_all(fd, request, strlen(request));
        read_all(fd, buf, sizeof(buf));
        cr_expect(strncmp(buf, status_line, strlen(status_line)) == 0, "got: %s", buf);
        if (reason)
                cr_expect(strstr(buf, reason) != NULL, "no '%s' in: %s", reason, buf);
        close(fd);
}

TestSuite(proxy, .init = setup, .fini = teardown, .timeout = 30);

Test(proxy, connect_ip_literal_relays_and_half_closes)
{
        int fd = client();
        char buf[256];
        const char *req = "CONNECT " ALLOWED_ADDR ":7 HTTP/1.1\r\nHost: " ALLOWED_ADDR ":7\r\n\r\n";
        send_all(fd, req, strlen(req));
        read_head(fd, buf, sizeof(buf));
        cr_assert_str_eq(buf, "HTTP/1.1 200 Connection established\r\n\r\n");
        cr_expect_str_eq(dialled, ALLOWED_ADDR ":7");
        send_all(fd, "ping", 4);
        read_n(fd, buf, 4);
        cr_expect(memcmp(buf, "ping", 4) == 0);
        /* half-close: our EOF reaches the echo server, which closes, which we see */
        cr_assert_eq(shutdown(fd, SHUT_WR), 0);
        cr_expect_eq(read_all(fd, buf, sizeof(buf)), 0);
        close(fd);

        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "protocol"), "connect");
        cr_expect_str_eq(jstr(j, "verdict"), "allow");
        cr_expect_str_eq(jstr(j, "host"), ALLOWED_ADDR);
        cr_expect_str_eq(jstr(j, "address"), ALLOWED_ADDR);
        cr_expect_eq(json_integer_value(json_object_get(j, "port")), 7);
        cr_expect_eq(json_integer_value(json_object_get(j, "bytes_up")), 4);
        cr_expect_eq(json_integer_value(json_object_get(j, "bytes_down")), 4);
        cr_expect(json_is_null(json_object_get(j, "rule")));
        cr_expect(strncmp(jstr(j, "client"), "127.0.0.1:", 10) == 0);
        const char *t = jstr(j, "time");
        cr_expect(t && strlen(t) == 24 && t[10] == 'T' && t[19] == '.' && t[23] == 'Z', "%s", t);
        json_decref(j);
}

Test(proxy, connect_early_data_and_bulk)
{
        int fd = client();
        char head[256];
        static char big[1 << 20], back[1 << 20];
        for (size_t i = 0; i < sizeof(big); i++)
                big[i] = (char)(i * 7);
        /* the request and the first tunnel bytes in one write */
        const char *req = "CONNECT name.test:9 HTTP/1.1\r\n\r\nearly";
        send_all(fd, req, strlen(req));
        read_head(fd, head, sizeof(head));
        cr_assert_str_eq(head, "HTTP/1.1 200 Connection established\r\n\r\n");
        read_n(fd, back, 5);
        cr_expect(memcmp(back, "early", 5) == 0);
        /* a megabyte each way, written by a thread of its own while this one reads (the
         * pipes are small: backpressure holds the writer back until the reader catches up) */
        pthread_t w;
        struct writer_arg arg = {fd, big, sizeof(big)};
        pthread_create(&w, NULL, writer, &arg);
        read_n(fd, back, sizeof(back));
        pthread_join(w, NULL);
        cr_expect(memcmp(big, back, sizeof(big)) == 0);
        cr_expect_eq(read_all(fd, head, sizeof(head)), 0);
        close(fd);
        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "host"), "name.test");
        cr_expect_str_eq(jstr(j, "address"), ALLOWED_ADDR);
        cr_expect_eq(json_integer_value(json_object_get(j, "bytes_up")), 5 + sizeof(big));
        cr_expect_eq(json_integer_value(json_object_get(j, "bytes_down")), 5 + sizeof(big));
        json_decref(j);
}

Test(proxy, refused_ip_literals_are_never_dialled)
{
        /* The reason phrase and the body name the destination, the rule, its origin and the
         * fix; so does the log's message (all SOCKS5 can say is reply 2). */
        const char *why = "cordon refused 198.18.9.9:443 by rule \"198.18.9.9\" (test); to allow "
                          "it: NETWORK_BLOCKLIST_EXCEPT+=('198.18.9.9')";
        char status[512];
        snprintf(status, sizeof(status), "HTTP/1.1 403 %s\r\n", why);
        expect_refused_http("CONNECT 198.18.9.9:443 HTTP/1.1\r\n\r\n", status, "cordon proxy: ");
        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "verdict"), "deny");
        cr_expect_str_eq(jstr(j, "rule"), "198.18.9.9");
        cr_expect_str_eq(jstr(j, "origin"), "test");
        cr_expect_str_eq(jstr(j, "message"), why);
        json_decref(j);
        expect_refused_http("CONNECT 127.0.0.1:22 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused 127.0.0.1:22 by the built-in floor, rule "
                            "\"127.0.0.0/8\" (floor: loopback); no setting lifts it\r\n",
                            "loopback");
        expect_refused_http("GET http://[::1]:80/ HTTP/1.1\r\n\r\n", "HTTP/1.1 403 cordon refused ",
                            NULL);
        expect_refused_http("CONNECT [::ffff:127.0.0.1]:22 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused ", NULL);
        expect_refused_http("CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused ", NULL);
        expect_refused_http("CONNECT " ALLOWED_ADDR ":25 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused ", NULL);
        cr_expect_eq(atomic_load(&dials), 0);
}

Test(proxy, lenient_numeric_hosts_are_refused_not_resolved)
{
        expect_refused_http("CONNECT 127.1:80 HTTP/1.1\r\n\r\n", "HTTP/1.1 400", NULL);
        expect_refused_http("GET http://2130706433/ HTTP/1.1\r\n\r\n", "HTTP/1.1 403", NULL);
        expect_refused_http("GET http://0x7f000001/ HTTP/1.1\r\n\r\n", "HTTP/1.1 403", NULL);
        expect_refused_http("GET http://0177.0.0.1/ HTTP/1.1\r\n\r\n", "HTTP/1.1 403", NULL);
        cr_expect_eq(atomic_load(&dns_queries), 0);
        cr_expect_eq(atomic_load(&dials), 0);
}

Test(proxy, refused_names_are_never_resolved)
{
        expect_refused_http("CONNECT www.Blocked.TEST.:443 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused ", NULL);
        expect_refused_http("GET http://x.blocked.test/ HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused ", NULL);
        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "host"), "www.blocked.test");
        cr_expect_str_eq(jstr(j, "rule"), "*.blocked.test");
        cr_expect(json_is_null(json_object_get(j, "address")));
        json_decref(j);
        cr_expect_eq(atomic_load(&dns_queries_blocked), 0);
        cr_expect_eq(atomic_load(&dials), 0);
}

Test(proxy, rebinding_names_are_refused_by_address)
{
        /* rebind.test is excepted by name, but resolves into the floor */
        expect_refused_http("CONNECT rebind.test:443 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused rebind.test:443 (address 127.0.0.1) by "
                            "the built-in floor",
                            "loopback");
        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "verdict"), "deny");
        cr_expect_str_eq(jstr(j, "address"), "127.0.0.1");
        json_decref(j);
        expect_refused_http("CONNECT private.test:443 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused private.test:443 (address 10.0.0.1) by "
                            "rule \"10.0.0.0/8\" (built-in default): private range (liftable by an "
                            "exception); to allow it: "
                            "NETWORK_BLOCKLIST_EXCEPT+=('10.0.0.1')\r\n",
                            NULL);
        cr_expect_eq(atomic_load(&dials), 0);
        /* of two addresses only the one that passed is dialled */
        int fd = client();
        char buf[256];
        const char *req = "CONNECT mixed.test:7 HTTP/1.1\r\n\r\n";
        send_all(fd, req, strlen(req));
        read_head(fd, buf, sizeof(buf));
        cr_expect(strncmp(buf, "HTTP/1.1 200", 12) == 0);
        cr_expect_eq(atomic_load(&dials), 1);
        cr_expect_str_eq(dialled, ALLOWED_ADDR ":7");
        close(fd);
}

Test(proxy, dns_failures)
{
        expect_refused_http("CONNECT nx.test:443 HTTP/1.1\r\n\r\n", "HTTP/1.1 502", NULL);
        expect_refused_http("CONNECT slow.test:443 HTTP/1.1\r\n\r\n", "HTTP/1.1 504", NULL);
        cr_expect_eq(atomic_load(&dials), 0);
}

Test(proxy, dial_failure)
{
        redirect_port = closed_port;
        expect_refused_http("CONNECT " ALLOWED_ADDR ":443 HTTP/1.1\r\n\r\n", "HTTP/1.1 502", NULL);
        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "verdict"), "error");
        json_decref(j);
        int fd = client();
        uint8_t b[32];
        send_all(fd, (const uint8_t[]){5, 1, 0, 5, 1, 0, 1, 198, 18, 5, 5, 1, 187}, 13);
        read_n(fd, b, 2);
        read_n(fd, b, 10);
        cr_expect_eq(b[1], 0x05);
        close(fd);
}

Test(proxy, http_forward_in_origin_form)
{
        int fd = client();
        char buf[2048];
        const char *req = "POST http://Name.Test/p?q=1 HTTP/1.1\r\nHost: name.test\r\n"
                          "Proxy-Authorization: Basic eA==\r\nProxy-Connection: keep-alive\r\n"
                          "Content-Length: 5\r\n\r\nhello"
                          "GET http://other.test/ HTTP/1.1\r\n\r\n"; /* pipelined: dropped */
        send_all(fd, req, strlen(req));
        read_all(fd, buf, sizeof(buf));
        cr_expect(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0, "%s", buf);
        cr_expect(strstr(buf, "\r\n\r\nhello") != NULL);
        close(fd);
        cr_expect_str_eq(dialled, ALLOWED_ADDR ":80");
        pthread_mutex_lock(&last_lock);
        cr_expect_str_eq(last_request, "POST /p?q=1 HTTP/1.1\r\nHost: name.test\r\n"
                                       "Content-Length: 5\r\nConnection: close\r\n\r\nhello");
        pthread_mutex_unlock(&last_lock);
        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "protocol"), "http");
        cr_expect_str_eq(jstr(j, "host"), "name.test");
        cr_expect_eq(json_integer_value(json_object_get(j, "port")), 80);
        json_decref(j);
}

Test(proxy, http_tricks)
{
        expect_refused_http("GET http://name.test/ HTTP/1.1\r\nHost: x.blocked.test\r\n\r\n",
                            "HTTP/1.1 403", "Host header");
        expect_refused_http("GET http://name.test@x.blocked.test/ HTTP/1.1\r\n\r\n", "HTTP/1.1 403",
                            "userinfo");
        expect_refused_http("GET /relative HTTP/1.1\r\nHost: name.test\r\n\r\n", "HTTP/1.1 400",
                            NULL);
        const char nul[] = "CONNECT name.test\0.blocked.test:443 HTTP/1.1\r\n\r\n";
        int fd = client();
        char buf[1024];
        send_all(fd, nul, sizeof(nul) - 1);
        read_all(fd, buf, sizeof(buf));
        cr_expect(strncmp(buf, "HTTP/1.1 400", 12) == 0);
        close(fd);
        cr_expect_eq(atomic_load(&dials), 0);
}

Test(proxy, socks5)
{
        int fd = client();
        uint8_t b[64];
        /* greeting and request in one write, by name, then tunnel bytes */
        const uint8_t req[] = {5,   1,   0,   5,   1,   0,   3,   9, 'N', 'a',
                               'm', 'e', '.', 't', 'e', 's', 't', 0, 7};
        send_all(fd, req, sizeof(req));
        read_n(fd, b, 2);
        cr_expect(b[0] == 5 && b[1] == 0);
        read_n(fd, b, 10);
        cr_expect(b[0] == 5 && b[1] == 0 && b[3] == 1, "reply %u", b[1]);
        send_all(fd, "abc", 3);
        read_n(fd, b, 3);
        cr_expect(memcmp(b, "abc", 3) == 0);
        close(fd);
        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "protocol"), "socks5");
        cr_expect_str_eq(jstr(j, "host"), "name.test");
        cr_expect_str_eq(jstr(j, "verdict"), "allow");
        json_decref(j);
}

static uint8_t socks_reply(const uint8_t *greeting, size_t glen, const uint8_t *req, size_t rlen)
{
        int fd = client();
        uint8_t b[32];
        send_all(fd, greeting, glen);
        read_n(fd, b, 2);
        if (b[1] != 0) {
                close(fd);
                return b[1];
        }
        send_all(fd, req, rlen);
        read_n(fd, b, 10);
        cr_expect_eq(read(fd, b + 10, 1), 0); /* then closed */
        close(fd);
        return b[1];
}

Test(proxy, socks5_refusals)
{
        const uint8_t hello[] = {5, 1, 0};
        const uint8_t blocked[] = {5,   1,   0,   3,   11,  'a', '.', 'b', 'l',
                                   'o', 'c', 'k', 'e', 'd', '.', 't', 0,   80};
        const uint8_t blocked2[] = {5,   1,   0,   3,   14,  'a', '.', 'b', 'l', 'o', 'c',
                                    'k', 'e', 'd', '.', 't', 'e', 's', 't', 0,   80};
        const uint8_t loop4[] = {5, 1, 0, 1, 127, 0, 0, 1, 0, 22};
        const uint8_t bind[] = {5, 2, 0, 1, 198, 18, 5, 5, 0, 22};
        const uint8_t udp[] = {5, 3, 0, 1, 0, 0, 0, 0, 0, 0};
        const uint8_t lenient[] = {5, 1, 0, 3, 5, '1', '2', '7', '.', '1', 0, 22};
        cr_expect_eq(socks_reply(hello, 3, blocked2, sizeof(blocked2)), 0x02);
        cr_expect_eq(socks_reply(hello, 3, loop4, sizeof(loop4)), 0x02);
        cr_expect_eq(socks_reply(hello, 3, bind, sizeof(bind)), 0x07);
        cr_expect_eq(socks_reply(hello, 3, udp, sizeof(udp)), 0x07);
        cr_expect_eq(socks_reply(hello, 3, lenient, sizeof(lenient)), 0x02);
        (void)blocked;
        const uint8_t userpass_only[] = {5, 1, 2};
        cr_expect_eq(socks_reply(userpass_only, 3, NULL, 0), 0xff);
        cr_expect_eq(atomic_load(&dials), 0);
        cr_expect_eq(atomic_load(&dns_queries_blocked), 0);
}

/* ---- bounds ---- */

static void setup_small(void)
{
        struct cordon_proxy_config cfg = {.max_connections = 2,
                                          .max_header_bytes = 256,
                                          .idle_timeout_ms = 300,
                                          .dns_timeout_ms = 500,
                                          .connect_timeout_ms = 500};
        start_proxy(&cfg, NULL, NULL);
}

TestSuite(proxy_bounds, .init = setup_small, .fini = teardown, .timeout = 30);

Test(proxy_bounds, header_bytes)
{
        char req[400];
        memset(req, 'a', sizeof(req));
        memcpy(req, "GET http://name.test/ HTTP/1.1\r\nX: ", 35);
        int fd = client();
        char buf[1024];
        send_all(fd, req, sizeof(req));
        read_all(fd, buf, sizeof(buf));
        cr_expect(strncmp(buf, "HTTP/1.1 431", 12) == 0, "%s", buf);
        close(fd);
        cr_expect_eq(atomic_load(&dns_queries), 0);
}

Test(proxy_bounds, connections_wait_at_the_limit)
{
        int a = client(), b = client(), c = client();
        char buf[256];
        const char *req = "CONNECT " ALLOWED_ADDR ":7 HTTP/1.1\r\n\r\n";
        send_all(a, req, strlen(req));
        read_head(a, buf, sizeof(buf));
        send_all(b, req, strlen(req));
        read_head(b, buf, sizeof(buf));
        /* the third waits in the backlog: no answer while two are open */
        send_all(c, req, strlen(req));
        struct pollfd pfd = {.fd = c, .events = POLLIN};
        cr_expect_eq(poll(&pfd, 1, 150), 0);
        struct cordon_proxy_stats st;
        cordon_proxy_get_stats(proxy, &st); /* racy read of counters, fine for a test */
        cr_expect_eq(st.active, 2);
        close(a);
        read_head(c, buf, sizeof(buf));
        cr_expect(strncmp(buf, "HTTP/1.1 200", 12) == 0);
        close(b);
        close(c);
}

Test(proxy_bounds, idle_tunnels_close)
{
        int fd = client();
        char buf[256];
        const char *req = "CONNECT " ALLOWED_ADDR ":7 HTTP/1.1\r\n\r\n";
        send_all(fd, req, strlen(req));
        read_head(fd, buf, sizeof(buf));
        send_all(fd, "x", 1);
        read_n(fd, buf, 1);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        cr_expect_eq(read_all(fd, buf, sizeof(buf)), 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        cr_expect(ms >= 250 && ms < 3000, "closed after %ld ms", ms);
        close(fd);
        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "reason"), "idle timeout");
        json_decref(j);
}

Test(proxy_bounds, closed_clients_free_their_slots)
{
        int a = client(), b = client();
        char buf[256];
        close(a);
        close(b);
        int c = client();
        const char *req = "CONNECT " ALLOWED_ADDR ":7 HTTP/1.1\r\n\r\n";
        send_all(c, req, strlen(req));
        read_head(c, buf, sizeof(buf));
        cr_expect(strncmp(buf, "HTTP/1.1 200", 12) == 0);
        close(c);
}

/* The DNS server has NETWORK_PROXY_DNS's grammar: canonical addresses only, never a name. */
Test(proxy_config, dns_server_grammar)
{
        struct cordon_net_rules *r = NULL;
        struct cordon_loop *l = NULL;
        cr_assert_eq(cordon_net_rules_new(&r), 0);
        cr_assert_eq(cordon_loop_new(&l), 0);
        const char *bad[] = {"127.1", "0x7f000001:53", "dns.example", "1.2.3.4:0", "[::1]x", ""};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct cordon_proxy_config cfg = {.rules = r, .dns_server = bad[i], .log_fd = -1};
                struct cordon_proxy *p = NULL;
                struct cordon_diag d = {0};
                cr_expect_eq(cordon_proxy_new(&cfg, l, &p, &d), -EINVAL, "%s", bad[i]);
                cordon_proxy_free(p);
        }
        const char *good[] = {"198.18.0.2", "198.18.0.2:5353", "[::1]:53", "::1"};
        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
                struct cordon_proxy_config cfg = {.rules = r, .dns_server = good[i], .log_fd = -1};
                struct cordon_proxy *p = NULL;
                struct cordon_diag d = {0};
                cr_expect_eq(cordon_proxy_new(&cfg, l, &p, &d), 0, "%s: %s", good[i], d.message);
                cordon_proxy_free(p);
        }
        cordon_loop_free(l);
        cordon_net_rules_free(r);
}

/* The host's own addresses are refused like the floor (a service bound to 0.0.0.0 or :: answers
 * on each, and the proxy dials from the host), before any dial; so are the IPv4 addresses a
 * NAT64 or 6to4 form carries. The hook would have led the dial to the echo server. */
Test(proxy, host_addresses_and_embedded_forms_are_refused)
{
        struct cordon_net_addr *v = NULL;
        size_t n = 0;
        cr_assert_eq(cordon_net_host_addrs(&v, &n), 0);
        for (size_t i = 0; i < n; i++) {
                char a[INET6_ADDRSTRLEN], req[256];
                cordon_net_addr_format(&v[i], a, sizeof(a));
                bool v6 = v[i].family == AF_INET6;
                snprintf(req, sizeof(req), "CONNECT %s%s%s:7 HTTP/1.1\r\n\r\n", v6 ? "[" : "", a,
                         v6 ? "]" : "");
                /* One in a default-blocked range is refused by that rule first. */
                struct cordon_net_verdict by_rules;
                cordon_net_rules_check_addr(rules, &v[i], 7, false, &by_rules);
                expect_refused_http(req, "HTTP/1.1 403 cordon refused ",
                                    by_rules.allow ? "floor: the host's own address" : NULL);
                json_t *j = next_log();
                cr_expect_str_eq(jstr(j, "verdict"), "deny");
                json_decref(j);
        }
        free(v);
        expect_refused_http("CONNECT [64:ff9b::7f00:1]:7 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused ", "floor: loopback");
        expect_refused_http("CONNECT [2002:a00:1::1]:7 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused ", "private range");
        cr_expect_eq(atomic_load(&dials), 0, "dialled %s", dialled);
}

/* ---- path entries ---- */

static void setup_paths(void)
{
        struct cordon_proxy_config cfg = {.dns_timeout_ms = 500, .connect_timeout_ms = 500};
        static const char *const blocks[] = {"hooks.test/api/webhooks", NULL};
        start_proxy(&cfg, blocks, NULL);
}

/* A plain HTTP request under a blocked path is refused before any DNS or dial, saying the path,
 * the rule and the exception that would lift it; another path of the same host is forwarded as
 * sent; a spelling servers read two ways is refused; a tunnel to the host is not (its path is
 * not seen). */
Test(proxy_paths, plain_http_by_path, .init = setup_paths, .fini = teardown, .timeout = 30)
{
        expect_refused_http("GET http://Hooks.Test./api/webhooks/123?wait=1 HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused hooks.test:80 path "
                            "\"/api/webhooks/123?wait=1\" by rule \"hooks.test/api/webhooks\" "
                            "(test); to allow it: "
                            "NETWORK_BLOCKLIST_EXCEPT+=('hooks.test/api/webhooks')",
                            NULL);
        json_t *j = next_log();
        cr_expect_str_eq(jstr(j, "verdict"), "deny");
        cr_expect_str_eq(jstr(j, "rule"), "hooks.test/api/webhooks");
        json_decref(j);
        expect_refused_http("GET http://hooks.test/api/%77ebhooks HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused hooks.test:80 path", NULL);
        expect_refused_http("GET http://hooks.test/api//webhooks HTTP/1.1\r\n\r\n",
                            "HTTP/1.1 403 cordon refused hooks.test:80 path \"/api//webhooks\" "
                            "for an empty segment",
                            "no exception lifts it");
        cr_expect_eq(atomic_load(&dials), 0, "dialled %s", dialled);
        (void)next_log();
        (void)next_log();

        int fd = client();
        char buf[2048];
        const char *req = "GET http://hooks.test/api/webhooksX HTTP/1.1\r\n\r\n";
        send_all(fd, req, strlen(req));
        read_all(fd, buf, sizeof(buf));
        cr_expect(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0, "%s", buf);
        close(fd);
        pthread_mutex_lock(&last_lock);
        cr_expect(strncmp(last_request, "GET /api/webhooksX HTTP/1.1\r\n", 29) == 0, "%s",
                  last_request);
        pthread_mutex_unlock(&last_lock);

        fd = client();
        req = "CONNECT hooks.test:443 HTTP/1.1\r\n\r\n";
        send_all(fd, req, strlen(req));
        read_head(fd, buf, sizeof(buf));
        cr_expect(strncmp(buf, "HTTP/1.1 200", 12) == 0, "%s", buf);
        close(fd);
        cr_expect_eq(atomic_load(&dials), 2);
}
