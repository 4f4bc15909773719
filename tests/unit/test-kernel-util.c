/* Unit tests for src/shared/kernel-util.c. */
#include <criterion/criterion.h>
#include <stddef.h>

#include "shared/kernel-util.h"
#include "shared/macro.h"

Test(kernel_util, release_number)
{
        static const struct {
                const char *release;
                unsigned number;
        } cases[] = {
            {"5.14.0-1-amd64", 514},
            {"6.18.44-fc-v669", 618},
            {"5.4", 504},
            {"4.19.0", 419},
            {"garbage", 0},
            {"5", 0},
            {NULL, 0},
            {"5.100", 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                cr_expect_eq(kernel_release_number(cases[i].release), cases[i].number, "%s",
                             cases[i].release ? cases[i].release : "(null)");
}

Test(kernel_util, running_release)
{
        cr_expect(kernel_release_at_least(300), "any kernel that runs these tests");
        cr_expect_not(kernel_release_at_least(99999));
}
