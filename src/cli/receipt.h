/* `cordon run --receipt FILE`: one JSON object saying how the command was confined (backend,
 * profile, namespaces, the Landlock and seccomp layers as applied) and how it ended. */
#pragma once

#include "cordon/sandbox.h"

/* A receipt on its way: the target's directory and a temporary file in it, both opened before
 * anything runs, so that a path that cannot be written stops the run before it starts. The
 * receipt replaces the target by rename once it is complete: a reader sees the old file or the
 * whole new one, never a part. */
struct receipt {
        int dir_fd;     /* the target's directory, O_PATH */
        int fd;         /* the temporary file: unnamed (O_TMPFILE) or named @tmp_name */
        char *name;     /* the target's name in that directory */
        char *tmp_name; /* the temporary's name while it has one, else NULL */
};
#define RECEIPT_INIT ((struct receipt){.dir_fd = -EBADF, .fd = -EBADF})

/* Prepares a receipt at @path. With a policy @p (NULL when lowering failed and nothing will run)
 * a path the sandbox could write is refused: the command could replace the receipt after cordon
 * wrote it, or put a symlink in its place that cordon would write through; so is a path through
 * a symlink in a directory a sandbox could write (cordon_policy_open_output_dir()). Returns 0, or
 * -errno with the reason in @diag: -EPERM for such a path, -EISDIR for a directory, -EINVAL for a
 * path with no file name, or what opening or creating failed with. */
int receipt_open(struct receipt *rc, const char *path, const struct cordon_policy *p,
                 struct cordon_diag *diag);

/* Writes the receipt and moves it into place: the sandbox's report @rep as the library encodes
 * it (cordon_report_to_json(); NULL when lowering failed: the fields it would give are null).
 * @r is the result of the step that ended the run; when it failed, the outcome carries @diag's
 * sentence. Returns 0 or -errno; the temporary file never outlives the call. */
int receipt_commit(struct receipt *rc, const struct cordon_report *rep, int r,
                   const struct cordon_diag *diag);

/* Closes everything and removes a named temporary file that was not committed. */
void receipt_clear(struct receipt *rc);
