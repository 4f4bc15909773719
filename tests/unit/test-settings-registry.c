/* Unit tests for src/lib/settings/settings-registry.c and the settings API (cordon/settings.h):
 * every row parses its default, defaults come from the table, values and list items carry origins,
 * bad values name the variable, variables not enforced refuse to pretend, and the environment and
 * capability policy front ends write through the same function. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "lib/settings/settings-policy.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "test-helpers.h"

static struct cordon_settings *s;
static struct cordon_diag diag;

static void setup(void)
{
        cr_assert_eq(cordon_settings_new("/home/alice", &s), 0);
        diag = (struct cordon_diag){0};
}

static void teardown(void)
{
        s = cordon_settings_free(s);
}

TestSuite(settings_registry, .init = setup, .fini = teardown);

static const char *get(const char *name, const char **ret_origin)
{
        static char buf[4096];
        int r = cordon_settings_get(s, name, buf, sizeof(buf), ret_origin);
        cr_assert_eq(r, 0, "get %s: %d", name, r);
        return buf;
}

Test(settings_registry, rows_are_well_formed)
{
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                cr_assert_not_null(v->name);
                for (const char *c = v->name; *c; c++)
                        cr_assert((*c >= 'A' && *c <= 'Z') || *c == '_' || (*c >= '0' && *c <= '9'),
                                  "%s: not a sandbox.conf name", v->name);
                for (size_t j = 0; j < i; j++)
                        cr_assert_str_neq(v->name, cordon_vars[j].name, "duplicate row");
                cr_assert_eq(cordon_var_find(v->name), v);
                cr_assert_str_eq(cordon_settings_variable(i), v->name);
                if (v->parse)
                        cr_assert_not_null(v->expected, "%s: a parser needs a reason", v->name);
                if (v->type == CORDON_VAR_ENUM && v->offset != SIZE_MAX)
                        cr_assert_not_null(v->enum_name, "%s", v->name);
                if (v->status == CORDON_VAR_ENFORCED || v->status == CORDON_VAR_HELD)
                        cr_assert_neq(v->offset, SIZE_MAX, "%s: enforced without a field", v->name);
                else
                        cr_assert_eq(v->offset, SIZE_MAX, "%s: not enforced with a field", v->name);
                if (v->type != CORDON_VAR_LIST && v->offset != SIZE_MAX)
                        cr_assert_neq(v->origin_offset, SIZE_MAX, "%s: a scalar needs an origin",
                                      v->name);
                if (v->type != CORDON_VAR_LIST && v->defaults)
                        cr_assert(!v->defaults[0] || !v->defaults[1], "%s: one default", v->name);
        }
        cr_assert_null(cordon_settings_variable(cordon_vars_count));
}

Test(settings_registry, every_variable_of_the_spec_index_has_a_row)
{
        /* agent-sandbox-configuration's index of variables. */
        const char *index[] = {
            "ALLOWED_PROJECT_PARENTS",
            "READONLY_MOUNTS",
            "HOME_ACCESS",
            "HOME_READONLY",
            "HOME_WRITABLE",
            "HOME_SEEDED_FILES",
            "EXTRA_BLOCKED_PATHS",
            "EXTRA_WRITABLE_PATHS",
            "DENIED_WRITABLE_PATHS",
            "BLOCKED_FILES",
            "DEVICES",
            "DEVICES_BLACKLIST",
            "BIND_DEV_PTS",
            "BLOCKED_ENV_VARS",
            "BLOCKED_ENV_PATTERNS",
            "ALLOWED_ENV_VARS",
            "SANDBOX_ENV",
            "SANDBOX_BACKEND",
            "SANDBOX_PREFERRED_BACKENDS",
            "SANDBOX_MODULES",
            "PRIVATE_TMP",
            "PRIVATE_IPC",
            "FILTER_PASSWD",
            "SANDBOX_NPROC_LIMIT",
            "SANDBOX_QUIET",
            "NETWORK_FILTER_MODE",
            "NETWORK_FILTER_FALLBACK",
            "NETWORK_BLOCKLIST",
            "NETWORK_BLOCKLIST_EXCEPT",
            "NETWORK_MAIL_BLOCK",
            "NETWORK_FILTER_SKIP_HELPER_PROBE",
            "SLURM_SCOPE",
            "CHAPERON_LOG_LEVEL",
            "CHAPERON_LOG_RETAIN_DAYS",
            "ENABLED_AGENTS",
            "SUPPRESS_AGENT_WARNINGS",
        };
        for (size_t i = 0; i < ELEMENTSOF(index); i++)
                cr_assert_not_null(cordon_var_find(index[i]), "no row for %s", index[i]);
}

