/* Unit tests for src/serve/holder-proto.c: the daemon-holder channel's framing (round trips,
 * partial frames, every refusal), a connection's buffers over a socket pair, the start time of
 * /proc/PID/stat (a comm with ") " and spaces), store names, base64, and the request parser
 * (every op, every refusal). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/holder-proto.h"

static json_t *obj(const char *text)
{
        json_error_t e;
        json_t *j = json_loads(text, 0, &e);
        cr_assert(j, "%s: %s", text, e.text);
        return j;
}

static char *dump(const json_t *j)
{
        char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        cr_assert(s);
        return s;
}

Test(holder_proto, frame_round_trip)
{
        json_t *j = obj("{\"id\":7,\"op\":\"session\",\"x\":\"\\u00e9\\n\"}");
        char *buf = NULL;
        size_t len = 0;
        cr_assert_eq(holder_frame_encode(j, &buf, &len), 0);
        size_t n = len - 4;
        cr_assert_eq((unsigned char)buf[0] | (unsigned char)buf[1] << 8 |
                         (unsigned char)buf[2] << 16 | (size_t)(unsigned char)buf[3] << 24,
                     n);
        /* Every prefix is "not yet"; the whole is one frame, its length taken. */
        for (size_t k = 0; k < len; k++) {
                json_t *out = NULL;
                cr_assert_eq(holder_frame_decode(buf, k, &out), 0, "prefix %zu", k);
        }
        json_t *out = NULL;
        cr_assert_eq(holder_frame_decode(buf, len, &out), (ssize_t)len);
        cr_assert(json_equal(out, j));
        json_decref(out);
        /* Two frames back to back: the first only. */
        char *two = malloc(2 * len);
        memcpy(two, buf, len);
        memcpy(two + len, buf, len);
        cr_assert_eq(holder_frame_decode(two, 2 * len, &out), (ssize_t)len);
        json_decref(out);
        free(two);
        free(buf);
        json_decref(j);
}

static ssize_t decode_text(uint32_t n, const char *body, size_t body_len)
{
        char buf[256] = {(char)(n & 0xff), (char)(n >> 8 & 0xff), (char)(n >> 16 & 0xff),
                         (char)(n >> 24)};
        memcpy(buf + 4, body, body_len);
        json_t *out = NULL;
        ssize_t r = holder_frame_decode(buf, 4 + body_len, &out);
        json_decref(out);
        return r;
}

Test(holder_proto, frame_refusals)
{
        cr_assert_eq(decode_text(0, "", 0), -EMSGSIZE, "length 0");
        cr_assert_eq(decode_text(HOLDER_FRAME_MAX + 1, "{}", 2), -EMSGSIZE, "over the max");
        cr_assert_eq(decode_text(UINT32_MAX, "{}", 2), -EMSGSIZE);
        cr_assert_eq(decode_text(HOLDER_FRAME_MAX, "{}", 2), 0, "the max itself: not yet whole");
        cr_assert_eq(decode_text(5, "hello", 5), -EBADMSG, "not JSON");
        cr_assert_eq(decode_text(2, "[]", 2), -EBADMSG, "an array");
        cr_assert_eq(decode_text(1, "7", 1), -EBADMSG, "a number");
        cr_assert_eq(decode_text(13, "{\"a\":1,\"a\":2}", 13), -EBADMSG, "a duplicate key");
        cr_assert_eq(decode_text(4, "{}{}", 4), -EBADMSG, "two values in one frame");
        cr_assert_eq(decode_text(2, "{}", 2), 6);
}

