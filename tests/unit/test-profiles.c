/* Agent profiles: the profile file parser (profile-parse.c), the lookup order and the folding of
 * ENABLED_AGENTS into the settings (profiles.c), and what resolve makes of them
 * (lower-agents.c). Fixture in lower-fixture.h. */
#include "lib/profiles/profiles.h"
#include "shared/fd-util.h"
#define LOWER_FIXTURE_AGENTS_INSTALLED
#include "lower-fixture.h"

TestSuite(profiles, .init = setup, .fini = teardown);

static int parse(const char *text, struct cordon_agent_profile *a)
{
        diag = (struct cordon_diag){0};
        return cordon_profile_parse("t", "t/profile", text, strlen(text), a, &diag);
}

static void parse_fails(const char *text, const char *needle)
{
        struct cordon_agent_profile a = {0};
        cr_assert_eq(parse(text, &a), -EINVAL, "'%s' is refused", text);
        cr_assert_null(a.name, "nothing is left behind");
        cr_assert(strstr(diag.message, needle), "'%s': %s", text, diag.message);
}

/* ---- the parser ---- */

Test(profiles, parses_every_key_with_its_origin)
{
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        cr_assert_eq(parse("# comment\n\nwritable .t\nreadonly .t.yml\ninstructions .t/T.md\n"
                           "exec_config .t/settings.json\nexec_dir .t/hooks\n"
                           "config_dir_var T_HOME .t\nconfig_dir_var T_ROOT .\n"
                           "credential_env T_API_KEY\nauth_path .t\nwritable .t\ndir .u\n"
                           "state .u/s\nstate_file .u/f.json\ncommand t-agent\n",
                           &a),
                     0, "%s", diag.message);
        cr_assert_str_eq(a.items[CORDON_PROFILE_WRITABLE].items[0].value, ".t");
        cr_assert_eq(a.items[CORDON_PROFILE_WRITABLE].n, 1, "a repeated item is kept once");
        cr_assert_str_eq(a.items[CORDON_PROFILE_WRITABLE].items[0].origin,
                         "profile t (t/profile:3)");
        cr_assert_str_eq(a.items[CORDON_PROFILE_CONFIG_DIR_VAR].items[0].value, "T_HOME=.t");
        cr_assert_str_eq(a.items[CORDON_PROFILE_CONFIG_DIR_VAR].items[1].value, "T_ROOT=.");
        cr_assert_str_eq(a.items[CORDON_PROFILE_CREDENTIAL_ENV].items[0].value, "T_API_KEY");
        cr_assert_str_eq(a.items[CORDON_PROFILE_EXEC_DIR].items[0].origin,
                         "profile t (t/profile:7)");
        cr_assert_str_eq(a.items[CORDON_PROFILE_DIR].items[0].value, ".u");
        cr_assert_str_eq(a.items[CORDON_PROFILE_STATE].items[0].value, ".u/s");
        cr_assert_str_eq(a.items[CORDON_PROFILE_STATE_FILE].items[0].value, ".u/f.json");
        cr_assert_str_eq(cordon_profile_key_name(CORDON_PROFILE_STATE_FILE), "state_file");
        cr_assert_str_eq(a.items[CORDON_PROFILE_COMMAND].items[0].value, "t-agent");
}

