/* Unit tests for the plan half of src/lib/mech/ns-mount.c: cordon_mount_plan_build() puts parents
 * before children, masks after everything, and keeps insertion order on ties. Nothing here
 * mounts or unshares. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/mech/ns-mount.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"
#include "shared/path-util.h"

/* glibc's qsort() happens to be a stable merge sort for small arrays, which would hide a missing
 * tie-break. This one, linked in place of libc's for the code under test, reverses the array
 * before a stable insertion sort: equal elements come out in reverse order unless the comparison
 * itself keeps them apart. */
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
        char *b = base, tmp[64];
        cr_assert_leq(size, sizeof(tmp));
        for (size_t i = 0; i < n / 2; i++) {
                memcpy(tmp, b + i * size, size);
                memcpy(b + i * size, b + (n - 1 - i) * size, size);
                memcpy(b + (n - 1 - i) * size, tmp, size);
        }
        for (size_t i = 1; i < n; i++) {
                memcpy(tmp, b + i * size, size);
                size_t j = i;
                for (; j > 0 && cmp(b + (j - 1) * size, tmp) > 0; j--)
                        memcpy(b + j * size, b + (j - 1) * size, size);
                memcpy(b + j * size, tmp, size);
        }
}

static struct cordon_policy *p;
static struct cordon_mount_plan plan;

static void setup(void)
{
        p = cordon_policy_new();
        cr_assert_not_null(p);
}

static void teardown(void)
{
        cordon_mount_plan_clear(&plan);
        p = cordon_policy_free(p);
}

TestSuite(mount_plan, .init = setup, .fini = teardown);

static void add(const char *guest, enum cordon_access access)
{
        const char *host = cordon_access_is_bind(access) || access == CORDON_ACCESS_COPY     ? guest
                           : access == CORDON_ACCESS_DATA || access == CORDON_ACCESS_SYMLINK ? "x"
                                                                                             : NULL;
        cr_assert_eq(cordon_policy_add_fs(p, guest, host, access, 0, "test"), 0, "%s", guest);
}

static void build(void)
{
        cr_assert_eq(cordon_mount_plan_build(p, &plan), 0);
        cr_assert_eq(plan.n, p->n_fs);
}

/* Position of rule @idx in the plan. */
static size_t pos(size_t idx)
{
        for (size_t i = 0; i < plan.n; i++)
                if (plan.order[i] == idx)
                        return i;
        cr_assert_fail("rule %zu is missing from the plan", idx);
        return SIZE_MAX;
}

static void assert_is_permutation(void)
{
        for (size_t i = 0; i < p->n_fs; i++)
                (void)pos(i);
}

Test(mount_plan, empty_policy)
{
        build();
        cr_assert_eq(plan.n, 0);
        cr_assert_not_null(plan.order);
}

Test(mount_plan, src_fds_start_closed)
{
        add("/usr", CORDON_ACCESS_RO);
        add("/tmp", CORDON_ACCESS_TMPFS);
        build();
        cr_assert_not_null(plan.src_fds);
        for (size_t i = 0; i < plan.n; i++)
                cr_assert_lt(plan.src_fds[i], 0, "src_fds[%zu] = %d", i, plan.src_fds[i]);
}

Test(mount_plan, parents_before_children)
{
        add("/home/u/project/sub", CORDON_ACCESS_RW); /* 0 */
        add("/home/u/.claude", CORDON_ACCESS_RW);     /* 1 */
        add("/home/u", CORDON_ACCESS_TMPFS);          /* 2 */
        add("/home/u/project", CORDON_ACCESS_RW);     /* 3 */
        add("/home", CORDON_ACCESS_TMPFS);            /* 4 */
        add("/proc/sys", CORDON_ACCESS_RO);           /* 5 */
        add("/proc", CORDON_ACCESS_PROC);             /* 6 */
        build();
        assert_is_permutation();
        cr_assert_lt(pos(4), pos(2));
        cr_assert_lt(pos(2), pos(1));
        cr_assert_lt(pos(2), pos(3));
        cr_assert_lt(pos(3), pos(0));
        cr_assert_lt(pos(6), pos(5));
        /* In general: no rule comes before a rule for one of its parents. */
        for (size_t i = 0; i < plan.n; i++)
                for (size_t j = i + 1; j < plan.n; j++) {
                        const char *earlier = p->fs[plan.order[i]].guest;
                        const char *later = p->fs[plan.order[j]].guest;
                        cr_assert(streq(earlier, later) || !path_is_below(earlier, later),
                                  "'%s' is mounted before its parent '%s'", earlier, later);
                }
}