Test(holder_proto, conn_over_socketpair)
{
        int sv[2];
        cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
        struct holder_conn a = HOLDER_CONN_NULL, b = HOLDER_CONN_NULL;
        a.fd = sv[0];
        b.fd = sv[1];
        json_t *m1 = obj("{\"id\":1,\"op\":\"session\"}"), *m2 = obj("{\"id\":2,\"ok\":true}");
        cr_assert_eq(holder_conn_send(&a, m1), 0);
        cr_assert_eq(holder_conn_send(&a, m2), 0);
        cr_assert_eq(holder_conn_flush(&a), 0);
        cr_assert_eq(holder_conn_read(&b), 0);
        json_t *got = NULL;
        cr_assert_eq(holder_conn_next(&b, &got), 1);
        cr_assert(json_equal(got, m1));
        json_decref(got);
        cr_assert_eq(holder_conn_next(&b, &got), 1);
        cr_assert(json_equal(got, m2));
        json_decref(got);
        cr_assert_eq(holder_conn_next(&b, &got), 0);
        /* A malformed frame: the receiver is told to close. */
        cr_assert_eq(write(sv[0], "\x02\x00\x00\x00[]", 6), 6);
        cr_assert_eq(holder_conn_read(&b), 0);
        cr_assert_eq(holder_conn_next(&b, &got), -EBADMSG);
        /* The peer hangs up: 1. */
        holder_conn_clear(&a);
        cr_assert_eq(a.fd, -EBADF);
        cr_assert_eq(holder_conn_read(&b), 1);
        /* Writing to a gone peer: -EPIPE, never a signal. */
        cr_assert_eq(holder_conn_send(&b, m1), -EPIPE);
        holder_conn_clear(&b);
        json_decref(m1);
        json_decref(m2);
}

Test(holder_proto, stat_start_time)
{
        uint64_t t = 0;
        /* The comm holds ") " and spaces: only the last ')' ends it. */
        const char *text = "1234 (a) b) (c d) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 "
                           "1 0 987654321 1000 100 18446744073709551615\n";
        cr_assert_eq(holder_stat_start_time(text, &t), 0);
        cr_assert_eq(t, 987654321ull);
        cr_assert_eq(holder_stat_start_time("1 (x) S 1 2 3", &t), -EBADMSG, "too few fields");
        cr_assert_eq(holder_stat_start_time("1 x S", &t), -EBADMSG, "no ')'");
        cr_assert_eq(
            holder_stat_start_time("1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12a 1", &t),
            -EBADMSG, "not a number");
        cr_assert_eq(holder_proc_start_time(getpid(), &t), 0);
        cr_assert(t > 0);
        /* A pid that is not there. */
        cr_assert_eq(holder_proc_start_time(0x3fffffff, &t), -ESRCH);
}

Test(holder_proto, names)
{
        cr_assert(holder_name_valid("0123456789abcdef0123456789abcdef"));
        cr_assert(!holder_name_valid("0123456789abcdef0123456789abcde"), "31");
        cr_assert(!holder_name_valid("0123456789abcdef0123456789abcdef0"), "33");
        cr_assert(!holder_name_valid("0123456789ABCDEF0123456789abcdef"), "uppercase");
        cr_assert(!holder_name_valid("../456789abcdef0123456789abcdef0"), "a path");
        cr_assert(!holder_name_valid(""));
        cr_assert(!holder_name_valid(NULL));
        cr_assert(holder_process_id_valid("p1"));
        cr_assert(holder_process_id_valid("p1234567890"));
        cr_assert(!holder_process_id_valid("p0"));
        cr_assert(!holder_process_id_valid("p01"));
        cr_assert(!holder_process_id_valid("p"));
        cr_assert(!holder_process_id_valid("q1"));
        cr_assert(!holder_process_id_valid("p1/"));
        cr_assert(!holder_process_id_valid("p12345678901234567890123"));
}

Test(holder_proto, base64)
{
        const char *cases[][2] = {{"", ""},
                                  {"f", "Zg=="},
                                  {"fo", "Zm8="},
                                  {"foo", "Zm9v"},
                                  {"foob", "Zm9vYg=="},
                                  {"fooba", "Zm9vYmE="},
                                  {"foobar", "Zm9vYmFy"}};
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *e = holder_base64_encode(cases[i][0], strlen(cases[i][0]));
                cr_assert_str_eq(e, cases[i][1]);
                free(e);
                char *d = NULL;
                size_t n = 0;
                cr_assert_eq(holder_base64_decode(cases[i][1], strlen(cases[i][1]), &d, &n), 0);
                cr_assert_eq(n, strlen(cases[i][0]));
                cr_assert_eq(memcmp(d, cases[i][0], n), 0);
                free(d);
        }
        unsigned char all[256];
        for (int i = 0; i < 256; i++)
                all[i] = (unsigned char)i;
        char *e = holder_base64_encode(all, sizeof(all)), *d = NULL;
        size_t n = 0;
        cr_assert_eq(holder_base64_decode(e, strlen(e), &d, &n), 0);
        cr_assert_eq(n, sizeof(all));
        cr_assert_eq(memcmp(d, all, n), 0);
        free(d);
        free(e);
        const char *bad[] = {
            "Zg=", "Zg", "Z===", "Zm9v!A==", "Zg==Zg==", "Zh==", "Zm9=", "=Zg=", "Zm 9v"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                cr_assert_eq(holder_base64_decode(bad[i], strlen(bad[i]), &d, &n), -EINVAL, "%s",
                             bad[i]);
}

