/* Writing a snapshot (cordon_snapshot_write in snapshot.h): the trees walked by descriptors,
 * their entries compressed into the archive's file (unnamed until it is complete) behind a
 * region kept for the manifest while each file is read and hashed once, then the archive
 * finished under a temporary name and renamed into place (snapshot-publish.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/snapshot/snapshot-io.h"
#include "lib/snapshot/snapshot-lib.h"
#include "lib/snapshot/snapshot-manifest.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

#define WALK_DEPTH_MAX 256

struct writer {
        const struct snapshot_lib *L;
        struct archive *a;
        struct archive_entry *e;
        const struct cordon_snapshot_limits *lim;
        json_t *files, *skipped;
        struct snapshot_tree_counts *tc; /* the tree being walked */
        dev_t dev;                       /* its file system: a mount below it is not walked */
        struct cordon_snapshot_stats st;
        uint64_t entries, total;
        char *path; /* the current entry's archive name, built a component at a time */
        size_t path_len;
        char *link; /* a symlink's target */
        uint8_t *buf;
        struct cordon_diag *diag;
};

static void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}

static int push_name(struct writer *w, const char *name)
{
        size_t len = strlen(name);
        if (w->path_len + 1 + len > w->lim->max_path)
                return cordon_diag_set(w->diag, -ENAMETOOLONG,
                                       "'%s/%s' is longer than the %llu bytes a restore accepts",
                                       w->path, name, (unsigned long long)w->lim->max_path);
        w->path[w->path_len++] = '/';
        memcpy(w->path + w->path_len, name, len + 1);
        w->path_len += len;
        return 0;
}

static int archive_failed(struct writer *w, const char *what)
{
        return cordon_diag_set(w->diag, -EIO, "%s '%s': %s", what, w->path,
                               strempty(w->L->error_string(w->a)));
}

