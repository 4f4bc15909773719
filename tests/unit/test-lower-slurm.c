/* SLURM_SCOPE lowered (lower-slurm.c): which of Slurm's commands the command's PATH leads to
 * (executable regular files only, followed to their realpath, one program under two names
 * once), and cordon_policy_set_slurm(): its refusals, nothing to do without Slurm, the stub
 * bound read-only (mount namespace only) over each command the sandbox sees at the same place
 * and over nothing else. Fixture in lower-fixture.h; the host's own Slurm is kept off PATH. */
#include "lower-fixture.h"

#include "cordon/cordon.h"
#include "lib/resolve/lower-internal.h"
#include "lib/slurm/slurm-names.h"

TestSuite(lower_slurm, .init = setup, .fini = teardown);

#define ORIGIN "SLURM_SCOPE"

/* The command's PATH: @value, replacing the fixture's (which leads to the host's Slurm). */
static void set_path(const char *value)
{
        for (char **e = envp; e && *e; e++)
                if (startswith(*e, "PATH=")) {
                        free(*e);
                        *e = strdup(fmt("PATH=%s", value));
                        cr_assert_not_null(*e);
                        return;
                }
        cr_assert_fail("no PATH in the fixture");
}

static void put_program(const char *path, mode_t mode)
{
        write_file(path, "#!/bin/sh\nexit 0\n");
        cr_assert_eq(chmod(path, mode), 0, "chmod %s: %m", path);
}

/* A: the project's bin (bound read-write at its place), B: a bin in the home (a PATH directory
 * below the home: shown read-only at its place), C: outside of both (not shown). */
static const char *dir_a, *dir_b, *dir_c;

static void scene(void)
{
        dir_a = fmt("%s/bin", project);
        dir_b = fmt("%s/.local/bin", home);
        dir_c = in_root("elsewhere/bin");
        mkdir_p(dir_a);
        mkdir_p(dir_b);
        mkdir_p(dir_c);
        /* sbatch: an executable in A. */
        put_program(fmt("%s/sbatch", dir_a), 0755);
        /* squeue: not executable in A, executable in B. */
        put_program(fmt("%s/squeue", dir_a), 0644);
        put_program(fmt("%s/squeue", dir_b), 0755);
        /* srun: a directory in A, in B a symlink to A's sbatch (one program, two names). */
        mkdir_p(fmt("%s/srun", dir_a));
        cr_assert_eq(symlink(fmt("%s/sbatch", dir_a), fmt("%s/srun", dir_b)), 0);
        /* scancel: a symlink in A to a program in C. */
        put_program(fmt("%s/scancel", dir_c), 0755);
        cr_assert_eq(symlink(fmt("%s/scancel", dir_c), fmt("%s/scancel", dir_a)), 0);
        /* sinfo: a dangling symlink in A. */
        cr_assert_eq(symlink(fmt("%s/nowhere", dir_c), fmt("%s/sinfo", dir_a)), 0);
        /* salloc: only in a relative PATH entry (rel/, from the scratch root as the cwd),
         * which the lookup skips. */
        put_program(in_root("rel/salloc"), 0755);
        cr_assert_eq(chdir(root), 0);
        /* Empty entries and a relative one first, then A and B. */
        set_path(fmt("rel::%s:%s:", dir_a, dir_b));
}

/* The programs the policy names: a stub and a chaperon, executable files. */
static const char *stub_prog, *chaperon_prog;

static void programs(void)
{
        stub_prog = in_root("libexec/cordon-slurm-stub");
        chaperon_prog = in_root("libexec/cordon-chaperon");
        put_program(stub_prog, 0755);
        put_program(chaperon_prog, 0755);
}

/* The rules of origin SLURM_SCOPE, through the public accessor. */
static size_t slurm_rules(void)
{
        size_t n = 0;
        for (size_t i = 0; i < cordon_policy_fs_count(p); i++) {
                const char *guest = NULL, *host = NULL, *origin = NULL;
                enum cordon_access access;
                unsigned flags = 0;
                cr_assert_eq(cordon_policy_get_fs(p, i, &guest, &host, &access, &flags, &origin),
                             0);
                n += origin && streq(origin, ORIGIN);
        }
        return n;
}

/* The rule of origin SLURM_SCOPE at @guest: the stub, read-only, under a mount namespace only. */
static bool stub_bound_at(const char *guest)
{
        for (size_t i = 0; i < cordon_policy_fs_count(p); i++) {
                const char *g = NULL, *host = NULL, *origin = NULL;
                enum cordon_access access;
                unsigned flags = 0;
                cr_assert_eq(cordon_policy_get_fs(p, i, &g, &host, &access, &flags, &origin), 0);
                if (!origin || !streq(origin, ORIGIN) || !streq(g, guest))
                        continue;
                cr_assert_str_eq(host, stub_prog);
                cr_assert_eq(access, CORDON_ACCESS_RO);
                cr_assert(flags & CORDON_FS_NS_ONLY);
                return true;
        }
        return false;
}

