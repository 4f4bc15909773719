/* Unit tests for src/lib/proxy/proxy-socks.c: the SOCKS5 greeting, requests by name, IPv4 and
 * IPv6, and the refusals (no no-auth method, BIND, UDP ASSOCIATE, bad names). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "lib/proxy/proxy-socks.h"

Test(proxy_socks, greeting)
{
        size_t used = 0;
        const uint8_t noauth[] = {5, 2, 2, 0};
        cr_expect_eq(cordon_proxy_socks_greeting(noauth, sizeof(noauth), &used),
                     CORDON_SOCKS_METHOD_NOAUTH);
        cr_expect_eq(used, 4);
        const uint8_t userpass[] = {5, 1, 2};
        cr_expect_eq(cordon_proxy_socks_greeting(userpass, sizeof(userpass), &used),
                     CORDON_SOCKS_METHOD_NONE);
        const uint8_t none[] = {5, 0};
        cr_expect_eq(cordon_proxy_socks_greeting(none, sizeof(none), &used),
                     CORDON_SOCKS_METHOD_NONE);
        cr_expect_eq(used, 2);
        cr_expect_eq(cordon_proxy_socks_greeting(noauth, 3, &used), -EAGAIN);
        cr_expect_eq(cordon_proxy_socks_greeting(noauth, 1, &used), -EAGAIN);
        const uint8_t v4[] = {4, 1, 0};
        cr_expect_eq(cordon_proxy_socks_greeting(v4, sizeof(v4), &used), -EPROTO);
}

static int request(const uint8_t *b, size_t n, struct cordon_proxy_socks_request *req)
{
        return cordon_proxy_socks_request(b, n, req);
}

Test(proxy_socks, connect_ipv4)
{
        struct cordon_proxy_socks_request req;
        const uint8_t b[] = {5, 1, 0, 1, 198, 18, 0, 1, 0x01, 0xbb, 0xaa};
        cr_assert_eq(request(b, sizeof(b), &req), 0);
        cr_expect_eq(req.used, 10);
        cr_expect(req.target.is_addr);
        cr_expect_str_eq(req.target.host, "198.18.0.1");
        cr_expect_eq(req.target.port, 443);
        for (size_t i = 0; i < 10; i++)
                cr_expect_eq(request(b, i, &req), -EAGAIN);
}

Test(proxy_socks, connect_ipv6)
{
        struct cordon_proxy_socks_request req;
        uint8_t b[22] = {5, 1, 0, 4};
        inet_pton(AF_INET6, "2001:db8::7", b + 4);
        b[20] = 0;
        b[21] = 80;
        cr_assert_eq(request(b, sizeof(b), &req), 0);
        cr_expect_eq(req.target.addr.family, AF_INET6);
        cr_expect_str_eq(req.target.host, "2001:db8::7");
        cr_expect_eq(req.target.port, 80);
}

Test(proxy_socks, connect_name)
{
        struct cordon_proxy_socks_request req;
        const uint8_t b[] = {5,   1,   0,   3,   12,  'E', 'x', 'a', 'm', 'p',
                             'l', 'e', '.', 'C', 'O', 'M', '.', 0,   80};
        cr_assert_eq(request(b, sizeof(b), &req), 0);
        cr_expect_not(req.target.is_addr);
        cr_expect_str_eq(req.target.host, "example.com");
        cr_expect_eq(req.used, sizeof(b));
        for (size_t i = 0; i < sizeof(b); i++)
                cr_expect_eq(request(b, i, &req), -EAGAIN);
}

Test(proxy_socks, name_that_is_an_address)
{
        struct cordon_proxy_socks_request req;
        const uint8_t b[] = {5, 1, 0, 3, 9, '1', '2', '7', '.', '0', '.', '0', '.', '1', 0, 80};
        cr_assert_eq(request(b, sizeof(b), &req), 0);
        cr_expect(req.target.is_addr);
        cr_expect_eq(req.target.addr.family, AF_INET);
}

static void expect_refused(const uint8_t *b, size_t n, enum cordon_socks_reply code)
{
        struct cordon_proxy_socks_request req;
        cr_assert_eq(request(b, n, &req), -EINVAL);
        cr_expect_eq(req.reply, code);
        cr_expect_not_null(req.reason);
}

Test(proxy_socks, refusals)
{
        const uint8_t bind[] = {5, 2, 0, 1, 1, 2, 3, 4, 0, 80};
        expect_refused(bind, sizeof(bind), CORDON_SOCKS_CMD_UNSUPPORTED);
        const uint8_t udp[] = {5, 3, 0, 1, 0, 0, 0, 0, 0, 0};
        expect_refused(udp, sizeof(udp), CORDON_SOCKS_CMD_UNSUPPORTED);
        const uint8_t cmd9[] = {5, 9, 0, 1, 0, 0, 0, 0, 0, 0};
        expect_refused(cmd9, sizeof(cmd9), CORDON_SOCKS_CMD_UNSUPPORTED);
        const uint8_t atyp[] = {5, 1, 0, 7, 0, 0};
        expect_refused(atyp, sizeof(atyp), CORDON_SOCKS_ATYP_UNSUPPORTED);
        const uint8_t ver[] = {4, 1, 0, 1, 0, 0, 0, 0, 0, 0};
        expect_refused(ver, sizeof(ver), CORDON_SOCKS_GENERAL_FAILURE);
        const uint8_t rsv[] = {5, 1, 1, 1, 0, 0, 0, 0, 0, 0};
        expect_refused(rsv, sizeof(rsv), CORDON_SOCKS_GENERAL_FAILURE);
        const uint8_t empty[] = {5, 1, 0, 3, 0, 0, 80};
        expect_refused(empty, sizeof(empty), CORDON_SOCKS_NOT_ALLOWED);
        const uint8_t nul[] = {5, 1, 0, 3, 5, 'a', 0, '.', 'b', 'c', 0, 80};
        expect_refused(nul, sizeof(nul), CORDON_SOCKS_NOT_ALLOWED);
        const uint8_t lenient[] = {5, 1, 0, 3, 5, '1', '2', '7', '.', '1', 0, 80};
        expect_refused(lenient, sizeof(lenient), CORDON_SOCKS_NOT_ALLOWED);
        const uint8_t hex[] = {5,   1,   0,   3,   10,  '0', 'x', '7', 'f',
                               '0', '0', '0', '0', '0', '1', 0,   80};
        expect_refused(hex, sizeof(hex), CORDON_SOCKS_NOT_ALLOWED);
        const uint8_t space[] = {5, 1, 0, 3, 3, 'a', ' ', 'b', 0, 80};
        expect_refused(space, sizeof(space), CORDON_SOCKS_NOT_ALLOWED);
        const uint8_t port0[] = {5, 1, 0, 1, 1, 2, 3, 4, 0, 0};
        expect_refused(port0, sizeof(port0), CORDON_SOCKS_NOT_ALLOWED);
        const uint8_t v6name[] = {5, 1, 0, 3, 3, ':', ':', '1', 0, 80};
        struct cordon_proxy_socks_request req;
        /* an IPv6 literal given as a name is that address, canonical or not at all */
        cr_expect_eq(request(v6name, sizeof(v6name), &req), 0);
        cr_expect(req.target.is_addr);
}

Test(proxy_socks, reply)
{
        uint8_t out[CORDON_SOCKS_REPLY_MAX];
        cr_expect_eq(cordon_proxy_socks_reply(CORDON_SOCKS_NOT_ALLOWED, NULL, 0, out), 10);
        cr_expect_eq(out[0], 5);
        cr_expect_eq(out[1], 2);
        cr_expect_eq(out[3], 1);
        struct cordon_net_addr a = {.family = AF_INET6};
        inet_pton(AF_INET6, "2001:db8::1", &a.v6);
        cr_expect_eq(cordon_proxy_socks_reply(CORDON_SOCKS_OK, &a, 1080, out), 22);
        cr_expect_eq(out[3], 4);
        cr_expect_eq(out[20], 1080 >> 8);
        cr_expect_eq(out[21], 1080 & 0xff);
}
