/* Restoring a snapshot (cordon_snapshot_restore in snapshot.h) from an archive treated as
 * hostile: every name is checked before anything is created, every parent is opened beneath
 * its tree without following links, every entry is created anew, every file is checked against
 * the manifest's sha256 and the limits. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/snapshot/snapshot-lib.h"
#include "lib/snapshot/snapshot-manifest.h"
#include "shared/json-util.h"
#include "shared/macro.h"

#define RESOLVE_INSIDE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
/* Bytes libarchive reads from the archive at a time. */
#define SNAPSHOT_READ_BLOCK (128u << 10)

/* A directory whose mode and mtime are set once everything inside it is written. */
struct dir_fixup {
        size_t tree;
        char *rel; /* "" for the tree's top */
        mode_t perm;
        bool has_mtime;
        struct timespec mtime;
};

struct restorer {
        const struct snapshot_lib *L;
        struct archive *a;
        const struct cordon_snapshot_dir *dirs;
        size_t n;
        int roots[CORDON_SNAPSHOT_TREES_MAX];
        const struct cordon_snapshot_limits *lim;
        json_t *files; /* manifest key -> sha256; an entry is removed when its file is found */
        struct dir_fixup *fix;
        size_t nfix, capfix;
        /* The parent of the last entry, kept open: entries of a directory come together. */
        size_t cache_tree;
        char *cache_rel;
        int cache_fd;
        uint64_t entries, total;
        struct cordon_diag *diag;
};

/* One entry's name taken apart: @name (the archive's, for messages), its tree, the path below
 * it (@rel, "" for the top), whose first @parent_len bytes name the parent directory, its last
 * component (@leaf), and how many directories lie between the top and the leaf (@depth). */
struct entry_name {
        const char *name;
        size_t tree;
        const char *rel;
        size_t parent_len, depth;
        const char *leaf;
};

static void restorer_clear(struct restorer *r)
{
        if (r->a)
                r->L->read_free(r->a);
        for (size_t i = 0; i < r->n; i++)
                safe_close(r->roots[i]);
        safe_close(r->cache_fd);
        free(r->cache_rel);
        for (size_t i = 0; i < r->nfix; i++)
                free(r->fix[i].rel);
        free(r->fix);
        json_decref(r->files);
}

static int archive_failed(struct restorer *r, const char *where)
{
        return cordon_diag_set(r->diag, -EINVAL, "damaged archive%s%s: %s", where ? " at " : "",
                               strempty(where), strempty(r->L->error_string(r->a)));
}

/* Opens the trees' tops; each must be an empty directory. */
static int open_roots(struct restorer *r)
{
        for (size_t i = 0; i < r->n; i++) {
                int fd = openat(r->dirs[i].dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd < 0)
                        return cordon_diag_set(r->diag, -errno, "cannot open tree '%s': %m",
                                               r->dirs[i].name);
                r->roots[i] = fd;
                int probe = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                DIR *d = probe >= 0 ? fdopendir(probe) : NULL;
                if (!d) {
                        safe_close(probe);
                        return cordon_diag_set(r->diag, -errno, "cannot list tree '%s': %m",
                                               r->dirs[i].name);
                }
                struct dirent *de;
                bool empty = true;
                while (empty && (de = readdir(d)))
                        empty = streq(de->d_name, ".") || streq(de->d_name, "..");
                closedir(d);
                if (!empty)
                        return cordon_diag_set(r->diag, -ENOTEMPTY,
                                               "tree '%s' is not an empty directory",
                                               r->dirs[i].name);
        }
        return 0;
}