Test(lower_slurm, commands_found_on_path)
{
        scene();
        lower_ok();
        STRV_FOREACH (it, p->slurm.paths)
                cr_log_info("found: %s", *it);
        cr_assert_eq(strv_length(p->slurm.paths), 3);
        /* In the names' order: sbatch (srun is the same program), squeue, scancel. */
        cr_assert_str_eq(p->slurm.paths[0], fmt("%s/sbatch", dir_a));
        cr_assert_str_eq(p->slurm.paths[1], fmt("%s/squeue", dir_b), "past the one not executable");
        cr_assert_str_eq(p->slurm.paths[2], fmt("%s/scancel", dir_c), "the link's target");
        cr_assert_null(p->slurm.paths[3]);
        /* Not the relative entry's, not the dangling link's. */
        cr_assert_not(strv_contains(p->slurm.paths, in_root("rel/salloc")));
        STRV_FOREACH (it, p->slurm.paths) {
                _cleanup_free_ char *real = realpath(*it, NULL);
                cr_assert_str_eq(real, *it, "a realpath");
        }
        /* Lowering alone asks for nothing of the stub. */
        cr_assert_null(p->slurm.stub);
        cr_assert_null(p->slurm.chaperon);
        cr_assert_eq(slurm_rules(), 0);
}

Test(lower_slurm, settings_carried)
{
        scene();
        s.slurm_scope = 0; /* session */
        s.chaperon_log_level = 2;
        s.chaperon_log_retain_days = 9;
        lower_ok();
        cr_assert_eq(p->slurm.scope, 0);
        cr_assert_eq(p->slurm.log_level, 2);
        cr_assert_eq(p->slurm.log_retain_days, 9);
}

Test(lower_slurm, no_slurm_on_path)
{
        mkdir_p(in_root("empty"));
        set_path(in_root("empty"));
        lower_ok();
        cr_assert_null(p->slurm.paths);

        /* Nothing to stand in for: 0 and nothing done, whatever the programs are. */
        cr_assert_eq(cordon_policy_set_slurm(p, "relative", NULL, &diag), 0);
        cr_assert_eq(cordon_policy_set_slurm(p, in_root("missing"), in_root("missing"), &diag), 0);
        cr_assert_null(p->slurm.stub);
        cr_assert_null(p->slurm.chaperon);
        cr_assert_eq(slurm_rules(), 0);
}

Test(lower_slurm, no_path_variable_uses_the_default)
{
        /* Without PATH the lookup's default (/usr/local/bin:/usr/bin:/bin) is searched: what it
         * finds is the host's, each a realpath of an executable file in one of those. */
        envp = strv_free(envp);
        envp = STRV_MAKE("TERM=xterm");
        h.envp = envp;
        lower_ok();
        STRV_FOREACH (it, p->slurm.paths) {
                struct stat st;
                cr_assert_eq(stat(*it, &st), 0);
                cr_assert(S_ISREG(st.st_mode));
                cr_assert_eq(access(*it, X_OK), 0);
        }
        /* Against the same lookup by hand. */
        size_t want = 0;
        char **seen = NULL;
        for (const char *const *n = cordon_slurm_command_names(); *n; n++) {
                static const char *const dirs[] = {"/usr/local/bin", "/usr/bin", "/bin"};
                for (size_t d = 0; d < ELEMENTSOF(dirs); d++) {
                        const char *f = fmt("%s/%s", dirs[d], *n);
                        struct stat st;
                        if (stat(f, &st) < 0 || !S_ISREG(st.st_mode) || access(f, X_OK) < 0)
                                continue;
                        char *real = realpath(f, NULL);
                        cr_assert_not_null(real);
                        if (strv_contains(seen, real))
                                free(real);
                        else {
                                cr_assert_eq(strv_consume(&seen, real), 0);
                                want++;
                        }
                        break;
                }
        }
        cr_assert_eq(strv_length(p->slurm.paths), want);
        for (size_t i = 0; i < want; i++)
                cr_assert_str_eq(p->slurm.paths[i], seen[i]);
        strv_free(seen);
}

