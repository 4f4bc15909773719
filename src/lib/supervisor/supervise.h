/* The supervisor's side of a running sandbox: sources on the sandbox's event loop that watch it
 * (its pidfd, forwarded signals, the pty relay, the wall time limit), and the teardown of the
 * whole sandbox when asked to. A state object, so that a caller can drive it one round at a
 * time (cordon_sandbox_process()) or until the end (cordon_supervise_run()). */
#pragma once

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon/sandbox.h"
#include "lib/launch/reaper.h"

struct cordon_pty;
struct cordon_loop;

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
        /* The sandbox's pseudo-terminal: relayed while it runs, drained (on the loop) and
         * finished (see cordon_pty_finish()) when it has ended, and resized on SIGWINCH (which
         * the caller has blocked too). NULL: none. */
        struct cordon_pty *pty;
        /* Set (from any thread) when the sandbox was killed on request: it then ended
         * CORDON_END_KILLED. NULL: never. */
        const atomic_bool *killed;
};

/* After the sandbox ended, how long what it wrote to its terminal may take to reach the user's. */
#define CORDON_PTY_DRAIN_MSEC 2000

struct cordon_supervisor;

/* Starts supervising @s (copied; what it points to must outlive the supervisor) on @loop (which
 * must outlive it too): opens a pidfd when @s has none and a signalfd for @s->forward (and
 * SIGWINCH with a pty), and adds their sources, the pty relay's and one timer (the wall time
 * limit, the grace period after a forwarded SIGINT, SIGTERM or SIGHUP, the stop checks, the
 * polling without a pidfd, the drain's limit). Returns 0, or -errno (nothing is left on @loop). */
int cordon_supervisor_start(const struct cordon_supervise *s, struct cordon_loop *loop,
                            struct cordon_supervisor **ret);
/* 0 while the sandbox runs or its terminal output is being drained; 1 once it has ended: @pid
 * exited and was reaped (after the kill of the wall time or the grace period, the kill waits
 * for the exit on the loop too) and its output is relayed; -errno when supervising failed
 * (-ECHILD: someone else reaped @pid), after which the caller kills and reaps the sandbox. */
int cordon_supervisor_state(const struct cordon_supervisor *v);
/* One round of @v's loop (waiting at most @timeout_usec, see cordon_loop_process()), then
 * cordon_supervisor_state(), or the loop's -errno. */
int cordon_supervisor_process(struct cordon_supervisor *v, uint64_t timeout_usec);
/* Once the state is 1: finishes the terminal (cordon_pty_finish(), which may wait up to
 * CORDON_PTY_FINISH_MSEC for answers the inside asked the user's terminal for) and stores @pid's
 * shell-style exit status (the code, or 128+N for signal N) in @ret_status and how it ended in
 * @ret_end. Returns 0; -EBUSY before the end; the state's -errno. */
int cordon_supervisor_finish(struct cordon_supervisor *v, int *ret_status,
                             enum cordon_end *ret_end);
/* Removes @v's sources and closes what it opened. Accepts NULL; returns NULL. */
struct cordon_supervisor *cordon_supervisor_free(struct cordon_supervisor *v);

/* Start, rounds on a loop of its own until the end, finish. Returns 0 or -errno as above. */
int cordon_supervise_run(const struct cordon_supervise *s, int *ret_status,
                         enum cordon_end *ret_end);

/* Ends the whole sandbox at once: @s->kill_all, else @s->kill_signal to @s->pid (through the
 * pidfd when there is one, so a reaped and reused pid is never hit). Returns 0 or -errno.
 * Thread-safe: it touches no supervisor state. */
int cordon_supervise_kill(const struct cordon_supervise *s);
