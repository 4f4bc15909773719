/* The SPANK plugin's pure part (src/slurm/spank/spank-args.c): every refusal of plugstack.conf's
 * arguments with the argument named, the mandatory partitions, the profile and network names,
 * the profile's path and the difference of two environments. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "shared/macro.h"
#include "shared/strv.h"
#include "slurm/spank/spank-args.h"
#include "test-helpers.h"

static struct cordon_spank_conf conf;
static char err[512];

static void fini(void)
{
        cordon_spank_conf_clear(&conf);
}

TestSuite(spank_args, .fini = fini);

static int parse(char **av)
{
        err[0] = 0;
        return cordon_spank_conf_parse(&conf, (int)strv_length(av), av, err, sizeof(err));
}

Test(spank_args, policy_dir_and_enforce)
{
        cr_assert_eq(parse(STRV_MAKE("policy_dir=/etc/cordon/slurm.d/",
                                     "enforce=partition:secure,gpu", "enforce=partition:gpu,x.y")),
                     0, "%s", err);
        cr_assert_str_eq(conf.policy_dir, "/etc/cordon/slurm.d");
        cr_assert_eq(strv_length(conf.enforce), 3);
        cr_assert_str_eq(conf.enforce[0], "secure");
        cr_assert_str_eq(conf.enforce[1], "gpu");
        cr_assert_str_eq(conf.enforce[2], "x.y");
        cordon_spank_conf_clear(&conf);

        cr_assert_eq(parse(STRV_MAKE("policy_dir=/")), 0, "%s", err);
        cr_assert_str_eq(conf.policy_dir, "/");
        cr_assert_null(conf.enforce);
}

/* Each refusal is -EINVAL, names the argument as written, and leaves @conf empty. */
static void refused(char **av, const char *named, const char *why)
{
        cr_assert_eq(parse(av), -EINVAL, "accepted: %s", av[strv_length(av) - 1]);
        cr_assert_not_null(strstr(err, named), "'%s' not named in: %s", named, err);
        cr_assert_not_null(strstr(err, why), "'%s' not in: %s", why, err);
        cr_assert_null(conf.policy_dir);
        cr_assert_null(conf.enforce);
}

Test(spank_args, every_refusal_names_the_argument)
{
        refused(STRV_MAKE("policy_dir=/a", "bogus=1"), "'bogus=1'", "unknown");
        refused(STRV_MAKE("policy_dir=/a", "policy_dir"), "'policy_dir'", "unknown");
        refused(STRV_MAKE("POLICY_DIR=/a"), "'POLICY_DIR=/a'", "unknown");
        refused(STRV_MAKE("policy_dir=/a", "policy_dir=/b"), "'policy_dir=/b'", "twice");
        refused(STRV_MAKE("policy_dir=etc/cordon"), "'policy_dir=etc/cordon'", "absolute");
        refused(STRV_MAKE("policy_dir="), "'policy_dir='", "absolute");
        refused(STRV_MAKE("policy_dir=/etc/../tmp"), "'policy_dir=/etc/../tmp'", "'..'");
        refused(STRV_MAKE("policy_dir=/etc/.."), "'policy_dir=/etc/..'", "'..'");
        refused(STRV_MAKE("policy_dir=/etc/."), "'policy_dir=/etc/.'", "'.'");
        refused(STRV_MAKE("policy_dir=/a", "enforce=secure"), "'enforce=secure'",
                "enforce=partition:NAME");
        refused(STRV_MAKE("policy_dir=/a", "enforce=partition:"), "'enforce=partition:'", "empty");
        refused(STRV_MAKE("policy_dir=/a", "enforce=partition:a,,b"), "'enforce=partition:a,,b'",
                "empty");
        refused(STRV_MAKE("policy_dir=/a", "enforce=partition:a,"), "'enforce=partition:a,'",
                "empty");
        refused(STRV_MAKE("policy_dir=/a", "enforce=partition:a b"), "'enforce=partition:a b'",
                "character");
        refused(STRV_MAKE("enforce=partition:a"), "policy_dir=DIR", "missing");
        refused(STRV_MAKE("policy_dir=/a", ""), "''", "unknown");

        /* Sizes: one argument, one name, the number of partitions. */
        char big[CORDON_SPANK_ARG_MAX + 32] = "policy_dir=/";
        memset(big + strlen(big), 'a', CORDON_SPANK_ARG_MAX);
        big[sizeof(big) - 1] = 0;
        refused(STRV_MAKE(big), "policy_dir=/aaa", "longer than 4096");
        char name[64 + CORDON_SPANK_PARTITION_MAX] = "enforce=partition:";
        memset(name + strlen(name), 'p', CORDON_SPANK_PARTITION_MAX + 1);
        name[strlen("enforce=partition:") + CORDON_SPANK_PARTITION_MAX + 1] = 0;
        refused(STRV_MAKE("policy_dir=/a", name), "enforce=partition:ppp", "too long");
        _cleanup_free_ char *many = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&many, &len);
        fputs("enforce=partition:p0", f);
        for (unsigned i = 1; i <= CORDON_SPANK_PARTITIONS_MAX; i++)
                fprintf(f, ",p%u", i);
        fclose(f);
        refused(STRV_MAKE("policy_dir=/a", many), "enforce=partition:p0,p1", "more than 256");
}