/* Checks the name of an entry of @type and takes it apart. */
static int parse_name(struct restorer *r, const char *name, unsigned type, struct entry_name *ret,
                      char **ret_path)
{
        if (!name || !*name)
                return cordon_diag_set(r->diag, -EINVAL, "an entry has no name");
        size_t len = strlen(name);
        /* A directory's name may end in one '/'. */
        if (name[len - 1] == '/' && type == AE_IFDIR)
                len--;
        if (len > r->lim->max_path)
                return cordon_diag_set(r->diag, -ENAMETOOLONG,
                                       "entry '%.200s...' has a name longer than %llu bytes", name,
                                       (unsigned long long)r->lim->max_path);
        if (name[0] == '/')
                return cordon_diag_set(r->diag, -EPERM, "entry '%s' has an absolute name", name);
        _cleanup_free_ char *path = strndup(name, len);
        if (!path)
                return -ENOMEM;
        size_t depth = 0;
        for (const char *p = path;; depth++) {
                const char *e = strchrnul(p, '/');
                if (e - p == 2 && p[0] == '.' && p[1] == '.')
                        return cordon_diag_set(r->diag, -EPERM, "entry '%s' has a '..' component",
                                               name);
                if (e == p || (e - p == 1 && p[0] == '.'))
                        return cordon_diag_set(r->diag, -EINVAL,
                                               "entry '%s' has an empty or '.' component", name);
                if (!*e)
                        break;
                p = e + 1;
        }
        const char *slash = strchrnul(path, '/');
        size_t tl = (size_t)(slash - path);
        ret->tree = r->n;
        for (size_t i = 0; i < r->n; i++)
                if (strlen(r->dirs[i].name) == tl && memcmp(r->dirs[i].name, path, tl) == 0)
                        ret->tree = i;
        if (ret->tree == r->n)
                return cordon_diag_set(r->diag, -EPERM, "entry '%s' is not in one of the trees",
                                       name);
        ret->name = name;
        ret->rel = *slash ? slash + 1 : slash;
        const char *last = strrchr(ret->rel, '/');
        ret->leaf = last ? last + 1 : ret->rel;
        ret->parent_len = last ? (size_t)(last - ret->rel) : 0;
        ret->depth = depth ? depth - 1 : 0;
        *ret_path = TAKE_PTR(path);
        return 0;
}

/* The directory that holds @en's leaf, borrowed from the cache. */
static int open_parent(struct restorer *r, const struct entry_name *en, int *ret_fd)
{
        if (en->parent_len == 0) {
                *ret_fd = r->roots[en->tree];
                return 0;
        }
        if (r->cache_fd >= 0 && r->cache_tree == en->tree &&
            strlen(r->cache_rel) == en->parent_len &&
            memcmp(r->cache_rel, en->rel, en->parent_len) == 0) {
                *ret_fd = r->cache_fd;
                return 0;
        }
        _cleanup_free_ char *parent = strndup(en->rel, en->parent_len);
        if (!parent)
                return -ENOMEM;
        struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                               .resolve = RESOLVE_INSIDE};
        int fd = (int)syscall(SYS_openat2, r->roots[en->tree], parent, &how, sizeof(how));
        if (fd < 0) {
                if (errno == ELOOP || errno == EXDEV)
                        return cordon_diag_set(r->diag, -EPERM,
                                               "entry '%s' lies below a symbolic link", en->name);
                if (errno == ENOENT || errno == ENOTDIR)
                        return cordon_diag_set(r->diag, -EINVAL,
                                               "entry '%s' comes before its directory", en->name);
                return cordon_diag_set(r->diag, -errno, "entry '%s': cannot open its directory: %m",
                                       en->name);
        }
        safe_close(r->cache_fd);
        free(r->cache_rel);
        r->cache_fd = fd;
        r->cache_rel = TAKE_PTR(parent);
        r->cache_tree = en->tree;
        *ret_fd = fd;
        return 0;
}

