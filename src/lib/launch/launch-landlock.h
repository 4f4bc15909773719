/* The landlock backend's part of the launch: the entries of its operations table (backend.h)
 * that launch.c calls while it prepares. */
#pragma once

#include <stdbool.h>

struct cordon_diag;
struct cordon_launch;

/* backend.h's prepare_launch: refuses what the backend cannot enforce without namespaces
 * (TMP_SIZE, NETWORK_MAIL_BLOCK=on, PROTECT_GIT_CONFIG, a required PRIVATE_IPC or
 * FILTER_PASSWD; -EOPNOTSUPP), and a kernel without Landlock; makes the private TMPDIR; puts
 * the seccomp socket rule in for the network namespace (*@resolve_unix for the plan's network
 * rule); decides the notifications. Returns 0 or -errno with @diag. */
int cordon_launch_landlock_prepare(struct cordon_launch *l, bool *resolve_unix,
                                   struct cordon_diag *diag);
/* backend.h's prepare_ruleset: the ruleset of @l->ll (with the TMPDIR's rule), or, the layer
 * off in proxied mode, a ruleset of the network rule alone; nothing in a dry run. Returns 0 or
 * -errno with @diag (a path changed since the plan: -ELOOP, -ESTALE). */
int cordon_launch_landlock_ruleset(struct cordon_launch *l, bool resolve_unix,
                                   struct cordon_diag *diag);
/* backend.h's notify: both layers on, the policy not against it, and the kernel's support. */
bool cordon_launch_landlock_notify(const struct cordon_launch *l);
/* backend.h's config_env: cordon_landlock_env() where the policy has such variables. */
int cordon_launch_landlock_env(const struct cordon_launch *l, char ***ret);
