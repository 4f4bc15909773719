/* cordon-serve's HTTP glue (see serve-http.h): libmicrohttpd driven from our epoll loop, one
 * route table matched by exact method and path, every answer JSON. Nothing here logs a request
 * body or a header's value. */
#include <errno.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>

#include "serve/serve-body.h"
#include "serve/serve-holders.h"
#include "serve/serve-http.h"
#include "serve/serve-routes.h"
#include "serve/serve-peer.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"

/* Connections at once per socket, seconds of idleness before one is closed, and the bytes a
 * connection's request line and headers may take. */
#define SERVE_CONNECTIONS_MAX 256
#define SERVE_IDLE_SECONDS    60
#define SERVE_HEADER_BYTES    (64u << 10)

struct serve_http {
        struct MHD_Daemon *d;
        const char *token; /* NULL: the unix socket, peers checked */
        const struct serve_ctx *state;
        struct serve_request *requests; /* every request not yet completed */
        bool resumed;                   /* a connection was resumed since the last turn */
};

/* Per connection (socket_context): the peer check's verdict, decided at accept. */
struct serve_conn {
        bool refused;
        char why[256];
};

/* Queues @status with JSON document @j (stolen; NULL: no body, as for 204). */
static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, json_t *j, bool close,
                               const char *allow)
{
        char *body = NULL;
        size_t len = 0;
        if (j) {
                char *text = serve_json_dump(j);
                if (!text)
                        return MHD_NO;
                len = strlen(text);
                /* A newline after the document, as curl users expect. */
                body = realloc(text, len + 2);
                if (!body) {
                        free(text);
                        return MHD_NO;
                }
                body[len++] = '\n';
                body[len] = 0;
        }
        struct MHD_Response *resp =
            body ? MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE)
                 : MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        if (!resp) {
                free(body);
                return MHD_NO;
        }
        if (body)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
        if (close)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
        if (allow)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
        if (status == MHD_HTTP_UNAUTHORIZED)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
        enum MHD_Result ret = MHD_queue_response(c, status, resp);
        MHD_destroy_response(resp);
        return ret;
}

/* An error document with @status (which may differ from the kind's own: 401, 403, 404, 405). */
_printf_(5, 6) static enum MHD_Result
    respond_error(struct MHD_Connection *c, unsigned status, bool close, const char *allow,
                  const char *fmt, ...)
{
        struct serve_error e;
        char msg[sizeof(e.message)];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        serve_error_set(&e, SERVE_ERR_INVALID_REQUEST, "%s", msg);
        return respond(c, status, serve_error_to_json(&e), close, allow);
}

bool serve_http_bearer_ok(const char *header, const char *token)
{
        if (!header || strncasecmp(header, "Bearer ", 7) != 0)
                return false;
        const char *given = header + 7;
        size_t a = strlen(given), b = strlen(token);
        /* Every byte of the token is looked at whatever the header holds: the time taken says
         * nothing of how much of it matched. */
        unsigned char diff = a != b;
        for (size_t i = 0; i < b; i++)
                diff |= (unsigned char)token[i] ^ (unsigned char)(i < a ? given[i] : 0);
        return diff == 0;
}

/* A text fit for a log line: at most 64 bytes of @s, bytes outside printable ASCII as '?'. */
static void log_safe(const char *s, char *buf, size_t n)
{
        size_t i = 0;
        for (; s && s[i] && i + 4 < n && i < 64; i++)
                buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
        if (s && s[i] && i + 4 < n) {
                memcpy(buf + i, "...", 3);
                i += 3;
        }
        buf[i] = 0;
}

/* The answer of @r goes out; the line logged names the method, the route, the status and the
 * session, never a body or a header's value. */
static enum MHD_Result queue_answer(struct serve_request *r)
{
        r->answered = true;
        char id[80] = "";
        if (r->params[0])
                log_safe(r->params[0], id, sizeof(id));
        log_info("%s %s %u%s%s", r->method, r->route->pattern, r->status,
                 !*id                                            ? ""
                 : startswith(r->route->pattern, "/v1/sessions") ? " session "
                                                                 : " snapshot ",
                 id);
        if (r->response) {
                enum MHD_Result ret = MHD_queue_response(r->conn, r->status, r->response);
                MHD_destroy_response(r->response);
                r->response = NULL;
                return ret;
        }
        return respond(r->conn, r->status, TAKE_PTR(r->answer), false, NULL);
}

