/* The admin baselines of sandbox.conf (src/lib/config/config-files.c finds them,
 * config-load.c keeps their snapshot): the ownership and malformed-file checks, the test
 * override, and agent-sandbox's baseline read before cordon's own, each against a stand-in path
 * in a temporary directory (config-load-fixture.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-load-fixture.h"

/* @line appears in the admin snapshot's part of the result. */
static void in_admin(const struct result *r, const char *line)
{
        const char *adm = strstr(r->text, "admin:\n"), *all = strstr(r->text, "all:\n");
        cr_assert(adm && all, "no admin snapshot in:\n%.4000s", r->text);
        const char *at = strstr(adm, line);
        cr_assert(at && at < all, "missing '%s' in the admin snapshot:\n%.4000s", line, r->text);
}

/* @a appears in the result, and before @b. */
static void before(const struct result *r, const char *a, const char *b)
{
        const char *x = strstr(r->text, a), *y = strstr(r->text, b);
        cr_assert(x && y && x < y, "'%s' not before '%s' in:\n%.4000s", a, b, r->text);
}

/* ---- cordon's admin baseline ---- */

Test(config, admin_writable_by_others_refused)
{
        put(admin, "HOME_ACCESS=read\n");
        chmod(admin, 0666);
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EPERM);
        has(&res, "writable by group or others");
}

Test(config, admin_in_a_writable_directory_refused)
{
        put(admin, "HOME_ACCESS=read\n");
        chmod(admin, 0644);
        char dir[400];
        snprintf(dir, sizeof(dir), "%s/admin", root);
        chmod(dir, 0777);
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EPERM);
        has(&res, "directory");
}

Test(config, admin_symlink_refused)
{
        char target[400];
        snprintf(target, sizeof(target), "%s/real.conf", root);
        put(target, "HOME_ACCESS=read\n");
        chmod(target, 0644);
        char dir[400];
        snprintf(dir, sizeof(dir), "%s/admin", root);
        mkdir(dir, 0755);
        cr_assert_eq(symlink(target, admin), 0);
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EPERM);
        has(&res, "symlink");
}

Test(config, admin_owned_by_someone_else_refused)
{
        if (getuid() != 0)
                cr_skip_test("needs root to give the file away");
        put(admin, "HOME_ACCESS=read\n");
        chmod(admin, 0644);
        cr_assert_eq(chown(admin, 65534, 65534), 0);
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, -EPERM);
        has(&res, "belongs to uid 65534");
}

/* The test override is honoured only without a real baseline. */
Test(config, admin_override_refused_beside_a_real_baseline)
{
        char over[400], var[500];
        snprintf(over, sizeof(over), "%s/override.conf", root);
        put(over, "HOME_ACCESS=read\n");
        chmod(over, 0644);
        snprintf(var, sizeof(var), "CORDON_ADMIN_CONF=%s", over);
        const char *env[] = {var, NULL};
        load(&res, 0, CORDON_BACKEND_AUTO, env);
        if (getuid() == 0) {
                cr_assert_eq(res.r, 0, "%s", res.text);
                has(&res, "file=admin ");
                has(&res, "admin_set=HOME_ACCESS");
        } else {
                /* The override's file must be owned by root as a baseline is. */
                cr_assert_eq(res.r, -EPERM, "%s", res.text);
        }

        put(admin, "# the real one\n");
        chmod(admin, 0644);
        load(&res, 0, CORDON_BACKEND_AUTO, env);
        cr_assert_eq(res.r, -EPERM);
        has(&res, "never replaces a real baseline");
}

Test(config, admin_malformed_refused)
{
        static const char *const bad[] = {
            "HOME_ACCESS=read\nif then\n",                         /* syntax error */
            "false\n",                                             /* non-zero status */
            "echo oops >&2\n",                                     /* stderr */
            "ALLOWED_PROJECT_PARENTS=\"/srv\"\n",                  /* not an array */
            "ALLOWED_PROJECT_PARENTS=(srv)\n",                     /* not absolute */
            "ALLOWED_PROJECT_PARENTS=(\"$(echo /srv)\")\n",        /* command substitution */
            "ALLOWED_PROJECT_PARENTS=(\n  /srv\n  `echo /x`\n)\n", /* backticks */
            "exit 0\n",                                            /* ends early */
        };
        static const char *const why[] = {
            "syntax error",
            "status 1",
            "oops",
            "must be an array",
            "must be an absolute path",
            "command substitution",
            "command substitution",
            "reading the configuration stopped",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                put(admin, bad[i]);
                chmod(admin, 0644);
                load(&res, 0, CORDON_BACKEND_AUTO, NULL);
                cr_assert_lt(res.r, 0, "%s accepted:\n%s", bad[i], res.text);
                has(&res, why[i]);
                has(&res, admin);
        }
}

/* ---- agent-sandbox's admin baseline ---- */

/* Both baselines: agent-sandbox's first, then cordon's, which wins where both set a scalar; the
 * snapshot is taken after both, and both files' assignments count as the admin's. */
