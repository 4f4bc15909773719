/* cordon_snapshot_write() and the round trip through cordon_snapshot_restore()
 * (src/lib/snapshot/snapshot-write.c, snapshot-publish.c): content, modes, mtimes, symlinks and
 * empty directories come back equal; what is not stored is counted and listed; the archive is
 * replaced atomically and is what the stats say. */
#include <jansson.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "lib/snapshot/snapshot-io.h"
#include "shared/json-util.h"
#include "snapshot-fixture.h"

TestSuite(snapshot, .init = fixture_setup, .fini = fixture_teardown);

#define MTIME_SEC  1600000000
#define MTIME_NSEC 123456789

static void set_mtime(int dfd, const char *name, long delta)
{
        struct timespec ts[2] = {{.tv_sec = MTIME_SEC, .tv_nsec = 0},
                                 {.tv_sec = MTIME_SEC + delta, .tv_nsec = MTIME_NSEC}};
        cr_assert_eq(utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW), 0, "%s: %m", name);
}

static void make_file(int dfd, const char *name, const void *data, size_t len, mode_t mode)
{
        int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        cr_assert_geq(fd, 0, "%s: %m", name);
        cr_assert_eq(write_all(fd, data, len), 0);
        cr_assert_eq(fchmod(fd, mode), 0);
        close(fd);
        set_mtime(dfd, name, (long)len);
}

