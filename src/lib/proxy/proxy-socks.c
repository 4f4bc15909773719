/* SOCKS5 greeting and request parsing for cordon's egress proxy (RFC 1928, no
 * authentication, CONNECT only). */
#include <errno.h>
#include <string.h>

#include "lib/proxy/proxy-socks.h"
#include "shared/macro.h"

int cordon_proxy_socks_greeting(const uint8_t *buf, size_t len, size_t *ret_used)
{
        if (len < 1)
                return -EAGAIN;
        if (buf[0] != CORDON_SOCKS_VERSION)
                return -EPROTO;
        if (len < 2 || len < 2 + (size_t)buf[1])
                return -EAGAIN;
        *ret_used = 2 + (size_t)buf[1];
        for (size_t i = 0; i < buf[1]; i++)
                if (buf[2 + i] == CORDON_SOCKS_METHOD_NOAUTH)
                        return CORDON_SOCKS_METHOD_NOAUTH;
        return CORDON_SOCKS_METHOD_NONE;
}

static int refuse(struct cordon_proxy_socks_request *req, enum cordon_socks_reply code,
                  const char *reason)
{
        req->reply = code;
        req->reason = reason;
        return -EINVAL;
}

int cordon_proxy_socks_request(const uint8_t *buf, size_t len,
                               struct cordon_proxy_socks_request *ret)
{
        struct cordon_proxy_socks_request *req = ret;
        size_t alen, off;

        *req = (struct cordon_proxy_socks_request){};
        if (len < 4)
                return -EAGAIN;
        if (buf[0] != CORDON_SOCKS_VERSION || buf[2] != 0)
                return refuse(req, CORDON_SOCKS_GENERAL_FAILURE, "malformed SOCKS5 request");
        switch (buf[1]) {
        case 0x01:
                break;
        case 0x02:
                return refuse(req, CORDON_SOCKS_CMD_UNSUPPORTED, "SOCKS5 BIND is refused");
        case 0x03:
                return refuse(req, CORDON_SOCKS_CMD_UNSUPPORTED, "SOCKS5 UDP ASSOCIATE is refused");
        default:
                return refuse(req, CORDON_SOCKS_CMD_UNSUPPORTED, "unknown SOCKS5 command");
        }
        switch (buf[3]) {
        case 0x01:
                alen = 4;
                off = 4;
                break;
        case 0x04:
                alen = 16;
                off = 4;
                break;
        case 0x03:
                if (len < 5)
                        return -EAGAIN;
                alen = buf[4];
                off = 5;
                if (alen == 0)
                        return refuse(req, CORDON_SOCKS_NOT_ALLOWED, "empty SOCKS5 host name");
                break;
        default:
                return refuse(req, CORDON_SOCKS_ATYP_UNSUPPORTED, "unknown SOCKS5 address type");
        }
        if (len < off + alen + 2)
                return -EAGAIN;

        struct cordon_proxy_target *t = &req->target;
        if (buf[3] == 0x03) {
                if (cordon_proxy_target_set_host(t, (const char *)buf + off, alen, false) < 0)
                        return refuse(req, CORDON_SOCKS_NOT_ALLOWED,
                                      "the host is no valid name or canonical address");
        } else {
                t->is_addr = true;
                t->addr.family = alen == 4 ? AF_INET : AF_INET6;
                memcpy(alen == 4 ? (void *)&t->addr.v4 : (void *)&t->addr.v6, buf + off, alen);
                cordon_net_addr_format(&t->addr, t->host, sizeof(t->host));
        }
        t->port = (uint16_t)(buf[off + alen] << 8 | buf[off + alen + 1]);
        if (t->port == 0)
                return refuse(req, CORDON_SOCKS_NOT_ALLOWED, "port 0 is refused");
        req->used = off + alen + 2;
        return 0;
}

size_t cordon_proxy_socks_reply(enum cordon_socks_reply code, const struct cordon_net_addr *bound,
                                uint16_t port, uint8_t out[CORDON_SOCKS_REPLY_MAX])
{
        size_t n = 4;
        out[0] = CORDON_SOCKS_VERSION;
        out[1] = (uint8_t)code;
        out[2] = 0;
        if (bound && bound->family == AF_INET6) {
                out[3] = 0x04;
                memcpy(out + 4, &bound->v6, 16);
                n += 16;
        } else {
                out[3] = 0x01;
                if (bound)
                        memcpy(out + 4, &bound->v4, 4);
                else
                        memset(out + 4, 0, 4);
                n += 4;
        }
        out[n++] = (uint8_t)(port >> 8);
        out[n++] = (uint8_t)port;
        return n;
}