Test(mount_plan, masks_after_everything)
{
        add("/home/u/.ssh", CORDON_ACCESS_MASKED);        /* 0 */
        add("/home/u", CORDON_ACCESS_RW);                 /* 1 */
        add("/a", CORDON_ACCESS_MASKED);                  /* 2: shallower than every bind */
        add("/home/u/project/x/y/z", CORDON_ACCESS_RW);   /* 3: deeper than every mask */
        add("/etc/passwd", CORDON_ACCESS_DATA);           /* 4 */
        add("/home/u/.ssh/id_rsa", CORDON_ACCESS_MASKED); /* 5 */
        add("/bin", CORDON_ACCESS_SYMLINK);               /* 6 */
        build();
        assert_is_permutation();
        size_t first_mask = SIZE_MAX;
        for (size_t i = 0; i < plan.n; i++) {
                bool mask = p->fs[plan.order[i]].access == CORDON_ACCESS_MASKED;
                if (mask && first_mask == SIZE_MAX)
                        first_mask = i;
                cr_assert(mask || first_mask == SIZE_MAX, "'%s' comes after a mask",
                          p->fs[plan.order[i]].guest);
        }
        cr_assert_eq(first_mask, 4);
        /* Among masks, parents still come first. */
        cr_assert_lt(pos(2), pos(0));
        cr_assert_lt(pos(0), pos(5));
}

Test(mount_plan, ties_keep_insertion_order)
{
        /* Same depth, different paths, inserted out of lexical order. */
        add("/usr", CORDON_ACCESS_RO);      /* 0 */
        add("/etc", CORDON_ACCESS_RO);      /* 1 */
        add("/bin", CORDON_ACCESS_SYMLINK); /* 2 */
        add("/lib", CORDON_ACCESS_RO);      /* 3 */
        add("/tmp", CORDON_ACCESS_TMPFS);   /* 4 */
        add("/dev", CORDON_ACCESS_DEV);     /* 5 */
        build();
        for (size_t i = 0; i < plan.n; i++)
                cr_assert_eq(plan.order[i], i, "position %zu holds rule %zu", i, plan.order[i]);
}

Test(mount_plan, same_guest_later_rule_mounts_later)
{
        /* Later rules win: a second rule for the same path is mounted on top of the first. */
        for (int round = 0; round < 20; round++) {
                add("/data", CORDON_ACCESS_RO);
                add("/x", CORDON_ACCESS_TMPFS);
        }
        add("/data/one", CORDON_ACCESS_MASKED);
        add("/data/one", CORDON_ACCESS_MASKED);
        build();
        size_t last_data = 0, last_x = 0;
        bool seen_data = false, seen_x = false;
        for (size_t i = 0; i < plan.n; i++) {
                size_t idx = plan.order[i];
                const char *g = p->fs[idx].guest;
                if (streq(g, "/data")) {
                        cr_assert(!seen_data || idx > last_data, "rule %zu before %zu", idx,
                                  last_data);
                        last_data = idx;
                        seen_data = true;
                } else if (streq(g, "/x")) {
                        cr_assert(!seen_x || idx > last_x, "rule %zu before %zu", idx, last_x);
                        last_x = idx;
                        seen_x = true;
                }
        }
        cr_assert_eq(plan.order[plan.n - 2], 40);
        cr_assert_eq(plan.order[plan.n - 1], 41);
}

