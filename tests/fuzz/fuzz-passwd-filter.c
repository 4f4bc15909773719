/* Fuzz target for src/lib/resolve/passwd-filter.c. The input up to the first NUL is the passwd or
 * group text; what follows it, when present, is the caller's own line. Checks that every kept line
 * is an input line with a well-formed id below 1000 or 65534, and that the self line comes last. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/resolve/passwd-filter.h"
#include "shared/macro.h"

/* Parses field 2 of @line (length @len) the strict way: digits up to ':' or the line's end. */
static bool id_of(const char *line, size_t len, unsigned long *ret)
{
        const char *p = line, *end = line + len;
        for (int i = 0; i < 2; i++) {
                p = memchr(p, ':', (size_t)(end - p));
                if (!p)
                        return false;
                p++;
        }
        if (p >= end || *p < '0' || *p > '9')
                return false;
        unsigned long v = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
                v = v * 10 + (unsigned long)(*p - '0');
                if (v > 0xffffffffUL)
                        return false;
        }
        if (p < end && *p != ':')
                return false;
        *ret = v;
        return true;
}

static bool is_input_line(const char *text, const char *line, size_t len)
{
        for (const char *p = text; *p;) {
                const char *nl = strchrnul(p, '\n');
                if ((size_t)(nl - p) == len && memcmp(p, line, len) == 0)
                        return true;
                p = *nl ? nl + 1 : nl;
        }
        return false;
}

static size_t count_lines(const char *text)
{
        size_t n = 0;
        for (const char *p = text; *p;) {
                const char *nl = strchrnul(p, '\n');
                n++;
                p = *nl ? nl + 1 : nl;
        }
        return n;
}

static void check(const char *text, unsigned long self, const char *self_line, const char *out)
{
        size_t n_out = 0;
        const char *last = NULL;
        size_t last_len = 0;
        FUZZ_CHECK(!*out || out[strlen(out) - 1] == '\n');
        for (const char *p = out; *p;) {
                const char *nl = strchr(p, '\n');
                FUZZ_CHECK(nl);
                last = p;
                last_len = (size_t)(nl - p);
                n_out++;
                p = nl + 1;
        }
        FUZZ_CHECK(n_out <= count_lines(text) + (self_line ? count_lines(self_line) + 1 : 0));
        if (self_line && !strchr(self_line, '\n')) {
                FUZZ_CHECK(last && last_len == strlen(self_line) &&
                           memcmp(last, self_line, last_len) == 0);
                /* Every line before the self line was kept from the input. */
                for (const char *p = out; p != last;) {
                        const char *nl = strchr(p, '\n');
                        size_t len = (size_t)(nl - p);
                        unsigned long id;
                        FUZZ_CHECK(is_input_line(text, p, len));
                        FUZZ_CHECK(id_of(p, len, &id));
                        FUZZ_CHECK(id < 1000 || id == 65534);
                        FUZZ_CHECK(id != self);
                        p = nl + 1;
                }
        }
        if (!self_line)
                for (const char *p = out; *p;) {
                        const char *nl = strchr(p, '\n');
                        size_t len = (size_t)(nl - p);
                        unsigned long id;
                        FUZZ_CHECK(is_input_line(text, p, len));
                        FUZZ_CHECK(id_of(p, len, &id));
                        /* Without a replacement line the caller's own entry is kept. */
                        FUZZ_CHECK(id < 1000 || id == 65534 || id == self);
                        p = nl + 1;
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        /* Two C strings: the database text and, after a NUL, the self line. */
        _cleanup_free_ char *buf = malloc(size + 2);
        if (!buf)
                return 0;
        memcpy(buf, data, size);
        buf[size] = 0;
        buf[size + 1] = 0;
        const char *text = buf;
        size_t tl = strlen(text);
        const char *self_line = tl < size ? buf + tl + 1 : NULL;

        static const unsigned long ids[] = {0, 1000, 65534};
        for (size_t i = 0; i < ELEMENTSOF(ids); i++) {
                _cleanup_free_ char *pw = NULL;
                _cleanup_free_ char *gr = NULL;
                _cleanup_free_ char *plain = NULL;
                FUZZ_CHECK(cordon_passwd_filter(text, (uid_t)ids[i], self_line, &pw) == 0);
                check(text, ids[i], self_line, pw);
                FUZZ_CHECK(cordon_group_filter(text, (gid_t)ids[i], self_line, &gr) == 0);
                check(text, ids[i], self_line, gr);
                FUZZ_CHECK(cordon_passwd_filter(text, (uid_t)ids[i], NULL, &plain) == 0);
                check(text, ids[i], NULL, plain);
                /* A home is only ever found where a line has the id, and never holds a field
                 * separator or a line break. */
                _cleanup_free_ char *home = NULL;
                int r = cordon_passwd_db_home(text, ids[i], &home);
                FUZZ_CHECK(r == 0 || r == -ENOENT || r == -EINVAL);
                FUZZ_CHECK((r == -ENOENT) == !cordon_passwd_db_has_id(text, ids[i]));
                FUZZ_CHECK(r != 0 || (home && !strpbrk(home, ":\n")));
        }
        return 0;
}
