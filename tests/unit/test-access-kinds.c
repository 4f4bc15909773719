/* Unit tests for src/lib/policy/access-kinds.c: every row of the access kind table, pinned. The
 * policy checks, the mount plan and both Landlock planners read these rows. */
#include <criterion/criterion.h>

#include "lib/policy/access-kinds.h"
#include "lib/mech/landlock-internal.h"

struct row {
        enum cordon_access access;
        const char *name;
        enum cordon_bind bind;
        enum cordon_access_host host;
        bool host_is_path, writable;
        enum cordon_access_node node;
        bool ns_only;
};

#define NONE_H     CORDON_ACCESS_HOST_NONE
#define OPTIONAL_H CORDON_ACCESS_HOST_OPTIONAL
#define REQUIRED_H CORDON_ACCESS_HOST_REQUIRED

static const struct row rows[] = {
    {CORDON_ACCESS_RO, "ro", CORDON_BIND_READ, OPTIONAL_H, true, false, CORDON_NODE_ANY, false},
    {CORDON_ACCESS_RW, "rw", CORDON_BIND_WRITE, OPTIONAL_H, true, true, CORDON_NODE_ANY, false},
    {CORDON_ACCESS_TMPFS, "tmpfs", CORDON_BIND_NONE, NONE_H, false, true, CORDON_NODE_DIR, true},
    {CORDON_ACCESS_MASKED, "masked", CORDON_BIND_NONE, NONE_H, false, false, CORDON_NODE_ANY,
     false},
    {CORDON_ACCESS_DEVICE, "device", CORDON_BIND_DEVICE, OPTIONAL_H, true, true, CORDON_NODE_ANY,
     false},
    {CORDON_ACCESS_COPY, "copy", CORDON_BIND_NONE, REQUIRED_H, true, true, CORDON_NODE_FILE, false},
    {CORDON_ACCESS_DATA, "data", CORDON_BIND_NONE, REQUIRED_H, false, false, CORDON_NODE_FILE,
     true},
    {CORDON_ACCESS_SYMLINK, "symlink", CORDON_BIND_NONE, REQUIRED_H, false, false,
     CORDON_NODE_SYMLINK, true},
    {CORDON_ACCESS_PROC, "proc", CORDON_BIND_NONE, NONE_H, false, false, CORDON_NODE_DIR, false},
    {CORDON_ACCESS_DEV, "dev", CORDON_BIND_NONE, NONE_H, false, false, CORDON_NODE_DIR, false},
};

Test(access_kinds, every_row_pinned)
{
        cr_assert_eq(sizeof(rows) / sizeof(rows[0]), _CORDON_ACCESS_MAX);
        for (size_t i = 0; i < _CORDON_ACCESS_MAX; i++) {
                const struct row *w = &rows[i];
                const struct cordon_access_traits *t = cordon_access_traits(w->access);
                cr_assert_not_null(t, "%s", w->name);
                cr_expect_str_eq(t->name, w->name);
                cr_expect_str_eq(cordon_access_to_string(w->access), w->name);
                cr_expect_eq(t->bind, w->bind, "%s", w->name);
                cr_expect_eq(t->host, w->host, "%s", w->name);
                cr_expect_eq(t->host_is_path, w->host_is_path, "%s", w->name);
                cr_expect_eq(t->writable, w->writable, "%s", w->name);
                cr_expect_eq(t->node, w->node, "%s", w->name);
                cr_expect_eq(t->ns_only, w->ns_only, "%s", w->name);
                cr_expect_eq(cordon_access_is_bind(w->access), w->bind != CORDON_BIND_NONE, "%s",
                             w->name);
                cr_expect_eq(cordon_access_host_is_path(w->access), w->host_is_path, "%s", w->name);
        }
}

Test(access_kinds, consistent)
{
        for (int a = 0; a < _CORDON_ACCESS_MAX; a++) {
                const struct cordon_access_traits *t = cordon_access_traits(a);
                /* A host path comes with a host argument, and a bind may leave it out. */
                if (t->host_is_path)
                        cr_expect_neq(t->host, CORDON_ACCESS_HOST_NONE, "%s", t->name);
                cr_expect_eq(t->bind != CORDON_BIND_NONE, t->host == CORDON_ACCESS_HOST_OPTIONAL,
                             "%s", t->name);
        }
}

Test(access_kinds, landlock_rights_of_binds)
{
        cr_expect_eq(cordon_landlock_bind_access(CORDON_ACCESS_RO), FS_READ);
        cr_expect_eq(cordon_landlock_bind_access(CORDON_ACCESS_RW), FS_READ | FS_WRITE);
        cr_expect_eq(cordon_landlock_bind_access(CORDON_ACCESS_DEVICE), FS_DEVICE);
        for (int a = 0; a < _CORDON_ACCESS_MAX; a++)
                if (!cordon_access_is_bind(a))
                        cr_expect_eq(cordon_landlock_bind_access(a), 0, "%d", a);
        cr_expect_eq(cordon_landlock_bind_access(_CORDON_ACCESS_MAX), 0);
}

Test(access_kinds, out_of_range)
{
        cr_expect_null(cordon_access_traits(_CORDON_ACCESS_MAX));
        cr_expect_null(cordon_access_traits((enum cordon_access) - 1));
        cr_expect_null(cordon_access_to_string(_CORDON_ACCESS_MAX));
        cr_expect(!cordon_access_is_bind(_CORDON_ACCESS_MAX));
        cr_expect(!cordon_access_host_is_path(_CORDON_ACCESS_MAX));
}
