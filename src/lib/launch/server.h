/* The command server, a process role: what the sandbox's first process inside does once its
 * steps are done (the ns backend's PID 1; in a session under the landlock backend, the confined
 * process the reaper started). It waits on the control channel and a signalfd: starts the
 * commands a session asks for (CORDON_CONTROL_EXEC), each forked from it and so inside every
 * namespace, rule and limit it is in, with a close-on-exec status channel of its own that tells
 * its exec from its failure; reports each one's start and end; passes signals on; stops and
 * continues the sandbox (PID 1); reaps whatever else ends. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct cordon_server_config {
        int control; /* the control channel's inside end */
        /* The signals to pass on (blocked by the caller, together with SIGCHLD): to @main, or in
         * a session to every command's process group. */
        sigset_t forward;
        /* The sandbox's own command (run mode): its end ends the server, which exits with its
         * shell-style status. 0: a session, which ends with the control channel. */
        pid_t main;
        /* The control channel's end of file (the supervisor died) ends the server and, PID 1,
         * the sandbox; false (DIE_WITH_PARENT off): it is only no longer read. */
        bool die_with_supervisor;
        /* PID 1 of the sandbox's pid namespace: kill(-1) reaches all of the sandbox and nothing
         * else, so CORDON_CONTROL_SUSPEND can be served. */
        bool pid1;
        /* What a command starts with: the sandbox's environment (a request's variables replace
         * those of the same name), its cwd (NULL: the server's), a session of its own. */
        char *const *envp;
        const char *cwd;
        bool new_session;
};

/* Serves until the end (see above); never returns. */
_Noreturn void cordon_server_run(const struct cordon_server_config *c);

/* Starts one command of a session: clones a child (sharing our memory until it execs, as
 * vfork() does; the sanitizer build forks), which places @fds (@n_fds of 0..2; the rest
 * /dev/null), joins a process group (a session with
 * @pty, its controlling terminal fd 0), goes to @cwd and execs @argv with @envp; of the other
 * descriptors only @keep_fd (>= 3, or -1) stays open. Returns its pid once it has exec'd; or
 * -errno with *@ret_step the step that failed (the child has ended, and is reaped by whoever
 * reaps). */
pid_t cordon_server_spawn(char *const *argv, char *const *envp, const char *cwd, const int *fds,
                          unsigned n_fds, bool pty, bool new_session, int keep_fd, int *ret_step);
