/* cordon_settings_lower(): HOME_ACCESS modes and home entries. Fixture in lower-fixture.h. */
#define LOWER_FIXTURE_AGENTS_INSTALLED
#include "lower-fixture.h"

TestSuite(lower_home, .init = setup, .fini = teardown);

/* ---- HOME_ACCESS ---- */

static void make_home_files(void)
{
        write_file(fmt("%s/.bashrc", home), "# rc\n");
        write_file(fmt("%s/.gitconfig", home), "[user]\n");
        write_file(fmt("%s/notes.txt", home), "private\n");
}

Test(lower_home, home_tmpwrite)
{
        make_home_files();
        lower_ok();
        cr_assert_eq(p->home_access, CORDON_HOME_TMPWRITE);
        const struct cordon_fs_rule *r = rule(home, CORDON_ACCESS_TMPFS);
        cr_assert_not_null(r);
        cr_assert_eq(r->flags & CORDON_FS_SEAL, 0);
        cr_assert_null(rule(home, CORDON_ACCESS_RO));
        cr_assert_null(rule(home, CORDON_ACCESS_RW));

        const struct cordon_fs_rule *rc = rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RO);
        cr_assert_not_null(rc, "HOME_READONLY");
        cr_assert_str_eq(rc->host, fmt("%s/.bashrc", home));
        const struct cordon_fs_rule *claude =
            rule(fmt("%s/.claude/projects", home), CORDON_ACCESS_RW);
        cr_assert_not_null(claude, "HOME_WRITABLE");
        cr_assert(exists(fmt("%s/.claude/projects", home)),
                  "HOME_WRITABLE directories are created");
        cr_assert_not_null(rule(fmt("%s/.claude", home), CORDON_ACCESS_RO), "the agent's dir");
        /* Not by default: uv hardlinks its cache into the host's virtual environments. */
        cr_assert_null(rule(fmt("%s/.cache/uv", home), CORDON_ACCESS_RW));
        cr_assert_not(exists(fmt("%s/.cache/uv", home)));
        const struct cordon_fs_rule *git = rule(fmt("%s/.gitconfig", home), CORDON_ACCESS_COPY);
        cr_assert_not_null(git, "HOME_SEEDED_FILES");
        cr_assert_null(rule(fmt("%s/.gitconfig", home), CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/notes.txt", home), CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/.profile", home), CORDON_ACCESS_RO),
                       "missing HOME_READONLY entries are skipped");
}

Test(lower_home, home_restricted_is_sealed)
{
        s.home_access = CORDON_HOME_RESTRICTED;
        make_home_files();
        lower_ok();
        const struct cordon_fs_rule *r = rule(home, CORDON_ACCESS_TMPFS);
        cr_assert_not_null(r);
        cr_assert_neq(r->flags & CORDON_FS_SEAL, 0);
        cr_assert_not_null(rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/.claude/projects", home), CORDON_ACCESS_RW));
}

Test(lower_home, home_read)
{
        s.home_access = CORDON_HOME_READ;
        make_home_files();
        lower_ok();
        const struct cordon_fs_rule *r = rule(home, CORDON_ACCESS_RO);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->host, home);
        cr_assert_null(rule(home, CORDON_ACCESS_TMPFS));
        cr_assert_not_null(rule(fmt("%s/.claude/projects", home), CORDON_ACCESS_RW),
                           "HOME_WRITABLE stays writable");
        cr_assert_not_null(rule(fmt("%s/.gitconfig", home), CORDON_ACCESS_COPY));
        cr_assert_null(rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RO),
                       "no separate bind below a read-only home");
}

Test(lower_home, home_write)
{
        s.home_access = CORDON_HOME_WRITE;
        make_home_files();
        lower_ok();
        /* Carved: a HOME_READONLY entry and credential stores are missing, and the sandbox
         * must not create them, so the home itself is read-only and each entry read-write. */
        const struct cordon_fs_rule *r = rule(home, CORDON_ACCESS_RO);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->host, home);
        cr_assert(strstr(r->origin, "cannot be created"), "%s", r->origin);
        cr_assert_null(rule(home, CORDON_ACCESS_TMPFS));
        cr_assert_not_null(rule(fmt("%s/notes.txt", home), CORDON_ACCESS_RW));
        cr_assert_not_null(rule(project, CORDON_ACCESS_RW));
        /* HOME_READONLY and HOME_SEEDED_FILES hold in write mode too. */
        cr_assert_not_null(rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/.gitconfig", home), CORDON_ACCESS_COPY));
        cr_assert_null(rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RW));
        cr_assert_not(exists(fmt("%s/.ssh", home)), "no placeholder: it cannot be created");
}

Test(lower_home, home_access_origin_is_kept)
{
        s.home_access = CORDON_HOME_READ;
        free(s.home_access_origin);
        s.home_access_origin = strdup("--home-access");
        lower_ok();
        cr_assert_str_eq(rule(home, CORDON_ACCESS_RO)->origin, "--home-access");
}

