/* Unit tests for src/lib/report/doctor-words.c: each check's reason in words, a limit's caveat,
 * AppArmor's fix command (quoted, never cut short) and the names of the enums' values. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cordon/doctor.h"

Test(doctor_words, userns_reason)
{
        char buf[256];
        struct cordon_doctor_userns u = {.usable = true};
        cr_expect_str_eq(cordon_doctor_userns_reason(&u, buf, sizeof(buf)), "");
        u = (struct cordon_doctor_userns){.blocker = CORDON_USERNS_BLOCKER_UNPRIVILEGED};
        cr_expect_str_eq(cordon_doctor_userns_reason(&u, buf, sizeof(buf)),
                         "kernel.unprivileged_userns_clone=0");
        u = (struct cordon_doctor_userns){.blocker = CORDON_USERNS_BLOCKER_APPARMOR,
                                          .apparmor_restrict_unprivileged_userns = 1};
        cr_expect_str_eq(cordon_doctor_userns_reason(&u, buf, sizeof(buf)),
                         "AppArmor restricts them: kernel.apparmor_restrict_unprivileged_userns=1");
        u = (struct cordon_doctor_userns){.error = -EPERM};
        cr_expect_str_eq(cordon_doctor_userns_reason(&u, buf, sizeof(buf)),
                         "probe failed with EPERM: Operation not permitted");
        /* Cut to the buffer, always terminated; nothing written for a size of 0. */
        char small[8];
        cr_expect_str_eq(cordon_doctor_userns_reason(&u, small, sizeof(small)), "probe f");
        char none[1] = {'x'};
        cr_expect_str_eq(cordon_doctor_userns_reason(&u, none, 0), "");
        cr_expect_eq(none[0], 'x');
}

Test(doctor_words, landlock_and_seccomp_reasons)
{
        char buf[256];
        struct cordon_doctor_landlock l = {.abi = 4};
        cr_expect_str_eq(cordon_doctor_landlock_reason(&l, buf, sizeof(buf)), "");
        l = (struct cordon_doctor_landlock){.error = -ENOSYS};
        cr_expect_str_eq(cordon_doctor_landlock_reason(&l, buf, sizeof(buf)),
                         "ENOSYS: kernel built without Landlock");
        l.error = -EACCES;
        cr_expect_str_eq(cordon_doctor_landlock_reason(&l, buf, sizeof(buf)),
                         "EACCES: Permission denied");
        struct cordon_doctor_seccomp s = {.filter = true, .mode = 2};
        cr_expect_str_eq(cordon_doctor_seccomp_reason(&s, buf, sizeof(buf)),
                         "this process is already filtered");
        s = (struct cordon_doctor_seccomp){.mode = -1, .error = -EINVAL};
        cr_expect_str_eq(cordon_doctor_seccomp_reason(&s, buf, sizeof(buf)),
                         "EINVAL: kernel built without CONFIG_SECCOMP");
        s.mode = 0;
        cr_expect_str_eq(cordon_doctor_seccomp_reason(&s, buf, sizeof(buf)),
                         "EINVAL: kernel built without CONFIG_SECCOMP_FILTER");
}

Test(doctor_words, limit_note)
{
        char buf[256], want[128];
        struct cordon_doctor_limits l = {0};
        snprintf(l.reason, sizeof(l.reason), "no cgroup");
        l.mechanism[CORDON_LIMIT_MEMORY] = CORDON_LIMIT_RLIMIT;
        l.mechanism[CORDON_LIMIT_PIDS] = CORDON_LIMIT_RLIMIT;
        l.mechanism[CORDON_LIMIT_CPUS] = CORDON_LIMIT_NONE;
        cr_expect(strstr(cordon_doctor_limit_note(&l, CORDON_LIMIT_MEMORY, buf, sizeof(buf)),
                         "RLIMIT_AS/RLIMIT_DATA"));
        snprintf(want, sizeof(want), "counts every process of uid %u,", (unsigned)getuid());
        cr_expect(strstr(cordon_doctor_limit_note(&l, CORDON_LIMIT_PIDS, buf, sizeof(buf)), want));
        cr_expect_str_eq(cordon_doctor_limit_note(&l, CORDON_LIMIT_CPUS, buf, sizeof(buf)),
                         "no cgroup");
        l.mechanism[CORDON_LIMIT_CPUS] = CORDON_LIMIT_CGROUP2;
        cr_expect_str_eq(cordon_doctor_limit_note(&l, CORDON_LIMIT_CPUS, buf, sizeof(buf)), "");
        cr_expect_str_eq(cordon_doctor_limit_note(&l, _CORDON_LIMIT_KIND_MAX, buf, sizeof(buf)),
                         "");
}

