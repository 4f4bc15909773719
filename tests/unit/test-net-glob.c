/* Unit tests for src/lib/net/net-glob.c: bash's `*` and `?` over host names, and the inclusion
 * and intersection of two globs. */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/net/net-glob.h"
#include "shared/macro.h"

TestSuite(net_glob);

Test(net_glob, match_as_bash)
{
        static const struct {
                const char *glob, *name;
                bool match;
        } cases[] = {
            /* `*` spans dots, as bash's does. */
            {"email.*.amazonaws.com", "email.eu-west-1.amazonaws.com", true},
            {"email.*.amazonaws.com", "email.a.b.amazonaws.com", true},
            {"email.*.amazonaws.com", "email..amazonaws.com", true}, /* no name has it */
            {"email.*.amazonaws.com", "email.amazonaws.com", false},
            {"email.*.amazonaws.com", "xemail.eu.amazonaws.com", false},
            {"email.*.amazonaws.com", "email.eu.amazonaws.com.evil.com", false},
            {"api-?.example.com", "api-1.example.com", true},
            {"api-?.example.com", "api-.example.com", false},
            {"api-?.example.com", "api-12.example.com", false},
            {"*.s3.*.amazonaws.com", "b.s3.us-east-1.amazonaws.com", true},
            {"*.s3.*.amazonaws.com", "s3.us-east-1.amazonaws.com", false},
            {"*example.com", "example.com", true},
            {"*example.com", "badexample.com", true},
            {"*example.com", "example.com.evil", false},
            {"example.*", "example.org", true},
            {"a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
            {"a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", true},
            {"*", "anything.at.all", true},
            {"?", "", false},
            {"", "", true},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                cr_expect_eq(cordon_net_glob_match(cases[i].glob, cases[i].name), cases[i].match,
                             "%s ~ %s", cases[i].glob, cases[i].name);
}

Test(net_glob, includes)
{
        static const struct {
                const char *outer, *inner;
                bool included;
        } cases[] = {
            {"*.example.com", "a.example.com", true},
            {"*.example.com", "*.a.example.com", true},
            {"*.example.com", "*.example.com", true},
            {"*.example.com", "example.com", false},
            {"*.amazonaws.com", "email.*.amazonaws.com", true},
            {"email.*.amazonaws.com", "*.amazonaws.com", false},
            {"email.*.amazonaws.com", "email.eu-west-1.amazonaws.com", true},
            {"email.*.amazonaws.com", "email.?.amazonaws.com", true},
            {"api-?.example.com", "api-1.example.com", true},
            {"api-?.example.com", "api-*.example.com", false},
            {"api-*.example.com", "api-?.example.com", true},
            {"a.example.com", "a.example.com", true},
            {"a.example.com", "?.example.com", false},
            {"*", "*.example.com", true},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                cr_expect_eq(cordon_net_glob_includes(cases[i].outer, cases[i].inner),
                             cases[i].included, "%s includes %s", cases[i].outer, cases[i].inner);
}

Test(net_glob, intersects_symmetric)
{
        static const struct {
                const char *a, *b;
                bool meet;
        } cases[] = {
            {"email.*.amazonaws.com", "*.eu-west-1.amazonaws.com", true},
            {"email.*.amazonaws.com", "smtp.*.amazonaws.com", false},
            {"email.*.amazonaws.com", "email.eu.amazonaws.com", true},
            {"email.*.amazonaws.com", "*.example.com", false},
            {"api-?.example.com", "api-12.example.com", false},
            {"api-?.example.com", "*-1.example.com", true},
            {"*a", "b*", true},
            {"a*", "b*", false},
            {"?", "??", false},
            {"*.example.com", "example.com", false},
            {"example.com", "example.com", true},
            {"*", "x", true},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                cr_expect_eq(cordon_net_glob_intersects(cases[i].a, cases[i].b), cases[i].meet,
                             "%s meets %s", cases[i].a, cases[i].b);
                cr_expect_eq(cordon_net_glob_intersects(cases[i].b, cases[i].a), cases[i].meet,
                             "%s meets %s", cases[i].b, cases[i].a);
        }
}

Test(net_glob, weight_counts_all_but_stars)
{
        cr_expect_eq(cordon_net_glob_weight("email.*.amazonaws.com"), 20);
        cr_expect_eq(cordon_net_glob_weight("api-?.example.com"), 17);
        cr_expect_eq(cordon_net_glob_weight("*"), 0);
        /* A longer text of fixed characters is more specific than a suffix rule under it. */
        cr_expect_gt(cordon_net_glob_weight("email.*.amazonaws.com"),
                     cordon_net_glob_weight("*.amazonaws.com"));
}
