/* The proxy's HTTP front end: a pure parser of one request head sent to a proxy, either
 * `CONNECT host:port` or an absolute-URI request (`GET http://host[:port]/path HTTP/1.1`),
 * which it rewrites into the origin-form head to send upstream. Thread-safe, no I/O.
 *
 * What it refuses, and with which status: an over-long head (431); NUL, control bytes, bare LF,
 * obs-fold, malformed request lines and header fields, origin-form and asterisk-form targets,
 * schemes other than http (400); a bad or missing port, a duplicate Host or Content-Length
 * (400); userinfo in the URI and a Host header that disagrees with the request target, a host
 * that is no valid name nor canonical address (403); Transfer-Encoding on a request (411: a
 * body is only forwarded when Content-Length frames it, so nothing after it can be smuggled
 * to the origin as a second request); a body on CONNECT (400). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "lib/proxy/proxy-target.h"

#define CORDON_PROXY_HTTP_DEFAULT_PORT 80

struct cordon_proxy_http_request {
        bool connect;                      /* CONNECT: tunnel; otherwise forward */
        struct cordon_proxy_target target; /* where to connect */
        size_t head_len;                   /* bytes of the head, final CRLF CRLF included */
        uint64_t body_len;                 /* forward: the Content-Length, 0 without */
        char *forward;                     /* forward: the origin-form head to send upstream */
        size_t forward_len;
        /* forward: where the target's path and query begin in the parsed buffer (after the
         * authority of the absolute URI) and how long they are, as received: what the rules'
         * path entries are matched against (cordon_net_rules_check_request()). */
        size_t path_off, path_len;
        /* On refusal: the HTTP status to answer and a one-line reason (static text). */
        int status;
        const char *reason;
};

/* Parses the request head at the start of @buf (@len bytes received so far; the head may not
 * be longer than @max bytes). Returns 0 with @ret filled (@ret->forward allocated: release
 * with cordon_proxy_http_request_clear()); -EAGAIN when the head is not complete yet; -EINVAL
 * when it is refused, with @ret->status and @ret->reason set; -ENOMEM. */
int cordon_proxy_http_parse(const char *buf, size_t len, size_t max,
                            struct cordon_proxy_http_request *ret);
void cordon_proxy_http_request_clear(struct cordon_proxy_http_request *req);

/* Formats a complete response with @status, its reason phrase, `Connection: close` and
 * @body_line plus a newline as text/plain body into @out (@size bytes). Returns the length
 * (truncating @body_line when needed). */
size_t cordon_proxy_http_response(int status, const char *body_line, char *out, size_t size);
/* The same with @phrase as the reason phrase (a refusal that says why where clients show it:
 * Python's "Tunnel connection failed: 403 ...", git's and pip's errors). Bytes a reason phrase
 * may not hold (controls, DEL, non-ASCII) become '?', and it is cut at 300 bytes; NULL: the
 * standard phrase. */
size_t cordon_proxy_http_response_why(int status, const char *phrase, const char *body_line,
                                      char *out, size_t size);
