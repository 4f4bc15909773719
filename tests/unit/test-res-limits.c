/* Unit tests for src/lib/mech/res-limits.c and src/lib/mech/cgroup.c against fake cgroup trees in a
 * scratch directory (struct cordon_limits_host points the library at them): the choice of
 * mechanism per limit, the control files written, the errors of --cgroup PATH, the probe, the
 * OOM report, and cleanup. Enforcement on the real host is in test-res-limits-enforce.c. */
#include "res-limits-fixture.h"

TestSuite(limits, .init = setup, .fini = teardown, .timeout = 60);

/* Like this host: cgroup2 plus v1 memory, pids and cpu,cpuacct. */
static const char *const hybrid[] = {"cgroup2", "memory", "pids", "cpu,cpuacct", NULL};

/* ---- choice of mechanism in fake trees ---- */

Test(limits, v2_leaf_gets_every_limit)
{
        fake_mounts(hybrid);
        put(self_cgroup, "4:memory:/m\n8:pids:/\n1:cpu,cpuacct:/\n0::/user.slice/u\n");
        const char *base = fake_v2("/user.slice/u", "cpu io memory pids\n", "", "");

        cr_assert_eq(prepare(16 * MiB, 5, 2, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_CGROUP2, CORDON_LIMIT_CGROUP2, CORDON_LIMIT_CGROUP2);
        expect_leaf(st.v2_dir, base);
        expect_file(st.v2_dir, "memory.max", "16777216");
        expect_file(st.v2_dir, "pids.max", "5");
        expect_file(st.v2_dir, "cpu.max", "200000 100000");
        /* memory and pids in one write, cpu in a second (last) one */
        expect_file(base, "cgroup.subtree_control", "+cpu");
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                cr_expect_str_empty(st.v1_dir[k], "v1 is not used when v2 offers the controller");
        cr_expect_eq(st.rlimit_as, 0);
        cr_expect_eq(st.rlimit_nproc, 0);
        cr_expect_not(st.affinity_set);

        char d[128];
        cr_expect_eq(cordon_limits_describe(&st, d, sizeof(d)),
                     (int)strlen("memory=cgroup2 pids=cgroup2 cpus=cgroup2"));
        cr_expect_str_eq(d, "memory=cgroup2 pids=cgroup2 cpus=cgroup2");
        cr_expect_eq(cordon_limits_describe(&st, d, 10), -ENOBUFS);

        cr_assert_eq(cordon_limits_attach(&st, 4242, &diag), 0, "%s", diag.message);
        expect_file(st.v2_dir, "cgroup.procs", "4242");
        expect_cleanup();
        cr_expect(exists(base), "the caller's own cgroup stays");
}

Test(limits, v2_enables_memory_and_pids_in_one_write)
{
        fake_mounts(hybrid);
        put(self_cgroup, "0::/u\n");
        const char *base = fake_v2("/u", "cpu memory pids\n", "", "");
        cr_assert_eq(prepare(16 * MiB, 5, 0, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_CGROUP2, CORDON_LIMIT_CGROUP2, CORDON_LIMIT_NONE);
        expect_file(base, "cgroup.subtree_control", "+memory +pids");
        cr_expect(!exists(at("unified/u/%s/cpu.max", strrchr(st.v2_dir, '/') + 1)));
        expect_cleanup();
}

Test(limits, v2_controllers_already_enabled_are_not_written)
{
        fake_mounts(hybrid);
        put(self_cgroup, "0::/u\n");
        const char *base = fake_v2("/u", "memory pids\n", "memory pids\n", "");
        cr_assert_eq(prepare(16 * MiB, 5, 0, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_CGROUP2, CORDON_LIMIT_CGROUP2, CORDON_LIMIT_NONE);
        expect_file(base, "cgroup.subtree_control", "memory pids\n");
        expect_cleanup();
}

Test(limits, v2_no_internal_processes_rule)
{
        /* The caller's cgroup holds a process and memory is not enabled for its children yet:
         * enabling it would fail with EBUSY, so v2 is not used (and nothing is written). */
        fake_mounts((const char *const[]){"cgroup2", NULL});
        put(self_cgroup, "0::/u\n");
        const char *base = fake_v2("/u", "memory pids\n", "", "4242\n");
        cr_assert_eq(prepare(16 * MiB, 5, 0, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_RLIMIT, CORDON_LIMIT_RLIMIT, CORDON_LIMIT_NONE);
        cr_expect_str_empty(st.v2_dir);
        expect_file(base, "cgroup.subtree_control", "");
        cr_expect_eq(st.rlimit_as, 16 * MiB);
        cr_expect_eq(st.rlimit_nproc, 5);

        /* The root cgroup is exempt from the rule. */
        put(self_cgroup, "0::/\n");
        const char *root = fake_v2("/", "memory pids\n", "", "1\n4242\n");
        memset(&st, 0, sizeof(st));
        cr_assert_eq(prepare(16 * MiB, 5, 0, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_CGROUP2, CORDON_LIMIT_CGROUP2, CORDON_LIMIT_NONE);
        expect_leaf(st.v2_dir, root);
        expect_cleanup();
}

Test(limits, v2_and_v1_mixed_per_controller)
{
        /* memory on v2, pids only on v1, cpu nowhere: each limit takes what it can get. */
        fake_mounts((const char *const[]){"cgroup2", "pids", NULL});
        put(self_cgroup, "8:pids:/p\n0::/u\n");
        mkdirs(at("pids/p"));
        const char *base = fake_v2("/u", "memory\n", "", "");
        cr_assert_eq(prepare(16 * MiB, 5, 1, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_CGROUP2, CORDON_LIMIT_CGROUP1, CORDON_LIMIT_AFFINITY);
        expect_leaf(st.v2_dir, base);
        expect_leaf(st.v1_dir[CORDON_LIMIT_PIDS], at("pids/p"));
        expect_file(st.v2_dir, "memory.max", "16777216");
        expect_file(st.v1_dir[CORDON_LIMIT_PIDS], "pids.max", "5");
        cr_expect(st.affinity_set);
        cr_expect_eq(CPU_COUNT(&st.affinity), 1);

        cr_assert_eq(cordon_limits_attach(&st, 777, &diag), 0, "%s", diag.message);
        expect_file(st.v2_dir, "cgroup.procs", "777");
        expect_file(st.v1_dir[CORDON_LIMIT_PIDS], "cgroup.procs", "777");
        char d[128];
        cordon_limits_describe(&st, d, sizeof(d));
        cr_expect_str_eq(d, "memory=cgroup2 pids=cgroup1 cpus=affinity");
        expect_cleanup();
}

Test(limits, v1_like_this_host)
{
        /* A hybrid host: the v2 tree offers nothing, the controllers live on v1. */
        fake_mounts(hybrid);
        put(self_cgroup, "9:name=systemd:/\n8:pids:/\n4:memory:/a/b\n1:cpu,cpuacct:/\n0::/\n");
        fake_v2("/", "", "", "1\n");
        mkdirs(at("memory/a/b"));
        cr_assert_eq(prepare(16 * MiB, 5, 1, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_CGROUP1, CORDON_LIMIT_CGROUP1, CORDON_LIMIT_CGROUP1);
        cr_expect_str_empty(st.v2_dir);
        expect_leaf(st.v1_dir[CORDON_LIMIT_MEMORY], at("memory/a/b"));
        expect_leaf(st.v1_dir[CORDON_LIMIT_PIDS], at("pids"));
        expect_leaf(st.v1_dir[CORDON_LIMIT_CPUS], at("cpu"));
        expect_file(st.v1_dir[CORDON_LIMIT_MEMORY], "memory.limit_in_bytes", "16777216");
        cr_expect(!exists(at("memory/a/b/%s/memory.memsw.limit_in_bytes",
                             strrchr(st.v1_dir[CORDON_LIMIT_MEMORY], '/') + 1)));
        expect_file(st.v1_dir[CORDON_LIMIT_PIDS], "pids.max", "5");
        expect_file(st.v1_dir[CORDON_LIMIT_CPUS], "cpu.cfs_period_us", "100000");
        expect_file(st.v1_dir[CORDON_LIMIT_CPUS], "cpu.cfs_quota_us", "100000");

        cr_assert_eq(cordon_limits_attach(&st, 31337, &diag), 0, "%s", diag.message);
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                expect_file(st.v1_dir[k], "cgroup.procs", "31337");
        expect_cleanup();
        cr_expect(exists(at("memory/a/b")));
}

/* Root passes every permission check: for the "not writable" cases it runs the check with the
 * effective uid of nobody (the saved uid stays 0 so that teardown can clean up). */
static void unprivileged_begin(void)
{
        if (geteuid() != 0)
                return;
        cr_assert_eq(chmod(tmp, 0755), 0);
        cr_assert_eq(setegid(65534), 0);
        cr_assert_eq(seteuid(65534), 0);
        host.uid = 65534;
}

static void unprivileged_end(void)
{
        if (getuid() == 0) {
                cr_assert_eq(seteuid(0), 0);
                cr_assert_eq(setegid(0), 0);
        }
}

Test(limits, v1_not_writable_falls_back)
{
        fake_mounts(hybrid);
        put(self_cgroup, "8:pids:/\n4:memory:/a\n0::/\n");
        fake_v2("/", "", "", "");
        mkdirs(at("memory/a"));
        cr_assert_eq(chmod(at("memory/a"), 0555), 0);
        cr_assert_eq(chmod(at("pids"), 0555), 0);
        unprivileged_begin();
        int r = prepare(16 * MiB, 5, 0, NULL);
        unprivileged_end();
        cr_assert_eq(r, 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_RLIMIT, CORDON_LIMIT_RLIMIT, CORDON_LIMIT_NONE);
        chmod(at("memory/a"), 0755);
        chmod(at("pids"), 0755);
}

Test(limits, rlimit_and_affinity_without_cgroups)
{
        fake_mounts(NULL);
        put(self_cgroup, "0::/\n");
        cr_assert_eq(prepare(16 * MiB, 5, 1, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_RLIMIT, CORDON_LIMIT_RLIMIT, CORDON_LIMIT_AFFINITY);
        cr_expect_eq(st.rlimit_as, 16 * MiB);
        cr_expect_eq(st.rlimit_nproc, 5);
        cr_expect(st.affinity_set);
        cpu_set_t all;
        cr_assert_eq(sched_getaffinity(0, sizeof(all), &all), 0);
        int first = 0;
        while (!CPU_ISSET(first, &all))
                first++;
        cr_expect_eq(CPU_COUNT(&st.affinity), 1);
        cr_expect(CPU_ISSET(first, &st.affinity), "the first allowed CPU");
        cr_expect_eq(cordon_limits_kill_all(&st), -EOPNOTSUPP);
        cr_expect_not(cordon_limits_oom_killed(&st));
        cr_expect_eq(cordon_limits_attach(&st, 1, &diag), 0, "nothing to attach to");
        cr_expect_eq(cordon_limits_cleanup(&st), 0);

        /* More CPUs than allowed: all of them. */
        memset(&st, 0, sizeof(st));
        cr_assert_eq(prepare(0, 0, 4096, NULL), 0, "%s", diag.message);
        cr_expect(CPU_EQUAL(&st.affinity, &all));
        expect_mech(CORDON_LIMIT_NONE, CORDON_LIMIT_NONE, CORDON_LIMIT_AFFINITY);

        /* Nothing asked for: nothing chosen, nothing created. */
        memset(&st, 0, sizeof(st));
        cr_assert_eq(prepare(0, 0, 0, NULL), 0);
        expect_mech(CORDON_LIMIT_NONE, CORDON_LIMIT_NONE, CORDON_LIMIT_NONE);
        char d[8] = "x";
        cr_expect_eq(cordon_limits_describe(&st, d, sizeof(d)), 0);
        cr_expect_str_empty(d);
}

Test(limits, pids_for_uid0_without_cgroups_is_refused)
{
        fake_mounts((const char *const[]){"cgroup2", NULL});
        put(self_cgroup, "0::/\n");
        fake_v2("/", "", "", "");
        host.uid = 0;
        cr_assert_eq(prepare(16 * MiB, 5, 0, NULL), -EOPNOTSUPP);
        cr_expect(strstr(diag.message, "pids limit"), "%s", diag.message);
        cr_expect(strstr(diag.message, "uid 0"), "%s", diag.message);
        cr_expect(strstr(diag.message, "does not offer pids"), "the v2 reason: %s", diag.message);
        cr_expect(strstr(diag.message, "no pids hierarchy is mounted"), "the v1 reason: %s",
                  diag.message);
        expect_mech(CORDON_LIMIT_NONE, CORDON_LIMIT_NONE, CORDON_LIMIT_NONE);
        cr_expect_eq(st.rlimit_as, 0, "the state is zeroed on failure");

        /* memory alone is fine for uid 0 */
        cr_assert_eq(prepare(16 * MiB, 0, 0, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_RLIMIT, CORDON_LIMIT_NONE, CORDON_LIMIT_NONE);
}

Test(limits, failed_prepare_removes_what_it_made)
{
        /* v1 memory works, pids cannot be had for uid 0: the memory leaf must not stay. */
        fake_mounts((const char *const[]){"memory", NULL});
        put(self_cgroup, "4:memory:/\n");
        host.uid = 0;
        cr_assert_eq(prepare(16 * MiB, 5, 0, NULL), -EOPNOTSUPP);
        DIR *d = opendir(at("memory"));
        cr_assert_not_null(d);
        for (struct dirent *de; (de = readdir(d));)
                cr_expect(!startswith(de->d_name, "cordon-"), "left behind: %s", de->d_name);
        closedir(d);
}

/* ---- --cgroup PATH ---- */

Test(limits, explicit_path_errors)
{
        fake_mounts(hybrid);
        put(self_cgroup, "8:pids:/\n4:memory:/\n0::/\n");
        fake_v2("/", "memory pids\n", "", "1\n");

        const char *missing = at("unified/nope");
        cr_expect_eq(prepare(16 * MiB, 0, 0, missing), -ENOENT);
        cr_expect(strstr(diag.message, missing), "%s", diag.message);

        put(at("unified/file"), "");
        cr_expect_eq(prepare(16 * MiB, 0, 0, at("unified/file")), -ENOTDIR);
        cr_expect(strstr(diag.message, "not a directory"), "%s", diag.message);

        mkdirs(at("elsewhere"));
        put(at("elsewhere/cgroup.controllers"), "memory\n");
        cr_expect_eq(prepare(16 * MiB, 0, 0, at("elsewhere")), -EINVAL);
        cr_expect(strstr(diag.message, "not in the cgroup v2 hierarchy"), "%s", diag.message);
        cr_expect(strstr(diag.message, at("unified")), "names the mount: %s", diag.message);

        mkdirs(at("unified/plain"));
        cr_expect_eq(prepare(16 * MiB, 0, 0, at("unified/plain")), -EINVAL);
        cr_expect(strstr(diag.message, "not a cgroup v2 directory"), "%s", diag.message);

        fake_v2("/nomem", "pids\n", "", "");
        cr_expect_eq(prepare(16 * MiB, 5, 0, at("unified/nomem")), -EOPNOTSUPP);
        cr_expect(strstr(diag.message, "memory limit"), "%s", diag.message);
        cr_expect(strstr(diag.message, "does not offer memory"), "%s", diag.message);

        fake_v2("/busy", "memory pids\n", "", "4242\n");
        cr_expect_eq(prepare(16 * MiB, 0, 0, at("unified/busy")), -EBUSY);
        cr_expect(strstr(diag.message, "no internal processes"), "%s", diag.message);
        fake_v2("/busynomem", "pids\n", "", "4242\n");
        cr_expect_eq(prepare(16 * MiB, 0, 0, at("unified/busynomem")), -EOPNOTSUPP,
                     "a missing controller is the problem to report, not the processes");

        /* No fallback to v1 or rlimit with an explicit path, and nothing created. */
        cr_expect(!exists(at("memory/cordon-%d-0", (int)getpid())));

        fake_mounts((const char *const[]){"memory", NULL});
        cr_expect_eq(prepare(16 * MiB, 0, 0, at("unified/nomem")), -EINVAL);
        cr_expect(strstr(diag.message, "no cgroup2 hierarchy is mounted"), "%s", diag.message);
}

Test(limits, explicit_path_not_writable)
{
        fake_mounts(hybrid);
        put(self_cgroup, "0::/\n");
        fake_v2("/ro", "memory pids\n", "", "");
        cr_assert_eq(chmod(at("unified/ro"), 0555), 0);
        unprivileged_begin();
        int r = prepare(16 * MiB, 0, 0, at("unified/ro"));
        unprivileged_end();
        cr_expect_eq(r, -EACCES);
        cr_expect(strstr(diag.message, "not writable"), "%s", diag.message);
        cr_expect(strstr(diag.message, "delegated"), "%s", diag.message);
        chmod(at("unified/ro"), 0755);
}

Test(limits, explicit_path_is_used_even_without_limits)
{
        fake_mounts(hybrid);
        put(self_cgroup, "8:pids:/\n4:memory:/\n0::/\n");
        fake_v2("/", "memory pids\n", "", "1\n");
        const char *base = fake_v2("/deleg/x", "memory pids\n", "", "");
        cr_assert_eq(prepare(0, 0, 0, base), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_NONE, CORDON_LIMIT_NONE, CORDON_LIMIT_NONE);
        expect_leaf(st.v2_dir, base);
        expect_file(base, "cgroup.subtree_control", "");
        expect_cleanup();

        /* With limits: below the explicit path, not in v1 although v1 is writable; cpu is not
         * offered there, so cpus fall back to affinity. */
        cr_assert_eq(prepare(16 * MiB, 5, 1, base), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_CGROUP2, CORDON_LIMIT_CGROUP2, CORDON_LIMIT_AFFINITY);
        expect_leaf(st.v2_dir, base);
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                cr_expect_str_empty(st.v1_dir[k]);
        expect_file(st.v2_dir, "memory.max", "16777216");
        expect_file(base, "cgroup.subtree_control", "+memory +pids");
        expect_cleanup();
}

/* ---- probe, OOM report ---- */

static int n_entries;

static int count_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
        n_entries++;
        return 0;
}

static int tree_size(void)
{
        n_entries = 0;
        cr_assert_eq(nftw(tmp, count_entry, 16, FTW_PHYS), 0);
        return n_entries;
}

Test(limits, probe_matches_prepare_and_creates_nothing)
{
        enum cordon_limit_mechanism m[_CORDON_LIMIT_KIND_MAX];

        fake_mounts(hybrid);
        put(self_cgroup, "8:pids:/\n4:memory:/a\n1:cpu,cpuacct:/\n0::/\n");
        fake_v2("/", "", "", "1\n");
        mkdirs(at("memory/a"));
        int before = tree_size();
        cr_assert_eq(cordon_limits_probe_at(&host, NULL, m, NULL), 0);
        cr_expect_eq(tree_size(), before, "the probe created something");
        cr_expect_eq(m[CORDON_LIMIT_MEMORY], CORDON_LIMIT_CGROUP1);
        cr_expect_eq(m[CORDON_LIMIT_PIDS], CORDON_LIMIT_CGROUP1);
        cr_expect_eq(m[CORDON_LIMIT_CPUS], CORDON_LIMIT_CGROUP1);

        put(self_cgroup, "0::/u\n");
        fake_mounts((const char *const[]){"cgroup2", NULL});
        fake_v2("/u", "memory pids\n", "", "");
        before = tree_size();
        cr_assert_eq(cordon_limits_probe_at(&host, NULL, m, NULL), 0);
        cr_expect_eq(tree_size(), before, "the probe created something");
        cr_expect_eq(m[CORDON_LIMIT_MEMORY], CORDON_LIMIT_CGROUP2);
        cr_expect_eq(m[CORDON_LIMIT_PIDS], CORDON_LIMIT_CGROUP2);
        cr_expect_eq(m[CORDON_LIMIT_CPUS], CORDON_LIMIT_AFFINITY);
        expect_file(at("unified/u"), "cgroup.subtree_control", "");

        /* uid 0 without cgroups: pids cannot be enforced, the rest still reported */
        fake_mounts(NULL);
        host.uid = 0;
        cr_assert_eq(cordon_limits_probe_at(&host, NULL, m, NULL), 0);
        cr_expect_eq(m[CORDON_LIMIT_MEMORY], CORDON_LIMIT_RLIMIT);
        cr_expect_eq(m[CORDON_LIMIT_PIDS], CORDON_LIMIT_NONE);
        cr_expect_eq(m[CORDON_LIMIT_CPUS], CORDON_LIMIT_AFFINITY);

        cr_expect_eq(cordon_limits_probe_at(&host, at("nope"), m, &diag), -ENOENT);
        cr_expect(strstr(diag.message, "nope"), "%s", diag.message);
}

Test(limits, oom_report_from_control_files)
{
        mkdirs(at("v2leaf"));
        mkdirs(at("v1leaf"));
        snprintf(st.v2_dir, sizeof(st.v2_dir), "%s", at("v2leaf"));
        st.mechanism[CORDON_LIMIT_MEMORY] = CORDON_LIMIT_CGROUP2;
        cr_expect_not(cordon_limits_oom_killed(&st), "no memory.events");
        put(at("v2leaf/memory.events"), "low 0\nhigh 0\nmax 12\noom 1\noom_kill 0\n");
        cr_expect_not(cordon_limits_oom_killed(&st), "hit the limit, killed nothing");
        put(at("v2leaf/memory.events"), "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n");
        cr_expect(cordon_limits_oom_killed(&st));

        memset(&st, 0, sizeof(st));
        snprintf(st.v1_dir[CORDON_LIMIT_MEMORY], CORDON_LIMITS_PATH_MAX, "%s", at("v1leaf"));
        st.mechanism[CORDON_LIMIT_MEMORY] = CORDON_LIMIT_CGROUP1;
        put(at("v1leaf/memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
        put(at("v1leaf/memory.failcnt"), "7\n");
        cr_expect_not(cordon_limits_oom_killed(&st), "oom_kill wins over failcnt");
        put(at("v1leaf/memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
        cr_expect(cordon_limits_oom_killed(&st));
        /* Linux < 4.13: no oom_kill line, memory.failcnt is all there is */
        put(at("v1leaf/memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\n");
        cr_expect(cordon_limits_oom_killed(&st));
        put(at("v1leaf/memory.failcnt"), "0\n");
        cr_expect_not(cordon_limits_oom_killed(&st));

        st.mechanism[CORDON_LIMIT_MEMORY] = CORDON_LIMIT_RLIMIT;
        cr_expect_not(cordon_limits_oom_killed(&st));
        memset(&st, 0, sizeof(st));
}
