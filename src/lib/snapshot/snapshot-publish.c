/* The last step of a snapshot write: the manifest, known only once every file was hashed, goes
 * first as a zstd frame of its own, the entries compressed meanwhile follow as they are (zstd
 * frames concatenate into one stream, and the manifest's tar entry ends on a 512-byte block, so
 * the whole decompresses to one tar archive), all under a temporary name that is fsync()ed and
 * renamed into place. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/snapshot/snapshot-io.h"
#include "lib/snapshot/snapshot.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

/* The end of a tar archive: two zero blocks. */
#define TAR_TRAILER 1024u

la_ssize_t cordon_snapshot_sink_write(struct archive *a, void *data, const void *buf, size_t len)
{
        struct snapshot_sink *s = data;
        int r = write_all(s->fd, buf, len);
        if (r < 0) {
                if (s->error == 0)
                        s->error = r;
                return -1;
        }
        if (s->L)
                s->L->sha256_update(&s->hash, len, buf);
        s->bytes += len;
        return (la_ssize_t)len;
}

struct membuf {
        char *data;
        size_t len, cap, max;
};

static la_ssize_t membuf_write(struct archive *a, void *data, const void *buf, size_t len)
{
        struct membuf *m = data;
        if (len > m->max - m->len)
                return -1;
        if (m->len + len > m->cap) {
                size_t cap = m->cap ? m->cap : 4096;
                while (cap < m->len + len)
                        cap *= 2;
                char *n = realloc(m->data, cap);
                if (!n)
                        return -1;
                m->data = n;
                m->cap = cap;
        }
        memcpy(m->data + m->len, buf, len);
        m->len += len;
        return (la_ssize_t)len;
}

/* The manifest as a pax tar entry without the end-of-archive blocks, in @m. */
static int manifest_entry(const struct snapshot_lib *L, const char *text, size_t len,
                          struct membuf *m, struct cordon_diag *diag)
{
        m->max = len + (64u << 10);
        struct archive *a = L->write_new();
        struct archive_entry *e = L->entry_new();
        int r = -ENOMEM;
        if (!a || !e)
                goto out;
        L->entry_copy_pathname(e, CORDON_SNAPSHOT_MANIFEST_NAME);
        L->entry_set_filetype(e, AE_IFREG);
        L->entry_set_perm(e, 0644);
        L->entry_set_mtime(e, time(NULL), 0);
        L->entry_set_size(e, (la_int64_t)len);
        r = -EIO;
        if (L->write_set_format_pax(a) < ARCHIVE_OK ||
            L->write_set_bytes_per_block(a, 0) < ARCHIVE_OK ||
            L->write_open2(a, m, NULL, membuf_write, NULL, NULL) < ARCHIVE_OK ||
            L->write_header(a, e) < ARCHIVE_OK || L->write_data(a, text, len) != (la_ssize_t)len ||
            L->write_close(a) < ARCHIVE_OK) {
                cordon_diag_set(diag, -EIO, "cannot store the manifest: %s",
                                strempty(L->error_string(a)));
                goto out;
        }
        /* What the entry itself needs is whole blocks; the two zero blocks after it would end
         * the archive before the entries. */
        static const char zero[TAR_TRAILER];
        if (m->len < TAR_TRAILER + 1024 || m->len % 512 != 0 ||
            memcmp(m->data + m->len - TAR_TRAILER, zero, TAR_TRAILER) != 0) {
                cordon_diag_set(diag, -EIO, "libarchive ended the manifest unexpectedly");
                goto out;
        }
        m->len -= TAR_TRAILER;
        r = 0;
out:
        if (e)
                L->entry_free(e);
        if (a)
                L->write_free(a);
        return r;
}

/* @data compressed as one zstd frame onto @out. */
static int put_frame(const struct snapshot_lib *L, const char *data, size_t len,
                     struct snapshot_sink *out, struct cordon_diag *diag)
{
        struct archive *a = L->write_new();
        struct archive_entry *e = L->entry_new();
        int r = -ENOMEM;
        if (!a || !e)
                goto out;
        L->entry_copy_pathname(e, CORDON_SNAPSHOT_MANIFEST_NAME);
        L->entry_set_filetype(e, AE_IFREG);
        L->entry_set_size(e, (la_int64_t)len);
        r = -EIO;
        if (L->write_set_format_raw(a) < ARCHIVE_OK || L->write_add_filter_zstd(a) < ARCHIVE_OK ||
            L->write_set_options(a, "zstd:compression-level=1") < ARCHIVE_OK ||
            L->write_set_bytes_per_block(a, 0) < ARCHIVE_OK ||
            L->write_open2(a, out, NULL, cordon_snapshot_sink_write, NULL, NULL) < ARCHIVE_OK ||
            L->write_header(a, e) < ARCHIVE_OK || L->write_data(a, data, len) != (la_ssize_t)len ||
            L->write_close(a) < ARCHIVE_OK) {
                r = out->error < 0 ? out->error : -EIO;
                cordon_diag_set(diag, r, "cannot write the manifest: %s",
                                strempty(L->error_string(a)));
                goto out;
        }
        r = 0;
out:
        if (e)
                L->entry_free(e);
        if (a)
                L->write_free(a);
        return r;
}

/* Bytes after which the archive's writeback is started, so that the disk works while the rest
 * is copied and the fsync() at the end has less left to wait for. */
