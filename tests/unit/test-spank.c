/* The SPANK callbacks (src/slurm/spank/cordon-spank.c) against mock spank_* and slurm_* calls
 * defined here, with the confinement and the namespace work mocked too (the confinement is
 * tested by tests/integration/slurm-spank.sh in a real Slurm, the namespace work there and by
 * test-spank-ns.c): the arguments and the options registered in each context, the option
 * callbacks, the mandatory partitions in srun and in the task, the job's namespaces noted, a
 * namespace failure deferred to task_init, the task's environment rewritten. Criterion runs each
 * test in a process of its own, so the plugin's static state starts empty. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "shared/macro.h"
#include "shared/strv.h"
#include "slurm/spank/spank-args.h"
#include "slurm/spank/spank-confine.h"
#include "slurm/spank/spank-ns.h"
#include "test-helpers.h"

/* ---- the mocks ---- */

static spank_context_t ctx = S_CTX_REMOTE;
static struct spank_option registered[8];
static int n_registered;
static char **job_env; /* the job's environment (S_JOB_ENV, spank_getenv/_setenv/_unsetenv) */
static char log_error[8192], log_other[8192];

spank_context_t spank_context(void)
{
        return ctx;
}

int spank_remote(spank_t sp)
{
        return ctx == S_CTX_REMOTE;
}

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
        cr_assert_lt(n_registered, (int)ELEMENTSOF(registered));
        registered[n_registered++] = *opt;
        return ESPANK_SUCCESS;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
        va_list ap;
        va_start(ap, item);
        spank_err_t e = ESPANK_BAD_ARG;
        if (item == S_JOB_ENV) {
                *va_arg(ap, char ***) = job_env;
                e = ESPANK_SUCCESS;
        }
        va_end(ap);
        return e;
}

static char **env_find(const char *var)
{
        size_t n = strlen(var);
        for (char **e = job_env; e && *e; e++)
                if (strncmp(*e, var, n) == 0 && (*e)[n] == '=')
                        return e;
        return NULL;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
        char **e = env_find(var);
        if (!e)
                return ESPANK_ENV_NOEXIST;
        if ((size_t)snprintf(buf, (size_t)len, "%s", *e + strlen(var) + 1) >= (size_t)len)
                return ESPANK_NOSPACE;
        return ESPANK_SUCCESS;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
        char **e = env_find(var);
        char *entry = NULL;
        cr_assert_geq(asprintf(&entry, "%s=%s", var, val), 0);
        if (e && !overwrite) {
                free(entry);
                return ESPANK_ENV_EXISTS;
        }
        if (e) {
                free(*e);
                *e = entry;
        } else
                cr_assert_eq(strv_consume(&job_env, entry), 0);
        return ESPANK_SUCCESS;
}

spank_err_t spank_unsetenv(spank_t sp, const char *var)
{
        char **e = env_find(var);
        if (e) {
                free(*e);
                memmove(e, e + 1, (strv_length(e + 1) + 1) * sizeof(*e));
        }
        return ESPANK_SUCCESS;
}

_printf_(2, 0) static void append(char *log, const char *fmt, va_list ap)
{
        size_t n = strlen(log);
        vsnprintf(log + n, 8192 - n, fmt, ap);
        n = strlen(log);
        snprintf(log + n, 8192 - n, "\n");
}

#define LOGGER(name, log)                                                                          \
        void name(const char *fmt, ...)                                                            \
        {                                                                                          \
                va_list ap;                                                                        \
                va_start(ap, fmt);                                                                 \
                append(log, fmt, ap);                                                              \
                va_end(ap);                                                                        \
        }
LOGGER(slurm_error, log_error)
LOGGER(slurm_info, log_other)
LOGGER(slurm_verbose, log_other)
LOGGER(slurm_debug, log_other)

/* The confinement: what it was asked, and what it answers. */
static int confine_calls, confine_result;
static struct cordon_spank_task confine_task;
static char **confine_saw; /* a copy of the job's environment it was given */
static char **confine_env; /* what it returns as the task's environment */

