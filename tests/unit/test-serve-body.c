/* Unit tests for src/serve/serve-body.c: cordon-serve's own small bodies (a process's stdin,
 * signal and resize), after_seq, the empty body, and the percent-decoding of a path segment;
 * each refusal names its key. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-body.h"

static void decoded(const char *in, const char *want)
{
        char *out = NULL;
        cr_assert_eq(serve_percent_decode(in, strlen(in), &out), 0, "%s", in);
        cr_assert_str_eq(out, want);
        free(out);
}

Test(serve_body, percent_decode)
{
        decoded("plain", "plain");
        decoded("a%2Fb", "a/b");
        decoded("%20", " ");
        decoded("%e2%82%ac", "\xe2\x82\xac");
        decoded("100%25", "100%");
        decoded("a+b", "a+b"); /* a path: '+' is itself */
        decoded("", "");
        const char *bad[] = {"%", "%2", "%zz", "a%0", "%00", "x%00y", "%g1"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                char *out = NULL;
                cr_assert_eq(serve_percent_decode(bad[i], strlen(bad[i]), &out), -EINVAL, "%s",
                             bad[i]);
                cr_assert_null(out);
        }
        /* The length given is what is decoded, not the string's. */
        char *out = NULL;
        cr_assert_eq(serve_percent_decode("ab%2", 2, &out), 0);
        cr_assert_str_eq(out, "ab");
        free(out);
}

Test(serve_body, after_seq)
{
        uint64_t v = 1;
        struct serve_error e = {0};
        cr_assert_eq(serve_after_seq_parse("0", &v, &e), 0);
        cr_assert_eq(v, 0);
        cr_assert_eq(serve_after_seq_parse("18446744", &v, &e), 0);
        cr_assert_eq(v, 18446744);
        cr_assert_eq(serve_after_seq_parse("9223372036854775807", &v, &e), 0);
        const char *bad[] = {"", "-1", "+1", "1.5", "0x10", " 1", "1 ", "99999999999999999999"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                cr_assert_eq(serve_after_seq_parse(bad[i], &v, &e), -EINVAL, "'%s'", bad[i]);
                cr_assert_eq(e.kind, SERVE_ERR_INVALID_REQUEST);
                cr_assert(strstr(e.message, "after_seq"), "%s", e.message);
        }
}

static int check_empty(const char *body)
{
        struct serve_error e = {0};
        return serve_empty_body_check(body, body ? strlen(body) : 0, &e);
}

Test(serve_body, empty_body)
{
        cr_assert_eq(check_empty(NULL), 0);
        cr_assert_eq(check_empty(""), 0);
        cr_assert_eq(check_empty(" \n"), 0);
        cr_assert_eq(check_empty("{}"), 0);
        cr_assert_eq(check_empty(" { } "), 0);
        cr_assert_eq(check_empty("{\"now\":true}"), -EINVAL);
        cr_assert_eq(check_empty("[]"), -EINVAL);
        cr_assert_eq(check_empty("x"), -EINVAL);
}

static char *stdin_args(const char *body, struct serve_error *e)
{
        json_t *j = NULL;
        if (serve_stdin_parse(body, strlen(body), &j, e) < 0)
                return NULL;
        return serve_json_dump(j);
}

Test(serve_body, stdin)
{
        struct serve_error e = {0};
        char *s = stdin_args("{\"data\":\"aGVsbG8K\",\"eof\":true}", &e);
        cr_assert_str_eq(s, "{\"data\":\"aGVsbG8K\",\"eof\":true}");
        free(s);
        s = stdin_args("{}", &e);
        cr_assert_str_eq(s, "{\"data\":\"\",\"eof\":false}");
        free(s);
        s = stdin_args("{\"data\":\"YQ==\",\"eof\":null}", &e);
        cr_assert_str_eq(s, "{\"data\":\"YQ==\",\"eof\":false}");
        free(s);
        const struct {
                const char *body, *key;
        } bad[] = {
            {"{\"data\":\"aGVsbG8\"}", "data"}, /* not a multiple of 4 */
            {"{\"data\":\"a=GV\"}", "data"},    /* padding inside */
            {"{\"data\":\"YQ=a\"}", "data"},    /* padding then a letter */
            {"{\"data\":\"Y===\"}", "data"},    {"{\"data\":\"aGVs bG8K\"}", "data"},
            {"{\"data\":5}", "data"},           {"{\"eof\":\"yes\"}", "eof"},
            {"{\"text\":\"hi\"}", "text"},      {"[1]", "JSON object"},
            {"{\"data\":", "malformed"},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                cr_assert_null(stdin_args(bad[i].body, &e), "%s", bad[i].body);
                cr_assert_eq(e.kind, SERVE_ERR_INVALID_REQUEST);
                cr_assert(strstr(e.message, bad[i].key), "%s: %s", bad[i].body, e.message);
        }
}

Test(serve_body, signal)
{
        struct serve_error e = {0};
        int sig = 0;
        cr_assert_eq(serve_signal_parse("{\"signal\":9}", 12, &sig, &e), 0);
        cr_assert_eq(sig, 9);
        cr_assert_eq(serve_signal_parse("{\"signal\":\"TERM\"}", 17, &sig, &e), 0);
        cr_assert_eq(sig, SIGTERM);
        cr_assert_eq(serve_signal_parse("{\"signal\":\"SIGWINCH\"}", 21, &sig, &e), 0);
        cr_assert_eq(sig, SIGWINCH);
        cr_assert_eq(serve_signal_parse("{\"signal\":64}", 13, &sig, &e), 0);
        const char *bad[] = {"{\"signal\":0}",
                             "{\"signal\":65}",
                             "{\"signal\":-9}",
                             "{\"signal\":\"SIGNOPE\"}",
                             "{\"signal\":\"term\"}",
                             "{\"signal\":1.5}",
                             "{}",
                             "{\"signal\":9,\"pid\":1}"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                cr_assert_eq(serve_signal_parse(bad[i], strlen(bad[i]), &sig, &e), -EINVAL, "%s",
                             bad[i]);
                cr_assert(strstr(e.message, "signal") || strstr(e.message, "pid"), "%s", e.message);
        }
}

Test(serve_body, resize)
{
        struct serve_error e = {0};
        unsigned rows = 0, cols = 0;
        const char *ok = "{\"rows\":24,\"cols\":80}";
        cr_assert_eq(serve_resize_parse(ok, strlen(ok), &rows, &cols, &e), 0);
        cr_assert_eq(rows, 24);
        cr_assert_eq(cols, 80);
        const struct {
                const char *body, *key;
        } bad[] = {
            {"{\"rows\":0,\"cols\":80}", "rows"},
            {"{\"rows\":24,\"cols\":65536}", "cols"},
            {"{\"rows\":24}", "cols"},
            {"{\"rows\":\"24\",\"cols\":80}", "rows"},
            {"{\"rows\":24,\"cols\":80,\"x\":1}", "x"},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                cr_assert_eq(serve_resize_parse(bad[i].body, strlen(bad[i].body), &rows, &cols, &e),
                             -EINVAL, "%s", bad[i].body);
                cr_assert(strstr(e.message, bad[i].key), "%s: %s", bad[i].body, e.message);
        }
}

Test(serve_body, body_over_the_limit)
{
        size_t n = SERVE_BODY_MAX + 1;
        char *big = malloc(n);
        cr_assert(big);
        memset(big, ' ', n);
        struct serve_error e = {0};
        int sig;
        cr_assert_eq(serve_signal_parse(big, n, &sig, &e), -EINVAL);
        cr_assert(strstr(e.message, "larger"), "%s", e.message);
        free(big);
}
