/* Shared fixture of the snapshot tests (test-snapshot*.c): a scratch directory with a target
 * tree and a sentinel beside it, archives built entry by entry with libarchive's own writer
 * (for the hostile ones), sha256 with nettle, and a check that nothing appeared outside. */
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/snapshot/snapshot.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

static char scratch[] = "/tmp/cordon-snapshot-test-XXXXXX";
static int scratch_fd = -EBADF;
static struct cordon_diag diag;

static inline void fixture_setup(void)
{
        cr_assert_not_null(mkdtemp(scratch));
        scratch_fd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(scratch_fd, 0);
        cr_assert_eq(mkdirat(scratch_fd, "outside", 0755), 0);
        cr_assert_eq(mkdirat(scratch_fd, "target", 0755), 0);
        memset(&diag, 0, sizeof(diag));
}

static inline void fixture_teardown(void)
{
        scratch_fd = safe_close(scratch_fd);
        remove_tree_physical(scratch);
}

/* A directory below the scratch directory, opened (made first unless it exists). */
static inline int scratch_dir(const char *rel)
{
        (void)mkdirat(scratch_fd, rel, 0755);
        int fd = openat(scratch_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(fd, 0, "%s: %m", rel);
        return fd;
}

/* The names in directory @rel of the scratch directory, sorted, joined by ' '. */
static inline char *listing(const char *rel)
{
        int fd = openat(scratch_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(fd, 0, "%s: %m", rel);
        DIR *d = fdopendir(fd);
        cr_assert_not_null(d);
        _cleanup_strv_free_ char **names = NULL;
        cr_assert_eq(dir_read_names(d, 1000, &names, NULL), 0);
        closedir(d);
        char *s = strdup("");
        STRV_FOREACH (n, names) {
                char *t = NULL;
                cr_assert_geq(asprintf(&t, "%s%s%s", s, *s ? " " : "", *n), 0);
                free(s);
                s = t;
        }
        return s;
}

/* Nothing but "outside" (empty) and "target" (and @also, when not NULL) in the scratch
 * directory: a refused archive wrote nothing beside the target. */
static inline void assert_nothing_outside(const char *also)
{
        _cleanup_free_ char *top = listing(".");
        _cleanup_free_ char *want = NULL;
        cr_assert_geq(asprintf(&want, "%s%soutside target", also ? also : "", also ? " " : ""), 0);
        cr_assert_str_eq(top, want);
        _cleanup_free_ char *out = listing("outside");
        cr_assert_str_eq(out, "", "outside holds '%s'", out);
}

static inline void sha256_hex(const void *data, size_t len, char hex[65])
{
        struct sha256_ctx h;
        uint8_t d[SHA256_DIGEST_SIZE];
        sha256_init(&h);
        sha256_update(&h, len, data);
        sha256_digest(&h, sizeof(d), d);
        for (size_t i = 0; i < sizeof(d); i++)
                sprintf(hex + 2 * i, "%02x", d[i]);
}

/* An archive being built by hand: libarchive's pax writer, zstd unless @plain, into a memfd. */
struct built {
        struct archive *a;
        int fd;
};

static inline struct built build_begin(bool plain)
{
        struct built b = {.a = archive_write_new(), .fd = memfd_create("archive", MFD_CLOEXEC)};
        cr_assert_not_null(b.a);
        cr_assert_geq(b.fd, 0);
        cr_assert_eq(archive_write_set_format_pax_restricted(b.a), ARCHIVE_OK);
        if (!plain)
                cr_assert_eq(archive_write_add_filter_zstd(b.a), ARCHIVE_OK);
        cr_assert_eq(archive_write_open_fd(b.a, b.fd), ARCHIVE_OK);
        return b;
}

/* Adds one entry; @data for a regular file (@len bytes), @link a symlink's target or a hard
 * link's name (by @type AE_IFLNK or 0 for a hard link). */
static inline void build_entry(struct built *b, const char *name, unsigned type, mode_t perm,
                               const void *data, size_t len, const char *link)
{
        struct archive_entry *e = archive_entry_new();
        archive_entry_copy_pathname(e, name);
        archive_entry_set_filetype(e, type ? type : AE_IFREG);
        archive_entry_set_perm(e, perm);
        archive_entry_set_mtime(e, 1700000000, 0);
        archive_entry_set_size(e, type == AE_IFREG ? (la_int64_t)len : 0);
        if (type == AE_IFLNK)
                archive_entry_copy_symlink(e, link);
        if (type == 0)
                archive_entry_copy_hardlink(e, link);
        if (type == AE_IFCHR)
                archive_entry_set_rdev(e, makedev(1, 3));
        cr_assert_geq(archive_write_header(b->a, e), ARCHIVE_WARN, "%s",
                      archive_error_string(b->a));
        if (type == AE_IFREG && len)
                cr_assert_eq(archive_write_data(b->a, data, len), (la_ssize_t)len);
        archive_entry_free(e);
}

static inline void build_file(struct built *b, const char *name, const char *content)
{
        build_entry(b, name, AE_IFREG, 0644, content, strlen(content), NULL);
}

static inline void build_dir(struct built *b, const char *name)
{
        build_entry(b, name, AE_IFDIR, 0755, NULL, 0, NULL);
}

/* A sparse file of @size bytes whose only data is @content at @offset. */
static inline void build_sparse(struct built *b, const char *name, uint64_t size, uint64_t offset,
                                const char *content)
{
        struct archive_entry *e = archive_entry_new();
        archive_entry_copy_pathname(e, name);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, (la_int64_t)size);
        archive_entry_sparse_add_entry(e, (la_int64_t)offset, (la_int64_t)strlen(content));
        cr_assert_geq(archive_write_header(b->a, e), ARCHIVE_WARN, "%s",
                      archive_error_string(b->a));
        /* The writer takes the data as the file's bytes, holes included, up to the last
         * data: it skips what the map calls a hole. */
        char zero[4096] = {0};
        for (uint64_t left = offset; left > 0;) {
                size_t k = left < sizeof(zero) ? (size_t)left : sizeof(zero);
                cr_assert_eq(archive_write_data(b->a, zero, k), (la_ssize_t)k);
                left -= k;
        }
        cr_assert_eq(archive_write_data(b->a, content, strlen(content)),
                     (la_ssize_t)strlen(content));
        archive_entry_free(e);
}

/* The manifest entry listing @n files (pairs of name and content in @files) with their
 * sha256; another @version lets a test break it. */
static inline void build_manifest_v(struct built *b, int version, const char *const *files,
                                    size_t n)
{
        char *json = NULL;
        size_t jlen = 0;
        FILE *f = open_memstream(&json, &jlen);
        cr_assert_not_null(f);
        fprintf(f, "{\"format\":\"cordon-snapshot\",\"version\":%d,\"files\":{", version);
        for (size_t i = 0; i < n; i++) {
                char hex[65];
                sha256_hex(files[2 * i + 1], strlen(files[2 * i + 1]), hex);
                fprintf(f, "%s\"%s\":\"%s\"", i ? "," : "", files[2 * i], hex);
        }
        fprintf(f, "}}");
        fclose(f);
        build_entry(b, CORDON_SNAPSHOT_MANIFEST_NAME, AE_IFREG, 0644, json, jlen, NULL);
        free(json);
}

#define build_manifest(b, ...)                                                                     \
        build_manifest_v(b, CORDON_SNAPSHOT_VERSION, (const char *const[]){__VA_ARGS__},           \
                         sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *) / 2)

