/* The network modes' launcher side (see net-mode-hooks.h): one row per mode, indexed as the
 * policy's table is. */
#include "lib/launch/net-filtered.h"
#include "lib/launch/net-mode-hooks.h"
#include "lib/launch/net-proxied.h"
#include "lib/mech/landlock.h"
#include "lib/policy/net-modes.h"
#include "shared/macro.h"

static const struct cordon_net_mode_hooks hooks[] = {
    /* The landlock backend: every destination, but unix sockets kept to the command's own, as
     * the ns backend's mount view keeps the host's out (cordon_net_mode_rule_no_netns()). */
    [CORDON_NET_OPEN] =
        {
            .seccomp_rule = CORDON_SECCOMP_NET_ANY,
            .seccomp_rule_no_netns = CORDON_SECCOMP_NET_OPEN_UNIX,
        },
    /* pasta attached to the namespace in the parent steps, the address and port rules as an
     * nftables ruleset the child loads. Only the ns backend can give it (its prepare hook
     * refuses the landlock backend). */
    [CORDON_NET_FILTERED] =
        {
            .seccomp_rule = CORDON_SECCOMP_NET_FAMILIES,
            .seccomp_rule_no_netns = CORDON_SECCOMP_NET_NO_SOCKET,
            .prepare = cordon_net_filtered_prepare,
            .parent_setup = cordon_net_filtered_parent,
            .parent_ready = cordon_net_filtered_ready,
            .child_setup = cordon_net_filtered_child,
            .teardown = cordon_net_filtered_teardown,
        },
    /* The egress proxy. ns backend: its port inside the namespace (spawn.c). landlock backend:
     * the supervisor listens on a random port of the host's loopback (the prepare hook),
     * Landlock lets the command connect to that TCP port only, and the socket rule admits TCP
     * streams (and AF_UNIX where Landlock keeps host unix sockets out:
     * cordon_net_mode_rule_no_netns()). */
    [CORDON_NET_PROXIED] =
        {
            .seccomp_rule = CORDON_SECCOMP_NET_FAMILIES,
            .seccomp_rule_no_netns = CORDON_SECCOMP_NET_STREAM_INET,
            .prepare = cordon_net_proxied_prepare,
            .teardown = cordon_net_proxied_teardown,
        },
    [CORDON_NET_ISOLATED] =
        {
            .seccomp_rule = CORDON_SECCOMP_NET_FAMILIES,
            .seccomp_rule_no_netns = CORDON_SECCOMP_NET_NO_SOCKET,
        },
};
/* A mode added to the enum without a row here fails the build, not a launch. */
_Static_assert(ELEMENTSOF(hooks) == CORDON_NET_MODES, "one row per network mode");

const struct cordon_net_mode_hooks *cordon_net_mode_hooks(enum cordon_net_mode m)
{
        if ((unsigned)m >= ELEMENTSOF(hooks))
                return NULL;
        return &hooks[m];
}

enum cordon_seccomp_net cordon_net_mode_rule_no_netns(const struct cordon_net_mode_hooks *h,
                                                      int landlock_abi, bool *ret_resolve_unix)
{
        /* AF_UNIX only where Landlock governs pathname unix sockets: a socket made inside
         * resolves, the host's (ssh-agent, D-Bus, Docker, /dev/log) do not. Untested here (no
         * such kernel on the test machines): kept to this one switch. */
        bool resolve_unix = (h->seccomp_rule_no_netns == CORDON_SECCOMP_NET_STREAM_INET ||
                             h->seccomp_rule_no_netns == CORDON_SECCOMP_NET_OPEN_UNIX) &&
                            landlock_abi >= CORDON_LANDLOCK_RESOLVE_UNIX_ABI;
        if (ret_resolve_unix)
                *ret_resolve_unix = resolve_unix;
        if (!resolve_unix)
                return h->seccomp_rule_no_netns;
        return h->seccomp_rule_no_netns == CORDON_SECCOMP_NET_OPEN_UNIX
                   ? CORDON_SECCOMP_NET_ANY
                   : CORDON_SECCOMP_NET_STREAM_UNIX;
}
