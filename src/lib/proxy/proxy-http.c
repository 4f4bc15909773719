/* Parser of the request head a client sends to cordon's egress proxy (see proxy-http.h for
 * what it accepts and refuses). Strict on purpose: whatever two HTTP parsers could read
 * differently (obs-fold, bare LF, duplicate Host or Content-Length, Transfer-Encoding) is
 * refused rather than normalised, so the proxy and the origin always agree on the target. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/proxy/proxy-http.h"
#include "shared/macro.h"

static int refuse(struct cordon_proxy_http_request *req, int status, const char *reason)
{
        free(req->forward);
        req->forward = NULL;
        req->status = status;
        req->reason = reason;
        return -EINVAL;
}

static bool is_tchar(unsigned char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Header fields not forwarded: hop-by-hop ones and the proxy's own. Connection: close is
 * added instead (one request per upstream connection). */
static bool is_hop_header(const char *name, size_t len)
{
        static const char *const hop[] = {"connection",
                                          "proxy-connection",
                                          "keep-alive",
                                          "proxy-authorization",
                                          "proxy-authenticate",
                                          "te",
                                          "trailer",
                                          "upgrade"};
        for (size_t i = 0; i < ELEMENTSOF(hop); i++)
                if (strlen(hop[i]) == len && strncasecmp(hop[i], name, len) == 0)
                        return true;
        return false;
}

static bool name_is(const char *name, size_t len, const char *want)
{
        return strlen(want) == len && strncasecmp(name, want, len) == 0;
}

/* Appends @n bytes to the forward head (sized for the head plus the additions). */
static void put(struct cordon_proxy_http_request *req, const char *s, size_t n)
{
        memcpy(req->forward + req->forward_len, s, n);
        req->forward_len += n;
}

static int parse_target(const char *t, size_t tlen, struct cordon_proxy_http_request *req,
                        const char **ret_path, size_t *ret_path_len)
{
        if (req->connect) {
                if (cordon_proxy_target_parse_authority(t, tlen, 0, &req->target) < 0)
                        return refuse(req, 400, "CONNECT needs host:port with a valid port");
                return 0;
        }
        if (tlen > 0 && t[0] == '/')
                return refuse(req, 400, "origin-form request: a proxy needs an absolute URI");
        if (tlen < 7 || strncasecmp(t, "http://", 7) != 0)
                return refuse(req, 400, "only http:// URIs are forwarded (use CONNECT for TLS)");
        const char *a = t + 7, *end = t + tlen, *ae = a;
        while (ae < end && *ae != '/' && *ae != '?' && *ae != '#')
                ae++;
        if (memchr(a, '@', (size_t)(ae - a)))
                return refuse(req, 403, "userinfo in the request URI is refused");
        if (cordon_proxy_target_parse_authority(a, (size_t)(ae - a), CORDON_PROXY_HTTP_DEFAULT_PORT,
                                                &req->target) < 0)
                return refuse(req, 403, "the URI's host is no valid name or canonical address");
        if (ae < end && *ae == '#')
                return refuse(req, 400, "fragment in the request URI");
        *ret_path = ae;
        *ret_path_len = (size_t)(end - ae);
        return 0;
}

int cordon_proxy_http_parse(const char *buf, size_t len, size_t max,
                            struct cordon_proxy_http_request *ret)
{
        struct cordon_proxy_http_request *req = ret;
        size_t head = 0;

        *req = (struct cordon_proxy_http_request){};

        /* Find the end of the head, refusing bytes no head may hold on the way. */
        for (size_t i = 0; i < len && i < max; i++) {
                unsigned char c = (unsigned char)buf[i];
                if (c == '\n') {
                        if (i == 0 || buf[i - 1] != '\r')
                                return refuse(req, 400, "bare LF in the request head");
                        if (i >= 3 && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
                                head = i + 1;
                                break;
                        }
                } else if (c == '\r') {
                        if (i + 1 < len && buf[i + 1] != '\n')
                                return refuse(req, 400, "bare CR in the request head");
                } else if ((c < 0x20 && c != '\t') || c == 0x7f)
                        return refuse(req, 400, "NUL or control byte in the request head");
        }
        if (head == 0)
                return len >= max ? refuse(req, 431, "request head too long") : -EAGAIN;

        /* Request line: method SP target SP HTTP/1.x CRLF. */
        const char *p = buf, *eol = memchr(buf, '\r', head);
        const char *sp1 = memchr(p, ' ', (size_t)(eol - p));
        if (!sp1 || sp1 == p)
                return refuse(req, 400, "malformed request line");
        for (const char *m = p; m < sp1; m++)
                if (!is_tchar((unsigned char)*m))
                        return refuse(req, 400, "malformed request method");
        const char *t = sp1 + 1;
        const char *sp2 = memchr(t, ' ', (size_t)(eol - t));
        if (!sp2 || sp2 == t || (size_t)(eol - sp2 - 1) != 8 ||
            (strncmp(sp2 + 1, "HTTP/1.1", 8) != 0 && strncmp(sp2 + 1, "HTTP/1.0", 8) != 0))
                return refuse(req, 400, "malformed request line (HTTP/1.0 or 1.1 only)");
        for (const char *q = t; q < sp2; q++)
                if (*q == '\t' || (unsigned char)*q >= 0x80)
                        return refuse(req, 400, "malformed request target");
        req->connect = (size_t)(sp1 - p) == 7 && strncmp(p, "CONNECT", 7) == 0;

