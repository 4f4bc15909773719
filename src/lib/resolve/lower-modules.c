/* SANDBOX_MODULES: Lmod modules loaded before the sandbox starts, for dependencies of the
 * sandbox (a newer tool only reachable through `module load`). A child bash sources Lmod's init,
 * loads each module and prints its environment (env -0); the PATH-like variables the modules
 * changed are carried into the sandbox's environment (and so into the lookup of the command).
 * Lmod absent: one note line and the sandbox starts without them (a configuration shared with
 * a machine that has no Lmod). Lmod present and a module that does not load: refused, naming
 * the module.
 *
 * The child is confined (confined-child.h), because a module file is code and MODULEPATH may
 * name a directory an earlier sandbox could write (~/modulefiles with HOME_ACCESS=write, one in
 * the project): a module planted there runs at the next start, and must find nothing writable,
 * no network, and only the system, Lmod and the MODULEPATH directories to read. What it prints
 * still shapes the next sandbox's environment (the carried variables below): it may put a
 * directory the sandbox can write first on PATH, which concerns only that sandbox, and it sees
 * only the environment that sandbox gets, so it has nothing of the host's to hand over. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/launch/confined-child.h"
#include "lib/mech/host-program.h"
#include "lib/policy/diag.h"
#include "lib/resolve/env-filter.h"
#include "lib/resolve/lower-internal.h"
#include "lib/settings/settings.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define MODULES_TIMEOUT_MS 30000
#define MODULES_OUTPUT_MAX (4u << 20)
#define MODULES_STDERR_MAX (64u << 10)
#define MODULES_PIDS       64

static void policy_freep(struct cordon_policy **p)
{
        cordon_policy_free(*p);
}

/* Where Lmod's init is looked for, in order (the spec's list). */
static const char *const lmod_inits[] = {
    "/etc/profile.d/lmod.sh",
    "/usr/share/lmod/lmod/init/sh",
    "/app/lmod/lmod/init/sh",
};

/* The bash program: $1 the init ("" when `module` came as a function in the environment), the
 * modules after it. Exit 97: the init failed; 98: a module did not load (its name on stdout
 * after "\0FAIL\0"). */
static const char lmod_script[] =
    "[ -z \"$1\" ] || . \"$1\" >/dev/null 2>&1 || exit 97\n"
    "shift\n"
    "for m; do module load \"$m\" >/dev/null 2>&1 || { printf '\\0FAIL\\0%s' \"$m\"; exit 98; }; "
    "done\n"
    "exec env -0\n";

/* What the modules may change that is carried in: search paths and Lmod's own bookkeeping,
 * plus the *_ROOT and EasyBuild EBROOT and EBVERSION variables modules set for builds. */
static bool carried(const char *name, size_t len)
{
        static const char *const names[] = {
            "PATH",         "LD_LIBRARY_PATH", "MANPATH",    "PKG_CONFIG_PATH", "CPATH",
            "LIBRARY_PATH", "PYTHONPATH",      "MODULEPATH", "LOADEDMODULES",   "_LMFILES_",
        };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
                        return true;
        if (len > 5 && strncmp(name + len - 5, "_ROOT", 5) == 0)
                return true;
        return (len > 6 && strncmp(name, "EBROOT", 6) == 0) ||
               (len > 9 && strncmp(name, "EBVERSION", 9) == 0);
}

static const char *env_get(char *const *envp, const char *name, size_t len)
{
        for (char *const *e = envp; e && *e; e++)
                if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
                        return *e + len + 1;
        return NULL;
}

/* The init to source: CORDON_LMOD_INIT from the environment (for tests: an init of another
 * path), else the first of lmod_inits[] that exists; "" when `module` is a function exported in
 * the environment already; NULL when there is no Lmod. *@ret_variable: what chose it.
 *
 * The init chooses what the child runs (confined, but its output shapes the sandbox's
 * environment), so it is held to the host-program rule (host-program.h) wherever it comes
 * from, CORDON_LMOD_INIT included: root's, in directories only root can write. The environment may
 * name it as the command line may: both are the caller's own shell's, which no sandbox writes (its
 * start-up files, ~/.bashrc and ~/.profile, are HOME_READONLY, and a sandbox that could write them
 * would run code on the host anyway); the files a sandbox could have planted (sandbox.conf, conf.d)
 * cannot name a program at all (config-load.c). The function `module` exported in the environment
 * is that shell's too. */
