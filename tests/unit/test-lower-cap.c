/* Lowering a capability policy (--policy): roots and presets instead of a project directory. */
#include "lower-fixture.h"

#include "lib/settings/cap-policy.h"

TestSuite(lower_cap, .init = setup, .fini = teardown);

/* Installs a fresh capability policy and returns it for filling in; lower() writes it into the
 * settings through the policy front end (cordon_settings_apply_cap_policy()) each time. */
static struct cordon_cap_policy *cap(void)
{
        struct cordon_cap_policy *c = calloc(1, sizeof(*c));
        cr_assert_not_null(c);
        cordon_cap_policy_init(c);
        fixture_cap = c;
        return c;
}

/* The flags of the rule for @path of kind @access, which must be there. */
static unsigned flags_of(const char *path, enum cordon_access access)
{
        const struct cordon_fs_rule *r = rule(path, access);
        cr_assert_not_null(r, "no %s rule for %s", cordon_access_to_string(access), path);
        return r ? r->flags : 0;
}

static void add_root(char ***l, const char *path)
{
        cr_assert_eq(strv_extend(l, path), 0);
}

Test(lower_cap, workspace_root_writable_with_write_capability)
{
        struct cordon_cap_policy *c = cap();
        const char *other = in_root("other");
        mkdir_p(other);
        add_root(&c->workspace_roots, other);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_WRITE_TEXT | CORDON_CAP_EXEC;
        lower_ok();
        cr_assert_not_null(rule(other, CORDON_ACCESS_RW));
        /* No implicit project: the working directory is not bound, the command starts in the
         * first workspace root. */
        cr_assert_null(rule(project, CORDON_ACCESS_RW));
        cr_assert_str_eq(p->cwd, other);
        cr_assert_str_eq(p->project_dir, other);
}

Test(lower_cap, workspace_root_read_only_without_write_capability)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_LIST | CORDON_CAP_EXEC;
        lower_ok();
        cr_assert_not_null(rule(project, CORDON_ACCESS_RO));
        cr_assert_null(rule(project, CORDON_ACCESS_RW));
        cr_assert_str_eq(p->cwd, project, "the working directory is covered by a root");
}

Test(lower_cap, no_capabilities_means_no_ceiling)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        lower_ok();
        cr_assert_not_null(rule(project, CORDON_ACCESS_RW));
}

Test(lower_cap, no_exec_capability_refuses)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_WRITE_TEXT;
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "policy.json") && strstr(diag.message, "process.exec"), "%s",
                  diag.message);
}

Test(lower_cap, read_only_root_stays_read_only_when_also_writable)
{
        struct cordon_cap_policy *c = cap();
        const char *ref = in_root("home/proj/ref");
        mkdir_p(ref);
        add_root(&c->workspace_roots, ref);
        add_root(&c->read_only_roots, ref);
        lower_ok();
        cr_assert_not_null(rule(ref, CORDON_ACCESS_RO));
        cr_assert_null(rule(ref, CORDON_ACCESS_RW));
}

Test(lower_cap, missing_root_names_key_and_index)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        add_root(&c->read_only_roots, project);
        add_root(&c->read_only_roots, in_root("missing"));
        cr_assert_eq(lower(), -ENOENT);
        cr_assert(strstr(diag.message, "policy.json: /read_only_roots/1"), "%s", diag.message);
}

Test(lower_cap, write_roots_follow_the_write_capability)
{
        struct cordon_cap_policy *c = cap();
        const char *cache = in_root("cache");
        mkdir_p(cache);
        add_root(&c->workspace_roots, project);
        add_root(&c->write_roots, cache);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_EXEC;
        lower_ok();
        cr_assert_not_null(rule(cache, CORDON_ACCESS_RO));
        cr_assert_not(flags_of(cache, CORDON_ACCESS_RO) & CORDON_FS_REMOVE);
        /* delete alone removes, never creates: read-only with removal (Landlock). */
        c->capabilities |= CORDON_CAP_DELETE;
        lower_ok();
        cr_assert_null(rule(cache, CORDON_ACCESS_RW));
        cr_assert(flags_of(cache, CORDON_ACCESS_RO) & CORDON_FS_REMOVE);
        c->capabilities |= CORDON_CAP_WRITE_TEXT;
        lower_ok();
        cr_assert_not_null(rule(cache, CORDON_ACCESS_RW));
}

