/* The network modes as data (see net-modes.h), and their names. */
#include <errno.h>

#include "lib/launch/net-filtered.h"
#include "lib/launch/net-proxied.h"
#include "lib/mech/landlock.h"
#include "lib/policy/net-modes.h"
#include "shared/macro.h"

static const struct cordon_net_mode_traits net_modes[] = {
    [CORDON_NET_OPEN] =
        {
            .name = "open",
            .seccomp_rule = CORDON_SECCOMP_NET_ANY,
            .seccomp_rule_no_netns = CORDON_SECCOMP_NET_ANY,
        },
    /* pasta attached to the namespace in the parent steps, the address and port rules as an
     * nftables ruleset the child loads. Only the ns backend can give it (its prepare hook
     * refuses the landlock backend). */
    [CORDON_NET_FILTERED] =
        {
            .name = "filtered",
            .netns = true,
            .loopback = true,
            .dns = true,
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
            .name = "proxied",
            .netns = true,
            .loopback = true,
            .landlock_deny_tcp = true,
            .proxy = true,
            .seccomp_rule = CORDON_SECCOMP_NET_FAMILIES,
            .seccomp_rule_no_netns = CORDON_SECCOMP_NET_STREAM_INET,
            .prepare = cordon_net_proxied_prepare,
            .teardown = cordon_net_proxied_teardown,
        },
    [CORDON_NET_ISOLATED] =
        {
            .name = "isolated",
            .netns = true,
            .loopback = true,
            .landlock_deny_tcp = true,
            .seccomp_rule = CORDON_SECCOMP_NET_FAMILIES,
            .seccomp_rule_no_netns = CORDON_SECCOMP_NET_NO_SOCKET,
        },
};
/* A mode added to the enum without a row here fails the build, not a launch. */
_Static_assert(ELEMENTSOF(net_modes) == CORDON_NET_MODES, "one row per network mode");

const struct cordon_net_mode_traits *cordon_net_mode_traits(enum cordon_net_mode m)
{
        if ((unsigned)m >= ELEMENTSOF(net_modes) || !net_modes[m].name)
                return NULL;
        return &net_modes[m];
}

enum cordon_seccomp_net cordon_net_mode_rule_no_netns(const struct cordon_net_mode_traits *t,
                                                      int landlock_abi, bool *ret_resolve_unix)
{
        /* AF_UNIX only where Landlock governs pathname unix sockets: a socket made inside
         * resolves, the host's (ssh-agent, D-Bus, Docker, /dev/log) do not. Untested here (no
         * such kernel on the test machines): kept to this one switch. */
        bool resolve_unix = t->seccomp_rule_no_netns == CORDON_SECCOMP_NET_STREAM_INET &&
                            landlock_abi >= CORDON_LANDLOCK_RESOLVE_UNIX_ABI;
        if (ret_resolve_unix)
                *ret_resolve_unix = resolve_unix;
        return resolve_unix ? CORDON_SECCOMP_NET_STREAM_UNIX : t->seccomp_rule_no_netns;
}

_public_ const char *cordon_net_mode_to_string(enum cordon_net_mode m)
{
        const struct cordon_net_mode_traits *t = cordon_net_mode_traits(m);
        return t ? t->name : NULL;
}

_public_ int cordon_net_mode_from_string(const char *s)
{
        for (size_t i = 0; s && i < ELEMENTSOF(net_modes); i++)
                if (streq(s, net_modes[i].name))
                        return (int)i;
        return -EINVAL;
}

const char *cordon_net_fallback_to_string(enum cordon_net_fallback f)
{
        static const char *const names[] = {"open", "stricter", "strict"};
        return (unsigned)f < ELEMENTSOF(names) ? names[f] : NULL;
}

const char *cordon_mail_block_to_string(enum cordon_mail_block m)
{
        static const char *const names[] = {"off", "auto", "on"};
        return (unsigned)m < ELEMENTSOF(names) ? names[m] : NULL;
}