Test(spank_args, enforced_partitions)
{
        cr_assert_eq(parse(STRV_MAKE("policy_dir=/a", "enforce=partition:secure,gpu")), 0);
        cr_assert(cordon_spank_partition_enforced(&conf, "secure"));
        cr_assert(cordon_spank_partition_enforced(&conf, "gpu"));
        /* A pending job's list: any enforced name of it counts. */
        cr_assert(cordon_spank_partition_enforced(&conf, "debug,gpu"));
        cr_assert_not(cordon_spank_partition_enforced(&conf, "debug"));
        cr_assert_not(cordon_spank_partition_enforced(&conf, "secure2"));
        cr_assert_not(cordon_spank_partition_enforced(&conf, "secur"));
        cr_assert_not(cordon_spank_partition_enforced(&conf, ""));
        cr_assert_not(cordon_spank_partition_enforced(&conf, NULL));
        cordon_spank_conf_clear(&conf);
        cr_assert_eq(parse(STRV_MAKE("policy_dir=/a")), 0);
        cr_assert_not(cordon_spank_partition_enforced(&conf, "secure"));
}

Test(spank_args, profile_names)
{
        cr_assert_eq(cordon_spank_profile_check("default", err, sizeof(err)), 0);
        cr_assert_eq(cordon_spank_profile_check("gpu-strict_2", err, sizeof(err)), 0);
        static const char *const bad[] = {"",   "../etc/passwd", "a/b",    "a.conf", ".",
                                          "..", "a b",           "name\n", "é"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                err[0] = 0;
                cr_assert_eq(cordon_spank_profile_check(bad[i], err, sizeof(err)), -EINVAL, "%s",
                             bad[i]);
                cr_assert_not_null(strstr(err, "letters, digits"), "%s", err);
        }
        char longest[CORDON_SPANK_PROFILE_MAX + 2];
        memset(longest, 'a', sizeof(longest));
        longest[CORDON_SPANK_PROFILE_MAX] = 0;
        cr_assert_eq(cordon_spank_profile_check(longest, err, sizeof(err)), 0);
        longest[CORDON_SPANK_PROFILE_MAX] = 'a';
        longest[CORDON_SPANK_PROFILE_MAX + 1] = 0;
        cr_assert_eq(cordon_spank_profile_check(longest, err, sizeof(err)), -EINVAL);

        char path[64];
        cr_assert_eq(cordon_spank_profile_path("/etc/cordon/slurm.d", "gpu", path, sizeof(path)),
                     0);
        cr_assert_str_eq(path, "/etc/cordon/slurm.d/gpu.conf");
        cr_assert_eq(cordon_spank_profile_path("/", "gpu", path, sizeof(path)), 0);
        cr_assert_str_eq(path, "/gpu.conf");
        cr_assert_eq(cordon_spank_profile_path("/etc/cordon/slurm.d", "gpu", path, 20),
                     -ENAMETOOLONG);
}

