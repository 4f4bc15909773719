/* Fuzz target for src/lib/proxy/proxy-http.c: request heads sent to the egress proxy (CONNECT
 * and absolute-URI requests). Checks: the result is one of the documented ones; an accepted
 * head lies within the input and the limit, ends in CRLF CRLF, names a target that is a
 * normalised name or a canonical address with a port, and (forwarded) rewrites into an
 * origin-form head that parses as such and never grows beyond the bound, its path (where the
 * rules' path entries look) inside the request line and carried upstream as received; every
 * prefix of an accepted head is incomplete or refused, never accepted differently. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "lib/proxy/proxy-http.h"

static void check_forward(const struct cordon_proxy_http_request *req)
{
        const char *f = req->forward;
        size_t n = req->forward_len;
        FUZZ_CHECK(f && n >= 4 && memcmp(f + n - 4, "\r\n\r\n", 4) == 0);
        FUZZ_CHECK(n <= req->head_len + 64 + req->head_len);
        const char *sp = memchr(f, ' ', n);
        FUZZ_CHECK(sp && sp + 1 < f + n && sp[1] == '/');
        FUZZ_CHECK(memchr(f, 0, n) == NULL);
        FUZZ_CHECK(memmem(f, n, "\r\nConnection: close\r\n\r\n", 23) == f + n - 23);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        const char *buf = (const char *)data;
        size_t max = 4096;
        struct cordon_proxy_http_request req;
        int r = cordon_proxy_http_parse(buf, size, max, &req);
        FUZZ_CHECK(r == 0 || r == -EAGAIN || r == -EINVAL || r == -ENOMEM);
        if (r == -EINVAL) {
                FUZZ_CHECK(req.reason && req.status >= 400 && req.status < 600);
                FUZZ_CHECK(req.forward == NULL);
        }
        if (r == -EAGAIN)
                FUZZ_CHECK(size < max);
        if (r != 0)
                return 0;

        FUZZ_CHECK(req.head_len >= 4 && req.head_len <= size && req.head_len <= max);
        FUZZ_CHECK(memcmp(buf + req.head_len - 4, "\r\n\r\n", 4) == 0);
        FUZZ_CHECK(req.target.port != 0);
        size_t hl = strnlen(req.target.host, sizeof(req.target.host));
        FUZZ_CHECK(hl > 0 && hl < sizeof(req.target.host));
        if (req.target.is_addr) {
                struct cordon_net_addr a;
                FUZZ_CHECK(cordon_net_addr_parse(req.target.host, &a) == 0);
                FUZZ_CHECK(a.family == req.target.addr.family);
        } else {
                char again[CORDON_NET_NAME_MAX + 1];
                FUZZ_CHECK(cordon_net_name_normalize(req.target.host, hl, again) == 0);
                FUZZ_CHECK(strcmp(again, req.target.host) == 0);
        }
        if (req.connect)
                FUZZ_CHECK(req.forward == NULL && req.body_len == 0);
        else {
                check_forward(&req);
                /* The path the rules' path entries see lies in the request line, after the
                 * authority, and is what the origin-form head carries. */
                const char *eol = memchr(buf, '\r', req.head_len);
                FUZZ_CHECK(eol && req.path_off + req.path_len <= (size_t)(eol - buf));
                FUZZ_CHECK(req.path_len == 0 || buf[req.path_off] == '/' ||
                           buf[req.path_off] == '?');
                FUZZ_CHECK(req.path_len == 0 || memmem(req.forward, req.forward_len,
                                                       buf + req.path_off, req.path_len) != NULL);
        }

        /* A prefix of the head is never a different complete head. */
        struct cordon_proxy_http_request part;
        int rp = cordon_proxy_http_parse(buf, req.head_len - 1, max, &part);
        FUZZ_CHECK(rp == -EAGAIN || rp == -EINVAL);
        cordon_proxy_http_request_clear(&part);

        /* The same head with less room: refused as too long, or the same result. */
        struct cordon_proxy_http_request same;
        int rs = cordon_proxy_http_parse(buf, req.head_len, req.head_len, &same);
        FUZZ_CHECK(rs == 0 && same.head_len == req.head_len &&
                   cordon_proxy_target_equal(&same.target, &req.target));
        cordon_proxy_http_request_clear(&same);
        cordon_proxy_http_request_clear(&req);
        return 0;
}
