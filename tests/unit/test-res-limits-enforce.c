/* Enforcement tests for src/lib/mech/res-limits.c and src/lib/mech/cgroup.c on the real host, each
 * in fork()ed children next to the same action without the limit as the control: the rlimit and
 * affinity fallbacks (run by everyone), and the cgroup limits, kill_all and cleanup (need root and
 * a writable memory/pids cgroup or cgroup2 mount; they skip with the reason otherwise). Every
 * cgroup they create is removed at teardown. */
#include "res-limits-fixture.h"

TestSuite(enforce, .init = setup, .fini = teardown, .timeout = 60);

/* ---- enforcement on the real host ---- */

/* Runs @fn in a forked child that waits until the parent attached it to @s (when @attach) and
 * then applies the child side of @s (when @apply). @uid >= 0: become that uid first. Returns
 * the wait status. */
static int run_child(struct cordon_limits_state *s, bool attach, bool apply, int64_t uid,
                     int (*fn)(void))
{
        int go[2];
        cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
        fflush(NULL);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                char c;
                close(go[1]);
                if (read(go[0], &c, 1) != 1)
                        _exit(250);
                if (uid >= 0 && (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
                                 setresuid(uid, uid, uid) < 0))
                        _exit(251);
                if (apply && cordon_limits_apply_child(s) < 0)
                        _exit(252);
                _exit(fn());
        }
        close(go[0]);
        int r = attach ? cordon_limits_attach(s, pid, &diag) : 0;
        if (r < 0)
                kill(pid, SIGKILL);
        cr_expect_eq(write(go[1], "x", 1), 1);
        close(go[1]);
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert_eq(r, 0, "attach: %s", diag.message);
        cr_assert(!WIFEXITED(status) || WEXITSTATUS(status) < 250, "harness failure %d",
                  WEXITSTATUS(status));
        return status;
}

#define ALLOC_FAILED 42 /* not 1, which is also what a sanitizer exits with on its own errors */

/* 0 when 64 MiB could be allocated and touched, ALLOC_FAILED when malloc() failed. */
static int alloc_64m(void)
{
        size_t n = 64 * MiB;
        char *p = malloc(n);
        if (!p)
                return ALLOC_FAILED;
        /* volatile: the stores to memory freed unread would be optimised away */
        for (size_t i = 0; i < n; i += 4096)
                ((volatile char *)p)[i] = 1;
        free(p);
        return 0;
}

/* Forks up to 10 children that wait; returns how many forks worked, plus 100 when the next one
 * failed with EAGAIN (200 for another errno). Kills and reaps them before returning. */
static int fork_10(void)
{
        pid_t kids[10];
        int n = 0, err = 0;
        for (; n < 10; n++) {
                kids[n] = fork();
                if (kids[n] == 0) {
                        pause();
                        _exit(0);
                }
                if (kids[n] < 0) {
                        err = errno;
                        break;
                }
        }
        for (int i = 0; i < n; i++) {
                kill(kids[i], SIGKILL);
                waitpid(kids[i], NULL, 0);
        }
        return n + (err == EAGAIN ? 100 : err ? 200 : 0);
}

static int cpu_count(void)
{
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof(set), &set) < 0)
                return 0;
        return CPU_COUNT(&set);
}

static void no_cgroups_host(void)
{
        fake_mounts(NULL);
        put(self_cgroup, "0::/\n");
        host.create_files = false;
        host.uid = getuid();
}

/* Under ASan, which reserves terabytes of address space, a process of ours cannot live under
 * RLIMIT_AS: the allocation is made by an uninstrumented program (python3) instead, with a
 * limit it can start under. */
__attribute__((unused)) static int alloc_512m_exec(void)
{
        char code[160];
        snprintf(code, sizeof(code),
                 "import sys\ntry:\n    b = bytearray(512 << 20)\nexcept MemoryError:\n"
                 "    sys.exit(%d)\n",
                 ALLOC_FAILED);
        execl("/usr/bin/python3", "python3", "-c", code, (char *)NULL);
        return 127;
}

