/* Unit tests for src/shared/fd-util.c: the placeholders for a caller's closed 0..2
 * (stdio_guard_*) and the program-start variant (stdio_open_missing). Each case runs in a forked
 * child, which may close its own standard descriptors, and reports through its exit status: 0,
 * or the number of the first check that failed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/fd-util.h"
#include "shared/strv.h"

static bool is_dev_null(int fd)
{
        struct stat st;
        return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

static bool is_closed(int fd)
{
        return fcntl(fd, F_GETFD) < 0;
}

static int in_child(int (*fn)(void))
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
                _exit(fn());
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st));
        return WEXITSTATUS(st);
}

static int guard_fills_and_releases(void)
{
        struct stdio_guard g;
        close(0);
        close(2);
        if (stdio_guard_fill(&g) < 0)
                return 1;
        if (g.filled != 5 || !is_dev_null(0) || !is_dev_null(2))
                return 2;
        if (!(fcntl(0, F_GETFD) & FD_CLOEXEC) || !(fcntl(2, F_GETFD) & FD_CLOEXEC))
                return 3; /* the command must not inherit them */
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0 || p[0] < 3 || p[1] < 3)
                return 4; /* what is opened meanwhile lands above 2 */
        /* The caller puts its own descriptor at 2 meanwhile: that one stays. */
        if (dup2(p[1], 2) != 2)
                return 5;
        stdio_guard_release(&g);
        if (!is_closed(0))
                return 6;
        if (is_closed(2) || is_dev_null(2))
                return 7;
        stdio_guard_release(&g); /* twice: nothing */
        return is_closed(2) ? 9 : 0;
}

static int guard_nothing_to_do(void)
{
        struct stdio_guard g;
        if (stdio_guard_fill(&g) < 0 || g.filled != 0)
                return 1;
        stdio_guard_release(&g);
        return is_closed(0) || is_closed(1) || is_closed(2) ? 2 : 0;
}

static int open_missing(void)
{
        close(1);
        if (stdio_open_missing() < 0)
                return 1;
        if (!is_dev_null(1) || (fcntl(1, F_GETFD) & FD_CLOEXEC))
                return 2; /* inherited, for the command */
        close(0);
        close(1);
        close(2);
        if (stdio_open_missing() < 0)
                return 3;
        return is_dev_null(0) && is_dev_null(1) && is_dev_null(2) ? 0 : 4;
}

Test(fd_util, stdio_guard)
{
        cr_expect_eq(in_child(guard_fills_and_releases), 0);
        cr_expect_eq(in_child(guard_nothing_to_do), 0);
}

Test(fd_util, stdio_open_missing)
{
        cr_expect_eq(in_child(open_missing), 0);
}

Test(fd_util, dir_read_names_sorted_bounded)
{
        char dir[] = "/tmp/cordon-test-names.XXXXXX";
        cr_assert_not_null(mkdtemp(dir));
        const char *names[] = {"b", "a", ".c"};
        char path[sizeof(dir) + 8];
        for (size_t i = 0; i < 3; i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
                int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
                cr_assert_geq(fd, 0);
                close(fd);
        }
        DIR *d = opendir(dir);
        cr_assert_not_null(d);
        char **got = NULL;
        size_t n = 0;
        cr_assert_eq(dir_read_names(d, 3, &got, &n), 0);
        cr_assert_eq(n, 3);
        cr_assert_str_eq(got[0], ".c");
        cr_assert_str_eq(got[1], "a");
        cr_assert_str_eq(got[2], "b");
        cr_assert_null(got[3]);
        strv_free(got);
        rewinddir(d);
        cr_assert_eq(dir_read_names(d, 2, &got, NULL), -E2BIG);
        closedir(d);
        for (size_t i = 0; i < 3; i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
                unlink(path);
        }
        rmdir(dir);
}

/* remove_tree_physical(): a chain of directories deeper than the walk holds and longer than
 * PATH_MAX, one made mode 000, a file made mode 000 and a link out of the tree, all go; the
 * link's target outside stays. (Before the walk worked on descriptors, nftw() stopped at
 * PATH_MAX and left the chain behind.) */
Test(fd_util, remove_tree_any_depth)
{
        char top[] = "/tmp/cordon-fd-util-XXXXXX";
        cr_assert_not_null(mkdtemp(top));
        int topfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(topfd, 0);
        cr_assert_eq(mkdirat(topfd, "tree", 0755), 0);
        int keep = openat(topfd, "keep", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        cr_assert_geq(keep, 0);
        close(keep);
        char name[201];
        memset(name, 'd', sizeof(name) - 1);
        name[sizeof(name) - 1] = 0;
        int d = openat(topfd, "tree", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(d, 0);
        for (int i = 0; i < 100; i++) { /* 100 * 201 bytes: five times PATH_MAX */
                cr_assert_eq(mkdirat(d, name, 0755), 0);
                if (i == 50)
                        cr_assert_eq(symlinkat(top, d, "out"), 0);
                int next = openat(d, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                cr_assert_geq(next, 0);
                close(d);
                d = next;
        }
        int f = openat(d, "file", O_WRONLY | O_CREAT | O_CLOEXEC, 0);
        cr_assert_geq(f, 0);
        close(f);
        cr_assert_eq(mkdirat(d, "locked", 0755), 0);
        int l = openat(d, "locked/inner", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        cr_assert_geq(l, 0);
        close(l);
        cr_assert_eq(fchmodat(d, "locked", 0, 0), 0);
        close(d);

        char tree[sizeof(top) + 8];
        snprintf(tree, sizeof(tree), "%s/tree", top);
        remove_tree_physical(tree);
        struct stat st;
        cr_assert_eq(fstatat(topfd, "tree", &st, AT_SYMLINK_NOFOLLOW), -1);
        cr_assert_eq(errno, ENOENT);
        cr_assert_eq(fstatat(topfd, "keep", &st, AT_SYMLINK_NOFOLLOW), 0,
                     "the link's target outside the tree was removed");
        close(topfd);
        remove_tree_physical(top);
        cr_assert_eq(access(top, F_OK), -1);
}
