/* cordon_settings_lower(): credential directories, blocked files and masks. Fixture in
 * lower-fixture.h. */
#include "lower-fixture.h"

TestSuite(lower_blocked, .init = setup, .fini = teardown);

/* ---- credentials and masks ---- */

Test(lower_blocked, credentials_masked_in_every_mode)
{
        mkdir_p(fmt("%s/.ssh", home));
        write_file(fmt("%s/.ssh/id_ed25519", home), "KEY");
        mkdir_p(fmt("%s/.aws", home));
        const enum cordon_home_access modes[] = {CORDON_HOME_TMPWRITE, CORDON_HOME_RESTRICTED,
                                                 CORDON_HOME_READ, CORDON_HOME_WRITE};
        for (size_t i = 0; i < ELEMENTSOF(modes); i++) {
                s.home_access = modes[i];
                lower_ok();
                assert_masked(fmt("%s/.ssh", home));
                assert_masked(fmt("%s/.aws", home));
                /* Missing on the host and not creatable by the sandbox: nothing to mask (a
                 * mask there would mount nothing, apply_mask() skips a path that is not
                 * there). With the home writable, the home is carved instead (read-only, its
                 * entries read-write), so it cannot be created either. */
                cr_assert_null(rule(fmt("%s/.gnupg", home), CORDON_ACCESS_MASKED));
                cr_assert_not(exists(fmt("%s/.gnupg", home)));
        }
}

Test(lower_blocked, missing_credentials_kept_absent_when_home_writable)
{
        s.home_access = CORDON_HOME_WRITE;
        mkdir_p(fmt("%s/.config/tool", home));
        mkdir_p(fmt("%s/.cargo/registry", home));
        lower_ok();
        /* Nothing is made on the host: the directories that would hold a missing store are
         * read-only, their entries read-write. */
        cr_assert_not(exists(fmt("%s/.ssh", home)));
        cr_assert_not(warned(".ssh"));
        const char *carved[] = {home, fmt("%s/.config", home), fmt("%s/.cargo", home)};
        for (size_t i = 0; i < ELEMENTSOF(carved); i++)
                cr_assert_not_null(rule(carved[i], CORDON_ACCESS_RO), "%s", carved[i]);
        cr_assert_not_null(rule(fmt("%s/.config/tool", home), CORDON_ACCESS_RW));
        cr_assert_not_null(rule(fmt("%s/.cargo/registry", home), CORDON_ACCESS_RW));
        cr_assert_null(rule(fmt("%s/.config", home), CORDON_ACCESS_RW));
}

Test(lower_blocked, missing_store_kept_absent_below_a_writable_home_entry)
{
        /* Read mode with ~/.config writable: ~/.config/gh is missing, and the sandbox could
         * create hosts.yml there; ~/.config is carved, the home stays read-only. */
        s.home_access = CORDON_HOME_READ;
        mkdir_p(fmt("%s/.config/tool", home));
        cr_assert_eq(cordon_list_add(&s.home_writable, ".config", "test"), 0);
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/.config", home), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/.config/tool", home), CORDON_ACCESS_RW));
        cr_assert_not(exists(fmt("%s/.config/gh", home)));
}

Test(lower_blocked, missing_credentials_not_created_when_home_private)
{
        lower_ok();
        cr_assert_not(exists(fmt("%s/.ssh", home)), "nothing to protect: not created");
        cr_assert_null(rule(fmt("%s/.ssh", home), CORDON_ACCESS_MASKED), "nor masked");
}

Test(lower_blocked, missing_credentials_kept_absent_when_home_bound_rw_by_flag)
{
        /* --rw $HOME in the default mode: the sandbox can write to the host's home, so it must
         * not be able to create a missing ~/.ssh (and ~/.ssh/authorized_keys): the bind is
         * carved, the home read-only and its entries read-write. */
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, home, "--rw"), 0);
        lower_ok();
        cr_assert_not(exists(fmt("%s/.ssh", home)), "carved instead");
        cr_assert_not_null(rule(home, CORDON_ACCESS_RO));
        cr_assert_null(rule(home, CORDON_ACCESS_RW));
}

