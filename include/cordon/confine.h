/* libcordon: confining the calling process itself with the landlock backend's steps, for a
 * caller that execs its command next and has no room for a process of cordon's around it
 * (Slurm's slurm_spank_task_init, run in the task just before slurmstepd execs it).
 *
 * Conventions as in cordon/cordon.h: >= 0 on success, a negative errno on failure, context in
 * the optional struct cordon_diag; nothing prints, nothing exits. */
#pragma once

#include <cordon/cordon.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of cordon_confine_self(). */
enum {
        /* Replace the process's environment (environ) with the one the landlock backend gives
         * its command: the policy's, with SANDBOX_BACKEND, SANDBOX_PROFILE and
         * SANDBOX_NETWORK_MODE as applied and the configuration variables; an execv() or
         * execvp() afterwards passes it on. Without the flag the environment is the caller's
         * to set (a SPANK plugin sets the task's through spank_setenv()). */
        CORDON_CONFINE_ENVIRON = 1u << 0,
};

/* Confines the calling process with @p the way the landlock backend confines its command, from
 * the same steps and in their order: the rlimits (SANDBOX_NPROC_LIMIT), every descriptor above
 * 2 marked close-on-exec (when the policy closes them), the session keyring detached, the
 * capabilities dropped (a caller that holds any), no_new_privs, the Landlock ruleset, the
 * seccomp filter last. Host actions the policy planned (BLOCKED_FILES placeholders,
 * HOME_WRITABLE directories) are made first, as a launch makes them. What a missing Landlock
 * ABI or seccomp means is decided as for the landlock backend (CORDON_HANDLER_SANDBOX, the
 * profile); warnings then end up in @diag's message on success (empty without).
 *
 * There is no process of cordon's around the caller: no supervisor, reaper, proxy or pasta.
 * A policy that needs one is refused with -EOPNOTSUPP and @diag naming the variable, never
 * applied weaker: SANDBOX_BACKEND other than landlock (the policy must be resolved for it),
 * NETWORK_FILTER_MODE other than open or isolated (isolated is the seccomp socket rule),
 * TIMEOUT, MEMORY_LIMIT, PIDS_LIMIT, CPU_LIMIT, CGROUP_PATH, SANDBOX_NPROC_LIMIT for uid 0 (a
 * cgroup carries it), PRIVATE_TMP (the private TMPDIR; a /tmp already private to the caller,
 * such as Slurm's job_container/tmpfs, is PRIVATE_TMP=false), NETWORK_MAIL_BLOCK (its
 * stubs' directory), ENABLED_AGENTS (the agents' private homes and their write-back),
 * PROTECT_GIT_CONFIG (the check after the run), CLEANUP_MATERIALIZED_BLOCKED_FILES, and
 * NO_PTY=false with a terminal on stdin (the pty relay). The seccomp filter has no
 * notification listener: what the landlock backend's supervisor grants through it (a pty's
 * peer, the private /dev/shm) is refused as Landlock answers.
 *
 * Not done, being the caller's: the working directory, a new session, a death signal, the
 * exec. The caller must be single-threaded (Landlock and seccomp confine the calling thread):
 * -EBUSY otherwise. @flags: CORDON_CONFINE_* (-EINVAL for others). Namespaces the caller
 * wants (a SPANK plugin's task_init_privileged) are set up before; the Landlock rules are
 * opened at the paths the caller sees then.
 *
 * Returns 0, or -errno with @diag (a failed step in diag->step). After a failure the process
 * may be confined in part and must not run its command. Not thread-safe; the policy is only
 * read and may be freed afterwards. */
int cordon_confine_self(const struct cordon_policy *p, unsigned flags, struct cordon_diag *diag);

#ifdef __cplusplus
}
#endif
