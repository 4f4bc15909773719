/* Unit tests for src/lib/proxy/proxy-http.c and proxy-target.c: what a request head sent to
 * the egress proxy becomes, and every kind of head it refuses. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "lib/proxy/proxy-http.h"

#define MAX 16384

static int parse(const char *s, struct cordon_proxy_http_request *req)
{
        return cordon_proxy_http_parse(s, strlen(s), MAX, req);
}

static void expect_refused(const char *s, int status)
{
        struct cordon_proxy_http_request req;
        cr_assert_eq(parse(s, &req), -EINVAL, "accepted: %s", s);
        cr_expect_eq(req.status, status, "status %d for: %s", req.status, s);
        cr_expect_not_null(req.reason);
        cr_expect_null(req.forward);
}

Test(proxy_http, connect)
{
        struct cordon_proxy_http_request req;
        const char *s = "CONNECT Example.COM.:443 HTTP/1.1\r\nHost: example.com:443\r\n"
                        "User-Agent: x\r\n\r\nextra";
        cr_assert_eq(parse(s, &req), 0);
        cr_expect(req.connect);
        cr_expect_str_eq(req.target.host, "example.com");
        cr_expect_not(req.target.is_addr);
        cr_expect_eq(req.target.port, 443);
        cr_expect_eq(req.head_len, strlen(s) - 5);
        cr_expect_null(req.forward);
}

Test(proxy_http, connect_ip_literals)
{
        struct cordon_proxy_http_request req;
        cr_assert_eq(parse("CONNECT 198.18.0.1:22 HTTP/1.1\r\n\r\n", &req), 0);
        cr_expect(req.target.is_addr);
        cr_expect_eq(req.target.addr.family, AF_INET);
        cr_expect_str_eq(req.target.host, "198.18.0.1");
        cr_assert_eq(parse("CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n", &req), 0);
        cr_expect(req.target.is_addr);
        cr_expect_eq(req.target.addr.family, AF_INET6);
        cr_expect_eq(req.target.port, 443);
}

Test(proxy_http, incomplete)
{
        struct cordon_proxy_http_request req;
        cr_expect_eq(parse("CONNECT a.b:443 HTTP/1.1\r\nHost: a.b\r\n", &req), -EAGAIN);
        cr_expect_eq(parse("", &req), -EAGAIN);
        cr_expect_eq(parse("GET http://a.b/ HTTP/1.1\r\n\r", &req), -EAGAIN);
}

Test(proxy_http, forward_rewrites_to_origin_form)
{
        struct cordon_proxy_http_request req;
        const char *s = "GET http://Example.com:8080/a/b?q=1 HTTP/1.1\r\n"
                        "Host: example.com:8080\r\n"
                        "Proxy-Connection: keep-alive\r\n"
                        "Proxy-Authorization: Basic eA==\r\n"
                        "Connection: keep-alive\r\n"
                        "Accept: */*\r\n\r\n";
        cr_assert_eq(parse(s, &req), 0);
        cr_expect_not(req.connect);
        cr_expect_str_eq(req.target.host, "example.com");
        cr_expect_eq(req.target.port, 8080);
        cr_expect_eq(req.body_len, 0);
        const char *want = "GET /a/b?q=1 HTTP/1.1\r\nHost: example.com:8080\r\nAccept: */*\r\n"
                           "Connection: close\r\n\r\n";
        cr_assert_eq(req.forward_len, strlen(want));
        cr_expect_arr_eq(req.forward, want, strlen(want));
        cordon_proxy_http_request_clear(&req);
}

Test(proxy_http, forward_adds_host_and_path)
{
        struct cordon_proxy_http_request req;
        cr_assert_eq(parse("POST http://a.example?x HTTP/1.0\r\nContent-Length: 12\r\n\r\n", &req),
                     0);
        cr_expect_eq(req.target.port, 80);
        cr_expect_eq(req.body_len, 12);
        const char *want = "POST /?x HTTP/1.0\r\nContent-Length: 12\r\nHost: a.example\r\n"
                           "Connection: close\r\n\r\n";
        cr_assert_eq(req.forward_len, strlen(want));
        cr_expect_arr_eq(req.forward, want, strlen(want));
        cordon_proxy_http_request_clear(&req);
}