Test(config, both_baselines_in_order)
{
        put(agent_admin, "HOME_ACCESS=read\nBLOCKED_ENV_VARS+=(AGENT_VAR)\n"
                         "NETWORK_FILTER_MODE=proxied\nPRIVATE_TMP=true\n");
        chmod(agent_admin, 0644);
        put(admin, "HOME_ACCESS=restricted\nBLOCKED_ENV_VARS+=(CORDON_VAR)\n");
        chmod(admin, 0644);
        put(".config/cordon/user.conf", "HOME_ACCESS=write\nNETWORK_FILTER_MODE=open\n");
        ok(&res, 0);
        char a[400], b[400], line[700];
        snprintf(a, sizeof(a), "file=admin %s\n", agent_admin);
        snprintf(b, sizeof(b), "file=admin %s\n", admin);
        before(&res, a, b);
        before(&res, b, "file=user ");
        snprintf(line, sizeof(line), "HOME_ACCESS=restricted @%s:1", admin);
        in_admin(&res, line);
        snprintf(line, sizeof(line), "NETWORK_FILTER_MODE=proxied @%s:3", agent_admin);
        in_admin(&res, line);
        snprintf(line, sizeof(line), "BLOCKED_ENV_VARS[]=AGENT_VAR @%s:2", agent_admin);
        in_admin(&res, line);
        snprintf(line, sizeof(line), "BLOCKED_ENV_VARS[]=CORDON_VAR @%s:2", admin);
        in_admin(&res, line);
        in_admin(&res, "admin_set=HOME_ACCESS");
        in_admin(&res, "admin_set=NETWORK_FILTER_MODE");
        /* Set to its default: still the admin's, so a user cannot lower it. */
        in_admin(&res, "admin_set=PRIVATE_TMP");
        lacks(&res, "admin_set=FILTER_PASSWD");
        /* The user's values are the loader's result; finalize applies the admin rules later. */
        snprintf(line, sizeof(line), "HOME_ACCESS=write @%s/.config/cordon/user.conf:1", home);
        has(&res, line);
}

/* Either file may hold no code (comments only: not evaluated); the snapshot still comes from
 * the other one, and the layers are counted right. */
Test(config, one_baseline_of_comments_only)
{
        char line[700];
        put(agent_admin, "# nothing here\n");
        chmod(agent_admin, 0644);
        put(admin, "HOME_ACCESS=read\n");
        chmod(admin, 0644);
        put(".config/cordon/user.conf", "HOME_ACCESS=write\n");
        ok(&res, 0);
        snprintf(line, sizeof(line), "HOME_ACCESS=read @%s:1", admin);
        in_admin(&res, line);

        put(agent_admin, "HOME_ACCESS=restricted\n");
        put(admin, "# nothing here\n");
        ok(&res, 0);
        snprintf(line, sizeof(line), "HOME_ACCESS=restricted @%s:1", agent_admin);
        in_admin(&res, line);
        snprintf(line, sizeof(line), "file=admin %s\n", admin);
        has(&res, line);
}

/* Beside agent-sandbox's baseline, a user of agent-sandbox keeps user.conf in
 * ~/.config/agent-sandbox/ (sandbox.conf there only when there is no user.conf); without a
 * baseline user.conf means nothing. */
Test(config, agent_baseline_reads_user_conf)
{
        char line[700];
        put(agent_admin, "PRIVATE_TMP=true\n");
        chmod(agent_admin, 0644);
        put(".config/agent-sandbox/user.conf", "HOME_ACCESS=read\n");
        put(".config/agent-sandbox/sandbox.conf", "HOME_ACCESS=restricted\n");
        ok(&res, 0);
        has(&res, "warning=reading agent-sandbox's configuration in");
        snprintf(line, sizeof(line), "HOME_ACCESS=read @%s/.config/agent-sandbox/user.conf:1",
                 home);
        has(&res, line);
        lacks(&res, "agent-sandbox/sandbox.conf");

        /* Control: the same files without the baseline: sandbox.conf, never user.conf. */
        cr_assert_eq(unlink(agent_admin), 0);
        ok(&res, 0);
        snprintf(line, sizeof(line),
                 "HOME_ACCESS=restricted @%s/.config/agent-sandbox/sandbox.conf:1", home);
        has(&res, line);
        lacks(&res, "user.conf");

        /* With the baseline and no user.conf, the sandbox.conf written for a machine without
         * one. */
        put(agent_admin, "PRIVATE_TMP=true\n");
        chmod(agent_admin, 0644);
        snprintf(line, sizeof(line), "%s/.config/agent-sandbox/user.conf", home);
        cr_assert_eq(unlink(line), 0);
        ok(&res, 0);
        snprintf(line, sizeof(line),
                 "HOME_ACCESS=restricted @%s/.config/agent-sandbox/sandbox.conf:1", home);
        has(&res, line);
}

/* agent-sandbox's baseline is held to the same checks as cordon's, and never passed over when
 * it fails them, with or without a good baseline of cordon's beside it. */
