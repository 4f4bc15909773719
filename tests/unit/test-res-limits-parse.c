/* Unit tests for src/lib/mech/res-limits-parse.c: size strings, mechanism names, and the parsers of
 * /proc/self/cgroup and /proc/self/mountinfo. Pure: no file is touched. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/mech/cgroup.h"
#include "lib/mech/res-limits.h"
#include "shared/macro.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define TiB (UINT64_C(1) << 40)
#define PiB (UINT64_C(1) << 50)
#define EiB (UINT64_C(1) << 60)

struct size_case {
        const char *s;
        int r;
        uint64_t v;
};

Test(parse_size, valid)
{
        static const struct size_case cases[] = {
            {"1", 0, 1},
            {"1048576", 0, MiB},
            {"0001K", 0, KiB},
            {"100K", 0, 100 * KiB},
            {"100k", 0, 100 * KiB},
            {"512M", 0, 512 * MiB},
            {"512m", 0, 512 * MiB},
            {"512MB", 0, 512 * MiB},
            {"512mb", 0, 512 * MiB},
            {"512MiB", 0, 512 * MiB},
            {"512mib", 0, 512 * MiB},
            {"512MIB", 0, 512 * MiB},
            {"4G", 0, 4 * GiB},
            {"1T", 0, TiB},
            {"2P", 0, 2 * PiB},
            {"15E", 0, 15 * EiB},
            {"100B", 0, 100},
            {"100b", 0, 100},
            {"1.5G", 0, GiB + GiB / 2},
            {"0.5K", 0, 512},
            {"0.25m", 0, 256 * KiB},
            {"1.0000001K", 0, KiB},                    /* rounded down */
            {"1.999999999999999999K", 0, 2 * KiB - 1}, /* 18 fraction digits */
            {"15.9375E", 0, 15 * EiB + EiB / 16 * 15},
            {"18446744073709551615", 0, UINT64_MAX},
            {"16777215.9999999999999T", 0, 16777215 * TiB + TiB - 1},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t v = 0;
                int r = cordon_parse_size(cases[i].s, &v);
                cr_expect_eq(r, cases[i].r, "'%s': %d", cases[i].s, r);
                cr_expect_eq(v, cases[i].v, "'%s': %llu, expected %llu", cases[i].s,
                             (unsigned long long)v, (unsigned long long)cases[i].v);
        }
}

