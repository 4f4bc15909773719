/* Fuzz target for src/lib/resolve/proc-net-unix.c. The input is the text of /proc/net/unix. Checks
 * that every returned path is absolute, has no newline, appears once, and is the tail of some input
 * line, and that no more than CORDON_UNIX_SOCKETS_MAX come back. */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "lib/resolve/proc-net-unix.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* True when some line of @text (length @len) ends with @s. */
static bool ends_a_line(const char *text, size_t len, const char *s)
{
        size_t n = strlen(s);
        for (const char *p = text, *end = text + len; p < end;) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *eol = nl ?: end;
                if ((size_t)(eol - p) >= n && memcmp(eol - n, s, n) == 0)
                        return true;
                p = nl ? nl + 1 : end;
        }
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        const char *text = (const char *)data;
        char **paths = NULL;
        int r = cordon_proc_net_unix_parse(text, size, &paths);
        FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -E2BIG || r == -ENOMEM);
        if (r < 0) {
                FUZZ_CHECK(!paths);
                return 0;
        }
        size_t n = strv_length(paths);
        FUZZ_CHECK(n <= CORDON_UNIX_SOCKETS_MAX);
        for (size_t i = 0; i < n; i++) {
                FUZZ_CHECK(paths[i][0] == '/');
                FUZZ_CHECK(!strchr(paths[i], '\n'));
                FUZZ_CHECK(ends_a_line(text, size, paths[i]));
                for (size_t j = 0; j < i; j++)
                        FUZZ_CHECK(!streq(paths[i], paths[j]));
        }
        strv_free(paths);
        return 0;
}
