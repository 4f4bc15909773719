/* Unit tests for src/lib/mech/landlock.c: the plans of both backends (rights per rule, carving
 * around masked paths, ABI masking), and what an applied ruleset refuses. Applying restricts the
 * calling thread for good, so each apply test does it in a fork()ed child with no-new-privs and
 * checks the exact errno, next to the same operation in an unrestricted child as the control. */
#include <linux/landlock.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "lib/mech/landlock.h"
#include "lower-fixture.h"

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

#define A(x)      LANDLOCK_ACCESS_FS_##x
#define READ      CORDON_LANDLOCK_FS_READ
#define WRITE     CORDON_LANDLOCK_FS_WRITE
#define DEVICE    (A(READ_FILE) | A(WRITE_FILE) | A(IOCTL_DEV) | A(READ_DIR))
#define TERMINAL  (A(READ_FILE) | A(WRITE_FILE) | A(IOCTL_DEV))
#define FILE_ONLY (A(EXECUTE) | A(WRITE_FILE) | A(READ_FILE) | A(TRUNCATE) | A(IOCTL_DEV))

static struct cordon_landlock_plan plan;

static void ll_setup(void)
{
        setup();
        p = cordon_policy_new();
        cr_assert_not_null(p);
}

static void ll_teardown(void)
{
        cordon_landlock_plan_clear(&plan);
        teardown();
}

TestSuite(landlock, .init = ll_setup, .fini = ll_teardown);

static void add(const char *guest, const char *host, enum cordon_access access, unsigned flags)
{
        int r = cordon_policy_add_fs(p, guest, host, access, flags, "test");
        cr_assert_eq(r, 0, "add %s: %d", guest, r);
}

static void dump_plan(void)
{
        for (size_t i = 0; i < plan.n_rules; i++)
                cr_log_info("%#06llx %s%s (fs %d)", (unsigned long long)plan.rules[i].access,
                            plan.rules[i].path, plan.rules[i].optional ? " [optional]" : "",
                            plan.rules[i].fs_rule);
}

static void build(enum cordon_backend backend, int abi)
{
        cordon_landlock_plan_clear(&plan);
        int r = cordon_landlock_plan_build(p, backend, abi, &plan);
        cr_assert_eq(r, 0, "cordon_landlock_plan_build: %d", r);
}

/* The rule for @path, or NULL; a path must not appear twice. */
static const struct cordon_landlock_rule *find(const char *path)
{
        const struct cordon_landlock_rule *found = NULL;
        for (size_t i = 0; i < plan.n_rules; i++)
                if (streq(plan.rules[i].path, path)) {
                        if (found)
                                dump_plan();
                        cr_assert_null(found, "'%s' appears twice", path);
                        found = &plan.rules[i];
                }
        return found;
}

static void expect(const char *path, uint64_t access, bool optional)
{
        const struct cordon_landlock_rule *r = find(path);
        if (!r || r->access != access || r->optional != optional)
                dump_plan();
        cr_assert_not_null(r, "no rule for '%s'", path);
        cr_assert_eq(r->access, access, "'%s': access %#llx, expected %#llx", path,
                     (unsigned long long)r->access, (unsigned long long)access);
        cr_assert_eq(r->optional, optional, "'%s': optional is %d", path, r->optional);
}

/* No rule of its own for @path: one above it holds @access already (plan_build() drops a rule
 * that adds nothing), and is not skipped where @path's own rule would not be. */
static void expect_covered(const char *path, uint64_t access, bool optional)
{
        bool held = false;
        for (size_t i = 0; i < plan.n_rules; i++)
                held |= path_is_below(path, plan.rules[i].path) &&
                        !streq(path, plan.rules[i].path) && (access & ~plan.rules[i].access) == 0 &&
                        (!plan.rules[i].optional || optional);
        if (find(path) || !held)
                dump_plan();
        cr_assert_null(find(path), "'%s' has a rule that adds nothing", path);
        cr_assert(held, "no rule above '%s' holds its rights", path);
}

static void expect_none(const char *path)
{
        if (find(path))
                dump_plan();
        cr_assert_null(find(path), "unexpected rule for '%s'", path);
}

/* ---- plans: the namespace backend ---- */

