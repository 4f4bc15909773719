/* The child's steps of the launcher's phases (spawn.c): one ordered list per backend. */
#pragma once

struct cordon_sandbox;

/* The ns backend's first process after the clone: runs its steps and becomes PID 1 (or reports
 * the failed step and exits). */
_Noreturn void cordon_child_ns(struct cordon_sandbox *sb);
/* The landlock backend's command, started by the reaper (@arg: the sandbox): runs its steps and
 * executes the command. */
int cordon_child_landlock(void *arg);
