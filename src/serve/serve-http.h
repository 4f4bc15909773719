/* cordon-serve's HTTP side: libmicrohttpd in external epoll mode on a listening socket, the
 * peer check or the bearer token per connection, and the route table. */
#pragma once

#include <stdbool.h>

#include "serve/serve-loop.h"
#include "serve/wire.h"

struct serve_http;

/* What the daemon answers from; owned by the caller, outliving every serve_http. */
struct serve_ctx {
        struct serve_capabilities caps;
};

/* Serves on listening socket @fd (not owned; closed by the caller after serve_http_free()).
 * @token: NULL for the unix socket, whose peers are checked (serve-peer.h); else the bearer
 * token every request on this (TCP) socket must carry. Adds itself to @loop. 0 or -errno. */
int serve_http_new(struct serve_loop *loop, int fd, const char *token,
                   const struct serve_ctx *state, struct serve_http **ret);
/* Stops listening and closes every connection. Accepts NULL. */
struct serve_http *serve_http_free(struct serve_http *h);
/* For the loop's tick: milliseconds until libmicrohttpd needs a turn (-1 none), and its turn. */
int64_t serve_http_timeout(struct serve_http *h);
int serve_http_run(struct serve_http *h);

/* The constant-time comparison of an Authorization header with @token (exported for tests). */
bool serve_http_bearer_ok(const char *header, const char *token);
