/* The SPANK plugin's confinement of one task, in slurm_spank_task_init (as the job's user, in the
 * task's process, in the job's working directory, just before slurmstepd execs the command):
 * the settings built from the profile and the job's environment through libcordon's public API,
 * the policy resolved, cordon_confine_self(). */
#pragma once

#include <stddef.h>

struct cordon_spank_task {
        const char *policy_dir; /* plugstack.conf's policy_dir= */
        const char *profile;    /* --cordon's PROFILE */
        const char *network;    /* --cordon-network's MODE; NULL: the profile's */
        char *const *job_env;   /* the job's environment (S_JOB_ENV), NAME=VALUE */
};

/* Confines the calling process for @t: the settings are the plugin's defaults for a task
 * (NETWORK_FILTER_MODE=open, PRIVATE_TMP=false, NETWORK_MAIL_BLOCK=off,
 * PROTECT_GIT_CONFIG=false: what a process confining itself can have), then policy_dir/
 * PROFILE.conf as the admin profile of the sandbox.conf layers with the user's files after it,
 * the job's environment, @t->network, SANDBOX_BACKEND=landlock; the working directory is the
 * project. Every descriptor above stdio is then close-on-exec but PMI_FD's, when it is
 * slurmstepd's socket (srun --mpi=pmi2). On success the task's environment as the landlock backend
 * gives it is in @ret_env and lines worth a note in @ret_warnings (both vectors the caller frees);
 * the process environment (environ) is left as it was. Returns 0, or -errno with a sentence in
 * @err; the process may then be confined in part and must not exec its command. */
int cordon_spank_confine(const struct cordon_spank_task *t, char ***ret_env, char ***ret_warnings,
                         char *err, size_t size);