/* Parses @text: its return, with @err's message compared to @want when given. */
static int parse(const char *text, struct holder_request *rq, const char *want)
{
        json_t *j = obj(text);
        struct serve_error err = {};
        int r = holder_request_parse(j, rq, &err);
        json_decref(j);
        if (want) {
                cr_assert_eq(r, -EINVAL, "%s", text);
                cr_assert_eq(err.kind, SERVE_ERR_INVALID_REQUEST);
                cr_assert_str_eq(err.message, want, "%s", text);
        }
        return r;
}

Test(holder_proto, request_every_op)
{
        struct holder_request rq;
        cr_assert_eq(parse("{\"id\":1,\"op\":\"session\"}", &rq, NULL), 0);
        cr_assert_eq(rq.op, HOLDER_OP_SESSION);
        holder_request_clear(&rq);
        cr_assert_eq(parse("{\"id\":2,\"op\":\"exec\",\"request\":{\"command\":\"ls\","
                           "\"args\":[\"-l\"],\"env\":{\"A\":\"b\"},\"stdin\":\"x\"}}",
                           &rq, NULL),
                     0);
        cr_assert_eq(rq.id, 2);
        cr_assert_str_eq(rq.exec.command, "ls");
        cr_assert_str_eq(rq.exec.env[0], "A=b");
        cr_assert_eq(rq.exec.stdin_len, 1);
        cr_assert(!rq.exec.pty);
        holder_request_clear(&rq);
        cr_assert_eq(parse("{\"id\":3,\"op\":\"process_start\",\"request\":{\"command\":\"sh\","
                           "\"pty\":true}}",
                           &rq, NULL),
                     0);
        cr_assert(rq.exec.pty);
        holder_request_clear(&rq);
        cr_assert_eq(parse("{\"id\":4,\"op\":\"process_output\",\"process_id\":\"p3\","
                           "\"after_seq\":9,\"wait_ms\":60000}",
                           &rq, NULL),
                     0);
        cr_assert_str_eq(rq.process_id, "p3");
        cr_assert_eq(rq.after_seq, 9);
        cr_assert_eq(rq.wait_ms, 60000);
        holder_request_clear(&rq);
        cr_assert_eq(parse("{\"id\":5,\"op\":\"process_stdin\",\"process_id\":\"p1\","
                           "\"data\":\"aGk=\",\"eof\":true}",
                           &rq, NULL),
                     0);
        cr_assert_eq(rq.data_len, 2);
        cr_assert_eq(memcmp(rq.data, "hi", 2), 0);
        cr_assert(rq.eof);
        holder_request_clear(&rq);
        cr_assert_eq(parse("{\"id\":6,\"op\":\"process_signal\",\"process_id\":\"p1\","
                           "\"signal\":15}",
                           &rq, NULL),
                     0);
        cr_assert_eq(rq.signal, 15);
        holder_request_clear(&rq);
        cr_assert_eq(parse("{\"id\":7,\"op\":\"process_resize\",\"process_id\":\"p1\","
                           "\"rows\":24,\"cols\":80}",
                           &rq, NULL),
                     0);
        cr_assert_eq(rq.rows, 24);
        cr_assert_eq(rq.cols, 80);
        holder_request_clear(&rq);
        cr_assert_eq(parse("{\"id\":8,\"op\":\"mount\",\"mount\":{\"source\":\"\",\"target\":"
                           "\"/data/\",\"access\":\"read_write\"}}",
                           &rq, NULL),
                     0);
        cr_assert_str_eq(rq.mount.target, "/data");
        holder_request_clear(&rq);
        cr_assert_eq(parse("{\"id\":9,\"op\":\"network_policy\",\"policy\":{\"mode\":\"limited\","
                           "\"allowed_hosts\":[\"a.example\"]}}",
                           &rq, NULL),
                     0);
        cr_assert(rq.policy.limited);
        cr_assert_eq(rq.policy.n_hosts, 1);
        holder_request_clear(&rq);
        cr_assert_eq(parse("{\"id\":10,\"op\":\"snapshot\",\"path\":\"/s/a.tar.zst\"}", &rq, NULL),
                     0);
        cr_assert_str_eq(rq.path, "/s/a.tar.zst");
        holder_request_clear(&rq);
        const char *plain[] = {"process_list", "suspend", "resume", "terminate"};
        for (size_t i = 0; i < 4; i++) {
                char t[96];
                snprintf(t, sizeof(t), "{\"id\":11,\"op\":\"%s\"}", plain[i]);
                cr_assert_eq(parse(t, &rq, NULL), 0);
                cr_assert_str_eq(holder_op_name(rq.op), plain[i]);
                holder_request_clear(&rq);
        }
        cr_assert_null(holder_op_name(_HOLDER_OP_MAX));
}

