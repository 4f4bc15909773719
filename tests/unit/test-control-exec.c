/* Unit tests for src/lib/launch/control-exec.c: a session's exec request, encoded and parsed
 * back, and what a parse refuses. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/launch/control-exec.h"
#include "lib/launch/control.h"

/* A writable copy of a literal, for the char *const * arrays. */
#define S(x) ((char[]){x})

Test(control_exec, round_trip)
{
        char *argv[] = {S("sh"), S("-c"), S("echo $X"), NULL},
             *env[] = {S("X=1"), S("EMPTY="), NULL};
        void *buf = NULL;
        size_t len = 0;
        cr_assert_eq(cordon_exec_request_encode(argv, env, "/work", &buf, &len), 0);
        struct cordon_exec_request req;
        cr_assert_eq(cordon_exec_request_parse(buf, len, &req), 0);
        cr_assert_str_eq(req.argv[0], "sh");
        cr_assert_str_eq(req.argv[2], "echo $X");
        cr_assert_null(req.argv[3]);
        cr_assert_str_eq(req.envp[1], "EMPTY=");
        cr_assert_null(req.envp[2]);
        cr_assert_str_eq(req.cwd, "/work");
        cordon_exec_request_clear(&req);
        free(buf);
        /* No environment, no cwd. */
        cr_assert_eq(cordon_exec_request_encode(argv, NULL, NULL, &buf, &len), 0);
        cr_assert_eq(cordon_exec_request_parse(buf, len, &req), 0);
        cr_assert_null(req.envp[0]);
        cr_assert_null(req.cwd);
        cordon_exec_request_clear(&req);
        free(buf);
}

Test(control_exec, encode_refuses)
{
        void *buf = NULL;
        size_t len;
        char *none[] = {NULL}, *empty[] = {S(""), NULL}, *ok[] = {S("true"), NULL};
        char *noeq[] = {S("X"), NULL}, *noname[] = {S("=1"), NULL};
        cr_assert_eq(cordon_exec_request_encode(none, NULL, NULL, &buf, &len), -EINVAL);
        cr_assert_eq(cordon_exec_request_encode(empty, NULL, NULL, &buf, &len), -EINVAL);
        cr_assert_eq(cordon_exec_request_encode(ok, noeq, NULL, &buf, &len), -EINVAL);
        cr_assert_eq(cordon_exec_request_encode(ok, noname, NULL, &buf, &len), -EINVAL);
        cr_assert_eq(cordon_exec_request_encode(ok, NULL, "rel", &buf, &len), -EINVAL);
        /* Over the size limit. */
        char *big = malloc(CORDON_CONTROL_PAYLOAD_MAX);
        memset(big, 'a', CORDON_CONTROL_PAYLOAD_MAX - 1);
        big[CORDON_CONTROL_PAYLOAD_MAX - 1] = 0;
        char *bigv[] = {big, NULL};
        cr_assert_eq(cordon_exec_request_encode(bigv, NULL, NULL, &buf, &len), -E2BIG);
        free(big);
}

Test(control_exec, parse_refuses_anything_ill_formed)
{
        char *argv[] = {S("true"), NULL};
        void *buf = NULL;
        size_t len = 0;
        cr_assert_eq(cordon_exec_request_encode(argv, NULL, NULL, &buf, &len), 0);
        struct cordon_exec_request req;
        unsigned char *b = buf;
        /* Cut short at every length. */
        for (size_t k = 0; k < len; k++)
                cr_assert_eq(cordon_exec_request_parse(b, k, &req), -EBADMSG, "at %zu", k);
        /* A byte after the end. */
        unsigned char *longer = malloc(len + 1);
        memcpy(longer, b, len);
        longer[len] = 'x';
        cr_assert_eq(cordon_exec_request_parse(longer, len + 1, &req), -EBADMSG);
        free(longer);
        /* argc 0, and counts past the limits. */
        b[4] = 0;
        cr_assert_eq(cordon_exec_request_parse(b, len, &req), -EBADMSG);
        b[4] = 1;
        b[9] = 0x20; /* envc 8192 */
        cr_assert_eq(cordon_exec_request_parse(b, len, &req), -EBADMSG);
        b[9] = 0;
        /* Bad magic. */
        b[0] = 'X';
        cr_assert_eq(cordon_exec_request_parse(b, len, &req), -EBADMSG);
        free(buf);
}
