/* cordon_policy_check_source(): an attach's checks of its source, against a policy before a
 * start. */
#include <criterion/criterion.h>
#include <errno.h>

#include "cordon/cordon.h"
#include "cordon/session.h"

static struct cordon_policy *policy(void)
{
        struct cordon_policy *p = cordon_policy_new();
        cr_assert_not_null(p);
        cr_assert_eq(cordon_policy_add_fs(p, "/srv/home/.ssh", NULL, CORDON_ACCESS_MASKED, 0, "t"),
                     0);
        cr_assert_eq(
            cordon_policy_add_fs(p, "/srv/data/ro", "/srv/data/ro", CORDON_ACCESS_RO, 0, "t"), 0);
        return p;
}

Test(policy_check_source, a_hidden_path_at_in_or_below)
{
        struct cordon_policy *p = policy();
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_policy_check_source(p, "/srv/home/.ssh", 0, &diag), -EACCES);
        cr_assert_eq(cordon_policy_check_source(p, "/srv/home/.ssh/keys", 0, &diag), -EACCES);
        cr_assert_eq(cordon_policy_check_source(p, "/srv/home", 0, &diag), -EACCES);
        cr_assert(strstr(diag.message, "/srv/home/.ssh"), "%s", diag.message);
        /* The positive control: beside it. */
        cr_assert_eq(cordon_policy_check_source(p, "/srv/home-other", 0, &diag), 0);
        cordon_policy_free(p);
}

Test(policy_check_source, read_write_may_not_hold_a_read_only_path)
{
        struct cordon_policy *p = policy();
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_policy_check_source(p, "/srv/data", CORDON_ATTACH_READ_WRITE, &diag),
                     -EACCES);
        cr_assert_eq(cordon_policy_check_source(p, "/srv/data", 0, &diag), 0);
        cr_assert_eq(cordon_policy_check_source(p, "/srv/other", CORDON_ATTACH_READ_WRITE, &diag),
                     0);
        cordon_policy_free(p);
}

Test(policy_check_source, bad_arguments)
{
        struct cordon_policy *p = policy();
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_policy_check_source(p, "relative", 0, &diag), -EINVAL);
        cr_assert_eq(cordon_policy_check_source(p, "/srv/../etc", 0, &diag), -EINVAL);
        cr_assert_eq(cordon_policy_check_source(p, "/srv", 1u << 5, &diag), -EINVAL);
        cr_assert_eq(cordon_policy_check_source(NULL, "/srv", 0, &diag), -EINVAL);
        cordon_policy_free(p);
}
