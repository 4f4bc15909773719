/* The refusal of a start over BLOCKED_FILES entries that cannot be protected: every such entry
 * named, and the fix (remove the entry, or create the file once outside the sandbox, with the
 * commands), in one diagnostic. Shared by the resolve (lower-blocked.c: what cannot be made) and
 * the apply of the host actions (host-action.c: what failed to be made). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct cordon_diag;

struct cordon_blocked_failure {
        const char *path;   /* the blocked file, absolute, as it would be created */
        const char *origin; /* where the entry comes from; NULL: not known */
        const char *why;    /* what stops it; NULL: not known */
        /* Creating the file (and its directory) once outside the sandbox would protect it: its
         * directory could not be written here. false: only removing the entry helps (a file
         * stands where a directory must be, a symlink the sandbox could plant). */
        bool creatable;
        bool parent_missing; /* the fix starts with mkdir -p of its directory */
};

/* Sets @diag (when not NULL) to the refusal over @n failures (n > 0), fitted into its message
 * however many there are: every entry's path is named, with its origin and reason and the fix's
 * commands as long as they fit, and a count of the rest only when not even the paths do.
 * Returns @r. */
int cordon_blocked_refusal(struct cordon_diag *diag, int r, const struct cordon_blocked_failure *f,
                           size_t n);