static int put_header(struct writer *w, unsigned type, const struct stat *st, uint64_t size,
                      const char *target)
{
        const struct snapshot_lib *L = w->L;
        L->entry_clear(w->e);
        L->entry_copy_pathname(w->e, w->path);
        L->entry_set_filetype(w->e, type);
        /* setuid and setgid are never stored (a restore refuses them): a group's project
         * directories often carry setgid, and a sandbox can set either on its own files. */
        L->entry_set_perm(w->e, st->st_mode & 01777);
        L->entry_set_mtime(w->e, st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
        L->entry_set_size(w->e, (la_int64_t)size);
        if (target)
                L->entry_copy_symlink(w->e, target);
        if (L->write_header(w->a, w->e) < ARCHIVE_WARN)
                return archive_failed(w, "cannot store");
        return 0;
}

static int too_many(struct writer *w)
{
        return cordon_diag_set(w->diag, -E2BIG,
                               "the trees hold more than the %llu entries a restore accepts (at "
                               "'%s')",
                               (unsigned long long)w->lim->max_entries, w->path);
}

static int count_entry(struct writer *w)
{
        if (++w->entries > w->lim->max_entries)
                return too_many(w);
        w->tc->entries++;
        return 0;
}

static int changed(struct writer *w)
{
        return cordon_diag_set(w->diag, -EAGAIN, "'%s' changed during the snapshot", w->path);
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
               (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT);
}

static int skip(struct writer *w, const char *why)
{
        _cleanup_free_ char *key = cordon_snapshot_path_key(w->path);
        json_t *o = key ? json_pack("{s:s, s:s}", "path", key, "why", why) : NULL;
        if (!o || json_array_append_new(w->skipped, o) < 0)
                return -ENOMEM;
        w->tc->skipped++;
        return 0;
}

static int put_file(struct writer *w, int dfd, const char *name, const struct stat *seen)
{
        /* O_NONBLOCK: a FIFO swapped in since the fstatat() must not stall the open. */
        _cleanup_close_ int fd =
            openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        struct stat st;
        if (fd < 0)
                return cordon_diag_set(w->diag, -errno, "cannot open '%s': %m", w->path);
        if (fstat(fd, &st) < 0)
                return cordon_diag_set(w->diag, -errno, "cannot stat '%s': %m", w->path);
        if (!same_inode(seen, &st))
                return changed(w);
        uint64_t size = (uint64_t)st.st_size;
        if (size > w->lim->max_file_bytes)
                return cordon_diag_set(
                    w->diag, -EFBIG, "'%s' is %llu bytes, more than the %llu a restore accepts",
                    w->path, (unsigned long long)size, (unsigned long long)w->lim->max_file_bytes);
        if (size > w->lim->max_total_bytes - w->total)
                return cordon_diag_set(w->diag, -EFBIG,
                                       "the files hold more than the %llu bytes a restore "
                                       "accepts (at '%s')",
                                       (unsigned long long)w->lim->max_total_bytes, w->path);
        int r = put_header(w, AE_IFREG, &st, size, NULL);
        if (r < 0)
                return r;
        struct sha256_ctx h;
        w->L->sha256_init(&h);
        for (uint64_t left = size; left > 0;) {
                ssize_t k = read(fd, w->buf, left < SNAPSHOT_IO_BUF ? left : SNAPSHOT_IO_BUF);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return cordon_diag_set(w->diag, -errno, "cannot read '%s': %m", w->path);
                if (k == 0)
                        return changed(w); /* shorter than its size */
                w->L->sha256_update(&h, (size_t)k, w->buf);
                if (w->L->write_data(w->a, w->buf, (size_t)k) != k)
                        return archive_failed(w, "cannot store");
                left -= (uint64_t)k;
        }
        ssize_t k;
        while ((k = read(fd, w->buf, 1)) < 0 && errno == EINTR)
                ;
        if (k != 0)
                return k < 0 ? cordon_diag_set(w->diag, -errno, "cannot read '%s': %m", w->path)
                             : changed(w); /* longer than its size */
        uint8_t digest[SNAPSHOT_SHA256_SIZE];
        char hex[65];
        w->L->sha256_digest(&h, sizeof(digest), digest);
        cordon_snapshot_hex(digest, hex);
        _cleanup_free_ char *key = cordon_snapshot_path_key(w->path);
        if (!key || json_object_set_new(w->files, key, json_string(hex)) < 0)
                return -ENOMEM;
        w->total += size;
        w->tc->files++;
        w->tc->bytes += size;
        return 0;
}

static int put_link(struct writer *w, int dfd, const char *name, const struct stat *st,
                    size_t depth)
{
        ssize_t n = readlinkat(dfd, name, w->link, w->lim->max_path + 1);
        if (n < 0)
                return errno == EINVAL ? changed(w)
                                       : cordon_diag_set(w->diag, -errno,
                                                         "cannot read symlink '%s': %m", w->path);
        if ((uint64_t)n > w->lim->max_path)
                return cordon_diag_set(w->diag, -ENAMETOOLONG,
                                       "symlink '%s' has a target longer than the %llu bytes a "
                                       "restore accepts",
                                       w->path, (unsigned long long)w->lim->max_path);
        w->link[n] = 0;
        if (!cordon_snapshot_link_is_safe(w->link, depth)) {
                w->st.skipped_symlinks++;
                return skip(w, "symlink: absolute or out of its tree");
        }
        int r = put_header(w, AE_IFLNK, st, 0, w->link);
        if (r < 0)
                return r;
        w->tc->symlinks++;
        return 0;
}

static int walk_dir(struct writer *w, int fd, size_t depth);

static int walk_entry(struct writer *w, int dfd, const char *name, size_t depth)
{
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return cordon_diag_set(w->diag, errno == ENOENT ? -EAGAIN : -errno,
                                       "cannot stat '%s': %m", w->path);
        /* One file system per tree: what is mounted inside it (a session's tmpfs home holds
         * read-only binds of host directories) was not the session's to keep. */
        if (st.st_dev != w->dev) {
                w->st.skipped_special++;
                return skip(w, "another file system mounted in the tree");
        }
        int r = count_entry(w);
        if (r < 0)
                return r;
        switch (st.st_mode & S_IFMT) {
        case S_IFDIR: {
                int fd =
                    openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
                if (fd < 0)
                        return cordon_diag_set(w->diag, -errno, "cannot open '%s': %m", w->path);
                return walk_dir(w, fd, depth + 1);
        }
        case S_IFREG:
                return put_file(w, dfd, name, &st);
        case S_IFLNK:
                return put_link(w, dfd, name, &st, depth);
        default:
                w->st.skipped_special++;
                return skip(w, S_ISFIFO(st.st_mode)   ? "fifo"
                               : S_ISSOCK(st.st_mode) ? "socket"
                                                      : "device node");
        }
}

/* Stores directory @fd (owned, at w->path; @depth directories below the tree's top) and
 * everything below it, names sorted so that the same tree gives the same archive. */
static int walk_dir(struct writer *w, int fd, size_t depth)
{
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int r = cordon_diag_set(w->diag, -errno, "cannot stat '%s': %m", w->path);
                safe_close(fd);
                return r;
        }
        _cleanup_(closedirp) DIR *d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return -ENOMEM;
        }
        if (depth > WALK_DEPTH_MAX)
                return cordon_diag_set(w->diag, -ELOOP, "'%s' lies more than %d directories deep",
                                       w->path, WALK_DEPTH_MAX);
        int r = put_header(w, AE_IFDIR, &st, 0, NULL);
        if (r < 0)
                return r;
        w->tc->dirs++;
        _cleanup_strv_free_ char **names = NULL;
        r = dir_read_names(d, w->lim->max_entries - w->entries + 1, &names, NULL);
        if (r == -E2BIG)
                return too_many(w);
        if (r < 0)
                return cordon_diag_set(w->diag, r, "cannot list '%s': %s", w->path, strerror(-r));
        size_t base = w->path_len;
        STRV_FOREACH (name, names) {
                r = push_name(w, *name);
                if (r >= 0)
                        r = walk_entry(w, dirfd(d), *name, depth);
                if (r < 0)
                        return r;
                w->path_len = base;
                w->path[base] = 0;
        }
        return 0;
}

