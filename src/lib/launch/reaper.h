/* The landlock backend's reaper, all of it: starting it (CLONE_VM fast path or fork), its life
 * between the supervisor and the command, and stopping it. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Older libc headers lack it (Linux 5.2). */
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

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
 * longer can. The supervisor counts as dead once it is no longer the parent, or once @lifeline
 * (the read end of a pipe whose write end only the supervisor holds; -EBADF: none) hangs up: a
 * dying supervisor closes its descriptors before its children are reparented, and a command
 * that ends because of that (a session's server, whose channel closed) must not find it still
 * the parent and leave the clean-up to nobody. Exits with @cmd's shell-style status, or 137
 * when told to kill or orphaned. */
_Noreturn void cordon_reaper_run(pid_t cmd, const sigset_t *forward, pid_t supervisor, int lifeline,
                                 void (*orphaned)(void *userdata), void *userdata);

/* How the reaper is started and what it does first. Lives in the sandbox, unchanged, as long as
 * the reaper does: a reaper sharing the supervisor's memory reads it. */
struct cordon_reaper {
        /* The command's process: confines itself and execs (or reports on @control_fd and
         * exits). Started by the reaper with CLONE_VM|CLONE_VFORK on a stack of its own (fork in
         * the sanitizer build); never returns. */
        int (*command)(void *arg);
        void *arg;
        /* The supervisor's ends: closed in the reaper first thing. */
        int parent_fds[2];
        /* Closed by the reaper once the command has exec'd: its copy of the child's end of the
         * control channel and whatever else only the
         * command needed (the prepared Landlock ruleset, the pty's fds). -EBADF: unused. */
        int control_fd;
        int drop_fds[4];
        /* The command's status channel (run mode): the reaper's end, and the command's, which
         * the reaper closes once the command has exec'd or failed, so that its end of file tells
         * the exec, passed on as CORDON_CONTROL_STARTED on @control_fd (a report that came
         * instead is passed on as it is). -EBADF: a session, whose server says so itself. */
        int status_fd;
        int status_child_fd;
        /* A session: the command is a server that never execs, forked rather than borrowing
         * the reaper's memory. */
        bool session;
        sigset_t forward; /* the signals the reaper passes on to the command */
        /* After the sandbox ended, when the supervisor is gone: cleans up on the host. */
        void (*orphaned)(void *userdata);
        void *userdata;
        bool fork; /* fork the reaper rather than share memory (CORDON_SANDBOX_FORK_REAPER) */

        /* Set by cordon_reaper_start(). */
        pid_t supervisor;
        /* The lifeline (see cordon_reaper_run()): the supervisor keeps the write end, [1],
         * until the reaper is reaped; the reaper keeps the read end, [0]. -EBADF: none. The
         * creator of the struct sets both to -EBADF. */
        int lifeline[2];
        pid_t pid;
        void *stack; /* the stacks of the reaper and the command's child; NULL: none */
};

/* Starts the reaper of @r. Where the raw system calls are inline (x86_64) and @r->fork is not
 * set, it shares the caller's memory (see reaper.c). Returns its pid (also in @r->pid), with a
 * pidfd of it in @ret_pidfd (-EBADF when the kernel has none), or -errno. A reaper that cannot
 * even start its command reports CORDON_STEP_FORK/PROCESS on @r->control_fd. */
pid_t cordon_reaper_start(struct cordon_reaper *r, int *ret_pidfd);
/* Ends the reaper (and with it the sandbox) and reaps it, on an error of the supervisor before
 * the sandbox ended, so that it never runs on in memory that is about to be freed. */
void cordon_reaper_stop(struct cordon_reaper *r);
/* Once the reaper has been reaped: gives back its stacks (to a cache of one, for the next
 * sandbox). */
void cordon_reaper_clear(struct cordon_reaper *r);
