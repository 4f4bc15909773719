/* NULL-terminated string vectors: the list type used for argv, envp and policy lists. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "shared/macro.h"

char **strv_free(char **l);
static inline void strv_freep(char ***l)
{
        strv_free(*l);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

size_t strv_length(char *const *l);
/* Appends a copy of @s. Returns 0 or -ENOMEM; @l is unchanged on failure. */
int strv_extend(char ***l, const char *s);
/* Appends @s itself, taking ownership (also on failure, where it is freed). */
int strv_consume(char ***l, char *s);
/* Appends the formatted string; 0 or -ENOMEM. */
_printf_(2, 3) int strv_extendf(char ***l, const char *fmt, ...);
int strv_extend_strv(char ***l, char *const *other);
char **strv_copy(char *const *l);
bool strv_contains(char *const *l, const char *s);

#define STRV_FOREACH(s, l) for (char *const *s = (l); s && *s; s++)
