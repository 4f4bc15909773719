/* Unit tests for src/lib/settings/settings.c: the built-in defaults of the sandbox.conf variables.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/settings/settings.h"
#include "shared/macro.h"

#define BUILTIN "built-in default"

static struct cordon_settings s;

static void setup(void)
{
        cr_assert_eq(cordon_settings_init_defaults(&s, "/home/alice"), 0);
}

static void teardown(void)
{
        cordon_settings_clear(&s);
}

TestSuite(settings, .init = setup, .fini = teardown);

static void assert_contains(const struct cordon_list *l, const char *value, const char *list_name)
{
        const struct cordon_item *it = cordon_list_find(l, value);
        cr_assert_not_null(it, "%s lacks '%s'", list_name, value);
        cr_assert_str_eq(it->origin, BUILTIN, "%s entry '%s' has origin '%s'", list_name, value,
                         it->origin);
}

#define ASSERT_CONTAINS_ALL(list, ...)                                                             \
        do {                                                                                       \
                const char *const _v_[] = {__VA_ARGS__};                                           \
                for (size_t _i_ = 0; _i_ < ELEMENTSOF(_v_); _i_++)                                 \
                        assert_contains(&s.list, _v_[_i_], #list);                                 \
        } while (0)

Test(settings, scalar_defaults)
{
        cr_assert_eq(s.home_access, CORDON_HOME_TMPWRITE);
        cr_assert_str_eq(s.home_access_origin, BUILTIN);
        cr_assert_eq(s.net_mode, CORDON_NET_FILTERED, "the spec's default");
        cr_assert_eq(s.net_fallback, CORDON_NET_FALLBACK_STRICTER, "cordon's: never weaker");
        cr_assert_eq(s.mail_block, CORDON_MAIL_BLOCK_AUTO);
        cr_assert(s.private_tmp);
        cr_assert(s.private_ipc);
        cr_assert(s.filter_passwd);
        cr_assert_not(s.quiet);
        cr_assert_null(s.project_dir, "the project defaults to the working directory");
}

Test(settings, allowed_project_parents)
{
        cr_assert_eq(s.allowed_project_parents.n, 3);
        cr_assert_str_eq(s.allowed_project_parents.items[0].value, "/home/alice");
        ASSERT_CONTAINS_ALL(allowed_project_parents, "/home/alice", "/tmp", "/var/tmp");
}

Test(settings, no_home_means_no_home_parent)
{
        struct cordon_settings t;
        cr_assert_eq(cordon_settings_init_defaults(&t, NULL), 0);
        cr_assert_eq(t.allowed_project_parents.n, 2);
        cr_assert_not_null(cordon_list_find(&t.allowed_project_parents, "/tmp"));
        cr_assert_not_null(cordon_list_find(&t.allowed_project_parents, "/var/tmp"));
        cordon_settings_clear(&t);
}

Test(settings, readonly_mounts)
{
        ASSERT_CONTAINS_ALL(readonly_mounts, "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc");
        cr_assert_null(cordon_list_find(&s.readonly_mounts, "/"));
        cr_assert_null(cordon_list_find(&s.readonly_mounts, "/home"));
        cr_assert_null(cordon_list_find(&s.readonly_mounts, "/root"));
}

Test(settings, home_lists)
{
        ASSERT_CONTAINS_ALL(home_readonly, ".bashrc", ".profile", ".config/git");
        ASSERT_CONTAINS_ALL(home_readonly, ".config/autostart", ".config/systemd/user");
        /* Not .cache/uv: uv hardlinks its cache into the host's virtual environments. */
        cr_assert_null(cordon_list_find(&s.home_writable, ".cache/uv"));
        /* The agents' directories come from the profiles of the default ENABLED_AGENTS. */
        cr_assert_eq(cordon_settings_finalize(&s, NULL, NULL), 0);
        /* Each directory is read-only; the state in it is writable. */
        const char *const agent_dirs[] = {".claude", ".codex", ".gemini"};
        const char *const agent_state[] = {".claude/projects", ".codex/sessions", ".gemini/tmp"};
        for (size_t i = 0; i < ELEMENTSOF(agent_dirs); i++) {
                const struct cordon_item *it = cordon_list_find(&s.home_readonly, agent_dirs[i]);
                cr_assert_not_null(it, "home_readonly lacks '%s'", agent_dirs[i]);
                cr_assert(startswith(it->origin, "profile "), "%s", it->origin);
                cr_assert_null(cordon_list_find(&s.home_writable, agent_dirs[i]));
                it = cordon_list_find(&s.home_writable, agent_state[i]);
                cr_assert_not_null(it, "home_writable lacks '%s'", agent_state[i]);
        }
        ASSERT_CONTAINS_ALL(home_seeded, ".gitconfig");
        /* Home entries are relative to $HOME: none may be absolute or climb out. */
        const struct cordon_list *lists[] = {&s.home_readonly, &s.home_writable, &s.home_seeded,
                                             &s.home_always_blocked};
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                CORDON_LIST_FOREACH (it, lists[i]) {
                        cr_assert_neq(it->value[0], '/', "'%s' is absolute", it->value);
                        cr_assert_null(strstr(it->value, ".."), "'%s' climbs", it->value);
                }
}

