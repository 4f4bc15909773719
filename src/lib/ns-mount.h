/* Mount namespace: the sandbox's filesystem view, built on a fresh tmpfs root.
 *
 * The parent computes a plan (the policy's filesystem rules in mount order: parents before
 * children, masks after everything so that they always win); the child executes it. Host
 * sources are opened before anything is mounted and bound by file descriptor
 * (open_tree/move_mount), so no host path is looked up twice and a symlink swapped in later
 * cannot redirect a mount. */
#pragma once

#include <stddef.h>

#include "lib/policy.h"

struct cordon_mount_plan {
        size_t *order; /* indices into policy->fs, in mount order */
        size_t n;
        int *src_fds; /* per policy->fs index, child side */
};

int cordon_mount_plan_build(const struct cordon_policy *p, struct cordon_mount_plan *ret);
void cordon_mount_plan_clear(struct cordon_mount_plan *plan);

/* Child side, inside the new user and mount namespaces: builds the new root and pivots into
 * it, detaching the old root entirely. On failure returns -errno and stores the failing step
 * (CORDON_STEP_*) and policy->fs index (or -1) in @ret_step and @ret_rule. */
int cordon_mount_plan_execute(struct cordon_mount_plan *plan, const struct cordon_policy *p,
                              int *ret_step, int *ret_rule);