/* Ends the archive; returns its descriptor at offset 0. */
static inline int build_end(struct built *b)
{
        cr_assert_eq(archive_write_close(b->a), ARCHIVE_OK, "%s", archive_error_string(b->a));
        archive_write_free(b->a);
        cr_assert_eq(lseek(b->fd, 0, SEEK_SET), 0);
        return b->fd;
}

/* Restores @fd (closed after) into the fixture's target, emptied first, as tree "t", with
 * @limits. */
static inline int restore_target_with(int fd, const struct cordon_snapshot_limits *limits)
{
        _cleanup_free_ char *path = NULL;
        cr_assert_geq(asprintf(&path, "%s/target", scratch), 0);
        remove_tree_physical(path);
        int tfd = scratch_dir("target");
        struct cordon_snapshot_dir dir = {.name = "t", .dirfd = tfd};
        memset(&diag, 0, sizeof(diag));
        int r = cordon_snapshot_restore(fd, &dir, 1, limits, NULL, &diag);
        close(tfd);
        close(fd);
        return r;
}

static inline int restore_target(int fd)
{
        return restore_target_with(fd, NULL);
}

/* True when @rel exists below the scratch directory (not following a final symlink). */
static inline bool exists_at(const char *rel)
{
        struct stat st;
        return fstatat(scratch_fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
}
