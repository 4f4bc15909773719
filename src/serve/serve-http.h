/* cordon-serve's HTTP side: libmicrohttpd in external epoll mode on a listening socket, the
 * peer check or the bearer token per connection, a request's body, and its answer, given at
 * once or later (the connection suspended meanwhile). The routes are serve-routes.c's. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve/serve-loop.h"
#include "serve/wire.h"

struct serve_http;
struct serve_holders;
struct serve_store;
struct serve_route;
struct serve_call;
struct MHD_Connection;
struct MHD_Response;

/* What the daemon answers from; owned by the caller, outliving every serve_http. */
struct serve_ctx {
        struct serve_capabilities caps;
        struct serve_holders *holders;
        struct serve_store *store;
};

/* Serves on listening socket @fd (not owned; closed by the caller after serve_http_free()).
 * @token: NULL for the unix socket, whose peers are checked (serve-peer.h); else the bearer
 * token every request on this (TCP) socket must carry. Adds itself to @loop. 0 or -errno. */
int serve_http_new(struct serve_loop *loop, int fd, const char *token,
                   const struct serve_ctx *state, struct serve_http **ret);
/* Stops listening and closes every connection; what the routes wait for is cancelled first.
 * Accepts NULL. */
struct serve_http *serve_http_free(struct serve_http *h);
/* For the loop's tick: milliseconds until libmicrohttpd needs a turn (-1 none), and its turn. */
int64_t serve_http_timeout(struct serve_http *h);
int serve_http_run(struct serve_http *h);

/* The constant-time comparison of an Authorization header with @token (exported for tests). */
bool serve_http_bearer_ok(const char *header, const char *token);

/* One request, as the routes see it. */
#define SERVE_PARAMS_MAX 2
struct serve_request {
        struct serve_http *http;
        const struct serve_ctx *ctx;
        struct MHD_Connection *conn;
        const struct serve_route *route;
        const char *method;
        char *params[SERVE_PARAMS_MAX]; /* the path's {id} and {pid}, percent-decoded */
        char *body;                     /* NUL-terminated; NULL when none */
        size_t len;
        /* The route's own state, released with @state_free when the request ends (the
         * connection closed, or the daemon stopping): it cancels what the route waits for. */
        void *state;
        void (*state_free)(struct serve_request *r);
        struct serve_call *call; /* the holder call it waits for, cancelled at the end */
        unsigned ok_status;      /* the status of a holder's result (0: 200) */
        /* The answer. */
        bool done, answered, started, suspended;
        unsigned status;
        json_t *answer;                /* NULL: no body (204) */
        struct MHD_Response *response; /* a prepared one instead (a stream) */
        struct serve_request *prev, *next;
};

/* The answer of @r: @status with @answer (stolen; NULL: no body). Given during the route's
 * handler, it goes out when the handler returns; later, the connection is resumed for it. */
void serve_request_answer(struct serve_request *r, unsigned status, json_t *answer);
/* The error of @e as the answer. */
void serve_request_fail(struct serve_request *r, const struct serve_error *e);
/* A response of the route's making (stolen), e.g. a stream. */
void serve_request_answer_response(struct serve_request *r, unsigned status,
                                   struct MHD_Response *response);
/* For a stream's content reader: the connection waits (no busy loop), until _resume(). */
void serve_request_suspend(struct serve_request *r);
void serve_request_resume(struct serve_request *r);
/* The query argument @key (percent-decoded, malloc'd) in *@ret; 0, -ENOENT, -EINVAL (a bad
 * escape or a NUL), -ENOMEM. */
int serve_request_query(struct serve_request *r, const char *key, char **ret);
