/* The backends as data below the launcher (see backend-traits.h). */
#include "lib/policy/backend-traits.h"
#include "shared/macro.h"

static const struct cordon_backend_traits backends[] = {
    [CORDON_BACKEND_NS] =
        {
            .runs = true,
            .mount_ns = true,
            .net_ns = true,
        },
    /* Landlock and seccomp on the host's filesystem and network. */
    [CORDON_BACKEND_LANDLOCK] =
        {
            .runs = true,
        },
};

/* auto, and anything else: planned for as the ns backend is, started under neither. */
static const struct cordon_backend_traits undecided = {
    .mount_ns = true,
    .net_ns = true,
};

const struct cordon_backend_traits *cordon_backend_traits(enum cordon_backend b)
{
        if ((unsigned)b >= ELEMENTSOF(backends) || !backends[b].runs)
                return &undecided;
        return &backends[b];
}
