/* The last step of a snapshot write: the manifest, known only once every file was hashed, goes
 * first as a zstd frame of its own, the entries compressed meanwhile follow as they are (zstd
 * frames concatenate into one stream, and the manifest's tar entry ends on a 512-byte block, so
 * the whole decompresses to one tar archive). The entries were written into the archive's own
 * file behind a reserved region; the manifest's frame goes at its start and a skippable frame,
 * which decoders pass over, fills the rest of the region. The file is fsync()ed under a
 * temporary name and renamed into place. */
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

/* Bytes after which an archive's writeback is started, so that the disk works while the rest
 * is written and the fsync() at the end has less left to wait for. */
#define WRITEBACK_STEP (8u << 20)

/* A zstd skippable frame: a magic number (0x184D2A50..5F), the length of what follows. */
#define ZSTD_SKIPPABLE_MAGIC  0x184D2A50u
#define ZSTD_SKIPPABLE_HEADER 8u

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
        if (s->bytes - s->flushed >= WRITEBACK_STEP) {
                /* Advice only: the fsync() that follows is what counts. */
                (void)sync_file_range(s->fd, (off_t)(s->start + s->flushed),
                                      (off_t)(s->bytes - s->flushed), SYNC_FILE_RANGE_WRITE);
                s->flushed = s->bytes;
        }
        return (la_ssize_t)len;
}

static int tmp_name(const char *dest_name, char tmp[static NAME_MAX + 1])
{
        uint64_t rnd = 0;
        if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
                return -errno;
        snprintf(tmp, NAME_MAX + 1, ".%s.%016llx.tmp", dest_name, (unsigned long long)rnd);
        return 0;
}

