/* The network modes' launcher side, as data: the seccomp socket rules of each mode and its own
 * work in the phases, a row per mode beside the policy's table (lib/policy/net-modes.h), which
 * holds what the mode is and knows nothing of the launcher. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "cordon/cordon.h"
#include "lib/mech/seccomp-filter.h"

struct cordon_launch;

struct cordon_net_mode_hooks {
        /* The socket rule the seccomp layer adds, whatever the backend (applied with the layer). */
        enum cordon_seccomp_net seccomp_rule;
        /* The landlock backend has no network namespace: the socket rule standing in for one,
         * applied whatever the profile says about the hardening layers (a kernel without seccomp
         * is then an error). Not ANY exactly for the modes whose traits ask for a namespace. */
        enum cordon_seccomp_net seccomp_rule_no_netns;
        /* The mode's own work in the launcher (lib/launch/net-filtered.c), NULL when it has
         * none. @prepare runs in the supervisor before the clone (again after an `auto` launch
         * fell back to the landlock backend; with @l->dry_run it only decides); @parent_setup
         * after the clone, before the child is released (so the child waits for the release);
         * @parent_ready, when set, after the release while the child runs its steps, which
         * then waits for a second release before its command can run (what @parent_setup
         * started must be done by then), unless its namespace is ready first: @child_up is the
         * read end of the pipe the child then writes a byte to, and @parent_ready returns 1 when
         * that came first (no second release is sent); @child_setup inside the namespaces after the
         * loopback, before the capabilities are dropped; @teardown once the sandbox has ended or
         * its start failed (idempotent; also from cordon_launch_clear()). They return 0 or -errno,
         * the supervisor's with @diag. */
        int (*prepare)(struct cordon_launch *l, struct cordon_diag *diag);
        int (*parent_setup)(struct cordon_launch *l, pid_t child, struct cordon_diag *diag);
        int (*parent_ready)(struct cordon_launch *l, int child_up, struct cordon_diag *diag);
        int (*child_setup)(const struct cordon_launch *l);
        void (*teardown)(struct cordon_launch *l);
};

/* The hooks of @m, or NULL for a value out of range. Thread-safe (a constant table). */
const struct cordon_net_mode_hooks *cordon_net_mode_hooks(enum cordon_net_mode m);
/* The socket rule of @h->seccomp_rule_no_netns for a kernel with Landlock ABI @landlock_abi:
 * STREAM_INET becomes STREAM_UNIX where Landlock can keep pathname unix sockets of the host out
 * of reach (CORDON_LANDLOCK_RESOLVE_UNIX_ABI), and then *@ret_resolve_unix (may be NULL) says
 * the ruleset must handle that right. */
enum cordon_seccomp_net cordon_net_mode_rule_no_netns(const struct cordon_net_mode_hooks *h,
                                                      int landlock_abi, bool *ret_resolve_unix);