Test(settings_registry, every_default_parses)
{
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                for (const char *const *d = v->defaults; d && *d; d++) {
                        if (streq(*d, "$HOME"))
                                continue;
                        union cordon_var_value val;
                        cr_assert(!v->parse || v->parse(*d, &val) >= 0, "%s: default '%s'", v->name,
                                  *d);
                        /* Setting the default is accepted even where nothing is enforced. */
                        int r = cordon_settings_set(s, v->name, *d, "test", &diag);
                        cr_assert_eq(r, 0, "%s='%s': %d (%s)", v->name, *d, r, diag.message);
                }
        }
}

/* The settings hold exactly the table's defaults, with the built-in origin. */
Test(settings_registry, defaults_come_from_the_table)
{
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (v->type == CORDON_VAR_LIST) {
                        ssize_t n = cordon_settings_count(s, v->name);
                        size_t want = 0;
                        for (const char *const *d = v->defaults; v->offset != SIZE_MAX && d && *d;
                             d++, want++) {
                                const char *value, *origin;
                                cr_assert_eq(
                                    cordon_settings_get_item(s, v->name, want, &value, &origin), 0,
                                    "%s[%zu]", v->name, want);
                                cr_assert_str_eq(value, streq(*d, "$HOME") ? "/home/alice" : *d,
                                                 "%s[%zu]", v->name, want);
                                cr_assert_str_eq(origin, CORDON_SETTINGS_BUILTIN);
                        }
                        cr_assert_eq(n, (ssize_t)want, "%s", v->name);
                        continue;
                }
                const char *origin = NULL;
                const char *value = get(v->name, &origin);
                cr_assert_str_eq(origin, CORDON_SETTINGS_BUILTIN, "%s", v->name);
                const char *d = v->defaults && v->defaults[0] ? v->defaults[0] : "";
                cr_assert_str_eq(value, d, "%s", v->name);
        }
}

Test(settings_registry, scalars_carry_their_origin)
{
        cr_assert_eq(cordon_settings_set(s, "TMP_SIZE", "64M", "--tmp-size", &diag), 0);
        const char *origin;
        cr_assert_str_eq(get("TMP_SIZE", &origin), "67108864");
        cr_assert_str_eq(origin, "--tmp-size");
        cr_assert_eq(s->limits.tmp_size_bytes, 64ULL << 20);
        cr_assert_str_eq(s->tmp_size_origin, "--tmp-size");

        cr_assert_eq(cordon_settings_set(s, "HOME_ACCESS", "read", "sandbox.conf:3", &diag), 0);
        cr_assert_eq(s->home_access, CORDON_HOME_READ);
        cr_assert_str_eq(get("HOME_ACCESS", &origin), "read");
        cr_assert_str_eq(origin, "sandbox.conf:3");

        cr_assert_eq(cordon_settings_set(s, "TIMEOUT", "2.5", "--timeout", &diag), 0);
        cr_assert_str_eq(get("TIMEOUT", NULL), "2.5", "written as it is read");
        cr_assert_eq(cordon_settings_set(s, "PRIVATE_TMP", "false", "env X", &diag), 0);
        cr_assert_not(s->private_tmp);
        cr_assert_str_eq(get("PRIVATE_TMP", &origin), "false");
        cr_assert_str_eq(origin, "env X");
}

