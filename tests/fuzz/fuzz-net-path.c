/* Fuzz target for src/lib/net/net-path.c: the input is a plain HTTP request's path (and query)
 * as received, the first line of it also a pattern's path. A normalised path starts with "/",
 * holds no "%", "\\", ";", "?" or "#", no empty segment but a trailing one, no "." or ".."
 * segment and no segment ending in "." or a space, is no longer than the input plus one, and
 * (without a decoded space) normalises to itself; it is under itself and its every segment-boundary
 * prefix. A pattern's path parses to itself again. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/net/net-path.h"
#include "shared/macro.h"

static void check_normal(const char *n, size_t in_len)
{
        size_t len = strlen(n);
        FUZZ_CHECK(n[0] == '/' && len <= in_len + 1);
        FUZZ_CHECK(!strpbrk(n, "%\\;?#"));
        for (size_t i = 0, seg = 1; i < len; i++) {
                unsigned char c = (unsigned char)n[i];
                FUZZ_CHECK(c >= 0x20 && c < 0x7f);
                if (i + 1 < len && n[i] == '/' && n[i + 1] == '/')
                        FUZZ_CHECK(false);
                if (i + 1 == len || n[i + 1] == '/') {
                        const char *s = n + seg;
                        size_t sl = i + 1 - seg;
                        if (n[i] == '/') /* the trailing empty segment */
                                break;
                        FUZZ_CHECK(!(sl == 1 && s[0] == '.'));
                        FUZZ_CHECK(!(sl == 2 && s[0] == '.' && s[1] == '.'));
                        FUZZ_CHECK(s[sl - 1] != '.' && s[sl - 1] != ' ');
                        seg = i + 2;
                        /* Under every prefix that ends on a segment boundary. */
                        static char prefix[FUZZ_MAX_INPUT + 2];
                        memcpy(prefix, n, i + 1);
                        prefix[i + 1] = 0;
                        FUZZ_CHECK(cordon_net_path_under(n, prefix, false));
                        FUZZ_CHECK(cordon_net_path_under(n, prefix, true));
                }
        }
        /* A decoded space is no byte a request may hold literally: such a path is not read
         * again. */
        char *again = strchr(n, ' ') ? NULL : malloc(len + 2);
        if (!again)
                return;
        FUZZ_CHECK(cordon_net_path_normalize(n, len, again, NULL) == 0);
        FUZZ_CHECK(streq(again, n));
        free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        char *out = malloc(size + 2);
        if (!out)
                return 0;
        const char *why = NULL;
        if (cordon_net_path_normalize((const char *)data, size, out, &why) == 0)
                check_normal(out, size);
        else
                FUZZ_CHECK(why && why[0]);

        const uint8_t *nl = memchr(data, '\n', size);
        size_t first = nl ? (size_t)(nl - data) : size;
        if (!memchr(data, 0, first)) {
                why = NULL;
                if (cordon_net_path_pattern((const char *)data, first, out, &why) == 0) {
                        char *again = malloc(strlen(out) + 1);
                        FUZZ_CHECK(out[0] == '/' && strlen(out) > 1);
                        if (again) {
                                FUZZ_CHECK(cordon_net_path_pattern(out, strlen(out), again, NULL) ==
                                           0);
                                FUZZ_CHECK(streq(again, out));
                                free(again);
                        }
                } else
                        FUZZ_CHECK(why && why[0]);
        }
        free(out);
        return 0;
}
