/* cordon-serve's routes (issue 26): the table of the session contract's routes and their
 * handlers, each a thin translation of a request into a call of the session's holder (or an
 * answer from the store), with every error kind and its status. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "serve/serve-http.h"

/* Answers @r, at once or later (serve_request_answer() and friends). */
typedef void (*serve_handler)(struct serve_request *r);

struct serve_route {
        const char *method;
        const char *pattern; /* "/v1/sessions/{id}/exec": {x} is one non-empty segment */
        serve_handler handler;
};

/* The route for raw path @path (as sent, not yet percent-decoded) and @method: 1 with *@ret and
 * the parameters percent-decoded into @params (malloc'd, the rest NULL); 0 when none, with
 * *@path_known telling whether the path has other methods (listed in @allow); -EINVAL when a
 * parameter's percent-encoding is malformed or decodes to a NUL; -ENOMEM. */
int serve_route_match(const char *method, const char *path, const struct serve_route **ret,
                      char *params[SERVE_PARAMS_MAX], bool *path_known, char *allow, size_t n);
