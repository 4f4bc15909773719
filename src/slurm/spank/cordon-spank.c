/* cordon_spank.so: Slurm's SPANK callbacks (cordon-spank(8)). --cordon[=PROFILE] and
 * --cordon-network=MODE for srun, sbatch and salloc; in the task, the namespace work as root in
 * slurm_spank_task_init_privileged, then cordon_confine_self() in slurm_spank_task_init just before
 * slurmstepd execs the command (slurmstepd is multi-threaded: nothing is confined in it). Every
 * failure is reported and fails the task in task_init, where Slurm sends the message to srun. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "shared/macro.h"
#include "shared/strv.h"
#include "slurm/spank/spank-args.h"
#include "slurm/spank/spank-confine.h"
#include "slurm/spank/spank-ns.h"

/* The symbols Slurm looks up: exported (the project builds with -fvisibility=hidden); the
 * version script cordon-spank.sym exports nothing else. (Not libcordon's _public_: they are no
 * part of the library's API.) */
#define _spank_export_ __attribute__((visibility("default")))
#pragma GCC visibility push(default)
SPANK_PLUGIN(cordon, 1);
#pragma GCC visibility pop

/* The plugin's state, one per process: slurmstepd's, inherited by each task's fork. */
static struct cordon_spank_conf conf;
static char *opt_profile; /* --cordon given: its PROFILE */
static char *opt_network; /* --cordon-network given */
/* A failure of task_init_privileged, reported by task_init: only there does Slurm pass the
 * message to srun and the task's failure to the step. */
static char deferred[512];

static int opt_cordon(int val, const char *arg, int remote);
static int opt_cordon_network(int val, const char *arg, int remote);

/* struct spank_option holds char *, not const: the texts are arrays of their own. */
static char name_cordon[] = "cordon", arg_cordon[] = "[PROFILE]",
            use_cordon[] = "[cordon] Confine the tasks with cordon: PROFILE of the site's "
                           "policy directory (default: " CORDON_SPANK_DEFAULT_PROFILE ").";
static char name_network[] = "cordon-network", arg_network[] = "MODE",
            use_network[] = "[cordon] Network of the confined tasks: open, or isolated (a "
                            "network namespace of their own, no sockets but local ones). With "
                            "--cordon.";
static struct spank_option options[] = {
    {name_cordon, arg_cordon, use_cordon, 2, 0, opt_cordon},
    {name_network, arg_network, use_network, 1, 0, opt_cordon_network},
};

static int opt_cordon(int val, const char *arg, int remote)
{
        char err[256];
        /* Slurm hands an option given without its optional value on to the job's environment
         * as "(null)" (plugstack.c, _option_setenv()): an srun inside `salloc --cordon` or
         * `sbatch --cordon` reads it back so. No profile has that name. */
        const char *name =
            arg && *arg && !streq(arg, "(null)") ? arg : CORDON_SPANK_DEFAULT_PROFILE;
        if (cordon_spank_profile_check(name, err, sizeof(err)) < 0) {
                slurm_error("cordon: --cordon: %s", err);
                return -1;
        }
        char *copy = strdup(name);
        if (!copy)
                return -1;
        free(opt_profile);
        opt_profile = copy;
        return 0;
}

static int opt_cordon_network(int val, const char *arg, int remote)
{
        char err[256];
        if (!arg || cordon_spank_network_check(arg, err, sizeof(err)) < 0) {
                slurm_error("cordon: --cordon-network: %s", arg ? err : "a MODE is required");
                return -1;
        }
        char *copy = strdup(arg);
        if (!copy)
                return -1;
        free(opt_network);
        opt_network = copy;
        return 0;
}

_spank_export_ int slurm_spank_init(spank_t sp, int ac, char *argv[])
{
        char err[512];
        cordon_spank_conf_clear(&conf);
        int r = cordon_spank_conf_parse(&conf, ac, argv, err, sizeof(err));
        if (r < 0) {
                slurm_error("cordon: %s", r == -ENOMEM ? "out of memory" : err);
                return -1;
        }
        spank_context_t ctx = spank_context();
        if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(options); i++)
                if (spank_option_register(sp, &options[i]) != ESPANK_SUCCESS) {
                        slurm_error("cordon: cannot register the option --%s", options[i].name);
                        return -1;
                }
        return 0;
}