int cordon_spank_confine(const struct cordon_spank_task *t, char ***ret_env, char ***ret_warnings,
                         char *err, size_t size)
{
        confine_calls++;
        confine_task = *t;
        confine_task.job_env = NULL; /* the caller's, freed after the call */
        strv_free(confine_saw);
        confine_saw = strv_copy(t->job_env);
        if (confine_result < 0) {
                snprintf(err, size, "cordon_confine_self: NETWORK_FILTER_MODE cannot be applied");
                return confine_result;
        }
        *ret_env = strv_copy(confine_env);
        *ret_warnings = STRV_MAKE("a warning");
        return 0;
}

static int ns_own = 0, isolate_calls, isolate_result;

int cordon_spank_ns_is_own(const char *ns)
{
        return ns_own;
}

int cordon_spank_netns_isolate(char *err, size_t size)
{
        isolate_calls++;
        if (isolate_result < 0)
                snprintf(err, size, "a new network namespace (unshare): Operation not permitted");
        return isolate_result;
}

/* ---- helpers ---- */

#define SP ((spank_t)NULL)

static int init(char **args)
{
        return slurm_spank_init(SP, (int)strv_length(args), args);
}

static void has(const char *log, const char *text)
{
        cr_assert_not_null(strstr(log, text), "'%s' not in:\n%s", text, log);
}

static struct spank_option *option(const char *name)
{
        for (int i = 0; i < n_registered; i++)
                if (streq(registered[i].name, name))
                        return &registered[i];
        cr_assert_fail("--%s not registered", name);
        return NULL;
}

/* The remote context set up for a task: the plugin initialized with @args, the job's
 * environment @env, then the options as slurmstepd replays them (NULL: not given). */
static void remote(char **args, char **env, const char *cordon, const char *network)
{
        ctx = S_CTX_REMOTE;
        job_env = env;
        cr_assert_eq(init(args), 0, "%s", log_error);
        if (cordon)
                cr_assert_eq(option("cordon")->cb(0, *cordon ? cordon : NULL, 1), 0, "%s",
                             log_error);
        if (network)
                cr_assert_eq(option("cordon-network")->cb(0, network, 1), 0, "%s", log_error);
        cr_assert_eq(slurm_spank_init_post_opt(SP, 0, NULL), 0, "%s", log_error);
}

#define ARGS STRV_MAKE("policy_dir=/etc/cordon/slurm.d", "enforce=partition:secure")

/* ---- the arguments and the options ---- */

Test(spank, options_registered_in_srun_sbatch_salloc_and_the_step)
{
        static const spank_context_t with[] = {S_CTX_LOCAL, S_CTX_ALLOCATOR, S_CTX_REMOTE};
        for (size_t i = 0; i < ELEMENTSOF(with); i++) {
                ctx = with[i];
                n_registered = 0;
                cr_assert_eq(init(ARGS), 0, "%s", log_error);
                cr_assert_eq(n_registered, 2);
                struct spank_option *c = option("cordon"), *n = option("cordon-network");
                cr_assert_eq(c->has_arg, 2, "--cordon takes an optional PROFILE");
                cr_assert_eq(n->has_arg, 1, "--cordon-network takes a MODE");
                cr_assert_eq(strncmp(c->usage, "[cordon] ", 9), 0, "%s", c->usage);
                cr_assert_eq(strncmp(n->usage, "[cordon] ", 9), 0, "%s", n->usage);
                cr_assert_str_eq(c->arginfo, "[PROFILE]");
                cr_assert_str_eq(n->arginfo, "MODE");
        }
        /* slurmd and the prolog/epilog have no options. */
        static const spank_context_t without[] = {S_CTX_SLURMD, S_CTX_JOB_SCRIPT};
        for (size_t i = 0; i < ELEMENTSOF(without); i++) {
                ctx = without[i];
                n_registered = 0;
                cr_assert_eq(init(ARGS), 0);
                cr_assert_eq(n_registered, 0);
        }
}