Test(profiles, refuses_what_is_not_strictly_valid)
{
        parse_fails("bogus x\n", "t/profile:1: unknown key 'bogus'");
        parse_fails("writable\n", "t/profile:1: expected KEY VALUE");
        parse_fails("# c\nwritable /etc\n", "t/profile:2: writable '/etc'");
        parse_fails("readonly ../x\n", "readonly '../x'");
        parse_fails("command ../bin/x\n", "command '../bin/x': expected a program name");
        parse_fails("command .hidden\n", "command '.hidden'");
        parse_fails("readonly a/../../x\n", "readonly");
        parse_fails("writable .\n", "writable '.'");
        parse_fails("writable a//b\n", "writable");
        parse_fails("writable two words\n", "writable");
        parse_fails("writable  x\n", "writable");
        parse_fails(" writable x\n", "starts with a key");
        parse_fails("credential_env 9BAD\n", "credential_env '9BAD'");
        parse_fails("credential_env A=B\n", "credential_env");
        parse_fails("config_dir_var NAME\n", "config_dir_var");
        parse_fails("config_dir_var NAME /abs\n", "config_dir_var");
        parse_fails("writable a\033b\n", "writable");
        struct cordon_agent_profile a = {0};
        cr_assert_eq(cordon_profile_parse("t", "t/profile", "writable a\0b\n", 12, &a, &diag),
                     -EINVAL);
        cr_assert_eq(cordon_profile_parse("Bad", "f", "", 0, &a, &diag), -EINVAL);
        cr_assert_eq(parse("writable x\r\n", &a), 0, "a CR at the end is not part of the value");
        cordon_agent_profile_clear(&a);
}

Test(profiles, limits)
{
        _cleanup_free_ char *big = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&big, &n);
        for (unsigned i = 0; i <= CORDON_PROFILE_ITEMS_MAX; i++)
                fprintf(f, "writable d%u\n", i);
        fclose(f);
        struct cordon_agent_profile a = {0};
        cr_assert_eq(parse(big, &a), -E2BIG);
        cr_assert_null(a.name);
}

Test(profiles, names)
{
        cr_assert(cordon_profile_name_is_valid("claude"));
        cr_assert(cordon_profile_name_is_valid("my_agent-2"));
        cr_assert_not(cordon_profile_name_is_valid(""));
        cr_assert_not(cordon_profile_name_is_valid("Claude"));
        cr_assert_not(cordon_profile_name_is_valid("../x"));
        cr_assert_not(cordon_profile_name_is_valid("a b"));
}

Test(profiles, every_builtin_profile_parses)
{
        cr_assert_geq(cordon_builtin_profiles_count, 6);
        for (size_t i = 0; i < cordon_builtin_profiles_count; i++) {
                const struct cordon_builtin_profile *b = &cordon_builtin_profiles[i];
                _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
                cr_assert_eq(
                    cordon_profile_parse(b->name, "f", b->profile, strlen(b->profile), &a, &diag),
                    0, "%s: %s", b->name, diag.message);
                cr_assert(a.items[CORDON_PROFILE_DIR].n > 0, "%s", b->name);
                cr_assert(a.items[CORDON_PROFILE_STATE].n > 0, "%s", b->name);
                cr_assert_eq(a.items[CORDON_PROFILE_WRITABLE].n, 0, "%s: no whole directory",
                             b->name);
                cr_assert(a.items[CORDON_PROFILE_AUTH_PATH].n > 0, "%s", b->name);
                cr_assert(strstr(b->note, "cordon"), "%s has a note", b->name);
        }
}

/* ---- lookup ---- */

Test(profiles, user_folder_wins_over_admin_wins_over_builtin)
{
        const char *user = in_root("user"), *admin = in_root("admin");
        struct cordon_profile_dirs dirs = {.user_dir = user, .admin_dir = admin};
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        cr_assert_eq(cordon_profile_load("claude", &dirs, &a, NULL, &diag), 0, "%s", diag.message);
        cr_assert(startswith(a.items[CORDON_PROFILE_DIR].items[0].origin,
                             "profile claude (<built-in>/claude/profile:"));
        cordon_agent_profile_clear(&a);

        write_file(fmt("%s/claude/profile", admin), "writable .admin\n");
        cr_assert_eq(cordon_profile_load("claude", &dirs, &a, NULL, &diag), 0, "%s", diag.message);
        cr_assert_str_eq(a.items[CORDON_PROFILE_WRITABLE].items[0].value, ".admin");
        cr_assert_str_eq(a.note, "", "no agent.md: no note");
        cordon_agent_profile_clear(&a);

        write_file(fmt("%s/claude/profile", user), "writable .user\n");
        write_file(fmt("%s/claude/agent.md", user), "NOTE\n");
        cr_assert_eq(cordon_profile_load("claude", &dirs, &a, NULL, &diag), 0, "%s", diag.message);
        cr_assert_str_eq(a.items[CORDON_PROFILE_WRITABLE].items[0].value, ".user");
        cr_assert_eq(a.items[CORDON_PROFILE_WRITABLE].n, 1, "a folder replaces, never merges");
        cr_assert_str_eq(a.items[CORDON_PROFILE_WRITABLE].items[0].origin,
                         fmt("profile claude (%s/claude/profile:1)", user));
        cr_assert_str_eq(a.note, "NOTE\n");
}