Test(settings_registry, list_items_carry_their_origin)
{
        ssize_t n = cordon_settings_count(s, "READONLY_MOUNTS");
        cr_assert_gt(n, 0);
        cr_assert_eq(cordon_settings_set(s, "READONLY_MOUNTS", "/opt", "--ro", &diag), 0);
        cr_assert_eq(cordon_settings_set(s, "READONLY_MOUNTS", "/srv", "conf.d/x.conf:2", &diag),
                     0);
        cr_assert_eq(cordon_settings_count(s, "READONLY_MOUNTS"), n + 2);
        const char *value, *origin;
        cr_assert_eq(cordon_settings_get_item(s, "READONLY_MOUNTS", (size_t)n, &value, &origin), 0);
        cr_assert_str_eq(value, "/opt");
        cr_assert_str_eq(origin, "--ro");
        cr_assert_eq(cordon_settings_get_item(s, "READONLY_MOUNTS", (size_t)n + 1, &value, &origin),
                     0);
        cr_assert_str_eq(origin, "conf.d/x.conf:2");
        cr_assert_eq(cordon_settings_get_item(s, "READONLY_MOUNTS", (size_t)n + 2, &value, &origin),
                     -ERANGE);
        /* The built-in ones keep theirs. */
        cr_assert_eq(cordon_settings_get_item(s, "READONLY_MOUNTS", 0, &value, &origin), 0);
        cr_assert_str_eq(origin, CORDON_SETTINGS_BUILTIN);
}

Test(settings_registry, reset_puts_the_default_back)
{
        cr_assert_eq(cordon_settings_reset(s, "ALLOWED_PROJECT_PARENTS"), 0);
        cr_assert_eq(cordon_settings_count(s, "ALLOWED_PROJECT_PARENTS"), 3);
        cr_assert_eq(cordon_settings_set(s, "ALLOWED_PROJECT_PARENTS", "/data", "f:1", &diag), 0);
        cr_assert_eq(cordon_settings_reset(s, "ALLOWED_PROJECT_PARENTS"), 0);
        cr_assert_eq(cordon_settings_count(s, "ALLOWED_PROJECT_PARENTS"), 3);
        cr_assert_str_eq(s->allowed_project_parents.items[0].value, "/home/alice");
        cr_assert_eq(cordon_settings_set(s, "CPU_LIMIT", "2", "--cpus", &diag), 0);
        cr_assert_eq(cordon_settings_reset(s, "CPU_LIMIT"), 0);
        const char *origin;
        cr_assert_str_eq(get("CPU_LIMIT", &origin), "");
        cr_assert_str_eq(origin, CORDON_SETTINGS_BUILTIN);
        cr_assert_eq(cordon_settings_reset(s, "NO_SUCH_THING"), -ENOENT);
}

Test(settings_registry, bad_values_name_the_variable)
{
        const struct {
                const char *name, *value;
        } bad[] = {
            {"TMP_SIZE", "2E"},
            {"TMP_SIZE", "0"},
            {"TIMEOUT", "0"},
            {"MEMORY_LIMIT", "lots"},
            {"PIDS_LIMIT", "-1"},
            {"CPU_LIMIT", "4097"},
            {"HOME_ACCESS", "everything"},
            {"SANDBOX_BACKEND", "docker"},
            {"SANDBOX_PROFILE", "strict"},
            {"PRIVATE_TMP", "yes"},
            {"SANDBOX_ENV", "NOEQUALS"},
            {"ALLOWED_PROJECT_PARENTS", "relative"},
            {"CGROUP_PATH", "x"},
            {"HOME_WRITABLE", "../escape"},
            {"HOME_READONLY", "/etc"},
            {"POLICY_PRESETS", "everything"},
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                diag = (struct cordon_diag){0};
                size_t before = (size_t)cordon_settings_count(s, bad[i].name);
                int r = cordon_settings_set(s, bad[i].name, bad[i].value, "--flag", &diag);
                cr_assert_eq(r, -EINVAL, "%s='%s'", bad[i].name, bad[i].value);
                char want[256];
                snprintf(want, sizeof(want), "%s '%s': ", bad[i].name, bad[i].value);
                cr_assert(startswith(diag.message, want), "'%s'", diag.message);
                cr_assert_null(strstr(diag.message, "--flag"), "no flag in '%s'", diag.message);
                if (cordon_var_find(bad[i].name)->type == CORDON_VAR_LIST)
                        cr_assert_eq((size_t)cordon_settings_count(s, bad[i].name), before);
        }
        cr_assert_eq(cordon_settings_set(s, "NO_SUCH_THING", "1", "x", &diag), -ENOENT);
        cr_assert(strstr(diag.message, "NO_SUCH_THING"), "%s", diag.message);
}

