/* Unit tests for src/serve/client-wire.c: what cordon-session makes of the daemon's answers (the
 * error line, output records, the session table), path escaping, terminal-safe text, and the
 * exit status. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/client-wire.h"

Test(client_wire, exit_status_as_timeout_and_the_shell_give_it)
{
        cr_assert_eq(client_exit_status(0, false), 0);
        cr_assert_eq(client_exit_status(3, false), 3);
        cr_assert_eq(client_exit_status(255, false), 255);
        cr_assert_eq(client_exit_status(137, false), 137);
        cr_assert_eq(client_exit_status(0, true), 124);
        cr_assert_eq(client_exit_status(137, true), 124);
        cr_assert_eq(client_exit_status(256, false), 255);
        cr_assert_eq(client_exit_status(-1, false), 255);
}

static void safe_is(const char *in, size_t len, size_t max, const char *want)
{
        char out[4 * 64 + 4];
        client_text_safe(in, len, max, out);
        cr_assert_str_eq(out, want);
}

Test(client_wire, text_safe_for_a_terminal)
{
        safe_is("plain", 5, 64, "plain");
        safe_is("a\nb\tc", 5, 64, "a?b?c");
        /* An escape sequence, DEL and a C1 control (U+009B, a one-character CSI). */
        safe_is("\x1b[2Jx\x7f\xc2\x9b", 8, 64, "?[2Jx??");
        safe_is("caf\xc3\xa9 \xe2\x9c\x93", 9, 64, "caf\xc3\xa9 \xe2\x9c\x93");
        /* Bytes that are not UTF-8, one '?' each; a NUL too. */
        safe_is("a\xff\xc0\xaf"
                "b",
                5, 64, "a???b");
        safe_is("a\0b", 3, 64, "a?b");
        safe_is("abcdef", 6, 3, "abc...");
        /* A sequence cut by the limit is not shown whole. */
        safe_is("ab\xc3\xa9", 4, 3, "ab?...");
}

