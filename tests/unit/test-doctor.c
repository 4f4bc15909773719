/* Unit tests for src/lib/doctor/doctor.c: the limits check against fake cgroup trees (the fixture
 * of the resource-limit tests), which must report what the library's probe, and so `cordon run`,
 * would use, and say why a limit cannot be enforced. */
#include <dlfcn.h>

#include "cordon/doctor.h"
#include "lib/doctor/doctor.h"
#include "res-limits-fixture.h"

TestSuite(doctor, .init = setup, .fini = teardown, .timeout = 60);

static void expect_limits(const struct cordon_doctor_limits *l, enum cordon_limit_mechanism m,
                          enum cordon_limit_mechanism p, enum cordon_limit_mechanism c)
{
        cr_expect_eq(l->error, 0, "error %d (%s)", l->error, l->reason);
        cr_expect_eq(l->mechanism[CORDON_LIMIT_MEMORY], m, "memory: %s",
                     cordon_limit_mechanism_to_string(l->mechanism[CORDON_LIMIT_MEMORY]));
        cr_expect_eq(l->mechanism[CORDON_LIMIT_PIDS], p, "pids: %s",
                     cordon_limit_mechanism_to_string(l->mechanism[CORDON_LIMIT_PIDS]));
        cr_expect_eq(l->mechanism[CORDON_LIMIT_CPUS], c, "cpus: %s",
                     cordon_limit_mechanism_to_string(l->mechanism[CORDON_LIMIT_CPUS]));
}

Test(doctor, limits_v1_as_on_this_host)
{
        struct cordon_doctor_limits l;
        fake_mounts((const char *const[]){"cgroup2", "memory", "pids", "cpu,cpuacct", NULL});
        put(self_cgroup, "8:pids:/\n4:memory:/a\n1:cpu,cpuacct:/\n0::/\n");
        fake_v2("/", "", "", "1\n");
        mkdirs(at("memory/a"));
        cr_assert_eq(cordon_doctor_check_limits_at(&host, &l), 0);
        expect_limits(&l, CORDON_LIMIT_CGROUP1, CORDON_LIMIT_CGROUP1, CORDON_LIMIT_CGROUP1);
        cr_expect_str_empty(l.reason);
}

Test(doctor, limits_v2_delegated)
{
        struct cordon_doctor_limits l;
        fake_mounts((const char *const[]){"cgroup2", NULL});
        put(self_cgroup, "0::/u\n");
        fake_v2("/u", "memory pids\n", "", "");
        cr_assert_eq(cordon_doctor_check_limits_at(&host, &l), 0);
        expect_limits(&l, CORDON_LIMIT_CGROUP2, CORDON_LIMIT_CGROUP2, CORDON_LIMIT_AFFINITY);
        cr_expect_str_empty(l.reason);
        expect_file(at("unified/u"), "cgroup.subtree_control", "");
}

Test(doctor, limits_fallbacks_without_cgroups)
{
        struct cordon_doctor_limits l;
        fake_mounts(NULL);
        put(self_cgroup, "0::/\n");
        cr_assert_eq(cordon_doctor_check_limits_at(&host, &l), 0);
        expect_limits(&l, CORDON_LIMIT_RLIMIT, CORDON_LIMIT_RLIMIT, CORDON_LIMIT_AFFINITY);
        cr_expect_str_empty(l.reason);
}

Test(doctor, limits_pids_unavailable_to_root_without_cgroups)
{
        struct cordon_doctor_limits l;
        fake_mounts(NULL);
        put(self_cgroup, "0::/\n");
        host.uid = 0;
        cr_assert_eq(cordon_doctor_check_limits_at(&host, &l), 0);
        expect_limits(&l, CORDON_LIMIT_RLIMIT, CORDON_LIMIT_NONE, CORDON_LIMIT_AFFINITY);
        cr_expect(strstr(l.reason, "pids limit cannot be enforced"), "reason: %s", l.reason);
        cr_expect(strstr(l.reason, "RLIMIT_NPROC does not apply to uid 0"), "reason: %s", l.reason);

        /* The same refusal, word for word, as a launch asking for --pids gets. */
        cr_expect_eq(prepare(0, 5, 0, NULL), -EOPNOTSUPP);
        cr_expect_str_eq(diag.message, l.reason);
}

/* The snapshot check is the snapshot module's loader: it says yes exactly when both libraries
 * load, and names what is missing otherwise. */
Test(doctor, snapshot_check_agrees_with_the_libraries)
{
        void *a = dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL);
        void *n = dlopen("libnettle.so.8", RTLD_NOW | RTLD_LOCAL);
        struct cordon_diag d = {0};
        int r = cordon_doctor_check_snapshot(&d);
        cr_assert_eq(r, a && n ? 0 : -ENOPKG, "%d: %s", r, d.message);
        if (r < 0)
                cr_assert(strstr(d.message, "libarchive"), "%s", d.message);
        if (a)
                dlclose(a);
        if (n)
                dlclose(n);
}