/* Whether this srun is one that Slurm's PMI-2 runs for a task's PMI2_Job_Spawn (MPI_Comm_spawn)
 * in a confined step: mpi/pmi2 execs `srun --mpi=pmi2 --ntasks=N CMD ARGS` outside the sandbox,
 * in the spawning srun's environment (its SLURM_PMI2_SPAWNER_JOBID set, and the --cordon that
 * Slurm put there), with CMD, ARGS and the working directory chosen by the task: CMD may be an
 * option of srun's (--export=NONE drops the inherited --cordon, --cordon-network=open widens the
 * network, --chdir or the "wdir" key picks another project). The task's environment cannot
 * change srun's: these variables are Slurm's. */
static bool spawned_from_confined_step(void)
{
        return getenv("SLURM_PMI2_SPAWNER_JOBID") &&
               (getenv("_SLURM_SPANK_OPTION_cordon_cordon") ||
                getenv("SLURM_SPANK__SLURM_SPANK_OPTION_cordon_cordon"));
}

/* After the options, in srun, sbatch and salloc: a network without --cordon would confine
 * nothing; a PMI-2 spawn from a confined step is refused (its options are the task's; Slurm's
 * spawner then waits for an answer that does not come). (In slurmstepd a failure here would
 * reach only slurmd's log: task_init says it.) */
_spank_export_ int slurm_spank_init_post_opt(spank_t sp, int ac, char *argv[])
{
        if (spank_remote(sp))
                return 0;
        if (spank_context() == S_CTX_LOCAL && spawned_from_confined_step()) {
                slurm_error(
                    "cordon: a PMI-2 spawn from a confined step is refused: the task "
                    "would choose the new step's srun options (SLURM_PMI2_SPAWNER_JOBID=%s)",
                    getenv("SLURM_PMI2_SPAWNER_JOBID"));
                return -1;
        }
        if (opt_network && !opt_profile) {
                slurm_error("cordon: --cordon-network=%s needs --cordon[=PROFILE]", opt_network);
                return -1;
        }
        return 0;
}

/* The refusal of an enforced partition, whose message names it and the option. */
static int refuse_unconfined(const char *partition)
{
        slurm_error("cordon: partition %s runs confined tasks only: submit with "
                    "--cordon[=PROFILE]",
                    partition);
        return -1;
}

/* srun, once it has its allocation: an enforced partition refused before anything is launched.
 * (The step's own check in task_init is the one that holds: this one reads srun's environment.) */
_spank_export_ int slurm_spank_local_user_init(spank_t sp, int ac, char *argv[])
{
        const char *partition = getenv("SLURM_JOB_PARTITION");
        if (!opt_profile && cordon_spank_partition_enforced(&conf, partition))
                return refuse_unconfined(partition);
        return 0;
}

/* As root in the task's process, before its privileges are dropped: namespaces only, and only
 * when asked for. Errors wait for task_init. */
_spank_export_ int slurm_spank_task_init_privileged(spank_t sp, int ac, char *argv[])
{
        if (!spank_remote(sp) || !opt_profile)
                return 0;
        int mnt = cordon_spank_ns_is_own("mnt"), net = cordon_spank_ns_is_own("net");
        if (mnt < 0 || net < 0)
                slurm_debug("cordon: cannot compare the task's namespaces with slurmstepd's: %s",
                            strerror(-(mnt < 0 ? mnt : net)));
        else if (mnt > 0 || net > 0)
                slurm_debug("cordon: the job has a%s%s namespace of its own (Slurm's job "
                            "container): confining inside it",
                            mnt > 0 ? " mount" : "", net > 0 ? " network" : "");
        if (opt_network && strcmp(opt_network, "isolated") == 0) {
                char err[256];
                if (cordon_spank_netns_isolate(err, sizeof(err)) < 0)
                        snprintf(deferred, sizeof(deferred), "--cordon-network=isolated: %s", err);
        }
        return 0;
}

