/* The proxy's SOCKS5 front end (RFC 1928): a pure parser of the method greeting and the
 * request, and the reply encoder. Only the no-authentication method and CONNECT are offered;
 * BIND and UDP ASSOCIATE are refused with reply 0x07. Thread-safe, no I/O. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "lib/proxy/proxy-target.h"

#define CORDON_SOCKS_VERSION       0x05
#define CORDON_SOCKS_METHOD_NOAUTH 0x00
#define CORDON_SOCKS_METHOD_NONE   0xff /* no acceptable method */
#define CORDON_SOCKS_REPLY_MAX     22   /* a reply with an IPv6 bound address */

enum cordon_socks_reply {
        CORDON_SOCKS_OK = 0x00,
        CORDON_SOCKS_GENERAL_FAILURE = 0x01,
        CORDON_SOCKS_NOT_ALLOWED = 0x02, /* refused by the rules */
        CORDON_SOCKS_NET_UNREACHABLE = 0x03,
        CORDON_SOCKS_HOST_UNREACHABLE = 0x04,
        CORDON_SOCKS_REFUSED = 0x05,
        CORDON_SOCKS_TTL_EXPIRED = 0x06,
        CORDON_SOCKS_CMD_UNSUPPORTED = 0x07,
        CORDON_SOCKS_ATYP_UNSUPPORTED = 0x08,
};

/* Parses the greeting (VER NMETHODS METHODS...) at the start of @buf. Returns the method to
 * answer (CORDON_SOCKS_METHOD_NOAUTH, or CORDON_SOCKS_METHOD_NONE when the client does not
 * offer it: answer it, then close) with *@ret_used set to the greeting's length; -EAGAIN when
 * incomplete; -EPROTO when the version is not 5. */
int cordon_proxy_socks_greeting(const uint8_t *buf, size_t len, size_t *ret_used);

struct cordon_proxy_socks_request {
        struct cordon_proxy_target target;
        size_t used;                   /* bytes of the request */
        enum cordon_socks_reply reply; /* on refusal: the reply code to send */
        const char *reason;            /* on refusal: static text */
};

/* Parses the request (VER CMD RSV ATYP DST.ADDR DST.PORT) at the start of @buf. A domain
 * name is normalised; a name that is a canonical IP literal becomes that address, a lenient
 * numeric form ("127.1") is refused. Returns 0; -EAGAIN when incomplete; -EINVAL with
 * @ret->reply and @ret->reason set (0x07 for BIND and UDP ASSOCIATE, 0x08 for an unknown
 * address type, 0x02 for a name that is not a valid name, 0x01 for a malformed request). */
int cordon_proxy_socks_request(const uint8_t *buf, size_t len,
                               struct cordon_proxy_socks_request *ret);

/* Encodes a reply with @code and the bound address @bound:@port (NULL: 0.0.0.0:0) into @out.
 * Returns its length. */
size_t cordon_proxy_socks_reply(enum cordon_socks_reply code, const struct cordon_net_addr *bound,
                                uint16_t port, uint8_t out[CORDON_SOCKS_REPLY_MAX]);
