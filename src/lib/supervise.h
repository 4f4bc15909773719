/* The supervisor's side of a running sandbox: waits for it, forwards signals, enforces the wall
 * time limit and tears the whole sandbox down when asked to. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon/sandbox.h"

struct cordon_pty;

struct cordon_supervise {
        pid_t pid;        /* the sandbox's first process: PID 1 (ns) or the reaper (landlock) */
        sigset_t forward; /* signals to pass on to @pid; the caller has blocked them and SIGCHLD */
        uint64_t timeout_usec; /* wall time limit from the start of supervision; 0: none */
        uint64_t grace_usec;   /* 0: CORDON_GRACE_USEC */
        /* What ends the whole sandbox when sent to @pid: 0 for SIGKILL (a PID 1 takes its
         * namespace along), CORDON_REAPER_SIGNAL for a cordon_reaper_run() process. */
        int kill_signal;
        /* Kills every process of the sandbox, e.g. through its cgroup; NULL or a failure:
         * @kill_signal to @pid. */
        int (*kill_all)(void *userdata);
        void *userdata;
        /* The sandbox's pseudo-terminal: relayed while it runs, drained and finished (see
         * cordon_pty_finish()) when it has ended, and resized on SIGWINCH (which the caller has
         * blocked too). NULL: none. */
        struct cordon_pty *pty;
};

/* After the sandbox ended, how long what it wrote to its terminal may take to reach the user's. */
#define CORDON_PTY_DRAIN_MSEC 2000

/* Supervises until the sandbox has ended (@pid has exited) and its terminal output is relayed.
 * Stores @pid's shell-style exit status (the code, or 128+N for signal N) in @ret_status and how it
 * ended in @ret_end. Returns 0 or -errno. */
int cordon_supervise_run(const struct cordon_supervise *s, int *ret_status,
                         enum cordon_end *ret_end);

/* The landlock backend has no pid namespace whose PID 1 takes every process along when it
 * dies. Its stand-in is a reaper: a process between the supervisor and the command, outside the
 * sandbox, that is a child subreaper (whatever the command detaches is reparented to it, never
 * past it), forwards signals to the command, and kills every process below it when the command
 * exits, when the supervisor sends CORDON_REAPER_SIGNAL, and when the supervisor dies (even of
 * SIGKILL: it is the reaper's parent-death signal). */
#define CORDON_REAPER_SIGNAL SIGUSR1

/* In the reaper, first thing after fork: its own session (a kill of the caller's process group
 * must not take the reaper without the sandbox), CORDON_REAPER_SIGNAL blocked and armed as the
 * parent-death signal, subreaper. It stays as dumpable as the supervisor: it may share the
 * supervisor's memory, where the flag is per memory, and a sandbox that could ptrace it could
 * ptrace the supervisor just as well (Landlock forbids both). Returns 0, -ESRCH when @supervisor is
 * already gone, or -errno. */
int cordon_reaper_prepare(pid_t supervisor);
/* In the reaper: waits for @cmd, forwarding the signals of @forward (blocked, together with
 * SIGCHLD) to it, then kills and reaps everything below. Like cordon_reaper_prepare() it runs on
 * raw system calls only (raw-syscall.h), so it may share the
 * supervisor's memory. When the supervisor died, @orphaned
 * (if any) is called after that with @userdata, to clean up on the host what the supervisor no
 * longer can. Exits with @cmd's shell-style status, or 137 when told to kill or orphaned. */
_Noreturn void cordon_reaper_run(pid_t cmd, const sigset_t *forward, pid_t supervisor,
                                 void (*orphaned)(void *userdata), void *userdata);
