/* Unit tests for src/lib/launch/net-mode-hooks.c: the launcher's row of every network mode (its
 * seccomp socket rules and hooks), pinned, and held to the policy's row of the mode. */
#include <criterion/criterion.h>

#include "lib/launch/net-mode-hooks.h"
#include "lib/policy/net-modes.h"

struct row {
        enum cordon_net_mode mode;
        enum cordon_seccomp_net seccomp_rule, seccomp_rule_no_netns;
};

static const struct row rows[] = {
    /* Without a namespace unix sockets kept from the host's (ANY where Landlock has
     * RESOLVE_UNIX). */
    {CORDON_NET_OPEN, CORDON_SECCOMP_NET_ANY, CORDON_SECCOMP_NET_OPEN_UNIX},
    {CORDON_NET_FILTERED, CORDON_SECCOMP_NET_FAMILIES, CORDON_SECCOMP_NET_NO_SOCKET},
    /* Without a namespace TCP streams only (STREAM_UNIX where Landlock has RESOLVE_UNIX:
     * cordon_net_mode_rule_no_netns()). */
    {CORDON_NET_PROXIED, CORDON_SECCOMP_NET_FAMILIES, CORDON_SECCOMP_NET_STREAM_INET},
    {CORDON_NET_ISOLATED, CORDON_SECCOMP_NET_FAMILIES, CORDON_SECCOMP_NET_NO_SOCKET},
};

Test(net_mode_hooks, every_row_pinned)
{
        cr_assert_eq(sizeof(rows) / sizeof(rows[0]), CORDON_NET_MODES);
        for (size_t i = 0; i < CORDON_NET_MODES; i++) {
                const struct row *w = &rows[i];
                const char *name = cordon_net_mode_to_string(w->mode);
                const struct cordon_net_mode_hooks *h = cordon_net_mode_hooks(w->mode);
                cr_assert_not_null(h, "%s", name);
                cr_expect_eq(h->seccomp_rule, w->seccomp_rule, "%s", name);
                cr_expect_eq(h->seccomp_rule_no_netns, w->seccomp_rule_no_netns, "%s", name);
                /* filtered has hooks of its own (pasta, its nftables rules); proxied a prepare
                 * and teardown (the landlock backend's port on the host's loopback, whose socket
                 * the supervisor makes); the ns backend's proxy socket is a child step of PID 1
                 * and its server the supervisor's (egress.c). */
                bool hooks = w->mode == CORDON_NET_FILTERED;
                bool prepares = hooks || w->mode == CORDON_NET_PROXIED;
                cr_expect_eq(h->prepare != NULL, prepares, "%s", name);
                cr_expect_eq(h->parent_setup != NULL, hooks, "%s", name);
                cr_expect_eq(h->parent_ready != NULL, hooks, "%s", name);
                cr_expect_eq(h->child_setup != NULL, hooks, "%s", name);
                cr_expect_eq(h->teardown != NULL, prepares, "%s", name);
        }
}

Test(net_mode_hooks, consistent_with_the_traits)
{
        for (int m = 0; m < (int)CORDON_NET_MODES; m++) {
                const struct cordon_net_mode_traits *t = cordon_net_mode_traits(m);
                const struct cordon_net_mode_hooks *h = cordon_net_mode_hooks(m);
                /* Whatever the ns backend confines with a namespace, the landlock backend must
                 * confine at least as strictly with seccomp, and every mode keeps the host's
                 * unix sockets out there (resolve's lower-protect.c then makes no masks). */
                cr_expect_neq(h->seccomp_rule_no_netns, CORDON_SECCOMP_NET_ANY, "%s", t->name);
                if (t->netns)
                        cr_expect_geq(h->seccomp_rule_no_netns, h->seccomp_rule, "%s", t->name);
        }
}

Test(net_mode_hooks, out_of_range)
{
        cr_expect_null(cordon_net_mode_hooks((enum cordon_net_mode)CORDON_NET_MODES));
        cr_expect_null(cordon_net_mode_hooks((enum cordon_net_mode) - 1));
}

Test(net_mode_hooks, proxied_socket_rule_follows_landlock)
{
        const struct cordon_net_mode_hooks *t = cordon_net_mode_hooks(CORDON_NET_PROXIED);
        bool ru = true;
        /* This kernel's kind (ABI 7): no AF_UNIX, no RESOLVE_UNIX. */
        cr_assert_eq(cordon_net_mode_rule_no_netns(t, 7, &ru), CORDON_SECCOMP_NET_STREAM_INET);
        cr_assert_not(ru);
        /* Landlock with LANDLOCK_ACCESS_FS_RESOLVE_UNIX: AF_UNIX, and the ruleset handles it. */
        cr_assert_eq(cordon_net_mode_rule_no_netns(t, 9, &ru), CORDON_SECCOMP_NET_STREAM_UNIX);
        cr_assert(ru);
        /* isolated keeps its rule whatever the ABI. */
        const struct cordon_net_mode_hooks *iso = cordon_net_mode_hooks(CORDON_NET_ISOLATED);
        cr_assert_eq(cordon_net_mode_rule_no_netns(iso, 9, &ru), CORDON_SECCOMP_NET_NO_SOCKET);
        cr_assert_not(ru);
        /* open: unix sockets kept to the command's own before ABI 9, by Landlock from it. */
        const struct cordon_net_mode_hooks *open = cordon_net_mode_hooks(CORDON_NET_OPEN);
        cr_assert_eq(cordon_net_mode_rule_no_netns(open, 7, &ru), CORDON_SECCOMP_NET_OPEN_UNIX);
        cr_assert_not(ru);
        cr_assert_eq(cordon_net_mode_rule_no_netns(open, 9, &ru), CORDON_SECCOMP_NET_ANY);
        cr_assert(ru);
}