Test(mount_plan, large_policy_is_stable)
{
        /* qsort is not stable; the index tie-break must make it so for many equal keys. */
        char path[32];
        for (int i = 0; i < 200; i++) {
                snprintf(path, sizeof(path), "/d%d/f", (i * 37) % 200);
                add(path, i % 3 == 0 ? CORDON_ACCESS_MASKED : CORDON_ACCESS_RO);
                snprintf(path, sizeof(path), "/d%d", (i * 53) % 200);
                add(path, CORDON_ACCESS_TMPFS);
        }
        build();
        assert_is_permutation();
        for (size_t i = 1; i < plan.n; i++) {
                const struct cordon_fs_rule *a = &p->fs[plan.order[i - 1]];
                const struct cordon_fs_rule *b = &p->fs[plan.order[i]];
                int ma = a->access == CORDON_ACCESS_MASKED, mb = b->access == CORDON_ACCESS_MASKED;
                cr_assert_leq(ma, mb);
                if (ma != mb)
                        continue;
                unsigned da = path_depth(a->guest), db = path_depth(b->guest);
                cr_assert_leq(da, db);
                if (da == db)
                        cr_assert_lt(plan.order[i - 1], plan.order[i]);
        }
}

Test(mount_plan, clear_is_idempotent)
{
        add("/usr", CORDON_ACCESS_RO);
        build();
        cordon_mount_plan_clear(&plan);
        cr_assert_null(plan.order);
        cr_assert_null(plan.src_fds);
        cr_assert_eq(plan.n, 0);
        cordon_mount_plan_clear(&plan);
}

/* cordon_mount_tmpfs_size(): without tmp_size_bytes, the tmpfs mounts the sandbox can fill share
 * a quarter of RAM, /dev/shm included; a sealed one does not take a share. */
#define GiB (UINT64_C(1) << 30)

Test(mount_plan, tmpfs_size_default_shares_a_quarter_of_ram)
{
        add("/tmp", CORDON_ACCESS_TMPFS);
        add("/home/u", CORDON_ACCESS_TMPFS);
        add("/dev", CORDON_ACCESS_DEV);
        /* /tmp, the home, /dev/shm: a third of 3 GiB each, whole pages. */
        cr_assert_eq(cordon_mount_tmpfs_size(p, 12 * GiB), GiB);
        cr_assert_eq(cordon_mount_tmpfs_size(p, 12 * GiB + 12 * 4096 + 5), GiB + 4096);
}

Test(mount_plan, tmpfs_size_sealed_and_shared_shm_take_no_share)
{
        cr_assert_eq(
            cordon_policy_add_fs(p, "/home/u", NULL, CORDON_ACCESS_TMPFS, CORDON_FS_SEAL, "test"),
            0);
        add("/tmp", CORDON_ACCESS_TMPFS);
        add("/dev", CORDON_ACCESS_DEV);
        add("/dev/shm", CORDON_ACCESS_RW); /* the host's, bound over the private one */
        cr_assert_eq(cordon_mount_tmpfs_size(p, 4 * GiB), GiB);
}

Test(mount_plan, tmpfs_size_given_wins_and_tiny_ram_gets_a_page)
{
        add("/tmp", CORDON_ACCESS_TMPFS);
        cr_assert_eq(cordon_mount_tmpfs_size(p, 100), 4096);
        p->limits.tmp_size_bytes = 8 << 20;
        cr_assert_eq(cordon_mount_tmpfs_size(p, 64 * GiB), 8 << 20);
}

Test(mount_plan, plan_carries_the_tmpfs_size)
{
        add("/tmp", CORDON_ACCESS_TMPFS);
        p->limits.tmp_size_bytes = 1 << 20;
        build();
        cr_assert_eq(plan.tmpfs_size, 1 << 20);
}