#define WRITEBACK_STEP (8u << 20)

/* The compressed entries' bytes, hashed on a thread of their own while the kernel copies them:
 * the two are the only work of a write that cannot overlap the reading and compressing. */
struct hasher {
        const struct snapshot_lib *L;
        struct sha256_ctx *hash; /* the archive's, after the manifest's frame */
        int fd;
        uint64_t bytes;
        int error;
};

static void *hash_scratch(void *data)
{
        struct hasher *h = data;
        uint8_t *buf = malloc(SNAPSHOT_IO_BUF);
        if (!buf) {
                h->error = -ENOMEM;
                return NULL;
        }
        for (;;) {
                ssize_t k = pread(h->fd, buf, SNAPSHOT_IO_BUF, (off_t)h->bytes);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0) {
                        h->error = k < 0 ? -errno : 0;
                        break;
                }
                h->L->sha256_update(h->hash, (size_t)k, buf);
                h->bytes += (uint64_t)k;
        }
        free(buf);
        return NULL;
}

/* Copies @scratch from offset 0 to @out's file position: copy_file_range(), or read() and
 * write() where the file system has none. Returns the bytes copied or -errno. */
static int64_t copy_bytes(int scratch, struct snapshot_sink *out)
{
        _cleanup_free_ char *buf = NULL;
        uint64_t done = 0, started = out->bytes;
        bool plain = false;
        for (;;) {
                if (out->bytes + done - started >= WRITEBACK_STEP) {
                        /* Advice only: the fsync() that follows is what counts. */
                        (void)sync_file_range(out->fd, (off_t)started,
                                              (off_t)(out->bytes + done - started),
                                              SYNC_FILE_RANGE_WRITE);
                        started = out->bytes + done;
                }
                ssize_t k;
                if (!plain) {
                        loff_t in = (loff_t)done;
                        k = copy_file_range(scratch, &in, out->fd, NULL, WRITEBACK_STEP, 0);
                        if (k < 0 && (errno == ENOSYS || errno == EXDEV || errno == EINVAL ||
                                      errno == EOPNOTSUPP)) {
                                plain = true;
                                continue;
                        }
                } else {
                        if (!buf && !(buf = malloc(SNAPSHOT_IO_BUF)))
                                return -ENOMEM;
                        k = pread(scratch, buf, SNAPSHOT_IO_BUF, (off_t)done);
                        if (k > 0) {
                                int r = write_all(out->fd, buf, (size_t)k);
                                if (r < 0)
                                        return r;
                        }
                }
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return (int64_t)done;
                done += (uint64_t)k;
        }
}

static int copy_scratch(int scratch, struct snapshot_sink *out, struct cordon_diag *diag)
{
        struct hasher h = {.L = out->L, .hash = &out->hash, .fd = scratch};
        pthread_t thread;
        /* Without a thread, the same work one after the other. */
        bool threaded = pthread_create(&thread, NULL, hash_scratch, &h) == 0;
        int64_t copied = copy_bytes(scratch, out);
        if (threaded)
                pthread_join(thread, NULL);
        else
                hash_scratch(&h);
        if (copied < 0)
                return cordon_diag_set(diag, (int)copied, "cannot write the archive: %s",
                                       strerror((int)-copied));
        if (h.error < 0)
                return cordon_diag_set(diag, h.error, "cannot read the temporary file: %s",
                                       strerror(-h.error));
        if (h.bytes != (uint64_t)copied)
                return cordon_diag_set(diag, -EIO, "the temporary file changed while copied");
        out->bytes += (uint64_t)copied;
        return 0;
}

int cordon_snapshot_publish(const struct snapshot_lib *L, const char *manifest, size_t len,
                            int scratch, int dest_dirfd, const char *dest_name,
                            struct snapshot_sink *out, struct cordon_diag *diag)
{
        struct membuf m = {0};
        int r = manifest_entry(L, manifest, len, &m, diag);
        _cleanup_free_ char *entry = m.data;
        if (r < 0)
                return r;

        uint64_t rnd = 0;
        if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
                return -errno;
        char tmp[NAME_MAX + 1];
        snprintf(tmp, sizeof(tmp), ".%s.%016llx.tmp", dest_name, (unsigned long long)rnd);
        _cleanup_close_ int fd =
            openat(dest_dirfd, tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return cordon_diag_set(diag, -errno, "cannot create '%s': %m", tmp);
        *out = (struct snapshot_sink){.fd = fd, .L = L};
        L->sha256_init(&out->hash);
        r = put_frame(L, entry, m.len, out, diag);
        if (r >= 0)
                r = copy_scratch(scratch, out, diag);
        /* The data on the disk before the name points at it, and the name before we return. */
        if (r >= 0 && fsync(fd) < 0)
                r = cordon_diag_set(diag, -errno, "cannot fsync '%s': %m", tmp);
        if (r >= 0 && renameat(dest_dirfd, tmp, dest_dirfd, dest_name) < 0)
                r = cordon_diag_set(diag, -errno, "cannot rename '%s' to '%s': %m", tmp, dest_name);
        if (r < 0) {
                (void)unlinkat(dest_dirfd, tmp, 0);
                return r;
        }
        _cleanup_close_ int dfd = openat(dest_dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fsync(dfd) < 0)
                return cordon_diag_set(diag, -errno, "cannot fsync the directory of '%s': %m",
                                       dest_name);
        return 0;
}
