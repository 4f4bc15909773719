/* The access kinds as data (see access-kinds.h), and their names. */
#include "lib/policy/access-kinds.h"
#include "shared/macro.h"

static const struct cordon_access_traits access_kinds[] = {
    [CORDON_ACCESS_RO] = {.name = "ro",
                          .bind = CORDON_BIND_READ,
                          .host = CORDON_ACCESS_HOST_OPTIONAL,
                          .host_is_path = true},
    [CORDON_ACCESS_RW] = {.name = "rw",
                          .bind = CORDON_BIND_WRITE,
                          .host = CORDON_ACCESS_HOST_OPTIONAL,
                          .host_is_path = true,
                          .writable = true},
    [CORDON_ACCESS_TMPFS] = {.name = "tmpfs",
                             .writable = true,
                             .node = CORDON_NODE_DIR,
                             .ns_only = true},
    [CORDON_ACCESS_MASKED] = {.name = "masked"},
    [CORDON_ACCESS_DEVICE] = {.name = "device",
                              .bind = CORDON_BIND_DEVICE,
                              .host = CORDON_ACCESS_HOST_OPTIONAL,
                              .host_is_path = true,
                              .writable = true},
    [CORDON_ACCESS_COPY] = {.name = "copy",
                            .host = CORDON_ACCESS_HOST_REQUIRED,
                            .host_is_path = true,
                            .writable = true,
                            .node = CORDON_NODE_FILE},
    [CORDON_ACCESS_DATA] = {.name = "data",
                            .host = CORDON_ACCESS_HOST_REQUIRED,
                            .node = CORDON_NODE_FILE,
                            .ns_only = true},
    [CORDON_ACCESS_SYMLINK] = {.name = "symlink",
                               .host = CORDON_ACCESS_HOST_REQUIRED,
                               .node = CORDON_NODE_SYMLINK,
                               .ns_only = true},
    [CORDON_ACCESS_PROC] = {.name = "proc", .node = CORDON_NODE_DIR},
    [CORDON_ACCESS_DEV] = {.name = "dev", .node = CORDON_NODE_DIR},
};
/* A kind added to the enum without a row here fails the build, not a launch. */
_Static_assert(ELEMENTSOF(access_kinds) == _CORDON_ACCESS_MAX, "one row per access kind");

const struct cordon_access_traits *cordon_access_traits(enum cordon_access a)
{
        if ((unsigned)a >= ELEMENTSOF(access_kinds) || !access_kinds[a].name)
                return NULL;
        return &access_kinds[a];
}

bool cordon_access_is_bind(enum cordon_access a)
{
        const struct cordon_access_traits *t = cordon_access_traits(a);
        return t && t->bind != CORDON_BIND_NONE;
}

bool cordon_access_host_is_path(enum cordon_access a)
{
        const struct cordon_access_traits *t = cordon_access_traits(a);
        return t && t->host_is_path;
}

_public_ const char *cordon_access_to_string(enum cordon_access a)
{
        const struct cordon_access_traits *t = cordon_access_traits(a);
        return t ? t->name : NULL;
}