Test(settings_registry, nothing_changes_on_failure)
{
        cr_assert_eq(cordon_settings_set(s, "HOME_ACCESS", "nope", "x", &diag), -EINVAL);
        const char *origin;
        cr_assert_str_eq(get("HOME_ACCESS", &origin), "tmpwrite");
        cr_assert_str_eq(origin, CORDON_SETTINGS_BUILTIN);
}

Test(settings_registry, respell)
{
        cr_assert_eq(cordon_settings_set(s, "TMP_SIZE", "2E", "x", &diag), -EINVAL);
        struct cordon_diag d = diag;
        cordon_settings_diag_respell(&d, "TMP_SIZE", "--tmp-size");
        cr_assert(startswith(d.message, "--tmp-size '2E': expected"), "%s", d.message);
        d = diag;
        cordon_settings_diag_respell(&d, "TMP_SIZE", "TMP_SIZE=");
        cr_assert(startswith(d.message, "TMP_SIZE='2E': expected"), "%s", d.message);
        d = diag;
        cordon_settings_diag_respell(&d, "TMP", "--tmp");
        cr_assert_str_eq(d.message, diag.message, "only the whole name is replaced");
}

Test(settings_registry, not_enforced_refuses_all_but_the_default)
{
        cr_assert_eq(cordon_settings_set(s, "SANDBOX_PREFERRED_BACKENDS", "ns", "f:1", &diag),
                     -EOPNOTSUPP);
        cr_assert(startswith(diag.message, "SANDBOX_PREFERRED_BACKENDS 'ns': "), "%s",
                  diag.message);
        cr_assert(strstr(diag.message, "not enforced"), "%s", diag.message);
        cr_assert_eq(cordon_settings_set(s, "SANDBOX_PREFERRED_BACKENDS", "bogus", "f:1", &diag),
                     -EINVAL, "a bad value is still a bad value");
        /* Held for the Slurm integration: any valid value is accepted and kept. */
        cr_assert_eq(cordon_settings_set(s, "SLURM_SCOPE", "project", "f:1", &diag), 0);
        cr_assert_eq(cordon_settings_set(s, "SLURM_SCOPE", "user", "f:2", &diag), 0);
        char buf[32];
        const char *origin = NULL;
        cr_assert_eq(cordon_settings_get(s, "SLURM_SCOPE", buf, sizeof(buf), &origin), 0);
        cr_assert_str_eq(buf, "user");
        cr_assert_str_eq(origin, "f:2");
        cr_assert_eq(cordon_settings_set(s, "SLURM_SCOPE", "bogus", "f:1", &diag), -EINVAL,
                     "a bad value is still a bad value");
        cr_assert_eq(cordon_settings_set(s, "CHAPERON_LOG_RETAIN_DAYS", "30", "f:3", &diag), 0);
        cr_assert_eq(cordon_settings_get(s, "CHAPERON_LOG_RETAIN_DAYS", buf, sizeof(buf), NULL), 0);
        cr_assert_str_eq(buf, "30");
        cr_assert_eq(cordon_settings_set(s, "NETWORK_BLOCKLIST", "*.example", "f:1", &diag), 0,
                     "enforced since the network modes landed");
        cr_assert_eq(cordon_settings_count(s, "NETWORK_BLOCKLIST"), 1);
        cr_assert_eq(cordon_settings_set(s, "NETWORK_BLOCKLIST", "127.1", "f:2", &diag), -EINVAL,
                     "a lenient numeric address is no pattern");
        cr_assert_eq(cordon_settings_count(s, "NETWORK_BLOCKLIST"), 1);
        /* Enforced since the agent profiles landed: any agent name, and emptying it disables
         * the built-in three. */
        cr_assert_eq(cordon_settings_set(s, "ENABLED_AGENTS", "claude", "f:1", &diag), 0);
        cr_assert_eq(cordon_settings_set(s, "ENABLED_AGENTS", "aider", "f:1", &diag), 0);
        cr_assert_eq(cordon_settings_set(s, "ENABLED_AGENTS", "Bad/Name", "f:1", &diag), -EINVAL);
        cr_assert_eq(cordon_settings_reset(s, "ENABLED_AGENTS"), 0);
        /* Documented no-ops accept any valid value. */
        cr_assert_eq(cordon_settings_set(s, "BIND_DEV_PTS", "true", "f:1", &diag), 0);
        cr_assert_eq(cordon_settings_set(s, "SUPPRESS_AGENT_WARNINGS", "all", "f:1", &diag), 0);
        for (size_t i = 0; i < cordon_vars_count; i++)
                if (cordon_vars[i].status != CORDON_VAR_ENFORCED &&
                    cordon_vars[i].status != CORDON_VAR_HELD)
                        cr_assert_eq(cordon_vars[i].offset, SIZE_MAX, "%s", cordon_vars[i].name);
}

