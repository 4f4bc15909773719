/* The capability policy front end (settings-policy.c), for callers that hold a parsed policy. */
#pragma once

#include "lib/settings/cap-policy.h"
#include "lib/settings/settings.h"

/* Writes @c into @s as cordon_settings_load_policy() does; @src names the policy in origins and
 * messages. Replaces every policy variable set before; the profile is strictest-wins. Returns 0,
 * -EINVAL (a root the registry refuses), -ENOMEM. */
int cordon_settings_apply_cap_policy(struct cordon_settings *s, const struct cordon_cap_policy *c,
                                     const char *src, struct cordon_diag *diag);
