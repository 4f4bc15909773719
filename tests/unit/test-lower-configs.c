/* cordon_lower_configs() and cordon_lower_configs_elsewhere(): TOOL_CONFIG_COPIES, where the
 * credential-free copies go and whether the command may write them. A copy on the tmpwrite
 * home's tmpfs is made a plain file of the sandbox's own there (cordon_policy_on_own_tmpfs());
 * one the ns backend can only bind read-only gets a writable twin on the private /tmp, named in
 * the tool's variable (ns_env_files); the landlock backend names its own in landlock_env_files.
 * Fixture in lower-fixture.h. */
#include "lower-fixture.h"

static void configs_setup(void)
{
        setup();
        s.tool_config_copies = true;
}

TestSuite(lower_configs, .init = configs_setup, .fini = teardown);

#define GITCONFIG "[user]\n\tname = Host User\n[credential]\n\thelper = store\n"

static ssize_t rule_index(const char *guest, enum cordon_access access)
{
        const struct cordon_fs_rule *r = rule(guest, access);
        return r ? r - p->fs : -1;
}

Test(lower_configs, a_copy_on_the_tmpwrite_home_is_writable_and_needs_no_twin)
{
        write_file(fmt("%s/.gitconfig", home), GITCONFIG);
        lower_ok();
        const char *guest = fmt("%s/.gitconfig", home);
        ssize_t i = rule_index(guest, CORDON_ACCESS_DATA);
        cr_assert_geq(i, 0);
        cr_assert(p->fs[i].flags & CORDON_FS_CONFIG_COPY);
        cr_assert_null(strstr(p->fs[i].host, "helper"), "the credential helper is dropped");
        cr_assert(cordon_policy_on_own_tmpfs(p, (size_t)i), "a plain file of the tmpfs home");
        cr_assert(strv_contains(p->landlock_env_files, fmt("GIT_CONFIG_GLOBAL=%s", guest)));
        cr_assert_null(p->ns_env_files);
        cr_assert_null(rule("/tmp/.cordon-config-gitconfig", CORDON_ACCESS_DATA));
}

Test(lower_configs, a_copy_in_a_read_only_directory_gets_a_writable_twin_on_tmp)
{
        /* ~/.config/git is bound read-only by default: the copy at its own path is a mount
         * point in a read-only directory, where git cannot rename its lock file. */
        mkdir_p(fmt("%s/.config/git", home));
        write_file(fmt("%s/.config/git/config", home), GITCONFIG);
        lower_ok();
        const char *guest = fmt("%s/.config/git/config", home);
        ssize_t i = rule_index(guest, CORDON_ACCESS_DATA);
        cr_assert_geq(i, 0);
        cr_assert_not(cordon_policy_on_own_tmpfs(p, (size_t)i));
        ssize_t t = rule_index("/tmp/.cordon-config-gitconfig", CORDON_ACCESS_DATA);
        cr_assert_geq(t, 0, "a twin on the private /tmp");
        cr_assert(p->fs[t].flags & CORDON_FS_CONFIG_COPY);
        cr_assert_str_eq(p->fs[t].host, p->fs[i].host, "the same credential-free text");
        cr_assert(cordon_policy_on_own_tmpfs(p, (size_t)t));
        cr_assert(
            strv_contains(p->ns_env_files, "GIT_CONFIG_GLOBAL=/tmp/.cordon-config-gitconfig"));
        cr_assert(strv_contains(p->landlock_env_files, fmt("GIT_CONFIG_GLOBAL=%s", guest)));
        cr_assert_eq(cordon_policy_validate(p, NULL), 0);
}

Test(lower_configs, no_twin_on_the_hosts_tmp)
{
        s.private_tmp = false;
        mkdir_p(fmt("%s/.config/git", home));
        write_file(fmt("%s/.config/git/config", home), GITCONFIG);
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/.config/git/config", home), CORDON_ACCESS_DATA));
        cr_assert_null(rule("/tmp/.cordon-config-gitconfig", CORDON_ACCESS_DATA),
                       "cordon makes no file on the host's /tmp");
        cr_assert_null(p->ns_env_files);
}

Test(lower_configs, a_read_only_home_keeps_its_copies_read_only_with_twins_on_tmp)
{
        s.home_access = CORDON_HOME_READ;
        write_file(fmt("%s/.gitconfig", home), GITCONFIG);
        write_file(fmt("%s/.npmrc", home), "//registry.invalid/:_authToken=npm_0123456789abcdef\n");
        lower_ok();
        ssize_t i = rule_index(fmt("%s/.gitconfig", home), CORDON_ACCESS_DATA);
        cr_assert_geq(i, 0);
        cr_assert_not(cordon_policy_on_own_tmpfs(p, (size_t)i),
                      "the home is the host's, read-only");
        cr_assert(
            strv_contains(p->ns_env_files, "GIT_CONFIG_GLOBAL=/tmp/.cordon-config-gitconfig"));
        cr_assert(
            strv_contains(p->ns_env_files, "NPM_CONFIG_USERCONFIG=/tmp/.cordon-config-npmrc"));
}

Test(lower_configs, off_hands_none_over)
{
        s.tool_config_copies = false;
        write_file(fmt("%s/.gitconfig", home), GITCONFIG);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.gitconfig", home), CORDON_ACCESS_DATA));
        cr_assert_null(p->landlock_env_files);
        cr_assert_null(p->ns_env_files);
}
