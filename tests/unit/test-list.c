/* Unit tests for src/lib/policy/list.c: origin-tagged string lists. */
#include <errno.h>
#include <criterion/criterion.h>

#include "lib/policy/list.h"
#include "shared/macro.h"

static void list_clearp(struct cordon_list *l)
{
        cordon_list_clear(l);
}
#define _cleanup_list_ _cleanup_(list_clearp)

Test(list, add_keeps_order_and_origin)
{
        _cleanup_list_ struct cordon_list l = {0};
        cr_assert_eq(cordon_list_add(&l, "/usr", "built-in default"), 0);
        cr_assert_eq(cordon_list_add(&l, "/opt", "--ro"), 0);
        cr_assert_eq(cordon_list_add(&l, "/usr", "sandbox.conf:3"), 0, "duplicates are allowed");
        cr_assert_eq(l.n, 3);
        cr_assert_str_eq(l.items[0].value, "/usr");
        cr_assert_str_eq(l.items[0].origin, "built-in default");
        cr_assert_str_eq(l.items[1].value, "/opt");
        cr_assert_str_eq(l.items[1].origin, "--ro");
        cr_assert_str_eq(l.items[2].origin, "sandbox.conf:3");
}

Test(list, null_origin_becomes_empty)
{
        _cleanup_list_ struct cordon_list l = {0};
        cr_assert_eq(cordon_list_add(&l, "v", NULL), 0);
        cr_assert_not_null(l.items[0].origin);
        cr_assert_str_eq(l.items[0].origin, "");
}

Test(list, find_returns_first_match)
{
        _cleanup_list_ struct cordon_list l = {0};
        cr_assert_eq(cordon_list_add(&l, "a", "one"), 0);
        cr_assert_eq(cordon_list_add(&l, "b", "two"), 0);
        cr_assert_eq(cordon_list_add(&l, "a", "three"), 0);
        const struct cordon_item *it = cordon_list_find(&l, "a");
        cr_assert_not_null(it);
        cr_assert_str_eq(it->origin, "one");
        cr_assert_null(cordon_list_find(&l, "c"));
        cr_assert_null(cordon_list_find(&l, "A"), "matching is exact and case-sensitive");
        struct cordon_list empty = {0};
        cr_assert_null(cordon_list_find(&empty, "a"));
}

Test(list, add_unique)
{
        _cleanup_list_ struct cordon_list l = {0};
        cr_assert_eq(cordon_list_add_unique(&l, "x", "first"), 0);
        cr_assert_eq(cordon_list_add_unique(&l, "x", "second"), 0);
        cr_assert_eq(cordon_list_add_unique(&l, "y", "third"), 0);
        cr_assert_eq(l.n, 2);
        cr_assert_str_eq(l.items[0].origin, "first", "an existing entry is left unchanged");
}

Test(list, remove_all_equal_entries)
{
        _cleanup_list_ struct cordon_list l = {0};
        const char *values[] = {"a", "b", "a", "c", "a"};
        for (size_t i = 0; i < ELEMENTSOF(values); i++)
                cr_assert_eq(cordon_list_add(&l, values[i], NULL), 0);
        cr_assert_eq(cordon_list_remove(&l, "a"), 3);
        cr_assert_eq(l.n, 2);
        cr_assert_str_eq(l.items[0].value, "b");
        cr_assert_str_eq(l.items[1].value, "c");
        cr_assert_eq(cordon_list_remove(&l, "a"), 0);
        cr_assert_eq(cordon_list_remove(&l, "zzz"), 0);
        cr_assert_eq(l.n, 2);
}

Test(list, clear_resets)
{
        struct cordon_list l = {0};
        cr_assert_eq(cordon_list_add(&l, "a", NULL), 0);
        cordon_list_clear(&l);
        cr_assert_eq(l.n, 0);
        cr_assert_null(l.items);
        cordon_list_clear(&l); /* clearing twice is harmless */
        cr_assert_eq(cordon_list_add(&l, "b", NULL), 0, "a cleared list is reusable");
        cordon_list_clear(&l);
}

Test(list, copy_appends_deep_copy)
{
        _cleanup_list_ struct cordon_list src = {0};
        _cleanup_list_ struct cordon_list dst = {0};
        cr_assert_eq(cordon_list_add(&dst, "pre", "dst"), 0);
        cr_assert_eq(cordon_list_add(&src, "a", "o1"), 0);
        cr_assert_eq(cordon_list_add(&src, "b", "o2"), 0);
        cr_assert_eq(cordon_list_copy(&dst, &src), 0);
        cr_assert_eq(dst.n, 3);
        cr_assert_str_eq(dst.items[0].value, "pre");
        cr_assert_str_eq(dst.items[1].value, "a");
        cr_assert_str_eq(dst.items[2].origin, "o2");
        cr_assert_neq(dst.items[1].value, src.items[0].value);
}

Test(list, foreach)
{
        _cleanup_list_ struct cordon_list l = {0};
        cr_assert_eq(cordon_list_add(&l, "1", NULL), 0);
        cr_assert_eq(cordon_list_add(&l, "2", NULL), 0);
        int sum = 0;
        CORDON_LIST_FOREACH (it, &l) {
                sum += atoi(it->value);
        }
        cr_assert_eq(sum, 3);
}

/* Keeps "k*", drops "d*", fails on "e*". */
static int keep_k(const struct cordon_item *it, void *userdata)
{
        (*(int *)userdata)++;
        return it->value[0] == 'e' ? -EIO : it->value[0] == 'k';
}

Test(list, filter_keeps_order_and_stays_whole_after_an_error)
{
        struct cordon_list l = {0};
        const char *v[] = {"k1", "d1", "k2", "e1", "d2", "k3"};
        for (size_t i = 0; i < 6; i++)
                cr_assert_eq(cordon_list_add(&l, v[i], "o"), 0);
        int calls = 0;
        cr_assert_eq(cordon_list_filter(&l, keep_k, &calls), -EIO);
        cr_assert_eq(calls, 4); /* stopped at e1 */
        /* k1 k2 kept, d1 freed; e1 and what follows kept as they were. */
        cr_assert_eq(l.n, 5);
        const char *want[] = {"k1", "k2", "e1", "d2", "k3"};
        for (size_t i = 0; i < 5; i++)
                cr_assert_str_eq(l.items[i].value, want[i]);
        cordon_list_remove(&l, "e1");
        cr_assert_eq(cordon_list_filter(&l, keep_k, &calls), 0);
        cr_assert_eq(l.n, 3);
        cr_assert_str_eq(l.items[2].value, "k3");
        cordon_list_clear(&l);
}
