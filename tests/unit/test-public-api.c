/* libcordon through its public headers only, linked against the shared library: building a
 * policy, validation errors, and a spawn (in a forked child: user namespaces need a
 * single-threaded caller, and Criterion may run helper threads); capability policies; the host
 * checks. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/cap-policy.h"
#include "cordon/cordon.h"
#include "cordon/doctor.h"

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

Test(public_api, fs_rules_read_back_in_order)
{
        struct cordon_policy *p = cordon_policy_new();
        cr_assert_eq(cordon_policy_fs_count(p), 0);
        cr_assert_eq(cordon_policy_get_fs(p, 0, NULL, NULL, NULL, NULL, NULL), -ERANGE);
        cr_assert_eq(cordon_policy_add_fs(p, "/usr", "/usr", CORDON_ACCESS_RO, 0, "a"), 0);
        cr_assert_eq(
            cordon_policy_add_fs(p, "/tmp", NULL, CORDON_ACCESS_TMPFS, CORDON_FS_SEAL, "b"), 0);
        cr_assert_eq(cordon_policy_fs_count(p), 2);
        const char *guest = NULL, *host = "x", *origin = NULL;
        enum cordon_access access = CORDON_ACCESS_RO;
        unsigned flags = 0;
        cr_assert_eq(cordon_policy_get_fs(p, 1, &guest, &host, &access, &flags, &origin), 0);
        cr_assert_str_eq(guest, "/tmp");
        cr_assert_null(host);
        cr_assert_eq(access, CORDON_ACCESS_TMPFS);
        cr_assert_eq(flags, CORDON_FS_SEAL);
        cr_assert_str_eq(origin, "b");
        cr_assert_eq(cordon_policy_get_fs(p, 0, &guest, &host, NULL, NULL, NULL), 0);
        cr_assert_str_eq(guest, "/usr");
        cr_assert_str_eq(host, "/usr");
        cr_assert_eq(cordon_policy_get_fs(p, 2, &guest, NULL, NULL, NULL, NULL), -ERANGE);
        cordon_policy_free(p);
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

static struct cordon_cap_policy *cap_parse(const char *json)
{
        struct cordon_cap_policy *c = NULL;
        struct cordon_diag d = {0};
        int r = cordon_cap_policy_from_json(json, strlen(json), "t.json", &c, &d);
        cr_assert_eq(r, 0, "%s: %d %s", json, r, d.message);
        cr_assert_not_null(c);
        return c;
}

Test(public_api, cap_policy_parse_format_intersect)
{
        struct cordon_cap_policy *a = cap_parse("{\"workspace_roots\": [\"/srv/b\", \"/srv/a\"]}");
        struct cordon_cap_policy *b =
            cap_parse("{\"workspace_roots\": [\"/srv\"], \"sandbox_profile\": \"os_hardened\"}");
        struct cordon_cap_policy *both = NULL;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_cap_policy_intersection(a, b, &both, &d), 0, "%s", d.message);
        char *s = NULL;
        cr_assert_eq(cordon_cap_policy_format_json(both, &s), 0);
        cr_assert(strstr(s, "\"os_hardened\"") && strstr(s, "\"/srv/a\"") &&
                      strstr(s, "\"/srv/b\""),
                  "%s", s);
        /* The canonical form parses back to the same text. */
        struct cordon_cap_policy *again = cap_parse(s);
        char *s2 = NULL;
        cr_assert_eq(cordon_cap_policy_format_json(again, &s2), 0);
        cr_assert_str_eq(s, s2);
        free(s);
        free(s2);
        cr_assert_null(cordon_cap_policy_free(again));
        cordon_cap_policy_free(both);
        cordon_cap_policy_free(a);
        cordon_cap_policy_free(b);
        cr_assert_null(cordon_cap_policy_free(NULL));
}

Test(public_api, cap_policy_errors_name_the_key)
{
        struct cordon_cap_policy *c = NULL;
        struct cordon_diag d = {0};
        const char *bad = "{\"process_sandbox\": {\"read_roots\": [\"/a\", \"rel\"]}}";
        cr_assert_eq(cordon_cap_policy_from_json(bad, strlen(bad), "p.json", &c, &d), -EINVAL);
        cr_assert_null(c, "untouched on failure");
        cr_assert(strstr(d.message, "p.json") && strstr(d.message, "/process_sandbox/read_roots/1"),
                  "%s", d.message);

        struct cordon_cap_policy *x = cap_parse("{\"workspace_roots\": [\"/x\"]}");
        struct cordon_cap_policy *y = cap_parse("{\"workspace_roots\": [\"/y\"]}");
        struct cordon_cap_policy *none = NULL;
        d = (struct cordon_diag){0};
        cr_assert_eq(cordon_cap_policy_intersection(x, y, &none, &d), -EINVAL);
        cr_assert_null(none);
        cr_assert(*d.message);
        cordon_cap_policy_free(x);
        cordon_cap_policy_free(y);
}

Test(public_api, doctor_checks_and_features)
{
        struct cordon_doctor_landlock ll;
        cordon_doctor_check_landlock(&ll);
        cr_assert(ll.abi > 0 || ll.error < 0);
        struct cordon_doctor_seccomp sc;
        cordon_doctor_check_seccomp(&sc);
        cr_assert(sc.filter || sc.error < 0);
        struct cordon_doctor_limits lim;
        cr_assert_eq(cordon_doctor_check_limits(&lim), 0);
        struct cordon_doctor_pasta pasta;
        cr_assert_eq(cordon_doctor_find_pasta("relative:/nonexistent-dir", &pasta), 0);
        cr_assert_null(pasta.path);

        int abi = 0;
        cr_assert_str_eq(cordon_landlock_feature_name(0, &abi), "filesystem");
        cr_assert_eq(abi, 1);
        unsigned n = 0;
        while (cordon_landlock_feature_name(n, NULL))
                n++;
        cr_assert_geq(n, 6);
        cr_assert_str_eq(cordon_limit_mechanism_to_string(CORDON_LIMIT_CGROUP2), "cgroup2");
        cr_assert_str_eq(cordon_limit_kind_to_string(CORDON_LIMIT_PIDS), "pids");
}

/* The whole report in a forked child (the user namespace probe forks): `auto` agrees with what
 * the report says can run. Exit 0: consistent; 1..: which check failed. */
Test(public_api, doctor_collect_and_auto_backend)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                struct cordon_doctor_report r;
                if (cordon_doctor_collect(NULL, &r) < 0)
                        _exit(1);
                int b = cordon_doctor_auto_backend(&r);
                int rc = 0;
                if (cordon_doctor_ns_backend_usable(&r) && b != CORDON_BACKEND_NS &&
                    b != CORDON_BACKEND_LANDLOCK)
                        rc = 2;
                if (!cordon_doctor_ns_backend_usable(&r) &&
                    b != (r.landlock.abi > 0 ? CORDON_BACKEND_LANDLOCK : -EOPNOTSUPP))
                        rc = 3;
                /* The JSON encoding, compact, from the first part of the report on. */
                static const char start[] = "{\"user_namespaces\":{\"usable\":";
                char *json = NULL;
                if (cordon_doctor_to_json(&r, NULL, NULL, 0, &json) < 0 ||
                    strncmp(json, start, strlen(start)) != 0)
                        rc = 4;
                free(json);
                cordon_doctor_report_clear(&r);
                cordon_doctor_report_clear(NULL);
                _exit(rc);
        }
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st));
        cr_assert_eq(WEXITSTATUS(st), 0);
}