Test(profiles, unknown_agent_is_refused_naming_the_places_searched)
{
        struct cordon_profile_dirs dirs = {.user_dir = in_root("user"), .admin_dir = in_root("a")};
        struct cordon_agent_profile a = {0};
        cr_assert_eq(cordon_profile_load("nosuch", &dirs, &a, NULL, &diag), -ENOENT);
        cr_assert(strstr(diag.message, "nosuch"), "%s", diag.message);
        cr_assert(strstr(diag.message, fmt("%s/user/nosuch", root)), "%s", diag.message);
        cr_assert(strstr(diag.message, fmt("%s/a/nosuch", root)), "%s", diag.message);
        cr_assert(strstr(diag.message, "built-in"), "%s", diag.message);
        cr_assert_eq(cordon_profile_load("../etc", &dirs, &a, NULL, &diag), -EINVAL);
}

Test(profiles, a_malformed_folder_is_refused_with_file_and_line)
{
        const char *user = in_root("user");
        struct cordon_profile_dirs dirs = {.user_dir = user};
        write_file(fmt("%s/codex/profile", user), "writable .codex\nwritable /etc\n");
        struct cordon_agent_profile a = {0};
        cr_assert_eq(cordon_profile_load("codex", &dirs, &a, NULL, &diag), -EINVAL);
        cr_assert(strstr(diag.message, fmt("%s/codex/profile:2", user)), "%s", diag.message);
}

/* ---- folding ---- */

static void fold_ok(void)
{
        struct cordon_profile_dirs dirs = {.user_dir = in_root("user")};
        int r = cordon_settings_fold_profiles_in(&s, &dirs, NULL, &diag);
        cr_assert_eq(r, 0, "%d %s", r, diag.message);
}

Test(profiles, fold_adds_each_item_with_its_origin)
{
        fold_ok();
        const struct cordon_item *it = cordon_list_find(&s.home_writable, ".codex/sessions");
        cr_assert_not_null(it);
        cr_assert_null(cordon_list_find(&s.home_writable, ".codex"), "the directory: read-only");
        cr_assert_not_null(cordon_list_find(&s.home_readonly, ".codex"));
        cr_assert(startswith(it->origin, "profile codex (<built-in>/codex/profile:"), "%s",
                  it->origin);
        it = cordon_list_find(&s.blocked_files, fmt("%s/.claude/CLAUDE.md", home));
        cr_assert_not_null(it, "instruction files are blocked files below the home");
        cr_assert(startswith(it->origin, "profile claude "), "%s", it->origin);
        cr_assert_not_null(cordon_list_find(&s.allowed_env_vars, "GEMINI_API_KEY"));
        cr_assert_eq(s.n_agents, 3);
        /* ANTHROPIC_API_KEY is a built-in default as well: kept once, with its first origin. */
        it = cordon_list_find(&s.allowed_env_vars, "ANTHROPIC_API_KEY");
        cr_assert_str_eq(it->origin, CORDON_SETTINGS_BUILTIN);
}

Test(profiles, disabled_agents_contribute_nothing)
{
        cordon_list_clear(&s.enabled_agents);
        fold_ok();
        cr_assert_null(cordon_list_find(&s.home_writable, ".claude"));
        cr_assert_null(cordon_list_find(&s.home_writable, ".aider"));
        cr_assert_eq(s.blocked_files.n, 0);
        cr_assert_eq(s.n_agents, 0);
}