Test(lower_blocked, missing_credentials_created_when_rw_bind_contains_home)
{
        /* A read-write bind of a parent of $HOME makes the home writable the same way (a
         * project there is refused: see lower::project_parent_of_home_refused). */
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, root, "--rw"), 0);
        lower_ok();
        cr_assert_not_null(rule(root, CORDON_ACCESS_RW));
        cr_assert(exists(fmt("%s/.ssh", home)),
                  "~/.ssh was not created although $HOME is writable through the project");
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower_blocked, masks_follow_rw_bind_of_home)
{
        /* $HOME is reached through a symlink, and --rw binds its target: ~/.ssh is then visible
         * at two guest paths and must be masked at both. */
        mkdir_p(fmt("%s/.ssh", home));
        write_file(fmt("%s/.ssh/id_rsa", home), "KEY");
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        h.home = in_root("homelink");
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, home, "--rw"), 0);
        lower_ok();
        cr_assert_not_null(rule(home, CORDON_ACCESS_RO), "carved: stores are missing");
        assert_masked(in_root("homelink/.ssh"));
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower_blocked, masks_follow_rw_bind_of_parent)
{
        /* /tmp bound read-write shows the scratch directory, and the real ~/.ssh below it; $HOME
         * is reached through a symlink so the home mask alone would not cover that path. */
        mkdir_p(fmt("%s/.ssh", home));
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        h.home = in_root("homelink");
        s.private_tmp = false;
        lower_ok();
        cr_assert_not_null(rule("/tmp", CORDON_ACCESS_RW));
        assert_masked(in_root("homelink/.ssh"));
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower_blocked, masks_follow_symlinked_home_entry)
{
        /* ~/.claude -> ~/.ssh: the writable bind of ~/.claude exposes the keys and is masked. */
        mkdir_p(fmt("%s/.ssh", home));
        cr_assert_eq(symlink(".ssh", fmt("%s/.claude", home)), 0);
        lower_ok();
        assert_masked(fmt("%s/.claude", home));
}

Test(lower_blocked, masks_cover_bind_inside_blocked_path)
{
        /* Binding something inside a hidden path would show it again: the bind is masked. */
        mkdir_p(in_root("vault/sub"));
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, in_root("vault"), "--hide"), 0);
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, in_root("vault/sub"), "--ro"), 0);
        lower_ok();
        cr_assert_not_null(rule(in_root("vault/sub"), CORDON_ACCESS_RO));
        assert_masked(in_root("vault/sub"));
}

Test(lower_blocked, masks_cover_bind_inside_credentials)
{
        mkdir_p(fmt("%s/.aws/sub", home));
        cr_assert_eq(symlink(home, in_root("homelink")), 0);
        h.home = in_root("homelink");
        cr_assert_eq(cordon_list_add(&s.readonly_mounts, fmt("%s/.aws/sub", home), "--ro"), 0);
        lower_ok();
        assert_masked(fmt("%s/.aws/sub", home));
}

Test(lower_blocked, hide_inside_project)
{
        mkdir_p(fmt("%s/secrets", project));
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, fmt("%s/secrets", project), "--hide"),
                     0);
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, fmt("%s/absent", project), "--hide"),
                     0);
        lower_ok();
        assert_masked(fmt("%s/secrets", project));
        cr_assert_str_eq(rule(fmt("%s/secrets", project), CORDON_ACCESS_MASKED)->origin, "--hide");
        cr_assert_null(rule(fmt("%s/absent", project), CORDON_ACCESS_MASKED),
                       "a missing hidden path is skipped");
}

Test(lower_blocked, hide_relative_to_cwd)
{
        mkdir_p(fmt("%s/private", project));
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, "private", "--hide"), 0);
        lower_ok();
        assert_masked(fmt("%s/private", project));
}

Test(lower_blocked, hide_host_root_refused)
{
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, "/", "--hide"), 0);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "root"), "%s", diag.message);
}

Test(lower_blocked, blocked_file_placeholder_created)
{
        const char *env = fmt("%s/config/.env", project);
        cr_assert_eq(cordon_list_add(&s.blocked_files, env, "--mask"), 0);
        lower_ok();
        struct stat st;
        cr_assert_eq(stat(env, &st), 0, "a placeholder exists");
        cr_assert(S_ISREG(st.st_mode));
        cr_assert_eq(st.st_size, 0);
        cr_assert(warned(env), "a warning names the placeholder");
        cr_assert(warned(fmt("%s/config", project)), "a warning names the created directory");
        assert_masked(env);
}

