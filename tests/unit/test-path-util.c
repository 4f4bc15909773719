/* Unit tests for src/shared/path-util.c: pure path string helpers. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "shared/macro.h"
#include "shared/path-util.h"

Test(path_util, is_absolute)
{
        cr_assert(path_is_absolute("/"));
        cr_assert(path_is_absolute("/usr/lib"));
        cr_assert_not(path_is_absolute("usr"));
        cr_assert_not(path_is_absolute("./usr"));
        cr_assert_not(path_is_absolute(""));
        cr_assert_not(path_is_absolute(NULL));
}

Test(path_util, is_below_component_boundary)
{
        cr_assert(path_is_below("/foo", "/foo"));
        cr_assert(path_is_below("/foo/bar", "/foo"));
        cr_assert(path_is_below("/foo/bar/baz", "/foo/bar"));
        cr_assert_not(path_is_below("/foobar", "/foo"));
        cr_assert_not(path_is_below("/fo", "/foo"));
        cr_assert_not(path_is_below("/foo", "/foo/bar"));
        cr_assert_not(path_is_below("/bar/foo", "/foo"));
}

/* path_is_below_n() gives path_is_below()'s answer for every pair. */
Test(path_util, is_below_n_agrees)
{
        const char *paths[] = {"/",
                               "/foo",
                               "/foo/bar",
                               "/foo/bar/baz",
                               "/foobar",
                               "/fo",
                               "/bar/foo",
                               "relative",
                               "/foo/",
                               "/home/u/.claude",
                               "/home/u/.claude/todos",
                               "/home/u/.claudex",
                               "",
                               "x",
                               "/x"};
        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                for (size_t j = 0; j < ELEMENTSOF(paths); j++)
                        cr_assert_eq(path_is_below_n(paths[i], strlen(paths[i]), paths[j]),
                                     path_is_below(paths[i], paths[j]), "'%s' below '%s'", paths[i],
                                     paths[j]);
}

Test(path_util, is_normal)
{
        cr_assert(path_is_normal("/"));
        cr_assert(path_is_normal("/a/b.c/..d"));
        cr_assert_not(path_is_normal("a/b"));
        cr_assert_not(path_is_normal("/a/"));
        cr_assert_not(path_is_normal("/a//b"));
        cr_assert_not(path_is_normal("/a/./b"));
        cr_assert_not(path_is_normal("/a/.."));
}

Test(path_util, is_below_root)
{
        cr_assert(path_is_below("/", "/"));
        cr_assert(path_is_below("/anything", "/"));
        cr_assert(path_is_below("/a/b/c", "/"));
        cr_assert_not(path_is_below("relative", "/"));
}

static void check_normalize(const char *in, const char *expected)
{
        _cleanup_free_ char *out = NULL;
        int r = path_normalize(in, &out);
        cr_assert_eq(r, 0, "path_normalize(\"%s\") = %d", in, r);
        cr_assert_str_eq(out, expected, "path_normalize(\"%s\") = \"%s\", expected \"%s\"", in, out,
                         expected);
}

Test(path_util, normalize_collapses)
{
        check_normalize("/", "/");
        check_normalize("//", "/");
        check_normalize("/./", "/");
        check_normalize("/.", "/");
        check_normalize("/usr", "/usr");
        check_normalize("/usr/", "/usr");
        check_normalize("//usr//lib//", "/usr/lib");
        check_normalize("/usr/./lib/.", "/usr/lib");
        check_normalize("/a/.b/..c/...", "/a/.b/..c/...");
}

Test(path_util, normalize_refuses_relative_and_dotdot)
{
        char *out = (char *)0x1;
        cr_assert_eq(path_normalize("usr/lib", &out), -EINVAL);
        cr_assert_eq(path_normalize("", &out), -EINVAL);
        cr_assert_eq(path_normalize("/usr/../etc", &out), -EINVAL);
        cr_assert_eq(path_normalize("/..", &out), -EINVAL);
        cr_assert_eq(path_normalize("/a/..", &out), -EINVAL);
        /* ret_ is set only on success. */
        cr_assert_eq(out, (char *)0x1);
}

Test(path_util, join)
{
        struct {
                const char *a, *b, *expected;
        } cases[] = {
            {"/usr", "lib", "/usr/lib"},
            {"/usr/", "lib", "/usr/lib"},
            {"/usr", "/lib", "/usr/lib"},
            {"/usr/", "//lib", "/usr/lib"},
            {"/", "etc", "/etc"},
            {"", "etc", "/etc"},
            {"/home/u", ".ssh", "/home/u/.ssh"},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *j = path_join(cases[i].a, cases[i].b);
                cr_assert_not_null(j);
                cr_assert_str_eq(j, cases[i].expected, "path_join(\"%s\", \"%s\") = \"%s\"",
                                 cases[i].a, cases[i].b, j);
        }
}

Test(path_util, depth)
{
        cr_assert_eq(path_depth("/"), 0);
        cr_assert_eq(path_depth("/usr"), 1);
        cr_assert_eq(path_depth("/usr/lib"), 2);
        cr_assert_eq(path_depth("/usr/lib/x86_64-linux-gnu"), 3);
        cr_assert_eq(path_depth("/usr/"), 1);
}
