/* Fuzz target for src/serve/client-wire.c: the input is what cordon-serve might answer. It goes
 * to the NDJSON line splitter in two chunks (each line to the record parser), to the error line,
 * to the session table when it is JSON, and to the terminal-safe text. Checks: lines stay within
 * their limit, a parsed record is one of its kinds with a positive seq, and every line that
 * reaches a terminal is UTF-8 without control characters. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "serve/client-wire.h"

/* @s is shown as text: UTF-8, no C0, DEL or C1 control characters. */
static void check_safe(const char *s)
{
        size_t n = strlen(s);
        FUZZ_CHECK(client_utf8_valid(s, n));
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                FUZZ_CHECK(c >= 0x20 && c != 0x7f);
                FUZZ_CHECK(!(c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] < 0xa0));
        }
}

static int on_line(const char *line, size_t len, void *userdata)
{
        FUZZ_CHECK(len > 0 && len <= CLIENT_LINE_MAX && strlen(line) <= len);
        struct client_record r;
        int e = client_record_parse(line, len, &r);
        FUZZ_CHECK(e == 0 || e == -EBADMSG || e == -ENOMEM);
        if (e == 0) {
                FUZZ_CHECK(r.kind == CLIENT_RECORD_ERROR || r.seq > 0);
                if (r.kind == CLIENT_RECORD_OUTPUT)
                        FUZZ_CHECK(r.len <= len);
                if (r.kind == CLIENT_RECORD_ERROR)
                        check_safe(r.error);
        }
        client_record_clear(&r);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        const char *text = (const char *)data;

        struct client_lines l = {};
        size_t half = size / 2;
        int r = client_lines_feed(&l, text, half, on_line, NULL);
        if (r == 0)
                r = client_lines_feed(&l, text + half, size - half, on_line, NULL);
        FUZZ_CHECK(r == 0 || r == -ENOMEM);
        FUZZ_CHECK(client_lines_pending(&l) <= CLIENT_LINE_MAX);
        client_lines_clear(&l);

        char line[8192];
        client_error_line(size ? data[0] : 500, text, size, line, sizeof(line));
        check_safe(line);

        char safe[4 * 64 + 4];
        client_text_safe(text, size, 64, safe);
        check_safe(safe);

        json_t *j = json_loadb(text, size, 0, NULL);
        if (j) {
                FILE *f = fopen("/dev/null", "w");
                if (f) {
                        r = client_sessions_table(j, f);
                        FUZZ_CHECK(r == 0 || r == -EBADMSG);
                        fclose(f);
                }
                json_decref(j);
        }

        return 0;
}
