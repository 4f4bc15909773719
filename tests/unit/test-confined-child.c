/* Unit tests for src/lib/launch/confined-child.c: the policy of a helper child (the
 * configuration files, the Lmod modules) and the read-only directories added to it. The
 * launches themselves are covered by test-config-load.c and the shell tests. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/launch/confined-child.h"
#include "lib/policy/policy.h"

static char dir[] = "/tmp/cordon-test-confined-XXXXXX";
static struct cordon_policy *p;
static const struct cordon_confined_limits lim = {
    .timeout_usec = 1000000, .out_max = 4096, .err_max = 4096, .pids = 16};

static void setup(void)
{
        cr_assert_not_null(mkdtemp(dir));
        char path[] = "PATH=/usr/bin:/bin";
        char *const env[] = {path, NULL};
        cr_assert_eq(cordon_confined_policy_new(CORDON_BACKEND_AUTO, env, &lim, "test", &p), 0);
}

static void teardown(void)
{
        cordon_policy_free(p);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        cr_expect_eq(system(cmd), 0);
}

TestSuite(confined_child, .init = setup, .fini = teardown);

static const struct cordon_fs_rule *find(const char *guest)
{
        for (size_t i = 0; i < p->n_fs; i++)
                if (strcmp(p->fs[i].guest, guest) == 0)
                        return &p->fs[i];
        return NULL;
}

Test(confined_child, nothing_writable_no_network_layers_required)
{
        for (size_t i = 0; i < p->n_fs; i++)
                cr_expect_neq(p->fs[i].access, CORDON_ACCESS_RW, "%s", p->fs[i].guest);
        cr_expect_eq(p->net_mode, CORDON_NET_ISOLATED);
        cr_expect_eq(p->fallback, CORDON_FALLBACK_ENFORCE);
        cr_expect_eq(p->limits.pids, 16);
        cr_expect(p->no_notify);
        const struct cordon_fs_rule *usr = find("/usr");
        cr_assert_not_null(usr);
        cr_expect_eq(usr->access, CORDON_ACCESS_RO);
}

Test(confined_child, shadow_hidden_from_who_can_read_it)
{
        const struct cordon_fs_rule *r = find("/etc/shadow");
        if (access("/etc/shadow", R_OK) == 0) {
                cr_assert_not_null(r);
                cr_expect_eq(r->access, CORDON_ACCESS_DATA);
                cr_expect_str_empty(r->host);
        } else
                cr_expect_null(r, "a caller who cannot read it needs no mask");
}

Test(confined_child, add_ro_normalises_and_skips_covered)
{
        char sub[128], messy[160];
        snprintf(sub, sizeof(sub), "%s/mods", dir);
        cr_assert_eq(mkdir(sub, 0755), 0);
        snprintf(messy, sizeof(messy), "%s//./mods/", dir);
        size_t n = p->n_fs;
        cr_assert_eq(cordon_confined_add_ro(p, messy, false, "test"), 0);
        cr_assert_eq(p->n_fs, n + 1);
        cr_expect_str_eq(p->fs[n].guest, sub);
        cr_expect_eq(p->fs[n].access, CORDON_ACCESS_RO);
        /* Again, and below it, and below a system directory: nothing more. */
        cr_assert_eq(cordon_confined_add_ro(p, sub, false, "test"), 0);
        cr_assert_eq(cordon_confined_add_ro(p, "/usr/share", false, "test"), 0);
        cr_expect_eq(p->n_fs, n + 1);
}

Test(confined_child, add_ro_link_and_missing)
{
        char real[128], link[128], missing[128];
        snprintf(real, sizeof(real), "%s/real", dir);
        snprintf(link, sizeof(link), "%s/link", dir);
        snprintf(missing, sizeof(missing), "%s/missing", dir);
        cr_assert_eq(mkdir(real, 0755), 0);
        cr_assert_eq(symlink(real, link), 0);
        size_t n = p->n_fs;
        cr_assert_eq(cordon_confined_add_ro(p, link, false, "test"), 0);
        cr_assert_eq(p->n_fs, n + 2);
        cr_expect_str_eq(p->fs[n].guest, real);
        cr_expect_eq(p->fs[n].access, CORDON_ACCESS_RO);
        cr_expect_str_eq(p->fs[n + 1].guest, link);
        cr_expect_eq(p->fs[n + 1].access, CORDON_ACCESS_SYMLINK);
        cr_expect_str_eq(p->fs[n + 1].host, real);
        cr_expect_eq(cordon_confined_add_ro(p, missing, true, "test"), 0);
        cr_expect_eq(cordon_confined_add_ro(p, missing, false, "test"), -ENOENT);
        cr_expect_eq(cordon_confined_add_ro(p, "/usr/../etc", true, "test"), -EINVAL);
        cr_expect_eq(p->n_fs, n + 2);
}

/* Runs @script under the policy with @l in a fork()ed child (Criterion runs threads; the ns
 * backend's raw clone wants a single-threaded caller) and returns what it found as a bit set:
 * 1 started, 2 timed out, 4 stdout over, 8 exit status 0, 16 stdout "hi\n". */
static int run_script(const char *script, const struct cordon_confined_limits *l)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                char bash[] = "/bin/bash", c[] = "-c", *s = strdup(script);
                char *const argv[] = {bash, c, s, NULL};
                struct cordon_confined_output o = {0};
                struct cordon_diag d = {0};
                if (cordon_confined_run(p, argv, l, "the test child", &o, &d) < 0) {
                        fprintf(stderr, "%s\n", d.message);
                        _exit(0);
                }
                _exit(1 | (o.timed_out ? 2 : 0) | (o.out_over ? 4 : 0) | (o.status == 0 ? 8 : 0) |
                      (strcmp(o.out, "hi\n") == 0 ? 16 : 0));
        }
        int st = 0;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st));
        return WEXITSTATUS(st);
}

Test(confined_child, run_reads_output_and_enforces_limits)
{
        int r = run_script("echo hi", &lim);
        if (r == 0)
                cr_skip_test("a confined child cannot start here");
        cr_expect_eq(r, 1 | 8 | 16);
        const struct cordon_confined_limits quick = {
            .timeout_usec = 200000, .out_max = 4096, .err_max = 4096, .pids = 16};
        cr_expect_eq(run_script("read -t 5 x </dev/zero; exec sleep 5", &quick) & 2, 2,
                     "killed at its time limit");
        cr_expect_eq(run_script("head -c 100000 /dev/zero; exec sleep 5", &quick) & 6, 4,
                     "killed past its output limit, before the time limit");
        /* The child's stdout blocks when the pipe is full: with O_NONBLOCK a child printing
         * faster than it is read got EAGAIN, lost the rest and slipped under the limit. */
        cr_expect_eq(run_script("python3 -c 'import fcntl, os, sys; "
                                "sys.exit(bool(fcntl.fcntl(1, fcntl.F_GETFL) & os.O_NONBLOCK))' && "
                                "echo hi",
                                &lim),
                     1 | 8 | 16, "the child's stdout is a blocking pipe");
}