/* Unknown or malformed plugstack.conf arguments fail slurm_spank_init loudly, in every context
 * (srun fails with the message before anything is submitted). */
Test(spank, bad_arguments_fail_loudly)
{
        static const spank_context_t all[] = {S_CTX_LOCAL, S_CTX_ALLOCATOR, S_CTX_REMOTE,
                                              S_CTX_SLURMD};
        for (size_t i = 0; i < ELEMENTSOF(all); i++) {
                ctx = all[i];
                log_error[0] = 0;
                n_registered = 0;
                cr_assert_eq(init(STRV_MAKE("policy_dir=/etc/cordon/slurm.d", "polcy=strict")), -1);
                has(log_error, "cordon: plugin argument 'polcy=strict': unknown");
                cr_assert_eq(n_registered, 0);
        }
        log_error[0] = 0;
        cr_assert_eq(init(STRV_MAKE("enforce=partition:secure")), -1);
        has(log_error, "policy_dir=DIR is missing");
        log_error[0] = 0;
        cr_assert_eq(init(STRV_MAKE("policy_dir=relative")), -1);
        has(log_error, "'policy_dir=relative': policy_dir must be an absolute path");
}

Test(spank, option_callbacks)
{
        ctx = S_CTX_LOCAL;
        cr_assert_eq(init(ARGS), 0);
        struct spank_option *c = option("cordon"), *n = option("cordon-network");
        cr_assert_eq(c->cb(0, "../../etc/shadow", 0), -1);
        has(log_error, "--cordon: profile '../../etc/shadow': expected 1 to 64 letters");
        cr_assert_eq(c->cb(0, "a.conf", 0), -1);
        cr_assert_eq(n->cb(0, "bogus", 0), -1);
        has(log_error, "--cordon-network: network mode 'bogus': expected open or isolated");
        cr_assert_eq(n->cb(0, NULL, 0), -1);
        has(log_error, "--cordon-network: a MODE is required");

        /* --cordon without a value is the default profile; a value replaces it. */
        cr_assert_eq(c->cb(0, NULL, 0), 0);
        cr_assert_eq(n->cb(0, "isolated", 0), 0);
        ctx = S_CTX_REMOTE;
        job_env = STRV_MAKE("SLURM_JOB_PARTITION=debug", "HOME=/home/u");
        confine_env = STRV_MAKE("HOME=/home/u");
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0, "%s", log_error);
        cr_assert_str_eq(confine_task.profile, "default");
        cr_assert_str_eq(confine_task.network, "isolated");
        cr_assert_str_eq(confine_task.policy_dir, "/etc/cordon/slurm.d");
        cr_assert_eq(c->cb(0, "gpu-strict", 1), 0);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0, "%s", log_error);
        cr_assert_str_eq(confine_task.profile, "gpu-strict");
        /* Slurm's spelling of "no value" in the environment an allocation passes on. */
        cr_assert_eq(c->cb(0, "(null)", 1), 0);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0, "%s", log_error);
        cr_assert_str_eq(confine_task.profile, "default");
}

/* --cordon-network alone would confine nothing: srun, sbatch and salloc refuse it after the
 * options, the step in task_init. */
Test(spank, network_without_cordon_refused)
{
        ctx = S_CTX_LOCAL;
        cr_assert_eq(init(ARGS), 0);
        cr_assert_eq(option("cordon-network")->cb(0, "isolated", 0), 0);
        cr_assert_eq(slurm_spank_init_post_opt(SP, 0, NULL), -1);
        has(log_error, "--cordon-network=isolated needs --cordon[=PROFILE]");

        log_error[0] = 0;
        ctx = S_CTX_REMOTE;
        job_env = STRV_MAKE("SLURM_JOB_PARTITION=debug");
        cr_assert_eq(slurm_spank_init_post_opt(SP, 0, NULL), 0, "reported by task_init instead");
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), -1);
        has(log_error, "--cordon-network=isolated needs --cordon[=PROFILE]");
        cr_assert_eq(confine_calls, 0);
}