Test(landlock, ns_rights_per_access)
{
        add("/usr", "/usr", CORDON_ACCESS_RO, 0);                                /* 0 */
        add("/work", in_root("work"), CORDON_ACCESS_RW, 0);                      /* 1 */
        add("/tmp", NULL, CORDON_ACCESS_TMPFS, 0);                               /* 2 */
        add("/home/u", NULL, CORDON_ACCESS_TMPFS, CORDON_FS_SEAL);               /* 3 */
        add("/home/u/.gitconfig", in_root("gitconfig"), CORDON_ACCESS_COPY, 0);  /* 4 */
        add("/etc/passwd", "root:x:0:0::/:/bin/sh\n", CORDON_ACCESS_DATA, 0);    /* 5 */
        add("/bin", "usr/bin", CORDON_ACCESS_SYMLINK, 0);                        /* 6 */
        add("/home/u/.ssh", NULL, CORDON_ACCESS_MASKED, 0);                      /* 7 */
        add("/dev/nvidia0", "/dev/nvidia0", CORDON_ACCESS_DEVICE, 0);            /* 8 */
        add("/proc", NULL, CORDON_ACCESS_PROC, 0);                               /* 9 */
        add("/dev", NULL, CORDON_ACCESS_DEV, 0);                                 /* 10 */
        add("/opt/tool", in_root("tool"), CORDON_ACCESS_RO, CORDON_FS_OPTIONAL); /* 11 */
        add("/proc/sys", NULL, CORDON_ACCESS_RO, CORDON_FS_OPTIONAL);            /* 12 */
        add("/home/u/.ssh/inner", in_root("inner"), CORDON_ACCESS_RW, 0);        /* 13 */
        add("/home/u/.gnupg", in_root("gnupg"), CORDON_ACCESS_RO, 0);            /* 14 */
        add("/home/u/.gnupg", NULL, CORDON_ACCESS_MASKED, 0);                    /* 15 */
        build(CORDON_BACKEND_NS, 7);
        dump_plan();

        cr_assert_str_eq(plan.rules[0].path, "/", "the root comes first");
        expect("/", A(READ_DIR), false);
        expect("/usr", READ, false);
        expect("/work", READ | WRITE, false);
        expect("/tmp", READ | WRITE, false);
        expect("/home/u", READ, false);
        expect("/home/u/.gitconfig", READ | A(WRITE_FILE) | A(TRUNCATE), false);
        expect("/etc/passwd", A(READ_FILE), false);
        expect_none("/bin");
        expect_none("/home/u/.ssh");
        expect_none("/home/u/.ssh/inner");
        expect_none("/home/u/.gnupg");
        expect("/dev/nvidia0", DEVICE, false);
        expect("/proc", A(READ_FILE) | A(READ_DIR), false);
        expect("/opt/tool", READ, true);
        expect_none("/proc/sys");

        expect_covered("/dev", A(READ_DIR), false); /* the root's READ_DIR */
        expect("/dev/null", A(READ_FILE) | A(WRITE_FILE), false);
        const char *ro_devs[] = {"/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
        for (size_t i = 0; i < ELEMENTSOF(ro_devs); i++)
                expect(ro_devs[i], A(READ_FILE), false);
        expect("/dev/tty", TERMINAL, false);
        expect("/dev/pts", TERMINAL, false);
        expect("/dev/ptmx", TERMINAL, true);
        expect("/dev/shm", READ | WRITE, false);

        cr_assert_eq(find("/usr")->fs_rule, 0);
        cr_assert_eq(find("/dev/tty")->fs_rule, 10);
        cr_assert_eq(find("/")->fs_rule, -1);
        /* Never creatable device nodes, in any rule. */
        for (size_t i = 0; i < plan.n_rules; i++)
                cr_assert_eq(plan.rules[i].access & (A(MAKE_CHAR) | A(MAKE_BLOCK)), 0, "%s",
                             plan.rules[i].path);
}

Test(landlock, ns_unknown_access_refused)
{
        add("/x", NULL, CORDON_ACCESS_TMPFS, 0);
        p->fs[0].access = _CORDON_ACCESS_MAX;
        cr_assert_eq(cordon_landlock_plan_build(p, CORDON_BACKEND_NS, 7, &plan), -EINVAL);
        cr_assert_eq(plan.n_rules, 0);
        cr_assert_eq(cordon_landlock_plan_build(p, CORDON_BACKEND_AUTO, 7, &plan), -EINVAL);
        cr_assert_eq(cordon_landlock_plan_build(p, CORDON_BACKEND_NS, 0, &plan), -EINVAL);
}

/* ---- plans: ABI masking and the network and scope flags ---- */

Test(landlock, abi_masking)
{
        static const uint64_t handled[] = {0,      0x1fff, 0x3fff, 0x7fff,
                                           0x7fff, 0xffff, 0xffff, 0xffff};
        for (int abi = 1; abi <= 7; abi++)
                for (int isolated = 0; isolated <= 1; isolated++) {
                        cr_assert_eq(
                            cordon_policy_set_net_mode(
                                p, isolated ? CORDON_NET_ISOLATED : CORDON_NET_OPEN, "test"),
                            0);
                        for (int b = CORDON_BACKEND_NS; b <= CORDON_BACKEND_LANDLOCK; b++) {
                                build(b, abi);
                                cr_assert_eq(plan.abi, abi);
                                cr_assert_eq(plan.handled, handled[abi], "ABI %d: %#llx", abi,
                                             (unsigned long long)plan.handled);
                                /* The ns backend's network namespace stands in. */
                                cr_assert_eq(plan.deny_tcp,
                                             isolated && abi >= 4 && b == CORDON_BACKEND_LANDLOCK,
                                             "ABI %d", abi);
                                cr_assert_eq(plan.scope, abi >= 6, "ABI %d", abi);
                        }
                }
        /* The rules keep their full rights: apply() masks them by the ABI. */
        add("/work", "/work", CORDON_ACCESS_RW, 0);
        build(CORDON_BACKEND_NS, 1);
        expect("/work", READ | WRITE, false);
        /* A future ABI handles what this one knows. */
        build(CORDON_BACKEND_NS, 9);
        cr_assert_eq(plan.handled, 0xffff);
}

Test(landlock, plan_add)
{
        build(CORDON_BACKEND_LANDLOCK, 7);
        cr_assert_eq(plan.n_rules, 0);
        for (int i = 0; i < 40; i++)
                cr_assert_eq(cordon_landlock_plan_add(&plan, fmt("/tmp/d%d", i), READ, i % 2), 0);
        cr_assert_eq(plan.n_rules, 40);
        expect("/tmp/d7", READ, true);
        cr_assert_eq(find("/tmp/d8")->fs_rule, -1);
        cr_assert_eq(cordon_landlock_plan_add(&plan, "relative", READ, false), -EINVAL);
        cr_assert_eq(cordon_landlock_plan_add(&plan, "/x", 0, false), -EINVAL);
        cr_assert_eq(plan.n_rules, 40);
        cordon_landlock_plan_clear(&plan);
        cordon_landlock_plan_clear(&plan); /* idempotent */
        cr_assert_eq(cordon_landlock_plan_add(&plan, "/y", READ, false), 0);
}

/* ---- plans: the landlock backend ---- */

Test(landlock, host_rights_per_access)
{
        mkdir_p(in_root("ro"));
        mkdir_p(in_root("rw"));
        write_file(in_root("gitconfig"), "[user]\n");
        write_file(in_root("devnode"), "");
        add("/ro", in_root("ro"), CORDON_ACCESS_RO, 0);
        add(in_root("rw"), in_root("rw"), CORDON_ACCESS_RW, 0);
        add("/dev/nvidia0", in_root("devnode"), CORDON_ACCESS_DEVICE, 0);
        add("/tmp", NULL, CORDON_ACCESS_TMPFS, 0);
        add("/etc/passwd", "root:x:0:0::/:/bin/sh\n", CORDON_ACCESS_DATA, 0);
        add("/bin", "usr/bin", CORDON_ACCESS_SYMLINK, 0);
        add("/home/u/.gitconfig", in_root("gitconfig"), CORDON_ACCESS_COPY, 0);
        add("/proc", NULL, CORDON_ACCESS_PROC, 0);
        add("/dev", NULL, CORDON_ACCESS_DEV, 0);
        add("/proc/sys", NULL, CORDON_ACCESS_RO, CORDON_FS_OPTIONAL);
        add("/missing", in_root("missing"), CORDON_ACCESS_RO, CORDON_FS_OPTIONAL);
        build(CORDON_BACKEND_LANDLOCK, 7);
        dump_plan();

        expect(in_root("ro"), READ, false);
        cr_assert_eq(find(in_root("ro"))->fs_rule, 0);
        expect(in_root("rw"), READ | WRITE, false);
        expect(in_root("devnode"), DEVICE, false);
        expect("/dev/null", A(READ_FILE) | A(WRITE_FILE), false);
        expect_none("/tmp");
        expect_none("/etc/passwd");
        expect_none("/bin");
        expect(in_root("gitconfig"), READ, false);
        expect("/proc", A(READ_FILE) | A(READ_DIR), false);
        expect_none("/proc/sys");
        expect(in_root("missing"), READ, true);
        expect_none("/"); /* the host root is not listable */
        const char *ro_devs[] = {"/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
        for (size_t i = 0; i < ELEMENTSOF(ro_devs); i++)
                expect(ro_devs[i], A(READ_FILE), false);
        expect("/dev/tty", TERMINAL, false);
        /* The host's terminals and shared memory belong to the user's other programs. /dev/ptmx
         * only makes new ptys (issue 15): their other ends come from the supervisor. */
        expect_none("/dev");
        expect_none("/dev/pts");
        expect("/dev/ptmx", TERMINAL, false);
        expect_none("/dev/shm");
}

/* CORDON_FS_REMOVE (a capability policy's delete without write_text): removal on top of a
 * read-only bind, on both backends' plans; nothing to add to a writable one, no creation. */
Test(landlock, remove_flag_grants_removal_only)
{
        mkdir_p(in_root("del"));
        mkdir_p(in_root("ro"));
        add(in_root("del"), in_root("del"), CORDON_ACCESS_RO, CORDON_FS_REMOVE);
        add(in_root("ro"), in_root("ro"), CORDON_ACCESS_RO, 0);
        build(CORDON_BACKEND_LANDLOCK, 7);
        expect(in_root("del"), READ | A(REMOVE_FILE) | A(REMOVE_DIR), false);
        expect(in_root("ro"), READ, false);
        build(CORDON_BACKEND_NS, 7);
        expect(in_root("del"), READ | A(REMOVE_FILE) | A(REMOVE_DIR), false);
        cr_assert_eq(find(in_root("del"))->access & (A(WRITE_FILE) | A(MAKE_REG) | A(MAKE_DIR)), 0);
}

/* A tree for carving: g/{a, b/{keep, secret, sub/f}, c/x, link -> b, empty/} */
static void make_tree(void)
{
        write_file(in_root("g/a"), "a");
        write_file(in_root("g/b/keep"), "keep");
        write_file(in_root("g/b/secret"), "secret");
        write_file(in_root("g/b/sub/f"), "f");
        write_file(in_root("g/c/x"), "x");
        mkdir_p(in_root("g/empty"));
        cr_assert_eq(symlink("b", in_root("g/link")), 0);
}

Test(landlock, carve_around_masks)
{
        make_tree();
        add(in_root("g"), in_root("g"), CORDON_ACCESS_RW, 0);
        add(in_root("g/b/secret"), NULL, CORDON_ACCESS_MASKED, 0);
        add(in_root("g/c"), NULL, CORDON_ACCESS_MASKED, 0);
        add("/elsewhere/not-below-a-grant", NULL, CORDON_ACCESS_MASKED, 0);
        build(CORDON_BACKEND_LANDLOCK, 7);
        dump_plan();

        /* g/c is a masked directory: READ_DIR on g would list it, so g gets no rule at all. */
        expect_none(in_root("g"));
        expect(in_root("g/a"), (READ | WRITE) & FILE_ONLY, true);
        expect(in_root("g/empty"), READ | WRITE, true);
        expect_none(in_root("g/link"));
        expect_none(in_root("g/c"));
        expect_none(in_root("g/c/x"));
        /* Only a masked file below g/b: it stays listable. */
        expect(in_root("g/b"), A(READ_DIR), true);
        expect(in_root("g/b/keep"), (READ | WRITE) & FILE_ONLY, true);
        expect(in_root("g/b/sub"), READ | WRITE, true);
        expect_none(in_root("g/b/secret"));
        expect_none(in_root("g/b/sub/f"));
        for (size_t i = 0; i < plan.n_rules; i++)
                cr_assert_eq(plan.rules[i].fs_rule, 0);
}

Test(landlock, grant_at_or_inside_a_mask_dropped)
{
        make_tree();
        add(in_root("g/c"), in_root("g/c"), CORDON_ACCESS_RO, 0);
        add(in_root("g/b/sub"), in_root("g/b/sub"), CORDON_ACCESS_RW, 0);
        add(in_root("g/a"), in_root("g/a"), CORDON_ACCESS_RO, 0);
        add(in_root("g/c"), NULL, CORDON_ACCESS_MASKED, 0);
        add(in_root("g/b"), NULL, CORDON_ACCESS_MASKED, 0);
        build(CORDON_BACKEND_LANDLOCK, 7);
        cr_assert_eq(plan.n_rules, 1);
        expect(in_root("g/a"), READ, false);
}

Test(landlock, mask_reached_through_a_bind_and_a_symlink)
{
        make_tree();
        cr_assert_eq(symlink(in_root("g"), in_root("alias")), 0);
        /* The guest path of the bind is not its host path: the mask follows the bind. */
        add("/guest/g", in_root("g"), CORDON_ACCESS_RO, 0);
        add("/guest/g/b/secret", NULL, CORDON_ACCESS_MASKED, 0);
        /* A mask through a symlink is resolved to the real path. */
        add(fmt("%s/c", in_root("alias")), NULL, CORDON_ACCESS_MASKED, 0);
        build(CORDON_BACKEND_LANDLOCK, 7);
        dump_plan();
        expect_none(in_root("g"));
        expect_none(in_root("g/b/secret"));
        expect_none(in_root("g/c"));
        expect(in_root("g/b/keep"), READ & FILE_ONLY, true);
}

/* Grant paths become realpaths with the object found there noted, whether the path needs
 * resolving (a symlink on the way or at the end, '..', '//', a trailing slash) or not; a
 * missing path stays as it is, with nothing noted. */
Test(landlock, grant_paths_resolved_as_realpath)
{
        make_tree();
        cr_assert_eq(symlink(in_root("g"), in_root("alias")), 0);
        cr_assert_eq(symlink(in_root("g/b/keep"), in_root("keep-link")), 0);
        add("/t/plain", in_root("g/b/sub"), CORDON_ACCESS_RW, 0);
        add("/t/plain-file", in_root("g/a"), CORDON_ACCESS_RO, 0);
        add("/t/via-link", fmt("%s/c", in_root("alias")), CORDON_ACCESS_RO, 0);
        add("/t/final-link", in_root("keep-link"), CORDON_ACCESS_RO, 0);
        add("/t/dotdot", fmt("%s/../empty", in_root("g/b")), CORDON_ACCESS_RO, 0);
        /* Read-write: inside the read-only g/c it would add nothing, and plan no rule. */
        add("/t/slashes", fmt("%s//x", in_root("g/c")), CORDON_ACCESS_RW, 0);
        add("/t/missing", in_root("g/none"), CORDON_ACCESS_RO, CORDON_FS_OPTIONAL);
        build(CORDON_BACKEND_LANDLOCK, 7);
        dump_plan();
        const char *real[] = {"g/b/sub", "g/a", "g/c", "g/b/keep", "g/empty", "g/c/x"};
        for (size_t i = 0; i < ELEMENTSOF(real); i++) {
                struct stat st;
                cr_assert_eq(stat(in_root(real[i]), &st), 0);
                const struct cordon_landlock_rule *r = find(in_root(real[i]));
                cr_assert_not_null(r, "no rule for '%s'", real[i]);
                cr_assert(r->dev == st.st_dev && r->ino == st.st_ino, "'%s': not what is there",
                          real[i]);
        }
        const struct cordon_landlock_rule *r = find(in_root("g/none"));
        cr_assert_not_null(r);
        cr_assert_eq(r->ino, 0, "nothing seen at a missing path");
        cr_assert_eq(plan.n_rules, ELEMENTSOF(real) + 1);
        /* The plan prepares: every path is still what planning saw. */
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, NULL), 0);
}

