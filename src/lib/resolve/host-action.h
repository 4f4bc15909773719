/* Taking host actions: what a policy needs created on the host before a sandbox starts (the
 * actions themselves, as data: lib/policy/host-actions.h). Lowering plans them and changes
 * nothing (resolve); the launcher applies them with these functions. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/policy/host-actions.h"

struct cordon_diag;
struct cordon_policy;

/* A materialized action cordon_policy_apply_record() created: which object, so that only that
 * one is removed. */
struct cordon_host_created {
        char *path;
        bool dir;
        dev_t dev;
        ino_t ino;
};
void cordon_host_created_free(struct cordon_host_created *c, size_t n);

/* Takes the host actions of @p in order. Each parent is opened with openat2(RESOLVE_NO_SYMLINKS)
 * and the entry made relative to it (mkdirat(), or openat(O_CREAT|O_EXCL|O_NOFOLLOW)), so a
 * symlink swapped in since resolving fails instead of redirecting the creation. Something
 * already there is accepted when it is what resolving planned (a directory, a regular file;
 * another cordon may have made it) and refused otherwise: the rules of @p assumed it. Each entry
 * actually created reports its warning line through @warn (may be NULL). Idempotent. Returns 0,
 * or -errno with the path and the reason in @diag (-ELOOP: a symlink on the way; -EEXIST: an
 * object of another kind is there); when BLOCKED_FILES placeholders are among the failures (or
 * below a directory that failed), the diag is the refusal of blocked-refusal.h naming each and
 * the fix. Not thread-safe for the same policy. */
int cordon_policy_apply(const struct cordon_policy *p, void (*warn)(void *, const char *),
                        void *userdata, struct cordon_diag *diag);
/* The same, recording in *@ret_created (*@ret_n entries; the caller frees them with
 * cordon_host_created_free(), also on failure) the materialized actions it created, and in
 * *@ret_note (when not NULL; the caller frees it) the line of what was made without a line of
 * its own ("created PATH, ..."), which cordon_policy_apply() gives @warn instead; NULL when
 * nothing was. */
int cordon_policy_apply_record(const struct cordon_policy *p, void (*warn)(void *, const char *),
                               void *userdata, struct cordon_host_created **ret_created,
                               size_t *ret_n, char **ret_note, struct cordon_diag *diag);
/* CLEANUP_MATERIALIZED_BLOCKED_FILES, after the sandbox exited: removes @c (last first), each
 * only while it is the same object and still empty (a file of 0 bytes, a directory with no
 * entry). Parents are opened with openat2(RESOLVE_NO_SYMLINKS), the entry inspected with
 * fstatat(AT_SYMLINK_NOFOLLOW) and removed with unlinkat() relative to the parent: a symlink
 * planted inside is never followed. Anything kept gets one line through @note ("kept ...").
 * Returns the number removed. */
int cordon_host_cleanup_materialized(const struct cordon_host_created *c, size_t n,
                                     void (*note)(void *, const char *), void *userdata);
