/* The child's steps of the launcher's phases (spawn.c): one ordered list per backend. */
#pragma once

struct cordon_sandbox;

/* The ns backend's first process after the clone: runs its steps and becomes PID 1 (or reports
 * the failed step and exits). */
_Noreturn void cordon_child_ns(struct cordon_sandbox *sb);
/* The landlock backend's command, started by the reaper (@arg: the sandbox): runs its steps and
 * executes the command. */
int cordon_child_landlock(void *arg);
/* cordon_confine_self()'s steps (confine-self.c): the landlock backend's, from its limits to its
 * seccomp filter, run by the caller on itself. @sb has no process of its own: its launch
 * (@sb->l, prepared with @self) is all the steps read. Returns 0, or -errno with the failed
 * step (enum cordon_step) in *@ret_step and its rule (-1: none) in *@ret_rule; the caller may
 * then be confined in part, and must not run its command. */
int cordon_child_confine_self(struct cordon_sandbox *sb, int *ret_step, int *ret_rule);