/* The tree of the round trip: every kind the writer stores or leaves out. */
static void make_project(int p)
{
        make_file(p, "top.txt", "top\n", 4, 0644);
        make_file(p, "run.sh", "#!/bin/sh\n", 10, 0755);
        make_file(p, "secret", "s", 1, 0600);
        make_file(p, "readonly", "r", 1, 0444);
        make_file(p, "empty-file", "", 0, 0640);
        make_file(p, "caf\xc3\xa9", "utf-8 name", 10, 0644);
        make_file(p, "bad\xff name", "not utf-8", 9, 0644);
        make_file(p, "100%", "percent", 7, 0644);
        /* Larger than one read, of bytes that do not compress. */
        size_t big = 3 * 256 * 1024 + 17;
        _cleanup_free_ uint8_t *data = malloc(big);
        for (size_t i = 0; i < big; i++)
                data[i] = (uint8_t)((i * 2654435761u) >> 13);
        make_file(p, "big.bin", data, big, 0644);
        cr_assert_eq(mkdirat(p, "sub", 0750), 0);
        int sub = openat(p, "sub", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        make_file(sub, "inner", "inner", 5, 0644);
        cr_assert_eq(symlinkat("../top.txt", sub, "up"), 0);
        set_mtime(sub, "up", 1);
        /* Left out: absolute, and climbing out of the tree. */
        cr_assert_eq(symlinkat("../../outside", sub, "escape"), 0);
        close(sub);
        cr_assert_eq(symlinkat("sub/inner", p, "link"), 0);
        set_mtime(p, "link", 2);
        cr_assert_eq(symlinkat("/etc/passwd", p, "abs"), 0);
        cr_assert_eq(mkdirat(p, "empty", 0700), 0);
        cr_assert_eq(mkdirat(p, "deep", 0755), 0);
        cr_assert_eq(mkdirat(p, "deep/er", 0755), 0);
        cr_assert_eq(mkdirat(p, "deep/er/est", 0755), 0);
        /* A hard link: stored as a second regular file. */
        cr_assert_eq(linkat(p, "top.txt", p, "hard", 0), 0);
        /* Left out: a FIFO and a socket. */
        cr_assert_eq(mkfifoat(p, "fifo", 0644), 0);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/project/sock", scratch);
        cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0, "%m");
        close(s);
        /* A sparse file, read as its zeros. */
        int fd = openat(p, "sparse", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        cr_assert_eq(pwrite(fd, "end", 3, 1 << 20), 3);
        close(fd);
        /* A read-only directory with content, whose mode is set after its content. */
        cr_assert_eq(mkdirat(p, "ro", 0755), 0);
        int ro = openat(p, "ro", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        make_file(ro, "kept", "kept", 4, 0644);
        close(ro);
        cr_assert_eq(fchmodat(p, "ro", 0555, 0), 0);
        /* Directories' mtimes last: their entries changed them. */
        set_mtime(p, "deep/er/est", 3);
        set_mtime(p, "deep/er", 4);
        set_mtime(p, "deep", 5);
        set_mtime(p, "empty", 6);
        set_mtime(p, "sub", 7);
        set_mtime(p, "ro", 8);
        set_mtime(p, ".", 9);
}

static const char *const left_out[] = {"abs", "escape", "fifo", "sock", NULL};

static bool is_left_out(const char *name)
{
        for (size_t i = 0; left_out[i]; i++)
                if (streq(name, left_out[i]))
                        return true;
        return false;
}

static void assert_same_content(int a, int b, const char *path)
{
        char x[65536], y[65536];
        for (;;) {
                ssize_t m = read(a, x, sizeof(x)), n = read(b, y, sizeof(y));
                cr_assert_eq(m, n, "%s: lengths differ", path);
                cr_assert_geq(m, 0);
                if (m == 0)
                        return;
                cr_assert_eq(memcmp(x, y, (size_t)m), 0, "%s: content differs", path);
        }
}

/* Everything below @src (except what is left out) is in @dst with the same kind, mode, mtime,
 * content and target, and nothing else is. */
static void assert_same_tree(int src, int dst, const char *path)
{
        struct stat s, d;
        cr_assert_eq(fstat(src, &s), 0);
        cr_assert_eq(fstat(dst, &d), 0);
        cr_assert_eq(s.st_mode & 07777, d.st_mode & 07777, "%s: mode %o, restored %o", path,
                     s.st_mode & 07777, d.st_mode & 07777);
        cr_assert_eq(s.st_mtim.tv_sec, d.st_mtim.tv_sec, "%s: mtime", path);
        cr_assert_eq(s.st_mtim.tv_nsec, d.st_mtim.tv_nsec, "%s: mtime nsec", path);
        DIR *ds = fdopendir(fcntl(src, F_DUPFD_CLOEXEC, 3));
        DIR *dd = fdopendir(fcntl(dst, F_DUPFD_CLOEXEC, 3));
        _cleanup_strv_free_ char **ns = NULL, **nd = NULL, **kept = NULL;
        cr_assert_eq(dir_read_names(ds, 1000, &ns, NULL), 0);
        cr_assert_eq(dir_read_names(dd, 1000, &nd, NULL), 0);
        closedir(ds);
        closedir(dd);
        STRV_FOREACH (n, ns)
                if (!is_left_out(*n))
                        cr_assert_eq(strv_extend(&kept, *n), 0);
        cr_assert_eq(strv_length(kept), strv_length(nd), "%s: entries differ", path);
        for (size_t i = 0; kept && kept[i]; i++) {
                const char *n = kept[i];
                char sub[4096];
                snprintf(sub, sizeof(sub), "%s/%s", path, n);
                cr_assert_str_eq(n, nd[i], "%s: entries differ", path);
                cr_assert_eq(fstatat(src, n, &s, AT_SYMLINK_NOFOLLOW), 0);
                cr_assert_eq(fstatat(dst, n, &d, AT_SYMLINK_NOFOLLOW), 0, "%s is missing", sub);
                cr_assert_eq(s.st_mode & S_IFMT, d.st_mode & S_IFMT, "%s: kind", sub);
                if (S_ISDIR(s.st_mode)) {
                        int a = openat(src, n, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        int b = openat(dst, n, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        assert_same_tree(a, b, sub);
                        close(a);
                        close(b);
                        continue;
                }
                cr_assert_eq(s.st_mtim.tv_sec, d.st_mtim.tv_sec, "%s: mtime", sub);
                cr_assert_eq(s.st_mtim.tv_nsec, d.st_mtim.tv_nsec, "%s: mtime nsec", sub);
                if (S_ISLNK(s.st_mode)) {
                        char x[4096] = {0}, y[4096] = {0};
                        cr_assert_gt(readlinkat(src, n, x, sizeof(x) - 1), 0);
                        cr_assert_gt(readlinkat(dst, n, y, sizeof(y) - 1), 0);
                        cr_assert_str_eq(x, y, "%s: target", sub);
                        continue;
                }
                cr_assert_eq(s.st_mode & 07777, d.st_mode & 07777, "%s: mode", sub);
                cr_assert_eq(s.st_size, d.st_size, "%s: size", sub);
                int a = openat(src, n, O_RDONLY | O_CLOEXEC),
                    b = openat(dst, n, O_RDONLY | O_CLOEXEC);
                assert_same_content(a, b, sub);
                close(a);
                close(b);
        }
}

static void sha256_of_fd(int fd, char hex[65])
{
        struct sha256_ctx h;
        uint8_t d[SHA256_DIGEST_SIZE], buf[65536];
        sha256_init(&h);
        ssize_t k;
        while ((k = read(fd, buf, sizeof(buf))) > 0)
                sha256_update(&h, (size_t)k, buf);
        sha256_digest(&h, sizeof(d), d);
        for (size_t i = 0; i < sizeof(d); i++)
                sprintf(hex + 2 * i, "%02x", d[i]);
}

Test(snapshot, round_trip)
{
        int project = scratch_dir("project"), home = scratch_dir("home"), out = scratch_dir("out");
        make_project(project);
        make_file(home, ".bashrc", "alias l=ls\n", 11, 0644);
        struct cordon_snapshot_dir dirs[] = {{"project", project}, {"home", home}};
        struct cordon_snapshot_stats st;
        int r = cordon_snapshot_write(dirs, 2, "{\"policy\":{\"network\":\"isolated\"}}", out,
                                      "snap.tar.zst", &st, &diag);
        cr_assert_eq(r, 0, "%s", diag.message);
        /* top.txt run.sh secret readonly empty-file café bad 100% big.bin inner hard sparse
         * kept, and .bashrc */
        cr_assert_eq(st.files, 14);
        cr_assert_eq(st.dirs, 8); /* two tops, sub empty deep er est ro */
        cr_assert_eq(st.symlinks, 2);
        cr_assert_eq(st.skipped_special, 2);
        cr_assert_eq(st.skipped_symlinks, 2);

        /* Only the archive in its directory, 0600, of the size and sha256 the stats say. */
        _cleanup_free_ char *names = listing("out");
        cr_assert_str_eq(names, "snap.tar.zst");
        int fd = openat(out, "snap.tar.zst", O_RDONLY | O_CLOEXEC);
        struct stat ast;
        cr_assert_eq(fstat(fd, &ast), 0);
        cr_assert_eq(ast.st_mode & 07777, 0600);
        cr_assert_eq((uint64_t)ast.st_size, st.archive_bytes);
        char hex[65];
        sha256_of_fd(fd, hex);
        cr_assert_str_eq(hex, st.archive_sha256);

        int r1 = scratch_dir("r-project"), r2 = scratch_dir("r-home");
        struct cordon_snapshot_dir into[] = {{"project", r1}, {"home", r2}};
        _cleanup_free_ char *manifest = NULL;
        cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
        r = cordon_snapshot_restore(fd, into, 2, NULL, &manifest, &diag);
        cr_assert_eq(r, 0, "%s", diag.message);
        close(fd);
        assert_same_tree(project, r1, "project");
        assert_same_tree(home, r2, "home");

        /* The manifest: the caller's object, the counts, every file's sha256, what was left. */
        json_error_t err;
        _cleanup_json_ json_t *m = json_loads(manifest, 0, &err);
        cr_assert_not_null(m, "%s", err.text);
        cr_assert_str_eq(json_string_value(json_object_get(m, "format")), "cordon-snapshot");
        cr_assert_eq(json_integer_value(json_object_get(m, "version")), 1);
        cr_assert_str_eq(json_string_value(json_object_get(
                             json_object_get(json_object_get(m, "extra"), "policy"), "network")),
                         "isolated");
        json_t *files = json_object_get(m, "files");
        cr_assert_eq(json_object_size(files), 14);
        char want[65];
        sha256_hex("top\n", 4, want);
        cr_assert_str_eq(json_string_value(json_object_get(files, "project/top.txt")), want);
        cr_assert_str_eq(json_string_value(json_object_get(files, "project/hard")), want);
        cr_assert_not_null(json_object_get(files, "project/caf%C3%A9"));
        cr_assert_not_null(json_object_get(files, "project/bad%FF name"));
        cr_assert_not_null(json_object_get(files, "project/100%25"));
        json_t *trees = json_object_get(m, "trees");
        cr_assert_eq(json_array_size(trees), 2);
        json_t *t0 = json_array_get(trees, 0);
        cr_assert_str_eq(json_string_value(json_object_get(t0, "name")), "project");
        cr_assert_eq(json_integer_value(json_object_get(t0, "files")), 13);
        cr_assert_eq(json_integer_value(json_object_get(t0, "skipped")), 4);
        cr_assert_eq(json_integer_value(json_object_get(t0, "entries")), 26);
        json_t *skipped = json_object_get(m, "skipped");
        cr_assert_eq(json_array_size(skipped), 4);
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(skipped, 0), "path")),
                         "project/abs");
        close(r1);
        close(r2);
        close(project);
        close(home);
        close(out);
}

/* A second write replaces the first as a whole: no temporary file stays, and the new archive
 * restores the new tree. */
Test(snapshot, replaces_atomically)
{
        int p = scratch_dir("p"), out = scratch_dir("out");
        make_file(p, "a", "first", 5, 0644);
        struct cordon_snapshot_dir dirs[] = {{"p", p}};
        struct cordon_snapshot_stats one, two;
        cr_assert_eq(cordon_snapshot_write(dirs, 1, NULL, out, "s", &one, &diag), 0, "%s",
                     diag.message);
        cr_assert_eq(unlinkat(p, "a", 0), 0);
        make_file(p, "b", "second", 6, 0644);
        cr_assert_eq(cordon_snapshot_write(dirs, 1, NULL, out, "s", &two, &diag), 0, "%s",
                     diag.message);
        cr_assert_str_neq(one.archive_sha256, two.archive_sha256);
        _cleanup_free_ char *names = listing("out");
        cr_assert_str_eq(names, "s");
        int fd = openat(out, "s", O_RDONLY | O_CLOEXEC);
        int r = scratch_dir("r");
        struct cordon_snapshot_dir into[] = {{"p", r}};
        _cleanup_free_ char *manifest = NULL;
        cr_assert_eq(cordon_snapshot_restore(fd, into, 1, NULL, &manifest, &diag), 0, "%s",
                     diag.message);
        cr_assert(strstr(manifest, "\"extra\":null"), "%s", manifest);
        _cleanup_free_ char *restored = listing("r");
        cr_assert_str_eq(restored, "b");
        close(fd);
        close(r);
        close(p);
        close(out);
}

Test(snapshot, write_refusals)
{
        int p = scratch_dir("p"), out = scratch_dir("out");
        struct cordon_snapshot_dir dirs[] = {{"p", p}};
        struct cordon_snapshot_stats st;
        cr_assert_eq(cordon_snapshot_write(dirs, 1, "[1]", out, "s", &st, &diag), -EINVAL);
        cr_assert(strstr(diag.message, "manifest_extra_json"), "%s", diag.message);
        cr_assert_eq(cordon_snapshot_write(dirs, 1, "{", out, "s", &st, &diag), -EINVAL);
        cr_assert_eq(cordon_snapshot_write(dirs, 1, NULL, out, "a/b", &st, &diag), -EINVAL);
        cr_assert_eq(cordon_snapshot_write(dirs, 1, NULL, out, "..", &st, &diag), -EINVAL);
        struct cordon_snapshot_dir bad[] = {{"../p", p}};
        cr_assert_eq(cordon_snapshot_write(bad, 1, NULL, out, "s", &st, &diag), -EINVAL);
        struct cordon_snapshot_dir twice[] = {{"p", p}, {"p", p}};
        cr_assert_eq(cordon_snapshot_write(twice, 2, NULL, out, "s", &st, &diag), -EINVAL);
        _cleanup_free_ char *names = listing("out");
        cr_assert_str_eq(names, "");
        close(p);
        close(out);
}

/* A name longer than a restore accepts is refused at the write, which leaves nothing. */
Test(snapshot, write_refuses_long_names)
{
        int p = scratch_dir("p"), out = scratch_dir("out");
        char name[251];
        memset(name, 'n', sizeof(name) - 1);
        name[sizeof(name) - 1] = 0;
        int d = fcntl(p, F_DUPFD_CLOEXEC, 3);
        for (int i = 0; i < 17; i++) {
                cr_assert_eq(mkdirat(d, name, 0755), 0);
                int next = openat(d, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                close(d);
                d = next;
        }
        close(d);
        struct cordon_snapshot_dir dirs[] = {{"p", p}};
        struct cordon_snapshot_stats st;
        cr_assert_eq(cordon_snapshot_write(dirs, 1, NULL, out, "s", &st, &diag), -ENAMETOOLONG,
                     "%s", diag.message);
        _cleanup_free_ char *names = listing("out");
        cr_assert_str_eq(names, "");
        close(p);
        close(out);
}

/* The archive is one tar stream with the manifest first, as a reader that knows nothing of
 * cordon sees it. */
Test(snapshot, manifest_is_the_first_entry)
{
        int p = scratch_dir("p"), out = scratch_dir("out");
        make_file(p, "a", "a", 1, 0644);
        struct cordon_snapshot_dir dirs[] = {{"p", p}};
        cr_assert_eq(cordon_snapshot_write(dirs, 1, NULL, out, "s", NULL, &diag), 0, "%s",
                     diag.message);
        struct archive *a = archive_read_new();
        archive_read_support_filter_all(a);
        archive_read_support_format_all(a);
        int fd = openat(out, "s", O_RDONLY | O_CLOEXEC);
        cr_assert_eq(archive_read_open_fd(a, fd, 65536), ARCHIVE_OK);
        struct archive_entry *e;
        const char *want[] = {CORDON_SNAPSHOT_MANIFEST_NAME, "p/", "p/a"};
        for (size_t i = 0; i < 3; i++) {
                cr_assert_eq(archive_read_next_header(a, &e), ARCHIVE_OK, "%s",
                             archive_error_string(a));
                cr_assert_str_eq(archive_entry_pathname(e), want[i]);
        }
        cr_assert_eq(archive_read_next_header(a, &e), ARCHIVE_EOF);
        cr_assert_eq(archive_filter_code(a, 0), ARCHIVE_FILTER_ZSTD);
        archive_read_free(a);
        close(fd);
        close(p);
        close(out);
}

/* An archive large enough for it gets its manifest's frame in the region kept before the
 * entries, the rest of the region a zstd skippable frame: readers pass over it, and the
 * archive's sha256 is that of its bytes, the region's included. */
Test(snapshot, manifest_in_the_kept_region)
{
        int p = scratch_dir("p"), out = scratch_dir("out");
        _cleanup_free_ uint32_t *data = malloc(1u << 20);
        cr_assert_not_null(data);
        uint32_t x = 2463534242u; /* xorshift32: bytes zstd cannot shrink */
        for (unsigned f = 0; f < 20; f++) {
                for (size_t i = 0; i < (1u << 18); i++) {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        data[i] = x;
                }
                char name[16];
                snprintf(name, sizeof(name), "f%02u", f);
                make_file(p, name, data, 1u << 20, 0644);
        }
        struct cordon_snapshot_dir dirs[] = {{"p", p}};
        struct cordon_snapshot_stats st;
        cr_assert_eq(cordon_snapshot_write(dirs, 1, NULL, out, "s", &st, &diag), 0, "%s",
                     diag.message);
        _cleanup_free_ char *names = listing("out");
        cr_assert_str_eq(names, "s");
        cr_assert_gt(st.archive_bytes, SNAPSHOT_RESERVE + (20u << 20));

        int fd = openat(out, "s", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(fd, 0);
        _cleanup_free_ uint8_t *head = malloc(SNAPSHOT_RESERVE + 4);
        cr_assert_not_null(head);
        cr_assert_eq(pread(fd, head, SNAPSHOT_RESERVE + 4, 0), SNAPSHOT_RESERVE + 4);
        static const uint8_t zstd_magic[] = {0x28, 0xb5, 0x2f, 0xfd},
                             skip_magic[] = {0x50, 0x2a, 0x4d, 0x18};
        cr_assert_eq(memcmp(head, zstd_magic, 4), 0);
        cr_assert_eq(memcmp(head + SNAPSHOT_RESERVE, zstd_magic, 4), 0);
        size_t skip_at = 0;
        for (size_t i = 4; i + 8 <= SNAPSHOT_RESERVE && !skip_at; i++) {
                uint32_t len = head[i + 4] | head[i + 5] << 8 | head[i + 6] << 16 |
                               (uint32_t)head[i + 7] << 24;
                if (memcmp(head + i, skip_magic, 4) == 0 && i + 8 + len == SNAPSHOT_RESERVE)
                        skip_at = i;
        }
        cr_assert_gt(skip_at, 0, "no skippable frame ending at the entries");
        cr_assert_lt(skip_at, 4096, "the manifest's frame of 20 files takes %zu bytes", skip_at);

        char hex[65];
        sha256_of_fd(fd, hex);
        cr_assert_str_eq(hex, st.archive_sha256);
        struct stat ast;
        cr_assert_eq(fstat(fd, &ast), 0);
        cr_assert_eq((uint64_t)ast.st_size, st.archive_bytes);

        int r = scratch_dir("r");
        struct cordon_snapshot_dir into[] = {{"p", r}};
        cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
        cr_assert_eq(cordon_snapshot_restore(fd, into, 1, NULL, NULL, &diag), 0, "%s",
                     diag.message);
        assert_same_tree(p, r, "p");
        close(fd);
        close(r);
        close(p);
        close(out);
}
