/* Fuzz target for src/lib/terminal/term-filter.c. Byte 0: passthrough (bit 0) and the read size
 * (the rest); then the inside's output. Checks the output bound, in place = separate buffer, no
 * string but OSC 8 and idempotence when filtering, byte for byte in passthrough, the finish bound.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/terminal/term-filter.h"
#include "shared/macro.h"

/* Filters @in in chunks of @chunk bytes into @out, and in place into a second buffer; both
 * results must be the same. Returns the length. */
static size_t run(bool passthrough, const uint8_t *in, size_t n, size_t chunk, uint8_t *out,
                  uint8_t *scratch, struct cordon_term_filter *f)
{
        struct cordon_term_filter g;
        size_t len = 0, len2 = 0;
        cordon_term_filter_init(f, passthrough);
        cordon_term_filter_init(&g, passthrough);
        for (size_t off = 0; off < n; off += chunk) {
                size_t k = n - off < chunk ? n - off : chunk;
                size_t w = cordon_term_filter_output(f, in + off, k, out + len);
                FUZZ_CHECK(w <= k + CORDON_TERM_FILTER_HOLD_MAX);
                FUZZ_CHECK(f->hold_len <= CORDON_TERM_FILTER_HOLD_MAX);
                len += w;
                /* In place: the read lands HOLD_MAX behind the end of the output, as in pty.c. */
                uint8_t *at = scratch + len2 + CORDON_TERM_FILTER_HOLD_MAX;
                memcpy(at, in + off, k);
                len2 += cordon_term_filter_output(&g, at, k, scratch + len2);
        }
        FUZZ_CHECK(len == len2 && memcmp(out, scratch, len) == 0);
        return len;
}

/* No DCS, SOS, PM, APC and no OSC but 8, in 7-bit form (the 8-bit forms cannot be told from
 * UTF-8 text by a plain search; the idempotence check covers them). */
static void check_no_strings(const uint8_t *p, size_t n)
{
        for (size_t i = 0; i + 1 < n; i++) {
                if (p[i] != 0x1b)
                        continue;
                FUZZ_CHECK(p[i + 1] != 'P' && p[i + 1] != 'X' && p[i + 1] != '^' &&
                           p[i + 1] != '_');
                if (p[i + 1] == ']')
                        FUZZ_CHECK(i + 3 < n && p[i + 2] == '8' && p[i + 3] == ';');
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1 || size > FUZZ_MAX_INPUT)
                return 0;
        bool passthrough = data[0] & 1;
        size_t chunk = (size_t)(data[0] >> 1) + 1;
        const uint8_t *in = data + 1;
        size_t n = size - 1;

        /* Every chunk may add HOLD_MAX; the in-place copy needs HOLD_MAX in front as well. */
        size_t cap = n + (n / chunk + 2) * CORDON_TERM_FILTER_HOLD_MAX;
        _cleanup_free_ uint8_t *out = malloc(cap), *scratch = malloc(cap), *again = malloc(cap),
                               *scratch2 = malloc(cap);
        if (!out || !scratch || !again || !scratch2)
                return 0;
        struct cordon_term_filter f;
        size_t len = run(passthrough, in, n, chunk, out, scratch, &f);
        /* Over the whole input nothing is added: every byte written stands for one read. */
        FUZZ_CHECK(len <= n);
        if (passthrough)
                FUZZ_CHECK(len == n && memcmp(out, in, n) == 0);
        else {
                check_no_strings(out, len);
                struct cordon_term_filter f2;
                size_t len2 = run(false, out, len, n + 1, again, scratch2, &f2);
                /* The same, but for what the second filter still holds at the end (a C2 that
                 * the first one wrote once the byte after it showed it was text). */
                FUZZ_CHECK(len2 + f2.hold_len == len && memcmp(again, out, len2) == 0 &&
                           memcmp(f2.hold, out + len2, f2.hold_len) == 0);
        }

        cordon_term_filter_input(&f, in, n);
        uint8_t fin[CORDON_TERM_FILTER_FINISH_MAX];
        size_t k = cordon_term_filter_finish(&f, fin);
        FUZZ_CHECK(k <= sizeof(fin));
        FUZZ_CHECK(cordon_term_filter_finish(&f, fin) == 0);
        return 0;
}
