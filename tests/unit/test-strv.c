/* Unit tests for src/shared/strv.c: NULL-terminated string vectors. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "shared/strv.h"
#include "test-helpers.h"

Test(strv, length_of_null_and_empty)
{
        char *empty[] = {NULL};
        cr_assert_eq(strv_length(NULL), 0);
        cr_assert_eq(strv_length(empty), 0);
}

Test(strv, extend_from_null_copies)
{
        _cleanup_strv_free_ char **l = NULL;
        char buf[] = "alpha";
        cr_assert_eq(strv_extend(&l, buf), 0);
        cr_assert_eq(strv_extend(&l, "beta"), 0);
        buf[0] = 'X'; /* a copy was stored, not the pointer */
        cr_assert_eq(strv_length(l), 2);
        cr_assert_str_eq(l[0], "alpha");
        cr_assert_str_eq(l[1], "beta");
        cr_assert_null(l[2]);
}

Test(strv, consume_takes_ownership)
{
        _cleanup_strv_free_ char **l = NULL;
        char *s = strdup("owned");
        cr_assert_not_null(s);
        cr_assert_eq(strv_consume(&l, s), 0);
        cr_assert_eq(l[0], s);
        cr_assert_null(l[1]);
}

Test(strv, consume_null_is_enomem)
{
        _cleanup_strv_free_ char **l = NULL;
        cr_assert_eq(strv_extend(&l, "a"), 0);
        cr_assert_eq(strv_consume(&l, NULL), -ENOMEM);
        cr_assert_eq(strv_length(l), 1, "the vector is unchanged on failure");
}

Test(strv, extend_strv_and_copy)
{
        _cleanup_strv_free_ char **src = STRV_MAKE("a", "b", "c");
        _cleanup_strv_free_ char **l = NULL;
        cr_assert_eq(strv_extend(&l, "first"), 0);
        cr_assert_eq(strv_extend_strv(&l, src), 0);
        cr_assert_eq(strv_length(l), 4);
        cr_assert_str_eq(l[0], "first");
        cr_assert_str_eq(l[3], "c");

        _cleanup_strv_free_ char **c = strv_copy(l);
        cr_assert_not_null(c);
        cr_assert_eq(strv_length(c), 4);
        for (size_t i = 0; i < 4; i++) {
                cr_assert_str_eq(c[i], l[i]);
                cr_assert_neq(c[i], l[i], "strv_copy must duplicate the strings");
        }
}

Test(strv, copy_of_null_is_empty_vector)
{
        _cleanup_strv_free_ char **c = strv_copy(NULL);
        cr_assert_not_null(c);
        cr_assert_null(c[0]);
}

Test(strv, extend_strv_null_other)
{
        _cleanup_strv_free_ char **l = NULL;
        cr_assert_eq(strv_extend_strv(&l, NULL), 0);
        cr_assert_eq(strv_length(l), 0);
}

Test(strv, contains)
{
        _cleanup_strv_free_ char **l = STRV_MAKE("PATH", "HOME");
        cr_assert(strv_contains(l, "HOME"));
        cr_assert_not(strv_contains(l, "HOM"));
        cr_assert_not(strv_contains(l, "HOMEX"));
        cr_assert_not(strv_contains(NULL, "HOME"));
}

Test(strv, foreach_visits_in_order)
{
        _cleanup_strv_free_ char **l = STRV_MAKE("x", "y", "z");
        char seen[4] = "";
        size_t n = 0;
        STRV_FOREACH (s, l)
                seen[n++] = (*s)[0];
        cr_assert_str_eq(seen, "xyz");
        STRV_FOREACH (s, (char **)NULL)
                cr_assert_fail("STRV_FOREACH over NULL must not iterate (%s)", *s);
}

Test(strv, free_accepts_null)
{
        cr_assert_null(strv_free(NULL));
}

Test(strv, extendf_appends_formatted)
{
        char **l = NULL;
        cr_assert_eq(strv_extendf(&l, "%s:%d", "file", 12), 0);
        cr_assert_eq(strv_extendf(&l, "plain"), 0);
        cr_assert_eq(strv_length(l), 2);
        cr_assert_str_eq(l[0], "file:12");
        cr_assert_str_eq(l[1], "plain");
        strv_free(l);
}
