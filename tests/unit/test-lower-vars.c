/* The variables lower-vars.c and lower-modules.c lower: SANDBOX_NPROC_LIMIT, PRIVATE_IPC, the
 * landlock refusals, BIND_DEV_PTS's shim, the held Slurm variables' notes, SANDBOX_PROJECT_DIR,
 * SANDBOX_MODULES without Lmod, and BLOCKED_FILES failures all named. Fixture in
 * lower-fixture.h. */
#include "lower-fixture.h"
#include "lib/resolve/lower-internal.h"

TestSuite(lower_vars, .init = setup, .fini = teardown);

static void set(const char *name, const char *value)
{
        cr_assert_eq(cordon_settings_set(&s, name, value, "test", &diag), 0, "%s=%s: %s", name,
                     value, diag.message);
}

Test(lower_vars, dev_pts_shim_by_kernel)
{
        cr_assert(cordon_lower_dev_pts_shim_applies("4.19.0-26-amd64"));
        cr_assert(cordon_lower_dev_pts_shim_applies("5.3.18"));
        cr_assert_not(cordon_lower_dev_pts_shim_applies("5.4.0"));
        cr_assert_not(cordon_lower_dev_pts_shim_applies("6.18.44-fc"));
        cr_assert_not(cordon_lower_dev_pts_shim_applies("garbage"));
        cr_assert_not(cordon_lower_dev_pts_shim_applies(NULL));
}

Test(lower_vars, process_fields)
{
        lower_ok();
        cr_assert_eq(p->nproc_limit, 0);
        cr_assert_not(p->host_ipc);
        cr_assert_not(p->private_ipc_required, "a built-in default is not a request");
        cr_assert_not(p->filter_passwd_required);
        cr_assert_not(p->cleanup_materialized);
        set("SANDBOX_NPROC_LIMIT", "64");
        set("PRIVATE_IPC", "false");
        set("FILTER_PASSWD", "true");
        set("CLEANUP_MATERIALIZED_BLOCKED_FILES", "1");
        lower_ok();
        cr_assert_eq(p->nproc_limit, 64);
        cr_assert(p->host_ipc);
        cr_assert(rule("/dev/shm", CORDON_ACCESS_RW), "the host's /dev/shm is shared");
        cr_assert_not(p->private_ipc_required);
        cr_assert(p->filter_passwd_required);
        cr_assert(p->cleanup_materialized);
}

Test(lower_vars, notes_for_bind_dev_pts_and_slurm_variables)
{
        lower_ok();
        cr_assert_not(warned("BIND_DEV_PTS"));
        set("BIND_DEV_PTS", "true");
        set("SLURM_SCOPE", "session");
        set("CHAPERON_LOG_LEVEL", "debug");
        lower_ok();
        cr_assert(warned("BIND_DEV_PTS (from test) is deprecated"));
        /* Enforced by the chaperon: no note, the values reach the policy. */
        cr_assert_not(warned("not active yet"));
        cr_assert_eq(p->slurm.scope, 0);
        cr_assert_eq(p->slurm.log_level, CORDON_CHAPERON_DEBUG);
}

Test(lower_vars, project_dir_inside)
{
        lower_ok();
        cr_assert_str_eq(env_get("SANDBOX_PROJECT_DIR"), project);
        cr_assert_str_eq(env_get("SANDBOX_ACTIVE"), "1");
}

Test(lower_vars, modules_without_lmod_are_a_note)
{
        if (access("/etc/profile.d/lmod.sh", F_OK) == 0 ||
            access("/usr/share/lmod/lmod/init/sh", F_OK) == 0 ||
            access("/app/lmod/lmod/init/sh", F_OK) == 0)
                cr_skip_test("Lmod is installed here");
        set("SANDBOX_MODULES", "gcc/12");
        lower_ok();
        cr_assert(warned("SANDBOX_MODULES (gcc/12, from test): Lmod was not found"));
}

Test(lower_vars, every_blocked_file_that_cannot_be_protected_is_named)
{
        write_file(fmt("%s/f1", project), "");
        write_file(fmt("%s/f2", project), "");
        set("BLOCKED_FILES", fmt("%s/f1/x", project));
        set("BLOCKED_FILES", fmt("%s/fine.md", project));
        set("BLOCKED_FILES", fmt("%s/f2/y", project));
        cr_assert_eq(lower(), -ENOTDIR);
        cr_assert(strstr(diag.message, "cannot protect 2 BLOCKED_FILES entries"), "%s",
                  diag.message);
        cr_assert(strstr(diag.message, "f1/x' (from test): Not a directory"), "%s", diag.message);
        cr_assert(strstr(diag.message, "f2/y' (from test): Not a directory"), "%s", diag.message);
}
