/* cordon_session_check_host_trees(): which host trees a session's start takes
 * (cordon_sandbox_options.host_trees). */
#include <criterion/criterion.h>
#include <errno.h>

#include "cordon/cordon.h"
#include "lib/supervisor/session.h"

static int check(const struct cordon_host_tree *t, size_t n, unsigned flags)
{
        const struct cordon_sandbox_options o = {
            .flags = flags, .host_trees = t, .n_host_trees = n};
        struct cordon_diag diag = {0};
        return cordon_session_check_host_trees(&o, &diag);
}

Test(session_host_trees, none_is_fine_anywhere)
{
        cr_assert_eq(check(NULL, 0, 0), 0);
}

Test(session_host_trees, good_ones)
{
        const struct cordon_host_tree t[] = {{"root", "/srv/s/root"}, {"out.v1_x-y", "/srv/o"}};
        cr_assert_eq(check(t, 2, CORDON_SANDBOX_SESSION), 0);
}

Test(session_host_trees, only_a_session)
{
        const struct cordon_host_tree t[] = {{"root", "/srv/s/root"}};
        cr_assert_eq(check(t, 1, 0), -EINVAL);
        cr_assert_eq(check(NULL, 1, CORDON_SANDBOX_SESSION), -EINVAL);
}

Test(session_host_trees, bad_names)
{
        const char *bad[] = {"",    ".hidden", "a/b",
                             "a b", "x\n",     "012345678901234567890123456789012"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                const struct cordon_host_tree t[] = {{bad[i], "/srv/x"}};
                cr_assert_eq(check(t, 1, CORDON_SANDBOX_SESSION), -EINVAL, "name '%s'", bad[i]);
        }
        const struct cordon_host_tree none[] = {{NULL, "/srv/x"}};
        cr_assert_eq(check(none, 1, CORDON_SANDBOX_SESSION), -EINVAL);
        const struct cordon_host_tree twice[] = {{"a", "/srv/x"}, {"a", "/srv/y"}};
        cr_assert_eq(check(twice, 2, CORDON_SANDBOX_SESSION), -EINVAL);
}

Test(session_host_trees, bad_paths)
{
        const char *bad[] = {"relative", "/", "/srv/../etc", "/srv/./x", "/srv//x", ""};
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                const struct cordon_host_tree t[] = {{"a", bad[i]}};
                cr_assert_eq(check(t, 1, CORDON_SANDBOX_SESSION), -EINVAL, "path '%s'", bad[i]);
        }
        const struct cordon_host_tree none[] = {{"a", NULL}};
        cr_assert_eq(check(none, 1, CORDON_SANDBOX_SESSION), -EINVAL);
}

Test(session_host_trees, at_most_four)
{
        const struct cordon_host_tree t[] = {
            {"a", "/a"}, {"b", "/b"}, {"c", "/c"}, {"d", "/d"}, {"e", "/e"}};
        cr_assert_eq(check(t, 4, CORDON_SANDBOX_SESSION), 0);
        cr_assert_eq(check(t, 5, CORDON_SANDBOX_SESSION), -EINVAL);
}