Test(lower_home, home_via_symlink)
{
        /* $HOME is a symlink: the sandbox sees it at $HOME, the binds come from its target. */
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        h.home = in_root("homelink");
        s.home_access = CORDON_HOME_READ;
        lower_ok();
        const struct cordon_fs_rule *r = rule(in_root("homelink"), CORDON_ACCESS_RO);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->host, home);
        cr_assert_str_eq(p->home_dir, in_root("homelink"));
}

Test(lower_home, home_missing_or_unset_warns)
{
        h.home = in_root("nohome");
        cordon_list_clear(&s.allowed_project_parents);
        cr_assert_eq(cordon_list_add(&s.allowed_project_parents, root, "test"), 0);
        lower_ok();
        cr_assert(warned("nohome"), "a warning names the missing home");
        cr_assert_null(p->home_dir);

        h.home = NULL;
        lower_ok();
        cr_assert(warned("HOME"));
        cr_assert_null(p->home_dir);
}

Test(lower_home, home_entry_climbing_out_refused)
{
        cr_assert_eq(cordon_list_add(&s.home_writable, "../escape", "sandbox.conf:7"), 0);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "../escape"), "%s", diag.message);
        cr_assert(strstr(diag.message, "sandbox.conf:7"), "%s", diag.message);
        cr_assert_not(exists(in_root("escape")), "nothing was created outside $HOME");

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(cordon_list_add(&s.home_readonly, "/etc/shadow", "test"), 0);
        cr_assert_eq(lower(), -EINVAL);

        cordon_settings_clear(&s);
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        cr_assert_eq(cordon_list_add(&s.home_always_blocked, "a/../../b", "test"), 0);
        cr_assert_eq(lower(), -EINVAL);
}

Test(lower_home, created_home_writable_dirs_are_silent_and_bound)
{
        /* lower.h: missing HOME_WRITABLE directories are created silently (agents expect them
         * on first use, as the configuration reference says) and bound read-write. */
        cr_assert_not(exists(fmt("%s/.claude", home)));
        lower_ok();
        cr_assert(exists(fmt("%s/.claude/projects", home)));
        cr_assert_not(warned(fmt("%s/.claude", home)), "a warning names '%s/.claude'", home);
        const struct cordon_fs_rule *r = cordon_policy_find_fs(p, fmt("%s/.claude/projects", home));
        cr_assert_not_null(r);
        cr_assert_eq(r->access, CORDON_ACCESS_RW);
}

Test(lower_home, home_entry_symlink_to_host_root_not_bound)
{
        /* A HOME_WRITABLE entry is resolved on the host; a symlink to "/" must not make the
         * whole host writable inside (READONLY_MOUNTS refuses the host root the same way). */
        cr_assert_eq(symlink("/", fmt("%s/.claude", home)), 0);
        int r = lower();
        if (r == 0) {
                for (size_t i = 0; i < p->n_fs; i++)
                        cr_assert(!p->fs[i].host || !streq(p->fs[i].host, "/") ||
                                      !cordon_access_is_bind(p->fs[i].access),
                                  "the host root is bound %s at '%s'",
                                  cordon_access_to_string(p->fs[i].access), p->fs[i].guest);
        } else
                cr_assert(strstr(diag.message, ".claude"), "%s", diag.message);
}

Test(lower_home, account_home_credentials_masked)
{
        /* $HOME points elsewhere (or nowhere); the account's real home is bound read-only: its
         * credential stores are hidden all the same. */
        const char *acct = in_root("acct");
        write_file(fmt("%s/.ssh/id_rsa", acct), "KEY");
        write_file(fmt("%s/.netrc", acct), "machine x password y\n");
        write_file(fmt("%s/notes", acct), "plain");
        h.account_home = acct;
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, acct, "--ro"), 0);
        lower_ok();
        assert_masked(fmt("%s/.ssh", acct));
        assert_masked(fmt("%s/.netrc", acct));
        cr_assert_null(rule(fmt("%s/notes", acct), CORDON_ACCESS_MASKED));

        h.home = NULL;
        lower_ok();
        assert_masked(fmt("%s/.ssh", acct));
        assert_masked(fmt("%s/.netrc", acct));

        /* A project that is the account's home is refused like $HOME itself. */
        h.home = home;
        cr_assert_eq(cordon_list_add(&s.allowed_project_parents, root, "--allow-parent"), 0);
        s.project_dir = strdup(acct);
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "home directory"), "%s", diag.message);
}

