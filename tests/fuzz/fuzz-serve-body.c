/* Fuzz target for cordon-serve's small bodies (src/serve/serve-body.c): the input is a body for
 * each of the stdin, signal and resize parsers and the empty-body check, a path segment to
 * percent-decode and an after_seq. Checks: a refusal is -EINVAL with an invalid_request message
 * (or -ENOMEM); what parsed is within its limits; a decoded segment holds no NUL and is no
 * longer than its input. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "serve/serve-body.h"

static void refusal(int r, const struct serve_error *e)
{
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
        if (r == -EINVAL)
                FUZZ_CHECK(e->kind == SERVE_ERR_INVALID_REQUEST && e->message[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        const char *d = (const char *)data;
        struct serve_error e = {0};
        json_t *args = NULL;
        int r = serve_stdin_parse(d, size, &args, &e);
        refusal(r, &e);
        if (r == 0) {
                const char *b64 = json_string_value(json_object_get(args, "data"));
                FUZZ_CHECK(b64 && strlen(b64) % 4 == 0);
                FUZZ_CHECK(json_is_boolean(json_object_get(args, "eof")));
        }
        json_decref(args);

        int sig = 0;
        r = serve_signal_parse(d, size, &sig, &e);
        refusal(r, &e);
        FUZZ_CHECK(r != 0 || (sig >= 1 && sig <= 64));

        unsigned rows = 0, cols = 0;
        r = serve_resize_parse(d, size, &rows, &cols, &e);
        refusal(r, &e);
        FUZZ_CHECK(r != 0 || (rows >= 1 && rows <= 65535 && cols >= 1 && cols <= 65535));

        refusal(serve_empty_body_check(d, size, &e), &e);

        char *out = NULL;
        r = serve_percent_decode(d, size, &out);
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
        if (r == 0)
                FUZZ_CHECK(strlen(out) <= size);
        free(out);

        char text[64];
        size_t n = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
        memcpy(text, d, n);
        text[n] = 0;
        uint64_t seq = 0;
        r = serve_after_seq_parse(text, &seq, &e);
        refusal(r, &e);
        FUZZ_CHECK(r != 0 || seq <= (uint64_t)INT64_MAX);
        return 0;
}
