/* Unit tests for src/lib/policy/policy-path.c: cordon_policy_describe_path() on hand-made
 * policies — the rule that wins in the ns backend's mount order (masks last, deeper binds after
 * shallower ones, a missing optional bind skipped), the view, the protection inside a writable
 * directory, the setting behind the rule and the fix. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/policy.h"
#include "shared/macro.h"

static struct cordon_policy *p;

static void setup(void)
{
        p = cordon_policy_new();
        cr_assert_not_null(p);
}

static void teardown(void)
{
        p = cordon_policy_free(p);
}

TestSuite(policy_path, .init = setup, .fini = teardown);

static void add(const char *guest, const char *host, enum cordon_access access, unsigned flags,
                const char *origin)
{
        cr_assert_eq(cordon_policy_add_fs(p, guest, host, access, flags, origin), 0, "%s", guest);
}

static struct cordon_path_info describe(const char *path, enum cordon_backend backend)
{
        struct cordon_path_info info;
        memset(&info, 0x55, sizeof(info));
        cr_assert_eq(cordon_policy_describe_path(p, path, backend, &info), 0, "%s", path);
        return info;
}

/* A scratch home as resolve makes it, with the facts it records. */
static void scratch_home(void)
{
        p->home_dir = strdup("/home/u");
        cr_assert_not_null(p->home_dir);
        p->home_access = CORDON_HOME_TMPWRITE;
        add("/usr", "/usr", CORDON_ACCESS_RO, 0, "built-in default");
        add("/home/u", NULL, CORDON_ACCESS_TMPFS, 0, "built-in default");
}

Test(policy_path, refuses_what_is_not_a_normalised_absolute_path)
{
        struct cordon_path_info info;
        cr_assert_eq(cordon_policy_describe_path(p, "src/lib", CORDON_BACKEND_NS, &info), -EINVAL);
        cr_assert_eq(cordon_policy_describe_path(p, "/a/../b", CORDON_BACKEND_NS, &info), -EINVAL);
        cr_assert_eq(cordon_policy_describe_path(p, "/a/", CORDON_BACKEND_NS, &info), -EINVAL);
        cr_assert_eq(cordon_policy_describe_path(p, NULL, CORDON_BACKEND_NS, &info), -EINVAL);
        cr_assert_eq(cordon_policy_describe_path(NULL, "/a", CORDON_BACKEND_NS, &info), -EINVAL);
}

/* No rule at or above it: the root starts empty, and a read-only bind would show it. */
Test(policy_path, absent_without_a_rule)
{
        add("/usr", "/usr", CORDON_ACCESS_RO, 0, "built-in default");
        struct cordon_path_info i = describe("/opt/tool", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_ABSENT);
        cr_assert_eq(i.rule, SIZE_MAX);
        cr_assert_null(i.rule_path);
        cr_assert_null(i.origin);
        cr_assert_not(i.protected_in_writable);
        cr_assert_str_eq(i.variable, "");
        cr_assert_str_eq(i.fix_variable, "READONLY_MOUNTS");
        cr_assert_str_eq(i.fix_value, "/opt/tool");
}

/* Below the scratch home: hidden by HOME_ACCESS, whatever set it; --ro shows it. The home
 * itself is the sandbox's own directory, nothing to fix. */
Test(policy_path, hidden_by_the_scratch_home)
{
        scratch_home();
        struct cordon_path_info i = describe("/home/u/src/lib", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_HIDDEN);
        cr_assert_eq(i.rule, 1);
        cr_assert_str_eq(i.rule_path, "/home/u");
        cr_assert_str_eq(i.origin, "built-in default");
        cr_assert_str_eq(i.variable, "HOME_ACCESS");
        cr_assert_str_eq(i.value, "tmpwrite");
        cr_assert_str_eq(i.fix_variable, "READONLY_MOUNTS");
        cr_assert_str_eq(i.fix_value, "/home/u/src/lib");

        i = describe("/home/u", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_SANDBOX);
        cr_assert_str_eq(i.variable, "HOME_ACCESS");
        cr_assert_str_eq(i.fix_variable, "");

        /* The same under the landlock backend, which grants nothing there. */
        cr_assert_eq(describe("/home/u/src/lib", CORDON_BACKEND_LANDLOCK).view, CORDON_PATH_HIDDEN);
        /* A path that only starts like the home is not in it. */
        cr_assert_eq(describe("/home/uu", CORDON_BACKEND_NS).view, CORDON_PATH_ABSENT);
}

/* A mask is mounted after every bind: it wins over a deeper bind added after it, and offers
 * no flag (its origin's item is what lifts it). */