Test(settings_registry, kinds_of_error)
{
        char buf[4];
        cr_assert_eq(cordon_settings_get(s, "READONLY_MOUNTS", buf, sizeof(buf), NULL), -EISDIR);
        cr_assert_eq(cordon_settings_get(s, "HOME_ACCESS", buf, sizeof(buf), NULL), -ENOBUFS);
        cr_assert_eq(cordon_settings_get(s, "NOPE", buf, sizeof(buf), NULL), -ENOENT);
        cr_assert_eq(cordon_settings_count(s, "HOME_ACCESS"), -ENOTDIR);
        cr_assert_eq(cordon_settings_count(s, "NOPE"), -ENOENT);
}

Test(settings_registry, no_home_no_home_parent)
{
        struct cordon_settings *t = NULL;
        cr_assert_eq(cordon_settings_new(NULL, &t), 0);
        cr_assert_eq(cordon_settings_count(t, "ALLOWED_PROJECT_PARENTS"), 2);
        cordon_settings_free(t);
        cr_assert_eq(cordon_settings_new("relative", &t), 0);
        cr_assert_eq(cordon_settings_count(t, "ALLOWED_PROJECT_PARENTS"), 2);
        cr_assert_null(cordon_settings_free(t));
        cr_assert_null(cordon_settings_free(NULL));
}

/* ---- the environment front end ---- */

Test(settings_registry, environment)
{
        char **envp = STRV_MAKE("PATH=/bin", "SANDBOX_BACKEND=bwrap", "HARN_HANDLER_SANDBOX=off",
                                "PROTECT_GIT_CONFIG=false", "SANDBOX_QUIET=true");
        cr_assert_eq(cordon_settings_apply_environment(s, envp, &diag), 0, "%s", diag.message);
        const char *origin;
        cr_assert_str_eq(get("SANDBOX_BACKEND", &origin), "ns");
        cr_assert_str_eq(origin, "env SANDBOX_BACKEND");
        cr_assert_str_eq(get("CORDON_HANDLER_SANDBOX", &origin), "off");
        cr_assert_str_eq(origin, "env HARN_HANDLER_SANDBOX");
        cr_assert_str_eq(get("PROTECT_GIT_CONFIG", &origin), "false");
        cr_assert_str_eq(origin, "env PROTECT_GIT_CONFIG");
        cr_assert_str_eq(get("SANDBOX_QUIET", &origin), "true");
        strv_free(envp);
}

/* The other names agent-sandbox's configuration lets the environment override. */
Test(settings_registry, environment_agent_sandbox_overrides)
{
        char **envp = STRV_MAKE("HOME_ACCESS=read", "NETWORK_FILTER_SKIP_HELPER_PROBE=1",
                                "SLURM_SCOPE=project");
        cr_assert_eq(cordon_settings_apply_environment(s, envp, &diag), 0, "%s", diag.message);
        const char *origin;
        cr_assert_str_eq(get("HOME_ACCESS", &origin), "read");
        cr_assert_str_eq(origin, "env HOME_ACCESS");
        cr_assert_str_eq(get("NETWORK_FILTER_SKIP_HELPER_PROBE", &origin), "1");
        cr_assert_str_eq(origin, "env NETWORK_FILTER_SKIP_HELPER_PROBE");
        strv_free(envp);
        /* A value the variable refuses is spelled as the environment spells it. */
        envp = STRV_MAKE("HOME_ACCESS=sideways");
        cr_assert_eq(cordon_settings_apply_environment(s, envp, &diag), -EINVAL);
        cr_assert(startswith(diag.message, "HOME_ACCESS='sideways': "), "'%s'", diag.message);
        strv_free(envp);
        if (cordon_var_find("CLEANUP_MATERIALIZED_BLOCKED_FILES")) {
                envp = STRV_MAKE("CLEANUP_MATERIALIZED_BLOCKED_FILES=nonsense-value");
                cr_assert_lt(cordon_settings_apply_environment(s, envp, &diag), 0);
                cr_assert(startswith(diag.message, "CLEANUP_MATERIALIZED_BLOCKED_FILES="), "'%s'",
                          diag.message);
                strv_free(envp);
        }
}

