/* Hostile archives against cordon_snapshot_restore() (src/lib/snapshot/snapshot-restore.c):
 * each is refused with its exact errno, nothing appears outside the target tree, and the same
 * archive made benign is restored (the positive control). */
#include "snapshot-fixture.h"

TestSuite(snapshot_restore, .init = fixture_setup, .fini = fixture_teardown);

Test(snapshot_restore, benign_archive_restores)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/a", "alpha", "t/d/b", "beta");
        build_dir(&b, "t/");
        build_file(&b, "t/a", "alpha");
        build_dir(&b, "t/d/");
        build_file(&b, "t/d/b", "beta");
        build_entry(&b, "t/l", AE_IFLNK, 0777, NULL, 0, "d/b");
        build_entry(&b, "t/d/up", AE_IFLNK, 0777, NULL, 0, "../a");
        cr_assert_eq(restore_target(build_end(&b)), 0, "%s", diag.message);
        _cleanup_free_ char *top = listing("target");
        cr_assert_str_eq(top, "a d l");
        _cleanup_free_ char *d = listing("target/d");
        cr_assert_str_eq(d, "b up");
        assert_nothing_outside(NULL);
}

/* A symlink that leads out: refused itself. */
Test(snapshot_restore, symlink_out_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/out/pwned", "x");
        build_dir(&b, "t/");
        build_entry(&b, "t/out", AE_IFLNK, 0777, NULL, 0, "../outside");
        build_file(&b, "t/out/pwned", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/out'"), "%s", diag.message);
        cr_assert(!exists_at("target/out"));
        assert_nothing_outside(NULL);
        /* Control: the same entries with a directory where the link was. */
        b = build_begin(false);
        build_manifest(&b, "t/out/pwned", "x");
        build_dir(&b, "t/");
        build_dir(&b, "t/out/");
        build_file(&b, "t/out/pwned", "x");
        cr_assert_eq(restore_target(build_end(&b)), 0, "%s", diag.message);
        cr_assert(exists_at("target/out/pwned"));
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, symlink_absolute_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_entry(&b, "t/etc", AE_IFLNK, 0777, NULL, 0, "/etc");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/etc'"), "%s", diag.message);
        cr_assert(!exists_at("target/etc"));
        /* ".." after a named component, which could be a symlink itself: refused too. */
        b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_entry(&b, "t/x", AE_IFLNK, 0777, NULL, 0, "d/../..");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        assert_nothing_outside(NULL);
}

/* A benign symlink, then a file through it: the parent is opened without following links. */
Test(snapshot_restore, file_through_symlink_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/l/pwned", "x");
        build_dir(&b, "t/d/");
        build_entry(&b, "t/l", AE_IFLNK, 0777, NULL, 0, "d");
        build_file(&b, "t/l/pwned", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/l/pwned'"), "%s", diag.message);
        cr_assert(!exists_at("target/d/pwned"));
        assert_nothing_outside(NULL);
}

/* An entry in the place of a symlink: refused, the link is never written through. */
Test(snapshot_restore, replacing_symlink_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/l", "x");
        build_entry(&b, "t/l", AE_IFLNK, 0777, NULL, 0, "victim");
        build_file(&b, "t/l", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(strstr(diag.message, "replace a symbolic link"), "%s", diag.message);
        cr_assert(!exists_at("target/victim"));
        /* The same with a directory entry. */
        b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_entry(&b, "t/l", AE_IFLNK, 0777, NULL, 0, "victim");
        build_dir(&b, "t/l/");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        /* A file where a directory was made: not written over it. */
        b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_dir(&b, "t/f/");
        build_file(&b, "t/f", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EEXIST, "%s", diag.message);
        /* Twice the same file: the first took the manifest's line, the second finds none. */
        b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_file(&b, "t/f", "x");
        build_file(&b, "t/f", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EBADMSG, "%s", diag.message);
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, dotdot_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/../outside/pwned", "x");
        build_file(&b, "t/../outside/pwned", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/../outside/pwned'"), "%s", diag.message);
        assert_nothing_outside(NULL);
        b = build_begin(false);
        build_manifest(&b, "t/inside/pwned", "x");
        build_dir(&b, "t/inside");
        build_file(&b, "t/inside/pwned", "x");
        cr_assert_eq(restore_target(build_end(&b)), 0, "%s", diag.message);
        cr_assert(exists_at("target/inside/pwned"));
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, absolute_path_refused)
{
        _cleanup_free_ char *abs = NULL;
        cr_assert_geq(asprintf(&abs, "%s/outside/pwned", scratch), 0);
        struct built b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_file(&b, abs, "x");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(strstr(diag.message, "absolute"), "%s", diag.message);
        assert_nothing_outside(NULL);
        /* Control: the same file by a name below the tree. */
        b = build_begin(false);
        build_manifest(&b, "t/pwned", "x");
        build_file(&b, "t/pwned", "x");
        cr_assert_eq(restore_target(build_end(&b)), 0, "%s", diag.message);
        cr_assert(exists_at("target/pwned"));
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, outside_the_trees_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "outside/pwned", "x");
        build_file(&b, "outside/pwned", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(strstr(diag.message, "'outside/pwned'"), "%s", diag.message);
        assert_nothing_outside(NULL);
        b = build_begin(false);
        build_manifest(&b, "t/pwned", "x");
        build_file(&b, "t/pwned", "x");
        cr_assert_eq(restore_target(build_end(&b)), 0, "%s", diag.message);
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, special_files_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_entry(&b, "t/null", AE_IFCHR, 0666, NULL, 0, NULL);
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/null'"), "%s", diag.message);
        cr_assert(!exists_at("target/null"));
        b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_entry(&b, "t/fifo", AE_IFIFO, 0644, NULL, 0, NULL);
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(!exists_at("target/fifo"));
        /* Control: a regular file of that name. */
        b = build_begin(false);
        build_manifest(&b, "t/null", "x");
        build_file(&b, "t/null", "x");
        cr_assert_eq(restore_target(build_end(&b)), 0, "%s", diag.message);
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, hard_link_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_file(&b, "t/f", "x");
        build_entry(&b, "t/h", 0, 0644, NULL, 0, "t/f");
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/h' is a hard link"), "%s", diag.message);
        cr_assert(!exists_at("target/h"));
        assert_nothing_outside(NULL);
        /* Control: the second name as a file of its own, as the writer stores a hard link. */
        b = build_begin(false);
        build_manifest(&b, "t/f", "x", "t/h", "x");
        build_file(&b, "t/f", "x");
        build_file(&b, "t/h", "x");
        cr_assert_eq(restore_target(build_end(&b)), 0, "%s", diag.message);
        cr_assert(exists_at("target/h"));
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, setuid_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_entry(&b, "t/f", AE_IFREG, 04755, "x", 1, NULL);
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(!exists_at("target/f"));
        b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_entry(&b, "t/d", AE_IFDIR, 02755, NULL, 0, NULL);
        cr_assert_eq(restore_target(build_end(&b)), -EPERM, "%s", diag.message);
        cr_assert(!exists_at("target/d"));
        b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_entry(&b, "t/f", AE_IFREG, 0755, "x", 1, NULL);
        cr_assert_eq(restore_target(build_end(&b)), 0, "%s", diag.message);
        struct stat st;
        cr_assert_eq(fstatat(scratch_fd, "target/f", &st, 0), 0);
        cr_assert_eq(st.st_mode & 07777, 0755);
        assert_nothing_outside(NULL);
}

/* A sparse file that declares more than the limit, however little data it carries. */
Test(snapshot_restore, huge_sparse_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_sparse(&b, "t/sparse", UINT64_C(1) << 40, 4096, "data");
        cr_assert_eq(restore_target(build_end(&b)), -EFBIG, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/sparse'"), "%s", diag.message);
        cr_assert(!exists_at("target/sparse"));
        assert_nothing_outside(NULL);
        /* Control: 1 MiB declared, restored at that size with its hole. */
        size_t size = 1u << 20;
        _cleanup_free_ char *full = calloc(1, size + 1);
        memcpy(full + 4096, "data", 4);
        char hex[65];
        sha256_hex(full, size, hex);
        b = build_begin(false);
        _cleanup_free_ char *json = NULL;
        cr_assert_geq(asprintf(&json,
                               "{\"format\":\"cordon-snapshot\",\"version\":1,"
                               "\"files\":{\"t/sparse\":\"%s\"}}",
                               hex),
                      0);
        build_entry(&b, CORDON_SNAPSHOT_MANIFEST_NAME, AE_IFREG, 0644, json, strlen(json), NULL);
        build_sparse(&b, "t/sparse", size, 4096, "data");
        cr_assert_eq(restore_target(build_end(&b)), 0, "%s", diag.message);
        struct stat st;
        cr_assert_eq(fstatat(scratch_fd, "target/sparse", &st, 0), 0);
        cr_assert_eq(st.st_size, (off_t)size);
        /* The sparse file counts at its full size against the total. */
        struct cordon_snapshot_limits lim = cordon_snapshot_limits_default;
        lim.max_total_bytes = size - 1;
        b = build_begin(false);
        build_entry(&b, CORDON_SNAPSHOT_MANIFEST_NAME, AE_IFREG, 0644, json, strlen(json), NULL);
        build_sparse(&b, "t/sparse", size, 4096, "data");
        cr_assert_eq(restore_target_with(build_end(&b), &lim), -EFBIG, "%s", diag.message);
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, bad_sha256_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/f", "what the manifest says");
        build_file(&b, "t/f", "something else");
        cr_assert_eq(restore_target(build_end(&b)), -EBADMSG, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/f' differs"), "%s", diag.message);
        cr_assert(!exists_at("target/f"), "a file that failed its check is left");
        /* A file the manifest does not list. */
        b = build_begin(false);
        build_manifest(&b, "t/f", "x");
        build_file(&b, "t/f", "x");
        build_file(&b, "t/g", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EBADMSG, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/g' is not in the manifest"), "%s", diag.message);
        cr_assert(!exists_at("target/g"));
        /* A file the manifest lists that the archive lacks. */
        b = build_begin(false);
        build_manifest(&b, "t/f", "x", "t/gone", "y");
        build_file(&b, "t/f", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EBADMSG, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/gone'"), "%s", diag.message);
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, missing_manifest_refused)
{
        struct built b = build_begin(false);
        build_file(&b, "t/f", "x");
        cr_assert_eq(restore_target(build_end(&b)), -EBADMSG, "%s", diag.message);
        cr_assert(strstr(diag.message, "'t/f' is not the manifest"), "%s", diag.message);
        cr_assert(!exists_at("target/f"));
        /* An empty archive, a manifest that is not JSON, one of another version. */
        b = build_begin(false);
        cr_assert_eq(restore_target(build_end(&b)), -EBADMSG, "%s", diag.message);
        b = build_begin(false);
        build_entry(&b, CORDON_SNAPSHOT_MANIFEST_NAME, AE_IFREG, 0644, "{", 1, NULL);
        cr_assert_eq(restore_target(build_end(&b)), -EBADMSG, "%s", diag.message);
        b = build_begin(false);
        build_manifest_v(&b, 2, NULL, 0);
        cr_assert_eq(restore_target(build_end(&b)), -EOPNOTSUPP, "%s", diag.message);
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, limits)
{
        struct cordon_snapshot_limits lim = cordon_snapshot_limits_default;
        /* Entries: four after the manifest. */
        lim.max_entries = 3;
        struct built b = build_begin(false);
        build_manifest(&b, "t/a", "a", "t/b", "b");
        build_dir(&b, "t/");
        build_dir(&b, "t/d/");
        build_file(&b, "t/a", "a");
        build_file(&b, "t/b", "b");
        cr_assert_eq(restore_target_with(build_end(&b), &lim), -E2BIG, "%s", diag.message);
        lim.max_entries = 4;
        b = build_begin(false);
        build_manifest(&b, "t/a", "a", "t/b", "b");
        build_dir(&b, "t/");
        build_dir(&b, "t/d/");
        build_file(&b, "t/a", "a");
        build_file(&b, "t/b", "b");
        cr_assert_eq(restore_target_with(build_end(&b), &lim), 0, "%s", diag.message);
        /* One file's size. */
        lim = cordon_snapshot_limits_default;
        lim.max_file_bytes = 4;
        b = build_begin(false);
        build_manifest(&b, "t/a", "12345");
        build_file(&b, "t/a", "12345");
        cr_assert_eq(restore_target_with(build_end(&b), &lim), -EFBIG, "%s", diag.message);
        /* Path length: "t/abcdefghij" is 12 bytes. */
        lim = cordon_snapshot_limits_default;
        lim.max_path = 11;
        b = build_begin(false);
        build_manifest(&b, "t/abcdefghij", "x");
        build_file(&b, "t/abcdefghij", "x");
        cr_assert_eq(restore_target_with(build_end(&b), &lim), -ENAMETOOLONG, "%s", diag.message);
        lim.max_path = 12;
        b = build_begin(false);
        build_manifest(&b, "t/abcdefghij", "x");
        build_file(&b, "t/abcdefghij", "x");
        cr_assert_eq(restore_target_with(build_end(&b), &lim), 0, "%s", diag.message);
        /* The manifest's size. */
        lim = cordon_snapshot_limits_default;
        lim.max_manifest = 20;
        b = build_begin(false);
        build_manifest(&b, "t/a", "a");
        build_file(&b, "t/a", "a");
        cr_assert_eq(restore_target_with(build_end(&b), &lim), -EFBIG, "%s", diag.message);
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, only_zstd_compressed)
{
        struct built b = build_begin(true);
        build_manifest(&b, "t/a", "a");
        build_file(&b, "t/a", "a");
        int fd = build_end(&b);
        int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        cr_assert_eq(restore_target(fd), -EINVAL, "%s", diag.message);
        cr_assert(!exists_at("target/a"));
        /* Control: the same archive through the entry point that reads plain tar. */
        int tfd = scratch_dir("target");
        struct cordon_snapshot_dir dir = {.name = "t", .dirfd = tfd};
        cr_assert_eq(lseek(dup_fd, 0, SEEK_SET), 0);
        cr_assert_eq(cordon_snapshot_restore_any(dup_fd, false, &dir, 1, NULL, NULL, &diag), 0,
                     "%s", diag.message);
        close(tfd);
        close(dup_fd);
        cr_assert(exists_at("target/a"));
        assert_nothing_outside(NULL);
}

Test(snapshot_restore, target_must_be_empty)
{
        cr_assert_eq(mkdirat(scratch_fd, "target/old", 0755), 0);
        struct built b = build_begin(false);
        build_manifest(&b, "t/a", "a");
        build_file(&b, "t/a", "a");
        int fd = build_end(&b);
        int tfd = scratch_dir("target");
        struct cordon_snapshot_dir dir = {.name = "t", .dirfd = tfd};
        cr_assert_eq(cordon_snapshot_restore(fd, &dir, 1, NULL, NULL, &diag), -ENOTEMPTY, "%s",
                     diag.message);
        close(tfd);
        close(fd);
        cr_assert(!exists_at("target/a"));
}

Test(snapshot_restore, damaged_archive_refused)
{
        struct built b = build_begin(false);
        build_manifest(&b, "t/a", "a");
        build_dir(&b, "t/");
        build_file(&b, "t/a", "a");
        int fd = build_end(&b);
        struct stat st;
        cr_assert_eq(fstat(fd, &st), 0);
        cr_assert_eq(ftruncate(fd, st.st_size / 2), 0);
        int r = restore_target(fd);
        cr_assert(r == -EINVAL || r == -EBADMSG, "%d %s", r, diag.message);
        assert_nothing_outside(NULL);
        /* Not an archive at all. */
        fd = memfd_create("junk", MFD_CLOEXEC);
        cr_assert_eq(write(fd, "hello, world\n", 13), 13);
        cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
        cr_assert_eq(restore_target(fd), -EINVAL, "%s", diag.message);
        assert_nothing_outside(NULL);
}
