/* A strict parser of bash's `declare -p` output, for the variables the configuration loader asks
 * bash for (config-eval.c). Only the forms bash prints are taken: `declare -FLAGS NAME`,
 * `declare -FLAGS NAME="..."`, `declare -a NAME=([0]="..." ...)`, values double-quoted or in
 * $'...' (ANSI-C) quoting. Anything else is refused: the text comes from a process that ran
 * the user's code. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"

#define CORDON_DECLARE_VALUE_MAX (64u * 1024)   /* bytes of one value, decoded */
#define CORDON_DECLARE_ITEMS_MAX 4096u          /* elements of one array */
#define CORDON_DECLARE_TEXT_MAX  (1024u * 1024) /* the whole dump */

/* One variable of a dump. */
struct cordon_declare_value {
        bool present; /* the dump declares it */
        bool array;   /* declare -a */
        /* An array's elements in index order (a sparse array keeps its order, not its
         * indexes); a scalar's value as the one item, or no item when it has none (declared
         * and never assigned). */
        char **items;
        size_t n;
};

/* Parses the declarations at @text + *@pos (of @len bytes) up to the end or to a line that
 * starts with '#' (the caller's section marker), and advances *@pos to it. @ret has @n_names
 * slots, one per name of @names: a declared name fills its slot. Refused (-EINVAL, with the
 * line of the section and the reason in @diag): a name not in @names or declared twice, an
 * associative array or nameref, a form bash does not print, a NUL, an unknown escape, a value
 * above CORDON_DECLARE_VALUE_MAX, more than CORDON_DECLARE_ITEMS_MAX elements, indexes out of
 * order. Returns 0, -EINVAL or -ENOMEM; on failure @ret holds what was parsed before (release
 * it with cordon_declare_values_clear() either way). */
int cordon_declare_parse(const char *text, size_t len, size_t *pos, const char *const *names,
                         size_t n_names, struct cordon_declare_value *ret,
                         struct cordon_diag *diag);
void cordon_declare_values_clear(struct cordon_declare_value *v, size_t n);