Test(profiles, folding_again_forgets_an_agent_no_longer_enabled)
{
        cr_assert_eq(cordon_list_add(&s.enabled_agents, "aider", "test"), 0);
        cr_assert_eq(cordon_list_add(&s.enabled_agents, "aider", "test"), 0);
        fold_ok();
        cr_assert_not_null(cordon_list_find(&s.home_writable, ".aider/caches"));
        cr_assert_not_null(cordon_list_find(&s.home_readonly, ".aider"));
        cr_assert_not_null(cordon_list_find(&s.home_readonly, ".aider.conf.yml"));
        cr_assert_eq(s.n_agents, 4, "a repeated name is one agent");
        cordon_list_clear(&s.enabled_agents);
        cr_assert_eq(cordon_list_add(&s.enabled_agents, "codex", "test"), 0);
        fold_ok();
        cr_assert_null(cordon_list_find(&s.home_writable, ".aider/caches"));
        cr_assert_null(cordon_list_find(&s.home_readonly, ".aider"));
        cr_assert_null(cordon_list_find(&s.home_writable, ".claude/projects"));
        cr_assert_not_null(cordon_list_find(&s.home_writable, ".codex/sessions"));
        cordon_list_clear(&s.enabled_agents);
        fold_ok();
        cr_assert_null(cordon_list_find(&s.home_writable, ".codex/sessions"),
                       "nothing left behind");
}

Test(profiles, unknown_agent_refused_and_nothing_folded)
{
        cr_assert_eq(cordon_list_add(&s.enabled_agents, "nosuch", "test"), 0);
        struct cordon_profile_dirs dirs = {.user_dir = in_root("user")};
        cr_assert_eq(cordon_settings_fold_profiles_in(&s, &dirs, NULL, &diag), -ENOENT);
        cr_assert(strstr(diag.message, "'nosuch'"), "%s", diag.message);
        cr_assert_null(cordon_list_find(&s.home_writable, ".claude"));
}

Test(profiles, a_read_only_entry_stays_read_only)
{
        cr_assert_eq(cordon_list_add(&s.home_readonly, ".codex/sessions", "user.conf:3"), 0);
        fold_ok();
        cr_assert_null(cordon_list_find(&s.home_writable, ".codex/sessions"));
}

Test(profiles, a_writable_directory_of_the_configuration_stays_writable)
{
        cr_assert_eq(cordon_list_add(&s.home_writable, ".claude", "user.conf:3"), 0);
        fold_ok();
        cr_assert_null(cordon_list_find(&s.home_readonly, ".claude"));
        cr_assert_not_null(cordon_list_find(&s.home_readonly, ".codex"));
}

/* ---- resolve ---- */

Test(profiles, aider_enabled_makes_its_files_visible_and_default_keeps_them_hidden)
{
        write_file(fmt("%s/.aider.conf.yml", home), "test-cmd: make\n");
        mkdir_p(fmt("%s/.aider", home));
        lower_ok();
        cr_assert_null(rule(fmt("%s/.aider", home), CORDON_ACCESS_RO), "default: invisible");
        cr_assert_null(rule(fmt("%s/.aider.conf.yml", home), CORDON_ACCESS_RO));

        cr_assert_eq(cordon_settings_set(&s, "ENABLED_AGENTS", "aider", "test", &diag), 0);
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/.aider", home), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/.aider/caches", home), CORDON_ACCESS_RW));
        cr_assert_not_null(rule(fmt("%s/.aider.conf.yml", home), CORDON_ACCESS_RO));
}

