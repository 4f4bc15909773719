/* The backend as data: one operations table per backend, which the phase driver (spawn.c),
 * the sandbox handle (sandbox.c) and the session (session-*.c) call instead of asking which
 * backend runs. The ns backend's table is in backend-ns.c, the landlock backend's in
 * backend-landlock.c; the child's steps of each are in child-steps.c. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "cordon/cordon.h"

struct cordon_sandbox;
struct cordon_launch;

struct cordon_backend_ops {
        enum cordon_backend backend;
        /* The prepare phase's own part: the ns backend's mount plan and user-namespace limits,
         * the landlock backend's status channel for its command. Returns 0 or -errno with
         * @diag. */
        int (*prepare)(struct cordon_sandbox *sb, struct cordon_diag *diag);
        /* Whether the child waits for a release: parent steps exist (a cgroup to attach, the
         * network mode's own). */
        bool (*awaits_release)(const struct cordon_sandbox *sb);
        /* The backend's own parent steps, between the clone and the release (the ns backend's
         * cgroup attach of PID 1); NULL: none. The network mode's follow. */
        int (*parent_steps)(struct cordon_sandbox *sb, struct cordon_diag *diag);
        /* Clone: the sandbox's first process (ns: PID 1 in its namespaces; landlock: the
         * reaper), with a pidfd in sb->pidfd where the kernel gives one. Returns its pid, or -1
         * with errno. */
        pid_t (*clone)(struct cordon_sandbox *sb);
        /* Whether a clone error means this backend cannot run here at all (an `auto` launch
         * then falls back). NULL: never. */
        bool (*refused)(int err);
        /* Ends a first process that has not reached its command (or reported a failure) and
         * reaps it; @kill_it: it may still run. */
        void (*end_child)(struct cordon_sandbox *sb, bool kill_it);
        /* Ends a running sandbox at once and reaps its first process. */
        void (*stop)(struct cordon_sandbox *sb);
        /* What an attempt left that belongs to this backend, before another one. */
        void (*undo)(struct cordon_sandbox *sb);
        /* The namespaces a sandbox of @l gets (CORDON_NS_*). */
        unsigned (*namespaces)(const struct cordon_launch *l);
        /* What ends the whole sandbox when sent to its first process: 0 for SIGKILL. */
        int kill_signal;
        /* Whether the command can stop its first process (the landlock backend's reaper
         * without Landlock's signal scoping): the supervisor then watches for stops. */
        bool (*first_process_stoppable)(const struct cordon_launch *l);
        /* Whether policy rules kept only by a mount namespace stay writable here (the report's
         * landlock.left_writable). */
        bool mount_ns_rules_lost;
        /* A session's stop signals come from inside (PID 1 of a pid namespace), or else from
         * the supervisor over the first process's descendants. */
        bool suspends_inside;
        /* A supervisor SIGKILLed leaves host state only a janitor removes (supervisor/janitor.h):
         * the landlock backend's reaper does it itself. */
        bool needs_janitor;
        /* The sandbox has a mount namespace of its own: a session can take a bind while it runs
         * (cordon_sandbox_attach()), and the trees it owns are inside it (its snapshot). */
        bool mount_ns;
};

/* The table of @b (CORDON_BACKEND_NS or CORDON_BACKEND_LANDLOCK; anything else: NULL). */
const struct cordon_backend_ops *cordon_backend_ops(enum cordon_backend b);

extern const struct cordon_backend_ops cordon_backend_ns_ops;
extern const struct cordon_backend_ops cordon_backend_landlock_ops;
