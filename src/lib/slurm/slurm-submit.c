/* Judging a parsed Slurm submission against the sandbox's policy: every option that would read,
 * write or run something on a host outside the policy is refused, naming the option as written,
 * where it was written, and the rule (ARCHITECTURE.md, "Slurm submissions"). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/policy/diag.h"
#include "lib/resolve/env-filter.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

struct checker {
        const struct cordon_slurm_submit *s;
        const struct cordon_slurm_policy *p;
        char **bases;         /* where a relative path may be resolved from: cwd, each --chdir */
        bool job_name_unsafe; /* some --job-name would put a '/' or ".." into a %x file name */
        const char **ret_rule;
        struct cordon_diag *diag;
};

_printf_(5, 6) static int refuse(struct checker *C, const struct cordon_slurm_use *u, size_t argi,
                                 const char *rule, const char *fmt, ...)
{
        if (C->ret_rule)
                *C->ret_rule = rule;
        if (!C->diag)
                return -EPERM;
        char where[64], what[768];
        if (u && u->line)
                snprintf(where, sizeof(where), "script line %u", u->line);
        else
                snprintf(where, sizeof(where), "argv[%zu]", u ? u->argi : argi);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        if (u)
                return cordon_diag_set(C->diag, -EPERM, "%s: '%s' (--%s): %s [%s]", where,
                                       u->spelling, u->option->name, what, rule);
        return cordon_diag_set(C->diag, -EPERM, "%s: '%s': %s [%s]", where, C->s->argv[argi], what,
                               rule);
}

/* Joins @path to @base (unless absolute) and removes ".", ".." and empty components without
 * looking at the file system. Sets *ret_pattern_dotdot when a ".." removes a component holding
 * a '%' pattern: what it expands to decides what ".." removes. */
static int normalize(const char *base, const char *path, char **ret, bool *ret_pattern_dotdot)
{
        _cleanup_free_ char *full = path[0] == '/' ? strdup(path) : path_join(base, path);
        if (!full)
                return -ENOMEM;
        char *out = malloc(strlen(full) + 2);
        if (!out)
                return -ENOMEM;
        size_t n = 0;
        *ret_pattern_dotdot = false;
        for (char *save = NULL, *c = strtok_r(full, "/", &save); c;
             c = strtok_r(NULL, "/", &save)) {
                if (streq(c, "."))
                        continue;
                if (streq(c, "..")) {
                        size_t at = n;
                        while (at > 0 && out[at - 1] != '/')
                                at--;
                        if (at > 0 && memchr(out + at, '%', n - at))
                                *ret_pattern_dotdot = true;
                        n = at > 0 ? at - 1 : 0;
                        continue;
                }
                out[n++] = '/';
                size_t l = strlen(c);
                memcpy(out + n, c, l);
                n += l;
        }
        if (n == 0)
                out[n++] = '/';
        out[n] = 0;
        *ret = out;
        return 0;
}

static bool below_list(const char *path, const struct cordon_list *l)
{
        if (!l)
                return false;
        CORDON_LIST_FOREACH (it, l) {
                _cleanup_free_ char *root = NULL;
                bool dummy;
                if (normalize("/", it->value, &root, &dummy) >= 0 && path_is_below(path, root))
                        return true;
        }
        return false;
}

static bool path_allowed(const struct checker *C, const char *path, bool write)
{
        _cleanup_free_ char *project = NULL;
        bool dummy;
        if (C->p->project_dir && C->p->project_dir[0] == '/' &&
            normalize("/", C->p->project_dir, &project, &dummy) >= 0 &&
            path_is_below(path, project))
                return true;
        return below_list(path, C->p->write_roots) ||
               (!write && below_list(path, C->p->read_roots));
}

/* True when @s holds Slurm's %x (the job name), also with a width ("%10x"). */
static bool has_job_name_pattern(const char *s)
{
        for (const char *p = s; (p = strchr(p, '%'));) {
                p++;
                if (*p == '%') {
                        p++;
                        continue;
                }
                while (*p >= '0' && *p <= '9')
                        p++;
                if (*p == 'x')
                        return true;
        }
        return false;
}

