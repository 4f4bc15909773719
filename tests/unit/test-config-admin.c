/* The admin baselines of sandbox.conf (src/lib/config/config-files.c finds them,
 * config-load.c keeps their snapshot): the ownership and malformed-file checks, the test
 * override, and agent-sandbox's baseline read before cordon's own, each against a stand-in path
 * in a temporary directory (config-load-fixture.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/capability.h>
#include <sys/syscall.h>
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

/* A load without extra environment fails with @err, its message naming @why and @file. */
static void refused(int err, const char *why, const char *file)
{
        load(&res, 0, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res.r, err, "%s", res.text);
        has(&res, why);
        has(&res, file);
}

/* ---- cordon's admin baseline ---- */

/* The test override is honoured only without a real baseline, at either path. */
Test(config, admin_override_refused_beside_a_real_baseline)
{
        char over[400], var[500];
        snprintf(over, sizeof(over), "%s/override.conf", root);
        put_admin(over, "HOME_ACCESS=read\n");
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

        const char *const real[] = {admin, agent_admin};
        for (size_t i = 0; i < 2; i++) {
                put_admin(real[i], "# the real one\n");
                load(&res, 0, CORDON_BACKEND_AUTO, env);
                cr_assert_eq(res.r, -EPERM, "%s", res.text);
                has(&res, "never replaces a real baseline");
                has(&res, real[i]);
                cr_assert_eq(unlink(real[i]), 0);
        }
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
                put_admin(admin, bad[i]);
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
        put_admin(agent_admin, "HOME_ACCESS=read\nBLOCKED_ENV_VARS+=(AGENT_VAR)\n"
                               "NETWORK_FILTER_MODE=proxied\nPRIVATE_TMP=true\n");
        put_admin(admin, "HOME_ACCESS=restricted\nBLOCKED_ENV_VARS+=(CORDON_VAR)\n");
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
        put_admin(agent_admin, "# nothing here\n");
        put_admin(admin, "HOME_ACCESS=read\n");
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
        put_admin(agent_admin, "PRIVATE_TMP=true\n");
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
        put_admin(agent_admin, "PRIVATE_TMP=true\n");
        snprintf(line, sizeof(line), "%s/.config/agent-sandbox/user.conf", home);
        cr_assert_eq(unlink(line), 0);
        ok(&res, 0);
        snprintf(line, sizeof(line),
                 "HOME_ACCESS=restricted @%s/.config/agent-sandbox/sandbox.conf:1", home);
        has(&res, line);
}

/* Baseline @path (either stand-in) refuses when it is group-writable, in a writable directory,
 * a symlink, not a regular file or (as root) someone else's: never passed over, whether or not
 * the other baseline @other is there and good. */
static void baseline_checks(const char *path, const char *other)
{
        char dir[400], target[400];
        snprintf(dir, sizeof(dir), "%s", path);
        *strrchr(dir, '/') = 0;
        snprintf(target, sizeof(target), "%s/real.conf", root);
        put_admin(target, "HOME_ACCESS=read\n");
        for (int with_other = 0; with_other < 2; with_other++) {
                if (with_other)
                        put_admin(other, "HOME_ACCESS=read\n");
                put(path, "HOME_ACCESS=read\n");
                chmod(path, 0664);
                refused(-EPERM, "is writable by group or others (mode 0664)", path);
                chmod(path, 0644);

                chmod(dir, 0777);
                refused(-EPERM, "is writable by group or others (mode 0777)", dir);
                chmod(dir, 0755);

                cr_assert_eq(unlink(path), 0);
                cr_assert_eq(symlink(target, path), 0);
                refused(-EPERM, "symlink", path);
                cr_assert_eq(unlink(path), 0);

                cr_assert_eq(mkdir(path, 0755), 0);
                refused(-EPERM, "not a regular file", path);
                cr_assert_eq(rmdir(path), 0);

                if (getuid() == 0) {
                        put_admin(path, "HOME_ACCESS=read\n");
                        cr_assert_eq(chown(path, 65534, 65534), 0);
                        refused(-EPERM, "belongs to uid 65534", path);
                        cr_assert_eq(unlink(path), 0);
                }
        }
        cr_assert_eq(unlink(other), 0);
}

Test(config, admin_baseline_checks)
{
        baseline_checks(admin, agent_admin);
}

