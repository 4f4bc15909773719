/* Fuzz target for src/serve/holder-proto.c: the input is bytes arriving on the daemon-holder
 * channel. Each whole frame is decoded and parsed as a request. Checks: the decoder answers a
 * frame (its length within the buffer), "not yet", or a refusal; a frame re-encodes to a frame
 * that decodes to an equal object; a request parses, refuses with an invalid_request answer
 * (whose reply encodes), or has no id; parsed values keep their limits; base64 round-trips. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "serve/holder-proto.h"

static void check_request(json_t *j)
{
        struct holder_request rq;
        struct serve_error err = {};
        int r = holder_request_parse(j, &rq, &err);
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -EBADMSG || r == -ENOMEM);
        if (r == -EINVAL) {
                FUZZ_CHECK(err.kind == SERVE_ERR_INVALID_REQUEST && err.message[0]);
                FUZZ_CHECK(rq.id > 0);
                json_t *reply = holder_reply_error(rq.id, &err);
                char *frame = NULL;
                size_t len = 0;
                FUZZ_CHECK(!reply || holder_frame_encode(reply, &frame, &len) == 0);
                free(frame);
                json_decref(reply);
        }
        if (r == 0) {
                FUZZ_CHECK(rq.id > 0 && holder_op_name(rq.op));
                FUZZ_CHECK(rq.wait_ms <= HOLDER_WAIT_MS_MAX);
                FUZZ_CHECK(rq.data_len <= HOLDER_STDIN_MAX);
                FUZZ_CHECK(!rq.process_id[0] || holder_process_id_valid(rq.process_id));
                FUZZ_CHECK(rq.signal >= 0 && rq.signal <= 64);
                FUZZ_CHECK(rq.rows <= 65535 && rq.cols <= 65535);
                FUZZ_CHECK(!rq.path || rq.path[0] == '/');
                if (rq.data_len) {
                        char *b = holder_base64_encode(rq.data, rq.data_len), *d = NULL;
                        size_t n = 0;
                        FUZZ_CHECK(!b || holder_base64_decode(b, strlen(b), &d, &n) == 0);
                        FUZZ_CHECK(!b || (n == rq.data_len && memcmp(d, rq.data, n) == 0));
                        free(b);
                        free(d);
                }
        }
        holder_request_clear(&rq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        const char *buf = (const char *)data;
        size_t off = 0;
        for (;;) {
                json_t *j = NULL;
                ssize_t n = holder_frame_decode(buf + off, size - off, &j);
                FUZZ_CHECK(n >= -EMSGSIZE);
                if (n <= 0) {
                        FUZZ_CHECK(n == 0 || n == -EMSGSIZE || n == -EBADMSG);
                        break;
                }
                FUZZ_CHECK((size_t)n <= size - off && n > 4);
                FUZZ_CHECK(json_is_object(j));
                char *frame = NULL;
                size_t len = 0;
                if (holder_frame_encode(j, &frame, &len) == 0) {
                        json_t *again = NULL;
                        FUZZ_CHECK(holder_frame_decode(frame, len, &again) == (ssize_t)len);
                        FUZZ_CHECK(json_equal(again, j));
                        json_decref(again);
                        free(frame);
                }
                check_request(j);
                json_decref(j);
                off += (size_t)n;
        }
        /* The whole input as base64 text: a decode either refuses or round-trips. */
        char *d = NULL;
        size_t n = 0;
        if (holder_base64_decode(buf, size, &d, &n) == 0) {
                char *e = holder_base64_encode(d, n);
                FUZZ_CHECK(!e || (strlen(e) == size && memcmp(e, buf, size) == 0));
                free(e);
                free(d);
        }
        return 0;
}