Test(landlock, nested_grants_with_fewer_rights_carve_the_parent)
{
        make_tree();
        add(in_root("g"), in_root("g"), CORDON_ACCESS_RW, 0);
        add(in_root("g/b"), in_root("g/b"), CORDON_ACCESS_RO, 0);
        build(CORDON_BACKEND_LANDLOCK, 7);
        dump_plan();
        /* As with a mount, the read-only root is read-only even inside a writable one. */
        expect(in_root("g"), A(READ_DIR), true);
        expect(in_root("g/b"), READ, false);
        expect(in_root("g/a"), (READ | WRITE) & FILE_ONLY, true);
        expect_none(in_root("g/b/keep"));

        /* A nested grant with at least the parent's rights needs no carving. */
        cordon_policy_free(p);
        p = cordon_policy_new();
        add(in_root("g"), in_root("g"), CORDON_ACCESS_RO, 0);
        add(in_root("g/b"), in_root("g/b"), CORDON_ACCESS_RW, 0);
        build(CORDON_BACKEND_LANDLOCK, 7);
        cr_assert_eq(plan.n_rules, 2);
        expect(in_root("g"), READ, false);
        expect(in_root("g/b"), READ | WRITE, false);

        /* ... unless it holds a mask: the parent must not reach it either. */
        add(in_root("g/b/secret"), NULL, CORDON_ACCESS_MASKED, 0);
        build(CORDON_BACKEND_LANDLOCK, 7);
        dump_plan();
        expect(in_root("g"), A(READ_DIR), true);
        expect_covered(in_root("g/b"), A(READ_DIR), true);
        expect_none(in_root("g/b/secret"));
        expect(in_root("g/a"), READ & FILE_ONLY, true);
        expect(in_root("g/b/keep"), (READ | WRITE) & FILE_ONLY, true);
}