/* agent-sandbox's baseline is held to the same checks as cordon's. */
Test(config, agent_baseline_checks)
{
        baseline_checks(agent_admin, admin);
}

/* A baseline whose existence cannot be checked (a directory on the way the caller cannot
 * search) refuses: it might be there. */
Test(config, agent_baseline_unknown_refused)
{
        /* Root searches every directory by CAP_DAC_READ_SEARCH and CAP_DAC_OVERRIDE: this test's
         * own process (Criterion forks one a test) gives them up, as a user never had them. */
        if (getuid() == 0) {
                struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
                struct __user_cap_data_struct d[2];
                cr_assert_eq(syscall(SYS_capget, &h, d), 0);
                d[0].effective &= ~((1U << CAP_DAC_READ_SEARCH) | (1U << CAP_DAC_OVERRIDE));
                cr_assert_eq(syscall(SYS_capset, &h, d), 0);
        }
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
                        put_admin(bad_path, bad[i]);
                        put_admin(good_path, good);
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

/* ---- the caller's admin profile (cordon_settings_load_config_with_admin()) ---- */

/* The profile is read after both baselines as one more admin file: it tightens them, its values
 * are in the admin snapshot, and what it assigns is the admin's; the user file is user.conf. */
Test(config, admin_profile_after_the_baselines)
{
        char profile[400], line[700];
        snprintf(profile, sizeof(profile), "%s/slurm.d/strict.conf", root);
        put_admin(agent_admin, "HOME_ACCESS=read\n");
        put_admin(admin, "BLOCKED_ENV_VARS+=(CORDON_VAR)\n");
        put_admin(profile, "HOME_ACCESS=restricted\nNETWORK_FILTER_MODE=isolated\n");
        put(".config/cordon/user.conf", "NETWORK_FILTER_MODE=open\n");
        admin_profile = profile;
        ok(&res, 0);
        char a[700], p[700];
        snprintf(a, sizeof(a), "file=admin %s\n", admin);
        snprintf(p, sizeof(p), "file=admin %s\n", profile);
        before(&res, a, p);
        before(&res, p, "file=user ");
        snprintf(line, sizeof(line), "HOME_ACCESS=restricted @%s:1", profile);
        in_admin(&res, line);
        snprintf(line, sizeof(line), "NETWORK_FILTER_MODE=isolated @%s:2", profile);
        in_admin(&res, line);
        in_admin(&res, "admin_set=NETWORK_FILTER_MODE");
        in_admin(&res, "admin_set=BLOCKED_ENV_VARS");
        snprintf(line, sizeof(line), "NETWORK_FILTER_MODE=open @%s/.config/cordon/user.conf:1",
                 home);
        has(&res, line);

        /* Alone, without a baseline, it is the whole admin layer. */
        cr_assert_eq(unlink(admin), 0);
        cr_assert_eq(unlink(agent_admin), 0);
        ok(&res, 0);
        snprintf(line, sizeof(line), "HOME_ACCESS=restricted @%s:1", profile);
        in_admin(&res, line);
}

/* A missing profile is an error naming it, never a run without it; and it is held to the
 * baselines' checks. */
Test(config, admin_profile_missing_or_unsafe_refused)
{
        char profile[400];
        snprintf(profile, sizeof(profile), "%s/slurm.d/nosuch.conf", root);
        put_admin(admin, "HOME_ACCESS=read\n");
        admin_profile = profile;
        refused(-ENOENT, "admin profile: ", profile);
        has(&res, "no such file");

        snprintf(profile, sizeof(profile), "%s/slurm.d/open.conf", root);
        put_admin(profile, "HOME_ACCESS=read\n");
        cr_assert_eq(chmod(profile, 0666), 0);
        refused(-EPERM, "writable by group or others", profile);
        cr_assert_eq(chmod(profile, 0644), 0);
        ok(&res, 0);

        char link[400];
        snprintf(link, sizeof(link), "%s/slurm.d/link.conf", root);
        cr_assert_eq(symlink(profile, link), 0);
        admin_profile = link;
        refused(-EPERM, "a symlink", link);

        admin_profile = "slurm.d/open.conf";
        refused(-EINVAL, "not an absolute path", "slurm.d/open.conf");
}
