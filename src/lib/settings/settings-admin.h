/* The admin baseline's rules of cordon_settings_finalize(), split by kind: lists and scalars
 * (settings-finalize.c), paths (settings-admin-paths.c). */
#pragma once

#include <stdbool.h>

#include "lib/settings/settings.h"
#include "shared/macro.h"

/* One run of the rules over a settings object. */
struct admin_run {
        struct cordon_settings *s;       /* being finalized */
        const struct cordon_settings *a; /* its admin baseline; NULL: none */
        char **warnings;
        struct cordon_diag *diag;
};

/* Whether the admin baseline assigned variable @name (its rule applies only then). */
bool cordon_admin_sets(const struct admin_run *run, const char *name);
/* Records one change: a warning line, and an entry of admin_changes (value @name, origin the
 * message). Returns 0 or -ENOMEM. */
_printf_(3, 4) int cordon_admin_note(struct admin_run *run, const char *name, const char *fmt, ...);

/* DENIED_WRITABLE_PATHS: the admin's value alone; the writable entries below (or above) a denied
 * path stripped; a PROJECT_DIR there refused with -EPERM. */
int cordon_admin_denied_writable(struct admin_run *run);
/* HOME_ACCESS=write with a denied path at, in or above the home: -EPERM. Run after the
 * harden-only rules. */
int cordon_admin_denied_home(struct admin_run *run);
/* ALLOWED_PROJECT_PARENTS and the POLICY_* roots and presets: narrowed to the admin's. -EPERM
 * when no allowed project parent is left. */
int cordon_admin_narrow(struct admin_run *run);