static const char *find_init(char *const *envp, const char **ret_variable)
{
        const char *o = env_get(envp, "CORDON_LMOD_INIT", strlen("CORDON_LMOD_INIT"));
        *ret_variable = "SANDBOX_MODULES";
        if (o && *o) {
                *ret_variable = "CORDON_LMOD_INIT";
                return o;
        }
        for (size_t i = 0; i < ELEMENTSOF(lmod_inits); i++)
                if (access(lmod_inits[i], R_OK) == 0)
                        return lmod_inits[i];
        return env_get(envp, "BASH_FUNC_module%%", strlen("BASH_FUNC_module%%")) ? "" : NULL;
}

/* The variables naming Lmod's installation and the module trees, in the caller's environment
 * (its shell's, like the init): their directories are readable in the child. A file names
 * its directory; LMOD_CMD (<pkg>/libexec/lmod) names the package. */
static const char *const lmod_dirs[] = {"LMOD_PKG", "LMOD_DIR", "MODULEPATH_ROOT",
                                        "LMOD_PACKAGE_PATH"};
static const char *const lmod_files[] = {"LMOD_CMD", "LMOD_RC"};

/* At most this many directories in the view (a MODULEPATH is a handful). */
#define MODULES_DIRS_MAX 64

/* The child's read-only view as it is built: the policy, the homes it must not show, what is
 * left of the budget. */
struct view {
        struct cordon_policy *p;
        const char *homes[2]; /* host realpaths; NULL: none */
        size_t budget;
        struct cordon_diag *diag;
};

/* Adds @dir (named by @variable), optional. Refused: a directory that holds the home, where a
 * module could read the user's keys and print them into the sandbox's environment. */
static int grant(struct view *v, const char *dir, const char *variable)
{
        if (v->budget == 0)
                return 0;
        v->budget--;
        _cleanup_free_ char *real = realpath(dir, NULL);
        if (!real)
                return errno == ENOMEM ? -ENOMEM : 0; /* missing: nothing to show */
        for (size_t i = 0; i < ELEMENTSOF(v->homes); i++)
                if (v->homes[i] && path_is_below(v->homes[i], real))
                        return cordon_diag_set(v->diag, -EPERM,
                                               "SANDBOX_MODULES: %s names '%s', which holds the "
                                               "home directory: the modules would read all of it "
                                               "(and could hand it to the sandbox); name the "
                                               "directory of the module files instead",
                                               variable, dir);
        int r = cordon_confined_add_ro(v->p, dir, true, "SANDBOX_MODULES");
        /* ".." in it: left out, as a missing directory. */
        return r == -EINVAL ? 0 : r;
}

/* Adds the directory of @path, and its parent where the directory is named @up ("init" of
 * <pkg>/init/bash, "libexec" of <pkg>/libexec/lmod: the package). */
static int grant_dir_of(struct view *v, const char *path, const char *up, const char *variable)
{
        _cleanup_free_ char *dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return 0;
        *slash = 0;
        int r = grant(v, dir, variable);
        if (r < 0)
                return r;
        slash = strrchr(dir, '/');
        if (slash && slash != dir && streq(slash + 1, up)) {
                *slash = 0;
                r = grant(v, dir, variable);
        }
        return r;
}

/* Adds each absolute entry of the ':'-separated @list. */
static int grant_list(struct view *v, const char *list, const char *variable)
{
        for (const char *e = list; e && *e;) {
                size_t n = strcspn(e, ":");
                if (n > 0 && e[0] == '/') {
                        _cleanup_free_ char *dir = strndup(e, n);
                        if (!dir)
                                return -ENOMEM;
                        int r = grant(v, dir, variable);
                        if (r < 0)
                                return r;
                }
                e += n + (e[n] == ':');
        }
        return 0;
}

