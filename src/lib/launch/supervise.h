/* The supervisor's side of a running sandbox: waits for it on its event loop (the sandbox's
 * pidfd, forwarded signals, the pty relay, the wall time limit), and tears the whole sandbox
 * down when asked to. */
#pragma once

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon/sandbox.h"
#include "lib/launch/event-loop.h"
#include "lib/launch/reaper.h"

struct cordon_pty;
struct cordon_proxy;

/* How often a reaper the command can stop is looked at (watch_stops). */
#define CORDON_SUPERVISE_STOP_CHECK_USEC 100000

struct cordon_supervise {
        pid_t pid; /* the sandbox's first process: PID 1 (ns) or the reaper (landlock) */
        /* A pidfd of @pid when @has_pidfd (not owned); otherwise one is opened here, and where
         * the kernel has none, @pid is polled every few milliseconds. */
        bool has_pidfd;
        int pidfd;
        /* Signals to pass on to @pid; the caller has blocked them. Empty: none (no signalfd). */
        sigset_t forward;
        uint64_t timeout_usec; /* wall time limit from the start of supervision; 0: none */
        uint64_t grace_usec;   /* 0: CORDON_GRACE_USEC */
        /* What ends the whole sandbox when sent to @pid: 0 for SIGKILL (a PID 1 takes its
         * namespace along), CORDON_REAPER_SIGNAL for a cordon_reaper_run() process. */
        int kill_signal;
        /* Kills every process of the sandbox, e.g. through its cgroup; NULL or a failure:
         * @kill_signal to @pid. */
        int (*kill_all)(void *userdata);
        void *userdata;
        /* @pid is a reaper the command can signal (the landlock backend without Landlock's
         * signal scoping): a stop it did not ask for (SIGSTOP from the command) would leave the
         * command unreaped and every signal to it, the wall time's kill included, pending for
         * ever. It is checked for stops every CORDON_SUPERVISE_STOP_CHECK_USEC and continued. */
        bool watch_stops;
        /* The sandbox's pseudo-terminal: relayed while it runs, drained and finished (see
         * cordon_pty_finish()) when it has ended, and resized on SIGWINCH (which the caller has
         * blocked too). NULL: none. */
        struct cordon_pty *pty;
        /* The loop to run on, with whatever other sources are registered on it; NULL: a loop of
         * this call's own. */
        struct cordon_loop *loop;
        /* Set (from any thread) when the sandbox was killed on request: it then ended
         * CORDON_END_KILLED. NULL: never. */
        const atomic_bool *killed;
        /* The egress proxy (proxied mode), served on the loop while the sandbox runs; NULL:
         * none. */
        struct cordon_proxy *proxy;
};

/* After the sandbox ended, how long what it wrote to its terminal may take to reach the user's. */
#define CORDON_PTY_DRAIN_MSEC 2000

/* Supervises until the sandbox has ended (@pid has exited and is reaped) and its terminal output
 * is relayed. Stores @pid's shell-style exit status (the code, or 128+N for signal N) in
 * @ret_status and how it ended in @ret_end. Returns 0 or -errno. */
int cordon_supervise_run(const struct cordon_supervise *s, int *ret_status,
                         enum cordon_end *ret_end);

/* Ends the whole sandbox at once: @s->kill_all, else @s->kill_signal to @s->pid (through the
 * pidfd when there is one, so a reaped and reused pid is never hit). Returns 0 or -errno. */
int cordon_supervise_kill(const struct cordon_supervise *s);
