/* Fuzz target for src/serve/wire-parse.c and wire-encode.c: the input is a request body for
 * each of the four parsers (the exec request with and without pty), and the bytes of an exec's
 * output. Checks: a parser answers 0, -EINVAL with an invalid_request message, or -ENOMEM; what
 * parsed encodes, and the encoding parses to the same encoding (the canonical form is a fixed
 * point); limits hold on what parsed; output text is valid JSON with the marker once when cut. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "serve/wire.h"

static void check_refusal(int r, const struct serve_error *err)
{
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
        if (r == -EINVAL) {
                FUZZ_CHECK(err->kind == SERVE_ERR_INVALID_REQUEST);
                FUZZ_CHECK(err->message[0] != 0);
                json_t *j = serve_error_to_json(err);
                char *s = serve_json_dump(j);
                FUZZ_CHECK(s); /* a message of the user's bytes still encodes */
                free(s);
        }
}

/* @text (the encoding of what parsed) parsed by @parse and encoded again is @text. */
#define CHECK_FIXED_POINT(type, parse_call, encode, clear)                                         \
        do {                                                                                       \
                struct type again;                                                                 \
                struct serve_error e2 = {};                                                        \
                const char *body = text;                                                           \
                size_t len = strlen(text);                                                         \
                int r2 = parse_call;                                                               \
                FUZZ_CHECK(r2 == 0 || r2 == -ENOMEM);                                              \
                if (r2 == 0) {                                                                     \
                        char *t2 = serve_json_dump(encode(&again));                                \
                        FUZZ_CHECK(!t2 || strcmp(t2, text) == 0);                                  \
                        free(t2);                                                                  \
                }                                                                                  \
                clear(&again);                                                                     \
        } while (0)

/* A normalised mount target: absolute, no trailing slash, no ".." component. */
static void check_target(const char *t)
{
        size_t n = strlen(t);
        FUZZ_CHECK(n > 0 && t[0] == '/' && t[n - 1] != '/');
        for (const char *c = t; c;) {
                c++;
                const char *next = strchr(c, '/');
                size_t seg = next ? (size_t)(next - c) : strlen(c);
                FUZZ_CHECK(!(seg == 2 && c[0] == '.' && c[1] == '.'));
                c = next;
        }
}

static void spec(const char *data, size_t size)
{
        struct serve_spec s;
        struct serve_error err = {};
        int r = serve_spec_parse(data, size, &s, &err);
        check_refusal(r, &err);
        if (r == 0) {
                FUZZ_CHECK(!s.session_id || strlen(s.session_id) <= SERVE_ID_MAX);
                FUZZ_CHECK(s.n_mounts <= SERVE_MOUNTS_MAX && s.n_labels <= SERVE_LABELS_MAX);
                FUZZ_CHECK(s.network.n_hosts <= SERVE_HOSTS_MAX);
                for (size_t i = 0; i < s.n_mounts; i++)
                        check_target(s.mounts[i].target);
                for (size_t i = 1; i < s.n_labels; i++)
                        FUZZ_CHECK(strcmp(s.labels[i - 1].key, s.labels[i].key) < 0);
                char *text = serve_json_dump(serve_spec_to_json(&s));
                if (text)
                        CHECK_FIXED_POINT(serve_spec, serve_spec_parse(body, len, &again, &e2),
                                          serve_spec_to_json, serve_spec_clear);
                free(text);
        }
        serve_spec_clear(&s);
}

static void mount(const char *data, size_t size)
{
        struct serve_mount m;
        struct serve_error err = {};
        int r = serve_mount_parse(data, size, &m, &err);
        check_refusal(r, &err);
        if (r == 0) {
                check_target(m.target);
                char *text = serve_json_dump(serve_mount_to_json(&m));
                if (text)
                        CHECK_FIXED_POINT(serve_mount, serve_mount_parse(body, len, &again, &e2),
                                          serve_mount_to_json, serve_mount_clear);
                free(text);
        }
        serve_mount_clear(&m);
}

static void policy(const char *data, size_t size)
{
        struct serve_network_policy p;
        struct serve_error err = {};
        int r = serve_network_policy_parse(data, size, &p, &err);
        check_refusal(r, &err);
        if (r == 0) {
                FUZZ_CHECK(p.limited || p.n_hosts == 0);
                for (size_t i = 0; i < p.n_hosts; i++)
                        FUZZ_CHECK(p.allowed_hosts[i][0] && strlen(p.allowed_hosts[i]) <= 253);
                char *text = serve_json_dump(serve_network_policy_to_json(&p));
                if (text)
                        CHECK_FIXED_POINT(serve_network_policy,
                                          serve_network_policy_parse(body, len, &again, &e2),
                                          serve_network_policy_to_json, serve_network_policy_clear);
                free(text);
        }
        serve_network_policy_clear(&p);
}

static void exec_request(const char *data, size_t size, bool allow_pty)
{
        struct serve_exec_request x;
        struct serve_error err = {};
        int r = serve_exec_request_parse(data, size, allow_pty, &x, &err);
        check_refusal(r, &err);
        if (r == 0) {
                FUZZ_CHECK(x.command && x.command[0]);
                FUZZ_CHECK(x.n_args <= SERVE_ARGS_MAX && x.n_env <= SERVE_ENV_MAX);
                FUZZ_CHECK(allow_pty || !x.pty);
                for (size_t i = 0; i < x.n_env; i++)
                        FUZZ_CHECK(strchr(x.env[i], '=') && x.env[i][0] != '=');
                char *text = serve_json_dump(serve_exec_request_to_json(&x));
                if (text)
                        CHECK_FIXED_POINT(
                            serve_exec_request,
                            serve_exec_request_parse(body, len, allow_pty, &again, &e2),
                            serve_exec_request_to_json, serve_exec_request_clear);
                free(text);
        }
        serve_exec_request_clear(&x);
}

static size_t count(const char *hay, size_t len, const char *needle)
{
        size_t n = 0, nl = strlen(needle);
        for (size_t i = 0; i + nl <= len; i++)
                n += memcmp(hay + i, needle, nl) == 0;
        return n;
}

/* The input as an exec's output, with a cap from its first byte. */
static void output(const uint8_t *data, size_t size)
{
        size_t cap = size ? data[0] % 64 : 0;
        json_t *j = serve_text_to_json((const char *)data, size, cap);
        if (!j)
                return;
        size_t len = json_string_length(j), marker = strlen(SERVE_TRUNCATED_MARKER);
        const char *s = json_string_value(j);
        size_t take = size < cap ? size : cap;
        FUZZ_CHECK(len <= 3 * take + (size > cap ? marker : 0));
        if (size > cap) {
                FUZZ_CHECK(len >= marker &&
                           memcmp(s + len - marker, SERVE_TRUNCATED_MARKER, marker) == 0);
                /* the input has no '[' bytes: the marker is the only one */
                if (!memchr(data, '[', size))
                        FUZZ_CHECK(count(s, len, SERVE_TRUNCATED_MARKER) == 1);
        }
        char *text = serve_json_dump(j); /* valid UTF-8 or jansson would refuse */
        FUZZ_CHECK(text);
        json_t *back = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        FUZZ_CHECK(back && json_string_length(back) == len);
        json_decref(back);
        free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        const char *body = (const char *)data;
        spec(body, size);
        mount(body, size);
        policy(body, size);
        exec_request(body, size, false);
        exec_request(body, size, true);
        output(data, size);
        return 0;
}
