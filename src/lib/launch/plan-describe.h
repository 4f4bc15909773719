/* The resolved plan as text, for `cordon run --dry-run`: what a launch of a policy would do. */
#pragma once

struct cordon_policy;
struct cordon_launch;

/* Describes @p as launch @l (prepared with dry_run set, so nothing was created) would run it:
 * backend, profile, layers, network, limits, the mounts in order with their origins, the
 * environment by count (kept, blocked, set), and the host actions the launch would take. The
 * text, one item a line, goes to @ret (owned by the caller, free()). Reads nothing from the
 * host; thread-safe for distinct arguments. Returns 0 or -ENOMEM. */
int cordon_policy_describe(const struct cordon_policy *p, const struct cordon_launch *l,
                           char **ret);