Test(settings, credentials_always_blocked)
{
        ASSERT_CONTAINS_ALL(home_always_blocked, ".ssh", ".aws", ".gnupg");
        /* No credential store may also be listed as visible. */
        CORDON_LIST_FOREACH (it, &s.home_always_blocked) {
                cr_assert_null(cordon_list_find(&s.home_readonly, it->value), "%s", it->value);
                cr_assert_null(cordon_list_find(&s.home_writable, it->value), "%s", it->value);
                cr_assert_null(cordon_list_find(&s.home_seeded, it->value), "%s", it->value);
        }
}

Test(settings, devices_and_blacklist)
{
        ASSERT_CONTAINS_ALL(devices, "/dev/nvidiactl", "/dev/nvidia-uvm");
        ASSERT_CONTAINS_ALL(devices_blacklist, "/dev/sd*", "/dev/nvme*", "/dev/mem", "/dev/kmem",
                            "/dev/port", "/dev/loop*");
}

Test(settings, env_defaults)
{
        ASSERT_CONTAINS_ALL(allowed_env_vars, "ANTHROPIC_API_KEY", "OPENAI_API_KEY",
                            "CODEX_API_KEY", "GOOGLE_API_KEY");
        /* The credential words match in any case, also inside a name; vendor prefixes as given. */
        ASSERT_CONTAINS_ALL(blocked_env_patterns, "SSH_*", "*_TOKEN/i", "*_SECRET/i",
                            "*_SECRET_*/i", "*_PASSWORD/i", "*_API_KEY/i", "*_PRIVATE_KEY/i",
                            "AZURE_*", "DOCKER_*", "CI_*");
        ASSERT_CONTAINS_ALL(blocked_env_vars, "GITHUB_PAT", "AWS_ACCESS_KEY_ID",
                            "AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "PGPASSWORD", "KUBECONFIG",
                            "DBUS_SESSION_BUS_ADDRESS", "XAUTHORITY", "OLDPWD");
        cr_assert_eq(s.sandbox_env.n, 0);
        /* Variables everything needs are not blocked by name. */
        const char *keep[] = {"PATH", "HOME", "TERM", "LANG", "USER"};
        for (size_t i = 0; i < ELEMENTSOF(keep); i++)
                cr_assert_null(cordon_list_find(&s.blocked_env_vars, keep[i]), "%s", keep[i]);
}

Test(settings, env_defaults_issue_11)
{
        /* Bare credential words, passphrases, password-manager sessions, npm/yarn auth. */
        ASSERT_CONTAINS_ALL(blocked_env_patterns, "PASSWORD/i", "TOKEN/i", "SECRET/i", "API_KEY/i",
                            "*_PASSPHRASE/i", "OP_SESSION_*", "*_authToken/i",
                            "npm_config_*_auth/i");
        ASSERT_CONTAINS_ALL(blocked_env_vars, "BW_SESSION");
        /* The agents' own credentials are allowed, as their API keys are. */
        ASSERT_CONTAINS_ALL(allowed_env_vars, "GEMINI_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN",
                            "ANTHROPIC_AUTH_TOKEN");
        cr_assert(s.block_env_url_credentials, "BLOCK_ENV_URL_CREDENTIALS defaults to true");
}

Test(settings, user_lists_start_empty)
{
        cr_assert_eq(s.extra_blocked_paths.n, 0);
        cr_assert_eq(s.extra_writable_paths.n, 0);
        cr_assert_eq(s.blocked_files.n, 0);
}

Test(settings, clear_zeroes_and_reinit_works)
{
        cordon_settings_clear(&s);
        cr_assert_eq(s.readonly_mounts.n, 0);
        cr_assert_null(s.home_access_origin);
        cordon_settings_clear(&s); /* twice is harmless */
        cr_assert_eq(cordon_settings_init_defaults(&s, "/root"), 0);
        cr_assert_str_eq(s.allowed_project_parents.items[0].value, "/root");
}
