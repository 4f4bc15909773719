/* The sandbox's PID 1: reaps zombies, forwards signals to the command, exits with its status. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct cordon_pty;
struct cordon_server_config;

/* Overwrites this process's original environment block (the one /proc/PID/environ shows) so
 * the supervisor's unfiltered variables do not live on in the sandbox's PID 1. */
int cordon_pid1_scrub_environ(void);
/* Waits for @child, forwarding the signals in @forward to it (the caller has blocked them and
 * SIGCHLD); with @reap_all, every other child that exits is reaped on the way. Stores the
 * shell-style exit status of @child in @ret_status. Returns 0 or -errno. */
int cordon_wait_forwarding(pid_t child, const sigset_t *forward, bool reap_all, int *ret_status);
/* The rest of PID 1's life once its steps are done: with a @pty, gives up the user's terminal
 * (the command, if any, has it), then serves as @c says (server.h). */
_Noreturn void cordon_pid1_become(const struct cordon_server_config *c,
                                  const struct cordon_pty *pty);
/* Maps a wait status to a shell-style exit status. */
int cordon_exit_status_from_wait(int status);
