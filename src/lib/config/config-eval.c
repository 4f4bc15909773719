/* Evaluating the configuration files in one confined bash child (see config-eval.h).
 *
 * Why the dumps can be trusted as far as they need to be: the child runs the admin files first
 * (both root's) and dumps their values before any user code runs, and the parser (config-load.c)
 * reads the sections in order, so the admin sections are complete before a user file could print
 * anything.
 * User code runs in the same shell as the dumps after it and could forge or break them (redefine
 * `builtin`, print markers, exit early); that only forges the values of its own layer and those
 * after it, which are the same user's files, or breaks the dump, which is a refusal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config/config-eval.h"
#include "lib/policy/diag.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* @v in single quotes. */
static void put_quoted(FILE *f, const char *v)
{
        fputc('\'', f);
        for (const char *p = v; *p; p++)
                if (*p == '\'')
                        fputs("'\\''", f);
                else
                        fputc(*p, f);
        fputc('\'', f);
}

static void put_dump(FILE *f, size_t layer, const char *status)
{
        fprintf(f,
                "builtin printf '" CORDON_CONFIG_MARK_LAYER "%zu %%s\\n' %s\n"
                "builtin declare -p",
                layer, status);
        for (size_t i = 0; i < cordon_vars_count; i++)
                fprintf(f, " %s", cordon_vars[i].name);
        fputs(" 2>/dev/null\n", f);
}

char *cordon_config_script(const char *home, size_t n_files, size_t n_admin)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        /* The file names cannot be changed by a file. */
        fputs("declare -ar __cordon_f=(\"$@\")\n", f);
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                fprintf(f, "%s=", v->name);
                if (v->type == CORDON_VAR_LIST) {
                        fputc('(', f);
                        for (const char *const *d = v->defaults; d && *d; d++) {
                                const char *val = *d;
                                if (streq(val, "$HOME")) {
                                        if (!home || home[0] != '/')
                                                continue;
                                        val = home;
                                }
                                put_quoted(f, val);
                                fputc(' ', f);
                        }
                        fputc(')', f);
                } else
                        put_quoted(f, v->defaults && v->defaults[0] ? v->defaults[0] : "");
                fputc('\n', f);
        }
        put_dump(f, 0, "0");
        for (size_t k = 1; k <= n_files; k++) {
                /* An admin file's output is discarded, and anything on its stderr refuses; a
                 * user file's output is shown as a warning. */
                fprintf(f,
                        "builtin printf '\\n" CORDON_CONFIG_MARK_STDERR "%zu\\n' >&2\n"
                        "builtin source -- \"${__cordon_f[%zu]}\" %s\n"
                        /* A file may have left set -e, -u, -x, traps or IFS behind: undone
                         * before the dump, with every output of the undoing (a trace, a DEBUG
                         * trap's own output, which would land in the dump) sent nowhere. */
                        "{ __cordon_st=$?; builtin set +xveuo pipefail; "
                        "builtin trap - ERR DEBUG RETURN EXIT; } >/dev/null 2>&1\n",
                        k, k - 1, k <= n_admin ? ">/dev/null" : ">&2");
                put_dump(f, k, "\"$__cordon_st\"");
        }
        fputs("builtin printf '" CORDON_CONFIG_MARK_END "\\n'\nbuiltin exit 0\n", f);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

static void policy_freep(struct cordon_policy **p)
{
        cordon_policy_free(*p);
}

/* The child's policy (confined-child.h): the system, the directories holding the files, and
 * HOME, _PROJECT_DIR and PATH (for the SANDBOX_ENV+=("PATH=/x:${PATH}") idiom) as its whole
 * environment. */
static int build_policy(const struct cordon_config_eval_args *a,
                        const struct cordon_confined_limits *lim, struct cordon_policy **ret)
{
        _cleanup_strv_free_ char **env = NULL;
        char *var = NULL;
        if (a->home && (asprintf(&var, "HOME=%s", a->home) < 0 || strv_consume(&env, var) < 0))
                return -ENOMEM;
        if (asprintf(&var, "_PROJECT_DIR=%s", strempty(a->project_dir)) < 0 ||
            strv_consume(&env, var) < 0)
                return -ENOMEM;
        if (asprintf(&var, "PATH=%s", a->path_env ? a->path_env : "/usr/local/bin:/usr/bin:/bin") <
                0 ||
            strv_consume(&env, var) < 0)
                return -ENOMEM;
        _cleanup_(policy_freep) struct cordon_policy *p = NULL;
        int r = cordon_confined_policy_new(a->backend, env, lim, "config", &p);
        if (r < 0)
                return r;
        for (size_t i = 0; i < a->n; i++) {
                _cleanup_free_ char *dir = strdup(a->paths[i]);
                if (!dir)
                        return -ENOMEM;
                char *slash = strrchr(dir, '/');
                if (!slash)
                        return -EINVAL;
                if (slash == dir)
                        slash[1] = 0;
                else
                        *slash = 0;
                if ((r = cordon_confined_add_ro(p, dir, false, "config")) < 0)
                        return r;
        }
        *ret = TAKE_PTR(p);
        return 0;
}

int cordon_config_eval(const struct cordon_config_eval_args *a, struct cordon_confined_output *ret,
                       struct cordon_diag *diag)
{
        const char *bash = cordon_confined_bash();
        if (!bash)
                return cordon_diag_set(diag, -ENOENT,
                                       "the configuration files are bash, and there is no "
                                       "/bin/bash to read them");
        _cleanup_free_ char *script =
            a->script ? strdup(a->script) : cordon_config_script(a->default_home, a->n, a->n_admin);
        if (!script)
                return -ENOMEM;
        static const struct cordon_confined_limits lim = {
            .timeout_usec = CORDON_CONFIG_EVAL_TIMEOUT_USEC,
            .out_max = CORDON_CONFIG_EVAL_STDOUT_MAX,
            .err_max = CORDON_CONFIG_EVAL_STDERR_MAX,
            .pids = CORDON_CONFIG_EVAL_PIDS,
        };
        _cleanup_(policy_freep) struct cordon_policy *p = NULL;
        int r = build_policy(a, &lim, &p);
        if (r < 0)
                return cordon_diag_set(diag, r, "cannot build the configuration child's policy: %s",
                                       strerror(-r));
        _cleanup_free_ char **argv = calloc(a->n + 7, sizeof(*argv));
        if (!argv)
                return -ENOMEM;
        size_t k = 0;
        char bash_arg[16], noprofile[] = "--noprofile", norc[] = "--norc", c[] = "-c",
                           name[] = "cordon-config";
        snprintf(bash_arg, sizeof(bash_arg), "%s", bash);
        argv[k++] = bash_arg;
        argv[k++] = noprofile;
        argv[k++] = norc;
        argv[k++] = c;
        argv[k++] = script;
        argv[k++] = name;
        for (size_t i = 0; i < a->n; i++)
                argv[k++] = a->paths[i];
        return cordon_confined_run(p, argv, &lim, "the child that reads the configuration files",
                                   ret, diag);
}
