/* Fuzz target for the parser of bash's `declare -p` output (src/lib/config/declare-parse.c),
 * which reads what a bash child that ran the user's configuration printed. The input is split
 * into sections at lines starting with '#', as the loader splits the child's output; each
 * section is parsed for a fixed set of names. Invariants: it never crashes, it always stops at
 * a section marker or the end, and a value it accepts holds no NUL and stays within the
 * limits. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "lib/config/declare-parse.h"

static const char *const names[] = {"A", "B", "READONLY_MOUNTS", "HOME_ACCESS", "_x1"};
#define N (sizeof(names) / sizeof(names[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        const char *text = (const char *)data;
        size_t pos = 0;
        while (pos < size) {
                struct cordon_declare_value v[N];
                memset(v, 0, sizeof(v));
                struct cordon_diag d = {0};
                size_t before = pos;
                int r = cordon_declare_parse(text, size, &pos, names, N, v, &d);
                FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
                if (r == 0) {
                        FUZZ_CHECK(pos >= before && pos <= size);
                        FUZZ_CHECK(pos == size || text[pos] == '#');
                        for (size_t i = 0; i < N; i++) {
                                FUZZ_CHECK(v[i].n <= CORDON_DECLARE_ITEMS_MAX);
                                FUZZ_CHECK(v[i].present || v[i].n == 0);
                                for (size_t j = 0; j < v[i].n; j++)
                                        FUZZ_CHECK(strlen(v[i].items[j]) <=
                                                   CORDON_DECLARE_VALUE_MAX);
                                FUZZ_CHECK(v[i].array || v[i].n <= 1);
                        }
                } else
                        FUZZ_CHECK(d.message[0]);
                cordon_declare_values_clear(v, N);
                if (r < 0)
                        break;
                /* Skip the marker line. */
                const char *nl = memchr(text + pos, '\n', size - pos);
                pos = nl ? (size_t)(nl - text) + 1 : size;
        }
        return 0;
}