void serve_request_answer(struct serve_request *r, unsigned status, json_t *answer)
{
        if (r->done) {
                json_decref(answer);
                return;
        }
        r->status = status;
        r->answer = answer;
        r->done = true;
        serve_request_resume(r);
}

void serve_request_fail(struct serve_request *r, const struct serve_error *e)
{
        serve_request_answer(r, serve_error_http_status(e->kind), serve_error_to_json(e));
}

void serve_request_answer_response(struct serve_request *r, unsigned status,
                                   struct MHD_Response *response)
{
        if (r->done) {
                MHD_destroy_response(response);
                return;
        }
        r->status = status;
        r->response = response;
        r->done = true;
        serve_request_resume(r);
}

void serve_request_suspend(struct serve_request *r)
{
        if (!r->suspended) {
                r->suspended = true;
                MHD_suspend_connection(r->conn);
        }
}

void serve_request_resume(struct serve_request *r)
{
        if (r->suspended) {
                r->suspended = false;
                r->http->resumed = true;
                MHD_resume_connection(r->conn);
        }
}

int serve_request_query(struct serve_request *r, const char *key, char **ret)
{
        const char *v = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
        if (!v)
                return -ENOENT;
        return serve_percent_decode(v, strlen(v), ret);
}

static void request_free(struct serve_request *r)
{
        struct serve_http *h = r->http;
        if (r->state_free)
                r->state_free(r);
        serve_call_cancel(r->call);
        if (r->prev)
                r->prev->next = r->next;
        else
                h->requests = r->next;
        if (r->next)
                r->next->prev = r->prev;
        for (size_t i = 0; i < SERVE_PARAMS_MAX; i++)
                free(r->params[i]);
        json_decref(r->answer);
        if (r->response)
                MHD_destroy_response(r->response);
        free(r->body);
        free(r);
}

/* The request's first call: its line and headers, no byte of its body yet. Answers the refusals
 * at once; returns with the route chosen otherwise. */
static enum MHD_Result request_begin(struct serve_http *h, struct serve_request *r,
                                     struct MHD_Connection *c, const char *url, const char *method)
{
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        const struct serve_conn *conn = ci ? ci->socket_context : NULL;
        r->answered = true;
        if (!h->token && (!conn || conn->refused))
                return respond_error(c, MHD_HTTP_FORBIDDEN, true, NULL,
                                     "this socket does not serve sandboxed processes: %s",
                                     conn ? conn->why : "unchecked peer");
        if (h->token &&
            !serve_http_bearer_ok(
                MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
                h->token))
                return respond_error(c, MHD_HTTP_UNAUTHORIZED, true, NULL,
                                     "a valid 'Authorization: Bearer' token is required");
        bool known;
        char allow[128];
        int k = serve_route_match(method, url, &r->route, r->params, &known, allow, sizeof(allow));
        if (k == -ENOMEM)
                return MHD_NO;
        if (k == -EINVAL)
                return respond_error(c, MHD_HTTP_BAD_REQUEST, false, NULL,
                                     "the path's percent-encoding is malformed");
        if (k == 0 && !known)
                return respond_error(c, MHD_HTTP_NOT_FOUND, false, NULL, "no such route");
        if (k == 0)
                return respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, false, allow,
                                     "method %s is not allowed here (allowed: %s)", method, allow);
        /* A body announced over the limit is refused before any of it is read. */
        const char *cl =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > SERVE_BODY_MAX)
                return respond_error(c, MHD_HTTP_BAD_REQUEST, true, NULL,
                                     "the request body is larger than %u bytes", SERVE_BODY_MAX);
        r->answered = false;
        return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
        struct serve_http *h = cls;
        struct serve_request *r = *con_cls;

        if (!r) {
                r = calloc(1, sizeof(*r));
                if (!r)
                        return MHD_NO;
                *r = (struct serve_request){
                    .http = h, .ctx = h->state, .conn = c, .method = method, .next = h->requests};
                if (h->requests)
                        h->requests->prev = r;
                h->requests = r;
                *con_cls = r;
                return request_begin(h, r, c, url, method);
        }
        if (r->answered) {
                /* The body of a request already answered is discarded unread. */
                *upload_data_size = 0;
                return MHD_YES;
        }
        if (*upload_data_size > 0) {
                if (*upload_data_size > SERVE_BODY_MAX - r->len) {
                        /* Chunked, without a length: over the limit as it comes. */
                        *upload_data_size = 0;
                        r->answered = true;
                        return respond_error(c, MHD_HTTP_BAD_REQUEST, true, NULL,
                                             "the request body is larger than %u bytes",
                                             SERVE_BODY_MAX);
                }
                char *b = realloc(r->body, r->len + *upload_data_size + 1);
                if (!b)
                        return MHD_NO;
                memcpy(b + r->len, upload_data, *upload_data_size);
                r->len += *upload_data_size;
                b[r->len] = 0;
                r->body = b;
                *upload_data_size = 0;
                return MHD_YES;
        }
        if (!r->started) {
                r->started = true;
                r->route->handler(r);
        }
        if (r->done)
                return queue_answer(r);
        /* The answer comes later: the connection waits, out of the loop, until it does. */
        serve_request_suspend(r);
        return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
        struct serve_request *r = *con_cls;
        if (r) {
                request_free(r);
                *con_cls = NULL;
        }
}