Test(landlock, in_place_read_only_narrows)
{
        make_tree();
        add(in_root("g"), in_root("g"), CORDON_ACCESS_RW, 0);
        add(in_root("g/b"), NULL, CORDON_ACCESS_RO, 0);
        build(CORDON_BACKEND_LANDLOCK, 7);
        dump_plan();
        expect(in_root("g/b"), READ, true);
        expect(in_root("g/a"), (READ | WRITE) & FILE_ONLY, true);
        cr_assert_eq(find(in_root("g/b"))->fs_rule, 1);
}

Test(landlock, carve_limits)
{
        /* Deeper than the limit. */
        char *deep = strdup(in_root("deep"));
        for (int i = 0; i < CORDON_LANDLOCK_CARVE_MAX_DEPTH + 1; i++) {
                char *next = path_join(deep, "d");
                free(deep);
                deep = next;
        }
        mkdir_p(deep);
        add(in_root("deep"), in_root("deep"), CORDON_ACCESS_RO, 0);
        add(deep, NULL, CORDON_ACCESS_MASKED, 0);
        free(deep);
        cr_assert_eq(cordon_landlock_plan_build(p, CORDON_BACKEND_LANDLOCK, 7, &plan), -E2BIG);
        cr_assert_eq(plan.n_rules, 0);

        /* More entries than the limit. */
        cordon_policy_free(p);
        p = cordon_policy_new();
        mkdir_p(in_root("many"));
        for (int i = 0; i < CORDON_LANDLOCK_CARVE_MAX_RULES + 1; i++) {
                int fd =
                    open(fmt("%s/f%05d", in_root("many"), i), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
                cr_assert_geq(fd, 0);
                close(fd);
        }
        add(in_root("many"), in_root("many"), CORDON_ACCESS_RO, 0);
        add(in_root("many/f00000"), NULL, CORDON_ACCESS_MASKED, 0);
        cr_assert_eq(cordon_landlock_plan_build(p, CORDON_BACKEND_LANDLOCK, 7, &plan), -E2BIG);

        /* At the limit it fits: the directory and every other entry. */
        cr_assert_eq(unlink(fmt("%s/f%05d", in_root("many"), 1)), 0);
        build(CORDON_BACKEND_LANDLOCK, 7);
        cr_assert_eq(plan.n_rules, CORDON_LANDLOCK_CARVE_MAX_RULES);
}

/* ---- plans: the default policy ---- */

Test(landlock, default_policy)
{
        mkdir_p(fmt("%s/.ssh", home));
        write_file(fmt("%s/.ssh/id_ed25519", home), "KEY");
        write_file(fmt("%s/.bashrc", home), "alias ll='ls -l'\n");
        p = cordon_policy_free(p);
        lower_ok();

        build(CORDON_BACKEND_NS, 7);
        cr_log_info("ns backend, home tmpwrite:");
        dump_plan();
        expect("/", A(READ_DIR), false);
        /* Below the writable tmpfs /tmp (the fixture's home is there) and home, which hold
         * their rights already. */
        expect_covered(home, READ | WRITE, false);
        expect_covered(project, READ | WRITE, false);
        expect_covered(fmt("%s/.bashrc", home), READ, false);
        expect("/usr", READ, false);
        expect("/tmp", READ | WRITE, false);
        expect("/dev/pts", TERMINAL, false);
        expect_none(fmt("%s/.ssh", home));
        cr_assert_not(plan.deny_tcp, "the default mode is filtered: TCP leaves through pasta");
        cr_assert(plan.scope);

        build(CORDON_BACKEND_LANDLOCK, 7);
        cr_log_info("landlock backend, home tmpwrite:");
        dump_plan();
        expect(project, READ | WRITE, false);
        expect_none(home);
        expect(fmt("%s/.bashrc", home), READ, false);
        expect("/usr", READ, false);
        if (faccessat(AT_FDCWD, "/etc/shadow", R_OK, AT_EACCESS) == 0) {
                /* A caller who could read the password hashes gets /etc carved around them. */
                expect("/etc", A(READ_DIR), true);
                expect_none("/etc/shadow");
                expect("/etc/passwd", READ & FILE_ONLY, true);
        } else
                expect("/etc", READ, false);
        expect_none("/tmp");
        expect_none("/dev/pts");
        expect("/dev/null", A(READ_FILE) | A(WRITE_FILE), false);

        s.home_access = CORDON_HOME_READ;
        lower_ok();
        build(CORDON_BACKEND_LANDLOCK, 7);
        cr_log_info("landlock backend, home read:");
        dump_plan();
        /* $HOME holds the masked ~/.ssh: carved, and not listable. */
        expect_none(home);
        expect_none(fmt("%s/.ssh", home));
        expect_none(fmt("%s/.ssh/id_ed25519", home));
        expect(fmt("%s/.bashrc", home), READ & FILE_ONLY, true);
        /* The project has a grant of its own with more rights: carving leaves it out. */
        expect(project, READ | WRITE, false);
}

/* ---- applying: helpers ---- */

static int require_abi(int min)
{
        int abi = cordon_landlock_abi();
        if (abi < min)
                cr_skip_test("needs Landlock ABI %d, the kernel has %d", min, abi);
        return abi;
}

struct op {
        int (*fn)(const struct op *);
        const char *a, *b;
        int port;
};

/* Runs @o in a forked child, after applying @pl unless it is NULL. Returns 0 when the operation
 * succeeded, else its errno; 250+ for a failure of the harness itself. */
static int in_child(const struct cordon_landlock_plan *pl, const struct op *o)
{
        fflush(NULL);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                if (pl) {
                        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                                _exit(250);
                        if (cordon_landlock_apply(pl, NULL) < 0)
                                _exit(251);
                }
                _exit(o->fn(o));
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status), "child status %#x", status);
        cr_assert_lt(WEXITSTATUS(status), 250, "harness failure %d", WEXITSTATUS(status));
        return WEXITSTATUS(status);
}

