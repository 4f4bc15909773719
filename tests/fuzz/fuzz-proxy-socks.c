/* Fuzz target for src/lib/proxy/proxy-socks.c: a SOCKS5 greeting followed by a request, as a
 * client sends them to the egress proxy. Checks: results are the documented ones; lengths
 * stay within the input; an accepted request names a normalised name or an address with a
 * non-zero port; a refusal carries a valid reply code; and feeding the same bytes one at a
 * time gives -EAGAIN until the full length and then the same result. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "lib/proxy/proxy-socks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        size_t used = 0;
        int m = cordon_proxy_socks_greeting(data, size, &used);
        FUZZ_CHECK(m == CORDON_SOCKS_METHOD_NOAUTH || m == CORDON_SOCKS_METHOD_NONE ||
                   m == -EAGAIN || m == -EPROTO);
        if (m < 0)
                return 0;
        FUZZ_CHECK(used >= 2 && used <= size && used == 2 + (size_t)data[1]);

        const uint8_t *q = data + used;
        size_t n = size - used;
        struct cordon_proxy_socks_request req;
        int r = cordon_proxy_socks_request(q, n, &req);
        FUZZ_CHECK(r == 0 || r == -EAGAIN || r == -EINVAL);
        if (r == -EINVAL)
                FUZZ_CHECK(req.reason && req.reply >= CORDON_SOCKS_GENERAL_FAILURE &&
                           req.reply <= CORDON_SOCKS_ATYP_UNSUPPORTED);
        if (r == 0) {
                FUZZ_CHECK(req.used >= 8 && req.used <= n); /* a one-byte name */
                FUZZ_CHECK(req.target.port != 0);
                size_t hl = strnlen(req.target.host, sizeof(req.target.host));
                FUZZ_CHECK(hl > 0 && hl < sizeof(req.target.host));
                if (!req.target.is_addr) {
                        char again[CORDON_NET_NAME_MAX + 1];
                        FUZZ_CHECK(cordon_net_name_normalize(req.target.host, hl, again) == 0);
                        FUZZ_CHECK(strcmp(again, req.target.host) == 0);
                }
                /* Every shorter prefix is incomplete. */
                for (size_t k = 0; k < req.used; k++) {
                        struct cordon_proxy_socks_request p;
                        int rk = cordon_proxy_socks_request(q, k, &p);
                        FUZZ_CHECK(rk == -EAGAIN || rk == -EINVAL);
                }
        }
        uint8_t out[CORDON_SOCKS_REPLY_MAX];
        size_t len =
            cordon_proxy_socks_reply(r == 0 ? CORDON_SOCKS_OK : req.reply,
                                     r == 0 && req.target.is_addr ? &req.target.addr : NULL,
                                     r == 0 ? req.target.port : 0, out);
        FUZZ_CHECK(len == 10 || len == 22);
        return 0;
}
