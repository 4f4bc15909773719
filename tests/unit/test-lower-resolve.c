/* cordon_settings_resolve() changes nothing on the host and plans the host actions;
 * cordon_policy_apply() takes them safely and gives the rules resolve built. Fixture in
 * lower-fixture.h. */
#define LOWER_FIXTURE_AGENTS_INSTALLED
#include "lower-fixture.h"

#include "lib/resolve/host-action.h"
#include "lib/resolve/lower-internal.h"
#include "lib/launch/launch.h"
#include "lib/launch/plan-describe.h"

TestSuite(lower_resolve, .init = setup, .fini = teardown);

/* Every entry below the scratch root with its inode, mode, size and times. */
static char *snapshot(void)
{
        char cmd[512];
        snprintf(cmd, sizeof(cmd), "find '%s' -printf '%%p %%y %%i %%m %%s %%T@ %%C@\\n' | sort",
                 root);
        FILE *f = popen(cmd, "r");
        cr_assert_not_null(f);
        char *buf = NULL;
        size_t n = 0;
        FILE *out = open_memstream(&buf, &n);
        for (int c; (c = fgetc(f)) != EOF;)
                fputc(c, out);
        cr_assert_eq(pclose(f), 0);
        cr_assert_eq(fclose(out), 0);
        return buf;
}

static int resolve(void)
{
        p = cordon_policy_free(p);
        warnings = strv_free(warnings);
        diag = (struct cordon_diag){0};
        return cordon_settings_resolve(&s, &h, &p, &warnings, &diag);
}

static void collect(void *userdata, const char *message)
{
        (void)userdata;
        cr_assert_eq(strv_extend(&warnings, message), 0);
}

static const struct cordon_host_action *action(const char *path)
{
        return cordon_policy_find_host_action(p, path);
}

/* Everything lowering used to create, missing at once: a HOME_WRITABLE directory with its agent
 * settings, a --mask file with a missing parent,
 * .git/config and .git/hooks. */
static void everything_missing(void)
{
        s.home_access = CORDON_HOME_READ;
        write_file(fmt("%s/.git/HEAD", project), "ref: refs/heads/main\n");
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/conf/key.pem", project), "--mask"),
                     0);
        cr_assert_eq(cordon_list_add(&s.extra_writable_paths, home, "--rw"), 0);
}