/* The operation fails with @err under @pl and succeeds (or fails with @control) without. */
static void attack(const struct cordon_landlock_plan *pl, const struct op *o, int err, int control,
                   const char *what)
{
        int c = in_child(NULL, o);
        cr_assert_eq(c, control, "control: %s: %s, expected %s", what, strerrorname_np(c),
                     strerrorname_np(control));
        int r = in_child(pl, o);
        cr_assert_eq(r, err, "%s: %s, expected %s", what, strerrorname_np(r), strerrorname_np(err));
}

static int ret_errno(int r)
{
        return r < 0 ? errno : 0;
}

static int op_create(const struct op *o)
{
        int fd = open(o->a, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
                return errno;
        close(fd);
        return unlink(o->a) < 0 ? errno : 0;
}

static int op_read(const struct op *o)
{
        int fd = open(o->a, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno;
        close(fd);
        return 0;
}

static int op_list(const struct op *o)
{
        int fd = open(o->a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return errno;
        close(fd);
        return 0;
}

static int op_link(const struct op *o)
{
        if (link(o->a, o->b) < 0)
                return errno;
        return unlink(o->b) < 0 ? errno : 0;
}

static int op_rename(const struct op *o)
{
        if (rename(o->a, o->b) < 0)
                return errno;
        return rename(o->b, o->a) < 0 ? errno : 0;
}

static int op_truncate(const struct op *o)
{
        return ret_errno(truncate(o->a, 0));
}

static int op_tcp(const struct op *o)
{
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return errno;
        struct sockaddr_in sin = {.sin_family = AF_INET,
                                  .sin_port = htons((uint16_t)o->port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        int r = streq(o->a, "bind") ? bind(fd, (struct sockaddr *)&sin, sizeof(sin))
                                    : connect(fd, (struct sockaddr *)&sin, sizeof(sin));
        r = ret_errno(r);
        close(fd);
        return r;
}

static int op_abstract(const struct op *o)
{
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return errno;
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        memcpy(sun.sun_path + 1, o->a, strlen(o->a));
        int r = ret_errno(
            connect(fd, (struct sockaddr *)&sun,
                    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(o->a))));
        close(fd);
        return r;
}

static int op_kill_parent(const struct op *o)
{
        (void)o;
        return ret_errno(kill(getppid(), 0));
}

/* A read-only root, two writable roots and a directory outside all of them. */
static void two_roots(int abi)
{
        write_file(in_root("ro/file"), "ro");
        write_file(in_root("rw/file"), "rw");
        write_file(in_root("rw2/file"), "rw2");
        write_file(in_root("out/file"), "out");
        add(in_root("ro"), in_root("ro"), CORDON_ACCESS_RO, 0);
        add(in_root("rw"), in_root("rw"), CORDON_ACCESS_RW, 0);
        add(in_root("rw2"), in_root("rw2"), CORDON_ACCESS_RW, 0);
        build(CORDON_BACKEND_LANDLOCK, abi);
}

/* ---- applying: the filesystem ---- */

Test(landlock, apply_write_and_read_outside_roots)
{
        two_roots(require_abi(1));
        struct op create_rw = {op_create, in_root("rw/new"), NULL, 0};
        cr_assert_eq(in_child(&plan, &create_rw), 0, "the writable root is writable");
        attack(&plan, &(struct op){op_create, in_root("out/new"), NULL, 0}, EACCES, 0,
               "create outside the roots");
        attack(&plan, &(struct op){op_create, in_root("ro/new"), NULL, 0}, EACCES, 0,
               "create in the read-only root");
        attack(&plan, &(struct op){op_read, in_root("out/file"), NULL, 0}, EACCES, 0,
               "read outside the roots");
        attack(&plan, &(struct op){op_list, in_root("out"), NULL, 0}, EACCES, 0,
               "list outside the roots");
        cr_assert_eq(in_child(&plan, &(struct op){op_read, in_root("ro/file"), NULL, 0}), 0);
}

Test(landlock, apply_refer_across_roots)
{
        two_roots(require_abi(2));
        /* The read-only root has no REFER: moving a file out of it would give it more rights. */
        attack(&plan, &(struct op){op_link, in_root("ro/file"), in_root("rw/link"), 0}, EXDEV, 0,
               "hard link from the read-only root into a writable one");
        /* No MAKE_REG in the destination: EACCES prevails over EXDEV. */
        attack(&plan, &(struct op){op_rename, in_root("rw/file"), in_root("ro/moved"), 0}, EACCES,
               0, "rename into the read-only root");
        /* Two writable roots with the same rights, REFER included: allowed. */
        cr_assert_eq(
            in_child(&plan, &(struct op){op_rename, in_root("rw/file"), in_root("rw2/moved"), 0}),
            0);
        cr_assert_eq(
            in_child(&plan, &(struct op){op_link, in_root("rw2/file"), in_root("rw/link"), 0}), 0);
}

Test(landlock, apply_truncate_read_only)
{
        two_roots(require_abi(3));
        attack(&plan, &(struct op){op_truncate, in_root("ro/file"), NULL, 0}, EACCES, 0,
               "truncate in the read-only root");
        cr_assert_eq(in_child(&plan, &(struct op){op_truncate, in_root("rw/file"), NULL, 0}), 0);

        /* An ABI 2 plan does not handle TRUNCATE, even on a newer kernel. */
        write_file(in_root("ro/file"), "ro");
        build(CORDON_BACKEND_LANDLOCK, 2);
        cr_assert_eq(in_child(&plan, &(struct op){op_truncate, in_root("ro/file"), NULL, 0}), 0);
        cr_assert_eq(in_child(&plan, &(struct op){op_read, in_root("out/file"), NULL, 0}), EACCES);
}

Test(landlock, apply_carved)
{
        require_abi(1);
        make_tree();
        add(in_root("g"), in_root("g"), CORDON_ACCESS_RW, 0);
        add(in_root("g/b/secret"), NULL, CORDON_ACCESS_MASKED, 0);
        add(in_root("g/c"), NULL, CORDON_ACCESS_MASKED, 0);
        build(CORDON_BACKEND_LANDLOCK, cordon_landlock_abi());
        attack(&plan, &(struct op){op_read, in_root("g/b/secret"), NULL, 0}, EACCES, 0,
               "read the masked file");
        attack(&plan, &(struct op){op_read, in_root("g/c/x"), NULL, 0}, EACCES, 0,
               "read in the masked directory");
        attack(&plan, &(struct op){op_list, in_root("g/c"), NULL, 0}, EACCES, 0,
               "list the masked directory");
        attack(&plan, &(struct op){op_read, in_root("g/link/secret"), NULL, 0}, EACCES, 0,
               "read the masked file through a symlink");
        const char *readable[] = {"g/a", "g/b/keep", "g/b/sub/f"};
        for (size_t i = 0; i < ELEMENTSOF(readable); i++)
                cr_assert_eq(in_child(&plan, &(struct op){op_read, in_root(readable[i]), NULL, 0}),
                             0, "%s stays readable", readable[i]);
        cr_assert_eq(in_child(&plan, &(struct op){op_list, in_root("g/b"), NULL, 0}), 0,
                     "a directory holding only masked files stays listable");
        cr_assert_eq(in_child(&plan, &(struct op){op_create, in_root("g/b/sub/new"), NULL, 0}), 0);
        /* The cost of carving: nothing new directly in a carved directory. */
        attack(&plan, &(struct op){op_create, in_root("g/b/new"), NULL, 0}, EACCES, 0,
               "create in a carved directory");
}

Test(landlock, apply_rule_errors)
{
        int abi = require_abi(1);
        mkdir_p(in_root("dir"));
        cr_assert_eq(symlink("dir", in_root("link")), 0);
        struct cordon_landlock_plan pl = {.abi = abi, .handled = 0x1fff};
        cr_assert_eq(cordon_landlock_plan_add(&pl, in_root("dir"), READ, false), 0);
        cr_assert_eq(cordon_landlock_plan_add(&pl, in_root("missing"), READ, true), 0);
        cr_assert_eq(cordon_landlock_plan_add(&pl, in_root("link"), READ, true), 0);
        cr_assert_eq(in_child(&pl, &(struct op){op_read, in_root("dir"), NULL, 0}), 0,
                     "optional missing paths and symlinks are skipped");

        int fds[2];
        cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
        const char *bad[] = {"missing", "link"};
        const int errs[] = {-ENOENT, -ELOOP};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                pl.rules[1 + i].optional = false;
                pid_t pid = fork();
                cr_assert_geq(pid, 0);
                if (pid == 0) {
                        int rule = -2;
                        int r[2] = {cordon_landlock_apply(&pl, &rule), 0};
                        r[1] = rule;
                        _exit(write(fds[1], r, sizeof(r)) == sizeof(r) ? 0 : 1);
                }
                int r[2], status;
                cr_assert_eq(read(fds[0], r, sizeof(r)), (ssize_t)sizeof(r));
                cr_assert_eq(waitpid(pid, &status, 0), pid);
                cr_assert_eq(r[0], errs[i], "%s: %d", bad[i], r[0]);
                cr_assert_eq(r[1], (int)(1 + i), "the failing rule");
                pl.rules[1 + i].optional = true;
        }
        close(fds[0]);
        close(fds[1]);
        cordon_landlock_plan_clear(&pl);

        /* More than the ABI offers is refused, not ignored. */
        pl = (struct cordon_landlock_plan){.abi = 3, .handled = 0x7fff, .deny_tcp = true};
        int rule = 0;
        cr_assert_eq(cordon_landlock_apply(&pl, &rule), -EOPNOTSUPP);
        cr_assert_eq(rule, -1);
        pl = (struct cordon_landlock_plan){.abi = 5, .handled = 0xffff, .scope = true};
        cr_assert_eq(cordon_landlock_apply(&pl, NULL), -EOPNOTSUPP);
}

/* A planned path that changed before the supervisor opens it: a directory swapped for a
 * symlink (what a concurrent writer would do to redirect the grant into $HOME) or for another
 * directory is refused, although carved rules are optional; one that merely vanished is not. */
Test(landlock, prepare_refuses_a_changed_path)
{
        int abi = require_abi(1);
        make_tree();
        mkdir_p(in_root("other/sub"));
        add(in_root("g"), in_root("g"), CORDON_ACCESS_RW, 0);
        add(in_root("g/b/secret"), NULL, CORDON_ACCESS_MASKED, 0);
        build(CORDON_BACKEND_LANDLOCK, abi);
        expect(in_root("g/b/sub"), READ | WRITE, true);
        cr_assert_neq(find(in_root("g/b/sub"))->ino, 0, "the carving notes what it saw");

        /* Gone since planning: skipped. */
        cr_assert_eq(unlink(in_root("g/a")), 0);
        int rule = -2;
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, &rule), 0);
        cr_assert(plan.prepared);
        cr_assert_eq(rule, -1);
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, &rule), -EINVAL, "prepared twice");
        cr_assert_eq(cordon_landlock_plan_add(&plan, "/y", READ, false), -EINVAL);

        /* Another directory in its place. */
        build(CORDON_BACKEND_LANDLOCK, abi);
        cr_assert_eq(rename(in_root("g/b/sub"), in_root("sub-moved")), 0);
        mkdir_p(in_root("g/b/sub"));
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, &rule), -ESTALE);
        cr_assert_geq(rule, 0);
        cr_assert_str_eq(plan.rules[rule].path, in_root("g/b/sub"));
        cr_assert_not(plan.prepared);

        /* A symlink on the way: g/b -> other, which has a sub/ too. */
        build(CORDON_BACKEND_LANDLOCK, abi);
        cr_assert_eq(rename(in_root("g/b"), in_root("b-moved")), 0);
        cr_assert_eq(symlink(in_root("other"), in_root("g/b")), 0);
        /* g/b's own READ_DIR is g's (no rule of its own): refused at the first rule below it,
         * where the symlink is only on the way to the rule's path. */
        expect_covered(in_root("g/b"), A(READ_DIR), true);
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, &rule), -ELOOP);
        cr_assert(path_is_below(plan.rules[rule].path, in_root("g/b")) &&
                  !streq(plan.rules[rule].path, in_root("g/b")));
        cr_assert(plan.rules[rule].optional);
}