Test(lower_home, credential_stores_hidden_with_home_read)
{
        /* A file in each store, and the entry of the list that hides it. */
        static const char *const stores[][2] = {
            {".config/gh/hosts.yml", ".config/gh"},
            {".config/gcloud/credentials.db", ".config/gcloud"},
            {".azure/msal_token_cache.json", ".azure"},
            {".kube/config", ".kube"},
            {".docker/config.json", ".docker"},
            {".git-credentials", ".git-credentials"},
            {".netrc", ".netrc"},
            {".npmrc", ".npmrc"},
            {".pypirc", ".pypirc"},
            {".password-store/x.gpg", ".password-store"},
            {".local/share/keyrings/login.keyring", ".local/share/keyrings"},
            {".cargo/credentials.toml", ".cargo/credentials.toml"},
            {".vault-token", ".vault-token"},
            {".pgpass", ".pgpass"},
        };
        for (size_t i = 0; i < ELEMENTSOF(stores); i++)
                write_file(fmt("%s/%s", home, stores[i][0]), "secret");
        write_file(fmt("%s/.config/tool/settings", home), "plain");
        s.home_access = CORDON_HOME_READ;
        lower_ok();
        for (size_t i = 0; i < ELEMENTSOF(stores); i++)
                assert_masked(fmt("%s/%s", home, stores[i][1]));
        cr_assert_null(rule(fmt("%s/.config", home), CORDON_ACCESS_MASKED));
        cr_assert_null(rule(fmt("%s/.config/tool", home), CORDON_ACCESS_MASKED));
        cr_assert_null(rule(fmt("%s/.cargo", home), CORDON_ACCESS_MASKED));
        /* The agents' own logins stay. */
        cr_assert_null(rule(fmt("%s/.claude", home), CORDON_ACCESS_MASKED));
}

/* The stores are checked against one listing of the home: a non-ASCII name in it (which a
 * case-folding filesystem could fold onto a store's name) and a store that exists only in the
 * plan must not make a present store look absent. */
Test(lower_home, credential_stores_listing_edge_cases)
{
        write_file(fmt("%s/.netrc", home), "machine x password y\n");
        write_file(fmt("%s/.\xe2\x84\xaaube/config", home), "kelvin");
        write_file(fmt("%s/.config/gh/hosts.yml", home), "token");
        s.home_access = CORDON_HOME_READ;
        lower_ok();
        assert_masked(fmt("%s/.netrc", home));
        assert_masked(fmt("%s/.config/gh", home));
}

/* A home too large to be listed: every store is looked up on its own, and found. */
Test(lower_home, credential_stores_in_a_large_home)
{
        for (int i = 0; i < 600; i++)
                write_file(fmt("%s/.some-longer-dotfile-name-%d", home, i), "");
        write_file(fmt("%s/.netrc", home), "machine x password y\n");
        write_file(fmt("%s/.config/gh/hosts.yml", home), "token");
        s.home_access = CORDON_HOME_READ;
        lower_ok();
        assert_masked(fmt("%s/.netrc", home));
        assert_masked(fmt("%s/.config/gh", home));
}

/* A HOME_WRITABLE entry planned below a missing ~/.aws makes ~/.aws exist too. */
Test(lower_home, credential_store_existing_in_the_plan_masked)
{
        cr_assert_eq(cordon_list_add(&s.home_writable, ".aws/cache", "test"), 0);
        s.home_access = CORDON_HOME_TMPWRITE;
        lower_ok();
        const struct cordon_host_action *a =
            cordon_policy_find_host_action(p, fmt("%s/.aws/cache", home));
        cr_assert_not_null(a, "the writable entry is planned");
        assert_masked(fmt("%s/.aws", home));
}

Test(lower_home, credential_store_below_symlinked_dir_masked_at_target)
{
        /* ~/.config -> elsewhere (a dotfile manager): the guest path cannot be masked through
         * the link, the target is, where it is visible. */
        write_file(in_root("dotfiles/config/gh/hosts.yml"), "token");
        cr_assert_eq(symlink(in_root("dotfiles/config"), fmt("%s/.config", home)), 0);
        s.home_access = CORDON_HOME_READ;
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("dotfiles"), "--ro"), 0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.config/gh", home), CORDON_ACCESS_MASKED));
        assert_masked(in_root("dotfiles/config/gh"));
}

Test(lower_home, home_entry_through_planted_link_not_bound)
{
        /* A sandbox with the project ~/.cache turned ~/.cache/uv into a link to $HOME: the next
         * run would bind all of the home read-write there. */
        mkdir_p(fmt("%s/.cache", home));
        cr_assert_eq(symlink(home, fmt("%s/.cache/uv", home)), 0);
        cr_assert_eq(cordon_list_add(&s.home_writable, ".cache/uv", "test"), 0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.cache/uv", home), CORDON_ACCESS_RW));
        cr_assert(warned("symlink"), "the entry is left out with a warning");

        /* A writable entry that resolves to the home directory itself is not bound either,
         * even where no sandbox could have planted the link. */
        cr_assert_eq(cordon_settings_set(&s, "HOME_WRITABLE", ".self", "user.conf:1", &diag), 0);
        cr_assert_eq(symlink(".", fmt("%s/.self", home)), 0);
        lower_ok();
        cr_assert_null(rule(fmt("%s/.self", home), CORDON_ACCESS_RW));
        cr_assert(warned(".self"), "the entry is left out with a warning");
}