static int write_tree(struct writer *w, const struct cordon_snapshot_dir *dir)
{
        int fd = openat(dir->dirfd, ".", O_RDONLY | O_DIRECTORY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return cordon_diag_set(w->diag, -errno, "cannot open tree '%s': %m", dir->name);
        struct stat root;
        if (fstat(fd, &root) < 0) {
                int e = -errno;
                safe_close(fd);
                return cordon_diag_set(w->diag, e, "cannot stat tree '%s': %s", dir->name,
                                       strerror(-e));
        }
        w->dev = root.st_dev;
        w->path_len = strlen(dir->name);
        memcpy(w->path, dir->name, w->path_len + 1);
        int r = count_entry(w);
        if (r < 0) {
                safe_close(fd);
                return r;
        }
        return walk_dir(w, fd, 0);
}

/* The number of zstd workers: the CPUs this thread may run on, at most 4; none with one. */
static int zstd_threads(void)
{
        cpu_set_t set;
        int n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
        return n < 2 ? 0 : n > 4 ? 4 : n;
}

/* The entries' archive: pax (names as raw bytes, whatever the locale), zstd with worker
 * threads, so that compression runs beside the reading and hashing, at its fast level -3:
 * compression is most of a write's time, and against level 1 this made 50 MB / 1,000 files
 * (a third random bytes, the rest source text) 12% faster for 8% more bytes
 * (bench/snapshot.sh's tree on tmpfs: 257 -> 227 ms, 27.2 -> 29.5 MB). */
static int open_entries(struct writer *w, struct snapshot_sink *sink)
{
        const struct snapshot_lib *L = w->L;
        w->a = L->write_new();
        if (!w->a)
                return -ENOMEM;
        if (L->write_set_format_pax(w->a) < ARCHIVE_OK ||
            L->write_set_options(w->a, "pax:hdrcharset=BINARY") < ARCHIVE_OK ||
            L->write_add_filter_zstd(w->a) < ARCHIVE_OK ||
            L->write_set_options(w->a, "zstd:compression-level=-3") < ARCHIVE_OK)
                return cordon_diag_set(w->diag, -EIO, "cannot start the archive: %s",
                                       strempty(L->error_string(w->a)));
        /* Without them (a libzstd built without threads) it is only slower. */
        char opt[32];
        snprintf(opt, sizeof(opt), "zstd:threads=%d", zstd_threads());
        (void)L->write_set_options(w->a, opt);
        if (L->write_set_bytes_per_block(w->a, 0) < ARCHIVE_OK ||
            L->write_open2(w->a, sink, NULL, cordon_snapshot_sink_write, NULL, NULL) < ARCHIVE_OK)
                return cordon_diag_set(w->diag, -EIO, "cannot start the archive: %s",
                                       strempty(L->error_string(w->a)));
        return 0;
}

/* The entries, compressed into @fd from SNAPSHOT_RESERVE on; *@ret_bytes their size. */
static int write_entries(struct writer *w, const struct cordon_snapshot_dir *dirs, size_t n,
                         struct snapshot_tree_counts *counts, int fd, uint64_t *ret_bytes)
{
        struct snapshot_sink sink = {.fd = fd, .start = SNAPSHOT_RESERVE};
        if (lseek(fd, SNAPSHOT_RESERVE, SEEK_SET) < 0)
                return cordon_diag_set(w->diag, -errno, "cannot seek in the archive: %m");
        int r = open_entries(w, &sink);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                w->tc = &counts[i];
                r = write_tree(w, &dirs[i]);
        }
        if (r >= 0 && w->L->write_close(w->a) < ARCHIVE_OK)
                r = cordon_diag_set(w->diag, sink.error < 0 ? sink.error : -EIO,
                                    "cannot write the archive: %s",
                                    strempty(w->L->error_string(w->a)));
        if (w->a)
                w->L->write_free(w->a); /* also ends zstd's worker threads */
        w->a = NULL;
        *ret_bytes = sink.bytes;
        return r < 0 && sink.error < 0 ? sink.error : r;
}

