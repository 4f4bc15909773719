/* Unit tests for src/lib/policy/net-modes.c: every row of the network mode table, pinned. A change
 * of a row changes what a sandbox gets (a namespace, a Landlock rule) and must show up here (the
 * launcher's side, the seccomp rules and hooks: test-net-mode-hooks.c). */
#include <criterion/criterion.h>
#include <errno.h>

#include "lib/policy/net-modes.h"

struct row {
        enum cordon_net_mode mode;
        const char *name;
        bool netns, loopback, landlock_deny_tcp, proxy, dns;
};

static const struct row rows[] = {
    {CORDON_NET_OPEN, "open", false, false, false, false, false},
    {CORDON_NET_FILTERED, "filtered", true, true, false, false, true},
    /* TCP only to the proxy's port (Landlock ABI 4). */
    {CORDON_NET_PROXIED, "proxied", true, true, true, true, false},
    {CORDON_NET_ISOLATED, "isolated", true, true, true, false, false},
};

Test(net_modes, every_row_pinned)
{
        cr_assert_eq(sizeof(rows) / sizeof(rows[0]), CORDON_NET_MODES);
        for (size_t i = 0; i < CORDON_NET_MODES; i++) {
                const struct row *w = &rows[i];
                const struct cordon_net_mode_traits *t = cordon_net_mode_traits(w->mode);
                cr_assert_not_null(t, "%s", w->name);
                cr_expect_str_eq(t->name, w->name);
                cr_expect_eq(t->netns, w->netns, "%s", w->name);
                cr_expect_eq(t->loopback, w->loopback, "%s", w->name);
                cr_expect_eq(t->landlock_deny_tcp, w->landlock_deny_tcp, "%s", w->name);
                cr_expect_eq(t->proxy, w->proxy, "%s", w->name);
                cr_expect_eq(t->dns, w->dns, "%s", w->name);
        }
}

Test(net_modes, confinement_is_consistent)
{
        for (int m = 0; m < (int)CORDON_NET_MODES; m++) {
                const struct cordon_net_mode_traits *t = cordon_net_mode_traits(m);
                /* A namespace without loopback would break localhost; loopback needs one. */
                cr_expect_eq(t->netns, t->loopback, "%s", t->name);
        }
}

Test(net_modes, out_of_range)
{
        cr_expect_null(cordon_net_mode_traits((enum cordon_net_mode)CORDON_NET_MODES));
        cr_expect_null(cordon_net_mode_traits((enum cordon_net_mode) - 1));
        cr_expect_null(cordon_net_mode_to_string((enum cordon_net_mode)CORDON_NET_MODES));
        cr_expect_eq(cordon_net_mode_from_string(NULL), -EINVAL);
        cr_expect_eq(cordon_net_mode_from_string("none"), -EINVAL);
}

Test(net_modes, names_round_trip)
{
        for (int m = 0; m < (int)CORDON_NET_MODES; m++)
                cr_expect_eq(cordon_net_mode_from_string(cordon_net_mode_to_string(m)), m);
}
