/* Snapshots of a session's writable state: directory trees written into one pax + zstd archive
 * with a manifest (format version, time, the caller's policy, per-tree counts, the sha256 of
 * every regular file) as its first entry, and restored from such an archive treated as hostile.
 * Internal to libcordon; the session API builds on it. libarchive and nettle are opened with
 * dlopen() on the first call (snapshot-lib.c), so that they cost no other start of cordon. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"

/* The manifest's name in the archive, and the version of the format it describes. */
#define CORDON_SNAPSHOT_MANIFEST_NAME "cordon-snapshot.json"
#define CORDON_SNAPSHOT_FORMAT        "cordon-snapshot"
#define CORDON_SNAPSHOT_VERSION       1
/* At most this many trees in one archive. */
#define CORDON_SNAPSHOT_TREES_MAX 16

/* One tree of a snapshot. @name is its top-level name in the archive: letters, digits, '.', '_'
 * and '-', at most 64 bytes, not starting with '.', and not the manifest's name. @dirfd is an
 * O_DIRECTORY descriptor of the tree (the caller opened it with openat2(RESOLVE_NO_SYMLINKS));
 * it is borrowed, never closed, and its file offset is not used. */
struct cordon_snapshot_dir {
        const char *name;
        int dirfd;
};

/* What a write stored; filled only on success. */
struct cordon_snapshot_stats {
        uint64_t files, dirs, symlinks; /* stored entries (each tree's top directory counts) */
        uint64_t bytes;                 /* content of the regular files */
        uint64_t skipped_special;       /* device nodes, FIFOs, sockets and what another file
                                         * system mounted in the tree holds: never stored */
        uint64_t skipped_symlinks;      /* absolute or climbing out of their tree: not stored */
        uint64_t archive_bytes;         /* size of the archive file */
        char archive_sha256[65];        /* its sha256, lower-case hex */
};

/* What a restore accepts (cordon_snapshot_restore); a write refuses what a restore with the
 * defaults would refuse, so that what was written can be restored. */
struct cordon_snapshot_limits {
        uint64_t max_entries;     /* archive entries after the manifest */
        uint64_t max_total_bytes; /* sum of regular files' sizes; a sparse file at its full size */
        uint64_t max_file_bytes;  /* one regular file, at its full size */
        uint64_t max_path;        /* bytes of an entry's name, and of a symlink's target */
        uint64_t max_manifest;    /* bytes of the manifest */
};

/* 500,000 entries, 16 GiB in all, 4 GiB a file, 4,096-byte names, a 64 MiB manifest. */
extern const struct cordon_snapshot_limits cordon_snapshot_limits_default;

/* Writes the trees @dirs (@n of them, 1..CORDON_SNAPSHOT_TREES_MAX, distinct names) into the
 * archive @dest_name (one file name, no '/') in directory @dest_dirfd, replacing an existing one
 * atomically: written under a temporary name there (mode 0600), fsync()ed, renamed, and the
 * directory fsync()ed. Each tree is walked by descriptors only (openat with O_NOFOLLOW, fstatat
 * with AT_SYMLINK_NOFOLLOW, names sorted); regular files (content, mode, mtime), directories
 * and symlinks (their target text) are stored; a hard link is stored as one more regular file;
 * device nodes, FIFOs, sockets, and symlinks that are absolute or climb out of their tree
 * (cordon_snapshot_link_is_safe()) are left out, counted in @ret_stats and listed in the
 * manifest's "skipped". @manifest_extra_json, a JSON object or NULL, is stored as the manifest's
 * "extra" (the policy of the session). Ownership, ACLs, extended attributes and the setuid and
 * setgid bits (which a restore refuses) are not stored.
 * Every file is read and hashed once: the entries are compressed into the archive's file
 * (unnamed until complete) behind a region kept for the manifest as the trees are read, and the
 * manifest, known only then, is written as its own zstd frame ahead of them, a skippable frame
 * filling the rest of the region (zstd frames concatenate, so the archive is one tar stream).
 * The trees must not change meanwhile (a frozen session): an entry seen to change (another
 * inode, a file shorter or longer than its stat said) fails the write with -EAGAIN.
 * Returns 0, or -errno with @diag naming the tree and entry: -EINVAL (arguments, a tree name),
 * -E2BIG / -EFBIG / -ENAMETOOLONG (a default limit), -EAGAIN, -ELOOP (a tree deeper than 256
 * directories), -ENOPKG (libarchive or nettle missing), or that of a failed system call.
 * On failure no temporary file is left and @dest_name is as it was (unless only the last
 * fsync() of the directory failed, after the rename). Not thread-safe for the same
 * @dest_dirfd and @dest_name; starts threads (zstd's workers, one that hashes the archive) that
 * end before it returns. */