Test(policy_path, a_mask_wins_and_offers_no_fix)
{
        scratch_home();
        add("/home/u/.ssh", NULL, CORDON_ACCESS_MASKED, 0, "built-in default");
        add("/home/u/.ssh/known_hosts", "/home/u/.ssh/known_hosts", CORDON_ACCESS_RO, 0, "--ro");
        struct cordon_path_info i = describe("/home/u/.ssh/known_hosts", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_HIDDEN);
        cr_assert_str_eq(i.rule_path, "/home/u/.ssh");
        cr_assert_str_eq(i.variable, "");
        cr_assert_str_eq(i.fix_variable, "");
        cr_assert_str_eq(i.fix_value, "");
}

/* Binds by depth: a deeper bind earlier in the policy still lies over a shallower later one;
 * of two rules at one path the later wins. */
Test(policy_path, mount_order_by_depth_then_insertion)
{
        add("/srv/data/out", "/srv/data/out", CORDON_ACCESS_RW, 0, "--rw");
        add("/srv", "/srv", CORDON_ACCESS_RO, 0, "--ro");
        struct cordon_path_info i = describe("/srv/data/out/x", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_READ_WRITE);
        cr_assert_eq(i.rule, 0);
        cr_assert_eq(describe("/srv/data", CORDON_BACKEND_NS).view, CORDON_PATH_READ_ONLY);
        cr_assert_eq(describe("/srv/data", CORDON_BACKEND_NS).rule, 1);
        cr_assert_lt(cordon_policy_fs_order(p, 1, 0), 0, "the shallower one is mounted first");
        cr_assert_gt(cordon_policy_fs_order(p, 0, 1), 0);
}

/* An optional bind whose host path is missing is skipped: the tmpfs above it decides. */
Test(policy_path, a_missing_optional_bind_is_skipped)
{
        add("/opt", NULL, CORDON_ACCESS_TMPFS, 0, "test");
        add("/opt/tool", "/nonexistent/cordon-test/tool", CORDON_ACCESS_RO, CORDON_FS_OPTIONAL,
            "test");
        struct cordon_path_info i = describe("/opt/tool/bin", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_HIDDEN);
        cr_assert_eq(i.rule, 0);
        cr_assert_str_eq(i.fix_variable, "READONLY_MOUNTS");
        cr_assert_str_eq(i.fix_value, "/opt/tool/bin");
        /* An origin that names no variable gives none. */
        cr_assert_str_eq(i.variable, "");
}

/* A read-only file inside a writable directory, kept by a switch: the switch off lifts it. The
 * landlock backend leaves an ns-only rule out, and the directory's grant decides. */
Test(policy_path, protected_in_a_writable_directory)
{
        add("/work/proj", "/work/proj", CORDON_ACCESS_RW, 0, "working directory");
        add("/work/proj/.git/config", "/work/proj/.git/config", CORDON_ACCESS_RO, CORDON_FS_NS_ONLY,
            "PROTECT_GIT_CONFIG");
        struct cordon_path_info i = describe("/work/proj/.git/config", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_READ_ONLY);
        cr_assert(i.protected_in_writable);
        cr_assert_str_eq(i.variable, "PROTECT_GIT_CONFIG");
        cr_assert_str_eq(i.value, "");
        cr_assert_str_eq(i.fix_variable, "PROTECT_GIT_CONFIG");
        cr_assert_str_eq(i.fix_value, "false");

        i = describe("/work/proj/.git/config", CORDON_BACKEND_LANDLOCK);
        cr_assert_eq(i.view, CORDON_PATH_READ_WRITE);
        cr_assert_not(i.protected_in_writable);
        cr_assert_str_eq(i.fix_variable, "");

        /* The project itself is writable, nothing protected. */
        i = describe("/work/proj/src/main.c", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_READ_WRITE);
        cr_assert_not(i.protected_in_writable);
        cr_assert_str_eq(i.variable, "");
}

/* A copy inside a writable directory is protected too (a rename over it fails); a read-only
 * system directory is not: nothing writable lies around it. */
Test(policy_path, a_copy_is_protected_a_system_directory_is_not)
{
        scratch_home();
        add("/home/u/.claude/settings.json", "/home/u/.claude/settings.json", CORDON_ACCESS_COPY, 0,
            "profile claude (<built-in>/claude/profile:33)");
        struct cordon_path_info i = describe("/home/u/.claude/settings.json", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_COPY);
        cr_assert(i.protected_in_writable, "the scratch home is writable around it");
        cr_assert_str_eq(i.variable, "");
        cr_assert_str_eq(i.fix_variable, "");

        i = describe("/usr/bin/env", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_READ_ONLY);
        cr_assert_not(i.protected_in_writable);
        cr_assert_str_eq(i.fix_variable, "");
}