Test(lower_blocked, blocked_file_existing_no_warning)
{
        const char *env = fmt("%s/.env", project);
        write_file(env, "SECRET=1\n");
        cr_assert_eq(cordon_list_add(&s.blocked_files, env, "--mask"), 0);
        lower_ok();
        cr_assert_not(warned(env));
        assert_masked(env);
        FILE *f = fopen(env, "re");
        char buf[32] = "";
        cr_assert_not_null(f);
        cr_assert_not_null(fgets(buf, sizeof(buf), f));
        fclose(f);
        cr_assert_str_eq(buf, "SECRET=1\n", "an existing file is left alone");
}

Test(lower_blocked, blocked_file_uncreatable_refused)
{
        /* A placeholder that cannot be made means the file would be unprotected: refuse. A
         * regular file where a parent directory should be stops root as well. */
        cr_assert_eq(close(open(fmt("%s/notadir", project), O_CREAT | O_WRONLY, 0600)), 0);
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/notadir/.env", project), "--mask"),
                     0);
        int r = lower();
        cr_assert_eq(r, -ENOTDIR, "%d (%s)", r, diag.message);
        cr_assert(strstr(diag.message, "notadir/.env"), "%s", diag.message);
        cr_assert(strstr(diag.message, "--mask"), "%s", diag.message);
}

Test(lower_blocked, blocked_file_in_unwritable_dir_refused)
{
        /* Permission checks only bind unprivileged callers; as root this runs the
         * parent-is-a-file case above instead of skipping. */
        mkdir_p(fmt("%s/ro", project));
        cr_assert_eq(chmod(fmt("%s/ro", project), 0500), 0);
        const char *target = geteuid() == 0 ? "notadir2/.env" : "ro/.env";
        if (geteuid() == 0)
                cr_assert_eq(close(open(fmt("%s/notadir2", project), O_CREAT | O_WRONLY, 0600)), 0);
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/%s", project, target), "--mask"), 0);
        int r = lower();
        chmod(fmt("%s/ro", project), 0700);
        cr_assert_eq(r, geteuid() == 0 ? -ENOTDIR : -EACCES, "%d (%s)", r, diag.message);
        cr_assert(strstr(diag.message, ".env"), "%s", diag.message);
}

Test(lower_blocked, blocked_file_not_visible_gets_no_placeholder)
{
        /* Nothing binds the scratch root's "elsewhere": there is nothing to hide there, and no
         * file is left behind on the host. */
        const char *path = in_root("elsewhere/sub/key.pem");
        cr_assert_eq(cordon_list_add(&s.blocked_files, path, "--mask"), 0);
        lower_ok();
        cr_assert(!exists(in_root("elsewhere")), "a placeholder was created");
        cr_assert_null(rule(path, CORDON_ACCESS_MASKED));

        /* Control: the same file in the project gets its placeholder and its mask. */
        cordon_list_clear(&s.blocked_files);
        const char *inside = fmt("%s/conf/key.pem", project);
        cr_assert_eq(cordon_list_add(&s.blocked_files, inside, "--mask"), 0);
        lower_ok();
        cr_assert(exists(inside));
        assert_masked(inside);
}

Test(lower_blocked, hidden_path_in_a_symlink_loop_refused)
{
        /* A parent swapped for a symlink loop for a moment (a concurrent rename): the path
         * cannot be resolved, and what it names may be right there; not skipped as missing. */
        cr_assert_eq(symlink("c", fmt("%s/c", project)), 0);
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, fmt("%s/c/d", project), "--hide"), 0);
        cr_assert_eq(lower(), -ELOOP);
        cr_assert(strstr(diag.message, "cannot be resolved"), "%s", diag.message);
        cordon_list_clear(&s.extra_blocked_paths);
        cr_assert_eq(
            cordon_list_add(&s.extra_blocked_paths, fmt("%s/missing/d", project), "--hide"), 0);
        lower_ok();
}
