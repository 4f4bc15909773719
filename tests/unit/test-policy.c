/* Unit tests for src/lib/policy/policy.c: rule validation on insertion, cordon_policy_validate()
 * and the string tables of the public enums. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "lib/policy/policy.h"
#include "shared/macro.h"
#include "shared/strv.h"
#include "test-helpers.h"

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

TestSuite(policy, .init = setup, .fini = teardown);

static void set_some_env(void)
{
        _cleanup_strv_free_ char **env = STRV_MAKE("PATH=/usr/bin");
        cr_assert_eq(cordon_policy_set_env(p, env), 0);
}

Test(policy, new_has_safe_defaults)
{
        cr_assert(p->process.new_session);
        cr_assert(p->process.no_new_privs);
        cr_assert(p->process.drop_capabilities);
        cr_assert(p->process.die_with_parent);
        cr_assert(p->process.close_fds);
        cr_assert(p->process.pty);
        cr_assert_eq(p->net_mode, CORDON_NET_ISOLATED);
        cr_assert_eq(p->identity.uid, getuid());
        cr_assert_eq(p->identity.gid, getgid());
        cr_assert_eq(p->n_fs, 0);
        cr_assert_null(p->envp);
}

Test(policy, free_accepts_null)
{
        cr_assert_null(cordon_policy_free(NULL));
}

Test(policy, add_fs_stores_copies)
{
        char guest[] = "/usr";
        char host[] = "/usr";
        char origin[] = "test";
        cr_assert_eq(
            cordon_policy_add_fs(p, guest, host, CORDON_ACCESS_RO, CORDON_FS_OPTIONAL, origin), 0);
        guest[1] = host[1] = origin[0] = 'X';
        cr_assert_eq(p->n_fs, 1);
        cr_assert_str_eq(p->fs[0].guest, "/usr");
        cr_assert_str_eq(p->fs[0].host, "/usr");
        cr_assert_str_eq(p->fs[0].origin, "test");
        cr_assert_eq(p->fs[0].access, CORDON_ACCESS_RO);
        cr_assert_eq(p->fs[0].flags, CORDON_FS_OPTIONAL);
}

Test(policy, add_fs_null_origin_is_empty)
{
        cr_assert_eq(cordon_policy_add_fs(p, "/tmp", NULL, CORDON_ACCESS_TMPFS, 0, NULL), 0);
        cr_assert_str_eq(p->fs[0].origin, "");
}

Test(policy, add_fs_rejects_relative_and_non_normalised_guest)
{
        const char *bad[] = {"usr",       "",           "./usr",       "/usr/", "//usr",
                             "/usr//lib", "/usr/./lib", "/usr/../etc", "/."};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                cr_assert_eq(cordon_policy_add_fs(p, bad[i], "/usr", CORDON_ACCESS_RO, 0, "t"),
                             -EINVAL, "guest '%s' must be refused", bad[i]);
        cr_assert_eq(p->n_fs, 0, "nothing is added on failure");
}

Test(policy, add_fs_rejects_bad_arguments)
{
        cr_assert_eq(cordon_policy_add_fs(NULL, "/usr", "/usr", CORDON_ACCESS_RO, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, NULL, "/usr", CORDON_ACCESS_RO, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, "/usr", "/usr", _CORDON_ACCESS_MAX, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, "/usr", "/usr", (enum cordon_access) - 1, 0, "t"),
                     -EINVAL);
        cr_assert_eq(p->n_fs, 0);
}

Test(policy, add_fs_host_rules_per_access)
{
        /* Binds: host optional (NULL remounts in place), absolute when given. */
        cr_assert_eq(cordon_policy_add_fs(p, "/a", "/a", CORDON_ACCESS_RO, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/proc/sys", NULL, CORDON_ACCESS_RO, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/b", "/b", CORDON_ACCESS_RW, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/b2", NULL, CORDON_ACCESS_RW, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/dev/x", "/dev/x", CORDON_ACCESS_DEVICE, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/c", "relative", CORDON_ACCESS_RO, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, "/c", "relative", CORDON_ACCESS_RW, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, "/c", "dev/x", CORDON_ACCESS_DEVICE, 0, "t"), -EINVAL);

        /* COPY: an absolute host file is required. */
        cr_assert_eq(cordon_policy_add_fs(p, "/d", "/etc/gitconfig", CORDON_ACCESS_COPY, 0, "t"),
                     0);
        cr_assert_eq(cordon_policy_add_fs(p, "/d", NULL, CORDON_ACCESS_COPY, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, "/d", "gitconfig", CORDON_ACCESS_COPY, 0, "t"),
                     -EINVAL);

        /* DATA: contents required, any text. SYMLINK: target required, may be relative. */
        cr_assert_eq(cordon_policy_add_fs(p, "/e", "contents\n", CORDON_ACCESS_DATA, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/e", NULL, CORDON_ACCESS_DATA, 0, "t"), -EINVAL);
        cr_assert_eq(cordon_policy_add_fs(p, "/bin", "usr/bin", CORDON_ACCESS_SYMLINK, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/f", NULL, CORDON_ACCESS_SYMLINK, 0, "t"), -EINVAL);

        /* No host for kernel-made filesystems and masks. */
        const enum cordon_access hostless[] = {CORDON_ACCESS_TMPFS, CORDON_ACCESS_MASKED,
                                               CORDON_ACCESS_PROC, CORDON_ACCESS_DEV};
        for (size_t i = 0; i < ELEMENTSOF(hostless); i++) {
                cr_assert_eq(cordon_policy_add_fs(p, "/g", NULL, hostless[i], 0, "t"), 0);
                cr_assert_eq(cordon_policy_add_fs(p, "/g", "/g", hostless[i], 0, "t"), -EINVAL,
                             "%s takes no host path", cordon_access_to_string(hostless[i]));
        }
        cr_assert_eq(p->n_fs, 12);
}

Test(policy, find_fs_returns_last_rule)
{
        cr_assert_eq(cordon_policy_add_fs(p, "/x", "/one", CORDON_ACCESS_RO, 0, "first"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/y", "/y", CORDON_ACCESS_RO, 0, "other"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/x", NULL, CORDON_ACCESS_MASKED, 0, "second"), 0);
        const struct cordon_fs_rule *r = cordon_policy_find_fs(p, "/x");
        cr_assert_not_null(r);
        cr_assert_str_eq(r->origin, "second");
        cr_assert_null(cordon_policy_find_fs(p, "/z"));
        cr_assert_null(cordon_policy_find_fs(p, "/x/y"));
}

Test(policy, validate_needs_environment)
{
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_policy_validate(p, &d), -EINVAL);
        cr_assert(strstr(d.message, "environment"), "message: %s", d.message);
        set_some_env();
        cr_assert_eq(cordon_policy_validate(p, &d), 0);
        cr_assert_eq(cordon_policy_validate(NULL, &d), -EINVAL);
}

Test(policy, validate_accepts_null_diag)
{
        cr_assert_eq(cordon_policy_validate(p, NULL), -EINVAL);
}

Test(policy, validate_refuses_root_rule)
{
        struct cordon_diag d = {0};
        set_some_env();
        cr_assert_eq(cordon_policy_add_fs(p, "/", NULL, CORDON_ACCESS_TMPFS, 0, "my-origin"), 0);
        cr_assert_eq(cordon_policy_validate(p, &d), -EINVAL);
        cr_assert(strstr(d.message, "root"), "message: %s", d.message);
        cr_assert(strstr(d.message, "my-origin"), "message names the origin: %s", d.message);
}

Test(policy, validate_refuses_conflicts)
{
        struct cordon_diag d = {0};
        set_some_env();
        cr_assert_eq(cordon_policy_add_fs(p, "/data", "/data", CORDON_ACCESS_RO, 0, "--ro"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/other", "/other", CORDON_ACCESS_RO, 0, "x"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/data", "/data", CORDON_ACCESS_RW, 0, "--rw"), 0);
        cr_assert_eq(cordon_policy_validate(p, &d), -EINVAL);
        cr_assert(strstr(d.message, "'/data'"), "message: %s", d.message);
        cr_assert(strstr(d.message, "ro (from --ro)"), "message: %s", d.message);
        cr_assert(strstr(d.message, "rw (from --rw)"), "message: %s", d.message);
}

Test(policy, validate_refuses_same_access_different_host)
{
        set_some_env();
        cr_assert_eq(cordon_policy_add_fs(p, "/data", "/a", CORDON_ACCESS_RO, 0, "one"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/data", "/b", CORDON_ACCESS_RO, 0, "two"), 0);
        cr_assert_eq(cordon_policy_validate(p, NULL), -EINVAL);
}

Test(policy, validate_allows_identical_duplicates)
{
        set_some_env();
        cr_assert_eq(cordon_policy_add_fs(p, "/data", "/data", CORDON_ACCESS_RO, 0, "one"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/data", "/data", CORDON_ACCESS_RO, 0, "two"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/t", NULL, CORDON_ACCESS_TMPFS, 0, "one"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/t", NULL, CORDON_ACCESS_TMPFS, 0, "two"), 0);
        cr_assert_eq(cordon_policy_validate(p, NULL), 0);
}

Test(policy, validate_tmp_size_needs_a_tmpfs)
{
        struct cordon_diag d = {0};
        set_some_env();
        cr_assert_eq(cordon_policy_add_fs(p, "/tmp", "/tmp", CORDON_ACCESS_RW, 0, "--rw"), 0);
        cr_assert_eq(cordon_policy_validate(p, &d), 0, "no size, nothing to check");
        p->limits.tmp_size_bytes = 1 << 20;
        cr_assert_eq(cordon_policy_validate(p, &d), -EINVAL, "a size that sizes nothing");
        cr_assert(strstr(d.message, "TMP_SIZE"), "message: %s", d.message);
        cr_assert_eq(cordon_policy_add_fs(p, "/home/u", NULL, CORDON_ACCESS_TMPFS, 0, "home"), 0);
        cr_assert_eq(cordon_policy_validate(p, &d), 0, "%s", d.message);
}

Test(policy, validate_tmp_size_limit)
{
        struct cordon_diag d = {0};
        set_some_env();
        cr_assert_eq(cordon_policy_add_fs(p, "/tmp", NULL, CORDON_ACCESS_TMPFS, 0, "x"), 0);
        p->limits.tmp_size_bytes = CORDON_TMP_SIZE_MAX;
        cr_assert_eq(cordon_policy_validate(p, &d), 0, "%s", d.message);
        p->limits.tmp_size_bytes = UINT64_MAX;
        cr_assert_eq(cordon_policy_validate(p, &d), -EINVAL);
        cr_assert(strstr(d.message, "TMP_SIZE"), "message: %s", d.message);
}

Test(policy, validate_mask_overrides_anything)
{
        set_some_env();
        cr_assert_eq(
            cordon_policy_add_fs(p, "/home/u/.ssh", "/home/u/.ssh", CORDON_ACCESS_RW, 0, "--rw"),
            0);
        cr_assert_eq(
            cordon_policy_add_fs(p, "/home/u/.ssh", NULL, CORDON_ACCESS_MASKED, 0, "built-in"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/etc/passwd", NULL, CORDON_ACCESS_MASKED, 0, "x"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/etc/passwd", "data", CORDON_ACCESS_DATA, 0, "y"), 0);
        cr_assert_eq(cordon_policy_validate(p, NULL), 0);
}

Test(policy, set_cwd)
{
        cr_assert_eq(cordon_policy_set_cwd(p, "relative"), -EINVAL);
        cr_assert_null(p->cwd);
        cr_assert_eq(cordon_policy_set_cwd(p, "/work"), 0);
        cr_assert_str_eq(p->cwd, "/work");
        cr_assert_eq(cordon_policy_set_cwd(p, "/other"), 0);
        cr_assert_str_eq(p->cwd, "/other");
        cr_assert_eq(cordon_policy_set_cwd(p, "x"), -EINVAL);
        cr_assert_str_eq(p->cwd, "/other", "a refused value leaves the old one");
}

Test(policy, set_env_copies_and_replaces)
{
        char a[] = "A=1", b[] = "B=2";
        char *env1[] = {a, b, NULL};
        cr_assert_eq(cordon_policy_set_env(p, env1), 0);
        a[0] = 'X';
        cr_assert_str_eq(p->envp[0], "A=1");
        cr_assert_str_eq(p->envp[1], "B=2");
        cr_assert_null(p->envp[2]);

        _cleanup_strv_free_ char **env2 = STRV_MAKE("C=3");
        cr_assert_eq(cordon_policy_set_env(p, env2), 0);
        cr_assert_str_eq(p->envp[0], "C=3");
        cr_assert_null(p->envp[1]);

        cr_assert_eq(cordon_policy_set_env(p, NULL), 0, "NULL sets an empty environment");
        cr_assert_not_null(p->envp);
        cr_assert_null(p->envp[0]);
}

Test(policy, set_hostname_limits)
{
        char long_name[66];
        memset(long_name, 'h', 65);
        long_name[65] = 0;
        cr_assert_eq(cordon_policy_set_hostname(p, ""), -EINVAL);
        cr_assert_eq(cordon_policy_set_hostname(p, long_name), -EINVAL);
        cr_assert_null(p->identity.hostname);
        long_name[64] = 0;
        cr_assert_eq(cordon_policy_set_hostname(p, long_name), 0);
        cr_assert_eq(strlen(p->identity.hostname), 64);
        cr_assert_eq(cordon_policy_set_hostname(p, "cordon"), 0);
        cr_assert_str_eq(p->identity.hostname, "cordon");
}

Test(policy, set_net_mode)
{
        cr_assert_eq(cordon_policy_set_net_mode(p, CORDON_NET_OPEN, "--net"), 0);
        cr_assert_eq(p->net_mode, CORDON_NET_OPEN);
        cr_assert_str_eq(p->net_mode_origin, "--net");
        cr_assert_eq(cordon_policy_set_net_mode(p, CORDON_NET_PROXIED, NULL), 0);
        cr_assert_eq(p->net_mode, CORDON_NET_PROXIED);
        cr_assert_str_eq(p->net_mode_origin, "");
        cr_assert_eq(
            cordon_policy_set_net_mode(p, (enum cordon_net_mode)(CORDON_NET_ISOLATED + 1), "bad"),
            -EINVAL);
        cr_assert_eq(p->net_mode, CORDON_NET_PROXIED, "a refused mode leaves the old one");
}

Test(policy, access_strings)
{
        static const char *const expected[_CORDON_ACCESS_MAX] = {
            [CORDON_ACCESS_RO] = "ro",         [CORDON_ACCESS_RW] = "rw",
            [CORDON_ACCESS_TMPFS] = "tmpfs",   [CORDON_ACCESS_MASKED] = "masked",
            [CORDON_ACCESS_DEVICE] = "device", [CORDON_ACCESS_COPY] = "copy",
            [CORDON_ACCESS_DATA] = "data",     [CORDON_ACCESS_SYMLINK] = "symlink",
            [CORDON_ACCESS_PROC] = "proc",     [CORDON_ACCESS_DEV] = "dev",
        };
        for (int a = 0; a < _CORDON_ACCESS_MAX; a++) {
                cr_assert_not_null(cordon_access_to_string((enum cordon_access)a));
                cr_assert_str_eq(cordon_access_to_string((enum cordon_access)a), expected[a]);
        }
        cr_assert_null(cordon_access_to_string(_CORDON_ACCESS_MAX));
        cr_assert_null(cordon_access_to_string((enum cordon_access) - 1));
}

Test(policy, access_is_bind)
{
        for (int a = 0; a < _CORDON_ACCESS_MAX; a++) {
                bool expected =
                    a == CORDON_ACCESS_RO || a == CORDON_ACCESS_RW || a == CORDON_ACCESS_DEVICE;
                cr_assert_eq(cordon_access_is_bind((enum cordon_access)a), expected, "%s",
                             cordon_access_to_string((enum cordon_access)a));
        }
}

Test(policy, net_mode_strings_round_trip)
{
        const char *names[] = {"open", "filtered", "proxied", "isolated"};
        for (int m = CORDON_NET_OPEN; m <= CORDON_NET_ISOLATED; m++) {
                cr_assert_str_eq(cordon_net_mode_to_string((enum cordon_net_mode)m), names[m]);
                cr_assert_eq(cordon_net_mode_from_string(names[m]), m);
        }
        cr_assert_null(cordon_net_mode_to_string((enum cordon_net_mode)(CORDON_NET_ISOLATED + 1)));
        cr_assert_eq(cordon_net_mode_from_string("Isolated"), -EINVAL);
        cr_assert_eq(cordon_net_mode_from_string(""), -EINVAL);
        cr_assert_eq(cordon_net_mode_from_string("isolated "), -EINVAL);
}

Test(policy, home_access_strings_round_trip)
{
        const char *names[] = {"tmpwrite", "restricted", "read", "write"};
        for (int m = CORDON_HOME_TMPWRITE; m <= CORDON_HOME_WRITE; m++) {
                cr_assert_str_eq(cordon_home_access_to_string((enum cordon_home_access)m),
                                 names[m]);
                cr_assert_eq(cordon_home_access_from_string(names[m]), m);
        }
        cr_assert_null(
            cordon_home_access_to_string((enum cordon_home_access)(CORDON_HOME_WRITE + 1)));
        cr_assert_eq(cordon_home_access_from_string("rw"), -EINVAL);
        cr_assert_eq(cordon_home_access_from_string("READ"), -EINVAL);
        cr_assert_eq(cordon_home_access_from_string(""), -EINVAL);
}

/* The mount view of a guest path: the deepest rule at or above it decides, a mask anywhere
 * above it hides it. */
Test(policy, guest_shown)
{
        cr_assert_eq(cordon_policy_add_fs(p, "/usr", "/usr", CORDON_ACCESS_RO, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/home/u", NULL, CORDON_ACCESS_TMPFS, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/home/u/.npm/bin", "/home/u/.npm/bin",
                                          CORDON_ACCESS_RO, 0, "t"),
                     0);
        cr_assert_eq(
            cordon_policy_add_fs(p, "/home/u/proj", "/home/u/proj", CORDON_ACCESS_RW, 0, "t"), 0);
        cr_assert_eq(
            cordon_policy_add_fs(p, "/home/u/proj/.ssh", NULL, CORDON_ACCESS_MASKED, 0, "t"), 0);
        cr_assert_eq(cordon_policy_add_fs(p, "/bin", "usr/bin", CORDON_ACCESS_SYMLINK, 0, "t"), 0);
        cr_assert_eq(cordon_policy_guest_shown(p, "/usr/bin"), 1);
        cr_assert_eq(cordon_policy_guest_shown(p, "/home/u/.npm/bin"), 1);
        cr_assert_eq(cordon_policy_guest_shown(p, "/home/u/.npm"), 0, "the tmpfs home");
        cr_assert_eq(cordon_policy_guest_shown(p, "/home/u/proj/src"), 2);
        cr_assert_eq(cordon_policy_guest_shown(p, "/home/u/proj/.ssh/id"), -1);
        cr_assert_eq(cordon_policy_guest_shown(p, "/opt/x/bin"), 0, "no rule");
        cr_assert_eq(cordon_policy_guest_shown(p, "/bin"), 0, "a link: its target decides");
}
