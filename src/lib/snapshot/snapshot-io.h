/* Output of the snapshot writer: where libarchive's bytes go, and how the finished archive is
 * put together and moved into place. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "lib/snapshot/snapshot-lib.h"

/* Bytes read or copied at a time. */
#define SNAPSHOT_IO_BUF (256u << 10)

/* A file libarchive writes to (the client data of cordon_snapshot_sink_write()); with @L set,
 * every byte also goes through @hash. */
struct snapshot_sink {
        int fd;
        const struct snapshot_lib *L;
        struct sha256_ctx hash;
        uint64_t bytes;
        int error; /* the first failed write's -errno */
};

/* libarchive's write callback for a struct snapshot_sink. */
la_ssize_t cordon_snapshot_sink_write(struct archive *a, void *sink, const void *buf, size_t len);

/* Writes the archive: @manifest (@len bytes) as the first tar entry in a zstd frame of its own,
 * then the compressed entries of @scratch (from offset 0), into a new file under a temporary
 * name in @dest_dirfd; fsync(), rename to @dest_name, fsync() of the directory. @out ends with
 * the archive's size and hash. On failure the temporary file is removed. 0 or -errno. */
int cordon_snapshot_publish(const struct snapshot_lib *L, const char *manifest, size_t len,
                            int scratch, int dest_dirfd, const char *dest_name,
                            struct snapshot_sink *out, struct cordon_diag *diag);
