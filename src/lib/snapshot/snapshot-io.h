/* Output of the snapshot writer: where libarchive's bytes go, and how the finished archive is
 * put together and moved into place. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/snapshot/snapshot-lib.h"

/* Bytes read or copied at a time. */
#define SNAPSHOT_IO_BUF (256u << 10)

/* Where the compressed entries start in the archive file: the region before them is kept for
 * the manifest's frame, which is known only once every file was hashed, and a zstd skippable
 * frame that fills the rest (a hole: no blocks on the disk). 1 MiB holds the manifest of some
 * 25,000 files (39 compressed bytes a file for bench/snapshot.sh's tree). */
#define SNAPSHOT_RESERVE (1u << 20)

/* A file libarchive writes to (the client data of cordon_snapshot_sink_write()) from its file
 * position @start on; with @L set, every byte also goes through @hash. */
struct snapshot_sink {
        int fd;
        const struct snapshot_lib *L;
        struct sha256_ctx hash;
        uint64_t start;
        uint64_t bytes;
        uint64_t flushed; /* bytes whose writeback was started */
        int error;        /* the first failed write's -errno */
};

/* libarchive's write callback for a struct snapshot_sink. */
la_ssize_t cordon_snapshot_sink_write(struct archive *a, void *sink, const void *buf, size_t len);

/* The file an archive is written into before it gets its name: unnamed (O_TMPFILE) where the
 * file system can, else under the temporary name @tmp in @dirfd, removed on failure. */
struct snapshot_file {
        int fd;
        int dirfd;
        bool named;
        char tmp[NAME_MAX + 1];
};

/* Opens @f (read-write, mode 0600) in @dirfd for the archive @dest_name. 0 or -errno. */
int cordon_snapshot_file_open(int dirfd, const char *dest_name, struct snapshot_file *f);
/* Closes @f, removing its name if it has one. */
void cordon_snapshot_file_discard(struct snapshot_file *f);

/* Finishes the archive: @manifest (@len bytes) as the first tar entry in a zstd frame of its
 * own, then the @entries_bytes compressed entries that @f holds from SNAPSHOT_RESERVE on. The
 * frame goes at the start of @f, a skippable frame over the rest of the reserved region; where
 * it does not fit (or the region would be a large part of a small archive), a new file gets
 * the frame and a copy of the entries. fsync(), rename to @dest_name in @f->dirfd, fsync() of
 * the directory. @out ends with the archive's size and hash. On failure no temporary file is
 * left (@f is discarded by the caller). 0 or -errno. */
int cordon_snapshot_publish(const struct snapshot_lib *L, const char *manifest, size_t len,
                            struct snapshot_file *f, uint64_t entries_bytes, const char *dest_name,
                            struct snapshot_sink *out, struct cordon_diag *diag);
