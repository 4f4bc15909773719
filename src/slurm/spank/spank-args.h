/* The SPANK plugin's pure part (cordon_spank.so, cordon-spank(8)): its plugstack.conf arguments,
 * the values of --cordon and --cordon-network, the mandatory partitions, and the difference of
 * two environments. Nothing here touches the system or Slurm, so that it is unit-tested without
 * either (tests/unit/test-spank-args.c) and fuzzed (tests/fuzz/fuzz-spank-args.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Limits on what plugstack.conf gives (one line an admin writes) and a user's option values. */
#define CORDON_SPANK_ARG_MAX        4096u /* one plugin argument */
#define CORDON_SPANK_PROFILE_MAX    64u   /* a profile name */
#define CORDON_SPANK_PARTITION_MAX  128u  /* a partition name */
#define CORDON_SPANK_PARTITIONS_MAX 256u  /* partitions in enforce= */
#define CORDON_SPANK_ENV_MAX        8192u /* variables of a job's environment */

/* The profile --cordon without a value means. */
#define CORDON_SPANK_DEFAULT_PROFILE "default"

struct cordon_spank_conf {
        char *policy_dir; /* absolute, no trailing '/' (except "/") */
        char **enforce;   /* the partitions where --cordon is mandatory; NULL: none */
};

/* Parses the plugin's arguments (plugstack.conf: policy_dir=DIR, required, absolute;
 * enforce=partition:NAME[,NAME...], which may be repeated). Anything else, a value given twice,
 * an empty or malformed one: -EINVAL with a sentence naming the argument in @err. -ENOMEM. @c is
 * filled only on success (clear it with cordon_spank_conf_clear()). */
int cordon_spank_conf_parse(struct cordon_spank_conf *c, int ac, char *const *av, char *err,
                            size_t size);
void cordon_spank_conf_clear(struct cordon_spank_conf *c);

/* Whether the job's @partition (SLURM_JOB_PARTITION: one name, or a comma-separated list of
 * those a pending job could run in) is one of the mandatory ones: any name of the list is.
 * NULL or "" is none. */
bool cordon_spank_partition_enforced(const struct cordon_spank_conf *c, const char *partition);

/* A profile name of --cordon=PROFILE: letters, digits, '-' and '_', 1..CORDON_SPANK_PROFILE_MAX
 * bytes (so that policy_dir/PROFILE.conf can never leave the directory). 0 or -EINVAL with the
 * reason in @err. */
int cordon_spank_profile_check(const char *name, char *err, size_t size);
/* A network mode of --cordon-network=MODE: a name libcordon knows (open, isolated, proxied,
 * filtered; whether it can be delivered to a task is cordon_confine_self()'s to say). 0 or
 * -EINVAL with the modes in @err. */
int cordon_spank_network_check(const char *mode, char *err, size_t size);
/* policy_dir/PROFILE.conf into @buf: 0, or -ENAMETOOLONG. */
int cordon_spank_profile_path(const char *dir, const char *profile, char *buf, size_t size);

/* The descriptor of PMI_FD's @value (Slurm's PMI-2, srun --mpi=pmi2: the task's end of
 * slurmstepd's socket pair): decimal digits without a sign or a leading zero, 3 up to
 * CORDON_SPANK_PMI_FD_MAX (stdio is no PMI socket). Returns the descriptor or -EINVAL. */
#define CORDON_SPANK_PMI_FD_MAX 1048576 /* the kernel's default nr_open */
int cordon_spank_pmi_fd(const char *value);

/* What turns environment @from into @to (both NULL-terminated NAME=VALUE vectors): the names to
 * unset (in @from, not in @to) and the NAME=VALUE entries to set (new or changed), as vectors
 * the caller frees. An entry without '=' is ignored. Returns 0, -E2BIG (more than
 * CORDON_SPANK_ENV_MAX entries), -ENOMEM. */
int cordon_spank_env_diff(char *const *from, char *const *to, char ***ret_unset, char ***ret_set);
