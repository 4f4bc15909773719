/* libcordon through its public header only, linked against the shared library: building a
 * policy, validation errors, and a spawn (in a forked child: user namespaces need a
 * single-threaded caller, and Criterion may run helper threads). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/cordon.h"

static struct cordon_policy *minimal_policy(const char *project)
{
        struct cordon_policy *p = cordon_policy_new();
        cr_assert_not_null(p);
        static const char *const ro[] = {"/usr", "/etc"};
        for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++)
                cr_assert_eq(cordon_policy_add_fs(p, ro[i], ro[i], CORDON_ACCESS_RO, 0, "test"), 0);
        /* The usr-merge links, or plain binds where the host has real directories. */
        static const char *const merged[] = {"/bin", "/lib", "/lib64", "/sbin"};
        for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
                struct stat st;
                if (lstat(merged[i], &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        char target[256];
                        ssize_t n = readlink(merged[i], target, sizeof(target) - 1);
                        cr_assert_gt(n, 0);
                        target[n] = 0;
                        cr_assert_eq(cordon_policy_add_fs(p, merged[i], target,
                                                          CORDON_ACCESS_SYMLINK, 0, "test"),
                                     0);
                } else
                        cr_assert_eq(cordon_policy_add_fs(p, merged[i], merged[i], CORDON_ACCESS_RO,
                                                          0, "test"),
                                     0);
        }
        cr_assert_eq(cordon_policy_add_fs(p, "/proc", NULL, CORDON_ACCESS_PROC, 0, "test"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/dev", NULL, CORDON_ACCESS_DEV, 0, "test"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/tmp", NULL, CORDON_ACCESS_TMPFS, 0, "test"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, project, project, CORDON_ACCESS_RW, 0, "test"), 0);
        cr_assert_eq(cordon_policy_set_cwd(p, project), 0);
        char path_var[] = "PATH=/usr/bin:/bin";
        char *env[] = {path_var, NULL};
        cr_assert_eq(cordon_policy_set_env(p, env), 0);
        return p;
}

Test(public_api, add_fs_rejects_bad_rules)
{
        struct cordon_policy *p = cordon_policy_new();
        cr_assert_eq(cordon_policy_add_fs(p, "usr", "/usr", CORDON_ACCESS_RO, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, "/usr/", "/usr", CORDON_ACCESS_RO, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, "/tmp", "/tmp", CORDON_ACCESS_TMPFS, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, "/x", NULL, CORDON_ACCESS_COPY, 0, "t"), -EINVAL);
        cr_assert_null(cordon_policy_free(p));
        cr_assert_null(cordon_policy_free(NULL));
}

Test(public_api, validate_names_the_conflict)
{
        struct cordon_policy *p = cordon_policy_new();
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_policy_add_fs(p, "/data", "/usr", CORDON_ACCESS_RO, 0, "first"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/data", "/etc", CORDON_ACCESS_RW, 0, "second"), 0);
        char *env[] = {NULL};
        cr_assert_eq(cordon_policy_set_env(p, env), 0);
        cr_assert_eq(cordon_policy_validate(p, &d), -EINVAL);
        cr_assert(strstr(d.message, "/data") && strstr(d.message, "first") &&
                      strstr(d.message, "second"),
                  "%s", d.message);
        cordon_policy_free(p);
}

Test(public_api, spawn_without_command_is_einval)
{
        struct cordon_policy *p = minimal_policy("/tmp");
        struct cordon_diag d = {0};
        int status = -1;
        char *argv[] = {NULL};
        cr_assert_eq(cordon_spawn(p, argv, &status, &d), -EINVAL);
        cr_assert_eq(status, -1, "no status on failure");
        cordon_policy_free(p);
}

/* Runs @script in a sandbox from a forked child; returns the child's exit code, which is the
 * command's status (0..255) or 200 + the failing step when cordon_spawn() failed. */
static int spawn_in_child(const char *project, const char *script)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                struct cordon_policy *p = minimal_policy(project);
                struct cordon_diag d = {0};
                int status = -1;
                char sh[] = "sh", dash_c[] = "-c";
                char *copy = strdup(script);
                char *argv[] = {sh, dash_c, copy, NULL};
                int r = cordon_spawn(p, argv, &status, &d);
                cordon_policy_free(p);
                free(copy);
                _exit(r < 0 ? 200 + (int)d.step : status);
        }
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st));
        return WEXITSTATUS(st);
}

Test(public_api, spawn_confines_and_returns_the_status)
{
        char project[] = "/tmp/cordon-api-XXXXXX";
        cr_assert_not_null(mkdtemp(project));
        /* Exit codes: 3 the project is not writable, 4 /usr is writable, 5 the host /tmp
         * (where the project lives) shows more than the project, 42 all as expected. */
        char script[512];
        snprintf(script, sizeof(script),
                 "echo ok > %s/out || exit 3; touch /usr/cordon-api 2>/dev/null && exit 4; "
                 "[ \"$(ls /tmp)\" = \"%s\" ] || exit 5; exit 42",
                 project, strrchr(project, '/') + 1);
        cr_assert_eq(spawn_in_child(project, script), 42);
        char path[64];
        snprintf(path, sizeof(path), "%s/out", project);
        cr_assert_eq(access(path, F_OK), 0, "the write reached the host project");
        unlink(path);
        rmdir(project);
}

Test(public_api, spawn_reports_a_failed_bind_with_its_step)
{
        /* A project that does not exist cannot be opened: CORDON_STEP_OPEN, nothing runs. */
        cr_assert_eq(spawn_in_child("/tmp/cordon-api-missing-dir", "exit 0"),
                     200 + CORDON_STEP_OPEN);
}
