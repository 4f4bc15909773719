/* Unit tests for src/lib/policy/output-file.c: the link walker, where a sandbox could write, and
 * opening an output file beneath its directory. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/output-file.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

static char root[] = "/tmp/test-output-file.XXXXXX";
static char *dir_real;
static struct cordon_policy *p;

static char *at(const char *rel)
{
        char *s = NULL;
        cr_assert(asprintf(&s, "%s/%s", dir_real, rel) > 0);
        return s;
}

/* root/proj (a writable bind) holds logs -> root/autostart; root/plain is a directory. */
static void setup(void)
{
        cr_assert_not_null(mkdtemp(root));
        dir_real = realpath(root, NULL);
        _cleanup_free_ char *proj = at("proj"), *autostart = at("autostart"), *plain = at("plain"),
                            *link = at("proj/logs");
        cr_assert_eq(mkdir(proj, 0700), 0);
        cr_assert_eq(mkdir(autostart, 0700), 0);
        cr_assert_eq(mkdir(plain, 0700), 0);
        cr_assert_eq(symlink(autostart, link), 0);
        p = cordon_policy_new();
        cr_assert_not_null(p);
        cr_assert_eq(cordon_policy_add_fs(p, proj, proj, CORDON_ACCESS_RW, 0, "test"), 0);
}

static void teardown(void)
{
        cordon_policy_free(p);
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        cr_expect_eq(system(cmd), 0);
        free(dir_real);
}

TestSuite(output_file, .init = setup, .fini = teardown);

Test(output_file, could_write_dir)
{
        _cleanup_free_ char *proj = at("proj"), *sub = at("proj/x"), *plain = at("plain");
        cr_assert(cordon_policy_could_write_dir(p, proj));
        cr_assert(cordon_policy_could_write_dir(p, sub));
        cr_assert_not(cordon_policy_could_write_dir(p, plain), "control: not a bind");
        /* Strictly below an allowed project parent, unless a home lies at or below it. */
        cr_assert_eq(strv_extend(&p->link_parents, dir_real), 0);
        cr_assert(cordon_policy_could_write_dir(p, plain));
        cr_assert_not(cordon_policy_could_write_dir(p, dir_real), "the parent itself");
        cr_assert_eq(strv_extend(&p->link_homes, plain), 0);
        cr_assert_not(cordon_policy_could_write_dir(p, plain), "a home directory");
}

static bool always(const char *dir, const void *userdata)
{
        (void)dir;
        (void)userdata;
        return true;
}

static bool never(const char *dir, const void *userdata)
{
        (void)dir;
        (void)userdata;
        return false;
}

Test(output_file, find_link)
{
        _cleanup_free_ char *path = at("proj/logs/x"), *link = NULL, *target = NULL,
                            *autostart = at("autostart"), *plain = at("plain/x");
        cr_assert_eq(cordon_path_find_link(path, NULL, always, NULL, &link, &target), 1);
        _cleanup_free_ char *want = at("proj/logs");
        cr_assert_str_eq(link, want);
        cr_assert_str_eq(target, autostart);
        cr_assert_eq(cordon_path_find_link(path, NULL, never, NULL, &link, &target), 0,
                     "a link in a directory no sandbox writes is followed");
        cr_assert_eq(cordon_path_find_link(plain, NULL, always, NULL, &link, &target), 0,
                     "control: no link on the way");
}

Test(output_file, open_refuses_link_and_bind)
{
        struct cordon_diag diag = {0};
        int fd = -1;
        _cleanup_free_ char *through = at("proj/logs/net.log"), *inside = at("proj/net.log"),
                            *good = at("plain/net.log"), *planted = at("autostart/net.log");
        cr_assert_eq(cordon_policy_open_output_append(p, through, "NETWORK_LOG", &fd, &diag),
                     -EPERM);
        cr_assert(strstr(diag.message, "goes through symlink"), "%s", diag.message);
        cr_assert_eq(access(planted, F_OK), -1, "nothing created behind the link");
        cr_assert_eq(cordon_policy_open_output_append(p, inside, "NETWORK_LOG", &fd, &diag),
                     -EPERM);
        cr_assert(strstr(diag.message, "which the sandbox can write"), "%s", diag.message);
        cr_assert_eq(cordon_policy_open_output_append(p, good, "NETWORK_LOG", &fd, &diag), 0, "%s",
                     diag.message);
        cr_assert_geq(fd, 0);
        cr_assert(fcntl(fd, F_GETFL) & O_APPEND);
        close(fd);
        /* A link at the name itself is never followed. */
        _cleanup_free_ char *name_link = at("plain/link.log");
        cr_assert_eq(symlink(planted, name_link), 0);
        cr_assert_eq(cordon_policy_open_output_append(p, name_link, "NETWORK_LOG", &fd, &diag),
                     -ELOOP);
        int dir_fd = -1;
        char *name = NULL;
        cr_assert_eq(cordon_policy_open_output_dir(p, good, "X", &dir_fd, &name, &diag), 0);
        cr_assert_str_eq(name, "net.log");
        close(dir_fd);
        free(name);
        cr_assert_eq(cordon_policy_open_output_dir(p, "/tmp/", "X", &dir_fd, &name, &diag),
                     -EINVAL);
}
