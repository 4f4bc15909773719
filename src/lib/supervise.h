/* The supervisor's side of a running sandbox: waits for it, forwards signals, enforces the wall
 * time limit and tears the whole sandbox down when asked to. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cordon_pty;

/* How the sandbox ended. */
enum cordon_end {
        CORDON_END_EXITED,  /* the command exited or died of a signal on its own */
        CORDON_END_TIMEOUT, /* the wall time limit expired; the sandbox was killed */
        CORDON_END_KILLED,  /* a forwarded signal was not obeyed within the grace period */
};

/* After a forwarded SIGINT, SIGTERM or SIGHUP the sandbox has this long to finish before the
 * whole of it is killed. */
#define CORDON_GRACE_USEC (5ULL * 1000 * 1000)

struct cordon_supervise {
        pid_t pid;        /* the sandbox's first process: PID 1 (ns) or the command (landlock) */
        sigset_t forward; /* signals to pass on to @pid; the caller has blocked them and SIGCHLD */
        uint64_t timeout_usec; /* wall time limit from the start of supervision; 0: none */
        uint64_t grace_usec;   /* 0: CORDON_GRACE_USEC */
        /* Every process of the sandbox is a descendant of @pid and, orphaned, is reparented to
         * us (PR_SET_CHILD_SUBREAPER): when @pid ends, they are killed and reaped too. Set for
         * the landlock backend, which has no pid namespace to take them along. */
        bool reap_orphans;
        /* Kills every process of the sandbox, e.g. through its cgroup; NULL or a failure: SIGKILL
         * to @pid (a PID 1 takes its namespace along) and, with @reap_orphans, to each child. */
        int (*kill_all)(void *userdata);
        void *userdata;
        /* The sandbox's pseudo-terminal: relayed while it runs, drained when it has ended, and
         * resized on SIGWINCH (which the caller has blocked too). NULL: none. */
        struct cordon_pty *pty;
};

/* After the sandbox ended, how long what it wrote to its terminal may take to reach the user's. */
#define CORDON_PTY_DRAIN_MSEC 2000

/* Supervises until the sandbox has ended: @pid has exited and, with @reap_orphans, every other
 * child of ours is gone, and its terminal output is relayed. Stores @pid's shell-style exit status
 * (the code, or 128+N for signal N) in @ret_status and how it ended in @ret_end. Returns 0 or
 * -errno. */
int cordon_supervise_run(const struct cordon_supervise *s, int *ret_status,
                         enum cordon_end *ret_end);

/* SIGKILL to every child of the calling process until it has none left (reaping them); what
 * the landlock backend's sandbox leaves behind is reparented to us, the subreaper. */
void cordon_kill_children(void);