Test(parse_size, invalid)
{
        static const struct size_case cases[] = {
            {"", -EINVAL, 0},
            {"0", -EINVAL, 0},       /* 0 means "no limit" */
            {"0K", -EINVAL, 0},      /* also with a suffix */
            {"0.0001K", -EINVAL, 0}, /* rounds down to 0 bytes */
            {"1.5", -EINVAL, 0},     /* a fraction of a byte */
            {"1.5B", -EINVAL, 0},
            {"-1", -EINVAL, 0},
            {"-1G", -EINVAL, 0},
            {"+1", -EINVAL, 0},
            {" 1", -EINVAL, 0},
            {"1 ", -EINVAL, 0},
            {"1 G", -EINVAL, 0},
            {"G", -EINVAL, 0},
            {"B", -EINVAL, 0},
            {".5G", -EINVAL, 0},
            {"5.G", -EINVAL, 0},
            {"1..5G", -EINVAL, 0},
            {"1KK", -EINVAL, 0},
            {"1Ki", -EINVAL, 0},
            {"1iB", -EINVAL, 0},
            {"1KiBB", -EINVAL, 0},
            {"1BB", -EINVAL, 0},
            {"1X", -EINVAL, 0},
            {"1Z", -EINVAL, 0},
            {"1e3", -EINVAL, 0},
            {"0x10", -EINVAL, 0},
            {"1,5G", -EINVAL, 0},
            {"1.0000000000000000001K", -EINVAL, 0}, /* 19 fraction digits */
            {"99999999999999999999X", -EINVAL, 0},  /* garbage wins over overflow */
            {"16E", -ERANGE, 0},
            {"16.0E", -ERANGE, 0},
            {"18446744073709551616", -ERANGE, 0},
            {"99999999999999999999999", -ERANGE, 0},
            {"17179869184G", -ERANGE, 0},
            {"16777216T", -ERANGE, 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t v = 42;
                int r = cordon_parse_size(cases[i].s, &v);
                cr_expect_eq(r, cases[i].r, "'%s': %d, expected %d", cases[i].s, r, cases[i].r);
                cr_expect_eq(v, 42, "'%s': output touched on failure", cases[i].s);
        }
        uint64_t v;
        cr_expect_eq(cordon_parse_size(NULL, &v), -EINVAL);
}

Test(names, mechanisms_and_kinds)
{
        cr_expect_str_eq(cordon_limit_mechanism_to_string(CORDON_LIMIT_NONE), "none");
        cr_expect_str_eq(cordon_limit_mechanism_to_string(CORDON_LIMIT_CGROUP2), "cgroup2");
        cr_expect_str_eq(cordon_limit_mechanism_to_string(CORDON_LIMIT_CGROUP1), "cgroup1");
        cr_expect_str_eq(cordon_limit_mechanism_to_string(CORDON_LIMIT_RLIMIT), "rlimit");
        cr_expect_str_eq(cordon_limit_mechanism_to_string(CORDON_LIMIT_AFFINITY), "affinity");
        cr_expect_null(cordon_limit_mechanism_to_string((enum cordon_limit_mechanism)99));
        cr_expect_null(cordon_limit_mechanism_to_string((enum cordon_limit_mechanism) - 1));
        cr_expect_str_eq(cordon_limit_kind_to_string(CORDON_LIMIT_MEMORY), "memory");
        cr_expect_str_eq(cordon_limit_kind_to_string(CORDON_LIMIT_PIDS), "pids");
        cr_expect_str_eq(cordon_limit_kind_to_string(CORDON_LIMIT_CPUS), "cpus");
        cr_expect_null(cordon_limit_kind_to_string(_CORDON_LIMIT_KIND_MAX));
}

Test(cgroup_parse, list_has)
{
        cr_expect(cordon_cgroup_list_has("cpu memory pids\n", "memory"));
        cr_expect(cordon_cgroup_list_has("cpu memory pids\n", "pids"));
        cr_expect(cordon_cgroup_list_has("cpu memory pids\n", "cpu"));
        cr_expect(cordon_cgroup_list_has("rw,memory", "memory"));
        cr_expect(cordon_cgroup_list_has("cpu,cpuacct", "cpuacct"));
        cr_expect_not(cordon_cgroup_list_has("cpuset memory", "cpu"), "a prefix is no match");
        cr_expect_not(cordon_cgroup_list_has("rw,cpuacct", "cpu"));
        cr_expect_not(cordon_cgroup_list_has("", "memory"));
        cr_expect_not(cordon_cgroup_list_has("\n", "memory"));
        cr_expect_not(cordon_cgroup_list_has(NULL, "memory"));
        cr_expect_not(cordon_cgroup_list_has("memory", ""));
}

/* /proc/self/cgroup of this kind of host: a v1/v2 hybrid. */
static const char hybrid_self[] = "9:name=systemd:/\n"
                                  "8:pids:/\n"
                                  "4:memory:/process_api/abc\n"
                                  "2:cpuacct:/\n"
                                  "1:cpu,cpuacct:/c\n"
                                  "0::/user.slice/u\n";

Test(cgroup_parse, self)
{
        char buf[256];
        cr_assert_eq(cordon_cgroup_parse_self(hybrid_self, NULL, buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/user.slice/u");
        cr_assert_eq(cordon_cgroup_parse_self(hybrid_self, "memory", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/process_api/abc");
        cr_assert_eq(cordon_cgroup_parse_self(hybrid_self, "pids", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/");
        cr_assert_eq(cordon_cgroup_parse_self(hybrid_self, "cpu", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/c", "the co-mounted cpu,cpuacct line");
        cr_expect_eq(cordon_cgroup_parse_self(hybrid_self, "blkio", buf, sizeof(buf)), -ENOENT);
        cr_expect_eq(cordon_cgroup_parse_self(hybrid_self, "systemd", buf, sizeof(buf)), -ENOENT,
                     "name=systemd is not the controller 'systemd'");

        cr_expect_eq(cordon_cgroup_parse_self("8:pids:/\n", NULL, buf, sizeof(buf)), -ENOENT,
                     "v1-only host");
        cr_expect_eq(cordon_cgroup_parse_self("", NULL, buf, sizeof(buf)), -ENOENT);
        cr_assert_eq(cordon_cgroup_parse_self("0::/a:b\n", NULL, buf, sizeof(buf)), 0,
                     "a colon in the path");
        cr_expect_str_eq(buf, "/a:b");
        cr_assert_eq(cordon_cgroup_parse_self("0::/x", NULL, buf, sizeof(buf)), 0, "no newline");
        cr_expect_str_eq(buf, "/x");
        cr_expect_eq(cordon_cgroup_parse_self("garbage\n0::/\n", NULL, buf, sizeof(buf)), -EINVAL);
        cr_expect_eq(cordon_cgroup_parse_self("0::relative\n", NULL, buf, sizeof(buf)), -EINVAL);
        cr_expect_eq(cordon_cgroup_parse_self("0::/abcdef\n", NULL, buf, 4), -ENAMETOOLONG);
}

static const char hybrid_mountinfo[] =
    "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 /process_api /sys/fs/cgroup/mem\\040ory rw,relatime shared:4 master:1 - cgroup "
    "cgroup rw,memory\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n";

Test(cgroup_parse, mountinfo)
{
        char mnt[256], root[256];
        cr_assert_eq(cordon_mountinfo_find_cgroup(hybrid_mountinfo, NULL, mnt, sizeof(mnt), root,
                                                  sizeof(root)),
                     0);
        cr_expect_str_eq(mnt, "/sys/fs/cgroup/unified");
        cr_expect_str_eq(root, "/");
        cr_assert_eq(cordon_mountinfo_find_cgroup(hybrid_mountinfo, "memory", mnt, sizeof(mnt),
                                                  root, sizeof(root)),
                     0);
        cr_expect_str_eq(mnt, "/sys/fs/cgroup/mem ory", "octal escape decoded");
        cr_expect_str_eq(root, "/process_api");
        cr_assert_eq(cordon_mountinfo_find_cgroup(hybrid_mountinfo, "cpu", mnt, sizeof(mnt), root,
                                                  sizeof(root)),
                     0);
        cr_expect_str_eq(mnt, "/sys/fs/cgroup/cpu,cpuacct", "not the cpuset mount");
        cr_assert_eq(cordon_mountinfo_find_cgroup(hybrid_mountinfo, "pids", mnt, sizeof(mnt), root,
                                                  sizeof(root)),
                     0);
        cr_expect_str_eq(mnt, "/sys/fs/cgroup/pids");
        cr_expect_eq(cordon_mountinfo_find_cgroup(hybrid_mountinfo, "blkio", mnt, sizeof(mnt), root,
                                                  sizeof(root)),
                     -ENOENT);
        cr_expect_eq(cordon_mountinfo_find_cgroup("22 1 0:21 / /proc rw - proc proc rw\n", NULL,
                                                  mnt, sizeof(mnt), root, sizeof(root)),
                     -ENOENT);
        cr_expect_eq(cordon_mountinfo_find_cgroup("", NULL, mnt, sizeof(mnt), root, sizeof(root)),
                     -ENOENT);
        cr_expect_eq(
            cordon_mountinfo_find_cgroup(hybrid_mountinfo, NULL, mnt, 8, root, sizeof(root)),
            -ENAMETOOLONG);
        /* A cgroup2 mount named like a v1 one must not count as v1, and the reverse. */
        cr_expect_eq(
            cordon_mountinfo_find_cgroup("41 31 0:38 / /x rw - cgroup2 cgroup2 rw,memory\n",
                                         "memory", mnt, sizeof(mnt), root, sizeof(root)),
            -ENOENT);
        cr_expect_eq(cordon_mountinfo_find_cgroup("41 31 0:38 / /x rw - cgroup cgroup rw,pids\n",
                                                  NULL, mnt, sizeof(mnt), root, sizeof(root)),
                     -ENOENT);
}

Test(cgroup_parse, dir_of)
{
        char d[256];
        cr_assert_eq(cordon_cgroup_dir_of("/sys/fs/cgroup/unified", "/", "/a/b", d, sizeof(d)), 0);
        cr_expect_str_eq(d, "/sys/fs/cgroup/unified/a/b");
        cr_assert_eq(cordon_cgroup_dir_of("/sys/fs/cgroup/unified", "/", "/", d, sizeof(d)), 0);
        cr_expect_str_eq(d, "/sys/fs/cgroup/unified");
        cr_assert_eq(cordon_cgroup_dir_of("/m", "/docker/x", "/docker/x/y", d, sizeof(d)), 0);
        cr_expect_str_eq(d, "/m/y");
        cr_assert_eq(cordon_cgroup_dir_of("/m", "/docker/x", "/docker/x", d, sizeof(d)), 0);
        cr_expect_str_eq(d, "/m");
        cr_expect_eq(cordon_cgroup_dir_of("/m", "/docker/x", "/docker/xy", d, sizeof(d)), -ENOENT);
        cr_expect_eq(cordon_cgroup_dir_of("/m", "/docker/x", "/", d, sizeof(d)), -ENOENT);
        cr_assert_eq(cordon_cgroup_dir_of("/", "/", "/a", d, sizeof(d)), 0);
        cr_expect_str_eq(d, "/a");
        cr_assert_eq(cordon_cgroup_dir_of("/", "/", "/", d, sizeof(d)), 0);
        cr_expect_str_eq(d, "/");
        cr_expect_eq(cordon_cgroup_dir_of("/sys/fs/cgroup", "/", "/a", d, 8), -ENAMETOOLONG);
}