/* Judges the path @value of @u (or of the operand argv[@argi]) against every base it might be
 * resolved from (only @cwd_only's first base for --chdir itself). */
static int check_path(struct checker *C, const struct cordon_slurm_use *u, size_t argi,
                      const char *value, bool write, bool cwd_only)
{
        if (C->job_name_unsafe && has_job_name_pattern(value))
                return refuse(C, u, argi, "path-job-name",
                              "'%s' holds %%x, and a job name holds '/' or is \"..\"", value);
        STRV_FOREACH (b, C->bases) {
                _cleanup_free_ char *path = NULL;
                bool pattern_dotdot;
                int r = normalize(*b, value, &path, &pattern_dotdot);
                if (r < 0)
                        return r;
                if (pattern_dotdot)
                        return refuse(C, u, argi, "path-pattern-dotdot",
                                      "'..' after a '%%' pattern in '%s'", value);
                if (!path_allowed(C, path, write))
                        return refuse(C, u, argi, write ? "path-not-writable" : "path-not-readable",
                                      "%s '%s' lies outside the project and the %s roots",
                                      value[0] == '/' ? "the path" : "resolved, the path", path,
                                      write ? "writable" : "readable");
                if (C->p->recheck_path && (r = C->p->recheck_path(C->p->userdata, path, write)) < 0)
                        return r == -ENOMEM ? r
                               : r == -ELOOP
                                   ? refuse(C, u, argi, "path-link",
                                            "'%s' passes through a symbolic link on the host, "
                                            "which Slurm would follow outside the sandbox",
                                            path)
                                   : refuse(C, u, argi, "path-link",
                                            "'%s' cannot be used as it is on the host: %s", path,
                                            strerror(-r));
                if (value[0] == '/' || cwd_only)
                        break;
        }
        return 0;
}

static bool env_name_blocked(const struct cordon_slurm_policy *p, const char *name)
{
        if (p->blocked_env && cordon_list_find(p->blocked_env, name))
                return true;
        if (p->blocked_env_pat)
                CORDON_LIST_FOREACH (it, p->blocked_env_pat) {
                        if (cordon_env_pattern_matches(it->value, name))
                                return true;
                }
        return false;
}

/* --export=ALL|NONE|NIL|NAME[=VALUE],... (Slurm splits the list on ','). */
static int check_export(struct checker *C, const struct cordon_slurm_use *u)
{
        static const char *const slurm_prefixes[] = {"SLURM_", "SBATCH_", "SALLOC_", "SRUN_",
                                                     "SPANK_"};
        _cleanup_free_ char *list = strdup(u->value);
        if (!list)
                return -ENOMEM;
        unsigned n = 0;
        for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
             t = strtok_r(NULL, ",", &save)) {
                if (++n > CORDON_SLURM_MAX_EXPORT_NAMES)
                        return refuse(C, u, 0, "export-too-long",
                                      "more variables than the limit of %u",
                                      CORDON_SLURM_MAX_EXPORT_NAMES);
                if (strcasecmp(t, "ALL") == 0 || strcasecmp(t, "NONE") == 0 ||
                    strcasecmp(t, "NIL") == 0)
                        continue;
                char *eq = strchr(t, '=');
                if (eq)
                        *eq = 0;
                if (!cordon_env_name_is_valid(t, strlen(t)))
                        return refuse(C, u, 0, "export-not-a-name",
                                      "'%s' in the list is no variable name", t);
                if (env_name_blocked(C->p, t))
                        return refuse(C, u, 0, "export-blocked",
                                      "the sandbox blocks the variable %s", t);
                for (size_t i = 0; i < ELEMENTSOF(slurm_prefixes); i++)
                        if (startswith(t, slurm_prefixes[i]))
                                return refuse(C, u, 0, "export-slurm-variable",
                                              "%s is read by Slurm's commands as an option, "
                                              "past this check",
                                              t);
        }
        /* sbatch: anything but "ALL" makes the node add the user's login environment
         * (SLURM_GET_USER_ENV, as --get-user-env). */
        if (C->s->command == CORDON_SLURM_SBATCH && strcasecmp(u->value, "ALL") != 0 &&
            !C->p->job_env_filtered)
                return refuse(C, u, 0, "export-login-environment",
                              "'%s' makes the node add the user's login environment, which holds "
                              "the variables the sandbox blocks",
                              u->value);
        return 0;
}