/* ---- the mandatory partitions ---- */

Test(spank, enforced_partition_refuses_an_unconfined_task)
{
        remote(ARGS, STRV_MAKE("SLURM_JOB_PARTITION=secure"), NULL, NULL);
        cr_assert_eq(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), -1);
        has(log_error, "cordon: partition secure runs confined tasks only: submit with "
                       "--cordon[=PROFILE]");
        cr_assert_eq(confine_calls, 0);
}

Test(spank, enforced_partition_confines_with_cordon)
{
        confine_env = STRV_MAKE("SLURM_JOB_PARTITION=secure");
        remote(ARGS, STRV_MAKE("SLURM_JOB_PARTITION=secure"), "", NULL);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0, "%s", log_error);
        cr_assert_eq(confine_calls, 1);
        cr_assert_str_eq(log_error, "");
}

/* Elsewhere an unconfined task runs untouched; a job in several partitions is held to any. */
Test(spank, other_partitions_untouched)
{
        remote(ARGS, STRV_MAKE("SLURM_JOB_PARTITION=debug"), NULL, NULL);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0);
        cr_assert_eq(confine_calls, 0);
        job_env = STRV_MAKE("SLURM_JOB_PARTITION=debug,secure");
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), -1);
        cr_assert_eq(confine_calls, 0);
}

/* Where some partition is enforced, a task that cannot tell its own is refused unconfined;
 * where none is, it runs. */
Test(spank, unknown_partition_refused_where_any_is_enforced)
{
        remote(ARGS, STRV_MAKE("HOME=/h"), NULL, NULL);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), -1);
        has(log_error, "cannot tell the job's partition (SLURM_JOB_PARTITION: not set)");
        char *big = malloc(70000);
        cr_assert_not_null(big);
        strcpy(big, "SLURM_JOB_PARTITION=");
        memset(big + strlen(big), 'p', 65000);
        big[20 + 65000] = 0;
        job_env = STRV_MAKE(big);
        free(big);
        log_error[0] = 0;
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), -1);
        has(log_error, "(SLURM_JOB_PARTITION: unreadable)");
        cr_assert_eq(confine_calls, 0);
        slurm_spank_exit(SP, 0, NULL);
        remote(STRV_MAKE("policy_dir=/etc/cordon/slurm.d"), STRV_MAKE("HOME=/h"), NULL, NULL);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0, "%s", log_error);
}

/* srun refuses early, from its own environment once it has the allocation. */
Test(spank, srun_refuses_early)
{
        ctx = S_CTX_LOCAL;
        cr_assert_eq(init(ARGS), 0);
        setenv("SLURM_JOB_PARTITION", "secure", 1);
        cr_assert_eq(slurm_spank_local_user_init(SP, 0, NULL), -1);
        has(log_error, "partition secure runs confined tasks only");
        setenv("SLURM_JOB_PARTITION", "debug", 1);
        cr_assert_eq(slurm_spank_local_user_init(SP, 0, NULL), 0);
        setenv("SLURM_JOB_PARTITION", "secure", 1);
        cr_assert_eq(option("cordon")->cb(0, NULL, 0), 0);
        cr_assert_eq(slurm_spank_local_user_init(SP, 0, NULL), 0);
}

/* ---- the task ---- */

/* The task's environment becomes the one the confinement gives: a dropped variable unset, an
 * added one set, the rest as it was. */