static int open_named(int dirfd, const char *dest_name, int flags, struct snapshot_file *f)
{
        int r = tmp_name(dest_name, f->tmp);
        if (r < 0)
                return r;
        f->fd = openat(dirfd, f->tmp, O_CREAT | O_EXCL | flags | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (f->fd < 0)
                return -errno;
        f->dirfd = dirfd;
        f->named = true;
        return 0;
}

int cordon_snapshot_file_open(int dirfd, const char *dest_name, struct snapshot_file *f)
{
        *f = (struct snapshot_file){.fd = -EBADF, .dirfd = dirfd};
        f->fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (f->fd >= 0)
                return 0;
        if (errno != EOPNOTSUPP && errno != EISDIR)
                return -errno;
        return open_named(dirfd, dest_name, O_RDWR, f);
}

void cordon_snapshot_file_discard(struct snapshot_file *f)
{
        f->fd = safe_close(f->fd);
        if (f->named)
                (void)unlinkat(f->dirfd, f->tmp, 0);
        f->named = false;
}

/* Gives the unnamed @f its temporary name: linkat() of its /proc/self/fd link, which needs no
 * privilege (AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH). */
static int file_link(struct snapshot_file *f, const char *dest_name)
{
        if (f->named)
                return 0;
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
        int r = tmp_name(dest_name, f->tmp);
        if (r < 0)
                return r;
        if (linkat(AT_FDCWD, proc, f->dirfd, f->tmp, AT_SYMLINK_FOLLOW) < 0)
                return -errno;
        f->named = true;
        return 0;
}

struct membuf {
        char *data;
        size_t len, cap, max;
};

static void membuf_done(struct membuf *m)
{
        free(m->data);
}

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

/* @data compressed as one zstd frame into @out. */
static int put_frame(const struct snapshot_lib *L, const char *data, size_t len, struct membuf *out,
                     struct cordon_diag *diag)
{
        out->max = len + len / 64 + (64u << 10); /* over zstd's bound */
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
            L->write_open2(a, out, NULL, membuf_write, NULL, NULL) < ARCHIVE_OK ||
            L->write_header(a, e) < ARCHIVE_OK || L->write_data(a, data, len) != (la_ssize_t)len ||
            L->write_close(a) < ARCHIVE_OK) {
                cordon_diag_set(diag, -EIO, "cannot compress the manifest: %s",
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

/* The bytes of @fd from @from to its end hashed into @hash, on a thread of their own while the
 * kernel copies or writes them back. */
struct hasher {
        const struct snapshot_lib *L;
        struct sha256_ctx *hash;
        int fd;
        uint64_t from, bytes;
        int error;
};

static void *hash_file(void *data)
{
        struct hasher *h = data;
        uint8_t *buf = malloc(SNAPSHOT_IO_BUF);
        if (!buf) {
                h->error = -ENOMEM;
                return NULL;
        }
        for (;;) {
                ssize_t k = pread(h->fd, buf, SNAPSHOT_IO_BUF, (off_t)(h->from + h->bytes));
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

static bool hash_start(struct hasher *h, pthread_t *thread)
{
        /* Without a thread, the same work one after the other (hash_join()). */
        return pthread_create(thread, NULL, hash_file, h) == 0;
}

static int hash_join(struct hasher *h, pthread_t *thread, bool threaded, uint64_t expected,
                     struct cordon_diag *diag)
{
        if (threaded)
                pthread_join(*thread, NULL);
        else
                hash_file(h);
        if (h->error < 0)
                return cordon_diag_set(diag, h->error, "cannot read the archive back: %s",
                                       strerror(-h->error));
        if (h->bytes != expected)
                return cordon_diag_set(diag, -EIO, "the archive changed while written");
        return 0;
}

/* Copies @in from @from to its end to @out's file position: copy_file_range(), or read() and
 * write() where the file system has none. Returns the bytes copied or -errno. */
static int64_t copy_bytes(int in, uint64_t from, struct snapshot_sink *out)
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
                        loff_t pos = (loff_t)(from + done);
                        k = copy_file_range(in, &pos, out->fd, NULL, WRITEBACK_STEP, 0);
                        if (k < 0 && (errno == ENOSYS || errno == EXDEV || errno == EINVAL ||
                                      errno == EOPNOTSUPP)) {
                                plain = true;
                                continue;
                        }
                } else {
                        if (!buf && !(buf = malloc(SNAPSHOT_IO_BUF)))
                                return -ENOMEM;
                        k = pread(in, buf, SNAPSHOT_IO_BUF, (off_t)(from + done));
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

/* The archive's bytes: @frame at the start of @f, the skippable frame's header after it, its
 * content the reserved region's hole (zeros), then the entries, hashed while @f is fsync()ed.
 * -EXDEV when @f cannot be named (no /proc): then the caller copies. */
static int finish_in_place(const struct snapshot_lib *L, const struct membuf *frame,
                           struct snapshot_file *f, uint64_t entries_bytes, const char *dest_name,
                           struct snapshot_sink *out, struct cordon_diag *diag)
{
        uint32_t skip = SNAPSHOT_RESERVE - (uint32_t)frame->len - ZSTD_SKIPPABLE_HEADER;
        uint8_t header[ZSTD_SKIPPABLE_HEADER];
        for (unsigned i = 0; i < 4; i++) {
                header[i] = (uint8_t)(ZSTD_SKIPPABLE_MAGIC >> (8 * i));
                header[4 + i] = (uint8_t)(skip >> (8 * i));
        }
        int r = file_link(f, dest_name);
        if (r < 0)
                return -EXDEV;
        if (pwrite(f->fd, frame->data, frame->len, 0) != (ssize_t)frame->len ||
            pwrite(f->fd, header, sizeof(header), (off_t)frame->len) != (ssize_t)sizeof(header))
                return cordon_diag_set(diag, errno > 0 ? -errno : -EIO,
                                       "cannot write the manifest into '%s': %m", f->tmp);

        *out = (struct snapshot_sink){.fd = f->fd, .L = L};
        L->sha256_init(&out->hash);
        L->sha256_update(&out->hash, frame->len, (const uint8_t *)frame->data);
        L->sha256_update(&out->hash, sizeof(header), header);
        static const uint8_t zero[4096];
        for (uint32_t left = skip; left > 0;) {
                uint32_t k = left < sizeof(zero) ? left : (uint32_t)sizeof(zero);
                L->sha256_update(&out->hash, k, zero);
                left -= k;
        }
        struct hasher h = {.L = L, .hash = &out->hash, .fd = f->fd, .from = SNAPSHOT_RESERVE};
        pthread_t thread;
        bool threaded = hash_start(&h, &thread);
        /* The data on the disk before the name points at it, and the name before we return;
         * the fsync() after the linkat() also makes the link count durable. */
        r = fsync(f->fd) < 0 ? cordon_diag_set(diag, -errno, "cannot fsync '%s': %m", f->tmp) : 0;
        int k = hash_join(&h, &thread, threaded, entries_bytes, diag);
        if (r < 0)
                return r;
        if (k < 0)
                return k;
        out->bytes = SNAPSHOT_RESERVE + entries_bytes;
        return 0;
}

/* The fallback: a new file with @frame, then a copy of the entries, hashed as they are
 * copied. The new file replaces @f (which is discarded). */
static int finish_copy(const struct snapshot_lib *L, const struct membuf *frame,
                       struct snapshot_file *f, uint64_t entries_bytes, const char *dest_name,
                       struct snapshot_sink *out, struct cordon_diag *diag)
{
        struct snapshot_file c;
        int r = open_named(f->dirfd, dest_name, O_WRONLY, &c);
        if (r < 0)
                return cordon_diag_set(diag, r, "cannot create a file beside '%s': %s", dest_name,
                                       strerror(-r));
        *out = (struct snapshot_sink){.fd = c.fd, .L = L};
        L->sha256_init(&out->hash);
        r = write_all(c.fd, frame->data, frame->len);
        if (r < 0) {
                cordon_diag_set(diag, r, "cannot write '%s': %s", c.tmp, strerror(-r));
                goto fail;
        }
        L->sha256_update(&out->hash, frame->len, (const uint8_t *)frame->data);
        out->bytes = frame->len;

        struct hasher h = {.L = L, .hash = &out->hash, .fd = f->fd, .from = SNAPSHOT_RESERVE};
        pthread_t thread;
        bool threaded = hash_start(&h, &thread);
        int64_t copied = copy_bytes(f->fd, SNAPSHOT_RESERVE, out);
        r = hash_join(&h, &thread, threaded, entries_bytes, diag);
        if (copied < 0) {
                r = cordon_diag_set(diag, (int)copied, "cannot write the archive: %s",
                                    strerror((int)-copied));
                goto fail;
        }
        if (r < 0)
                goto fail;
        if ((uint64_t)copied != entries_bytes) {
                r = cordon_diag_set(diag, -EIO, "the temporary file changed while copied");
                goto fail;
        }
        out->bytes += (uint64_t)copied;
        if (fsync(c.fd) < 0) {
                r = cordon_diag_set(diag, -errno, "cannot fsync '%s': %m", c.tmp);
                goto fail;
        }
        cordon_snapshot_file_discard(f);
        *f = c;
        return 0;
fail:
        cordon_snapshot_file_discard(&c);
        return r;
}

int cordon_snapshot_publish(const struct snapshot_lib *L, const char *manifest, size_t len,
                            struct snapshot_file *f, uint64_t entries_bytes, const char *dest_name,
                            struct snapshot_sink *out, struct cordon_diag *diag)
{
        _cleanup_(membuf_done) struct membuf m = {0}, frame = {0};
        int r = manifest_entry(L, manifest, len, &m, diag);
        if (r < 0)
                return r;
        r = put_frame(L, m.data, m.len, &frame, diag);
        if (r < 0)
                return r;

        /* In place when the frame fits, and the skippable frame is at most a sixteenth of the
         * archive: a small archive is copied (cheaply) rather than made larger by the region. */
        uint64_t pad = SNAPSHOT_RESERVE - frame.len;
        bool fits = frame.len + ZSTD_SKIPPABLE_HEADER <= SNAPSHOT_RESERVE &&
                    pad <= (SNAPSHOT_RESERVE + entries_bytes) / 16;
        r = fits ? finish_in_place(L, &frame, f, entries_bytes, dest_name, out, diag) : -EXDEV;
        if (r == -EXDEV)
                r = finish_copy(L, &frame, f, entries_bytes, dest_name, out, diag);
        if (r < 0)
                return r;
        if (renameat(f->dirfd, f->tmp, f->dirfd, dest_name) < 0)
                return cordon_diag_set(diag, -errno, "cannot rename '%s' to '%s': %m", f->tmp,
                                       dest_name);
        f->named = false; /* now the archive's */
        _cleanup_close_ int dfd = openat(f->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fsync(dfd) < 0)
                return cordon_diag_set(diag, -errno, "cannot fsync the directory of '%s': %m",
                                       dest_name);
        return 0;
}
