/* What the writer and the restorer of snapshots share: the rules for tree names and symlink
 * targets, the manifest's keys, and the manifest itself (built by one, checked by the other).
 * Side-effect free. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/snapshot/snapshot.h"

#define SNAPSHOT_TREE_NAME_MAX 64
#define SNAPSHOT_SHA256_SIZE   32

/* Counts of one tree, for the manifest's "trees". */
struct snapshot_tree_counts {
        uint64_t entries, files, dirs, symlinks, bytes, skipped;
};

/* True for a tree name the archive can use (see struct cordon_snapshot_dir). */
bool cordon_snapshot_tree_name_is_valid(const char *name);
/* Checks @n trees: 1..CORDON_SNAPSHOT_TREES_MAX, valid distinct names, descriptors >= 0.
 * 0 or -EINVAL with @diag naming the tree. */
int cordon_snapshot_check_dirs(const struct cordon_snapshot_dir *dirs, size_t n,
                               struct cordon_diag *diag);

/* True when a symlink with @target, @depth directories below its tree's top (0: in the top
 * directory itself), points inside the tree however the directories between are laid out:
 * relative, not empty, and its ".." components all lead (at most @depth of them). A ".." after
 * a named component is refused even when it would stay inside: the component may itself be a
 * symlink, after which ".." climbs from wherever that one points. */
bool cordon_snapshot_link_is_safe(const char *target, size_t depth);

/* The manifest's key for archive name @path (without a trailing '/'): bytes 0x20-0x7e other than
 * '%' as they are, every other byte (and '%') as %XX, so that any name is a JSON string and
 * names map to keys one to one. NULL on allocation failure. */
char *cordon_snapshot_path_key(const char *path);

/* @digest as 64 lower-case hex digits and a NUL. */
void cordon_snapshot_hex(const uint8_t digest[SNAPSHOT_SHA256_SIZE], char ret[65]);

/* A new manifest: format, version, the time, @extra_json (a JSON object, or NULL for none) as
 * "extra", and empty "files" and "skipped". 0 or -EINVAL (@extra_json is not an object, said in
 * @diag) or -ENOMEM. */
int cordon_snapshot_manifest_new(const char *extra_json, json_t **ret, struct cordon_diag *diag);
/* Adds the "trees" array (one object per tree, in order) and returns the text: 0, -EFBIG when
 * it is longer than @max bytes, or -ENOMEM. */
int cordon_snapshot_manifest_finish(json_t *m, const struct cordon_snapshot_dir *dirs,
                                    const struct snapshot_tree_counts *counts, size_t n,
                                    uint64_t max, char **ret_text, size_t *ret_len,
                                    struct cordon_diag *diag);

/* Parses and checks manifest @text (@len bytes): a JSON object of this format and version whose
 * "files" maps keys to 64 lower-case hex digits, at most @max_files of them. Returns the "files"
 * object (a new reference) in @ret_files: 0, -EBADMSG, -EOPNOTSUPP (another version), -E2BIG or
 * -ENOMEM, with @diag saying what is wrong. */
int cordon_snapshot_manifest_parse(const char *text, size_t len, uint64_t max_files,
                                   json_t **ret_files, struct cordon_diag *diag);