/* SANDBOX_NPROC_LIMIT from the environment wins over a file's value; an empty one is not set
 * (it must not lift the file's limit), a bad one is refused in the environment's spelling. */
/* Applies the environment @assignment and checks what @name then holds, and from where. */
static void env_gives(const char *assignment, const char *name, const char *value,
                      const char *origin)
{
        char *copy = strdup(assignment);
        char *envp[] = {copy, NULL};
        cr_assert_eq(cordon_settings_apply_environment(s, envp, &diag), 0, "%s", diag.message);
        free(copy);
        const char *got = NULL;
        cr_assert_str_eq(get(name, &got), value, "%s", assignment);
        cr_assert_str_eq(got, origin, "%s", assignment);
}

Test(settings_registry, environment_nproc_limit)
{
        cr_assert_eq(cordon_settings_set(s, "SANDBOX_NPROC_LIMIT", "4096", "sandbox.conf:3", &diag),
                     0, "%s", diag.message);
        env_gives("SANDBOX_NPROC_LIMIT=", "SANDBOX_NPROC_LIMIT", "4096", "sandbox.conf:3");
        env_gives("SANDBOX_NPROC_LIMIT=50", "SANDBOX_NPROC_LIMIT", "50", "env SANDBOX_NPROC_LIMIT");
        char bad[] = "SANDBOX_NPROC_LIMIT=lots";
        cr_assert_eq(cordon_settings_apply_environment(s, (char *[]){bad, NULL}, &diag), -EINVAL);
        cr_assert(startswith(diag.message, "SANDBOX_NPROC_LIMIT='lots': "), "'%s'", diag.message);
}

Test(settings_registry, environment_cordon_name_wins)
{
        char **envp = STRV_MAKE("HARN_HANDLER_SANDBOX=off", "CORDON_HANDLER_SANDBOX=warn");
        cr_assert_eq(cordon_settings_apply_environment(s, envp, &diag), 0, "%s", diag.message);
        const char *origin;
        cr_assert_str_eq(get("CORDON_HANDLER_SANDBOX", &origin), "warn");
        cr_assert_str_eq(origin, "env CORDON_HANDLER_SANDBOX");
        strv_free(envp);
        /* A bad harn value does not matter once cordon's own is set. */
        envp = STRV_MAKE("CORDON_HANDLER_SANDBOX=enforce", "HARN_HANDLER_SANDBOX=sometimes");
        cr_assert_eq(cordon_settings_apply_environment(s, envp, &diag), 0, "%s", diag.message);
        strv_free(envp);
}

Test(settings_registry, environment_errors_are_spelled_as_the_environment)
{
        const char *cases[][2] = {
            {"SANDBOX_BACKEND=docker", "SANDBOX_BACKEND='docker': "},
            {"HARN_HANDLER_SANDBOX=sometimes", "HARN_HANDLER_SANDBOX='sometimes': "},
            {"PROTECT_GIT_CONFIG=yes", "PROTECT_GIT_CONFIG='yes': "},
            {"SANDBOX_QUIET=1", "SANDBOX_QUIET='1': "},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char **envp = STRV_MAKE(cases[i][0]);
                diag = (struct cordon_diag){0};
                cr_assert_eq(cordon_settings_apply_environment(s, envp, &diag), -EINVAL);
                cr_assert(startswith(diag.message, cases[i][1]), "'%s'", diag.message);
                strv_free(envp);
        }
}

/* ---- the capability policy front end ---- */

static char *write_policy(const char *json)
{
        char *path = strdup("/tmp/cordon-test-policy-XXXXXX");
        cr_assert_not_null(path);
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        cr_assert_eq(write(fd, json, strlen(json)), (ssize_t)strlen(json));
        close(fd);
        return path;
}