Test(enforce, rlimit_as_stops_a_64m_allocation)
{
        no_cgroups_host();
#ifdef __SANITIZE_ADDRESS__
        uint64_t limit = 128 * MiB;
        int (*alloc)(void) = alloc_512m_exec;
#else
        uint64_t limit = 16 * MiB;
        int (*alloc)(void) = alloc_64m;
#endif
        cr_assert_eq(prepare(limit, 0, 0, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_RLIMIT, CORDON_LIMIT_NONE, CORDON_LIMIT_NONE);
        int s = run_child(&st, false, false, -1, alloc);
        cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0, "control: status %#x", s);
        s = run_child(&st, false, true, -1, alloc);
        cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == ALLOC_FAILED, "limited: status %#x", s);
}

Test(enforce, affinity_pins_to_one_cpu)
{
        no_cgroups_host();
        cr_assert_eq(prepare(0, 0, 1, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_NONE, CORDON_LIMIT_NONE, CORDON_LIMIT_AFFINITY);
        int s = run_child(&st, false, false, -1, cpu_count);
        cr_assert(WIFEXITED(s));
        int control = WEXITSTATUS(s);
        cr_assert_geq(control, 1);
        if (control == 1)
                cr_log_warn("only one CPU is allowed here: the control cannot tell the "
                            "difference");
        s = run_child(&st, false, true, -1, cpu_count);
        cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 1, "limited: %d CPUs (control %d)",
                  WEXITSTATUS(s), control);
}

Test(enforce, rlimit_nproc_stops_forks)
{
        no_cgroups_host();
        int64_t uid = -1;
        if (getuid() == 0) {
                /* uid 0 is exempt from RLIMIT_NPROC: refused, so run the check as nobody. */
                cr_assert_eq(prepare(0, 5, 0, NULL), -EOPNOTSUPP);
                host.uid = uid = 65534;
        }
        cr_assert_eq(prepare(0, 5, 0, NULL), 0, "%s", diag.message);
        expect_mech(CORDON_LIMIT_NONE, CORDON_LIMIT_RLIMIT, CORDON_LIMIT_NONE);
        int s = run_child(&st, false, false, uid, fork_10);
        cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 10, "control: %d", WEXITSTATUS(s));
        s = run_child(&st, false, true, uid, fork_10);
        cr_assert(WIFEXITED(s), "status %#x", s);
        /* The uid's other processes count too, so fewer than 4 forks may work. */
        cr_assert(WEXITSTATUS(s) >= 100 && WEXITSTATUS(s) < 105,
                  "limited: %d forks, expected < 5 and then EAGAIN (code %d)", WEXITSTATUS(s) % 100,
                  WEXITSTATUS(s));
}

/* Prepares @lim on the real host into hst; skips unless @kind got a cgroup. */
static void host_prepare_cgroup(const struct cordon_limits *lim, enum cordon_limit_kind kind)
{
        memset(&diag, 0, sizeof(diag));
        int r = cordon_limits_prepare(lim, NULL, &hst, &diag);
        if (r == -EOPNOTSUPP && geteuid() == 0)
                cr_assert_fail("%s", diag.message);
        cr_assert_eq(r, 0, "%s", diag.message);
        char d[128];
        cordon_limits_describe(&hst, d, sizeof(d));
        cr_log_info("host: %s", d);
        enum cordon_limit_mechanism m = hst.mechanism[kind];
        if (m != CORDON_LIMIT_CGROUP1 && m != CORDON_LIMIT_CGROUP2)
                SKIP("no writable %s cgroup for uid %u here (%s); the rlimit fallback "
                     "is tested on its own",
                     cordon_limit_kind_to_string(kind), (unsigned)geteuid(), d);
}