Test(profiles, write_mode_home_keeps_exec_config_from_the_host)
{
        cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", "write", "test", &diag), 0);
        cr_assert_eq(cordon_settings_set(&s, "ENABLED_AGENTS", "aider", "test", &diag), 0);
        write_file(fmt("%s/.aider.conf.yml", home), "test-cmd: make\n");
        write_file(fmt("%s/.claude.json", home), "{\"mcpServers\": {}}\n");
        lower_ok();
        /* HOME_READONLY (the profile folds it in) holds in write mode. */
        const struct cordon_fs_rule *r = rule(fmt("%s/.aider.conf.yml", home), CORDON_ACCESS_RO);
        cr_assert_not_null(r, "read-only where the home is writable");
        r = rule(fmt("%s/.claude.json", home), CORDON_ACCESS_COPY);
        cr_assert_not_null(r, "claude's MCP servers: a private copy");
}

Test(profiles, merged_instruction_copy_and_config_dir)
{
        write_file(fmt("%s/.claude/CLAUDE.md", home), "USER");
        lower_ok();
        const struct cordon_fs_rule *r =
            rule(fmt("%s/.claude/CLAUDE.md", home), CORDON_ACCESS_DATA);
        cr_assert_not_null(r);
        cr_assert(startswith(r->host, "USER\n\n## Sandbox (cordon)"), "%s", r->host);
        cr_assert_null(rule(fmt("%s/.claude/CLAUDE.md", home), CORDON_ACCESS_MASKED));
        /* Each installed agent's variable names its private home, made for the run. */
        cr_assert_not_null(p->agent_run_dir);
        cr_assert_str_eq(env_get("CLAUDE_CONFIG_DIR"), fmt("%s/claude", p->agent_run_dir));
        cr_assert_str_eq(env_get("GEMINI_CLI_HOME"), fmt("%s/gemini", p->agent_run_dir));
        cr_assert_not_null(rule(p->agent_run_dir, CORDON_ACCESS_RW));
        cr_assert_not(warned("log in"), "the default agents can log in: their dirs are writable");
}

Test(profiles, a_symlinked_instruction_file_is_not_read)
{
        write_file(fmt("%s/secret", root), "SECRET");
        mkdir_p(fmt("%s/.claude", home));
        cr_assert_eq(symlink(fmt("%s/secret", root), fmt("%s/.claude/CLAUDE.md", home)), 0);
        lower_ok();
        for (size_t i = 0; i < p->n_fs; i++)
                cr_assert(p->fs[i].access != CORDON_ACCESS_DATA || !strstr(p->fs[i].host, "SECRET"),
                          "a link planted in ~/.claude pulls nothing in");
}

Test(profiles, credentials_warning_and_its_suppression)
{
        cordon_list_clear(&s.enabled_agents);
        cr_assert_eq(cordon_settings_set(&s, "ENABLED_AGENTS", "opencode", "test", &diag), 0);
        cr_assert_eq(
            cordon_settings_set(&s, "HOME_READONLY", ".local/share/opencode/auth.json", "t", &diag),
            0);
        mkdir_p(fmt("%s/.config/opencode", home)); /* installed: its directory is there */
        /* No key in the environment (the profile's credential_env would pass one through). */
        _cleanup_strv_free_ char **bare = STRV_MAKE("PATH=/usr/bin:/bin");
        h.envp = bare;
        lower_ok();
        cr_assert(warned("agent opencode will have to log in"));
        cr_assert(warned("SUPPRESS_AGENT_WARNINGS=(opencode)"));
        cr_assert_eq(cordon_settings_set(&s, "SUPPRESS_AGENT_WARNINGS", "all", "t", &diag), 0);
        lower_ok();
        cr_assert_not(warned("log in"));
        h.envp = envp;
}

/* ---- the agent's directory read-only around its state ---- */

/* Index of the last rule at @guest with @access, or -1. */
static ssize_t rule_index(const char *guest, enum cordon_access access)
{
        ssize_t found = -1;
        for (size_t i = 0; p && i < p->n_fs; i++)
                if (streq(p->fs[i].guest, guest) && p->fs[i].access == access)
                        found = (ssize_t)i;
        return found;
}

/* ~/@dir read-only (its own rule, or that of the home carved in write mode, which binds no
 * protected entry read-write) and ~/@state read-write, mounted after it. */
