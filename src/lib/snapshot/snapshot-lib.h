/* The functions of libarchive and nettle the snapshot module calls, found with dlopen() on the
 * first use: linked, libarchive and what it pulls in (libxml2, ICU, libstdc++) cost every start
 * of cordon 2-3 ms of the dynamic loader, and only snapshots need them. */
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <nettle/sha2.h>

#include "cordon/cordon.h"

/* X(field, symbol) for every function: the table's field and the library's symbol. */
#define SNAPSHOT_ARCHIVE_FUNCTIONS(X)                                                              \
        X(error_string, archive_error_string)                                                      \
        X(filter_code, archive_filter_code)                                                        \
        X(write_new, archive_write_new)                                                            \
        X(write_set_format_pax, archive_write_set_format_pax)                                      \
        X(write_set_format_raw, archive_write_set_format_raw)                                      \
        X(write_add_filter_zstd, archive_write_add_filter_zstd)                                    \
        X(write_set_options, archive_write_set_options)                                            \
        X(write_set_bytes_per_block, archive_write_set_bytes_per_block)                            \
        X(write_set_bytes_in_last_block, archive_write_set_bytes_in_last_block)                    \
        X(write_open2, archive_write_open2)                                                        \
        X(write_header, archive_write_header)                                                      \
        X(write_data, archive_write_data)                                                          \
        X(write_close, archive_write_close)                                                        \
        X(write_free, archive_write_free)                                                          \
        X(read_new, archive_read_new)                                                              \
        X(read_support_filter_zstd, archive_read_support_filter_zstd)                              \
        X(read_support_filter_none, archive_read_support_filter_none)                              \
        X(read_support_format_tar, archive_read_support_format_tar)                                \
        X(read_open_fd, archive_read_open_fd)                                                      \
        X(read_next_header, archive_read_next_header)                                              \
        X(read_data, archive_read_data)                                                            \
        X(read_data_block, archive_read_data_block)                                                \
        X(read_free, archive_read_free)                                                            \
        X(entry_new, archive_entry_new)                                                            \
        X(entry_clear, archive_entry_clear)                                                        \
        X(entry_free, archive_entry_free)                                                          \
        X(entry_copy_pathname, archive_entry_copy_pathname)                                        \
        X(entry_copy_symlink, archive_entry_copy_symlink)                                          \
        X(entry_set_filetype, archive_entry_set_filetype)                                          \
        X(entry_set_perm, archive_entry_set_perm)                                                  \
        X(entry_set_size, archive_entry_set_size)                                                  \
        X(entry_set_mtime, archive_entry_set_mtime)                                                \
        X(entry_pathname, archive_entry_pathname)                                                  \
        X(entry_hardlink, archive_entry_hardlink)                                                  \
        X(entry_symlink, archive_entry_symlink)                                                    \
        X(entry_filetype, archive_entry_filetype)                                                  \
        X(entry_perm, archive_entry_perm)                                                          \
        X(entry_size, archive_entry_size)                                                          \
        X(entry_size_is_set, archive_entry_size_is_set)                                            \
        X(entry_mtime, archive_entry_mtime)                                                        \
        X(entry_mtime_nsec, archive_entry_mtime_nsec)                                              \
        X(entry_mtime_is_set, archive_entry_mtime_is_set)

#define SNAPSHOT_NETTLE_FUNCTIONS(X)                                                               \
        X(sha256_init, nettle_sha256_init)                                                         \
        X(sha256_update, nettle_sha256_update)                                                     \
        X(sha256_digest, nettle_sha256_digest)

struct snapshot_lib {
#define SNAPSHOT_FIELD(field, symbol) __typeof__(&symbol) field;
        SNAPSHOT_ARCHIVE_FUNCTIONS(SNAPSHOT_FIELD)
        SNAPSHOT_NETTLE_FUNCTIONS(SNAPSHOT_FIELD)
#undef SNAPSHOT_FIELD
};

/* The table, loaded once per process (thread-safe). NULL when libarchive.so.13 or
 * libnettle.so.8 cannot be opened or lacks a function, with the reason in @diag. */
const struct snapshot_lib *cordon_snapshot_lib(struct cordon_diag *diag);
