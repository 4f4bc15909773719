/* cordon_confine_self(): the policies that need a process of cordon's are refused, naming the
 * variable; the launch it prepares has no listener and no TMPDIR; and applied (in a forked
 * child: Landlock and seccomp must never reach Criterion's threads) it refuses a path outside
 * the policy with EACCES, a path inside being the control, and a multi-threaded caller. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/confine.h"
#include "lib/launch/confine-self.h"
#include "lib/launch/launch.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"
#include "shared/strv.h"

static struct cordon_policy *p;
static struct cordon_diag diag;

/* What cordon_confine_self() accepts: the landlock backend, isolated, the host's /tmp. */
static void setup(void)
{
        p = cordon_policy_new();
        cr_assert_not_null(p);
        cr_assert_eq(cordon_policy_set_backend(p, CORDON_BACKEND_LANDLOCK), 0);
        cr_assert_eq(cordon_policy_set_net_mode(p, CORDON_NET_ISOLATED, "test"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/usr", "/usr", CORDON_ACCESS_RO, 0, "test"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/tmp", "/tmp", CORDON_ACCESS_RW, 0, "test"), 0);
        p->process.pty = true;
        diag = (struct cordon_diag){0};
}

static void teardown(void)
{
        p = cordon_policy_free(p);
}

TestSuite(confine_self_check, .init = setup, .fini = teardown);

Test(confine_self_check, accepts_what_needs_no_helper)
{
        cr_assert_eq(cordon_confine_self_check(p, false, 1000, &diag), 0, "%s", diag.message);
        /* RLIMIT_NPROC binds every uid but 0. */
        p->nproc_limit = 10;
        cr_assert_eq(cordon_confine_self_check(p, false, 1000, &diag), 0, "%s", diag.message);
        cordon_policy_set_net_mode(p, CORDON_NET_OPEN, "test");
        cr_assert_eq(cordon_confine_self_check(p, false, 1000, &diag), 0, "%s", diag.message);
}

/* Sets one thing a helper would give, expects the refusal naming @var, and that it was the
 * one thing (the policy as set up passes). */
static void expect_refused(const char *var, bool tty, uid_t uid)
{
        int r = cordon_confine_self_check(p, tty, uid, &diag);
        cr_assert_eq(r, -EOPNOTSUPP, "%s: %d", var, r);
        cr_assert(strncmp(diag.message, var, strlen(var)) == 0 && diag.message[strlen(var)] == ' ',
                  "expected %s named first: %s", var, diag.message);
}

Test(confine_self_check, refuses_other_backends)
{
        cordon_policy_set_backend(p, CORDON_BACKEND_AUTO);
        expect_refused("SANDBOX_BACKEND", false, 1000);
        cordon_policy_set_backend(p, CORDON_BACKEND_NS);
        expect_refused("SANDBOX_BACKEND", false, 1000);
}

Test(confine_self_check, refuses_network_modes_with_helpers)
{
        cordon_policy_set_net_mode(p, CORDON_NET_FILTERED, "test");
        expect_refused("NETWORK_FILTER_MODE", false, 1000);
        cordon_policy_set_net_mode(p, CORDON_NET_PROXIED, "test");
        expect_refused("NETWORK_FILTER_MODE", false, 1000);
}

Test(confine_self_check, refuses_supervised_limits)
{
        p->limits.timeout_usec = 1;
        expect_refused("TIMEOUT", false, 1000);
        p->limits.timeout_usec = 0;
        p->limits.memory_bytes = 1 << 20;
        expect_refused("MEMORY_LIMIT", false, 1000);
        p->limits.memory_bytes = 0;
        p->limits.pids = 5;
        expect_refused("PIDS_LIMIT", false, 1000);
        p->limits.pids = 0;
        p->limits.cpus = 1;
        expect_refused("CPU_LIMIT", false, 1000);
        p->limits.cpus = 0;
        p->cgroup_path = strdup("/sys/fs/cgroup/x");
        expect_refused("CGROUP_PATH", false, 1000);
        free(p->cgroup_path);
        p->cgroup_path = NULL;
        p->nproc_limit = 10;
        expect_refused("SANDBOX_NPROC_LIMIT", false, 0);
}

