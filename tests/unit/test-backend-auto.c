/* Unit tests for src/lib/launch/backend-auto.c: the one decision of the `auto` backend, taken by
 * the launcher (no probe: try ns, fall back) and by `cordon doctor` (probed facts). */
#include <criterion/criterion.h>
#include <errno.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "cordon/doctor.h"
#include "lib/launch/backend-auto.h"

static int decide(int userns, int abi, uid_t euid, long apparmor, bool *fall_back)
{
        const struct cordon_backend_facts f = {.userns = userns,
                                               .landlock_abi = abi,
                                               .euid = euid,
                                               .apparmor_restrict_unprivileged_userns = apparmor};
        return cordon_backend_auto_decide(&f, fall_back);
}

Test(backend_auto, launcher_tries_ns_and_may_fall_back)
{
        bool fb = false;
        cr_assert_eq(decide(-1, 6, 1000, -1, &fb), CORDON_BACKEND_NS);
        cr_assert(fb, "an unprobed ns may still fall back");
        fb = false;
        cr_assert_eq(decide(-1, -ENOSYS, 1000, 0, &fb), CORDON_BACKEND_NS);
        cr_assert(fb, "without Landlock the fallback reports why it cannot run");
}

Test(backend_auto, apparmor_restriction_picks_landlock_for_the_unprivileged)
{
        bool fb = true;
        cr_assert_eq(decide(-1, 6, 1000, 1, &fb), CORDON_BACKEND_LANDLOCK);
        cr_assert_not(fb);
        /* Root is exempt; a probe that worked does not overrule the launcher's shortcut. */
        cr_assert_eq(decide(-1, 6, 0, 1, &fb), CORDON_BACKEND_NS);
        cr_assert_eq(decide(1, 6, 1000, 1, NULL), CORDON_BACKEND_LANDLOCK);
        /* Without Landlock there is nothing to pick instead: ns is tried. */
        cr_assert_eq(decide(-1, -EOPNOTSUPP, 1000, 1, &fb), CORDON_BACKEND_NS);
        cr_assert(fb);
        cr_assert_eq(decide(-1, 6, 1000, 2, &fb), CORDON_BACKEND_NS, "only the value 1 restricts");
}

Test(backend_auto, probed_facts_answer_with_the_fallback)
{
        bool fb = true;
        cr_assert_eq(decide(1, 6, 1000, -1, &fb), CORDON_BACKEND_NS);
        cr_assert_not(fb, "a probed namespace needs no fallback");
        cr_assert_eq(decide(0, 6, 1000, -1, &fb), CORDON_BACKEND_LANDLOCK);
        cr_assert_eq(decide(0, 1, 1000, -1, &fb), CORDON_BACKEND_LANDLOCK);
        cr_assert_eq(decide(0, -ENOSYS, 1000, -1, &fb), -EOPNOTSUPP);
        cr_assert_eq(decide(0, -ENOSYS, 0, -1, NULL), -EOPNOTSUPP);
}

Test(backend_auto, facts_read_leaves_the_probe_to_the_clone)
{
        struct cordon_backend_facts f;
        cordon_backend_facts_read(5, &f);
        cr_assert_eq(f.userns, -1);
        cr_assert_eq(f.landlock_abi, 5);
        cr_assert_eq(f.euid, geteuid());
        if (f.euid == 0)
                cr_assert_eq(f.apparmor_restrict_unprivileged_userns, -1, "root does not read it");
}

Test(backend_auto, doctor_report_uses_the_same_decision)
{
        struct cordon_doctor_report r = {0};
        r.userns.usable = true;
        r.userns.apparmor_restrict_unprivileged_userns = -1;
        r.landlock.abi = 6;
        cr_assert_eq(cordon_doctor_auto_backend(&r), CORDON_BACKEND_NS);
        r.userns.usable = false;
        cr_assert_eq(cordon_doctor_auto_backend(&r), CORDON_BACKEND_LANDLOCK);
        r.landlock = (struct cordon_doctor_landlock){.error = -EOPNOTSUPP};
        cr_assert_eq(cordon_doctor_auto_backend(&r), -EOPNOTSUPP);
}
