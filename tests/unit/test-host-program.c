/* Unit tests for src/lib/mech/host-program.c: a program cordon runs outside the sandbox opens
 * only when root alone could have chosen it. As root the files are made and handed to another
 * uid (nobody) to show each refusal; as a user every file the test makes is the user's, which is
 * the refusal that matters (a file a sandbox wrote), and the system's own programs the control. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mech/host-program.h"
#include "lib/policy/diag.h"

#define NOBODY 65534

static char dir[] = "/tmp/cordon-test-hostprog-XXXXXX";
static struct cordon_diag d;

static void setup(void)
{
        cr_assert_not_null(mkdtemp(dir));
        cr_assert_eq(chmod(dir, 0755), 0);
        d = (struct cordon_diag){0};
}

static void teardown(void)
{
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        if (system(cmd) != 0)
                cr_log_warn("could not remove %s", dir);
}

TestSuite(host_program, .init = setup, .fini = teardown);

static const char *make(const char *name, mode_t mode)
{
        static char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fputs("#!/bin/sh\nexit 0\n", f);
        fclose(f);
        cr_assert_eq(chmod(path, mode), 0);
        return path;
}

static int open_it(const char *path)
{
        int fd = -1;
        int r = cordon_host_program_open(path, "NETWORK_FILTER_HELPER", &fd, &d);
        if (r >= 0) {
                struct stat st;
                cr_assert_eq(fstat(fd, &st), 0);
                cr_assert(S_ISREG(st.st_mode));
                cr_assert_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
                close(fd);
        }
        return r;
}

Test(host_program, system_programs_open)
{
        /* /bin is a symlink root owns on a merged-/usr system: followed. */
        cr_expect_eq(open_it("/bin/sh"), 0, "%s", d.message);
        cr_expect_eq(open_it("/usr/bin/env"), 0, "%s", d.message);
}

Test(host_program, refusals_of_form)
{
        cr_expect_eq(open_it("bin/sh"), -EINVAL);
        cr_expect(strstr(d.message, "NETWORK_FILTER_HELPER"), "%s", d.message);
        cr_expect_eq(open_it("/nonexistent/pasta"), -ENOENT);
        cr_expect_eq(open_it("/usr/bin"), -EPERM, "a directory");
        cr_expect_eq(open_it("/dev/null"), -EPERM, "not a regular file");
        cr_expect_eq(open_it("/etc/passwd/x"), -ENOTDIR);
}

Test(host_program, a_file_someone_else_owns)
{
        const char *p = make("evil", 0755);
        if (geteuid() == 0)
                cr_assert_eq(chown(p, NOBODY, NOBODY), 0);
        cr_expect_eq(open_it(p), -EPERM);
        cr_expect(strstr(d.message, p) && strstr(d.message, "not root"), "%s", d.message);
}

Test(host_program, root_files_and_their_directories)
{
        if (geteuid() != 0)
                cr_skip_test("root only (making root-owned files)");
        const char *p = make("ok", 0755);
        cr_expect_eq(open_it(p), 0, "control: root's, in root's directories: %s", d.message);
        cr_assert_eq(chmod(p, 0775), 0);
        cr_expect_eq(open_it(p), -EPERM, "writable by its group");
        cr_assert_eq(chmod(p, 0755), 0);
        cr_assert_eq(chmod(dir, 0777), 0);
        cr_expect_eq(open_it(p), -EPERM, "in a directory others can write");
        cr_expect(strstr(d.message, "writable by group or others"), "%s", d.message);
        cr_assert_eq(chmod(dir, 01777), 0);
        cr_expect_eq(open_it(p), 0, "a sticky directory of root's, as /tmp: %s", d.message);
        cr_assert_eq(chmod(dir, 0755), 0);
        cr_assert_eq(chown(dir, NOBODY, NOBODY), 0);
        cr_expect_eq(open_it(p), -EPERM, "in a directory another user owns");
        cr_assert_eq(chown(dir, 0, 0), 0);
}

Test(host_program, symlinks)
{
        if (geteuid() != 0)
                cr_skip_test("root only (making root-owned links)");
        const char *p = make("real", 0755);
        char link[PATH_MAX];
        snprintf(link, sizeof(link), "%s/link", dir);
        cr_assert_eq(symlink("real", link), 0);
        cr_expect_eq(open_it(link), 0, "a link root owns: %s", d.message);
        cr_assert_eq(lchown(link, NOBODY, NOBODY), 0);
        cr_expect_eq(open_it(link), -EPERM, "a link another user owns");
        cr_expect(strstr(d.message, "symlink"), "%s", d.message);
        /* A root link to a file someone else owns is that someone's file. */
        cr_assert_eq(lchown(link, 0, 0), 0);
        cr_assert_eq(chown(p, NOBODY, NOBODY), 0);
        cr_expect_eq(open_it(link), -EPERM);
}
