/* Unit tests for src/lib/supervisor/notify-fs.c: the launch's private /dev/shm stand-in (made as
 * asked, removed without following links), the names and flags accepted on the command's
 * behalf, links planted in the directory, and the test for a create under the host's /tmp. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "lib/supervisor/notify-fs.h"
#include "shared/macro.h"

static char *shm_path;
static int shm_fd = -1;
static char outside[] = "/tmp/cordon-notify-fs-XXXXXX";
static bool outside_made;

static void setup(void)
{
        int r = cordon_shm_dir_create(&shm_path, &shm_fd);
        if (r == -ENOTSUP)
                cr_skip_test("/dev/shm is not a tmpfs here");
        cr_assert_eq(r, 0, "cordon_shm_dir_create: %s", strerror(-r));
        cr_assert(mkdtemp(outside));
        outside_made = true;
        /* A file and a directory outside, for links planted inside to point at. */
        char p[256];
        snprintf(p, sizeof(p), "%s/secret", outside);
        FILE *f = fopen(p, "w");
        cr_assert(f);
        fputs("host", f);
        fclose(f);
}

static void teardown(void)
{
        if (shm_fd >= 0) {
                cordon_shm_dir_remove(shm_fd, shm_path);
                close(shm_fd);
        }
        free(shm_path);
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", outside);
        if (outside_made)
                (void)!system(cmd);
}

TestSuite(notify_fs, .init = setup, .fini = teardown);

static char *outside_path(const char *name)
{
        static char p[256];
        snprintf(p, sizeof(p), "%s/%s", outside, name);
        return p;
}

static char *read_file(const char *p)
{
        static char buf[64];
        memset(buf, 0, sizeof(buf));
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        return n < 0 ? NULL : buf;
}

Test(notify_fs, dir_is_private_tmpfs_and_close_on_exec)
{
        cr_assert(strncmp(shm_path, "/dev/shm/cordon-shm-", 20) == 0, "%s", shm_path);
        cr_assert_eq(strlen(shm_path), strlen("/dev/shm/cordon-shm-XXXXXX"));
        struct stat st, pst;
        cr_assert_eq(fstat(shm_fd, &st), 0);
        cr_assert(S_ISDIR(st.st_mode));
        cr_assert_eq(st.st_mode & 07777, 0700);
        cr_assert_eq(st.st_uid, geteuid());
        cr_assert_eq(lstat(shm_path, &pst), 0);
        cr_assert(st.st_dev == pst.st_dev && st.st_ino == pst.st_ino);
        struct statfs sfs;
        cr_assert_eq(fstatfs(shm_fd, &sfs), 0);
        cr_assert_eq(sfs.f_type, TMPFS_MAGIC);
        cr_assert(fcntl(shm_fd, F_GETFD) & FD_CLOEXEC);
}

Test(notify_fs, dir_mode_is_0700_whatever_the_umask)
{
        umask(0277);
        char *p = NULL;
        int fd = -1;
        cr_assert_eq(cordon_shm_dir_create(&p, &fd), 0);
        struct stat st;
        cr_assert_eq(fstat(fd, &st), 0);
        cr_assert_eq(st.st_mode & 07777, 0700);
        cordon_shm_dir_remove(fd, p);
        close(fd);
        cr_assert_eq(access(p, F_OK), -1);
        free(p);
}

Test(notify_fs, each_dir_is_new)
{
        char *p = NULL;
        int fd = -1;
        cr_assert_eq(cordon_shm_dir_create(&p, &fd), 0);
        cr_assert_str_neq(p, shm_path);
        cordon_shm_dir_remove(fd, p);
        close(fd);
        free(p);
}

