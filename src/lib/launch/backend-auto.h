/* What CORDON_BACKEND_AUTO picks: one decision, taken by the launcher on what it knows before
 * the clone and by `cordon doctor` on its probes, so the two cannot disagree. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* The host facts the decision rests on. */
struct cordon_backend_facts {
        /* 1: a probe created a user namespace; 0: the probe failed; -1: not probed (the
         * launcher: creating the sandbox's namespaces is the probe, and a failure falls back). */
        int userns;
        int landlock_abi; /* > 0, or -errno as cordon_landlock_abi() returns it */
        uid_t euid;
        /* kernel.apparmor_restrict_unprivileged_userns; -1 when absent or not read (root) */
        long apparmor_restrict_unprivileged_userns;
};

/* The facts the launcher has without a probe: userns -1, the caller's euid and, for an
 * unprivileged caller only, the AppArmor sysctl. @landlock_abi is the caller's probe. */
void cordon_backend_facts_read(int landlock_abi, struct cordon_backend_facts *ret);

/* Decides `auto`: returns CORDON_BACKEND_NS or CORDON_BACKEND_LANDLOCK, or -EOPNOTSUPP when
 * neither can run. *@ret_fall_back (may be NULL) is set to true when `ns` was picked without a
 * probe, so that a failed clone falls back to landlock. Pure; thread-safe. */
int cordon_backend_auto_decide(const struct cordon_backend_facts *f, bool *ret_fall_back);

/* True when Ubuntu's AppArmor restriction of unprivileged user namespaces applies to @f's
 * caller: the clone would succeed and the id maps or mounts would then be refused. */
bool cordon_backend_apparmor_restricts_userns(const struct cordon_backend_facts *f);