Test(settings_registry, policy_items_carry_json_pointers)
{
        _cleanup_free_ char *path =
            write_policy("{\"workspace_roots\": [\"/w\"], \"read_only_roots\": [\"/a\", \"/b\"],"
                         " \"capabilities\": {\"workspace\": [\"read_text\"],"
                         " \"process\": [\"exec\"]},"
                         " \"sandbox_profile\": \"os_hardened\","
                         " \"side_effect_level\": \"process_exec\","
                         " \"process_sandbox\": {\"presets\": [\"user_temp\"],"
                         " \"read_roots\": [\"/r\"]}}");
        cr_assert_eq(cordon_settings_load_policy(s, path, &diag), 0, "%s", diag.message);
        const char *value, *origin;
        char want[512];
        cr_assert_eq(cordon_settings_get_item(s, "POLICY_READ_ONLY_ROOTS", 1, &value, &origin), 0);
        cr_assert_str_eq(value, "/b");
        snprintf(want, sizeof(want), "%s: /read_only_roots/1", path);
        cr_assert_str_eq(origin, want);
        cr_assert_eq(cordon_settings_get_item(s, "POLICY_READ_ROOTS", 0, &value, &origin), 0);
        snprintf(want, sizeof(want), "%s: /process_sandbox/read_roots/0", path);
        cr_assert_str_eq(origin, want);
        cr_assert_eq(cordon_settings_count(s, "POLICY_PRESETS"), 1);
        cr_assert_str_eq(get("POLICY_WORKSPACE_WRITES", &origin), "false");
        snprintf(want, sizeof(want), "%s: /capabilities/workspace", path);
        cr_assert_str_eq(origin, want);
        cr_assert_str_eq(get("POLICY_PROCESS_EXEC", NULL), "true");
        cr_assert_str_eq(get("SANDBOX_PROFILE", &origin), "os_hardened");
        snprintf(want, sizeof(want), "%s: /sandbox_profile", path);
        cr_assert_str_eq(origin, want);
        cr_assert_str_eq(get("SIDE_EFFECT_LEVEL", NULL), "process_exec");
        cr_assert_str_eq(get("POLICY", NULL), path);
        unlink(path);
}

Test(settings_registry, policy_profile_is_strictest_wins_and_a_second_policy_replaces)
{
        cr_assert_eq(cordon_settings_set(s, "SANDBOX_PROFILE", "os_hardened", "--profile", &diag),
                     0);
        _cleanup_free_ char *a = write_policy("{\"sandbox_profile\": \"unrestricted\", "
                                              "\"workspace_roots\": [\"/x\", \"/y\"]}");
        _cleanup_free_ char *b = write_policy("{\"workspace_roots\": [\"/z\"]}");
        cr_assert_eq(cordon_settings_load_policy(s, a, &diag), 0, "%s", diag.message);
        const char *origin;
        cr_assert_str_eq(get("SANDBOX_PROFILE", &origin), "os_hardened");
        cr_assert_str_eq(origin, "--profile", "a policy cannot loosen the profile");
        cr_assert_eq(cordon_settings_load_policy(s, b, &diag), 0, "%s", diag.message);
        cr_assert_eq(cordon_settings_count(s, "POLICY_WORKSPACE_ROOTS"), 1);
        cr_assert_eq(cordon_settings_count(s, "POLICY_PRESETS"), 4, "omitted: all four");
        unlink(a);
        unlink(b);
}

Test(settings_registry, policy_side_effect_level_is_strictest_wins)
{
        cr_assert_eq(cordon_settings_set(s, "SIDE_EFFECT_LEVEL", "none", "env X", &diag), 0);
        _cleanup_free_ char *looser = write_policy("{\"side_effect_level\": \"network\"}");
        _cleanup_free_ char *plain = write_policy("{\"workspace_roots\": [\"/z\"]}");
        cr_assert_eq(cordon_settings_load_policy(s, looser, &diag), 0, "%s", diag.message);
        const char *origin;
        cr_assert_str_eq(get("SIDE_EFFECT_LEVEL", &origin), "none");
        cr_assert_str_eq(origin, "env X", "a policy cannot loosen the side-effect level");
        cr_assert_eq(cordon_settings_load_policy(s, plain, &diag), 0, "%s", diag.message);
        cr_assert_str_eq(get("SIDE_EFFECT_LEVEL", NULL), "none", "nor can one that omits it");
        /* Control: a stricter one lowers it. */
        cr_assert_eq(cordon_settings_reset(s, "SIDE_EFFECT_LEVEL"), 0);
        _cleanup_free_ char *stricter = write_policy("{\"side_effect_level\": \"read_only\"}");
        cr_assert_eq(cordon_settings_load_policy(s, stricter, &diag), 0, "%s", diag.message);
        cr_assert_str_eq(get("SIDE_EFFECT_LEVEL", NULL), "read_only");
        unlink(looser);
        unlink(plain);
        unlink(stricter);
}