/* A symlink swapped onto an uncarved grant's own path before the plan is prepared. */
Test(landlock, prepare_refuses_a_grant_turned_symlink)
{
        int abi = require_abi(1);
        mkdir_p(in_root("proj"));
        mkdir_p(in_root("home/.ssh"));
        add(in_root("proj"), in_root("proj"), CORDON_ACCESS_RW, CORDON_FS_OPTIONAL);
        build(CORDON_BACKEND_LANDLOCK, abi);
        cr_assert_eq(rename(in_root("proj"), in_root("proj-moved")), 0);
        cr_assert_eq(symlink(in_root("home"), in_root("proj")), 0);
        int rule = -2;
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, &rule), -ELOOP);
        cr_assert_eq(rule, 0);
}

/* The prepared ruleset restricts the child just as one built there would. */
Test(landlock, apply_prepared)
{
        require_abi(1);
        make_tree();
        add(in_root("g"), in_root("g"), CORDON_ACCESS_RW, 0);
        add(in_root("g/b/secret"), NULL, CORDON_ACCESS_MASKED, 0);
        build(CORDON_BACKEND_LANDLOCK, cordon_landlock_abi());
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, NULL), 0);
        attack(&plan, &(struct op){op_read, in_root("g/b/secret"), NULL, 0}, EACCES, 0,
               "read the masked file");
        cr_assert_eq(in_child(&plan, &(struct op){op_read, in_root("g/b/keep"), NULL, 0}), 0);
        cr_assert_eq(in_child(&plan, &(struct op){op_create, in_root("g/b/sub/new"), NULL, 0}), 0);
        cordon_landlock_plan_clear(&plan);
        cr_assert_not(plan.prepared);
}

