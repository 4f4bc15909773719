/* Mount namespace: the sandbox's filesystem view, built on a fresh tmpfs root.
 *
 * The parent computes a plan (the policy's filesystem rules in mount order: parents before
 * children, masks after everything so that they always win); the child executes it. Host
 * sources are opened before anything is mounted and bound by file descriptor
 * (open_tree/move_mount), so no host path is looked up twice and a symlink swapped in later
 * cannot redirect a mount. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "lib/policy/policy.h"

struct cordon_mount_plan {
        size_t *order; /* indices into policy->fs, in mount order */
        size_t n;
        int *src_fds; /* per policy->fs index, child side */
        /* size= of every tmpfs the sandbox can fill: the CORDON_ACCESS_TMPFS rules and the
         * private /dev/shm (see cordon_mount_tmpfs_size()). */
        uint64_t tmpfs_size;
};

/* The size of each tmpfs of policy @p on a machine with @ram bytes of RAM: the policy's
 * tmp_size_bytes when set, otherwise an even share of a quarter of @ram between the tmpfs
 * mounts the sandbox can fill, rounded down to a page (at least one). Pure. */
uint64_t cordon_mount_tmpfs_size(const struct cordon_policy *p, uint64_t ram);

int cordon_mount_plan_build(const struct cordon_policy *p, struct cordon_mount_plan *ret);
void cordon_mount_plan_clear(struct cordon_mount_plan *plan);

/* Child side, inside the new user and mount namespaces: builds the new root and pivots into
 * it, detaching the old root entirely. On failure returns -errno and stores the failing step
 * (CORDON_STEP_*) and policy->fs index (or -1) in @ret_step and @ret_rule. */
int cordon_mount_plan_execute(struct cordon_mount_plan *plan, const struct cordon_policy *p,
                              int *ret_step, int *ret_rule);
