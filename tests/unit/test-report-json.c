/* Unit tests for src/lib/report/report-json.c: a sandbox's report as JSON, byte for byte (the
 * receipt's keys, in their order), through a run's stages: decided, running, ended, failed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/sandbox.h"

static const char *const blocked[] = {"AWS_SECRET_ACCESS_KEY", "OLDPWD", NULL};
static const struct cordon_git_moved moved[] = {
    {.path = "/p/.git", .moved_to = "/p/.git.cordon-1", .reason = "core.fsmonitor"},
};

/* A report as the ns backend fills it: decided, started, ended with status 3. */
static struct cordon_report ended_ns(void)
{
        return (struct cordon_report){
            .backend = CORDON_BACKEND_NS,
            .profile = CORDON_PROFILE_WORKTREE,
            .fallback = CORDON_FALLBACK_ENFORCE,
            .net_mode = CORDON_NET_FILTERED,
            .namespaces = CORDON_NS_USER | CORDON_NS_MOUNT | CORDON_NS_PID | CORDON_NS_NET,
            .landlock = {.planned = true, .abi = 3, .features = 0x7, .rules = 16, .scoped = true},
            .seccomp = {.planned = true, .deny_list = true, .instructions = 228},
            .project_dir = "/p",
            .home_access = CORDON_HOME_TMPWRITE,
            .env_blocked = 2,
            .env_blocked_names = blocked,
            .started = true,
            .ended = true,
            .exit_status = 3,
            .git = {.n_moved = 1, .moved = moved, .unchecked = ""},
        };
}

static char *to_json(const struct cordon_report *rep)
{
        char *text = NULL;
        cr_assert_eq(cordon_report_to_json(rep, 0, &text), 0);
        cr_assert_not_null(text);
        return text;
}

Test(report_json, ended)
{
        struct cordon_report rep = ended_ns();
        char *text = to_json(&rep);
        cr_expect_str_eq(
            text,
            "{\"backend\":\"ns\",\"profile\":\"worktree\",\"fallback\":\"enforce\",\"project\":"
            "\"/p\",\"home_access\":\"tmpwrite\",\"network\":\"filtered\",\"env_blocked\":2,"
            "\"env_blocked_names\":[\"AWS_SECRET_ACCESS_KEY\",\"OLDPWD\"],\"namespaces\":["
            "\"user\",\"mount\",\"pid\",\"net\"],\"layers\":{\"landlock\":{\"applied\":true,"
            "\"abi\":3,\"features\":[\"filesystem\",\"refer\",\"truncate\"],\"rules\":16,"
            "\"tcp_denied\":false,\"scoped\":true},\"seccomp\":{\"applied\":true,\"deny_list\":"
            "true,\"deny_network\":false,\"deny_socket_create\":false,\"instructions\":228}},"
            "\"outcome\":{\"exit_status\":3},\"git_moved\":[{\"path\":\"/p/.git\",\"moved_to\":"
            "\"/p/.git.cordon-1\",\"reason\":\"core.fsmonitor\"}],\"git_unchecked\":null}");
        free(text);
}

/* Before the wait: the layers apply (the command runs), there is no outcome yet; what the git
 * check left unchecked is said. */
Test(report_json, running)
{
        struct cordon_report rep = ended_ns();
        rep.ended = false;
        rep.exit_status = 0;
        rep.git = (typeof(rep.git)){.unchecked = "a limit"};
        char *text = to_json(&rep);
        cr_expect(strstr(text, "\"landlock\":{\"applied\":true,"));
        cr_expect(strstr(text, "\"outcome\":null,\"git_moved\":[],\"git_unchecked\":\"a limit\"}"),
                  "%s", text);
        free(text);
}

/* A start that failed: nothing runs under the layers, and the outcome is the errno. */
Test(report_json, start_failed)
{
        struct cordon_report rep = ended_ns();
        rep.started = rep.ended = false;
        rep.exit_status = 0;
        rep.error = -ENOENT;
        rep.failed_step = CORDON_STEP_EXEC;
        char *text = to_json(&rep);
        cr_expect(strstr(text, "\"landlock\":{\"applied\":false,"), "%s", text);
        cr_expect(strstr(text, "\"seccomp\":{\"applied\":false,"), "%s", text);
        cr_expect(strstr(text, "\"outcome\":{\"error\":\"No such file or directory\",\"errno\":2}"),
                  "%s", text);
        free(text);
}

/* A layer that was not planned has no features and is not applied; no namespaces is an empty
 * list; no project, no names and a path that is not UTF-8 are null or empty, never an error. */
Test(report_json, landlock_backend_without_layers)
{
        struct cordon_report rep = ended_ns();
        rep.backend = CORDON_BACKEND_LANDLOCK;
        rep.namespaces = 0;
        rep.landlock.planned = rep.seccomp.planned = false;
        rep.project_dir = NULL;
        rep.env_blocked = 0;
        rep.env_blocked_names = NULL;
        static const struct cordon_git_moved bad[] = {
            {.path = "/p/\xff.git", .moved_to = "/p/x", .reason = "r"},
        };
        rep.git.moved = bad;
        char *text = to_json(&rep);
        cr_expect(strstr(text, "\"project\":null,"), "%s", text);
        cr_expect(strstr(text, "\"env_blocked_names\":[],\"namespaces\":[],"), "%s", text);
        cr_expect(strstr(text, "{\"applied\":false,\"abi\":3,\"features\":[],\"rules\":16,"), "%s",
                  text);
        cr_expect(strstr(text, "\"git_moved\":[{\"path\":null,\"moved_to\":\"/p/x\""), "%s", text);
        free(text);
}

Test(report_json, refuses_bad_arguments)
{
        struct cordon_report rep = ended_ns();
        char untouched[] = "untouched", *text = untouched;
        cr_expect_eq(cordon_report_to_json(&rep, 1, &text), -EINVAL);
        cr_expect_eq(cordon_report_to_json(NULL, 0, &text), -EINVAL);
        cr_expect_eq(cordon_report_to_json(&rep, 0, NULL), -EINVAL);
        cr_expect_str_eq(text, "untouched");
}