static void assert_state_over_dir(const char *dir, const char *state)
{
        ssize_t d = rule_index(fmt("%s/%s", home, dir), CORDON_ACCESS_RO);
        if (d < 0)
                d = rule_index(home, CORDON_ACCESS_RO);
        ssize_t w = rule_index(fmt("%s/%s", home, state), CORDON_ACCESS_RW);
        if (d < 0 || w < 0 || w < d)
                dump();
        cr_assert_geq(d, 0, "~/%s read-only", dir);
        cr_assert_gt(w, d, "~/%s read-write, mounted over ~/%s", state, dir);
        cr_assert_null(rule(fmt("%s/%s", home, dir), CORDON_ACCESS_RW), "~/%s not writable", dir);
}

Test(profiles, tmpwrite_home_agent_dirs_read_only_with_state_writable)
{
        mkdir_p(fmt("%s/.claude/commands", home));
        lower_ok();
        assert_state_over_dir(".claude", ".claude/projects");
        assert_state_over_dir(".claude", ".claude/todos");
        /* Missing before the start: made on the host, then read-only all the same. */
        assert_state_over_dir(".codex", ".codex/sessions");
        assert_state_over_dir(".gemini", ".gemini/tmp");
        cr_assert(exists(fmt("%s/.codex/sessions", home)));
        cr_assert_null(rule(fmt("%s/.claude/commands", home), CORDON_ACCESS_RW));
        /* State files: bound read-write, made empty when missing. */
        assert_state_over_dir(".claude", ".claude/.credentials.json");
        assert_state_over_dir(".codex", ".codex/auth.json");
        _cleanup_free_ char *c = NULL;
        cr_assert_eq(read_full_file(fmt("%s/.claude/.credentials.json", home), 64, &c, NULL), 0);
        cr_assert_str_eq(c, "", "empty: an empty document is a login to some agents");
        /* A missing file of commands inside is not made on the host: the agent's private home
         * holds its copy (with the overlay), which the agent may replace by rename. */
        cr_assert_null(rule(fmt("%s/.claude/settings.json", home), CORDON_ACCESS_COPY));
        cr_assert_not(exists(fmt("%s/.claude/settings.json", home)));
        const struct cordon_agent_home *ah = NULL;
        for (size_t i = 0; i < p->n_agent_homes; i++)
                if (streq(p->agent_homes[i].agent, "claude"))
                        ah = &p->agent_homes[i];
        cr_assert_not_null(ah);
        bool settings = false, state = false;
        for (size_t i = 0; i < ah->n_copies; i++) {
                if (streq(ah->copies[i].name, "settings.json"))
                        settings = ah->copies[i].overlay && strstr(ah->copies[i].overlay, "Bash");
                if (streq(ah->copies[i].name, ".claude.json"))
                        state = ah->copies[i].patterns &&
                                streq(ah->copies[i].host, fmt("%s/.claude.json", home));
        }
        cr_assert(settings && state);
        cr_assert_eq(ah->n_mirrors, 1);
        cr_assert_str_eq(ah->mirrors[0].name, "");
        /* A directory of programs inside needs no rule of its own: read-only with the rest. */
        cr_assert_null(rule(fmt("%s/.codex/rules", home), CORDON_ACCESS_RW));
}

Test(profiles, write_mode_home_agent_dirs_read_only_with_state_writable)
{
        cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", "write", "test", &diag), 0);
        mkdir_p(fmt("%s/.claude/projects", home));
        write_file(fmt("%s/.claude/settings.json", home), "{}");
        lower_ok();
        assert_state_over_dir(".claude", ".claude/projects");
        assert_state_over_dir(".claude", ".claude/todos");
        assert_state_over_dir(".codex", ".codex/sessions");
        assert_state_over_dir(".claude", ".claude/history.jsonl");
        ssize_t d = rule_index(fmt("%s/.claude", home), CORDON_ACCESS_RO);
        ssize_t c = rule_index(fmt("%s/.claude/settings.json", home), CORDON_ACCESS_COPY);
        cr_assert_gt(c, d, "the copy is mounted over the read-only directory");
        cr_assert_eq(p->fs[d].flags & CORDON_FS_NS_ONLY, 0, "the landlock backend keeps it too");
        cr_assert_eq(p->fs[c].flags & CORDON_FS_NS_ONLY, 0, "a copy is the host file there");
}