Test(config, agent_baseline_checks)
{
        for (int with_cordon = 0; with_cordon < 2; with_cordon++) {
                if (with_cordon) {
                        put(admin, "HOME_ACCESS=read\n");
                        chmod(admin, 0644);
                }
                put(agent_admin, "HOME_ACCESS=read\n");
                chmod(agent_admin, 0664);
                load(&res, 0, CORDON_BACKEND_AUTO, NULL);
                cr_assert_eq(res.r, -EPERM, "%s", res.text);
                has(&res, "writable by group or others");
                has(&res, agent_admin);

                chmod(agent_admin, 0644);
                char dir[400];
                snprintf(dir, sizeof(dir), "%s/agent", root);
                chmod(dir, 0775);
                load(&res, 0, CORDON_BACKEND_AUTO, NULL);
                cr_assert_eq(res.r, -EPERM, "%s", res.text);
                has(&res, "is writable by group or others");
                has(&res, agent_admin);
                chmod(dir, 0755);

                cr_assert_eq(unlink(agent_admin), 0);
                char target[400];
                snprintf(target, sizeof(target), "%s/real.conf", root);
                put(target, "HOME_ACCESS=read\n");
                chmod(target, 0644);
                cr_assert_eq(symlink(target, agent_admin), 0);
                load(&res, 0, CORDON_BACKEND_AUTO, NULL);
                cr_assert_eq(res.r, -EPERM, "%s", res.text);
                has(&res, "symlink");
                cr_assert_eq(unlink(agent_admin), 0);

                /* Not a regular file. */
                cr_assert_eq(mkdir(agent_admin, 0755), 0);
                load(&res, 0, CORDON_BACKEND_AUTO, NULL);
                cr_assert_lt(res.r, 0, "%s", res.text);
                has(&res, agent_admin);
                cr_assert_eq(rmdir(agent_admin), 0);

                if (getuid() == 0) {
                        put(agent_admin, "HOME_ACCESS=read\n");
                        chmod(agent_admin, 0644);
                        cr_assert_eq(chown(agent_admin, 65534, 65534), 0);
                        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
                        cr_assert_eq(res.r, -EPERM, "%s", res.text);
                        has(&res, "belongs to uid 65534");
                        cr_assert_eq(unlink(agent_admin), 0);
                }
        }
}

/* A baseline whose existence cannot be checked (a directory on the way the caller cannot
 * search) refuses: it might be there. */
Test(config, agent_baseline_unknown_refused)
{
        if (getuid() == 0)
                cr_skip_test("root searches every directory");
        put(agent_admin, "HOME_ACCESS=read\n");
        char dir[400];
        snprintf(dir, sizeof(dir), "%s/agent", root);
        chmod(dir, 0);
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        chmod(dir, 0755);
        cr_assert_eq(res.r, -EACCES, "%s", res.text);
        has(&res, "cannot check it");
}

/* Each file's own errors name that file and line, whichever of the two is broken. */
Test(config, malformed_baseline_named)
{
        static const char *const bad[] = {
            "HOME_ACCESS=read\nif then\n",
            "echo oops >&2\n",
            "false\n",
            "ALLOWED_PROJECT_PARENTS=(\"$(echo /srv)\")\n",
            "ALLOWED_PROJECT_PARENTS=\"/srv\"\n",
            "ALLOWED_PROJECT_PARENTS=(srv)\n",
            "HOME_ACCESS=(read)\n",
        };
        static const char *const good = "NETWORK_FILTER_MODE=proxied\n";
        for (int broken = 0; broken < 2; broken++) {
                const char *bad_path = broken ? admin : agent_admin;
                const char *good_path = broken ? agent_admin : admin;
                for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                        put(bad_path, bad[i]);
                        chmod(bad_path, 0644);
                        put(good_path, good);
                        chmod(good_path, 0644);
                        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
                        cr_assert_lt(res.r, 0, "%s accepted:\n%s", bad[i], res.text);
                        has(&res, bad_path);
                        lacks(&res, good_path);
                }
                char line[400];
                put(bad_path, bad[0]);
                load(&res, 0, CORDON_BACKEND_AUTO, NULL);
                snprintf(line, sizeof(line), "%s: line 2", bad_path);
                has(&res, line);
        }
}

/* The test override is refused beside agent-sandbox's baseline too. */
Test(config, override_refused_beside_agent_baseline)
{
        char over[400], var[500];
        snprintf(over, sizeof(over), "%s/override.conf", root);
        put(over, "HOME_ACCESS=read\n");
        chmod(over, 0644);
        snprintf(var, sizeof(var), "CORDON_ADMIN_CONF=%s", over);
        const char *env[] = {var, NULL};
        put(agent_admin, "# the real one\n");
        chmod(agent_admin, 0644);
        load(&res, 0, CORDON_BACKEND_AUTO, env);
        cr_assert_eq(res.r, -EPERM, "%s", res.text);
        has(&res, "never replaces a real baseline");
        has(&res, agent_admin);
}
