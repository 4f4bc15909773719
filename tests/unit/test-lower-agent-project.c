/* PROTECT_AGENT_PROJECT_FILES (lower-agent-project.c): the project's agent files of commands
 * read-only (ns backend), the missing ones made first. Fixture in lower-fixture.h. */
#include "lib/mech/landlock.h"
#include "shared/fd-util.h"
#include "lower-fixture.h"

TestSuite(lower_agent_project, .init = setup, .fini = teardown);

static void assert_ro_ns(const char *path)
{
        const struct cordon_fs_rule *r = rule(path, CORDON_ACCESS_RO);
        if (!r)
                dump();
        cr_assert_not_null(r, "no read-only rule at '%s'", path);
        cr_assert_str_eq(r->host, path);
        cr_assert(r->flags & CORDON_FS_NS_ONLY, "'%s': a mount, the landlock backend drops it",
                  path);
}

Test(lower_agent_project, read_only_and_missing_ones_made_first)
{
        mkdir_p(fmt("%s/.vscode", project));
        write_file(fmt("%s/.vscode/tasks.json", project), "{}");
        write_file(fmt("%s/.husky/pre-commit", project), "make\n");
        lower_ok();
        const char *const ro[] = {".claude",   ".codex", ".gemini", ".vscode",
                                  ".mcp.json", ".envrc", ".husky"};
        for (size_t i = 0; i < ELEMENTSOF(ro); i++)
                assert_ro_ns(fmt("%s/%s", project, ro[i]));
        _cleanup_free_ char *c = NULL;
        cr_assert_eq(read_full_file(fmt("%s/.mcp.json", project), 64, &c, NULL), 0);
        cr_assert_str_eq(c, "{\"mcpServers\":{}}\n");
        cr_assert(exists(fmt("%s/.claude", project)));
        cr_assert_not(exists(fmt("%s/.devcontainer", project)), "made only where it runs itself");
        cr_assert_null(rule(fmt("%s/.devcontainer", project), CORDON_ACCESS_RO));
        /* Made without a line of their own: one line says what was created. */
        const char *made = created_line();
        cr_assert(made && strstr(made, ".mcp.json") && strstr(made, ".envrc"), "%s",
                  made ? made : "(none)");
        cr_assert_eq(other_warnings(), 0);
}

Test(lower_agent_project, the_switch_leaves_them_writable)
{
        cr_assert_eq(cordon_settings_set(&s, "PROTECT_AGENT_PROJECT_FILES", "false", "t", &diag),
                     0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.mcp.json", project), CORDON_ACCESS_RO));
        cr_assert_not(exists(fmt("%s/.mcp.json", project)));
        cr_assert_not(exists(fmt("%s/.claude", project)));
}

Test(lower_agent_project, a_symlink_is_warned_about)
{
        write_file(in_root("elsewhere"), "");
        cr_assert_eq(symlink(in_root("elsewhere"), fmt("%s/.envrc", project)), 0);
        lower_ok();
        cr_assert(warned("cannot be kept read-only"));
        cr_assert_null(rule(fmt("%s/.envrc", project), CORDON_ACCESS_RO));
}

Test(lower_agent_project, root_of_a_user_writable_path_too)
{
        const char *extra = in_root("out");
        mkdir_p(extra);
        cr_assert_eq(cordon_settings_set(&s, "EXTRA_WRITABLE_PATHS", extra, "user.conf:1", &diag),
                     0);
        lower_ok();
        assert_ro_ns(fmt("%s/.mcp.json", extra));
}

/* The landlock backend cannot keep them read-only without carving the project's grant, which
 * would stop every new file at the top of the project: it leaves them (cordon doctor names the
 * gap), makes nothing for them, and the project stays one grant. */
Test(lower_agent_project, landlock_backend_leaves_the_project_one_grant)
{
        write_file(fmt("%s/.mcp.json", project), "{}");
        lower_ok();
        struct cordon_landlock_plan plan = {0};
        cr_assert_eq(cordon_landlock_plan_build(p, CORDON_BACKEND_LANDLOCK, 6, &plan), 0);
        bool root_writable = false;
        for (size_t i = 0; i < plan.n_rules; i++)
                if (streq(plan.rules[i].path, project))
                        root_writable = plan.rules[i].access & CORDON_LANDLOCK_FS_WRITE;
        cr_assert(root_writable, "the project's grant is whole");
        cordon_landlock_plan_clear(&plan);

        s.backend = CORDON_BACKEND_LANDLOCK;
        cr_assert_eq(unlink(fmt("%s/.mcp.json", project)), 0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.mcp.json", project), CORDON_ACCESS_RO));
        cr_assert_not(exists(fmt("%s/.mcp.json", project)), "nothing made for it");
}