static const char *host_dir(enum cordon_limit_kind kind)
{
        return hst.mechanism[kind] == CORDON_LIMIT_CGROUP2 ? hst.v2_dir : hst.v1_dir[kind];
}

Test(enforce, host_cgroup_files)
{
        struct cordon_limits lim = {.memory_bytes = 16 * MiB, .pids = 5, .cpus = 1};
        host_prepare_cgroup(&lim, CORDON_LIMIT_MEMORY);
        enum cordon_limit_mechanism probe[_CORDON_LIMIT_KIND_MAX];
        cr_assert_eq(cordon_limits_probe_at(NULL, NULL, probe, NULL), 0);
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                cr_expect_eq(probe[k], hst.mechanism[k], "probe and prepare differ for %s",
                             cordon_limit_kind_to_string(k));
        bool v1 = hst.mechanism[CORDON_LIMIT_MEMORY] == CORDON_LIMIT_CGROUP1;
        expect_file(host_dir(CORDON_LIMIT_MEMORY), v1 ? "memory.limit_in_bytes" : "memory.max",
                    "16777216\n");
        if (hst.mechanism[CORDON_LIMIT_PIDS] != CORDON_LIMIT_RLIMIT)
                expect_file(host_dir(CORDON_LIMIT_PIDS), "pids.max", "5\n");
        if (hst.mechanism[CORDON_LIMIT_CPUS] == CORDON_LIMIT_CGROUP1)
                expect_file(host_dir(CORDON_LIMIT_CPUS), "cpu.cfs_quota_us", "100000\n");
        else if (hst.mechanism[CORDON_LIMIT_CPUS] == CORDON_LIMIT_CGROUP2)
                expect_file(host_dir(CORDON_LIMIT_CPUS), "cpu.max", "100000 100000\n");
        char dirs[4][CORDON_LIMITS_PATH_MAX];
        memcpy(dirs[0], hst.v2_dir, sizeof(hst.v2_dir));
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                memcpy(dirs[k + 1], hst.v1_dir[k], sizeof(hst.v1_dir[k]));
        cr_assert_eq(cordon_limits_cleanup(&hst), 0);
        for (int i = 0; i < 4; i++)
                cr_expect(!dirs[i][0] || !exists(dirs[i]), "%s left behind", dirs[i]);
}

Test(enforce, host_memory_cgroup_oom_kills)
{
        struct cordon_limits lim = {.memory_bytes = 16 * MiB};
        host_prepare_cgroup(&lim, CORDON_LIMIT_MEMORY);
        cr_expect_not(cordon_limits_oom_killed(&hst));
        int s = run_child(&hst, false, true, -1, alloc_64m);
        cr_assert(WIFEXITED(s) && WEXITSTATUS(s) == 0, "control: status %#x", s);
        cr_expect_not(cordon_limits_oom_killed(&hst), "the control ran outside the cgroup");
        s = run_child(&hst, true, true, -1, alloc_64m);
        cr_assert(WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL, "limited: status %#x", s);
        cr_expect(cordon_limits_oom_killed(&hst));
        cr_assert_eq(cordon_limits_cleanup(&hst), 0);
}

/* Waits until no process is listed in @dir, for up to a second. */
static bool wait_empty(const char *dir)
{
        for (int i = 0; i < 1000; i++) {
                if (!cordon_cgroup_has_procs(dir))
                        return true;
                usleep(1000);
        }
        return false;
}

static int count_procs(const char *dir)
{
        char path[PATH_MAX];
        fmt_into(path, sizeof(path), "%s/cgroup.procs", dir);
        const char *t = get(path);
        int n = 0;
        for (; t && *t; t++)
                n += *t == '\n';
        return n;
}

/* Forks child C into @s: C forks until it fails or has 10 children, which all wait, reports
 * {forks, errno} on a pipe, and waits too. Returns C's pid. */
