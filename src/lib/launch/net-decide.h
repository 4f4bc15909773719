/* Which network mode a launch delivers: the one the policy asks for when this backend and host
 * can deliver it, otherwise what NETWORK_FILTER_FALLBACK says (strict: refuse; stricter: the
 * nearest stricter mode that can be delivered; open: the nearest weaker one), with one warning
 * line naming the fix. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"

struct cordon_policy;

/* Whether filtered mode can be delivered for @p (pasta found and usable); false with a
 * one-line reason and fix in @why. */
typedef bool (*cordon_net_filtered_probe)(const struct cordon_policy *p, char *why, size_t n);

/* Why @mode cannot be delivered by @backend for @p ("" and true when it can). */
bool cordon_net_mode_deliverable(const struct cordon_policy *p, enum cordon_backend backend,
                                 enum cordon_net_mode mode, cordon_net_filtered_probe probe,
                                 const char *filtered_failed, char *why, size_t n);

/* Decides for @p under @backend. @filtered_failed: why pasta failed to start on an earlier
 * attempt of this launch (filtered is then not deliverable), or NULL. Returns 0 with the mode in
 * @ret and, when it is not the one asked for, the warning in @warning (otherwise ""), or
 * -EOPNOTSUPP with @diag saying what could not be delivered, why and how to fix it. */
int cordon_net_decide(const struct cordon_policy *p, enum cordon_backend backend,
                      cordon_net_filtered_probe probe, const char *filtered_failed,
                      enum cordon_net_mode *ret, char *warning, size_t n, struct cordon_diag *diag);

/* The real probe: pasta found in the system directories (or NETWORK_FILTER_HELPER) and usable
 * by this user here. */
bool cordon_pasta_filtered_probe(const struct cordon_policy *p, char *why, size_t n);
