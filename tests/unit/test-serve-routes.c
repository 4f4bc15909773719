/* Unit tests for src/serve/serve-routes.c's route matching: every route of the contract by its
 * method and path, the path's parameters percent-decoded after the split (an id may hold a
 * '/'), a known path with another method (405's Allow), and what matches nothing. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-routes.h"

static int match(const char *method, const char *path, const struct serve_route **r,
                 char *params[SERVE_PARAMS_MAX], bool *known, char *allow)
{
        memset(params, 0, SERVE_PARAMS_MAX * sizeof(char *));
        return serve_route_match(method, path, r, params, known, allow, 128);
}

static void free_params(char *params[SERVE_PARAMS_MAX])
{
        for (size_t i = 0; i < SERVE_PARAMS_MAX; i++)
                free(params[i]);
}

/* @method @path matches the route whose pattern is @pattern, with parameters @p0 and @p1. */
static void matches(const char *method, const char *path, const char *pattern, const char *p0,
                    const char *p1)
{
        const struct serve_route *r = NULL;
        char *params[SERVE_PARAMS_MAX];
        bool known;
        char allow[128];
        cr_assert_eq(match(method, path, &r, params, &known, allow), 1, "%s %s", method, path);
        cr_assert_str_eq(r->pattern, pattern);
        cr_assert_str_eq(r->method, method);
        if (p0)
                cr_assert_str_eq(params[0], p0);
        else
                cr_assert_null(params[0]);
        if (p1)
                cr_assert_str_eq(params[1], p1);
        else
                cr_assert_null(params[1]);
        free_params(params);
}

Test(serve_routes, every_route)
{
        matches("GET", "/v1/capabilities", "/v1/capabilities", NULL, NULL);
        matches("POST", "/v1/sessions", "/v1/sessions", NULL, NULL);
        matches("GET", "/v1/sessions", "/v1/sessions", NULL, NULL);
        matches("GET", "/v1/sessions/s1", "/v1/sessions/{id}", "s1", NULL);
        matches("DELETE", "/v1/sessions/s1", "/v1/sessions/{id}", "s1", NULL);
        matches("POST", "/v1/sessions/s1/exec", "/v1/sessions/{id}/exec", "s1", NULL);
        matches("POST", "/v1/sessions/s1/mounts", "/v1/sessions/{id}/mounts", "s1", NULL);
        matches("PUT", "/v1/sessions/s1/network-policy", "/v1/sessions/{id}/network-policy", "s1",
                NULL);
        matches("POST", "/v1/sessions/s1/snapshot", "/v1/sessions/{id}/snapshot", "s1", NULL);
        matches("POST", "/v1/sessions/s1/suspend", "/v1/sessions/{id}/suspend", "s1", NULL);
        matches("POST", "/v1/sessions/s1/resume", "/v1/sessions/{id}/resume", "s1", NULL);
        matches("POST", "/v1/sessions/s1/processes", "/v1/sessions/{id}/processes", "s1", NULL);
        matches("GET", "/v1/sessions/s1/processes", "/v1/sessions/{id}/processes", "s1", NULL);
        matches("GET", "/v1/sessions/s1/processes/p2/output",
                "/v1/sessions/{id}/processes/{pid}/output", "s1", "p2");
        matches("POST", "/v1/sessions/s1/processes/p2/stdin",
                "/v1/sessions/{id}/processes/{pid}/stdin", "s1", "p2");
        matches("POST", "/v1/sessions/s1/processes/p2/signal",
                "/v1/sessions/{id}/processes/{pid}/signal", "s1", "p2");
        matches("POST", "/v1/sessions/s1/processes/p2/resize",
                "/v1/sessions/{id}/processes/{pid}/resize", "s1", "p2");
        matches("GET", "/v1/snapshots", "/v1/snapshots", NULL, NULL);
        matches("DELETE", "/v1/snapshots/abc", "/v1/snapshots/{id}", "abc", NULL);
}

Test(serve_routes, parameters_decoded_after_the_split)
{
        matches("GET", "/v1/sessions/a%2Fb", "/v1/sessions/{id}", "a/b", NULL);
        matches("POST", "/v1/sessions/a%2F..%2Fb/exec", "/v1/sessions/{id}/exec", "a/../b", NULL);
        matches("GET", "/v1/sessions/%20", "/v1/sessions/{id}", " ", NULL);
        matches("GET", "/v1/sessions/caf%C3%A9", "/v1/sessions/{id}", "caf\xc3\xa9", NULL);
        matches("GET", "/v1/sessions/..", "/v1/sessions/{id}", "..", NULL);
}

Test(serve_routes, malformed_escape)
{
        const struct serve_route *r = NULL;
        char *params[SERVE_PARAMS_MAX];
        bool known;
        char allow[128];
        cr_assert_eq(match("GET", "/v1/sessions/a%zz", &r, params, &known, allow), -EINVAL);
        cr_assert_eq(match("GET", "/v1/sessions/a%00b", &r, params, &known, allow), -EINVAL);
        /* Nothing allocated is left behind on a refusal of the second parameter. */
        cr_assert_eq(match("GET", "/v1/sessions/ok/processes/%/output", &r, params, &known, allow),
                     -EINVAL);
        cr_assert_null(params[0]);
        cr_assert_null(params[1]);
}

Test(serve_routes, other_method_and_nothing)
{
        const struct serve_route *r = NULL;
        char *params[SERVE_PARAMS_MAX];
        bool known;
        char allow[128];
        cr_assert_eq(match("PUT", "/v1/sessions", &r, params, &known, allow), 0);
        cr_assert(known);
        cr_assert_str_eq(allow, "POST, GET");
        cr_assert_eq(match("POST", "/v1/sessions/s1", &r, params, &known, allow), 0);
        cr_assert(known);
        cr_assert_str_eq(allow, "GET, DELETE");
        const char *none[] = {"/v1/sessions/",
                              "/v1/sessions//exec",
                              "v1/sessions",
                              "/v1/sessions/s1/exec/",
                              "/v1/sessions/s1/nope",
                              "/v2/sessions",
                              "/",
                              "",
                              "/v1/snapshots/a/b",
                              "/v1/sessions/s1/processes/p1"};
        for (size_t i = 0; i < sizeof(none) / sizeof(*none); i++) {
                cr_assert_eq(match("GET", none[i], &r, params, &known, allow), 0, "%s", none[i]);
                cr_assert_not(known, "%s", none[i]);
                cr_assert_str_eq(allow, "");
        }
}