/* The variable an origin starts with, and its value after '='. */
Test(policy_path, origin_names_the_variable)
{
        add("/etc", "/etc", CORDON_ACCESS_RO, 0, "built-in default");
        add("/etc/resolv.conf", "nameserver 127.0.0.53\n", CORDON_ACCESS_DATA, 0,
            "NETWORK_FILTER_MODE=filtered");
        add("/tmp", NULL, CORDON_ACCESS_TMPFS, 0, "PRIVATE_TMP");
        add("/etc/npmrc", "", CORDON_ACCESS_DATA, 0, "TOOL_CONFIG_COPIES without _auth");
        add("/etc/x", "", CORDON_ACCESS_DATA, 0, "NOT_A_VARIABLE_OF_CORDON");
        struct cordon_path_info i = describe("/etc/resolv.conf", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_SANDBOX);
        cr_assert_str_eq(i.variable, "NETWORK_FILTER_MODE");
        cr_assert_str_eq(i.value, "filtered");
        cr_assert_not(i.protected_in_writable, "/etc is read-only around it");

        i = describe("/tmp/build/out.o", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_HIDDEN);
        cr_assert_str_eq(i.variable, "PRIVATE_TMP");
        cr_assert_str_eq(i.fix_value, "/tmp/build/out.o");

        cr_assert_str_eq(describe("/etc/npmrc", CORDON_BACKEND_NS).variable, "TOOL_CONFIG_COPIES");
        cr_assert_str_eq(describe("/etc/x", CORDON_BACKEND_NS).variable, "");
}

/* A configuration copy on the scratch home's tmpfs is a writable file of the sandbox's own (the
 * ns backend makes it there, cordon_policy_on_own_tmpfs()); in a read-only directory, or on a
 * sealed tmpfs, it is a read-only generated file. */
Test(policy_path, a_configuration_copy_is_writable_on_the_sandboxs_own_tmpfs)
{
        scratch_home();
        add("/home/u/.config/git", "/home/u/.config/git", CORDON_ACCESS_RO, 0, "built-in default");
        add("/tmp", "/tmp", CORDON_ACCESS_RW, 0, "PRIVATE_TMP");
        add("/home/u/.gitconfig", "[user]\n", CORDON_ACCESS_DATA, CORDON_FS_CONFIG_COPY,
            "TOOL_CONFIG_COPIES");
        add("/home/u/.config/git/config", "[user]\n", CORDON_ACCESS_DATA, CORDON_FS_CONFIG_COPY,
            "TOOL_CONFIG_COPIES");
        add("/tmp/.cordon-config-gitconfig", "[user]\n", CORDON_ACCESS_DATA, CORDON_FS_CONFIG_COPY,
            "TOOL_CONFIG_COPIES");
        cr_assert(cordon_policy_on_own_tmpfs(p, p->n_fs - 3));
        cr_assert_not(cordon_policy_on_own_tmpfs(p, p->n_fs - 2), "a read-only directory");
        cr_assert_not(cordon_policy_on_own_tmpfs(p, p->n_fs - 1), "the host's /tmp");
        struct cordon_path_info i = describe("/home/u/.gitconfig", CORDON_BACKEND_NS);
        cr_assert_eq(i.view, CORDON_PATH_COPY);
        cr_assert_str_eq(i.variable, "TOOL_CONFIG_COPIES");
        cr_assert_eq(describe("/home/u/.config/git/config", CORDON_BACKEND_NS).view,
                     CORDON_PATH_SANDBOX);
        cr_assert_eq(describe("/tmp/.cordon-config-gitconfig", CORDON_BACKEND_NS).view,
                     CORDON_PATH_SANDBOX);
        /* The landlock backend has no such file there: the home's tmpfs decides (hidden). */
        cr_assert_eq(describe("/home/u/.gitconfig", CORDON_BACKEND_LANDLOCK).view,
                     CORDON_PATH_HIDDEN);
}

Test(policy_path, a_configuration_copy_on_a_sealed_tmpfs_or_over_a_bind_stays_read_only)
{
        p->home_dir = strdup("/home/u");
        cr_assert_not_null(p->home_dir);
        add("/home/u", NULL, CORDON_ACCESS_TMPFS, CORDON_FS_SEAL, "built-in default");
        add("/home/u/.npmrc", "x=1\n", CORDON_ACCESS_DATA, CORDON_FS_CONFIG_COPY,
            "TOOL_CONFIG_COPIES");
        cr_assert_not(cordon_policy_on_own_tmpfs(p, p->n_fs - 1), "sealed read-only");
        add("/srv", NULL, CORDON_ACCESS_TMPFS, 0, "built-in default");
        add("/srv/.gitconfig", "/srv/.gitconfig", CORDON_ACCESS_RO, 0, "--ro");
        add("/srv/.gitconfig", NULL, CORDON_ACCESS_MASKED, 0, "TOOL_CONFIG_COPIES");
        add("/srv/.gitconfig", "[user]\n", CORDON_ACCESS_DATA, CORDON_FS_CONFIG_COPY,
            "TOOL_CONFIG_COPIES");
        cr_assert_not(cordon_policy_on_own_tmpfs(p, p->n_fs - 1), "a bind is there first");
        cr_assert_eq(describe("/srv/.gitconfig", CORDON_BACKEND_NS).view, CORDON_PATH_SANDBOX);
}