static bool srun_task_spec(const char *v)
{
        if (strcasecmp(v, "none") == 0 || strcasecmp(v, "all") == 0)
                return true;
        if (!*v)
                return false;
        for (const char *p = v; *p; p++)
                if (*p < '0' || *p > '9')
                        return false;
        return true;
}

static int check_use(struct checker *C, const struct cordon_slurm_use *u)
{
        const struct cordon_slurm_option *o = u->option;
        switch (o->rule) {
        case CORDON_SLURM_RULE_REFUSED:
                return refuse(C, u, 0, "option-refused", "%s", o->why);
        case CORDON_SLURM_RULE_WRITE_PATH:
                return check_path(C, u, 0, u->value, true, false);
        case CORDON_SLURM_RULE_READ_PATH:
                return check_path(C, u, 0, u->value, false, false);
        case CORDON_SLURM_RULE_CHDIR:
                return check_path(C, u, 0, u->value, false, true);
        case CORDON_SLURM_RULE_STDIO:
                if (C->s->command != CORDON_SLURM_SRUN)
                        return check_path(C, u, 0, u->value, !streq(o->name, "input"), false);
                /* slurmstepd opens a step's files by path as the step starts, outside any
                 * sandbox, after this check: a link swapped in meanwhile would lead it out of
                 * the project. A batch job's are given another way (the chaperon's
                 * redirects); a step's stay with the command. */
                if (srun_task_spec(u->value))
                        return 0;
                return refuse(C, u, 0, "stdio-file",
                              "srun would open this file outside the sandbox, after this check, "
                              "where a link put in its place leads anywhere: redirect inside the "
                              "command instead (srun sh -c 'CMD > FILE')");
        case CORDON_SLURM_RULE_NODELIST:
                return strchr(u->value, '/') ? check_path(C, u, 0, u->value, false, false) : 0;
        case CORDON_SLURM_RULE_EXPORT:
                return check_export(C, u);
        case CORDON_SLURM_RULE_BCAST:
                if (!u->value)
                        return refuse(C, u, 0, "bcast-destination",
                                      "the file would be copied to a directory the site "
                                      "chooses: name a destination");
                return check_path(C, u, 0, u->value, true, false);
        case CORDON_SLURM_RULE_NONE:
        case CORDON_SLURM_RULE_MULTI_PROG:
        case CORDON_SLURM_RULE_JOB_NAME:
        case CORDON_SLURM_RULE_NO_SHELL:
        case CORDON_SLURM_RULE_IGNORE_PBS:
        case CORDON_SLURM_RULE_WRAP:
                return 0;
        }
        return 0;
}

static const struct cordon_slurm_use *find_rule(const struct cordon_slurm_submit *s,
                                                enum cordon_slurm_rule rule)
{
        for (size_t i = 0; i < s->n_uses; i++)
                if (s->uses[i].option->rule == rule)
                        return &s->uses[i];
        return NULL;
}