/* The child's policy: the system, Lmod (the init's directory and package, the LMOD_*
 * variables'), the module trees (MODULEPATH, MODULEPATH_ROOT), all read-only; the environment
 * the sandbox would get (the rules of @l, before SANDBOX_ENV), plus LMOD_SHORT_TIME so that
 * Lmod never writes a user spider cache (~/.cache/lmod, ~/.lmod.d: neither writable nor
 * visible here). */
static int build_policy(struct lower *l, const char *init, const struct cordon_confined_limits *lim,
                        struct cordon_policy **ret)
{
        char *const *envp = l->h->envp;
        struct cordon_env_rules filter = l->p->env_rules;
        filter.set = (struct cordon_list){0};
        _cleanup_strv_free_ char **env = NULL;
        size_t n_blocked = 0;
        int r = cordon_env_filter(&filter, envp, &env, &n_blocked);
        if (r < 0)
                return r;
        size_t n = 0;
        for (char **e = env; e && *e; e++)
                if (strncmp(*e, "LMOD_SHORT_TIME=", 16) != 0)
                        env[n++] = *e;
                else
                        free(*e);
        if (env)
                env[n] = NULL;
        if (strv_extend(&env, "LMOD_SHORT_TIME=86400") < 0)
                return -ENOMEM;
        _cleanup_(policy_freep) struct cordon_policy *p = NULL;
        if ((r = cordon_confined_policy_new(CORDON_BACKEND_AUTO, env, lim, "SANDBOX_MODULES", &p)) <
            0)
                return r;
        struct view v = {
            .p = p,
            .homes = {l->home_real, l->account_home_real},
            .budget = MODULES_DIRS_MAX,
            .diag = l->diag,
        };
        if (*init) {
                if ((r = grant_dir_of(&v, init, "init", "the Lmod init")) < 0)
                        return r;
                _cleanup_free_ char *real = realpath(init, NULL);
                if (real && !streq(real, init) &&
                    (r = grant_dir_of(&v, real, "init", "the Lmod init")) < 0)
                        return r;
        }
        for (size_t i = 0; i < ELEMENTSOF(lmod_dirs); i++)
                if ((r = grant_list(&v, env_get(envp, lmod_dirs[i], strlen(lmod_dirs[i])),
                                    lmod_dirs[i])) < 0)
                        return r;
        for (size_t i = 0; i < ELEMENTSOF(lmod_files); i++) {
                const char *f = env_get(envp, lmod_files[i], strlen(lmod_files[i]));
                if (f && f[0] == '/' && (r = grant_dir_of(&v, f, "libexec", lmod_files[i])) < 0)
                        return r;
        }
        if ((r = grant_list(&v, env_get(envp, "MODULEPATH", strlen("MODULEPATH")), "MODULEPATH")) <
            0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

int cordon_lower_modules(struct lower *l, struct cordon_list *set)
{
        const struct cordon_list *modules = &l->s->sandbox_modules;
        if (modules->n == 0)
                return 0;
        char *const *envp = l->h->envp;
        const char *variable = NULL;
        const char *init = find_init(envp, &variable);
        const char *first_origin = modules->items ? modules->items[0].origin : "";
        if (!init) {
                char list[512] = "";
                CORDON_LIST_FOREACH (it, modules)
                        if (strlen(list) + strlen(it->value) + 3 < sizeof(list))
                                strcat(strcat(list, *list ? ", " : ""), it->value);
                return cordon_lower_warn(l,
                                         "SANDBOX_MODULES (%s, from %s): Lmod was not found "
                                         "(/etc/profile.d/lmod.sh, /usr/share/lmod/lmod/init/sh, "
                                         "/app/lmod/lmod/init/sh, or a module function); "
                                         "starting without them",
                                         list, first_origin);
        }
        /* The init is opened as host-program.h says and then sourced by its path in the child:
         * only root can change what that path names. */
        _cleanup_close_ int init_fd = -EBADF;
        int r;
        if (*init && (r = cordon_host_program_open(init, variable, &init_fd, l->diag)) < 0)
                return r;
        init_fd = safe_close(init_fd);
        const char *bash = cordon_confined_bash();
        if (!bash)
                return cordon_diag_set(l->diag, -ENOENT,
                                       "SANDBOX_MODULES: Lmod is loaded by bash, and there is no "
                                       "/bin/bash");
        static const struct cordon_confined_limits lim = {
            .timeout_usec = MODULES_TIMEOUT_MS * 1000ULL,
            .out_max = MODULES_OUTPUT_MAX,
            .err_max = MODULES_STDERR_MAX,
            .pids = MODULES_PIDS,
        };
        _cleanup_(policy_freep) struct cordon_policy *p = NULL;
        if ((r = build_policy(l, init, &lim, &p)) == -EPERM)
                return r;
        if (r < 0)
                return cordon_diag_set(l->diag, r,
                                       "SANDBOX_MODULES: cannot build the policy of the child "
                                       "that loads the modules: %s",
                                       strerror(-r));
        _cleanup_strv_free_ char **argv = NULL;
        if (strv_extend(&argv, bash) < 0 || strv_extend(&argv, "--noprofile") < 0 ||
            strv_extend(&argv, "--norc") < 0 || strv_extend(&argv, "-c") < 0 ||
            strv_extend(&argv, lmod_script) < 0 || strv_extend(&argv, "cordon-lmod") < 0 ||
            strv_extend(&argv, init) < 0)
                return -ENOMEM;
        CORDON_LIST_FOREACH (it, modules)
                if (strv_extend(&argv, it->value) < 0)
                        return -ENOMEM;
        _cleanup_(cordon_confined_output_clear) struct cordon_confined_output o = {0};
        struct cordon_diag d = {0};
        r = cordon_confined_run(p, argv, &lim, "the child that loads the modules", &o, &d);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "SANDBOX_MODULES: running Lmod (%s) failed: %s",
                                       *init ? init : "module function", d.message);
        if (o.timed_out || o.out_over || o.err_over)
                return cordon_diag_set(l->diag, o.timed_out ? -ETIMEDOUT : -EFBIG,
                                       "SANDBOX_MODULES: running Lmod (%s) failed: %s",
                                       *init ? init : "module function",
                                       o.timed_out  ? "it did not finish within 30 seconds"
                                       : o.out_over ? "it printed more than 4 MiB"
                                                    : "it wrote more than 64 KiB of messages");
        const char *out = o.out;
        size_t len = o.out_len;
        /* Exit 98: a module did not load; 97 or anything else: the init failed. */
        if (o.status == 98) {
                const char *m = NULL;
                for (size_t i = 0; i + 6 <= len; i++)
                        if (memcmp(out + i, "\0FAIL\0", 6) == 0)
                                m = out + i + 6;
                const char *origin = first_origin;
                CORDON_LIST_FOREACH (it, modules)
                        if (m && streq(it->value, m))
                                origin = it->origin;
                return cordon_diag_set(l->diag, -ENOENT,
                                       "SANDBOX_MODULES entry '%s' (from %s) could not be loaded "
                                       "with Lmod (%s); refusing to start without it",
                                       strempty(m), origin, *init ? init : "module function");
        }
        if (o.status != 0)
                return cordon_diag_set(l->diag, -EIO,
                                       "SANDBOX_MODULES: sourcing Lmod's init '%s' failed "
                                       "(status %d)",
                                       init, o.status);
        for (const char *e = out; e < out + len; e += strlen(e) + 1) {
                const char *eq = strchr(e, '=');
                if (!eq || eq == e)
                        continue;
                size_t n = (size_t)(eq - e);
                if (!carried(e, n))
                        continue;
                const char *before = env_get(envp, e, n);
                if (before && streq(before, eq + 1))
                        continue;
                if ((r = cordon_list_add(set, e, "SANDBOX_MODULES")) < 0)
                        return r;
        }
        return 0;
}