Test(lower_cap, presets_default_bind_toolchains_that_exist)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        mkdir_p(in_root("home/.cargo"));
        write_file(in_root("home/.npmrc"), "registry=https://example.invalid/\n");
        lower_ok();
        cr_assert_not_null(rule(in_root("home/.cargo"), CORDON_ACCESS_RO));
        /* .npmrc holds registry tokens: not a default any more (see credentials_opt_in). */
        cr_assert_null(rule(in_root("home/.npmrc"), CORDON_ACCESS_RO));
        assert_masked(in_root("home/.npmrc"));
        cr_assert_null(rule(in_root("home/.rustup"), CORDON_ACCESS_RO), "missing ones skipped");
        cr_assert_not_null(rule("/usr", CORDON_ACCESS_RO), "system_runtime is a default");
}

Test(lower_cap, empty_presets_keep_toolchains_and_system_out)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        mkdir_p(in_root("home/.cargo"));
        c->presets_default = false;
        c->presets = 0;
        lower_ok();
        cr_assert_null(rule(in_root("home/.cargo"), CORDON_ACCESS_RO));
        cr_assert_null(rule("/usr", CORDON_ACCESS_RO));
        /* The credential directories stay hidden regardless. */
        cr_assert_not_null(rule(project, CORDON_ACCESS_RW));
}

Test(lower_cap, credential_masks_still_apply_inside_roots)
{
        struct cordon_cap_policy *c = cap();
        mkdir_p(in_root("home/.ssh"));
        write_file(in_root("home/.ssh/id_ed25519"), "secret");
        add_root(&c->read_only_roots, home);
        add_root(&c->workspace_roots, project);
        lower_ok();
        assert_masked(in_root("home/.ssh"));
}

Test(lower_cap, profile_and_side_effect_level)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        c->profile = CORDON_PROFILE_OS_HARDENED;
        c->has_side_effect_level = true;
        c->side_effect_level = CORDON_SIDE_EFFECT_PROCESS_EXEC;
        s.profile = CORDON_PROFILE_UNRESTRICTED;
        lower_ok();
        cr_assert_eq(p->profile, CORDON_PROFILE_OS_HARDENED, "the stricter profile wins");
        cr_assert_eq(p->side_effect_level, CORDON_SIDE_EFFECT_PROCESS_EXEC);

        c->profile = CORDON_PROFILE_UNRESTRICTED;
        s.profile = CORDON_PROFILE_WORKTREE;
        lower_ok();
        cr_assert_eq(p->profile, CORDON_PROFILE_WORKTREE, "a policy cannot loosen --profile");
}

Test(lower_cap, cwd_outside_every_root_without_workspace_roots)
{
        struct cordon_cap_policy *c = cap();
        const char *ref = in_root("ref");
        mkdir_p(ref);
        add_root(&c->read_only_roots, ref);
        cr_assert_eq(lower(), -EINVAL);
        cr_assert(strstr(diag.message, "outside every root"), "%s", diag.message);
}

Test(lower_cap, without_a_policy_the_project_is_bound)
{
        lower_ok();
        cr_assert_not_null(rule(project, CORDON_ACCESS_RW));
        cr_assert_eq(p->profile, CORDON_PROFILE_WORKTREE);
        cr_assert_eq(p->side_effect_level, CORDON_SIDE_EFFECT_NETWORK);
        cr_assert_eq(p->backend, CORDON_BACKEND_AUTO);
        cr_assert_eq(p->fallback, CORDON_FALLBACK_ENFORCE);
}

Test(lower_cap, root_through_symlink_refused)
{
        struct cordon_cap_policy *c = cap();
        mkdir_p(in_root("real"));
        cr_assert_eq(symlink(in_root("real"), in_root("alias")), 0);
        add_root(&c->read_roots, in_root("alias"));
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, in_root("alias")), "%s", diag.message);
        cr_assert(strstr(diag.message, in_root("real")), "%s", diag.message);
        cr_assert(strstr(diag.message, "read_roots"), "%s", diag.message);
}

/* A writable root is held to what a project is: a policy naming the home, or a parent of it,
 * would otherwise make the whole home writable whatever HOME_ACCESS says. */
