/* The backend as data: one operations table per backend, which the launch's decisions
 * (launch.c and the launcher's files around it), the phase driver (spawn.c), the sandbox handle
 * (sandbox.c) and the session (session-*.c) call instead of asking which backend runs. The ns
 * backend's table is in backend-ns.c, the landlock backend's in backend-landlock.c (its part of
 * the launch in launch-landlock.c); the child's steps of each are in child-steps.c. Only the
 * choice of a backend (launch.c, backend-auto.c) asks which one it is. The namespace flags
 * agree with the traits that resolve and the mechanisms ask below the launcher
 * (lib/policy/backend-traits.h; test-backend-traits.c pins it). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "cordon/cordon.h"

struct cordon_sandbox;
struct cordon_launch;

struct cordon_backend_ops {
        enum cordon_backend backend;

        /* The launch (launch.c's prepare, again for each backend and network mode decided). */

        /* Before the Landlock plan is built: what the backend refuses, what it makes on the
         * host, the seccomp socket rule standing in for a network namespace (the landlock
         * backend's, launch-landlock.h); sets *@resolve_unix for the plan's network rule.
         * NULL: nothing. Returns 0 or -errno with @diag. */
        int (*prepare_launch)(struct cordon_launch *l, bool *resolve_unix,
                              struct cordon_diag *diag);
        /* After the Landlock plan is built (or without the layer): the ruleset made in the
         * supervisor, host paths opened once (the landlock backend's). NULL: the child builds
         * its own from the plan. Returns 0 or -errno with @diag. */
        int (*prepare_ruleset)(struct cordon_launch *l, bool resolve_unix,
                               struct cordon_diag *diag);
        /* Whether the command's filter gets a seccomp notification listener (a pty's peer, the
         * private /dev/shm, connect() to the proxy's address): the landlock backend's with both
         * layers and the kernel's SECCOMP_ADDFD_FLAG_SEND. NULL: never. */
        bool (*notify)(const struct cordon_launch *l);
        /* NAME=VALUE (strv, *@ret NULL when none) set over the policy's environment for the
         * configuration copies and package caches (landlock-env.h): where no mount puts them
         * at the tools' own paths, or the writable twins of copies bound read-only. NULL:
         * none. Returns 0 or -errno. */
        int (*config_env)(const struct cordon_launch *l, char ***ret);
        /* The command sees the host's /tmp as denied: where the policy's /tmp is writable, a
         * private TMPDIR (a directory on the host's /tmp, made by prepare_launch) stands in,
         * named in TMPDIR and TMUX_TMPDIR; the configuration copies go into it. */
        bool private_tmpdir;
        /* A loose pids bound (limits.pids_loose) can be the pid_max of the sandbox's own pid
         * namespace, which its PID 1 writes (no cgroup, no RLIMIT_NPROC). */
        bool pid_max_for_loose_pids;
        /* The sandbox can have a network namespace of its own: filtered's pasta attaches to it,
         * isolated is its loopback, proxied's proxy listens in it on a fixed port. Without, the
         * command is on the host's network, and Landlock's TCP rule and the seccomp socket rule
         * stand in (net-decide.h says what that delivers). */
        bool net_ns;

        /* The phases. */

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
        /* A session's stop signals come from inside (PID 1 of a pid namespace) alone; or else
         * from the confined server where Landlock scopes its signals, the supervisor walking
         * the first process's descendants when it cannot. */
        bool suspends_inside;
        /* A supervisor SIGKILLed leaves host state only a janitor removes (supervisor/janitor.h):
         * the landlock backend's reaper does it itself. */
        bool needs_janitor;
        /* The sandbox has a mount namespace of its own: a session can take a bind while it runs
         * (cordon_sandbox_attach()), and the trees it owns are inside it (its snapshot); the
         * launch puts the mail stub over the host's mailers and binds the configuration copies
         * (without: the mail stubs go first on PATH, mail-shadow.h, and the copies are named in
         * variables). */
        bool mount_ns;
};

/* The table of @b (CORDON_BACKEND_NS or CORDON_BACKEND_LANDLOCK; anything else: NULL). */
const struct cordon_backend_ops *cordon_backend_ops(enum cordon_backend b);

extern const struct cordon_backend_ops cordon_backend_ns_ops;
extern const struct cordon_backend_ops cordon_backend_landlock_ops;
