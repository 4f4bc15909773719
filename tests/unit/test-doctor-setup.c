/* Unit tests for src/lib/doctor/doctor-setup.c: the backend in use, the network mode delivered
 * (the launch's own decision, with a stand-in for pasta's probe) and the limits asked for, from
 * settings as `cordon run` would load them and a report of hand-made facts. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/doctor/doctor.h"

static bool probe_no_tun(const struct cordon_policy *p, char *why, size_t n)
{
        (void)p;
        snprintf(why, n,
                 "pasta cannot open /dev/net/tun: Permission denied (chmod 0666 "
                 "/dev/net/tun)");
        return false;
}

static bool probe_ok(const struct cordon_policy *p, char *why, size_t n)
{
        (void)p;
        (void)n;
        *why = 0;
        return true;
}

static struct cordon_settings *settings(const char *const *assign)
{
        struct cordon_settings *s = NULL;
        cr_assert_eq(cordon_settings_new("/home/u", &s), 0);
        for (; assign && *assign; assign += 2) {
                struct cordon_diag diag = {0};
                cr_assert_eq(cordon_settings_set(s, assign[0], assign[1], "test", &diag), 0, "%s",
                             diag.message);
        }
        return s;
}

/* Both backends can run: user namespaces, Landlock ABI 7, seccomp filters. */
static struct cordon_doctor_report host(void)
{
        return (struct cordon_doctor_report){
            .userns = {.usable = true, .apparmor_restrict_unprivileged_userns = -1},
            .landlock = {.abi = 7},
            .seccomp = {.filter = true, .mode = 0},
        };
}

Test(doctor_setup, defaults_deliver_filtered_under_ns)
{
        struct cordon_doctor_report r = host();
        struct cordon_settings *s = settings(NULL);
        struct cordon_doctor_setup d;
        cr_assert_eq(cordon_doctor_assess_with(&r, s, probe_ok, &d), 0);
        cr_expect_eq(d.backend_setting, CORDON_BACKEND_AUTO);
        cr_expect_eq(d.backend, CORDON_BACKEND_NS);
        cr_expect(d.backend_usable);
        cr_expect(d.layers_wanted);
        cr_expect_eq(d.net_want, CORDON_NET_FILTERED);
        cr_expect_eq(d.net_mode, CORDON_NET_FILTERED);
        cr_expect_str_empty(d.net_why);
        for (int m = 0; m < 4; m++)
                cr_expect(d.net_deliverable[m], "mode %d", m);
        /* No limit set: nothing about limits or cgroups to report. */
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                cr_expect_not(d.limit_set[k]);
        cr_expect_not(d.cgroup_path_set);
        cordon_settings_free(s);
}

Test(doctor_setup, no_tun_falls_back_to_proxied_with_the_reason)
{
        struct cordon_doctor_report r = host();
        struct cordon_settings *s = settings(NULL);
        struct cordon_doctor_setup d;
        cr_assert_eq(cordon_doctor_assess_with(&r, s, probe_no_tun, &d), 0);
        cr_expect_eq(d.net_mode, CORDON_NET_PROXIED);
        cr_expect_not(d.net_deliverable[CORDON_NET_FILTERED]);
        cr_expect(d.net_deliverable[CORDON_NET_PROXIED]);
        cr_expect_str_eq(d.net_why, "pasta cannot open /dev/net/tun: Permission denied (chmod 0666 "
                                    "/dev/net/tun)");
        cordon_settings_free(s);
}

Test(doctor_setup, strict_fallback_refuses)
{
        struct cordon_doctor_report r = host();
        struct cordon_settings *s =
            settings((const char *const[]){"NETWORK_FILTER_FALLBACK", "strict", NULL});
        struct cordon_doctor_setup d;
        cr_assert_eq(cordon_doctor_assess_with(&r, s, probe_no_tun, &d), 0);
        cr_expect_eq(d.net_mode, -EOPNOTSUPP);
        cr_expect_str_not_empty(d.net_why);
        cordon_settings_free(s);
}

Test(doctor_setup, explicit_landlock_without_landlock_cannot_run)
{
        struct cordon_doctor_report r = host();
        r.landlock = (struct cordon_doctor_landlock){.error = -EOPNOTSUPP};
        struct cordon_settings *s =
            settings((const char *const[]){"SANDBOX_BACKEND", "landlock", NULL});
        struct cordon_doctor_setup d;
        cr_assert_eq(cordon_doctor_assess_with(&r, s, probe_ok, &d), 0);
        cr_expect_eq(d.backend_setting, CORDON_BACKEND_LANDLOCK);
        cr_expect_eq(d.backend, CORDON_BACKEND_LANDLOCK);
        cr_expect_not(d.backend_usable);
        cordon_settings_free(s);
}

/* auto without user namespaces takes the landlock backend, which has no filtered mode; without
 * seccomp it cannot keep the command behind the proxy either, so stricter lands on isolated. */
Test(doctor_setup, auto_without_userns_is_landlock_and_falls_back_further)
{
        struct cordon_doctor_report r = host();
        r.userns.usable = false;
        r.userns.error = -EPERM;
        r.seccomp = (struct cordon_doctor_seccomp){.mode = -1, .error = -EINVAL};
        struct cordon_settings *s = settings(NULL);
        struct cordon_doctor_setup d;
        cr_assert_eq(cordon_doctor_assess_with(&r, s, probe_ok, &d), 0);
        cr_expect_eq(d.backend, CORDON_BACKEND_LANDLOCK);
        cr_expect(d.backend_usable);
        cr_expect_not(d.net_deliverable[CORDON_NET_FILTERED]);
        cr_expect_not(d.net_deliverable[CORDON_NET_PROXIED]);
        cr_expect_eq(d.net_mode, CORDON_NET_ISOLATED);
        cr_expect(strstr(d.net_why, "landlock backend"), "%s", d.net_why);
        cordon_settings_free(s);
}

Test(doctor_setup, limits_only_when_set)
{
        struct cordon_doctor_report r = host();
        struct cordon_settings *s = settings((const char *const[]){"MEMORY_LIMIT", "1G", NULL});
        struct cordon_doctor_setup d;
        cr_assert_eq(cordon_doctor_assess_with(&r, s, probe_ok, &d), 0);
        cr_expect(d.limit_set[CORDON_LIMIT_MEMORY]);
        cr_expect_not(d.limit_set[CORDON_LIMIT_PIDS]);
        cr_expect_not(d.limit_set[CORDON_LIMIT_CPUS]);
        cr_expect_neq(d.limits.mechanism[CORDON_LIMIT_MEMORY], CORDON_LIMIT_NONE);
        cordon_settings_free(s);
}

Test(doctor_setup, unrestricted_profile_wants_no_layers)
{
        struct cordon_doctor_report r = host();
        struct cordon_settings *s =
            settings((const char *const[]){"SANDBOX_PROFILE", "unrestricted", NULL});
        struct cordon_doctor_setup d;
        cr_assert_eq(cordon_doctor_assess_with(&r, s, probe_ok, &d), 0);
        cr_expect_not(d.layers_wanted);
        cordon_settings_free(s);
}
