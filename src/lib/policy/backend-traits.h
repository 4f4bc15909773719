/* The backends as data below the launcher: what each one has (a mount namespace, a network
 * namespace), asked by the policy's own code, resolve and the mechanisms instead of comparing
 * enum cordon_backend values. The launcher's side of a backend is a table of its own
 * (lib/launch/backend.h), whose matching flags agree with these (test-backend-traits.c). */
#pragma once

#include <stdbool.h>

#include "cordon/cordon.h"

struct cordon_backend_traits {
        /* A backend a sandbox starts under (ns, landlock). auto is a choice the launch makes
         * later: resolve plans for it as for a backend with both namespaces (the launch refuses,
         * or leaves out, what a fall back to landlock cannot keep), and its other flags say so. */
        bool runs;
        /* The sandbox has a mount namespace of its own: binds, tmpfs (a private /tmp, the
         * home's), masks, read-only files and stand-ins inside writable directories (git's,
         * agents'), merged copies, the filtered passwd files, the mail stubs over the mailers,
         * the configuration copies bound at the tools' paths. Without, the rules only mounts
         * give (CORDON_FS_NS_ONLY) and the configuration copies are left out, and resolve
         * plans none of them; the Landlock plan then names the host's paths. */
        bool mount_ns;
        /* The sandbox can have a network namespace of its own (filtered's pasta and resolver,
         * isolated's loopback, proxied's port inside). Without, the command is on the host's
         * network: Landlock's TCP rule and the seccomp socket rule stand in, and keep the
         * command's unix sockets from the host's without the socket masks. */
        bool net_ns;
};

/* The traits of @b. Never NULL: auto and values outside the enum get those of a backend not
 * yet chosen (runs false, both namespaces). Thread-safe (constant data). */
const struct cordon_backend_traits *cordon_backend_traits(enum cordon_backend b);