Test(lower_resolve, changes_nothing_and_plans_every_action)
{
        everything_missing();
        _cleanup_free_ char *before = snapshot();
        cr_assert_eq(resolve(), 0, "%s", diag.message);
        _cleanup_free_ char *after = snapshot();
        cr_assert_str_eq(before, after, "resolve changed the host");

        const struct cordon_host_action *a = action(fmt("%s/.claude", home));
        cr_assert(a && a->kind == CORDON_HOST_MKDIR && !a->warning, "HOME_WRITABLE, silently");
        /* An agent's missing files of commands are made in its private home, not here. */
        cr_assert_null(action(fmt("%s/.claude/settings.json", home)));
        cr_assert_null(action(fmt("%s/.ssh", home)), "the home is carved instead");
        a = action(fmt("%s/conf", project));
        cr_assert(a && a->kind == CORDON_HOST_MKDIR && strstr(a->warning, "missing directory"));
        a = action(fmt("%s/conf/key.pem", project));
        cr_assert(a && a->kind == CORDON_HOST_FILE && strstr(a->warning, "(from --mask)"));
        cr_assert_not_null(action(fmt("%s/.git/config", project)));
        cr_assert_not_null(action(fmt("%s/.git/hooks", project)));
        /* The parent comes first: apply makes them in order. */
        size_t dir = 0, file = 0;
        for (size_t i = 0; i < p->n_actions; i++) {
                if (streq(p->actions[i].path, fmt("%s/conf", project)))
                        dir = i;
                if (streq(p->actions[i].path, fmt("%s/conf/key.pem", project)))
                        file = i;
        }
        cr_assert_lt(dir, file);
        cr_assert_not(warned("created"), "nothing is announced before it is created");

        /* The rules are those of the lowering that creates them. */
        assert_masked(fmt("%s/conf/key.pem", project));
        cr_assert_not_null(rule(home, CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/.claude/projects", home), CORDON_ACCESS_RW));
        /* Not on the host: nothing to copy there (the private home has one). */
        cr_assert_null(rule(fmt("%s/.claude/settings.json", home), CORDON_ACCESS_COPY));
        cr_assert_not_null(rule(fmt("%s/.git/hooks", project), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/conf", project), CORDON_ACCESS_RW),
                           "the planned directory is pinned");
}

/* What resolve planned and the apply cannot make (something changed in between): the refusal
 * names the BLOCKED_FILES entries left unprotected, those below a directory that failed too,
 * and the fix, and the other failures after it. */
Test(lower_resolve, apply_failure_names_blocked_files)
{
        everything_missing();
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/conf/b.pem", project), "--mask"), 0);
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/top.pem", project), "--mask"), 0);
        cr_assert_eq(resolve(), 0, "%s", diag.message);
        /* A file where the placeholders' directory was to be made, and a directory where a
         * placeholder was. */
        write_file(fmt("%s/conf", project), "");
        mkdir_p(fmt("%s/top.pem", project));
        int r = cordon_policy_apply(p, collect, NULL, &diag);
        cr_assert_eq(r, -EEXIST, "%d (%s)", r, diag.message);
        cr_assert(strstr(diag.message, "cannot protect 3 BLOCKED_FILES entries: "), "%s",
                  diag.message);
        cr_assert(strstr(diag.message, fmt("'%s/conf/key.pem': cannot create directory '%s/conf': "
                                           "something else is there now",
                                           project, project)),
                  "%s", diag.message);
        cr_assert(strstr(diag.message, fmt("'%s/conf/b.pem'", project)), "%s", diag.message);
        cr_assert(strstr(diag.message, fmt("'%s/top.pem': cannot create it: something else is "
                                           "there now",
                                           project)),
                  "%s", diag.message);
        cr_assert(strstr(diag.message, "(remove them from BLOCKED_FILES)"), "%s", diag.message);
}

Test(lower_resolve, apply_gives_what_lower_gives)
{
        everything_missing();
        cr_assert_eq(resolve(), 0, "%s", diag.message);
        struct cordon_policy *resolved = TAKE_PTR(p);
        warnings = strv_free(warnings);
        cr_assert_eq(cordon_policy_apply(resolved, collect, NULL, &diag), 0, "%s", diag.message);
        cr_assert(exists(fmt("%s/conf/key.pem", project)));
        cr_assert_not(exists(fmt("%s/.claude/settings.json", home)));
        cr_assert(exists(fmt("%s/.git/hooks", project)));
        cr_assert(warned(fmt("created empty placeholder '%s/conf/key.pem'", project)));
        cr_assert(warned(fmt("created missing directory '%s/conf'", project)));
        /* HOME_WRITABLE directories and agent files: one line for all of them. */
        const char *c = created_line();
        cr_assert(c && strstr(c, "~/.claude"), "%s", c ? c : "(none)");

        /* Applying again finds everything in place: silent, no error. */
        warnings = strv_free(warnings);
        cr_assert_eq(cordon_policy_apply(resolved, collect, NULL, &diag), 0, "%s", diag.message);
        cr_assert_null(warnings);

        /* Lowering now (everything exists) gives the same rules in the same order. */
        cr_assert_eq(lower(), 0, "%s", diag.message);
        cr_assert_eq(p->n_actions, 0, "nothing left to create");
        cr_assert_eq(resolved->n_fs, p->n_fs);
        for (size_t i = 0; i < p->n_fs; i++) {
                /* The agents' directory is a new one each lowering (each run). */
                if (streq_ptr(resolved->fs[i].guest, resolved->agent_run_dir))
                        cr_assert_str_eq(p->fs[i].guest, p->agent_run_dir);
                else
                        cr_assert_str_eq(resolved->fs[i].guest, p->fs[i].guest);
                cr_assert_eq(resolved->fs[i].access, p->fs[i].access, "%s", p->fs[i].guest);
                cr_assert_eq(resolved->fs[i].flags, p->fs[i].flags, "%s", p->fs[i].guest);
        }
        cordon_policy_free(resolved);
}

Test(lower_resolve, apply_refuses_a_symlink_swapped_in)
{
        /* Resolve planned conf/ in the project; meanwhile conf became a link to elsewhere. */
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/conf/key.pem", project), "--mask"),
                     0);
        cr_assert_eq(resolve(), 0, "%s", diag.message);
        mkdir_p(in_root("elsewhere"));
        cr_assert_eq(symlink(in_root("elsewhere"), fmt("%s/conf", project)), 0);
        int r = cordon_policy_apply(p, collect, NULL, &diag);
        cr_assert_eq(r, -EEXIST, "%d (%s)", r, diag.message);
        cr_assert(strstr(diag.message, "/conf"), "%s", diag.message);
        cr_assert_not(exists(in_root("elsewhere/key.pem")), "nothing created through the link");

        /* A link higher up: the parent is opened without following symlinks. */
        cr_assert_eq(unlink(fmt("%s/conf", project)), 0);
        mkdir_p(in_root("real-conf"));
        cr_assert_eq(resolve(), 0, "%s", diag.message);
        cr_assert_eq(rename(project, in_root("moved")), 0);
        cr_assert_eq(symlink(in_root("moved"), project), 0);
        r = cordon_policy_apply(p, collect, NULL, &diag);
        cr_assert_eq(r, -ELOOP, "%d (%s)", r, diag.message);
        cr_assert_not(exists(in_root("moved/conf")));
}

Test(lower_resolve, apply_accepts_what_another_run_made)
{
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/.env", project), "--mask"), 0);
        cr_assert_eq(resolve(), 0, "%s", diag.message);
        write_file(fmt("%s/.env", project), "");
        cr_assert_eq(cordon_policy_apply(p, collect, NULL, &diag), 0, "%s", diag.message);
        cr_assert_not(warned(fmt("%s/.env,", project)) || warned(fmt("%s/.env ", project)),
                      "not created here: not announced");

        /* A directory where a file was planned is not what the mask was built for. */
        cr_assert_eq(unlink(fmt("%s/.env", project)), 0);
        mkdir_p(fmt("%s/.env", project));
        cr_assert_eq(cordon_policy_apply(p, collect, NULL, &diag), -EEXIST);
}

Test(lower_resolve, dry_run_launch_creates_nothing_and_describes_the_plan)
{
        s.backend = CORDON_BACKEND_LANDLOCK;
        cr_assert_eq(cordon_list_add(&s.blocked_files, fmt("%s/.env", project), "--mask"), 0);
        cr_assert_eq(resolve(), 0, "%s", diag.message);
        _cleanup_free_ char *before = snapshot();
        struct cordon_launch l = {.dry_run = true,
                                  .probe_landlock = fixture_landlock_abi6,
                                  .probe_seccomp = fixture_have_seccomp};
        cr_assert_eq(cordon_launch_prepare(p, &l, &diag), 0, "%s", diag.message);
        cr_assert_null(l.tmpdir, "no private TMPDIR in a dry run");
        cr_assert(l.landlock && l.seccomp, "the layers are decided as for a launch");
        _cleanup_free_ char *text = NULL;
        cr_assert_eq(cordon_policy_describe(p, &l, &text), 0);
        cordon_launch_clear(&l);
        _cleanup_free_ char *after = snapshot();
        cr_assert_str_eq(before, after, "the dry run changed the host");
        cr_assert(strstr(text, "backend: landlock"), "%s", text);
        cr_assert(strstr(text, "layers: landlock (ABI 6) seccomp"), "%s", text);
        cr_assert(strstr(text, fmt("create %s/.env (0600)", project)), "%s", text);
        cr_assert(strstr(text, "mounts, in order"), "%s", text);

        /* Control: the launch proper takes the action and announces it. */
        l = (struct cordon_launch){.warn = collect,
                                   .probe_landlock = fixture_landlock_abi6,
                                   .probe_seccomp = fixture_have_seccomp};
        cr_assert_eq(cordon_launch_prepare(p, &l, &diag), 0, "%s", diag.message);
        cr_assert_not_null(l.tmpdir);
        cordon_launch_clear(&l);
        cr_assert(exists(fmt("%s/.env", project)));
        cr_assert(warned(fmt("created empty placeholder '%s/.env'", project)));
}

/* cordon_lower_host_realpath() gives glibc's realpath() answer, errno included, whatever links,
 * files and dots are on the way, with its cache of known directories warm or cold. */
Test(lower_resolve, host_realpath_is_realpath)
{
        mkdir_p(in_root("a/b/c"));
        write_file(in_root("a/b/file"), "x");
        cr_assert_eq(symlink("b", in_root("a/rel")), 0);
        cr_assert_eq(symlink(in_root("a/b/c"), in_root("a/abs")), 0);
        cr_assert_eq(symlink("../a/rel/c", in_root("a/b/up")), 0);
        cr_assert_eq(symlink("rel", in_root("a/chain")), 0);
        cr_assert_eq(symlink("missing", in_root("a/dangling")), 0);
        cr_assert_eq(symlink("loop2", in_root("a/loop1")), 0);
        cr_assert_eq(symlink("loop1", in_root("a/loop2")), 0);
        cr_assert_eq(symlink("file", in_root("a/b/tofile")), 0);
        const char *const rel[] = {
            "a",          "a/b",          "a/b/c",       "a/b/file",  "a/rel",
            "a/rel/c",    "a/abs",        "a/abs/",      "a/b/up",    "a/b/up/",
            "a/chain/c",  "a/dangling",   "a/loop1",     "a/loop1/x", "a/b/file/x",
            "a/b/file/.", "a/b/tofile/x", "a/b/tofile",  "a/./b",     "a//b",
            "a/b/../rel", "a/missing",    "a/missing/x", "a/rel/..",  "a/b/c/../..",
        };
        struct lower_real_dirs dirs = {0};
        struct lower l = {.real_dirs = &dirs};
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < ELEMENTSOF(rel); i++) {
                        const char *path = in_root(rel[i]);
                        errno = 0;
                        char *want = realpath(path, NULL);
                        int want_errno = errno;
                        errno = 0;
                        char *got = cordon_lower_host_realpath(&l, path);
                        int got_errno = errno;
                        cr_assert_str_eq(got ?: "(null)", want ?: "(null)", "pass %d: %s", pass,
                                         rel[i]);
                        if (!want)
                                cr_assert_eq(got_errno, want_errno, "%s: errno %d, not %d", rel[i],
                                             got_errno, want_errno);
                        free(want);
                        free(got);
                }
        cr_assert_not_null(dirs.dirs, "the fast path ran and learnt directories");
        _cleanup_free_ char *slash = cordon_lower_host_realpath(&l, "/");
        cr_assert_str_eq(slash, "/");
        strv_free(dirs.dirs);
}