Test(spank, task_environment_rewritten)
{
        confine_env = STRV_MAKE("HOME=/home/u", "SLURM_JOB_PARTITION=debug", "PMI_RANK=0",
                                "SANDBOX_BACKEND=landlock");
        remote(ARGS,
               STRV_MAKE("HOME=/home/u", "SLURM_JOB_PARTITION=debug", "AWS_SECRET_ACCESS_KEY=k",
                         "PMI_RANK=0"),
               "strict", NULL);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0, "%s", log_error);
        cr_assert_eq(confine_calls, 1);
        cr_assert_str_eq(confine_task.profile, "strict");
        cr_assert_null(confine_task.network);
        /* It saw the job's environment as it was. */
        cr_assert(strv_contains(confine_saw, "AWS_SECRET_ACCESS_KEY=k"));
        cr_assert_null(env_find("AWS_SECRET_ACCESS_KEY"));
        cr_assert(strv_contains(job_env, "SANDBOX_BACKEND=landlock"));
        cr_assert(strv_contains(job_env, "PMI_RANK=0"));
        cr_assert_eq(strv_length(job_env), 4);
        has(log_other, "cordon: a warning");
}

Test(spank, confinement_failure_fails_the_task)
{
        confine_result = -EOPNOTSUPP;
        remote(ARGS, STRV_MAKE("SLURM_JOB_PARTITION=debug"), "strict", "proxied");
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), -1);
        has(log_error, "cordon: profile strict: cordon_confine_self: NETWORK_FILTER_MODE cannot be "
                       "applied");
}

/* isolated: a network namespace in task_init_privileged; open: none. Not in srun. */
Test(spank, isolated_network_namespace)
{
        confine_env = STRV_MAKE("A=1");
        remote(ARGS, STRV_MAKE("A=1"), "", "open");
        cr_assert_eq(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
        cr_assert_eq(isolate_calls, 0);
        cr_assert_eq(option("cordon-network")->cb(0, "isolated", 1), 0);
        cr_assert_eq(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
        cr_assert_eq(isolate_calls, 1);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0, "%s", log_error);

        ctx = S_CTX_LOCAL;
        cr_assert_eq(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
        cr_assert_eq(isolate_calls, 1);
}

/* Inside a job container of Slurm's the plugin says so and confines inside it. */
Test(spank, job_namespace_nested)
{
        ns_own = 1;
        remote(ARGS, STRV_MAKE("A=1"), "", "isolated");
        cr_assert_eq(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
        has(log_other, "namespace of its own (Slurm's job container): confining inside it");
        cr_assert_eq(isolate_calls, 1);
}

/* Namespaces the plugin cannot compare are said, at the same level, and nothing is claimed. */
Test(spank, job_namespace_unknown)
{
        ns_own = -EACCES;
        remote(ARGS, STRV_MAKE("A=1"), "", NULL);
        cr_assert_eq(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
        has(log_other, "cordon: cannot compare the task's namespaces with slurmstepd's: "
                       "Permission denied");
        cr_assert_null(strstr(log_other, "of its own"), "%s", log_other);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0, "%s", log_error);
}

/* A failure as root is kept for task_init, whose message reaches srun, and the task fails
 * there before anything is confined. */
Test(spank, privileged_failure_deferred_to_task_init)
{
        isolate_result = -EPERM;
        remote(ARGS, STRV_MAKE("A=1"), "", "isolated");
        cr_assert_eq(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
        cr_assert_str_eq(log_error, "");
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), -1);
        has(log_error, "cordon: --cordon-network=isolated: a new network namespace (unshare): "
                       "Operation not permitted");
        cr_assert_eq(confine_calls, 0);
}

/* An unconfined task in an ordinary partition costs nothing: no namespace, no confinement. */
Test(spank, unconfined_task_untouched)
{
        remote(ARGS, STRV_MAKE("SLURM_JOB_PARTITION=debug"), NULL, NULL);
        cr_assert_eq(slurm_spank_task_init_privileged(SP, 0, NULL), 0);
        cr_assert_eq(slurm_spank_task_init(SP, 0, NULL), 0);
        cr_assert_eq(isolate_calls + confine_calls, 0);
        cr_assert_str_eq(log_error, "");
}