Test(settings_registry, policy_errors)
{
        cr_assert_eq(cordon_settings_load_policy(s, "/nonexistent/policy.json", &diag), -ENOENT);
        cr_assert(strstr(diag.message, "/nonexistent/policy.json"), "%s", diag.message);
        _cleanup_free_ char *path = write_policy("{\"bogus\": 1}");
        cr_assert_eq(cordon_settings_load_policy(s, path, &diag), -EINVAL);
        cr_assert(strstr(diag.message, "bogus"), "%s", diag.message);
        cr_assert_eq(cordon_settings_count(s, "POLICY_WORKSPACE_ROOTS"), 0);
        unlink(path);
}

/* ---- host facts ---- */

Test(settings_registry, host_of_the_current_process)
{
        char **envp = STRV_MAKE("A=1", "HOME=/first", "HOME=/second");
        struct cordon_host h;
        cr_assert_eq(cordon_host_init_current(&h, envp), 0);
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        cr_assert_str_eq(h.cwd, cwd);
        cr_assert_str_eq(h.home, "/first", "the first HOME, as getenv() finds it");
        cr_assert_eq(h.uid, getuid());
        cr_assert_eq(h.gid, getgid());
        cr_assert_eq(h.envp, envp);
        cordon_host_clear(&h);
        cr_assert_null(h.cwd);
        cordon_host_clear(&h); /* twice is harmless */
        strv_free(envp);
}

Test(settings_registry, admin_rules_fit_their_rows)
{
        /* cordon_settings_finalize() climbs a ladder of booleans and enums only, and restores
         * lists only. */
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (v->admin == CORDON_ADMIN_HARDEN_ONLY)
                        cr_assert(v->type == CORDON_VAR_BOOL || v->type == CORDON_VAR_ENUM, "%s",
                                  v->name);
                if (v->admin == CORDON_ADMIN_RESTORED || v->admin == CORDON_ADMIN_NARROW_ONLY)
                        cr_assert_eq(v->type, CORDON_VAR_LIST, "%s", v->name);
                /* Pinning replaces a scalar; a program the supervisor runs is a path the admin
                 * can pin. */
                if (v->admin == CORDON_ADMIN_PINNED)
                        cr_assert_neq(v->type, CORDON_VAR_LIST, "%s", v->name);
                if (v->host_program)
                        cr_assert(v->type == CORDON_VAR_STRING && v->admin == CORDON_ADMIN_PINNED &&
                                      v->offset != SIZE_MAX,
                                  "%s", v->name);
        }
        const struct cordon_var *d = cordon_var_find("DENIED_WRITABLE_PATHS");
        cr_assert_eq(d->status, CORDON_VAR_ENFORCED);
        cr_assert_eq(d->admin, CORDON_ADMIN_ADMIN_ONLY);
        /* The security scalars of issue 22 item 11 have a rule; the helper is a host program. */
        static const char *const ruled[] = {"HOME_ACCESS",           "NETWORK_PROXY_DNS",
                                            "NETWORK_FILTER_HELPER", "SANDBOX_BACKEND",
                                            "PROTECT_GIT_CONFIG",    "TERMINAL_PASSTHROUGH"};
        for (size_t i = 0; i < sizeof(ruled) / sizeof(ruled[0]); i++)
                cr_assert_neq(cordon_var_find(ruled[i])->admin, CORDON_ADMIN_NONE, "%s", ruled[i]);
        cr_assert(cordon_var_find("NETWORK_FILTER_HELPER")->host_program);
}
