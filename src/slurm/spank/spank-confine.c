/* The SPANK plugin's confinement of one task (spank-confine.h): libcordon's public API only, as
 * the cordon program uses it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cordon/confine.h>
#include <cordon/cordon.h>
#include <cordon/settings.h>

#include "shared/macro.h"
#include "shared/strv.h"
#include "slurm/spank/spank-args.h"
#include "slurm/spank/spank-confine.h"

extern char **environ;

#define ORIGIN_DEFAULT "cordon_spank.so's default for a task"
#define ORIGIN_PLUGIN  "cordon_spank.so"

/* What a process confining itself can have, where the built-in defaults need a process of
 * cordon's (cordon_confine_self()): set before the files, so that a profile or the user's file
 * changes them like any default, and a value the task cannot have is refused, never lowered. */
static const char *const task_defaults[][2] = {
    {"NETWORK_FILTER_MODE", "open"},
    {"PRIVATE_TMP", "false"},
    {"NETWORK_MAIL_BLOCK", "off"},
    {"PROTECT_GIT_CONFIG", "false"},
};

static void settings_freep(struct cordon_settings **s)
{
        cordon_settings_free(*s);
}

static void policy_freep(struct cordon_policy **p)
{
        cordon_policy_free(*p);
}

static int fail(int r, char *err, size_t size, const char *what, const struct cordon_diag *d)
{
        snprintf(err, size, "%s: %s", what, d && *d->message ? d->message : strerror(-r));
        return r;
}

static int take_warnings(char ***into, char **w)
{
        int r = strv_extend_strv(into, w);
        strv_free(w);
        return r;
}

/* The job's environment without CORDON_ADMIN_CONF: the admin layers are the site's baselines
 * and the profile, never a file the job's environment names. */
static char **load_env(char *const *job_env)
{
        char **env = NULL;
        STRV_FOREACH (e, job_env)
                if (strncmp(*e, "CORDON_ADMIN_CONF=", strlen("CORDON_ADMIN_CONF=")) != 0 &&
                    strv_extend(&env, *e) < 0)
                        return strv_free(env);
        return env ? env : calloc(1, sizeof(char *));
}

static const char *job_getenv(char *const *env, const char *name)
{
        size_t n = strlen(name);
        STRV_FOREACH (e, env)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

static int build_settings(const struct cordon_spank_task *t, struct cordon_settings **ret,
                          char ***warnings, char *err, size_t size)
{
        char path[4096];
        struct cordon_diag d = {0};
        int r = cordon_spank_profile_path(t->policy_dir, t->profile, path, sizeof(path));
        if (r < 0)
                return fail(r, err, size, "the profile's path", NULL);
        _cleanup_strv_free_ char **env = load_env(t->job_env);
        _cleanup_(settings_freep) struct cordon_settings *s = NULL;
        if (!env || cordon_settings_new(job_getenv(env, "HOME"), &s) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(task_defaults); i++)
                if ((r = cordon_settings_set(s, task_defaults[i][0], task_defaults[i][1],
                                             ORIGIN_DEFAULT, &d)) < 0)
                        return fail(r, err, size, task_defaults[i][0], &d);
        char **w = NULL;
        struct cordon_config_options o = {.envp = env};
        if ((r = cordon_settings_load_config_with_admin(s, &o, path, &w, &d)) < 0)
                return fail(r, err, size, "the configuration", &d);
        if ((r = take_warnings(warnings, w)) < 0)
                return r;
        if ((r = cordon_settings_apply_environment(s, t->job_env, &d)) < 0)
                return fail(r, err, size, "the job's environment", &d);
        if (t->network && (r = cordon_settings_set(s, "NETWORK_FILTER_MODE", t->network,
                                                   "--cordon-network", &d)) < 0) {
                cordon_settings_diag_respell(&d, "NETWORK_FILTER_MODE", "--cordon-network");
                return fail(r, err, size, "--cordon-network", &d);
        }
        if ((r = cordon_settings_set(s, "SANDBOX_BACKEND", "landlock", ORIGIN_PLUGIN, &d)) < 0)
                return fail(r, err, size, "SANDBOX_BACKEND", &d);
        w = NULL;
        if ((r = cordon_settings_finalize(s, &w, &d)) < 0)
                return fail(r, err, size, "the configuration", &d);
        if ((r = take_warnings(warnings, w)) < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

/* Slurm's PMI-2 (srun --mpi=pmi2): slurmstepd hands each task one end of a socket pair across
 * the exec, its number in PMI_FD, and cordon_confine_self() has marked every descriptor above
 * stdio close-on-exec. That one is handed on, and only when it is what slurmstepd made: a unix
 * socket whose peer (a socket pair's maker) is the task's parent. PMI_FD is the job's
 * environment and a user may set it: any other descriptor is closed at the exec, with a note. */
static int keep_pmi_fd(char *const *job_env, char ***warnings)
{
        const char *v = job_getenv(job_env, "PMI_FD");
        if (!v)
                return 0;
        int fd = cordon_spank_pmi_fd(v), domain = 0, flags;
        struct ucred peer = {0};
        socklen_t len = sizeof(domain), peer_len = sizeof(peer);
        const char *why = NULL;
        if (fd < 0)
                why = "not a descriptor's number";
        else if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 || domain != AF_UNIX)
                why = "not a unix socket";
        else if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) < 0 ||
                 peer.pid != getppid())
                why = "its peer is not slurmstepd (the task's parent)";
        if (why)
                return strv_extendf(warnings, "PMI_FD=%.32s: %s: closed at the exec", v, why);
        if ((flags = fcntl(fd, F_GETFD)) < 0 || fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
                return -errno;
        return 0;
}

int cordon_spank_confine(const struct cordon_spank_task *t, char ***ret_env, char ***ret_warnings,
                         char *err, size_t size)
{
        _cleanup_strv_free_ char **warnings = NULL;
        _cleanup_(settings_freep) struct cordon_settings *s = NULL;
        int r = build_settings(t, &s, &warnings, err, size);
        if (r < 0)
                return r;

        struct cordon_host host = {0};
        struct cordon_diag d = {0};
        if ((r = cordon_host_init_current(&host, t->job_env)) < 0)
                return fail(r, err, size, "the working directory", NULL);
        _cleanup_(policy_freep) struct cordon_policy *p = NULL;
        char **w = NULL;
        r = cordon_settings_resolve(s, &host, &p, &w, &d);
        cordon_host_clear(&host);
        if (r < 0)
                return fail(r, err, size, "the policy", &d);
        if ((r = take_warnings(&warnings, w)) < 0)
                return r;

        /* cordon_confine_self() replaces environ with the command's environment: taken from
         * there, and the task's own put back (slurmstepd's, which it may still read). */
        char **saved = environ;
        r = cordon_confine_self(p, CORDON_CONFINE_ENVIRON, &d);
        char **given = environ;
        environ = saved;
        if (r < 0)
                return fail(r, err, size, "cordon_confine_self", &d);
        if (*d.message && (r = strv_extend(&warnings, d.message)) < 0)
                return r;
        if ((r = keep_pmi_fd(t->job_env, &warnings)) < 0)
                return fail(r, err, size, "PMI_FD", NULL);
        *ret_env = given; /* the library's copy, nobody else's */
        *ret_warnings = TAKE_PTR(warnings);
        return 0;
}