int cordon_snapshot_write(const struct cordon_snapshot_dir *dirs, size_t n,
                          const char *manifest_extra_json, int dest_dirfd, const char *dest_name,
                          struct cordon_snapshot_stats *ret_stats, struct cordon_diag *diag);

/* Restores the archive read from @archive_fd (from its current offset; a pipe will do) into
 * the trees @dirs, which must be empty directories (else -ENOTEMPTY): each entry's first
 * component names one of them. The archive is hostile: only zstd-compressed tar is read; the
 * first entry must be the manifest (read, never extracted; at most @limits->max_manifest
 * bytes) and every regular file must be listed there with the sha256 of its content, checked
 * as it is written. Every parent is opened with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
 * RESOLVE_NO_MAGICLINKS) from the tree's descriptor and every entry created with O_EXCL /
 * mkdirat / symlinkat, so nothing is written outside the trees and nothing is written through
 * a link. Modes (without setuid/setgid, which are refused) and mtimes are restored, ownership
 * is the caller's; a directory's mode and mtime are set after its content. @limits NULL means
 * cordon_snapshot_limits_default. On success *@ret_manifest (may be NULL) is the manifest's
 * text, NUL-terminated, to free().
 * Returns 0 or -errno, @diag naming the entry:
 *   -EPERM   an absolute name, a ".." component, a name outside the trees, a hard link, a
 *            device node, FIFO or socket, a setuid or setgid mode, a symlink whose target is
 *            absolute or climbs out of its tree, a parent that is a symlink, an entry in the
 *            place of an existing symlink
 *   -EEXIST  an entry in the place of an existing one (other than a directory over one)
 *   -EINVAL  not a zstd-compressed tar, a damaged archive, an empty or "." component, an entry
 *            whose directory came nowhere before it
 *   -EBADMSG no manifest first, a manifest that does not parse, a regular file not in the
 *            manifest, a sha256 that differs, a file of the manifest missing from the archive
 *   -EOPNOTSUPP a manifest of another format version
 *   -E2BIG   more than max_entries entries (or files in the manifest)
 *   -EFBIG   a file over max_file_bytes, all files over max_total_bytes, a manifest over
 *            max_manifest
 *   -ENAMETOOLONG a name or symlink target over max_path
 *   -ENOPKG  libarchive or nettle cannot be loaded
 * On failure, what was restored before the refusal stays inside the trees (never outside):
 * the caller restores into fresh directories and removes them. Thread-safe for distinct
 * trees. */
int cordon_snapshot_restore(int archive_fd, const struct cordon_snapshot_dir *dirs, size_t n,
                            const struct cordon_snapshot_limits *limits, char **ret_manifest,
                            struct cordon_diag *diag);

/* cordon_snapshot_restore() that, without @require_zstd, also reads an uncompressed tar
 * archive: for the fuzz target, whose mutations reach the tar parser and the checks that way. */
int cordon_snapshot_restore_any(int archive_fd, bool require_zstd,
                                const struct cordon_snapshot_dir *dirs, size_t n,
                                const struct cordon_snapshot_limits *limits, char **ret_manifest,
                                struct cordon_diag *diag);