Test(proxy_http, normalises_names)
{
        struct cordon_proxy_http_request req;
        cr_assert_eq(
            parse("GET http://WWW.Example.ORG./ HTTP/1.1\r\nHost: www.example.org\r\n\r\n", &req),
            0);
        cr_expect_str_eq(req.target.host, "www.example.org");
        cordon_proxy_http_request_clear(&req);
}

Test(proxy_http, refuses_host_mismatch)
{
        expect_refused("GET http://a.example/ HTTP/1.1\r\nHost: b.example\r\n\r\n", 403);
        expect_refused("GET http://a.example/ HTTP/1.1\r\nHost: a.example:8080\r\n\r\n", 403);
        expect_refused("CONNECT a.example:443 HTTP/1.1\r\nHost: b.example:443\r\n\r\n", 403);
        expect_refused("GET http://a.example/ HTTP/1.1\r\nHost: \r\n\r\n", 403);
}

Test(proxy_http, refuses_duplicate_host)
{
        expect_refused(
            "GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\nhost: a.example\r\n\r\n", 400);
}

Test(proxy_http, refuses_userinfo)
{
        expect_refused("GET http://user@a.example/ HTTP/1.1\r\n\r\n", 403);
        expect_refused("GET http://allowed.example:80@blocked.example/ HTTP/1.1\r\n\r\n", 403);
}

Test(proxy_http, refuses_origin_and_other_forms)
{
        expect_refused("GET / HTTP/1.1\r\nHost: a.example\r\n\r\n", 400);
        expect_refused("OPTIONS * HTTP/1.1\r\n\r\n", 400);
        expect_refused("GET https://a.example/ HTTP/1.1\r\n\r\n", 400);
        expect_refused("GET ftp://a.example/ HTTP/1.1\r\n\r\n", 400);
        expect_refused("GET http://a.example/ HTTP/2.0\r\n\r\n", 400);
        expect_refused("GET http://a.example/\r\n\r\n", 400);
        expect_refused(" GET http://a.example/ HTTP/1.1\r\n\r\n", 400);
        expect_refused("GET  http://a.example/ HTTP/1.1\r\n\r\n", 400);
}

Test(proxy_http, refuses_bad_ports)
{
        expect_refused("CONNECT a.example HTTP/1.1\r\n\r\n", 400);
        expect_refused("CONNECT a.example:0 HTTP/1.1\r\n\r\n", 400);
        expect_refused("CONNECT a.example:65536 HTTP/1.1\r\n\r\n", 400);
        expect_refused("CONNECT a.example:+443 HTTP/1.1\r\n\r\n", 400);
        expect_refused("CONNECT a.example:443x HTTP/1.1\r\n\r\n", 400);
        expect_refused("CONNECT a.example: HTTP/1.1\r\n\r\n", 400);
        expect_refused("GET http://a.example:99999/ HTTP/1.1\r\n\r\n", 403);
}

Test(proxy_http, refuses_control_bytes)
{
        struct cordon_proxy_http_request req;
        const char nul[] = "CONNECT a.example\0.evil:443 HTTP/1.1\r\n\r\n";
        cr_expect_eq(cordon_proxy_http_parse(nul, sizeof(nul) - 1, MAX, &req), -EINVAL);
        cr_expect_eq(req.status, 400);
        expect_refused("GET http://a.example/ HTTP/1.1\r\nX: a\x01z\r\n\r\n", 400);
        expect_refused("GET http://a.example/ HTTP/1.1\nHost: a.example\n\n", 400);
        expect_refused("GET http://a.example/ HTTP/1.1\r\nX: a\rb\r\n\r\n", 400);
        expect_refused("GET http://a.example/ HTTP/1.1\r\nX: a\x7f\r\n\r\n", 400);
}