/* The job's environment made the one the confinement gives: the variables it drops unset, the
 * ones it adds or changes set. */
static int apply_env(spank_t sp, char *const *job_env, char *const *env)
{
        _cleanup_strv_free_ char **unset = NULL, **set = NULL;
        int r = cordon_spank_env_diff(job_env, env, &unset, &set);
        if (r < 0) {
                slurm_error("cordon: the task's environment: %s", strerror(-r));
                return -1;
        }
        STRV_FOREACH (u, unset)
                if (spank_unsetenv(sp, *u) != ESPANK_SUCCESS) {
                        slurm_error("cordon: cannot unset %s in the task's environment", *u);
                        return -1;
                }
        STRV_FOREACH (s, set) {
                char *eq = strchr(*s, '=');
                *eq = 0;
                spank_err_t e = spank_setenv(sp, *s, eq + 1, 1);
                *eq = '=';
                if (e != ESPANK_SUCCESS) {
                        slurm_error("cordon: cannot set %.*s in the task's environment",
                                    (int)(eq - *s), *s);
                        return -1;
                }
        }
        return 0;
}

/* As the job's user in the task's process, in its working directory, just before the exec:
 * the mandatory partitions, then the confinement. -1 fails the task, with the message on the
 * step's standard error. */
_spank_export_ int slurm_spank_task_init(spank_t sp, int ac, char *argv[])
{
        if (!spank_remote(sp))
                return 0;
        /* The partition decides whether an unconfined task may run. Where some partition is
         * enforced, one the task cannot tell (absent, or longer than a list of every allowed
         * name can be) refuses: never a guess towards running unconfined. */
        char partition[CORDON_SPANK_PARTITIONS_MAX * (CORDON_SPANK_PARTITION_MAX + 1)] = "";
        spank_err_t e = spank_getenv(sp, "SLURM_JOB_PARTITION", partition, sizeof(partition));
        if (e != ESPANK_SUCCESS)
                partition[0] = 0;
        if (!opt_profile && opt_network) {
                slurm_error("cordon: --cordon-network=%s needs --cordon[=PROFILE]", opt_network);
                return -1;
        }
        if (!opt_profile && conf.enforce && e != ESPANK_SUCCESS) {
                slurm_error("cordon: cannot tell the job's partition (SLURM_JOB_PARTITION: %s), "
                            "and confinement is mandatory in some: submit with --cordon[=PROFILE]",
                            e == ESPANK_ENV_NOEXIST ? "not set" : "unreadable");
                return -1;
        }
        if (!opt_profile)
                return cordon_spank_partition_enforced(&conf, partition)
                           ? refuse_unconfined(partition)
                           : 0;
        if (*deferred) {
                slurm_error("cordon: %s", deferred);
                return -1;
        }

        char **job_env = NULL;
        if (spank_get_item(sp, S_JOB_ENV, &job_env) != ESPANK_SUCCESS || !job_env) {
                slurm_error("cordon: cannot read the job's environment");
                return -1;
        }
        /* A copy: setting and unsetting below changes the job's array. */
        _cleanup_strv_free_ char **before = strv_copy(job_env);
        _cleanup_strv_free_ char **env = NULL, **warnings = NULL;
        char err[1024];
        struct cordon_spank_task t = {
            .policy_dir = conf.policy_dir,
            .profile = opt_profile,
            .network = opt_network,
            .job_env = before,
        };
        if (!before) {
                slurm_error("cordon: out of memory");
                return -1;
        }
        if (cordon_spank_confine(&t, &env, &warnings, err, sizeof(err)) < 0) {
                slurm_error("cordon: profile %s: %s", opt_profile, err);
                return -1;
        }
        STRV_FOREACH (w, warnings)
                slurm_verbose("cordon: %s", *w);
        return apply_env(sp, before, env);
}

_spank_export_ int slurm_spank_exit(spank_t sp, int ac, char *argv[])
{
        cordon_spank_conf_clear(&conf);
        free(opt_profile);
        free(opt_network);
        opt_profile = opt_network = NULL;
        deferred[0] = 0;
        return 0;
}