/* At accept, before a byte is read: the peer check (unix socket only). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
        struct serve_http *h = cls;
        if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
                free(*socket_context);
                *socket_context = NULL;
                return;
        }
        if (h->token)
                return;
        struct serve_conn *conn = calloc(1, sizeof(*conn));
        if (!conn)
                return; /* no context: refused in on_request */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        int r = ci ? serve_peer_check(ci->connect_fd, conn->why, sizeof(conn->why)) : -EBADF;
        if (r < 0)
                snprintf(conn->why, sizeof(conn->why), "the peer check failed: %s", strerror(-r));
        conn->refused = r != 1;
        if (conn->refused)
                log_warning("refused a connection: %s", conn->why);
        *socket_context = conn;
}

_printf_(2, 0) static void mhd_log(void *cls, const char *fmt, va_list ap)
{
        char buf[512];
        vsnprintf(buf, sizeof(buf), fmt, ap);
        buf[strcspn(buf, "\n")] = 0;
        log_warning("http: %s", buf);
}

/* The path reaches us as sent: serve_route_match() splits it on '/' first and decodes each
 * segment after, so that an id holding "%2F" is one segment. Query values are decoded by
 * serve_request_query(). */
static size_t no_unescape(void *cls, struct MHD_Connection *c, char *s)
{
        return strlen(s);
}

static int on_epoll(int fd, uint32_t events, void *userdata)
{
        return serve_http_run(userdata);
}

int serve_http_new(struct serve_loop *loop, int fd, const char *token,
                   const struct serve_ctx *state, struct serve_http **ret)
{
        struct serve_http *h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        h->token = token;
        h->state = state;
        /* The logger first: libmicrohttpd logs the options after it with its own. */
        h->d = MHD_start_daemon(
            MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL, on_request,
            h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_UNESCAPE_CALLBACK, no_unescape,
            NULL, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_NOTIFY_CONNECTION,
            on_connection, h, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVE_CONNECTIONS_MAX,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_IDLE_SECONDS,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_HEADER_BYTES, MHD_OPTION_END);
        if (!h->d) {
                free(h);
                return -EIO;
        }
        const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
        int r = di ? serve_loop_add(loop, di->epoll_fd, EPOLLIN, on_epoll, h, NULL) : -EIO;
        if (r < 0) {
                serve_http_free(h);
                return r;
        }
        *ret = h;
        return 0;
}

struct serve_http *serve_http_free(struct serve_http *h)
{
        if (h) {
                /* What the routes wait for is cancelled, and every suspended connection resumed:
                 * libmicrohttpd must not be stopped with one suspended. */
                for (struct serve_request *r = h->requests; r; r = r->next) {
                        if (r->state_free)
                                r->state_free(r);
                        r->state_free = NULL;
                        serve_call_cancel(r->call);
                        r->call = NULL;
                        serve_request_resume(r);
                }
                /* The listening socket stays the caller's: quiesced, MHD leaves it open. */
                if (h->d) {
                        (void)MHD_quiesce_daemon(h->d);
                        MHD_stop_daemon(h->d);
                }
                free(h);
        }
        return NULL;
}

int64_t serve_http_timeout(struct serve_http *h)
{
        if (h->resumed)
                return 0; /* a resumed connection's answer waits for the next turn */
        /* MHD_get_timeout64() came with 0.9.76; Debian 12 has 0.9.75, whose call is this. */
        MHD_UNSIGNED_LONG_LONG ms;
        if (MHD_get_timeout(h->d, &ms) != MHD_YES)
                return -1;
        return ms > INT64_MAX ? INT64_MAX : (int64_t)ms;
}

int serve_http_run(struct serve_http *h)
{
        h->resumed = false;
        return MHD_run(h->d) == MHD_YES ? 0 : -EIO;
}