/* An entry's name was taken: by a symlink (refused as such) or by something else. */
static int exists(struct restorer *r, int pfd, const struct entry_name *en)
{
        struct stat st;
        if (fstatat(pfd, en->leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                return cordon_diag_set(r->diag, -EPERM, "entry '%s' would replace a symbolic link",
                                       en->name);
        return cordon_diag_set(r->diag, -EEXIST, "entry '%s' is already there", en->name);
}

static struct timespec entry_mtime(struct restorer *r, struct archive_entry *e, bool *ret_set)
{
        *ret_set = r->L->entry_mtime_is_set(e);
        long nsec = r->L->entry_mtime_nsec(e);
        return (struct timespec){.tv_sec = r->L->entry_mtime(e),
                                 .tv_nsec = nsec >= 0 && nsec < 1000000000L ? nsec : 0};
}

static int add_fixup(struct restorer *r, const struct entry_name *en, struct archive_entry *e)
{
        if (r->nfix == r->capfix) {
                size_t cap = r->capfix ? 2 * r->capfix : 64;
                struct dir_fixup *n = realloc(r->fix, cap * sizeof(*n));
                if (!n)
                        return -ENOMEM;
                r->fix = n;
                r->capfix = cap;
        }
        struct dir_fixup *f = &r->fix[r->nfix];
        *f = (struct dir_fixup){.tree = en->tree, .perm = r->L->entry_perm(e) & 01777};
        f->mtime = entry_mtime(r, e, &f->has_mtime);
        f->rel = strdup(en->rel);
        if (!f->rel)
                return -ENOMEM;
        r->nfix++;
        return 0;
}

static int put_dir(struct restorer *r, const struct entry_name *en, struct archive_entry *e)
{
        if (*en->rel) {
                int pfd;
                int k = open_parent(r, en, &pfd);
                if (k < 0)
                        return k;
                if (mkdirat(pfd, en->leaf, 0700) < 0) {
                        struct stat st;
                        if (errno != EEXIST)
                                return cordon_diag_set(r->diag, -errno, "entry '%s': %m", en->name);
                        if (fstatat(pfd, en->leaf, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                            !S_ISDIR(st.st_mode))
                                return exists(r, pfd, en);
                }
        }
        return add_fixup(r, en, e);
}

static int put_link(struct restorer *r, const struct entry_name *en, struct archive_entry *e)
{
        const char *target = r->L->entry_symlink(e);
        if (!target || !*target)
                return cordon_diag_set(r->diag, -EINVAL, "symlink '%s' has no target", en->name);
        if (strlen(target) > r->lim->max_path)
                return cordon_diag_set(r->diag, -ENAMETOOLONG,
                                       "symlink '%s' has a target longer than %llu bytes", en->name,
                                       (unsigned long long)r->lim->max_path);
        if (!*en->rel)
                return cordon_diag_set(r->diag, -EEXIST, "entry '%s' is already there", en->name);
        if (!cordon_snapshot_link_is_safe(target, en->depth))
                return cordon_diag_set(r->diag, -EPERM,
                                       "symlink '%s' -> '%s' is absolute or leads out of its tree",
                                       en->name, target);
        int pfd;
        int k = open_parent(r, en, &pfd);
        if (k < 0)
                return k;
        if (symlinkat(target, pfd, en->leaf) < 0)
                return errno == EEXIST
                           ? exists(r, pfd, en)
                           : cordon_diag_set(r->diag, -errno, "entry '%s': %m", en->name);
        bool set;
        struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, entry_mtime(r, e, &set)};
        if (set && utimensat(pfd, en->leaf, ts, AT_SYMLINK_NOFOLLOW) < 0)
                return cordon_diag_set(r->diag, -errno, "entry '%s': %m", en->name);
        return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
        const char *p = buf;
        while (len > 0) {
                ssize_t k = pwrite(fd, p, len, (off_t)off);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : -EIO;
                p += k;
                off += (uint64_t)k;
                len -= (size_t)k;
        }
        return 0;
}

/* @n zero bytes (a hole of a sparse file) into @h. */
static void hash_zeros(const struct snapshot_lib *L, struct sha256_ctx *h, uint64_t n)
{
        static const uint8_t zeros[64u << 10];
        while (n > 0) {
                size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);
                L->sha256_update(h, k, zeros);
                n -= k;
        }
}

/* The data of regular file entry @en into @fd, checked against @want and its size. */
static int put_data(struct restorer *r, const struct entry_name *en, int fd, uint64_t size,
                    const uint8_t want[SNAPSHOT_SHA256_SIZE])
{
        const struct snapshot_lib *L = r->L;
        struct sha256_ctx h;
        L->sha256_init(&h);
        uint64_t pos = 0;
        for (;;) {
                const void *buf;
                size_t len;
                la_int64_t off;
                int k = L->read_data_block(r->a, &buf, &len, &off);
                if (k == ARCHIVE_EOF)
                        break;
                if (k != ARCHIVE_OK)
                        return archive_failed(r, en->name);
                if (off < 0 || (uint64_t)off < pos || (uint64_t)off > size ||
                    len > size - (uint64_t)off)
                        return cordon_diag_set(r->diag, -EINVAL,
                                               "entry '%s' has data outside its size", en->name);
                hash_zeros(L, &h, (uint64_t)off - pos);
                if (len > 0) {
                        k = pwrite_all(fd, buf, len, (uint64_t)off);
                        if (k < 0)
                                return cordon_diag_set(r->diag, k, "entry '%s': %s", en->name,
                                                       strerror(-k));
                        L->sha256_update(&h, len, buf);
                }
                pos = (uint64_t)off + len;
        }
        /* A sparse file may end in a hole. */
        hash_zeros(L, &h, size - pos);
        if (pos < size && ftruncate(fd, (off_t)size) < 0)
                return cordon_diag_set(r->diag, -errno, "entry '%s': %m", en->name);
        uint8_t got[SNAPSHOT_SHA256_SIZE];
        L->sha256_digest(&h, sizeof(got), got);
        if (memcmp(got, want, sizeof(got)) != 0)
                return cordon_diag_set(r->diag, -EBADMSG,
                                       "entry '%s' differs from the sha256 in the manifest",
                                       en->name);
        return 0;
}

static int put_file(struct restorer *r, const struct entry_name *en, const char *path,
                    struct archive_entry *e)
{
        const struct snapshot_lib *L = r->L;
        if (!*en->rel)
                return cordon_diag_set(r->diag, -EEXIST, "entry '%s' is already there", en->name);
        la_int64_t ssize = L->entry_size(e);
        if (!L->entry_size_is_set(e) || ssize < 0)
                return cordon_diag_set(r->diag, -EINVAL, "entry '%s' has no size", en->name);
        /* The size a sparse file declares, however little data it carries. */
        uint64_t size = (uint64_t)ssize;
        if (size > r->lim->max_file_bytes)
                return cordon_diag_set(
                    r->diag, -EFBIG, "entry '%s' is %llu bytes, more than the %llu allowed",
                    en->name, (unsigned long long)size, (unsigned long long)r->lim->max_file_bytes);
        if (size > r->lim->max_total_bytes - r->total)
                return cordon_diag_set(r->diag, -EFBIG,
                                       "the files are more than the %llu bytes allowed (at '%s')",
                                       (unsigned long long)r->lim->max_total_bytes, en->name);
        r->total += size;
        _cleanup_free_ char *key = cordon_snapshot_path_key(path);
        if (!key)
                return -ENOMEM;
        const char *hex = json_string_value(json_object_get(r->files, key));
        if (!hex)
                return cordon_diag_set(r->diag, -EBADMSG, "entry '%s' is not in the manifest",
                                       en->name);
        uint8_t want[SNAPSHOT_SHA256_SIZE];
        for (size_t i = 0; i < sizeof(want); i++)
                want[i] = (uint8_t)(unhexchar(hex[2 * i]) << 4 | unhexchar(hex[2 * i + 1]));
        int pfd;
        int k = open_parent(r, en, &pfd);
        if (k < 0)
                return k;
        _cleanup_close_ int fd =
            openat(pfd, en->leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return errno == EEXIST
                           ? exists(r, pfd, en)
                           : cordon_diag_set(r->diag, -errno, "entry '%s': %m", en->name);
        bool set;
        struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, entry_mtime(r, e, &set)};
        k = put_data(r, en, fd, size, want);
        if (k >= 0 && fchmod(fd, L->entry_perm(e) & 01777) < 0)
                k = cordon_diag_set(r->diag, -errno, "entry '%s': %m", en->name);
        if (k >= 0 && set && futimens(fd, ts) < 0)
                k = cordon_diag_set(r->diag, -errno, "entry '%s': %m", en->name);
        if (k < 0) {
                /* Nothing that failed its checks is left behind. */
                (void)unlinkat(pfd, en->leaf, 0);
                return k;
        }
        /* Found: a second entry of the same name finds it no more. */
        json_object_del(r->files, key);
        return 0;
}

/* Reads the first entry, which must be the manifest, and keeps its "files". */
static int read_manifest(struct restorer *r, bool require_zstd, char **ret_text)
{
        const struct snapshot_lib *L = r->L;
        struct archive_entry *e;
        int k = L->read_next_header(r->a, &e);
        if (k == ARCHIVE_EOF)
                return cordon_diag_set(r->diag, -EBADMSG, "the archive is empty: no manifest");
        if (k != ARCHIVE_OK)
                return archive_failed(r, NULL);
        if (require_zstd && L->filter_code(r->a, 0) != ARCHIVE_FILTER_ZSTD)
                return cordon_diag_set(r->diag, -EINVAL, "not a zstd-compressed archive");
        const char *name = L->entry_pathname(e);
        if (!name || !streq(name, CORDON_SNAPSHOT_MANIFEST_NAME) ||
            L->entry_filetype(e) != AE_IFREG || L->entry_hardlink(e))
                return cordon_diag_set(r->diag, -EBADMSG,
                                       "the first entry '%s' is not the manifest (%s)",
                                       strempty(name), CORDON_SNAPSHOT_MANIFEST_NAME);
        la_int64_t size = L->entry_size(e);
        if (size < 0 || (uint64_t)size > r->lim->max_manifest)
                return cordon_diag_set(r->diag, -EFBIG,
                                       "the manifest is %lld bytes, more than the %llu allowed",
                                       (long long)size, (unsigned long long)r->lim->max_manifest);
        _cleanup_free_ char *text = malloc((size_t)size + 1);
        if (!text)
                return -ENOMEM;
        size_t got = 0;
        while (got < (size_t)size) {
                la_ssize_t m = L->read_data(r->a, text + got, (size_t)size - got);
                if (m < 0)
                        return archive_failed(r, CORDON_SNAPSHOT_MANIFEST_NAME);
                if (m == 0)
                        return cordon_diag_set(r->diag, -EBADMSG, "the manifest is cut short");
                got += (size_t)m;
        }
        text[got] = 0;
        k = cordon_snapshot_manifest_parse(text, got, r->lim->max_entries, &r->files, r->diag);
        if (k < 0)
                return k;
        *ret_text = TAKE_PTR(text);
        return 0;
}

static int restore_entry(struct restorer *r, struct archive_entry *e)
{
        if (++r->entries > r->lim->max_entries)
                return cordon_diag_set(r->diag, -E2BIG, "the archive has more than %llu entries",
                                       (unsigned long long)r->lim->max_entries);
        const struct snapshot_lib *L = r->L;
        const char *name = L->entry_pathname(e);
        unsigned type = L->entry_filetype(e);
        struct entry_name en;
        _cleanup_free_ char *path = NULL;
        int k = parse_name(r, name, type, &en, &path);
        if (k < 0)
                return k;
        if (L->entry_hardlink(e))
                return cordon_diag_set(r->diag, -EPERM, "entry '%s' is a hard link", name);
        if (L->entry_perm(e) & (S_ISUID | S_ISGID))
                return cordon_diag_set(r->diag, -EPERM, "entry '%s' is setuid or setgid", name);
        switch (type) {
        case AE_IFDIR:
                return put_dir(r, &en, e);
        case AE_IFLNK:
                return put_link(r, &en, e);
        case AE_IFREG:
                return put_file(r, &en, path, e);
        default:
                return cordon_diag_set(r->diag, -EPERM,
                                       "entry '%s' is a device node, FIFO or socket", name);
        }
}

/* Sets the directories' modes and mtimes, the last made first: children before their parents,
 * whose mode may take away the search permission that reaches them. */
static int apply_fixups(struct restorer *r)
{
        for (size_t i = r->nfix; i-- > 0;) {
                const struct dir_fixup *f = &r->fix[i];
                _cleanup_close_ int own = -EBADF;
                int fd = r->roots[f->tree];
                if (*f->rel) {
                        struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                                               .resolve = RESOLVE_INSIDE};
                        fd = own = (int)syscall(SYS_openat2, fd, f->rel, &how, sizeof(how));
                }
                struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, f->mtime};
                if (fd < 0 || fchmod(fd, f->perm) < 0 || (f->has_mtime && futimens(fd, ts) < 0))
                        return cordon_diag_set(r->diag, -errno, "directory '%s/%s': %m",
                                               r->dirs[f->tree].name, f->rel);
        }
        return 0;
}