Test(lower_cap, writable_root_is_held_to_the_project_rules)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, home);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_WRITE_TEXT | CORDON_CAP_EXEC;
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "is the home directory"), "%s", diag.message);
        cr_assert(strstr(diag.message, "workspace_roots"), "%s", diag.message);

        c = cap();
        add_root(&c->write_roots, root);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_WRITE_TEXT | CORDON_CAP_EXEC;
        cr_assert_eq(lower(), -EPERM);
        cr_assert(strstr(diag.message, "parent of the home directory"), "%s", diag.message);

        /* Control: the home is fine as a read-only root, a directory below it as a writable one. */
        c = cap();
        add_root(&c->read_only_roots, home);
        add_root(&c->workspace_roots, project);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_WRITE_TEXT | CORDON_CAP_EXEC;
        lower_ok();
        cr_assert_not_null(rule(project, CORDON_ACCESS_RW));
}

Test(lower_cap, credentials_opt_in)
{
        /* The default presets leave ~/.netrc hidden; naming it as a read root hands it over. */
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        write_file(fmt("%s/.netrc", home), "machine x password y\n");
        write_file(fmt("%s/.pypirc", home), "[pypi]\npassword = y\n");
        lower_ok();
        cr_assert_null(rule(fmt("%s/.netrc", home), CORDON_ACCESS_RO));
        assert_masked(fmt("%s/.netrc", home));

        add_root(&c->read_roots, fmt("%s/.netrc", home));
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/.netrc", home), CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/.netrc", home), CORDON_ACCESS_MASKED));
        assert_masked(fmt("%s/.pypirc", home));
}

Test(lower_cap, opt_in_never_reaches_ssh)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        mkdir_p(fmt("%s/.ssh", home));
        add_root(&c->read_roots, fmt("%s/.ssh", home));
        lower_ok();
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower_cap, roots_carry_their_json_pointer)
{
        /* The policy front end writes each root as a settings item whose origin is its JSON
         * pointer; the bind made of it keeps that origin. */
        struct cordon_cap_policy *c = cap();
        const char *ref = in_root("ref"), *cache = in_root("cache");
        mkdir_p(ref);
        mkdir_p(cache);
        add_root(&c->workspace_roots, project);
        add_root(&c->read_only_roots, ref);
        add_root(&c->write_roots, cache);
        lower_ok();
        cr_assert_str_eq(s.workspace_roots.items[0].origin, "policy.json: /workspace_roots/0");
        cr_assert_str_eq(rule(project, CORDON_ACCESS_RW)->origin,
                         "policy.json: /workspace_roots/0");
        cr_assert_str_eq(rule(ref, CORDON_ACCESS_RO)->origin, "policy.json: /read_only_roots/0");
        cr_assert_str_eq(rule(cache, CORDON_ACCESS_RW)->origin,
                         "policy.json: /process_sandbox/write_roots/0");
        cr_assert_str_eq(s.policy, "policy.json");
}

Test(lower_cap, capabilities_and_profile_carry_their_origin)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_EXEC;
        c->profile = CORDON_PROFILE_OS_HARDENED;
        lower_ok();
        cr_assert_not(s.workspace_writes);
        cr_assert_str_eq(s.workspace_writes_origin, "policy.json: /capabilities/workspace");
        cr_assert_str_eq(s.profile_origin, "policy.json: /sandbox_profile");
        cr_assert_eq(p->profile, CORDON_PROFILE_OS_HARDENED);
}

/* ---- one test per capability: exactly the rights it names ---- */

static void lower_caps(unsigned caps)
{
        struct cordon_cap_policy *c = cap();
        const char *ref = in_root("ref");
        mkdir_p(ref);
        add_root(&c->workspace_roots, project);
        add_root(&c->read_only_roots, ref);
        c->has_capabilities = true;
        c->capabilities = caps;
        lower_ok();
}

Test(lower_cap, read_text_alone_reads_the_workspace)
{
        lower_caps(CORDON_CAP_READ_TEXT | CORDON_CAP_EXEC);
        cr_assert_not_null(rule(project, CORDON_ACCESS_RO));
        cr_assert_not(flags_of(project, CORDON_ACCESS_RO) & CORDON_FS_REMOVE);
        cr_assert_null(rule(project, CORDON_ACCESS_RW));
}

Test(lower_cap, list_alone_reads_the_workspace)
{
        lower_caps(CORDON_CAP_LIST | CORDON_CAP_EXEC);
        cr_assert_not_null(rule(project, CORDON_ACCESS_RO));
        cr_assert_null(rule(project, CORDON_ACCESS_RW));
}