static bool dest_name_is_valid(const char *name)
{
        return name && *name && !strchr(name, '/') && !streq(name, ".") && !streq(name, "..") &&
               strlen(name) <= NAME_MAX - 24;
}

int cordon_snapshot_write(const struct cordon_snapshot_dir *dirs, size_t n,
                          const char *manifest_extra_json, int dest_dirfd, const char *dest_name,
                          struct cordon_snapshot_stats *ret_stats, struct cordon_diag *diag)
{
        int r = cordon_snapshot_check_dirs(dirs, n, diag);
        if (r < 0)
                return r;
        if (dest_dirfd < 0 || !dest_name_is_valid(dest_name))
                return cordon_diag_set(diag, -EINVAL,
                                       "the archive's name '%s' is not one file name",
                                       strempty(dest_name));
        struct writer w = {.lim = &cordon_snapshot_limits_default, .diag = diag};
        w.L = cordon_snapshot_lib(diag);
        if (!w.L)
                return -ENOPKG;
        _cleanup_json_ json_t *manifest = NULL;
        r = cordon_snapshot_manifest_new(manifest_extra_json, &manifest, diag);
        if (r < 0)
                return r;
        w.files = json_object_get(manifest, "files");
        w.skipped = json_object_get(manifest, "skipped");
        _cleanup_free_ char *path = malloc(w.lim->max_path + 1);
        _cleanup_free_ char *link = malloc(w.lim->max_path + 2);
        _cleanup_free_ uint8_t *buf = malloc(SNAPSHOT_IO_BUF);
        _cleanup_free_ struct snapshot_tree_counts *counts = calloc(n, sizeof(*counts));
        w.e = w.L->entry_new();
        if (!path || !link || !buf || !counts || !w.e) {
                if (w.e)
                        w.L->entry_free(w.e);
                return -ENOMEM;
        }
        w.path = path;
        w.link = link;
        w.buf = buf;

        _cleanup_(cordon_snapshot_file_discard) struct snapshot_file file = {.fd = -EBADF};
        r = cordon_snapshot_file_open(dest_dirfd, dest_name, &file);
        if (r < 0) {
                w.L->entry_free(w.e);
                return cordon_diag_set(diag, r, "cannot make a temporary file beside '%s': %s",
                                       dest_name, strerror(-r));
        }
        uint64_t entries_bytes = 0;
        r = write_entries(&w, dirs, n, counts, file.fd, &entries_bytes);
        w.L->entry_free(w.e);
        if (r < 0)
                return r;

        _cleanup_free_ char *text = NULL;
        size_t text_len = 0;
        r = cordon_snapshot_manifest_finish(manifest, dirs, counts, n, w.lim->max_manifest, &text,
                                            &text_len, diag);
        if (r < 0)
                return r;
        struct snapshot_sink out = {0};
        r = cordon_snapshot_publish(w.L, text, text_len, &file, entries_bytes, dest_name, &out,
                                    diag);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n; i++) {
                w.st.files += counts[i].files;
                w.st.dirs += counts[i].dirs;
                w.st.symlinks += counts[i].symlinks;
                w.st.bytes += counts[i].bytes;
        }
        w.st.archive_bytes = out.bytes;
        uint8_t digest[SNAPSHOT_SHA256_SIZE];
        w.L->sha256_digest(&out.hash, sizeof(digest), digest);
        cordon_snapshot_hex(digest, w.st.archive_sha256);
        if (ret_stats)
                *ret_stats = w.st;
        return 0;
}
