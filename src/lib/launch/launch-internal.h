/* What launch.c shares with the backends' own parts of the launch (launch-landlock.c). */
#pragma once

#include <stdbool.h>

struct cordon_diag;
struct cordon_launch;
struct cordon_policy;

/* Why the kernel offers no Landlock, in words (@abi: the probe's -errno). */
const char *cordon_landlock_missing_reason(int abi);
/* A layer that is wanted and cannot be had (@what): -EOPNOTSUPP with @diag, unless the worktree
 * fallback says warn: then a warning through @l->warn, *@layer false, 0. */
int cordon_launch_layer_missing(struct cordon_launch *l, bool *layer, const char *what,
                                struct cordon_diag *diag);
/* Whether the policy's /tmp is writable: a private tmpfs not sealed, or the host's bound
 * read-write (or none said: a hand-built policy keeps the private TMPDIR). */
bool cordon_launch_tmp_writable(const struct cordon_policy *p);