Test(confine_self_check, refuses_a_private_tmp)
{
        cordon_policy_free(p);
        p = cordon_policy_new();
        cordon_policy_set_backend(p, CORDON_BACKEND_LANDLOCK);
        cordon_policy_set_net_mode(p, CORDON_NET_ISOLATED, "test");
        /* No /tmp rule at all: a hand-built policy keeps the private TMPDIR. */
        expect_refused("PRIVATE_TMP", false, 1000);
        cr_assert_eq(cordon_policy_add_fs(p, "/tmp", NULL, CORDON_ACCESS_TMPFS, 0, "test"), 0);
        expect_refused("PRIVATE_TMP", false, 1000);
        /* Sealed: read-only, no TMPDIR. */
        p->fs[p->n_fs - 1].flags |= CORDON_FS_SEAL;
        cr_assert_eq(cordon_confine_self_check(p, false, 1000, &diag), 0, "%s", diag.message);
}

Test(confine_self_check, refuses_what_a_supervisor_removes_or_checks)
{
        p->mail_stub = true;
        expect_refused("NETWORK_MAIL_BLOCK", false, 1000);
        p->mail_stub = false;
        p->agent_run_dir = strdup("/dev/shm/cordon-agents-x");
        expect_refused("ENABLED_AGENTS", false, 1000);
        free(p->agent_run_dir);
        p->agent_run_dir = NULL;
        cr_assert_eq(strv_extend(&p->git_roots, "/home/ada/proj"), 0);
        expect_refused("PROTECT_GIT_CONFIG", false, 1000);
        p->git_roots = strv_free(p->git_roots);
        p->cleanup_materialized = true;
        expect_refused("CLEANUP_MATERIALIZED_BLOCKED_FILES", false, 1000);
        p->cleanup_materialized = false;
        /* The pty relay, only where there is a terminal to relay. */
        expect_refused("NO_PTY", true, 1000);
        p->process.pty = false;
        cr_assert_eq(cordon_confine_self_check(p, true, 1000, &diag), 0, "%s", diag.message);
}

static bool yes(void)
{
        return true;
}

/* The launch cordon_confine_self() prepares: no listener though the kernel has one, no TMPDIR
 * though /tmp is writable. */
Test(confine_self_check, launch_has_no_helper)
{
        if (cordon_landlock_abi() <= 0 || !cordon_seccomp_available())
                cr_skip_test("no Landlock or seccomp here");
        struct cordon_launch l = {.self = true, .probe_notify = yes};
        int r = cordon_launch_prepare(p, &l, &diag);
        cr_assert_eq(r, 0, "%s", diag.message);
        cr_expect_eq(l.backend, CORDON_BACKEND_LANDLOCK);
        cr_expect(!l.seccomp_key.notify);
        cr_expect_null(l.tmpdir);
        cr_expect(l.bpf.len > 0);
        cordon_launch_clear(&l);
        /* The control: the same policy launched for a sandbox gets both. */
        l = (struct cordon_launch){.probe_notify = yes};
        r = cordon_launch_prepare(p, &l, &diag);
        cr_assert_eq(r, 0, "%s", diag.message);
        cr_expect(l.seccomp_key.notify);
        cr_expect_not_null(l.tmpdir);
        cordon_launch_clear(&l);
}

static void *sleeper(void *arg)
{
        (void)arg;
        pause();
        return NULL;
}

/* In a child: confines itself with @p, then opens @path; exits with the errno (0: opened), or
 * 100 + the call's -errno when the call failed. */
static int child_open(const char *path, bool thread)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                pthread_t t;
                if (thread && pthread_create(&t, NULL, sleeper, NULL) != 0)
                        _exit(99);
                struct cordon_diag d = {0};
                int r = cordon_confine_self(p, 0, &d);
                if (r < 0)
                        _exit(100 + -r);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                _exit(fd < 0 ? errno : 0);
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status));
        return WEXITSTATUS(status);
}

Test(confine_self_check, applied_in_a_child)
{
        if (cordon_landlock_abi() < 6 || !cordon_seccomp_available())
                cr_skip_test("no Landlock ABI 6 or seccomp here");
        char dir[] = "/var/tmp/confine-self-XXXXXX";
        cr_assert_not_null(mkdtemp(dir));
        char file[sizeof(dir) + 8];
        snprintf(file, sizeof(file), "%s/secret", dir);
        int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        cr_assert_geq(fd, 0);
        close(fd);
        p->process.pty = false;
        /* Outside the policy: EACCES; inside (/usr): readable; the same file unconfined: the
         * control. */
        cr_expect_eq(child_open(file, false), EACCES);
        cr_expect_eq(child_open("/usr", false), 0);
        fd = open(file, O_RDONLY | O_CLOEXEC);
        cr_expect_geq(fd, 0);
        close(fd);
        /* A second thread would stay unconfined. */
        cr_expect_eq(child_open(file, true), 100 + EBUSY);
        unlink(file);
        rmdir(dir);
}
