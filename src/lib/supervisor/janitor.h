/* The ns backend's janitor, a process role: what the landlock backend's reaper does when the
 * supervisor dies (reaper.c: orphaned), for the ns backend. A supervisor SIGKILLed leaves its
 * launch's host state behind (a cgroup it made for the limits stays, empty, for ever); the
 * janitor, forked after the clone when there is such state, outlives it (woken by its
 * parent-death signal), waits until the sandbox's PID 1 has ended, and clears the launch. The
 * supervisor ends it at its own clean end. */
#pragma once

#include <sys/types.h>

struct cordon_sandbox;

/* Starts the janitor of @sb when its launch made host state only a supervisor removes (the
 * ns backend's cgroups). Returns its pid, 0 when none is needed, or -errno. */
pid_t cordon_janitor_start(struct cordon_sandbox *sb);
/* Ends and reaps the janitor @pid (0: none). */
void cordon_janitor_stop(pid_t pid);
