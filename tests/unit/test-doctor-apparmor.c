/* Unit tests for src/lib/doctor/doctor-apparmor.c: AppArmor's user namespace restriction read
 * from a fake root, and whether it applies to the caller (the kernel's rule: on, unconfined, not
 * root). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "cordon/doctor.h"

static char root[] = "/tmp/cordon-aa-XXXXXX";

static void put_file(const char *rel, const char *text)
{
        char path[512], dir[512];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        for (char *p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
                snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
                mkdir(dir, 0755);
        }
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f, "%s", path);
        fputs(text, f);
        fclose(f);
}

static void setup(void)
{
        cr_assert_not_null(mkdtemp(root));
}

static void teardown(void)
{
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        cr_expect_eq(system(cmd), 0);
}

TestSuite(doctor_apparmor, .init = setup, .fini = teardown);

Test(doctor_apparmor, restricted_unconfined_applies_to_non_root)
{
        struct cordon_doctor_apparmor a;
        put_file("proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
        put_file("sys/module/apparmor/parameters/enabled", "Y\n");
        put_file("proc/self/attr/apparmor/current", "unconfined\n");
        cordon_doctor_check_apparmor(root, &a);
        cr_expect_eq(a.enabled, 1);
        cr_expect_eq(a.restrict_unprivileged_userns, 1);
        cr_expect_str_eq(a.label, "unconfined");
        cr_expect_eq(a.restricts_caller, geteuid() != 0);
        cr_expect_str_eq(a.profile, CORDON_APPARMOR_PROFILE_COPY);
        cr_expect_str_eq(a.profile_dir, CORDON_APPARMOR_DIR);
        cr_expect_not(a.profile_installed);
        put_file(&CORDON_APPARMOR_PROFILE_COPY[1], ""); /* relative to the fake root */
        cordon_doctor_check_apparmor(root, &a);
        cr_expect(a.profile_installed);
}

Test(doctor_apparmor, a_profile_attached_decides_itself)
{
        struct cordon_doctor_apparmor a;
        put_file("proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
        put_file("sys/module/apparmor/parameters/enabled", "Y\n");
        put_file("proc/self/attr/apparmor/current", "cordon (unconfined)\n");
        cordon_doctor_check_apparmor(root, &a);
        cr_expect_str_eq(a.label, "cordon (unconfined)");
        cr_expect_not(a.restricts_caller);
}

Test(doctor_apparmor, off_or_absent)
{
        struct cordon_doctor_apparmor a;
        put_file("proc/sys/kernel/apparmor_restrict_unprivileged_userns", "0\n");
        put_file("sys/module/apparmor/parameters/enabled", "Y\n");
        cordon_doctor_check_apparmor(root, &a);
        cr_expect_eq(a.restrict_unprivileged_userns, 0);
        cr_expect_not(a.restricts_caller);

        /* No sysctl and AppArmor off: nothing restricts, the label is not read. */
        put_file("sys/module/apparmor/parameters/enabled", "N\n");
        char sysctl[512];
        snprintf(sysctl, sizeof(sysctl), "%s/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
                 root);
        cr_assert_eq(unlink(sysctl), 0);
        put_file("proc/self/attr/apparmor/current", "unconfined\n");
        cordon_doctor_check_apparmor(root, &a);
        cr_expect_eq(a.enabled, 0);
        cr_expect_eq(a.restrict_unprivileged_userns, -1);
        cr_expect_str_empty(a.label);
        cr_expect_not(a.restricts_caller);
}

Test(doctor_apparmor, sysctl_without_module_flag_means_active)
{
        struct cordon_doctor_apparmor a;
        put_file("proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n");
        cordon_doctor_check_apparmor(root, &a);
        cr_expect_eq(a.enabled, 1);
        /* An unreadable label counts as unconfined. */
        cr_expect_str_empty(a.label);
        cr_expect_eq(a.restricts_caller, geteuid() != 0);
}