static pid_t spawn_forker(struct cordon_limits_state *s, int *ret_forks, int *ret_errno)
{
        int go[2], rep[2];
        cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
        cr_assert_eq(pipe2(rep, O_CLOEXEC), 0);
        fflush(NULL);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                char c;
                close(go[1]);
                close(rep[0]);
                if (read(go[0], &c, 1) != 1)
                        _exit(250);
                int res[2] = {0, 0};
                pid_t me = getpid();
                for (; res[0] < 10; res[0]++) {
                        pid_t k = fork();
                        if (k == 0) {
                                /* Die with C, so that a control run outside any cgroup
                                 * leaves nothing behind. */
                                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != me)
                                        _exit(0);
                                pause();
                                _exit(0);
                        }
                        if (k < 0) {
                                res[1] = errno;
                                break;
                        }
                }
                if (write(rep[1], res, sizeof(res)) != sizeof(res))
                        _exit(251);
                pause();
                _exit(0);
        }
        close(go[0]);
        close(rep[1]);
        int r = s ? cordon_limits_attach(s, pid, &diag) : 0;
        if (r < 0)
                kill(pid, SIGKILL);
        cr_assert_eq(r, 0, "attach: %s", diag.message);
        cr_assert_eq(write(go[1], "x", 1), 1);
        close(go[1]);
        int res[2];
        cr_assert_eq(read(rep[0], res, sizeof(res)), (ssize_t)sizeof(res));
        close(rep[0]);
        *ret_forks = res[0];
        *ret_errno = res[1];
        return pid;
}

/* Reaps C (expecting SIGKILL) and every orphan that came to us as subreaper. */
static void reap_all(pid_t c)
{
        /* Bounded: a test timeout skips .fini and would leave the cgroups behind. When C
         * survived, kill it here (its children die with it) and fail. */
        int status = 0;
        pid_t r = 0;
        for (int i = 0; i < 2000 && (r = waitpid(c, &status, WNOHANG)) == 0; i++)
                usleep(1000);
        if (r == 0) {
                kill(c, SIGKILL);
                waitpid(c, &status, 0);
        }
        while (waitpid(-1, NULL, 0) > 0)
                ;
        cr_assert_eq(r, c, "the forker survived for 2 s");
        cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %#x", status);
}

Test(enforce, host_pids_cgroup_stops_forks_and_kill_all_empties_it)
{
        struct cordon_limits lim = {.pids = 5};
        host_prepare_cgroup(&lim, CORDON_LIMIT_PIDS);
        cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        const char *dir = host_dir(CORDON_LIMIT_PIDS);
        int forks, err;

        /* control: the same forker outside the cgroup */
        pid_t c = spawn_forker(NULL, &forks, &err);
        cr_expect_eq(forks, 10, "control: %d forks (%s)", forks, strerror(err));
        kill(c, SIGKILL);
        reap_all(c);

        c = spawn_forker(&hst, &forks, &err);
        cr_expect_eq(forks, 4, "limited: %d forks; C itself is the fifth", forks);
        cr_expect_eq(err, EAGAIN, "limited: %s", strerror(err));
        cr_expect_eq(count_procs(dir), 5);
        cr_assert_eq(cordon_limits_kill_all(&hst), 0);
        cr_expect(!cordon_cgroup_has_procs(dir), "kill_all returned with processes left");
        reap_all(c);
        cr_assert_eq(cordon_limits_cleanup(&hst), 0);
        cr_expect(!exists(dir));
}

/* Makes a v2 cgroup of our own below the real cgroup2 mount, as an admin delegating one would;
 * skips when there is no cgroup2 mount or it is not writable. */