        const char *path = NULL;
        size_t path_len = 0;
        int r = parse_target(t, (size_t)(sp2 - t), req, &path, &path_len);
        if (r < 0)
                return r;

        if (!req->connect) {
                req->path_off = (size_t)(path - buf);
                req->path_len = path_len;
                /* The origin-form head is at most the head plus "/", a Host line and
                 * "Connection: close". */
                size_t cap = head + 1 + 8 + (size_t)(sp2 - t) + 2 + 19 + 2;
                req->forward = malloc(cap);
                if (!req->forward)
                        return -ENOMEM;
                put(req, p, (size_t)(sp1 - p) + 1);
                if (path_len == 0 || path[0] == '?')
                        put(req, "/", 1);
                put(req, path, path_len);
                put(req, sp2, (size_t)(eol - sp2) + 2);
        }

        /* Header fields. */
        bool have_host = false, have_length = false;
        for (const char *l = eol + 2; l < buf + head - 2;) {
                const char *le = memchr(l, '\r', (size_t)(buf + head - l));
                if (*l == ' ' || *l == '\t')
                        return refuse(req, 400, "obs-fold in the request head");
                const char *colon = memchr(l, ':', (size_t)(le - l));
                if (!colon || colon == l)
                        return refuse(req, 400, "malformed header field");
                for (const char *n = l; n < colon; n++)
                        if (!is_tchar((unsigned char)*n))
                                return refuse(req, 400, "malformed header field name");
                size_t nlen = (size_t)(colon - l);
                const char *v = colon + 1, *ve = le;
                while (v < ve && (*v == ' ' || *v == '\t'))
                        v++;
                while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
                        ve--;
                size_t vlen = (size_t)(ve - v);

                if (name_is(l, nlen, "host")) {
                        struct cordon_proxy_target h;
                        if (have_host)
                                return refuse(req, 400, "duplicate Host header");
                        have_host = true;
                        if (cordon_proxy_target_parse_authority(
                                v, vlen, req->connect ? req->target.port : 80, &h) < 0 ||
                            !cordon_proxy_target_equal(&h, &req->target))
                                return refuse(req, 403,
                                              "Host header disagrees with the request target");
                } else if (name_is(l, nlen, "transfer-encoding")) {
                        return refuse(req, 411,
                                      "Transfer-Encoding on a request is refused: send "
                                      "Content-Length");
                } else if (name_is(l, nlen, "content-length")) {
                        uint64_t n = 0;
                        if (have_length)
                                return refuse(req, 400, "duplicate Content-Length header");
                        have_length = true;
                        if (vlen == 0 || vlen > 18)
                                return refuse(req, 400, "malformed Content-Length");
                        for (size_t i = 0; i < vlen; i++) {
                                if (v[i] < '0' || v[i] > '9')
                                        return refuse(req, 400, "malformed Content-Length");
                                n = n * 10 + (uint64_t)(v[i] - '0');
                        }
                        if (req->connect && n > 0)
                                return refuse(req, 400, "CONNECT with a request body");
                        req->body_len = n;
                }
                if (!req->connect && !is_hop_header(l, nlen))
                        put(req, l, (size_t)(le - l) + 2);
                l = le + 2;
        }

        if (!req->connect) {
                if (!have_host) {
                        put(req, "Host: ", 6);
                        put(req, t + 7, (size_t)(path - t - 7));
                        put(req, "\r\n", 2);
                }
                put(req, "Connection: close\r\n\r\n", 21);
        }
        req->head_len = head;
        return 0;
}

void cordon_proxy_http_request_clear(struct cordon_proxy_http_request *req)
{
        free(req->forward);
        req->forward = NULL;
        req->forward_len = 0;
}

static const char *status_text(int status)
{
        switch (status) {
        case 200:
                return "Connection established";
        case 400:
                return "Bad Request";
        case 403:
                return "Forbidden";
        case 411:
                return "Length Required";
        case 431:
                return "Request Header Fields Too Large";
        case 502:
                return "Bad Gateway";
        case 503:
                return "Service Unavailable";
        case 504:
                return "Gateway Timeout";
        default:
                return "Error";
        }
}

size_t cordon_proxy_http_response(int status, const char *body_line, char *out, size_t size)
{
        return cordon_proxy_http_response_why(status, NULL, body_line, out, size);
}

size_t cordon_proxy_http_response_why(int status, const char *phrase, const char *body_line,
                                      char *out, size_t size)
{
        char clean[301];
        if (phrase) {
                size_t i = 0;
                for (; phrase[i] && i < sizeof(clean) - 1; i++) {
                        unsigned char ch = (unsigned char)phrase[i];
                        clean[i] = ch == '\t' || (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
                }
                clean[i] = 0;
        }
        if (status == 200) {
                int n = snprintf(out, size, "HTTP/1.1 200 %s\r\n\r\n", status_text(200));
                return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
        }
        size_t blen = strlen(body_line);
        if (blen > size / 2)
                blen = size / 2;
        int n =
            snprintf(out, size,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n%.*s\n",
                     status, phrase ? clean : status_text(status), blen + 1, (int)blen, body_line);
        return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
}