Test(spank_args, network_names)
{
        cr_assert_eq(cordon_spank_network_check("open", err, sizeof(err)), 0);
        cr_assert_eq(cordon_spank_network_check("isolated", err, sizeof(err)), 0);
        /* Known, if a task cannot have them: cordon_confine_self() refuses them in task_init. */
        cr_assert_eq(cordon_spank_network_check("proxied", err, sizeof(err)), 0);
        cr_assert_eq(cordon_spank_network_check("bogus", err, sizeof(err)), -EINVAL);
        cr_assert_not_null(strstr(err, "network mode 'bogus'"), "%s", err);
        cr_assert_eq(cordon_spank_network_check("", err, sizeof(err)), -EINVAL);
}

Test(spank_args, env_diff)
{
        _cleanup_strv_free_ char **unset = NULL, **set = NULL;
        cr_assert_eq(cordon_spank_env_diff(STRV_MAKE("A=1", "SECRET=x", "B=2", "C=", "junk"),
                                           STRV_MAKE("B=2", "A=one", "C=", "NEW=n=1"), &unset,
                                           &set),
                     0);
        cr_assert_eq(strv_length(unset), 1);
        cr_assert_str_eq(unset[0], "SECRET");
        cr_assert_eq(strv_length(set), 2);
        cr_assert_str_eq(set[0], "A=one");
        cr_assert_str_eq(set[1], "NEW=n=1");
        strv_free(unset);
        strv_free(set);
        /* A name is not a prefix of another. */
        cr_assert_eq(cordon_spank_env_diff(STRV_MAKE("AB=1"), STRV_MAKE("A=1"), &unset, &set), 0);
        cr_assert_eq(strv_length(unset), 1);
        cr_assert_str_eq(unset[0], "AB");
        cr_assert_str_eq(set[0], "A=1");
        strv_free(unset);
        strv_free(set);
        unset = set = NULL;
        cr_assert_eq(cordon_spank_env_diff(NULL, NULL, &unset, &set), 0);
        cr_assert_null(unset);
        cr_assert_null(set);
}

Test(spank_args, env_diff_limit)
{
        _cleanup_strv_free_ char **big = NULL, **unset = NULL, **set = NULL;
        for (unsigned i = 0; i <= CORDON_SPANK_ENV_MAX; i++)
                cr_assert_eq(strv_extendf(&big, "V%u=1", i), 0);
        cr_assert_eq(cordon_spank_env_diff(big, STRV_MAKE("A=1"), &unset, &set), -E2BIG);
        cr_assert_eq(cordon_spank_env_diff(STRV_MAKE("A=1"), big, &unset, &set), -E2BIG);
}

Test(spank_args, pmi_fd)
{
        cr_assert_eq(cordon_spank_pmi_fd("11"), 11);
        cr_assert_eq(cordon_spank_pmi_fd("3"), 3);
        cr_assert_eq(cordon_spank_pmi_fd("1048576"), CORDON_SPANK_PMI_FD_MAX);
        /* stdio is no PMI socket; no sign, space, leading zero or other base */
        cr_assert_eq(cordon_spank_pmi_fd("2"), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd("0"), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd("011"), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd("+11"), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd("-11"), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd(" 11"), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd("11 "), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd("0x11"), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd(""), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd(NULL), -EINVAL);
        /* past the limit, and past int */
        cr_assert_eq(cordon_spank_pmi_fd("1048577"), -EINVAL);
        cr_assert_eq(cordon_spank_pmi_fd("99999999999999999999"), -EINVAL);
}