Test(lower_slurm, set_slurm_refusals)
{
        scene();
        programs();
        lower_ok();
        cr_assert_not_null(p->slurm.paths);

        cr_assert_eq(cordon_policy_set_slurm(NULL, stub_prog, chaperon_prog, &diag), -EINVAL);

        cr_assert_eq(cordon_policy_set_slurm(p, "libexec/cordon-slurm-stub", chaperon_prog, &diag),
                     -EINVAL);
        cr_assert(strstr(diag.message, "SLURM_SCOPE") && strstr(diag.message, "stub program"), "%s",
                  diag.message);
        cr_assert_eq(cordon_policy_set_slurm(p, NULL, chaperon_prog, &diag), -EINVAL);
        cr_assert_eq(cordon_policy_set_slurm(p, stub_prog, "cordon-chaperon", &diag), -EINVAL);
        cr_assert(strstr(diag.message, "chaperon program"), "%s", diag.message);
        cr_assert_eq(cordon_policy_set_slurm(p, stub_prog, NULL, &diag), -EINVAL);

        cr_assert_eq(cordon_policy_set_slurm(p, in_root("libexec/missing"), chaperon_prog, &diag),
                     -ENOENT);
        cr_assert(strstr(diag.message, in_root("libexec/missing")), "%s", diag.message);
        cr_assert_eq(cordon_policy_set_slurm(p, stub_prog, in_root("libexec/missing"), &diag),
                     -ENOENT);

        put_program(in_root("libexec/not-executable"), 0644);
        cr_assert_eq(
            cordon_policy_set_slurm(p, in_root("libexec/not-executable"), chaperon_prog, &diag),
            -EACCES);
        cr_assert(strstr(diag.message, "not an executable file"), "%s", diag.message);
        cr_assert_eq(
            cordon_policy_set_slurm(p, stub_prog, in_root("libexec/not-executable"), &diag),
            -EACCES);
        cr_assert_eq(cordon_policy_set_slurm(p, in_root("libexec"), chaperon_prog, &diag), -EACCES,
                     "a directory");

        /* Nothing of a refused call stays. */
        cr_assert_null(p->slurm.stub);
        cr_assert_null(p->slurm.chaperon);
        cr_assert_eq(slurm_rules(), 0);

        /* Positive control, then a second call. */
        cr_assert_eq(cordon_policy_set_slurm(p, stub_prog, chaperon_prog, &diag), 0, "%s",
                     diag.message);
        cr_assert_str_eq(p->slurm.stub, stub_prog);
        cr_assert_str_eq(p->slurm.chaperon, chaperon_prog);
        size_t n = slurm_rules();
        cr_assert_eq(cordon_policy_set_slurm(p, stub_prog, chaperon_prog, &diag), -EALREADY);
        cr_assert_eq(slurm_rules(), n, "no second set of binds");
}

Test(lower_slurm, stub_bound_over_what_is_seen_at_its_place)
{
        scene();
        programs();
        lower_ok();
        cr_assert_eq(cordon_policy_set_slurm(p, stub_prog, chaperon_prog, &diag), 0, "%s",
                     diag.message);
        /* A (the project) and B (a PATH directory in the home) are seen where they are. */
        cr_assert(stub_bound_at(fmt("%s/sbatch", dir_a)));
        cr_assert(stub_bound_at(fmt("%s/squeue", dir_b)));
        /* C is not in the sandbox: a stub bound there would cover nothing. */
        cr_assert_not(stub_bound_at(fmt("%s/scancel", dir_c)));
        /* Never over a link's own name, nor where nothing was found. */
        cr_assert_not(stub_bound_at(fmt("%s/srun", dir_b)));
        cr_assert_not(stub_bound_at(fmt("%s/scancel", dir_a)));
        cr_assert_not(stub_bound_at(fmt("%s/squeue", dir_a)));
        cr_assert_eq(slurm_rules(), 2);
        cr_assert_eq(cordon_policy_validate(p, NULL), 0, "the policy still validates");
}

Test(lower_slurm, stub_not_bound_under_a_mask)
{
        scene();
        programs();
        /* B blocked: the program there is hidden, so no stub is bound over it. */
        cr_assert_eq(cordon_list_add(&s.extra_blocked_paths, dir_b, "test"), 0);
        lower_ok();
        cr_assert(strv_contains(p->slurm.paths, fmt("%s/squeue", dir_b)),
                  "found on the host's PATH all the same");
        cr_assert_eq(cordon_policy_set_slurm(p, stub_prog, chaperon_prog, &diag), 0, "%s",
                     diag.message);
        cr_assert(stub_bound_at(fmt("%s/sbatch", dir_a)));
        cr_assert_not(stub_bound_at(fmt("%s/squeue", dir_b)));
        cr_assert_eq(slurm_rules(), 1);
}

Test(lower_slurm, landlock_backend_gets_no_binds)
{
        scene();
        programs();
        s.backend = CORDON_BACKEND_LANDLOCK;
        lower_ok();
        cr_assert(p->landlock_only);
        cr_assert_eq(strv_length(p->slurm.paths), 3);
        cr_assert_eq(cordon_policy_set_slurm(p, stub_prog, chaperon_prog, &diag), 0, "%s",
                     diag.message);
        /* The programs are kept (the launch puts the stub first on PATH); no mounts. */
        cr_assert_str_eq(p->slurm.stub, stub_prog);
        cr_assert_str_eq(p->slurm.chaperon, chaperon_prog);
        cr_assert_eq(slurm_rules(), 0);
}

Test(lower_slurm, stub_not_bound_below_a_mask_over_a_bind)
{
        /* A mask above a deeper same-path bind still hides what is below it: the deepest rule
         * alone does not decide. */
        scene();
        programs();
        lower_ok();
        const char *local = fmt("%s/.local", home);
        cr_assert_eq(cordon_policy_add_fs(p, local, NULL, CORDON_ACCESS_MASKED, 0, "test"), 0);
        cr_assert_eq(cordon_policy_set_slurm(p, stub_prog, chaperon_prog, &diag), 0, "%s",
                     diag.message);
        cr_assert(stub_bound_at(fmt("%s/sbatch", dir_a)), "positive control");
        cr_assert_not(stub_bound_at(fmt("%s/squeue", dir_b)));
        cr_assert_eq(slurm_rules(), 1);
}