int cordon_snapshot_restore_any(int archive_fd, bool require_zstd,
                                const struct cordon_snapshot_dir *dirs, size_t n,
                                const struct cordon_snapshot_limits *limits, char **ret_manifest,
                                struct cordon_diag *diag)
{
        int k = cordon_snapshot_check_dirs(dirs, n, diag);
        if (k < 0)
                return k;
        if (archive_fd < 0)
                return cordon_diag_set(diag, -EINVAL, "no archive descriptor");
        _cleanup_(restorer_clear) struct restorer r = {
            .dirs = dirs,
            .n = n,
            .lim = limits ? limits : &cordon_snapshot_limits_default,
            .cache_fd = -EBADF,
            .diag = diag,
        };
        for (size_t i = 0; i < n; i++)
                r.roots[i] = -EBADF;
        r.L = cordon_snapshot_lib(diag);
        if (!r.L)
                return -ENOPKG;
        k = open_roots(&r);
        if (k < 0)
                return k;
        r.a = r.L->read_new();
        if (!r.a)
                return -ENOMEM;
        /* zstd and tar (pax, ustar, GNU) only: no other format's or filter's parser is exposed
         * to the archive. */
        if (r.L->read_support_filter_zstd(r.a) < ARCHIVE_OK ||
            r.L->read_support_format_tar(r.a) < ARCHIVE_OK)
                return cordon_diag_set(diag, -EIO, "libarchive: %s",
                                       strempty(r.L->error_string(r.a)));
        if (r.L->read_open_fd(r.a, archive_fd, SNAPSHOT_READ_BLOCK) != ARCHIVE_OK)
                return cordon_diag_set(diag, -EINVAL, "not a zstd-compressed tar archive: %s",
                                       strempty(r.L->error_string(r.a)));
        _cleanup_free_ char *manifest = NULL;
        k = read_manifest(&r, require_zstd, &manifest);
        if (k < 0)
                return k;
        for (;;) {
                struct archive_entry *e;
                k = r.L->read_next_header(r.a, &e);
                if (k == ARCHIVE_EOF)
                        break;
                /* A warning means libarchive guessed at something: refused too. */
                if (k != ARCHIVE_OK)
                        return archive_failed(&r, NULL);
                k = restore_entry(&r, e);
                if (k < 0)
                        return k;
        }
        if (json_object_size(r.files) > 0) {
                const char *key = json_object_iter_key(json_object_iter(r.files));
                return cordon_diag_set(diag, -EBADMSG,
                                       "the manifest lists '%s' (and %zu more), which the archive "
                                       "lacks",
                                       key, json_object_size(r.files) - 1);
        }
        k = apply_fixups(&r);
        if (k < 0)
                return k;
        if (ret_manifest)
                *ret_manifest = TAKE_PTR(manifest);
        return 0;
}

int cordon_snapshot_restore(int archive_fd, const struct cordon_snapshot_dir *dirs, size_t n,
                            const struct cordon_snapshot_limits *limits, char **ret_manifest,
                            struct cordon_diag *diag)
{
        return cordon_snapshot_restore_any(archive_fd, true, dirs, n, limits, ret_manifest, diag);
}