/* What the operands (script, command) and the script's other directives ask for. */
static int check_operands(struct checker *C)
{
        const struct cordon_slurm_submit *s = C->s;
        int r;
        switch (s->command) {
        case CORDON_SLURM_SALLOC:
                /* salloc runs its command (or the user's shell) on the submitting host, after
                 * the allocation: outside the sandbox. */
                if (s->n_operands > 0)
                        return refuse(C, NULL, s->operands[0], "salloc-command",
                                      "salloc would run the command on the submitting host, "
                                      "outside the sandbox");
                if (!find_rule(s, CORDON_SLURM_RULE_NO_SHELL))
                        return refuse(C, NULL, 0, "salloc-shell",
                                      "salloc without --no-shell runs a shell on the "
                                      "submitting host, outside the sandbox");
                return 0;
        case CORDON_SLURM_SRUN: {
                /* With --multi-prog the command is a configuration file srun reads, with
                 * --bcast an executable it reads and copies: both on the submitting host. */
                bool multi = find_rule(s, CORDON_SLURM_RULE_MULTI_PROG),
                     bcast = find_rule(s, CORDON_SLURM_RULE_BCAST);
                if (!multi && !bcast)
                        return 0;
                for (size_t i = 0; i < s->n_operands; i++) {
                        const char *cmd = s->argv[s->operands[i]];
                        if (!multi && !strchr(cmd, '/'))
                                return refuse(C, NULL, s->operands[i], "bcast-command",
                                              "with --bcast the command is read on the "
                                              "submitting host: name it by its path%s",
                                              "");
                        r = check_path(C, NULL, s->operands[i], cmd, false, false);
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        case CORDON_SLURM_SBATCH:
                if (s->pbs_line && !find_rule(s, CORDON_SLURM_RULE_IGNORE_PBS)) {
                        if (C->ret_rule)
                                *C->ret_rule = "script-translated-directive";
                        return cordon_diag_set(C->diag, -EPERM,
                                               "script line %u: sbatch translates #PBS and "
                                               "#BSUB lines into options this check does not "
                                               "read: remove them or add --ignore-pbs "
                                               "[script-translated-directive]",
                                               s->pbs_line);
                }
                if (s->bb_line) {
                        if (C->ret_rule)
                                *C->ret_rule = "script-burst-buffer";
                        return cordon_diag_set(C->diag, -EPERM,
                                               "script line %u: a burst buffer directive (#BB, "
                                               "#DW) stages files with the user's rights, "
                                               "outside the policy [script-burst-buffer]",
                                               s->bb_line);
                }
                return 0;
        case _CORDON_SLURM_COMMAND_MAX:
                break;
        }
        return 0;
}

int cordon_slurm_submit_check(const struct cordon_slurm_submit *s,
                              const struct cordon_slurm_policy *p, const char *cwd,
                              const char **ret_rule, struct cordon_diag *diag)
{
        if (!s || !p || !cwd || cwd[0] != '/')
                return -EINVAL;
        _cleanup_strv_free_ char **bases = NULL;
        _cleanup_free_ char *ncwd = NULL;
        bool dummy;
        int r = normalize("/", cwd, &ncwd, &dummy);
        if (r < 0 || (r = strv_extend(&bases, ncwd)) < 0)
                return r;
        struct checker C = {.s = s, .p = p, .ret_rule = ret_rule, .diag = diag};
        for (size_t i = 0; i < s->n_uses; i++) {
                const struct cordon_slurm_use *u = &s->uses[i];
                if (u->option->rule == CORDON_SLURM_RULE_CHDIR) {
                        _cleanup_free_ char *d = NULL;
                        r = normalize(ncwd, u->value, &d, &dummy);
                        if (r < 0 || (r = strv_extend(&bases, d)) < 0)
                                return r;
                }
                if (u->option->rule == CORDON_SLURM_RULE_JOB_NAME &&
                    (strchr(u->value, '/') || streq(u->value, "..") || streq(u->value, ".") ||
                     !u->value[0]))
                        C.job_name_unsafe = true;
        }
        C.bases = bases;
        for (size_t i = 0; i < s->n_uses; i++) {
                r = check_use(&C, &s->uses[i]);
                if (r < 0)
                        return r;
        }
        return check_operands(&C);
}