/* ---- applying: network and scopes ---- */

/* A loopback port that nothing listens on (just freed). */
static int free_port(void)
{
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(sin);
        cr_assert_geq(fd, 0);
        cr_assert_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
        cr_assert_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
        close(fd);
        return ntohs(sin.sin_port);
}

Test(landlock, apply_deny_tcp)
{
        int abi = require_abi(4);
        cr_assert_eq(cordon_policy_set_net_mode(p, CORDON_NET_ISOLATED, "test"), 0);
        /* The ns backend leaves TCP to its network namespace. */
        build(CORDON_BACKEND_NS, abi);
        cr_assert_not(plan.deny_tcp);
        build(CORDON_BACKEND_LANDLOCK, abi);
        cr_assert(plan.deny_tcp);
        /* Only the network part: a plan that handles no filesystem right. */
        plan.handled = 0;
        int port = free_port();
        attack(&plan, &(struct op){op_tcp, "connect", NULL, port}, EACCES, ECONNREFUSED,
               "TCP connect to 127.0.0.1");
        attack(&plan, &(struct op){op_tcp, "bind", NULL, 0}, EACCES, 0, "TCP bind to 127.0.0.1");
        attack(&plan, &(struct op){op_tcp, "bind", NULL, port}, EACCES, 0,
               "TCP bind to 127.0.0.1:port");

        cr_assert_eq(cordon_policy_set_net_mode(p, CORDON_NET_OPEN, "test"), 0);
        build(CORDON_BACKEND_NS, abi);
        cr_assert_not(plan.deny_tcp);
        plan.handled = 0;
        plan.scope = false;
        plan.rules[0].access = 0;
        /* Nothing handled at all: the kernel refuses an empty ruleset. */
        cr_assert_eq(cordon_landlock_apply(&plan, NULL), -ENOMSG);
}