Test(profiles, read_mode_home_keeps_state_writable)
{
        cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", "read", "test", &diag), 0);
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/.claude/projects", home), CORDON_ACCESS_RW));
        cr_assert_null(rule(fmt("%s/.claude", home), CORDON_ACCESS_RW));
}

Test(profiles, a_writable_agent_dir_of_the_configuration_is_not_inverted)
{
        cr_assert_eq(cordon_settings_set(&s, "HOME_WRITABLE", ".claude", "user.conf:1", &diag), 0);
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/.claude", home), CORDON_ACCESS_RW));
        cr_assert_null(rule(fmt("%s/.claude", home), CORDON_ACCESS_RO));
        assert_state_over_dir(".codex", ".codex/sessions");
}

Test(profiles, landlock_backend_keeps_the_same_shape)
{
        cr_assert_eq(cordon_settings_set(&s, "SANDBOX_BACKEND", "landlock", "test", &diag), 0);
        cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", "write", "test", &diag), 0);
        write_file(fmt("%s/.claude/settings.json", home), "{}");
        lower_ok();
        assert_state_over_dir(".claude", ".claude/projects");
        const struct cordon_fs_rule *r =
            rule(fmt("%s/.claude/settings.json", home), CORDON_ACCESS_COPY);
        cr_assert_not_null(r, "granted as the host file, read-only");
        cr_assert_eq(r->flags & CORDON_FS_NS_ONLY, 0);
}

Test(profiles, a_read_only_agent_dir_of_the_configuration_keeps_its_state_read_only)
{
        cr_assert_eq(cordon_list_add(&s.home_readonly, ".claude", "admin.conf:2"), 0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.claude/projects", home), CORDON_ACCESS_RW));
        cr_assert_null(rule(fmt("%s/.claude/.credentials.json", home), CORDON_ACCESS_RW));
        assert_state_over_dir(".codex", ".codex/sessions");
}

Test(profiles, denied_writable_paths_hold_for_state_files)
{
        mkdir_p(fmt("%s/.claude", home));
        cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", "write", "test", &diag), 0);
        cr_assert_eq(cordon_settings_finalize(&s, NULL, &diag), 0, "%s", diag.message);
        /* As the admin's list after finalize (which checks the user's entries against it). */
        cr_assert_eq(cordon_list_add(&s.denied_writable_paths, fmt("%s/.claude", home), "admin"),
                     0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.claude/.credentials.json", home), CORDON_ACCESS_RW));
        cr_assert_not(exists(fmt("%s/.claude/.credentials.json", home)), "nothing made for it");
}

Test(profiles, a_writable_path_of_the_user_for_the_agent_dir_is_not_inverted)
{
        mkdir_p(fmt("%s/.codex", home));
        cr_assert_eq(
            cordon_settings_set(&s, "EXTRA_WRITABLE_PATHS", fmt("%s/.codex", home), "--rw", &diag),
            0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.codex", home), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/.codex", home), CORDON_ACCESS_RW));
        /* The other agents keep theirs read-only. */
        assert_state_over_dir(".claude", ".claude/projects");
}

