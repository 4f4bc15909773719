/* Unit tests for src/lib/policy/backend-traits.c: every row of the backend traits table pinned,
 * what auto and values outside the enum get, and the launcher's table (lib/launch/backend.h)
 * agreeing with it flag by flag. */
#include <criterion/criterion.h>

#include "lib/launch/backend.h"
#include "lib/policy/backend-traits.h"

struct row {
        enum cordon_backend backend;
        const char *name;
        bool runs, mount_ns, net_ns;
};

static const struct row rows[] = {
    {CORDON_BACKEND_NS, "ns", true, true, true},
    {CORDON_BACKEND_LANDLOCK, "landlock", true, false, false},
    /* Not chosen yet: resolve plans for both namespaces, the Landlock plan refuses it. */
    {CORDON_BACKEND_AUTO, "auto", false, true, true},
    {(enum cordon_backend)3, "3", false, true, true},
    {(enum cordon_backend) - 1, "-1", false, true, true},
    {(enum cordon_backend)1000, "1000", false, true, true},
};

Test(backend_traits, every_row_pinned)
{
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                const struct row *w = &rows[i];
                const struct cordon_backend_traits *t = cordon_backend_traits(w->backend);
                cr_assert_not_null(t, "%s", w->name);
                cr_expect_eq(t->runs, w->runs, "%s", w->name);
                cr_expect_eq(t->mount_ns, w->mount_ns, "%s", w->name);
                cr_expect_eq(t->net_ns, w->net_ns, "%s", w->name);
        }
}

/* The code below the launcher compared backends before it asked the table: `== landlock` (a
 * missing namespace) and `== ns` (the Landlock plan of the sandbox's own mount tree). For every
 * value the table answers as those comparisons did. */
Test(backend_traits, answers_as_the_comparisons_did)
{
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                enum cordon_backend b = rows[i].backend;
                const struct cordon_backend_traits *t = cordon_backend_traits(b);
                cr_expect_eq(!t->mount_ns, b == CORDON_BACKEND_LANDLOCK, "%s", rows[i].name);
                cr_expect_eq(!t->net_ns, b == CORDON_BACKEND_LANDLOCK, "%s", rows[i].name);
                cr_expect_eq(t->runs && t->mount_ns, b == CORDON_BACKEND_NS, "%s", rows[i].name);
                cr_expect_eq(t->runs && !t->mount_ns, b == CORDON_BACKEND_LANDLOCK, "%s",
                             rows[i].name);
        }
}

/* The launcher's table says the same of each backend that runs: resolve plans what the launch
 * then applies. */
Test(backend_traits, launch_table_agrees)
{
        const enum cordon_backend runs[] = {CORDON_BACKEND_NS, CORDON_BACKEND_LANDLOCK};
        for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
                const struct cordon_backend_traits *t = cordon_backend_traits(runs[i]);
                const struct cordon_backend_ops *ops = cordon_backend_ops(runs[i]);
                cr_assert_not_null(ops);
                cr_assert(t->runs);
                cr_expect_eq(ops->backend, runs[i]);
                cr_expect_eq(ops->mount_ns, t->mount_ns, "backend %d", (int)runs[i]);
                cr_expect_eq(ops->net_ns, t->net_ns, "backend %d", (int)runs[i]);
                /* The rules only a mount namespace keeps are lost exactly without one. */
                cr_expect_eq(ops->mount_ns_rules_lost, !t->mount_ns, "backend %d", (int)runs[i]);
                /* Without a mount namespace there is no private /tmp: a private TMPDIR on the
                 * host's stands in. */
                cr_expect_eq(ops->private_tmpdir, !t->mount_ns, "backend %d", (int)runs[i]);
        }
        /* A backend not chosen has no launcher's table. */
        cr_expect_null(cordon_backend_ops(CORDON_BACKEND_AUTO));
        cr_expect_not(cordon_backend_traits(CORDON_BACKEND_AUTO)->runs);
}