static void host_v2_dir(void)
{
        _cleanup_free_ char *mi = NULL;
        char mnt[PATH_MAX], root[PATH_MAX];
        cr_assert_eq(read_full_file("/proc/self/mountinfo", 1 << 22, &mi, NULL), 0);
        if (cordon_mountinfo_find_cgroup(mi, NULL, mnt, sizeof(mnt), root, sizeof(root)) < 0)
                SKIP("no cgroup2 mount");
        fmt_into(made_dir, sizeof(made_dir), "%s/cordon-test-%d", mnt, (int)getpid());
        if (mkdir(made_dir, 0755) < 0) {
                int e = errno;
                made_dir[0] = 0;
                SKIP("cannot make a v2 cgroup for this test: %s", strerror(e));
        }
}

Test(enforce, host_v2_explicit_path_kill_all)
{
        host_v2_dir();
        cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        char path[PATH_MAX];
        fmt_into(path, sizeof(path), "%s/cgroup.controllers", made_dir);
        const char *ctl = get(path);
        cr_assert_not_null(ctl);
        struct cordon_limits lim = {.memory_bytes = 16 * MiB};
        if (!cordon_cgroup_list_has(ctl, "memory")) {
                /* A hybrid host: the clear error, and nothing left in the directory. */
                cr_expect_eq(cordon_limits_prepare(&lim, made_dir, &hst, &diag), -EOPNOTSUPP);
                cr_expect(strstr(diag.message, "memory limit"), "%s", diag.message);
                cr_expect(strstr(diag.message, made_dir), "%s", diag.message);
        }

        lim = (struct cordon_limits){0};
        cr_assert_eq(cordon_limits_prepare(&lim, made_dir, &hst, &diag), 0, "%s", diag.message);
        char leaf[PATH_MAX];
        fmt_into(leaf, sizeof(leaf), "%s", hst.v2_dir);
        expect_leaf(leaf, made_dir);
        int forks, err;
        pid_t c = spawn_forker(&hst, &forks, &err);
        cr_expect_eq(forks, 10, "no pids limit here: %d (%s)", forks, strerror(err));
        cr_expect_eq(count_procs(leaf), 11);
        fmt_into(path, sizeof(path), "%s/cgroup.kill", leaf);
        if (!exists(path))
                cr_log_warn("no cgroup.kill (Linux < 5.14): the pid loop is used");
        cr_assert_eq(cordon_limits_kill_all(&hst), 0);
        cr_expect(wait_empty(leaf), "processes left after kill_all");
        reap_all(c);
        cr_assert_eq(cordon_limits_cleanup(&hst), 0);
        cr_expect(!exists(leaf));
}

Test(enforce, host_v2_kill_loop_walks_sub_cgroups)
{
        /* The pid loop (what v1 and Linux < 5.14 use), with a process moved into a sub-cgroup
         * of the leaf, as a sandboxed process allowed to manage its cgroup could do. */
        host_v2_dir();
        cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        struct cordon_limits lim = {0};
        cr_assert_eq(cordon_limits_prepare(&lim, made_dir, &hst, &diag), 0, "%s", diag.message);
        int forks, err;
        pid_t c = spawn_forker(&hst, &forks, &err);
        cr_expect_eq(forks, 10);
        char sub[PATH_MAX], buf[32];
        fmt_into(sub, sizeof(sub), "%s/sub", hst.v2_dir);
        cr_assert_eq(mkdir(sub, 0755), 0, "%m");
        fmt_into(buf, sizeof(buf), "%d", (int)c);
        cr_assert_eq(cordon_cgroup_write(sub, "cgroup.procs", buf, false), 0);
        cr_expect_eq(count_procs(sub), 1);
        cr_expect_eq(count_procs(hst.v2_dir), 10);

        cr_assert_eq(cordon_cgroup_kill_tree(hst.v2_dir), 0);
        cr_expect(!cordon_cgroup_has_procs(hst.v2_dir));
        cr_expect(!cordon_cgroup_has_procs(sub));
        reap_all(c);
        cr_assert_eq(cordon_limits_cleanup(&hst), 0, "the sub-cgroup goes first");
        cr_expect(!exists(sub));
}
