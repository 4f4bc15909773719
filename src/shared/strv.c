/* String vector helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/strv.h"

char **strv_free(char **l)
{
        if (!l)
                return NULL;
        for (char **s = l; *s; s++)
                free(*s);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l)
{
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

int strv_consume(char ***l, char *s)
{
        if (!s)
                return -ENOMEM;
        size_t n = strv_length(*l);
        char **nl = realloc(*l, sizeof(char *) * (n + 2));
        if (!nl) {
                free(s);
                return -ENOMEM;
        }
        nl[n] = s;
        nl[n + 1] = NULL;
        *l = nl;
        return 0;
}

int strv_extend(char ***l, const char *s)
{
        return strv_consume(l, strdup(s));
}

int strv_extend_strv(char ***l, char *const *other)
{
        STRV_FOREACH (s, other) {
                int r = strv_extend(l, *s);
                if (r < 0)
                        return r;
        }
        return 0;
}

char **strv_copy(char *const *l)
{
        char **c = calloc(1, sizeof(char *));
        if (!c)
                return NULL;
        if (strv_extend_strv(&c, l) < 0)
                return strv_free(c);
        return c;
}

bool strv_contains(char *const *l, const char *s)
{
        STRV_FOREACH (i, l)
                if (streq(*i, s))
                        return true;
        return false;
}

int strv_extendf(char ***l, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *s = NULL;
        int r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return strv_consume(l, s);
}