Test(doctor_words, apparmor)
{
        char buf[1024];
        struct cordon_doctor_apparmor a = {
            .enabled = 1,
            .restrict_unprivileged_userns = 1,
            .restricts_caller = true,
            .profile = "/usr/share/cordon/apparmor/cordon",
            .profile_installed = true,
            .profile_dir = "/etc/apparmor.d",
        };
        cr_expect(strstr(cordon_doctor_apparmor_reason(&a, buf, sizeof(buf)),
                         "no profile grants them to cordon"));
        cr_expect_str_eq(
            cordon_doctor_apparmor_fix(&a, buf, sizeof(buf)),
            "sudo install -m 0644 /usr/share/cordon/apparmor/cordon "
            "/etc/apparmor.d/cordon && sudo apparmor_parser -r /etc/apparmor.d/cordon");
        /* A path with a quote is quoted for the shell. */
        a.profile = "/opt/it's/cordon";
        cr_expect_str_eq(cordon_doctor_apparmor_fix(&a, buf, sizeof(buf)),
                         "sudo install -m 0644 '/opt/it'\\''s/cordon' /etc/apparmor.d/cordon && "
                         "sudo apparmor_parser -r /etc/apparmor.d/cordon");
        /* Never a command cut short. */
        char small[40];
        cr_expect_str_eq(cordon_doctor_apparmor_fix(&a, small, sizeof(small)), "");
        a.profile_installed = false;
        cr_expect(strstr(cordon_doctor_apparmor_fix(&a, buf, sizeof(buf)), "is missing"));
        /* Not restricted for the caller: nothing to fix, and the reason says why. */
        a.restricts_caller = false;
        snprintf(a.label, sizeof(a.label), "cordon (unconfined)");
        cr_expect_str_eq(cordon_doctor_apparmor_fix(&a, buf, sizeof(buf)), "");
        cr_expect(strstr(cordon_doctor_apparmor_reason(&a, buf, sizeof(buf)),
                         "under the profile 'cordon (unconfined)'"));
        a.enabled = 0;
        cr_expect_str_eq(cordon_doctor_apparmor_reason(&a, buf, sizeof(buf)), "");
}

Test(doctor_words, names)
{
        cr_expect_str_eq(cordon_cgroup_layout_to_string(CORDON_CGROUP_NONE), "none");
        cr_expect_str_eq(cordon_cgroup_layout_to_string(CORDON_CGROUP_HYBRID), "hybrid");
        cr_expect_null(cordon_cgroup_layout_to_string((enum cordon_cgroup_layout)99));
        cr_expect_str_eq(cordon_doctor_seccomp_action_name(0), "kill_process");
        cr_expect_str_eq(cordon_doctor_seccomp_action_name(_CORDON_SECCOMP_ACTION_COUNT - 1),
                         "allow");
        cr_expect_null(cordon_doctor_seccomp_action_name(_CORDON_SECCOMP_ACTION_COUNT));
        cr_expect(strstr(cordon_doctor_landlock_backend_gap(0), "EACCES"));
        unsigned n = 0;
        while (cordon_doctor_landlock_backend_gap(n))
                n++;
        cr_expect_eq(n, 4);
}