Test(holder_proto, request_refusals)
{
        struct holder_request rq;
        /* No usable id: a protocol error, not an answer. */
        const char *no_id[] = {"{\"op\":\"session\"}", "{\"id\":0,\"op\":\"session\"}",
                               "{\"id\":-1,\"op\":\"session\"}",
                               "{\"id\":\"1\",\"op\":\"session\"}",
                               "{\"id\":1.5,\"op\":\"session\"}"};
        for (size_t i = 0; i < 5; i++) {
                cr_assert_eq(parse(no_id[i], &rq, NULL), -EBADMSG, "%s", no_id[i]);
                holder_request_clear(&rq);
        }
        struct {
                const char *text, *why;
        } cases[] = {
            {"{\"id\":1}", "op: missing, or not a string"},
            {"{\"id\":1,\"op\":7}", "op: missing, or not a string"},
            {"{\"id\":1,\"op\":\"reboot\"}", "op: unknown operation"},
            {"{\"id\":1,\"op\":\"session\",\"x\":1}", "x: unknown field"},
            {"{\"id\":1,\"op\":\"session\",\"request\":{}}", "request: unknown field"},
            {"{\"id\":1,\"op\":\"exec\"}", "request: missing"},
            {"{\"id\":1,\"op\":\"exec\",\"request\":[]}", "request: must be an object"},
            {"{\"id\":1,\"op\":\"exec\",\"request\":{\"command\":\" \"}}",
             "request.command: must not be empty"},
            {"{\"id\":1,\"op\":\"exec\",\"request\":{\"command\":\"a\",\"pty\":true}}",
             "request.pty: unknown field"},
            {"{\"id\":1,\"op\":\"exec\",\"request\":{\"command\":\"a\",\"env\":{\"1A\":\"b\"}}}",
             NULL},
            {"{\"id\":1,\"op\":\"mount\",\"mount\":{\"source\":\"\",\"target\":\"rel\","
             "\"access\":\"read_only\"}}",
             "mount.target: must be absolute"},
            {"{\"id\":1,\"op\":\"mount\",\"mount\":{\"source\":\"\",\"target\":\"/a/../b\","
             "\"access\":\"read_only\"}}",
             NULL},
            {"{\"id\":1,\"op\":\"network_policy\",\"policy\":{\"mode\":\"open\"}}", NULL},
            {"{\"id\":1,\"op\":\"snapshot\"}", "path: missing, or not a string"},
            {"{\"id\":1,\"op\":\"snapshot\",\"path\":\"rel\"}", "path: must be an absolute path"},
            {"{\"id\":1,\"op\":\"process_output\",\"after_seq\":0,\"wait_ms\":0}",
             "process_id: missing, or not a process id"},
            {"{\"id\":1,\"op\":\"process_output\",\"process_id\":\"../x\",\"after_seq\":0,"
             "\"wait_ms\":0}",
             "process_id: missing, or not a process id"},
            {"{\"id\":1,\"op\":\"process_output\",\"process_id\":\"p1\",\"wait_ms\":0}",
             "after_seq: missing"},
            {"{\"id\":1,\"op\":\"process_output\",\"process_id\":\"p1\",\"after_seq\":-1,"
             "\"wait_ms\":0}",
             "after_seq: must be between 0 and 9223372036854775807"},
            {"{\"id\":1,\"op\":\"process_output\",\"process_id\":\"p1\",\"after_seq\":0,"
             "\"wait_ms\":60001}",
             "wait_ms: must be between 0 and 60000"},
            {"{\"id\":1,\"op\":\"process_output\",\"process_id\":\"p1\",\"after_seq\":\"0\","
             "\"wait_ms\":0}",
             "after_seq: must be an integer"},
            {"{\"id\":1,\"op\":\"process_stdin\",\"process_id\":\"p1\",\"data\":\"a\","
             "\"eof\":false}",
             "data: not base64"},
            {"{\"id\":1,\"op\":\"process_stdin\",\"process_id\":\"p1\",\"data\":\"\"}",
             "eof: missing, or not a boolean"},
            {"{\"id\":1,\"op\":\"process_stdin\",\"process_id\":\"p1\",\"eof\":true}",
             "data: missing, or not a string"},
            {"{\"id\":1,\"op\":\"process_signal\",\"process_id\":\"p1\",\"signal\":0}",
             "signal: must be between 1 and 64"},
            {"{\"id\":1,\"op\":\"process_signal\",\"process_id\":\"p1\",\"signal\":65}",
             "signal: must be between 1 and 64"},
            {"{\"id\":1,\"op\":\"process_resize\",\"process_id\":\"p1\",\"rows\":0,\"cols\":1}",
             "rows: must be between 1 and 65535"},
            {"{\"id\":1,\"op\":\"process_resize\",\"process_id\":\"p1\",\"rows\":1,"
             "\"cols\":65536}",
             "cols: must be between 1 and 65535"},
            {"{\"id\":1,\"op\":\"process_list\",\"process_id\":\"p1\"}",
             "process_id: unknown field"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int r = parse(cases[i].text, &rq, cases[i].why);
                cr_assert_eq(r, -EINVAL, "%s", cases[i].text);
                cr_assert_eq(rq.id, 1, "the id is known, for the answer: %s", cases[i].text);
                holder_request_clear(&rq);
        }
        /* Stdin over its limit, refused before it is decoded. */
        size_t big = (HOLDER_STDIN_MAX + 2) / 3 * 4 + 4;
        char *text = malloc(big + 128);
        int k = sprintf(text, "{\"id\":1,\"op\":\"process_stdin\",\"process_id\":\"p1\","
                              "\"eof\":true,\"data\":\"");
        memset(text + k, 'A', big);
        strcpy(text + k + big, "\"}");
        cr_assert_eq(parse(text, &rq, "data: more than 8388608 bytes"), -EINVAL);
        holder_request_clear(&rq);
        free(text);
}

Test(holder_proto, replies)
{
        char *s = dump(holder_reply_ok(3, json_pack("{s:s}", "process_id", "p1")));
        cr_assert_str_eq(s, "{\"id\":3,\"ok\":true,\"result\":{\"process_id\":\"p1\"}}");
        free(s);
        struct serve_error err = {};
        serve_error_set(&err, SERVE_ERR_UNSUPPORTED, "no mount namespace");
        err.backend = "landlock";
        err.operation = "mount";
        json_t *j = holder_reply_error(4, &err);
        s = dump(j);
        cr_assert_str_eq(s, "{\"error\":{\"backend\":\"landlock\",\"kind\":\"unsupported\","
                            "\"message\":\"no mount namespace\",\"operation\":\"mount\"},"
                            "\"id\":4,\"ok\":false}");
        free(s);
        json_decref(j);
        cr_assert_null(holder_reply_ok(5, NULL));
}