Test(landlock, apply_scope_abstract_unix_and_signals)
{
        int abi = require_abi(6);
        build(CORDON_BACKEND_NS, abi);
        cr_assert(plan.scope);
        plan.handled = 0;

        const char *name = fmt("cordon-test-landlock-%d", (int)getpid());
        int srv = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        cr_assert_geq(srv, 0);
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        memcpy(sun.sun_path + 1, name, strlen(name));
        cr_assert_eq(bind(srv, (struct sockaddr *)&sun,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))),
                     0);
        cr_assert_eq(listen(srv, 8), 0);
        attack(&plan, &(struct op){op_abstract, name, NULL, 0}, EPERM, 0,
               "connect to an abstract socket made outside");
        close(srv);

        attack(&plan, &(struct op){op_kill_parent, NULL, NULL, 0}, EPERM, 0, "kill(parent, 0)");
}

/* A concurrent rename between planning and prepare: the masked directory carried into a granted
 * sibling, or a rule that lands on a directory holding a masked path. Each rule is fixed on the
 * object it opened, so prepare checks the masks against those objects last. */
Test(landlock, prepare_refuses_a_mask_moved_under_a_grant)
{
        int abi = require_abi(1);
        make_tree();
        write_file(in_root("g/c/d/secret"), "secret");
        add(in_root("g"), in_root("g"), CORDON_ACCESS_RW, 0);
        add(in_root("g/c/d"), NULL, CORDON_ACCESS_MASKED, 0);
        build(CORDON_BACKEND_LANDLOCK, abi);
        cr_assert_eq(plan.n_masks, 1);
        cr_assert_str_eq(plan.masks[0].path, in_root("g/c/d"));
        cr_assert(plan.masks[0].dir);
        expect(in_root("g/b"), READ | WRITE, true);

        /* g/c/d moved into g/b, which has a grant of its own. */
        cr_assert_eq(rename(in_root("g/c/d"), in_root("g/b/d")), 0);
        int rule = -2;
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, &rule), -ESTALE);
        cr_assert_eq(rule, -1, "no rule failed: the mask is no longer where it was");
        cr_assert_not(plan.prepared);
        cr_assert_eq(rename(in_root("g/b/d"), in_root("g/c/d")), 0);

        /* Back in place: prepared. */
        build(CORDON_BACKEND_LANDLOCK, abi);
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, NULL), 0);

        /* A grant on the directory holding the masked one reaches it. */
        build(CORDON_BACKEND_LANDLOCK, abi);
        cr_assert_eq(cordon_landlock_plan_add(&plan, in_root("g/c"), READ, false), 0);
        cr_assert_eq(cordon_landlock_plan_prepare(&plan, &rule), -ESTALE);
        cr_assert_str_eq(plan.rules[rule].path, in_root("g/c"));
}
