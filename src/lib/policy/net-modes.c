/* The network modes as data (see net-modes.h), and their names. */
#include <errno.h>

#include "lib/policy/net-modes.h"
#include "shared/macro.h"

static const struct cordon_net_mode_traits net_modes[] = {
    [CORDON_NET_OPEN] =
        {
            .name = "open",
        },
    /* pasta attached to the namespace, the address and port rules as an nftables ruleset, and
     * the supervisor's resolver: only the ns backend can give it (launch/net-mode-hooks.c). */
    [CORDON_NET_FILTERED] =
        {
            .name = "filtered",
            .netns = true,
            .loopback = true,
            .dns = true,
        },
    /* The egress proxy. ns backend: its port inside the namespace. landlock backend: a random
     * port of the host's loopback, the only TCP port Landlock lets the command connect to
     * (launch/net-mode-hooks.c). */
    [CORDON_NET_PROXIED] =
        {
            .name = "proxied",
            .netns = true,
            .loopback = true,
            .landlock_deny_tcp = true,
            .proxy = true,
        },
    [CORDON_NET_ISOLATED] =
        {
            .name = "isolated",
            .netns = true,
            .loopback = true,
            .landlock_deny_tcp = true,
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