Test(proxy_http, refuses_obs_fold_and_bad_fields)
{
        expect_refused("GET http://a.example/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400);
        expect_refused("GET http://a.example/ HTTP/1.1\r\nHost : a.example\r\n\r\n", 400);
        expect_refused("GET http://a.example/ HTTP/1.1\r\nno colon\r\n\r\n", 400);
        expect_refused("GET http://a.example/ HTTP/1.1\r\n: v\r\n\r\n", 400);
}

Test(proxy_http, refuses_unframed_bodies)
{
        expect_refused("POST http://a.example/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
                       411);
        expect_refused("POST http://a.example/ HTTP/1.1\r\nContent-Length: 3\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n",
                       411);
        expect_refused("POST http://a.example/ HTTP/1.1\r\nContent-Length: 3\r\n"
                       "Content-Length: 3\r\n\r\n",
                       400);
        expect_refused("POST http://a.example/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400);
        expect_refused("POST http://a.example/ HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n", 400);
        expect_refused("CONNECT a.example:443 HTTP/1.1\r\nContent-Length: 5\r\n\r\n", 400);
}

Test(proxy_http, refuses_lenient_numeric_hosts)
{
        expect_refused("CONNECT 127.1:80 HTTP/1.1\r\n\r\n", 400);
        expect_refused("GET http://2130706433/ HTTP/1.1\r\n\r\n", 403);
        expect_refused("GET http://0x7f000001/ HTTP/1.1\r\n\r\n", 403);
        expect_refused("GET http://0177.0.0.1/ HTTP/1.1\r\n\r\n", 403);
        expect_refused("GET http://[127.0.0.1]/ HTTP/1.1\r\n\r\n", 403);
        expect_refused("GET http://[::1%25lo]/ HTTP/1.1\r\n\r\n", 403);
        expect_refused("GET http://a..example/ HTTP/1.1\r\n\r\n", 403);
        expect_refused("GET http://a%2eexample/ HTTP/1.1\r\n\r\n", 403);
}

Test(proxy_http, refuses_over_long_head)
{
        struct cordon_proxy_http_request req;
        char buf[600];
        memset(buf, 'a', sizeof(buf));
        memcpy(buf, "GET http://a.example/ HTTP/1.1\r\nX: ", 35);
        cr_expect_eq(cordon_proxy_http_parse(buf, 100, 512, &req), -EAGAIN);
        cr_expect_eq(cordon_proxy_http_parse(buf, sizeof(buf), 512, &req), -EINVAL);
        cr_expect_eq(req.status, 431);
        /* A complete head that ends beyond the limit is refused too. */
        memcpy(buf + sizeof(buf) - 4, "\r\n\r\n", 4);
        cr_expect_eq(cordon_proxy_http_parse(buf, sizeof(buf), 512, &req), -EINVAL);
        cr_expect_eq(req.status, 431);
        cr_expect_eq(cordon_proxy_http_parse(buf, sizeof(buf), sizeof(buf), &req), 0);
        cordon_proxy_http_request_clear(&req);
}

Test(proxy_http, response)
{
        char out[256];
        size_t n = cordon_proxy_http_response(403, "blocked by rule *.example (command line)", out,
                                              sizeof(out));
        cr_expect_eq(n, strlen(out));
        cr_expect(strncmp(out, "HTTP/1.1 403 Forbidden\r\n", 24) == 0);
        cr_expect(strstr(out, "\r\n\r\nblocked by rule *.example (command line)\n") != NULL);
        cr_expect(strstr(out, "Content-Length: 41\r\n") != NULL);
        n = cordon_proxy_http_response(200, NULL, out, sizeof(out));
        cr_expect_str_eq(out, "HTTP/1.1 200 Connection established\r\n\r\n");
}

Test(proxy_target, authority)
{
        struct cordon_proxy_target t;
        cr_expect_eq(cordon_proxy_target_parse_authority("[::1]", 5, 0, &t), -EINVAL);
        cr_expect_eq(cordon_proxy_target_parse_authority("[::1]", 5, 80, &t), 0);
        cr_expect_eq(t.port, 80);
        cr_expect_eq(cordon_proxy_target_parse_authority("::1:80", 6, 80, &t), -EINVAL);
        cr_expect_eq(cordon_proxy_target_parse_authority("[::1]x", 6, 80, &t), -EINVAL);
        cr_expect_eq(cordon_proxy_target_parse_authority("a:1:2", 5, 80, &t), -EINVAL);
        cr_expect_eq(cordon_proxy_target_parse_authority(":80", 3, 80, &t), -EINVAL);
        cr_expect_eq(cordon_proxy_target_parse_authority("a b:80", 6, 80, &t), -EINVAL);
        cr_expect_eq(cordon_proxy_target_parse_authority("a.b:65535", 9, 0, &t), 0);
        cr_expect_eq(t.port, 65535);
}
