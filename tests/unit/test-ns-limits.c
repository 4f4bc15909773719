/* Unit tests for src/lib/mech/ns-limits.c: the plan from a directory of fake limit files, and the
 * values written in a fork()ed child that made its own user namespace (as cordon's does). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/mech/ns-limits.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

static char dir[] = "/tmp/cordon-ns-limits.XXXXXX";

static void setup(void)
{
        cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        (void)!system(cmd);
}

TestSuite(ns_limits, .init = setup, .fini = teardown);

static void put(const char *name, const char *value)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "we");
        cr_assert_not_null(f);
        fputs(value, f);
        fclose(f);
}

/* The planned value of @name, or NULL when the plan leaves it out. */
static const char *planned(const struct cordon_ns_limits *l, const char *name)
{
        for (unsigned i = 0; i < l->n; i++)
                if (streq(cordon_ns_limit_name((int)l->v[i].index), name))
                        return l->v[i].value;
        return NULL;
}

Test(ns_limits, half_of_each_and_missing_ones_left_out)
{
        put("max_inotify_instances", "128\n");
        put("max_inotify_watches", "192536\n");
        put("max_user_namespaces", "96365\n");
        put("max_mnt_namespaces", "96365\n");
        put("max_fanotify_groups", "1\n");
        struct cordon_ns_limits l;
        cr_assert_eq(cordon_ns_limits_plan(dir, false, &l), 0);
        cr_expect_eq(l.n, 5);
        cr_expect_str_eq(planned(&l, "max_inotify_instances"), "64");
        cr_expect_str_eq(planned(&l, "max_inotify_watches"), "96268");
        cr_expect_str_eq(planned(&l, "max_user_namespaces"), "48182");
        cr_expect_str_eq(planned(&l, "max_fanotify_groups"), "1", "at least 1");
        cr_expect_null(planned(&l, "max_time_namespaces"), "not in this kernel");

        /* With the seccomp layer no fanotify group or namespace can be made inside: only the
         * inotify limits are planned. */
        cr_assert_eq(cordon_ns_limits_plan(dir, true, &l), 0);
        cr_expect_eq(l.n, 2);
        cr_expect_null(planned(&l, "max_user_namespaces"));
        cr_expect_null(planned(&l, "max_fanotify_groups"));
        cr_expect_str_eq(planned(&l, "max_inotify_instances"), "64");
        cr_expect_str_eq(planned(&l, "max_inotify_watches"), "96268");
}

Test(ns_limits, unreadable_values_are_errors)
{
        static const char *const bad[] = {"", "abc", "-1", "12x", "99999999999999999999999"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                put("max_inotify_instances", bad[i]);
                struct cordon_ns_limits l;
                cr_expect_eq(cordon_ns_limits_plan(dir, false, &l), -EBADMSG, "'%s'", bad[i]);
        }
        cr_expect_eq(cordon_ns_limits_plan(dir, false, NULL), -EINVAL);
        cr_expect_str_eq(cordon_ns_limit_name(-1), "?");
        cr_expect_str_eq(cordon_ns_limit_name(99), "?");
}

/* Exit status: 0 when the values read back in the new namespace are the planned ones. */
static int apply_in_userns(const struct cordon_ns_limits *l)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                if (unshare(CLONE_NEWUSER) < 0)
                        _exit(100);
                int index = -2;
                int r = cordon_ns_limits_apply(l, &index);
                if (r < 0)
                        _exit(101);
                for (unsigned i = 0; i < l->n; i++) {
                        char path[256];
                        _cleanup_free_ char *text = NULL;
                        snprintf(path, sizeof(path), "/proc/sys/user/%s",
                                 cordon_ns_limit_name((int)l->v[i].index));
                        if (read_full_file(path, 64, &text, NULL) < 0)
                                _exit(102);
                        text[strcspn(text, "\n")] = 0;
                        if (!streq(text, l->v[i].value))
                                _exit(103);
                }
                _exit(0);
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status));
        return WEXITSTATUS(status);
}

Test(ns_limits, applied_in_a_new_user_namespace_only)
{
        struct cordon_ns_limits l;
        cr_assert_eq(cordon_ns_limits_plan(NULL, true, &l), 0);
        cr_assert_gt(l.n, 0, "this kernel has /proc/sys/user");
        _cleanup_free_ char *before = NULL;
        cr_assert_eq(read_full_file("/proc/sys/user/max_inotify_instances", 64, &before, NULL), 0);
        cr_expect_eq(apply_in_userns(&l), 0);
        /* The caller's own limits are untouched. */
        _cleanup_free_ char *after = NULL;
        cr_assert_eq(read_full_file("/proc/sys/user/max_inotify_instances", 64, &after, NULL), 0);
        cr_expect_str_eq(after, before);
}

Test(ns_limits, apply_names_the_limit_that_failed)
{
        /* Outside a user namespace of its own, an unprivileged caller may not write these;
         * root may, so this runs in a child that gave up its capabilities by becoming nobody. */
        struct cordon_ns_limits l;
        cr_assert_eq(cordon_ns_limits_plan(NULL, false, &l), 0);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                if (getuid() == 0 && setresuid(65534, 65534, 65534) < 0)
                        _exit(100);
                int index = -2;
                int r = cordon_ns_limits_apply(&l, &index);
                _exit(r == -EACCES && index == (int)l.v[0].index ? 0 : 1);
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
}
