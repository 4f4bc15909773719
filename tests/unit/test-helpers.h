/* Helpers shared by the unit tests (header-only; not a test itself). */
#pragma once

#include <stdarg.h>

#include "shared/strv.h"

/* A heap vector copied from string literals, for APIs that take char ** (argv, envp) while
 * literals are const under -Wwrite-strings. Aborts on allocation failure. */
#define STRV_MAKE(...) strv_make_((const char *const[]){__VA_ARGS__, NULL})

static inline char **strv_make_(const char *const *l)
{
        char **c = calloc(1, sizeof(char *));
        if (!c)
                abort();
        for (size_t i = 0; l[i]; i++)
                if (strv_extend(&c, l[i]) < 0)
                        abort();
        return c;
}