Test(lower_cap, exists_alone_reads_the_workspace)
{
        lower_caps(CORDON_CAP_EXISTS | CORDON_CAP_EXEC);
        cr_assert_not_null(rule(project, CORDON_ACCESS_RO));
        cr_assert_null(rule(project, CORDON_ACCESS_RW));
}

Test(lower_cap, no_read_capability_binds_no_workspace_root)
{
        /* write_text without a read capability: a bind cannot give writes without reads, so
         * the root is not bound at all (less, not more); read_only_roots stay readable. */
        lower_caps(CORDON_CAP_WRITE_TEXT | CORDON_CAP_EXEC);
        cr_assert_null(rule(project, CORDON_ACCESS_RO));
        cr_assert_null(rule(project, CORDON_ACCESS_RW));
        cr_assert_not_null(rule(in_root("ref"), CORDON_ACCESS_RO));
        cr_assert_str_eq(p->cwd, "/", "the command starts outside the unreadable root");
        lower_caps(CORDON_CAP_EXEC);
        cr_assert_null(rule(project, CORDON_ACCESS_RO));
}

Test(lower_cap, write_text_writes_the_workspace)
{
        lower_caps(CORDON_CAP_READ_TEXT | CORDON_CAP_WRITE_TEXT | CORDON_CAP_EXEC);
        cr_assert_not_null(rule(project, CORDON_ACCESS_RW));
        cr_assert_not_null(rule(in_root("ref"), CORDON_ACCESS_RO), "read-only roots stay so");
}

Test(lower_cap, delete_alone_removes_and_never_creates)
{
        lower_caps(CORDON_CAP_READ_TEXT | CORDON_CAP_DELETE | CORDON_CAP_EXEC);
        cr_assert_null(rule(project, CORDON_ACCESS_RW));
        cr_assert_not_null(rule(project, CORDON_ACCESS_RO));
        cr_assert(flags_of(project, CORDON_ACCESS_RO) & CORDON_FS_REMOVE);
        cr_assert_not(flags_of(in_root("ref"), CORDON_ACCESS_RO) & CORDON_FS_REMOVE);
}

Test(lower_cap, exec_absent_runs_nothing)
{
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_WRITE_TEXT;
        cr_assert_eq(lower(), -EPERM);
}

/* user_temp: /tmp is writable only with the preset and write_text. */
Test(lower_cap, user_temp_writable_only_with_workspace_writes)
{
        lower_caps(CORDON_CAP_READ_TEXT | CORDON_CAP_EXEC);
        cr_assert(flags_of("/tmp", CORDON_ACCESS_TMPFS) & CORDON_FS_SEAL, "read-only policy");
        lower_caps(CORDON_CAP_READ_TEXT | CORDON_CAP_DELETE | CORDON_CAP_EXEC);
        cr_assert(flags_of("/tmp", CORDON_ACCESS_TMPFS) & CORDON_FS_SEAL, "delete alone");
        lower_caps(CORDON_CAP_READ_TEXT | CORDON_CAP_WRITE_TEXT | CORDON_CAP_EXEC);
        cr_assert_not(flags_of("/tmp", CORDON_ACCESS_TMPFS) & CORDON_FS_SEAL,
                      "writes and the default presets (user_temp among them)");
        struct cordon_cap_policy *c = cap();
        add_root(&c->workspace_roots, project);
        c->presets_default = false;
        c->presets = CORDON_PRESET_SYSTEM_RUNTIME;
        lower_ok();
        cr_assert(flags_of("/tmp", CORDON_ACCESS_TMPFS) & CORDON_FS_SEAL, "no user_temp");
}

/* The agents get no private home of the run's own under a policy (it would be a root the
 * policy does not name, and their keys would flow back outside its roots). */
Test(lower_cap, no_agent_homes)
{
        mkdir_p(fmt("%s/.claude", home));
        struct cordon_cap_policy *c = cap();
        const char *other = in_root("other");
        mkdir_p(other);
        add_root(&c->workspace_roots, other);
        c->has_capabilities = true;
        c->capabilities = CORDON_CAP_READ_TEXT | CORDON_CAP_WRITE_TEXT | CORDON_CAP_EXEC;
        lower_ok();
        cr_assert_null(p->agent_run_dir);
        cr_assert_eq(p->n_agent_homes, 0);
}