Test(profiles, an_agent_not_installed_gets_nothing)
{
        /* Neither its command on PATH nor its directory: nothing made, bound or warned about. */
        cordon_list_clear(&s.enabled_agents);
        cr_assert_eq(cordon_settings_set(&s, "ENABLED_AGENTS", "pi", "test", &diag), 0);
        lower_ok();
        cr_assert_not(exists(fmt("%s/.pi", home)));
        cr_assert_null(rule(fmt("%s/.pi/agent/sessions", home), CORDON_ACCESS_RW));
        cr_assert_not(warned("pi will have to log in"));
        /* Where the sandbox could write its directory on the host, it is made read-only all
         * the same: nothing waits there for the agent installed later. */
        cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", "write", "test", &diag), 0);
        lower_ok();
        cr_assert(rule(fmt("%s/.pi/agent", home), CORDON_ACCESS_RO) || rule(home, CORDON_ACCESS_RO),
                  "~/.pi/agent read-only, or the home carved around it");
        cr_assert_null(rule(fmt("%s/.pi", home), CORDON_ACCESS_RW));
        cr_assert_null(rule(fmt("%s/.pi/agent/sessions", home), CORDON_ACCESS_RW));
        /* Installed (its command on PATH): its state is made and bound. */
        cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", "tmpwrite", "test", &diag), 0);
        write_file(fmt("%s/bin/pi", root), "#!/bin/sh\n");
        cr_assert_eq(chmod(fmt("%s/bin/pi", root), 0755), 0);
        lower_ok();
        assert_state_over_dir(".pi/agent", ".pi/agent/sessions");
}

/* Every path below the home but the project (~/proj, which gets its own protections), with its
 * size: what a run left behind shows as a difference. */
static char *home_listing(void)
{
        char *cmd = NULL, *out = NULL;
        cr_assert_geq(
            asprintf(&cmd, "cd '%s' && find . -path ./proj -prune -o -printf '%%p %%s\\n' | sort",
                     home),
            0);
        FILE *f = popen(cmd, "r");
        free(cmd);
        cr_assert_not_null(f);
        cr_assert_eq(read_full_fd(fileno(f), 1 << 20, &out, NULL), 0);
        pclose(f);
        cr_assert_eq(strv_consume(&garbage, out), 0);
        return out;
}

Test(profiles, agents_not_installed_leave_the_home_as_it_was)
{
        /* None of the default agents on PATH, none of their directories. */
        _cleanup_strv_free_ char **bare = STRV_MAKE("PATH=/usr/bin:/bin");
        h.envp = bare;
        static const char *const modes[] = {"tmpwrite", "restricted", "read", "write"};
        write_file(fmt("%s/.config/other/x", home), "x");
        for (size_t i = 0; i < ELEMENTSOF(modes); i++) {
                cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", modes[i], "test", &diag), 0);
                const char *before = home_listing();
                lower_ok();
                cr_assert_str_eq(home_listing(), before, "HOME_ACCESS=%s: the home changed",
                                 modes[i]);
                cr_assert_null(rule(fmt("%s/.claude/CLAUDE.md", home), CORDON_ACCESS_MASKED));
        }
        /* Installed (its directory is there): its instruction file is merged as before. */
        mkdir_p(fmt("%s/.claude", home));
        cr_assert_eq(cordon_settings_set(&s, "HOME_ACCESS", "read", "test", &diag), 0);
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/.claude/CLAUDE.md", home), CORDON_ACCESS_DATA));
        cr_assert(exists(fmt("%s/.claude/CLAUDE.md", home)));
        h.envp = envp;
}

Test(profiles, installed_by_its_first_writable_path_without_a_dir)
{
        cordon_list_clear(&s.enabled_agents);
        cr_assert_eq(cordon_settings_set(&s, "ENABLED_AGENTS", "newt", "test", &diag), 0);
        write_file(fmt("%s/.config/cordon/profiles/newt/profile", home),
                   "command newt\nwritable .newt\nwritable .newt-cache\n");
        lower_ok();
        cr_assert_null(rule(fmt("%s/.newt", home), CORDON_ACCESS_RW), "not installed");
        cr_assert_not(exists(fmt("%s/.newt-cache", home)));
        mkdir_p(fmt("%s/.newt", home));
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/.newt", home), CORDON_ACCESS_RW), "installed");
        cr_assert(exists(fmt("%s/.newt-cache", home)));
}