Test(client_wire, utf8_validity)
{
        cr_assert(client_utf8_valid("", 0));
        cr_assert(client_utf8_valid("a\0b", 3));
        cr_assert(client_utf8_valid("\xf0\x9f\x98\x80", 4));
        cr_assert(!client_utf8_valid("\xc0\xaf", 2));         /* overlong */
        cr_assert(!client_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
        cr_assert(!client_utf8_valid("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
        cr_assert(!client_utf8_valid("\xe2\x9c", 2));         /* cut short */
        cr_assert(!client_utf8_valid("\x80", 1));
}

static void error_line_is(unsigned status, const char *body, const char *want)
{
        char line[8192];
        client_error_line(status, body, body ? strlen(body) : 0, line, sizeof(line));
        cr_assert_str_eq(line, want);
}

Test(client_wire, error_lines)
{
        error_line_is(404,
                      "{\"error\":{\"kind\":\"session_not_found\",\"message\":\"sandbox session "
                      "`x` was not found\"}}\n",
                      "session_not_found: sandbox session `x` was not found");
        error_line_is(501,
                      "{\"error\":{\"kind\":\"unsupported\",\"message\":\"backend `landlock` does "
                      "not support mount\",\"backend\":\"landlock\",\"operation\":\"mount\"}}",
                      "unsupported: backend `landlock` does not support mount (backend landlock, "
                      "operation mount)");
        /* unsupported's null backend and operation (the wire writes null when it has none). */
        error_line_is(501,
                      "{\"error\":{\"kind\":\"unsupported\",\"message\":\"m\",\"backend\":null,"
                      "\"operation\":null}}",
                      "unsupported: m");
        /* A message with a terminal's escape sequence in it is shown defused. */
        error_line_is(400,
                      "{\"error\":{\"kind\":\"invalid_request\",\"message\":\"a\\u001b]0;x\\u0007"
                      "\\nb\"}}",
                      "invalid_request: a?]0;x??b");
        error_line_is(502, "Bad gateway\r\n", "HTTP 502: Bad gateway");
        error_line_is(500, "", "HTTP 500");
        error_line_is(500, NULL, "HTTP 500");
        error_line_is(409, "{\"error\":\"busy\"}", "HTTP 409: {\"error\":\"busy\"}");
}

Test(client_wire, a_long_message_is_cut)
{
        size_t n = CLIENT_TEXT_MAX + 100;
        char *body = malloc(n + 64), line[8192];
        int k = sprintf(body, "{\"error\":{\"kind\":\"io\",\"message\":\"");
        memset(body + k, 'x', n);
        strcpy(body + k + n, "\"}}");
        client_error_line(500, body, strlen(body), line, sizeof(line));
        cr_assert_eq(strlen(line), strlen("io: ") + CLIENT_TEXT_MAX + 3);
        cr_assert(strcmp(line + strlen(line) - 3, "...") == 0);
        free(body);
}

static void escape_is(const char *in, const char *want)
{
        char *e = client_path_escape(in);
        cr_assert_str_eq(e, want);
        free(e);
}

Test(client_wire, ids_are_one_path_segment)
{
        escape_is("sess-1_a.b~", "sess-1_a.b~");
        escape_is("a/b?c#d e%", "a%2Fb%3Fc%23d%20e%25");
        escape_is("\xc3\xa9", "%C3%A9");
        escape_is("..", "..");
        escape_is("", "");
}

struct seen {
        char lines[8][64];
        int n;
        int fail_at;
};

static int collect(const char *s, size_t len, void *userdata)
{
        struct seen *seen = userdata;
        cr_assert_eq(strlen(s), len);
        if (seen->n == seen->fail_at)
                return -EPROTO;
        snprintf(seen->lines[seen->n++], 64, "%s", s);
        return 0;
}

Test(client_wire, lines_across_chunks)
{
        struct client_lines l = {};
        struct seen seen = {.fail_at = -1};
        cr_assert_eq(client_lines_feed(&l, "{\"a\"", 4, collect, &seen), 0);
        cr_assert_eq(seen.n, 0);
        cr_assert_eq(client_lines_pending(&l), 4);
        cr_assert_eq(client_lines_feed(&l, ":1}\r\n\n{\"b\":2}\n{", 15, collect, &seen), 0);
        cr_assert_eq(seen.n, 2);
        cr_assert_str_eq(seen.lines[0], "{\"a\":1}");
        cr_assert_str_eq(seen.lines[1], "{\"b\":2}");
        cr_assert_eq(client_lines_pending(&l), 1);
        client_lines_clear(&l);

        seen = (struct seen){.fail_at = 1};
        cr_assert_eq(client_lines_feed(&l, "a\nb\nc\n", 6, collect, &seen), -EPROTO);
        cr_assert_eq(seen.n, 1);
        client_lines_clear(&l);
}

Test(client_wire, a_line_over_the_limit_is_refused)
{
        struct client_lines l = {};
        struct seen seen = {.fail_at = -1};
        char *chunk = malloc(4096);
        memset(chunk, 'x', 4096);
        int r = 0;
        for (size_t sent = 0; r == 0 && sent <= CLIENT_LINE_MAX; sent += 4096)
                r = client_lines_feed(&l, chunk, 4096, collect, &seen);
        cr_assert_eq(r, -EMSGSIZE);
        cr_assert(client_lines_pending(&l) <= CLIENT_LINE_MAX);
        client_lines_clear(&l);
        /* Exactly the limit is taken. */
        char *line = malloc(CLIENT_LINE_MAX + 1);
        memset(line, 'y', CLIENT_LINE_MAX);
        line[CLIENT_LINE_MAX] = '\n';
        seen = (struct seen){.fail_at = 1};
        cr_assert_eq(client_lines_feed(&l, line, CLIENT_LINE_MAX + 1, collect, &seen), 0);
        cr_assert_eq(seen.n, 1);
        client_lines_clear(&l);
        free(line);
        free(chunk);
}

static void record_ok(const char *line, struct client_record *r)
{
        cr_assert_eq(client_record_parse(line, strlen(line), r), 0, "%s", line);
}

Test(client_wire, records)
{
        struct client_record r;
        record_ok("{\"seq\":1,\"stream\":\"stdout\",\"data\":\"aGkK\"}", &r);
        cr_assert_eq(r.kind, CLIENT_RECORD_OUTPUT);
        cr_assert_eq(r.seq, 1);
        cr_assert(!r.to_stderr);
        cr_assert_eq(r.len, 3);
        cr_assert(memcmp(r.data, "hi\n", 3) == 0);
        client_record_clear(&r);

        record_ok("{\"seq\":7,\"stream\":\"stderr\",\"data\":\"\",\"extra\":1}", &r);
        cr_assert(r.to_stderr && r.seq == 7 && r.len == 0);
        client_record_clear(&r);

        record_ok("{\"seq\":8,\"exit_code\":3,\"timed_out\":false}", &r);
        cr_assert(r.kind == CLIENT_RECORD_EXIT && r.seq == 8 && r.exit_code == 3 && !r.timed_out);
        record_ok("{\"seq\":9,\"exit_code\":-9,\"timed_out\":true}", &r);
        cr_assert(r.exit_code == -9 && r.timed_out);

        record_ok("{\"error\":{\"kind\":\"io\",\"message\":\"the holder went away\"}}", &r);
        cr_assert_eq(r.kind, CLIENT_RECORD_ERROR);
        cr_assert_str_eq(r.error, "io: the holder went away");

        static const char *const bad[] = {
            "[]",
            "not json",
            "{\"seq\":0,\"stream\":\"stdout\",\"data\":\"\"}",
            "{\"seq\":-1,\"stream\":\"stdout\",\"data\":\"\"}",
            "{\"seq\":\"1\",\"stream\":\"stdout\",\"data\":\"\"}",
            "{\"seq\":1.5,\"stream\":\"stdout\",\"data\":\"\"}",
            "{\"stream\":\"stdout\",\"data\":\"\"}",
            "{\"seq\":1,\"stream\":\"stdin\",\"data\":\"\"}",
            "{\"seq\":1,\"stream\":\"stdout\",\"data\":\"!!!!\"}",
            "{\"seq\":1,\"stream\":\"stdout\",\"data\":1}",
            "{\"seq\":1,\"stream\":\"stdout\"}",
            "{\"seq\":1,\"exit_code\":\"0\",\"timed_out\":false}",
            "{\"seq\":1,\"exit_code\":4294967296,\"timed_out\":false}",
            "{\"seq\":1,\"exit_code\":0,\"timed_out\":\"no\"}",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                cr_assert_eq(client_record_parse(bad[i], strlen(bad[i]), &r), -EBADMSG, "%s",
                             bad[i]);
                client_record_clear(&r);
        }
}

static char *table_of(const char *json, int *ret)
{
        json_t *j = json_loads(json, 0, NULL);
        cr_assert(j, "%s", json);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        *ret = client_sessions_table(j, f);
        fclose(f);
        json_decref(j);
        return buf;
}

Test(client_wire, session_table)
{
        int r;
        char *t =
            table_of("[{\"id\":\"s1\",\"backend\":\"cordon\",\"state\":\"running\",\"mounts\":[],"
                     "\"metadata\":{\"backend\":\"ns\",\"created\":\"1764450000\",\"label.team\":"
                     "\"ml\",\"label.x\":\"1\",\"session_root\":\"/r\"}},"
                     "{\"id\":\"evil\\u001b[2J\",\"backend\":\"landlock\",\"state\":\"suspended\","
                     "\"mounts\":[],\"metadata\":{\"created\":\"yesterday\"}},"
                     "{\"id\":\"s3\",\"backend\":\"ns\",\"state\":\"running\",\"mounts\":[]}]",
                     &r);
        cr_assert_eq(r, 0);
        char want[1024];
        snprintf(want, sizeof(want),
                 "%-32s %-11s %-9s %-20s %s\n%-32s %-11s %-9s %-20s %s\n%-32s %-11s %-9s %-20s "
                 "%s\n%-32s %-11s %-9s %-20s %s\n",
                 "ID", "STATE", "BACKEND", "CREATED", "LABELS", "s1", "running", "ns",
                 "2025-11-29T21:00:00Z", "team=ml,x=1", "evil?[2J", "suspended", "landlock",
                 "yesterday", "-", "s3", "running", "ns", "-", "-");
        cr_assert_str_eq(t, want);
        free(t);

        t = table_of("[]", &r);
        cr_assert_eq(r, 0);
        cr_assert(strncmp(t, "ID ", 3) == 0 && strchr(t, '\n') == t + strlen(t) - 1);
        free(t);

        static const char *const bad[] = {
            "{}",
            "[1]",
            "[{\"id\":1,\"state\":\"running\",\"backend\":\"ns\"}]",
            "[{\"id\":\"a\",\"backend\":\"ns\"}]",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                t = table_of(bad[i], &r);
                cr_assert_eq(r, -EBADMSG, "%s", bad[i]);
                cr_assert_str_eq(t, "", "nothing is printed of a bad list");
                free(t);
        }
}

Test(client_wire, long_labels_are_cut)
{
        int r;
        char json[1024];
        snprintf(json, sizeof(json),
                 "[{\"id\":\"s\",\"backend\":\"ns\",\"state\":\"running\",\"metadata\":{"
                 "\"label.a\":\"%070d\"}}]",
                 0);
        char *t = table_of(json, &r);
        cr_assert_eq(r, 0);
        char *cellp = strstr(t, "a=000");
        cr_assert(cellp, "%s", t);
        cr_assert_eq(strlen(cellp), CLIENT_CELL_MAX + strlen("...\n"), "%s", cellp);
        free(t);
}