Test(notify_fs, names)
{
        static const struct {
                const char *path, *name;
                int r;
        } t[] = {
            {"/dev/shm/sem.mp-abc", "sem.mp-abc", 1},
            {"/dev/shm/sem.XXXXXX", "sem.XXXXXX", 1},
            {"/dev/shm/psm_12ab", "psm_12ab", 1},
            {"/dev/shm/..x", "..x", 1},
            {"/dev/shm/.hidden", ".hidden", 1},
            {"/dev/shm/", NULL, 0},
            {"/dev/shm", NULL, 0},
            {"/dev/shm/.", NULL, 0},
            {"/dev/shm/..", NULL, 0},
            {"/dev/shm/../etc/passwd", NULL, 0},
            {"/dev/shm/a/b", NULL, 0},
            {"/dev/shm/a/", NULL, 0},
            {"/dev/shm//a", NULL, 0},
            {"/dev//shm/a", NULL, 0},
            {"/dev/shmx/a", NULL, 0},
            {"/dev/./shm/a", NULL, 0},
            {"dev/shm/a", NULL, 0},
            {"/dev/shm/cordon-shm-abcdef/x", NULL, 0},
            {"/tmp/a", NULL, 0},
            {"", NULL, 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                const char *name = NULL;
                int r = cordon_shm_name(t[i].path, &name);
                cr_assert_eq(r, t[i].r, "%s: %d", t[i].path, r);
                if (r == 1)
                        cr_assert_str_eq(name, t[i].name, "%s", t[i].path);
        }
        const char *name = NULL;
        cr_assert_eq(cordon_shm_name(NULL, &name), 0);

        char long_path[512] = "/dev/shm/";
        memset(long_path + 9, 'a', 255);
        cr_assert_eq(cordon_shm_name(long_path, &name), 1);
        long_path[9 + 255] = 'a';
        cr_assert_eq(cordon_shm_name(long_path, &name), -ENAMETOOLONG);
}

Test(notify_fs, open_as_glibc_does_and_the_file_is_inside)
{
        /* sem_open()'s temporary file, then shm_open()'s create. */
        int fd = cordon_shm_open(shm_fd, "sem.tmp", O_RDWR | O_CREAT | O_EXCL, 0600);
        cr_assert_geq(fd, 0, "%s", strerror(-fd));
        cr_assert_eq(write(fd, "sem", 3), 3);
        cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC, "close-on-exec in the supervisor always");
        cr_assert_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0, "O_NONBLOCK not asked, not kept");
        struct stat st;
        cr_assert_eq(fstatat(shm_fd, "sem.tmp", &st, AT_SYMLINK_NOFOLLOW), 0);
        cr_assert(S_ISREG(st.st_mode));
        close(fd);

        fd = cordon_shm_open(shm_fd, "psm",
                             O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
        cr_assert_geq(fd, 0, "%s", strerror(-fd));
        cr_assert(fcntl(fd, F_GETFL) & O_NONBLOCK, "O_NONBLOCK asked, kept");
        close(fd);
        cr_assert_eq(cordon_shm_open(shm_fd, "psm", O_RDWR | O_CREAT | O_EXCL, 0600), -EEXIST);
        fd = cordon_shm_open(shm_fd, "psm", O_RDONLY, 0);
        cr_assert_geq(fd, 0);
        close(fd);
        fd = cordon_shm_open(shm_fd, "appended", O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
        cr_assert_geq(fd, 0, "%s", strerror(-fd));
        close(fd);
        cr_assert_eq(cordon_shm_open(shm_fd, "missing", O_RDWR, 0), -ENOENT);
}

Test(notify_fs, open_mode_loses_the_special_bits)
{
        umask(0);
        int fd = cordon_shm_open(shm_fd, "suid", O_RDWR | O_CREAT, 07777);
        cr_assert_geq(fd, 0);
        struct stat st;
        cr_assert_eq(fstat(fd, &st), 0);
        cr_assert_eq(st.st_mode & 07777, 0777);
        close(fd);
}

Test(notify_fs, open_refuses_flags_and_names)
{
        static const int bad[] = {
            O_RDWR | O_CREAT | O_DIRECTORY,
            O_PATH,
            O_PATH | O_CREAT,
            O_RDWR | O_TMPFILE,
            O_ACCMODE | O_CREAT,
            O_RDWR | O_CREAT | O_ASYNC,
            O_RDWR | O_CREAT | O_DIRECT,
            O_RDWR | O_CREAT | O_SYNC,
            O_RDWR | O_CREAT | O_NOATIME,
            O_RDWR | O_CREAT | 0x40000000,
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                cr_assert_eq(cordon_shm_open(shm_fd, "x", bad[i], 0600), -EINVAL, "flags %#o",
                             bad[i]);
        static const char *const bad_names[] = {"", ".", "..", "../x", "a/b", "/etc/passwd", "x/"};
        for (size_t i = 0; i < ELEMENTSOF(bad_names); i++) {
                cr_assert_eq(cordon_shm_open(shm_fd, bad_names[i], O_RDWR | O_CREAT, 0600), -EINVAL,
                             "%s", bad_names[i]);
                cr_assert_eq(cordon_shm_unlink(shm_fd, bad_names[i]), -EINVAL);
                cr_assert_eq(cordon_shm_link(shm_fd, bad_names[i], "ok"), -EINVAL);
                cr_assert_eq(cordon_shm_link(shm_fd, "ok", bad_names[i]), -EINVAL);
        }
        cr_assert_eq(cordon_shm_open(shm_fd, NULL, O_RDWR | O_CREAT, 0600), -EINVAL);
        cr_assert_eq(cordon_shm_open(-1, "x", O_RDWR | O_CREAT, 0600), -EINVAL);
        cr_assert_eq(cordon_shm_unlink(-1, "x"), -EINVAL);
        cr_assert_eq(cordon_shm_link(-1, "x", "y"), -EINVAL);
        /* Nothing was made by any of them. */
        cr_assert_eq(faccessat(shm_fd, "x", F_OK, AT_SYMLINK_NOFOLLOW), -1);
        cr_assert_eq(faccessat(shm_fd, "ok", F_OK, AT_SYMLINK_NOFOLLOW), -1);
}

Test(notify_fs, planted_symlink_is_not_followed)
{
        cr_assert_eq(symlinkat(outside_path("secret"), shm_fd, "evil"), 0);
        cr_assert_eq(symlinkat(outside_path("new"), shm_fd, "dangling"), 0);
        cr_assert_eq(cordon_shm_open(shm_fd, "evil", O_RDWR | O_CREAT | O_TRUNC, 0600), -ELOOP);
        cr_assert_eq(cordon_shm_open(shm_fd, "evil", O_RDONLY, 0), -ELOOP);
        cr_assert_eq(cordon_shm_open(shm_fd, "evil", O_RDWR | O_CREAT | O_EXCL, 0600), -EEXIST);
        cr_assert_eq(cordon_shm_open(shm_fd, "dangling", O_RDWR | O_CREAT, 0600), -ELOOP);
        cr_assert_str_eq(read_file(outside_path("secret")), "host");
        cr_assert_eq(access(outside_path("new"), F_OK), -1, "nothing made through the link");
}

Test(notify_fs, planted_fifo_and_directory_are_refused_without_blocking)
{
        cr_assert_eq(mkfifoat(shm_fd, "fifo", 0600), 0);
        cr_assert_eq(cordon_shm_open(shm_fd, "fifo", O_RDONLY, 0), -EACCES);
        cr_assert_eq(cordon_shm_open(shm_fd, "fifo", O_RDWR | O_CREAT, 0600), -EACCES);
        cr_assert_eq(mkdirat(shm_fd, "sub", 0700), 0);
        cr_assert_eq(cordon_shm_open(shm_fd, "sub", O_RDONLY, 0), -EACCES);
        cr_assert_eq(cordon_shm_open(shm_fd, "sub", O_RDWR | O_CREAT, 0600), -EISDIR);
}

Test(notify_fs, link_and_unlink_stay_inside)
{
        /* sem_open(): the temporary file linked to its name, then unlinked. */
        int fd = cordon_shm_open(shm_fd, "sem.tmp", O_RDWR | O_CREAT | O_EXCL, 0600);
        cr_assert_geq(fd, 0);
        close(fd);
        cr_assert_eq(cordon_shm_link(shm_fd, "sem.tmp", "sem.name"), 0);
        cr_assert_eq(cordon_shm_link(shm_fd, "sem.tmp", "sem.name"), -EEXIST);
        cr_assert_eq(cordon_shm_unlink(shm_fd, "sem.tmp"), 0);
        cr_assert_eq(faccessat(shm_fd, "sem.name", F_OK, 0), 0);
        cr_assert_eq(cordon_shm_unlink(shm_fd, "sem.name"), 0);
        cr_assert_eq(cordon_shm_unlink(shm_fd, "sem.name"), -ENOENT);
        cr_assert_eq(cordon_shm_link(shm_fd, "absent", "other"), -ENOENT);

        /* A planted symlink is linked and unlinked as itself; its target stays. */
        cr_assert_eq(symlinkat(outside_path("secret"), shm_fd, "evil"), 0);
        cr_assert_eq(cordon_shm_link(shm_fd, "evil", "copy"), 0);
        struct stat st;
        cr_assert_eq(fstatat(shm_fd, "copy", &st, AT_SYMLINK_NOFOLLOW), 0);
        cr_assert(S_ISLNK(st.st_mode), "the link itself, not its target");
        cr_assert_eq(cordon_shm_unlink(shm_fd, "copy"), 0);
        cr_assert_eq(cordon_shm_unlink(shm_fd, "evil"), 0);
        cr_assert_str_eq(read_file(outside_path("secret")), "host");

        /* A directory is not removed by unlink. */
        cr_assert_eq(mkdirat(shm_fd, "sub", 0700), 0);
        cr_assert_eq(cordon_shm_unlink(shm_fd, "sub"), -EISDIR);
}

Test(notify_fs, remove_empties_without_following_links)
{
        int fd = cordon_shm_open(shm_fd, "file", O_RDWR | O_CREAT, 0600);
        cr_assert_geq(fd, 0);
        close(fd);
        cr_assert_eq(symlinkat(outside_path("secret"), shm_fd, "to-file"), 0);
        cr_assert_eq(symlinkat(outside, shm_fd, "to-dir"), 0);
        cr_assert_eq(mkdirat(shm_fd, "sub", 0700), 0);
        int sub = openat(shm_fd, "sub", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(sub, 0);
        cr_assert_eq(symlinkat(outside, sub, "to-dir"), 0);
        cr_assert_eq(mkfifoat(sub, "fifo", 0600), 0);
        close(sub);
        for (int i = 0; i < 300; i++) {
                char n[32];
                snprintf(n, sizeof(n), "many-%d", i);
                fd = cordon_shm_open(shm_fd, n, O_RDWR | O_CREAT, 0600);
                cr_assert_geq(fd, 0);
                close(fd);
        }

        cordon_shm_dir_remove(shm_fd, shm_path);
        struct stat st;
        cr_assert_eq(lstat(shm_path, &st), -1, "the directory is gone");
        cr_assert_eq(errno, ENOENT);
        cr_assert_str_eq(read_file(outside_path("secret")), "host", "the link's target stays");
        cr_assert_eq(stat(outside, &st), 0);
        close(shm_fd);
        shm_fd = -1;
}

Test(notify_fs, remove_leaves_a_directory_put_in_its_place)
{
        /* Someone renames ours away and puts another directory at its path. */
        char moved[256];
        snprintf(moved, sizeof(moved), "%s-moved", shm_path);
        cr_assert_eq(rename(shm_path, moved), 0);
        cr_assert_eq(mkdir(shm_path, 0700), 0);
        char other[256];
        snprintf(other, sizeof(other), "%s/theirs", shm_path);
        FILE *f = fopen(other, "w");
        cr_assert(f);
        fclose(f);
        int fd = cordon_shm_open(shm_fd, "ours", O_RDWR | O_CREAT, 0600);
        cr_assert_geq(fd, 0);
        close(fd);

        cordon_shm_dir_remove(shm_fd, shm_path);
        cr_assert_eq(access(other, F_OK), 0, "the other directory keeps its file");
        char ours[300];
        snprintf(ours, sizeof(ours), "%s/ours", moved);
        cr_assert_eq(access(ours, F_OK), -1, "ours was emptied through its descriptor");

        unlink(other);
        rmdir(shm_path);
        rmdir(moved);
        close(shm_fd);
        shm_fd = -1;
}

Test(notify_fs, remove_by_path_or_nothing)
{
        cordon_shm_dir_remove(-1, NULL);
        cordon_shm_dir_remove(-1, "/etc");
        cordon_shm_dir_remove(-1, "/dev/shm");
        cordon_shm_dir_remove(-1, "/dev/shm/../../etc");
        cr_assert_eq(access("/etc/passwd", F_OK), 0);

        int fd = cordon_shm_open(shm_fd, "file", O_RDWR | O_CREAT, 0600);
        cr_assert_geq(fd, 0);
        close(fd);
        cordon_shm_dir_remove(-1, shm_path);
        cr_assert_eq(access(shm_path, F_OK), -1);
        close(shm_fd);
        shm_fd = -1;
}

Test(notify_fs, remove_by_path_skips_a_symlink)
{
        /* The path is a symlink to a directory of ours: neither it nor its target is emptied. */
        char moved[256];
        snprintf(moved, sizeof(moved), "%s-real", shm_path);
        cr_assert_eq(rename(shm_path, moved), 0);
        cr_assert_eq(symlink(moved, shm_path), 0);
        int fd = cordon_shm_open(shm_fd, "kept", O_RDWR | O_CREAT, 0600);
        cr_assert_geq(fd, 0);
        close(fd);
        cordon_shm_dir_remove(-1, shm_path);
        char kept[300];
        snprintf(kept, sizeof(kept), "%s/kept", moved);
        cr_assert_eq(access(kept, F_OK), 0);
        unlink(shm_path);
        cr_assert_eq(rename(moved, shm_path), 0);
}

Test(notify_fs, tmp_gap)
{
        static const char *const writable[] = {"/home/u/proj", "/tmp/cordon-tmpdir-1",
                                               "/tmp/shared"};
        static const struct {
                const char *path;
                bool gap;
        } t[] = {
            {"/tmp", true},
            {"/tmp/", true},
            {"/tmp/x.1234", true},
            {"/tmp/a/b/c", true},
            {"//tmp//x", true},
            {"/tmp/./x", true},
            {"/tmp/cordon-tmpdir-1", false},
            {"/tmp/cordon-tmpdir-1/x", false},
            {"/tmp/cordon-tmpdir-1/", false},
            {"/tmp/cordon-tmpdir-10", true},
            {"/tmp/shared/a", false},
            {"/tmp/sharedx", true},
            {"/tmpx", false},
            {"/tmpx/y", false},
            {"/tm", false},
            {"/var/tmp/x", false},
            {"/home/u/proj/tmp/x", false},
            {"/tmp/../etc/passwd", false},
            {"/tmp/x/..", false},
            {"/tmp/cordon-tmpdir-1/../x", false},
            {"tmp/x", false},
            {"", false},
            {"/", false},
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                cr_assert_eq(cordon_tmp_gap(t[i].path, writable, ELEMENTSOF(writable)), t[i].gap,
                             "%s", t[i].path);
        cr_assert_not(cordon_tmp_gap(NULL, writable, ELEMENTSOF(writable)));
        cr_assert(cordon_tmp_gap("/tmp/x", NULL, 0));
        static const char *const root[] = {"/"};
        cr_assert_not(cordon_tmp_gap("/tmp/x", root, 1));
        static const char *const tmp[] = {"/tmp/"};
        cr_assert_not(cordon_tmp_gap("/tmp/x", tmp, 1));
        static const char *const with_null[] = {NULL, "/srv"};
        cr_assert(cordon_tmp_gap("/tmp/x", with_null, 2));
        static const char *const odd[] = {"/srv/../tmp"};
        cr_assert_not(cordon_tmp_gap("/tmp/x", odd, 1), "unsure: Landlock decides");
}
