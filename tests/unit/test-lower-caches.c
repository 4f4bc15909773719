/* cordon_lower_caches(): PACKAGE_CACHES, cordon's own package caches at the tools' paths (ns)
 * and in their variables (landlock). Fixture in lower-fixture.h. */
#define LOWER_FIXTURE_AGENTS_INSTALLED
#include "lower-fixture.h"

static void caches_setup(void)
{
        setup();
        s.package_caches = true;
        /* npm is installed (on the fixture's PATH); nothing else of the table is, unless this
         * host has it in /usr/bin. */
        write_file(fmt("%s/bin/npm", root), "#!/bin/sh\n");
        cr_assert_eq(chmod(fmt("%s/bin/npm", root), 0755), 0);
}

TestSuite(lower_caches, .init = caches_setup, .fini = teardown);

static bool env_set_has(const char *assignment)
{
        CORDON_LIST_FOREACH (it, &p->env_rules.set)
                if (streq(it->value, assignment))
                        return true;
        return false;
}

Test(lower_caches, bound_at_the_tools_path_in_the_tmpfs_home)
{
        lower_ok();
        const char *cache = fmt("%s/.cache/cordon/caches/npm", home);
        const struct cordon_fs_rule *r = rule(fmt("%s/.npm", home), CORDON_ACCESS_RW);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->host, cache);
        cr_assert(exists(cache), "made by the launch's host actions");
        cr_assert(env_set_has(fmt("npm_config_cache=%s/.npm", home)));
        cr_assert(strv_contains(p->landlock_env, fmt("npm_config_cache=%s", cache)));
        cr_assert_not(exists(fmt("%s/.npm", home)), "the host's ~/.npm is never made");
}

Test(lower_caches, off)
{
        s.package_caches = false;
        lower_ok();
        cr_assert_null(rule(fmt("%s/.npm", home), CORDON_ACCESS_RW));
        cr_assert_null(p->landlock_env);
}

Test(lower_caches, a_shown_home_without_the_tools_directory_binds_the_cache_itself)
{
        s.home_access = CORDON_HOME_READ;
        lower_ok();
        const char *cache = fmt("%s/.cache/cordon/caches/npm", home);
        cr_assert_null(rule(fmt("%s/.npm", home), CORDON_ACCESS_RW));
        cr_assert_not_null(rule(cache, CORDON_ACCESS_RW));
        cr_assert(env_set_has(fmt("npm_config_cache=%s", cache)));
}

Test(lower_caches, a_shown_home_with_the_tools_directory_is_bound_over)
{
        s.home_access = CORDON_HOME_READ;
        mkdir_p(fmt("%s/.npm", home));
        lower_ok();
        const struct cordon_fs_rule *r = rule(fmt("%s/.npm", home), CORDON_ACCESS_RW);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->host, fmt("%s/.cache/cordon/caches/npm", home));
}

Test(lower_caches, the_users_own_entry_wins)
{
        cr_assert_eq(cordon_settings_set(&s, "HOME_WRITABLE", ".npm", "test", NULL), 0);
        lower_ok();
        const struct cordon_fs_rule *r = rule(fmt("%s/.npm", home), CORDON_ACCESS_RW);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->host, fmt("%s/.npm", home), "HOME_WRITABLE: the host's, knowingly");
}

Test(lower_caches, a_planted_link_on_the_way_is_refused)
{
        mkdir_p(fmt("%s/.cache", home));
        cr_assert_eq(symlink(home, fmt("%s/.cache/cordon", home)), 0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.npm", home), CORDON_ACCESS_RW));
        bool warned = false;
        STRV_FOREACH (w, warnings)
                warned |= strstr(*w, "PACKAGE_CACHES") != NULL;
        cr_assert(warned);
}

Test(lower_caches, xdg_cache_home_outside_every_writable_place_is_refused)
{
        char *xdg = NULL;
        cr_assert_geq(asprintf(&xdg, "XDG_CACHE_HOME=/etc"), 0);
        cr_assert_eq(strv_consume(&envp, xdg), 0);
        h.envp = envp;
        lower_ok();
        cr_assert_null(rule(fmt("%s/.npm", home), CORDON_ACCESS_RW));
}
