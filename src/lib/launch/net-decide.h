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

/* What the host offers that a network mode may need without a network namespace. */
struct cordon_net_host {
        int landlock_abi; /* > 0, or -errno when the kernel has no Landlock */
        bool seccomp;     /* seccomp filters can be installed */
        /* The landlock backend's seccomp notifications will be on (both layers, the kernel's
         * SECCOMP_ADDFD_FLAG_SEND): proxied mode confines connect() with them. */
        bool notify;
};

/* Why @mode cannot be delivered by @backend on @host for @p ("" and true when it can). proxied
 * under the landlock backend needs Landlock ABI >= 4 (its TCP rule), seccomp (the socket rule)
 * and the notifications (connect() to the proxy's own address only), unless the side-effect
 * level refuses every socket call anyway; @host NULL: none of them. */
bool cordon_net_mode_deliverable(const struct cordon_policy *p, enum cordon_backend backend,
                                 const struct cordon_net_host *host, enum cordon_net_mode mode,
                                 cordon_net_filtered_probe probe, const char *filtered_failed,
                                 char *why, size_t n);

/* Decides for @p under @backend on @host. @filtered_failed: why pasta failed to start on an earlier
 * attempt of this launch (filtered is then not deliverable), or NULL. Returns 0 with the mode in
 * @ret and, when it is not the one asked for, the warning in @warning (otherwise ""), or
 * -EOPNOTSUPP with @diag saying what could not be delivered, why and how to fix it. */
int cordon_net_decide(const struct cordon_policy *p, enum cordon_backend backend,
                      const struct cordon_net_host *host, cordon_net_filtered_probe probe,
                      const char *filtered_failed, enum cordon_net_mode *ret, char *warning,
                      size_t n, struct cordon_diag *diag);

/* The real probe: pasta found in the system directories (or NETWORK_FILTER_HELPER) and usable
 * by this user here. */
bool cordon_pasta_filtered_probe(const struct cordon_policy *p, char *why, size_t n);
