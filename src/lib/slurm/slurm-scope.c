/* SLURM_SCOPE for squeue, scancel, sstat, sacct, sinfo, sprio, sshare and sacctmgr (scontrol:
 * slurm-scope-scontrol.c): the options judged one by one, then the command written out
 * canonically with what the scope adds (--jobs=LIST, --me, --user=NAME). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/diag.h"
#include "lib/slurm/slurm-scope-judge.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/strv.h"

static void set_rule(struct cordon_slurm_judge *J, const char *rule)
{
        if (J->ret_rule)
                *J->ret_rule = rule;
}

static void option_label(const struct cordon_slurm_scope_option *o, char *buf, size_t size)
{
        if (o->name)
                snprintf(buf, size, "--%s", o->name);
        else
                snprintf(buf, size, "-%c", (char)o->val);
}

int cordon_slurm_judge_fail_use(struct cordon_slurm_judge *J, int r, const char *rule,
                                const struct cordon_slurm_scope_use *u, const char *fmt, ...)
{
        set_rule(J, rule);
        char label[64], what[768];
        option_label(u->option, label, sizeof(label));
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        return cordon_diag_set(J->diag, r, "argv[%zu]: '%.200s' (%s): %s [%s]", u->argi,
                               J->req->argv[u->argi], label, what, rule);
}

int cordon_slurm_judge_fail_word(struct cordon_slurm_judge *J, int r, const char *rule, size_t argi,
                                 const char *fmt, ...)
{
        set_rule(J, rule);
        char what[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        return cordon_diag_set(J->diag, r, "argv[%zu]: '%.200s': %s [%s]", argi, J->req->argv[argi],
                               what, rule);
}

_printf_(4, 5) static int fail_command(struct cordon_slurm_judge *J, int r, const char *rule,
                                       const char *fmt, ...)
{
        set_rule(J, rule);
        char what[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        return cordon_diag_set(J->diag, r, "%s: %s [%s]", cordon_slurm_query_name(J->req->command),
                               what, rule);
}

static int cmp_u32(const void *a, const void *b)
{
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? -1 : x > y;
}

bool cordon_slurm_judge_in_scope(const struct cordon_slurm_judge *J, uint32_t id)
{
        return !J->narrow || (J->n_ids > 0 && bsearch(&id, J->ids, J->n_ids, sizeof(id), cmp_u32));
}

const char *cordon_slurm_judge_scope_words(const struct cordon_slurm_judge *J)
{
        switch (J->req->scope) {
        case CORDON_SLURM_SCOPE_SESSION:
                return "SLURM_SCOPE=session: only the jobs this sandbox session submitted";
        case CORDON_SLURM_SCOPE_PROJECT:
                return "SLURM_SCOPE=project: only the jobs of sandbox sessions of this project";
        default:
                return "SLURM_SCOPE: only the calling user's jobs";
        }
}

int cordon_slurm_judge_jobs(struct cordon_slurm_judge *J, const char *list, bool allow_step,
                            bool single, size_t argi, const char *what)
{
        _cleanup_free_ struct cordon_slurm_job_ref *refs = NULL;
        size_t n = 0, bad_len = 0;
        const char *bad = NULL;
        int r = cordon_slurm_job_list_parse(list, allow_step, &refs, &n, &bad, &bad_len);
        if (r == -E2BIG)
                return cordon_slurm_judge_fail_word(J, r, "too-many-ids", argi,
                                                    "%s names more than %u jobs", what,
                                                    CORDON_SLURM_SCOPE_MAX_LIST_ITEMS);
        if (r == -EINVAL || (r >= 0 && single && n != 1))
                return cordon_slurm_judge_fail_word(
                    J, -EINVAL, "job-id-invalid", argi,
                    "%s: '%.*s' is not %s of the forms 123, 123_4, 123_[1-3], 123_*, 123+1%s "
                    "(an id without leading zeros; no ranges of ids)",
                    what, (int)(bad_len > 200 ? 200 : bad_len), bad,
                    single ? "one job id" : "a list of job ids",
                    allow_step ? ", each with .STEP (a number, batch, extern, interactive)" : "");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (!cordon_slurm_judge_in_scope(J, refs[i].id))
                        return cordon_slurm_judge_fail_word(
                            J, -EPERM, "job-out-of-scope", argi,
                            "%s names job %u, which is not in scope (%s): name a job of the "
                            "scope, or change SLURM_SCOPE",
                            what, refs[i].id, cordon_slurm_judge_scope_words(J));
        return 0;
}

static bool is_own(const struct cordon_slurm_judge *J, const char *item, size_t len)
{
        const char *user = J->req->user;
        if (strlen(user) == len && strncmp(item, user, len) == 0)
                return true;
        char uid[16];
        int l = snprintf(uid, sizeof(uid), "%u", (unsigned)J->req->uid);
        return (size_t)l == len && strncmp(item, uid, len) == 0;
}

/* A list of users or uids, each the caller (Slurm splits at ','; "-1" is sacct's and sshare's
 * "every user"). */
static int judge_users(struct cordon_slurm_judge *J, const struct cordon_slurm_scope_use *u)
{
        const char *v = u->value;
        size_t items = 0;
        for (;;) {
                const char *e = strchrnul(v, ',');
                if (++items > CORDON_SLURM_SCOPE_MAX_LIST_ITEMS)
                        return cordon_slurm_judge_fail_use(J, -E2BIG, "too-many-users", u,
                                                           "more users than the limit");
                if (!is_own(J, v, (size_t)(e - v)))
                        return cordon_slurm_judge_fail_use(
                            J, -EPERM, "foreign-user", u,
                            "'%.*s' is not the calling user (%s, uid %u): a sandbox sees and "
                            "touches only its user's jobs; leave the option out",
                            (int)((e - v) > 100 ? 100 : (e - v)), v, J->req->user,
                            (unsigned)J->req->uid);
                if (!*e)
                        return 0;
                v = e + 1;
        }
}

/* The use written out so that getopt reads it back the same, whatever follows it. */
static int emit_use(char ***l, const struct cordon_slurm_scope_use *u)
{
        const struct cordon_slurm_scope_option *o = u->option;
        if (o->name)
                return u->value ? strv_extendf(l, "--%s=%s", o->name, u->value)
                                : strv_extendf(l, "--%s", o->name);
        int r = strv_extendf(l, "-%c", (char)o->val);
        if (r >= 0 && u->value)
                /* a short-only option's value as a word of its own: an empty one attached
                 * would make getopt take the next word */
                r = strv_extend(l, u->value);
        return r;
}

static bool job_command(enum cordon_slurm_query q)
{
        return q != CORDON_SLURM_SINFO && q != CORDON_SLURM_SSHARE;
}

static int judge_uses(struct cordon_slurm_judge *J)
{
        enum cordon_slurm_query q = J->req->command;
        bool steps_ok = q == CORDON_SLURM_SACCT || q == CORDON_SLURM_SSTAT;
        int r;
        for (size_t i = 0; i < J->p.n_uses; i++) {
                const struct cordon_slurm_scope_use *u = &J->p.uses[i];
                const struct cordon_slurm_scope_option *o = u->option;
                char label[64];
                option_label(o, label, sizeof(label));
                switch (o->kind) {
                case CORDON_SCOPE_PASS:
                case CORDON_SCOPE_ME:
                        break;
                case CORDON_SCOPE_INFO:
                        J->info = true;
                        break;
                case CORDON_SCOPE_NOJOBS:
                        J->nojobs = true;
                        break;
                case CORDON_SCOPE_NOHEADER:
                        J->noheader = true;
                        break;
                case CORDON_SCOPE_PARSABLE:
                        J->parsable = true;
                        break;
                case CORDON_SCOPE_SCRIPT:
                        J->script = true;
                        break;
                case CORDON_SCOPE_STRUCTURED:
                        J->structured = true;
                        J->structured_use = u;
                        break;
                case CORDON_SCOPE_VERBOSE:
                        J->verbose = true;
                        J->verbose_use = u;
                        break;
                case CORDON_SCOPE_USER:
                        r = judge_users(J, u);
                        if (r < 0)
                                return r;
                        break;
                case CORDON_SCOPE_ALL_USERS:
                        return cordon_slurm_judge_fail_use(
                            J, -EPERM, "all-users", u,
                            "%s shows every user's %s; a sandbox sees only its user's: leave "
                            "it out",
                            label, q == CORDON_SLURM_SSHARE ? "shares" : "jobs");
                case CORDON_SCOPE_JOBS:
                case CORDON_SCOPE_STEPS:
                        if (!u->value) {
                                if (o->kind == CORDON_SCOPE_JOBS)
                                        J->jobs_flag = true;
                                else
                                        J->steps_flag = true;
                                break;
                        }
                        r = cordon_slurm_judge_jobs(J, u->value,
                                                    steps_ok || o->kind == CORDON_SCOPE_STEPS,
                                                    false, u->argi, label);
                        if (r < 0)
                                return r;
                        if (o->kind == CORDON_SCOPE_JOBS)
                                J->user_jobs = true;
                        else
                                J->steps_flag = true;
                        break;
                case CORDON_SCOPE_CLUSTER:
                        if (J->narrow && job_command(q))
                                return cordon_slurm_judge_fail_use(
                                    J, -EPERM, "cluster-in-scope", u,
                                    "job ids are a cluster's own, and the jobs in scope are "
                                    "this cluster's (%s): leave %s out",
                                    cordon_slurm_judge_scope_words(J), label);
                        break;
                case CORDON_SCOPE_ITERATE:
                        if (J->narrow)
                                return cordon_slurm_judge_fail_use(
                                    J, -EPERM, "iterate-in-scope", u,
                                    "the jobs in scope are fixed when the command starts, so "
                                    "jobs submitted later would never show (%s): run the "
                                    "command again instead",
                                    cordon_slurm_judge_scope_words(J));
                        break;
                case CORDON_SCOPE_REFUSED:
                        return cordon_slurm_judge_fail_use(J, -EPERM, "option-refused", u, "%s",
                                                           o->why);
                }
                if (o->val == 'l' && q == CORDON_SLURM_SQUEUE)
                        J->long_list = true;
                r = emit_use(&J->out, u);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int no_operands(struct cordon_slurm_judge *J)
{
        if (J->p.n_operands > 0)
                return cordon_slurm_judge_fail_word(
                    J, -EINVAL, "unexpected-operand", J->p.operands[0],
                    "%s takes no operand here (Slurm would refuse it or read it in a way not "
                    "modelled)",
                    cordon_slurm_query_name(J->req->command));
        return 0;
}

static int add_tail(struct cordon_slurm_judge *J, size_t argi)
{
        return strv_extend(&J->tail, J->req->argv[argi]);
}

/* --jobs=LIST of every id in scope. squeue reads a list of one id as "load that job", which
 * fails once the job is gone: the one id goes in twice, for the filtering of every job. */
static int add_job_list(struct cordon_slurm_judge *J)
{
        size_t size = J->n_ids * 11 + 16;
        _cleanup_free_ char *s = malloc(size);
        if (!s)
                return -ENOMEM;
        size_t n = (size_t)snprintf(s, size, "--jobs=");
        for (size_t i = 0; i < J->n_ids; i++)
                n += (size_t)snprintf(s + n, size - n, "%s%u", i ? "," : "", J->ids[i]);
        if (J->n_ids == 1 && J->req->command == CORDON_SLURM_SQUEUE)
                snprintf(s + n, size - n, ",%u", J->ids[0]);
        return strv_consume(&J->out, TAKE_PTR(s));
}

/* A narrow scope that lists no job and a command that would list jobs: the caller prints
 * the command's header only. */
static int header_only(struct cordon_slurm_judge *J, unsigned lines)
{
        if (J->structured || J->verbose)
                return cordon_slurm_judge_fail_use(
                    J, -EPERM, "empty-scope-output",
                    J->structured ? J->structured_use : J->verbose_use,
                    "no job is in scope yet (%s), and with this option the output for no "
                    "jobs cannot be told apart from the user's other jobs: leave it out",
                    cordon_slurm_judge_scope_words(J));
        J->filter = CORDON_SLURM_FILTER_HEADER_ONLY;
        J->header_lines = J->noheader ? 0 : lines;
        return 0;
}

/* The operand of squeue and sprio: the job list when --jobs was given without a value, else
 * (squeue) the step list when --steps was. Written out as --jobs=V or --steps=V after the
 * options, where it has the same effect (it replaces the list), so that a --jobs the scope adds
 * cannot turn a step list into a job list. */
static int judge_list_operand(struct cordon_slurm_judge *J, bool steps_ok)
{
        size_t n = J->p.n_operands;
        bool jobs = J->jobs_flag || J->user_jobs;
        if (n > 1 || (n == 1 && !jobs && !(steps_ok && J->steps_flag)))
                return cordon_slurm_judge_fail_word(
                    J, -EINVAL, "unexpected-operand", J->p.operands[n > 1 ? 1 : 0],
                    "%s takes one operand, and only after --jobs%s without a value",
                    cordon_slurm_query_name(J->req->command), steps_ok ? " or --steps" : "");
        if (n == 0)
                return 0;
        const char *v = J->req->argv[J->p.operands[0]];
        int r = cordon_slurm_judge_jobs(J, v, !jobs, false, J->p.operands[0], "the operand");
        if (r < 0)
                return r;
        J->user_jobs = J->user_jobs || jobs;
        return strv_extendf(&J->out, "--%s=%s", jobs ? "jobs" : "steps", v);
}

/* squeue: the jobs in scope by --jobs, the user's own by --me (last: it replaces -u). */
static int judge_squeue(struct cordon_slurm_judge *J)
{
        int r = judge_list_operand(J, true);
        if (r < 0)
                return r;
        if (J->narrow && !J->user_jobs && !J->info) {
                r = J->n_ids == 0 ? header_only(J, J->long_list ? 2 : 1) : add_job_list(J);
                if (r < 0)
                        return r;
        }
        return strv_extend(&J->out, "--me");
}

/* sprio: as squeue, but it has no --me: --user=NAME (last: it replaces -u). */
static int judge_sprio(struct cordon_slurm_judge *J)
{
        int r = judge_list_operand(J, false);
        if (r < 0)
                return r;
        if (J->narrow && !J->user_jobs && !J->info && !J->nojobs) {
                r = J->n_ids == 0 ? header_only(J, 1) : add_job_list(J);
                if (r < 0)
                        return r;
        }
        return strv_extendf(&J->out, "--user=%s", J->req->user);
}

/* sacct: always --user=NAME (sacct adds -u lists up, and every one was the caller). */
static int judge_sacct(struct cordon_slurm_judge *J)
{
        int r = no_operands(J);
        if (r < 0)
                return r;
        if (J->narrow && !J->user_jobs && !J->info) {
                r = J->n_ids == 0 ? header_only(J, J->script     ? 0
                                                   : J->parsable ? 1
                                                                 : 2)
                                  : add_job_list(J);
                if (r < 0)
                        return r;
        }
        return strv_extendf(&J->out, "--user=%s", J->req->user);
}

/* sstat: the jobs by -j or the operand; a narrow scope needs them. */
static int judge_sstat(struct cordon_slurm_judge *J)
{
        for (size_t i = 0; i < J->p.n_operands; i++) {
                size_t a = J->p.operands[i];
                int r = cordon_slurm_judge_jobs(J, J->req->argv[a], true, false, a, "the operand");
                if (r < 0)
                        return r;
                J->user_jobs = true;
                r = add_tail(J, a);
                if (r < 0)
                        return r;
        }
        if (J->narrow && !J->user_jobs && !J->info)
                return fail_command(J, -EPERM, "jobs-required",
                                    "sstat without job ids (%s): name the jobs with --jobs",
                                    cordon_slurm_judge_scope_words(J));
        return 0;
}

/* scancel: the operands are the jobs; every one in scope. Without one, the criteria choose
 * the jobs, which a narrow scope cannot restrict: refused. --user=NAME always (with ids, a
 * filter: an operator's account then still cancels only its own). */
static int judge_scancel(struct cordon_slurm_judge *J)
{
        for (size_t i = 0; i < J->p.n_operands; i++) {
                size_t a = J->p.operands[i];
                int r = cordon_slurm_judge_jobs(J, J->req->argv[a], true, false, a, "the operand");
                if (r < 0)
                        return r;
                r = add_tail(J, a);
                if (r < 0)
                        return r;
        }
        if (J->narrow && J->p.n_operands == 0 && !J->info)
                return fail_command(J, -EPERM, "criteria-cancel",
                                    "scancel without job ids chooses the jobs by criteria, which "
                                    "could reach jobs out of scope (%s): name the job ids",
                                    cordon_slurm_judge_scope_words(J));
        return strv_extendf(&J->out, "--user=%s", J->req->user);
}

static int check_request(const struct cordon_slurm_scope_request *req)
{
        if (!req || (unsigned)req->command >= _CORDON_SLURM_QUERY_MAX ||
            (unsigned)req->scope >= _CORDON_SLURM_SCOPE_MAX || !req->argv || !req->argv[0] ||
            !req->user || !req->user[0] || strchr(req->user, ',') || strchr(req->user, '=') ||
            (req->n_ids > 0 && !req->ids))
                return -EINVAL;
        return 0;
}

static int copy_ids(struct cordon_slurm_judge *J)
{
        const struct cordon_slurm_scope_request *req = J->req;
        if (!J->narrow)
                return 0;
        if (req->n_ids > CORDON_SLURM_SCOPE_MAX_IDS)
                return fail_command(J, -E2BIG, "too-many-ids",
                                    "more jobs in scope than the limit (%u)",
                                    CORDON_SLURM_SCOPE_MAX_IDS);
        J->ids = malloc((req->n_ids ?: 1) * sizeof(uint32_t));
        if (!J->ids)
                return -ENOMEM;
        if (req->n_ids > 0)
                memcpy(J->ids, req->ids, req->n_ids * sizeof(uint32_t));
        qsort(J->ids, req->n_ids, sizeof(uint32_t), cmp_u32);
        size_t n = 0;
        for (size_t i = 0; i < req->n_ids; i++)
                if (n == 0 || J->ids[n - 1] != J->ids[i])
                        J->ids[n++] = J->ids[i];
        J->n_ids = n;
        return 0;
}

static int judge(struct cordon_slurm_judge *J)
{
        const struct cordon_slurm_scope_request *req = J->req;
        if (req->command == CORDON_SLURM_SACCTMGR)
                return fail_command(J, -EPERM, "sacctmgr-refused",
                                    "sacctmgr is not available in a sandbox: it reads and changes "
                                    "the accounting database's users, accounts and limits, the "
                                    "site's and every user's; run it outside the sandbox");
        int r = copy_ids(J);
        if (r < 0)
                return r;
        if (req->command == CORDON_SLURM_SCONTROL) {
                r = cordon_slurm_judge_scontrol_words(J);
                if (r < 0)
                        return r;
        }
        r = cordon_slurm_scope_getopt(req->command, req->argv, &J->p, J->ret_rule, J->diag);
        if (r < 0)
                return r;
        r = strv_extend(&J->out, req->argv[0]);
        if (r < 0)
                return r;
        r = judge_uses(J);
        if (r < 0)
                return r;
        switch (req->command) {
        case CORDON_SLURM_SQUEUE:
                return judge_squeue(J);
        case CORDON_SLURM_SCANCEL:
                return judge_scancel(J);
        case CORDON_SLURM_SCONTROL:
                return cordon_slurm_judge_scontrol(J);
        case CORDON_SLURM_SSTAT:
                return judge_sstat(J);
        case CORDON_SLURM_SACCT:
                return judge_sacct(J);
        case CORDON_SLURM_SPRIO:
                return judge_sprio(J);
        case CORDON_SLURM_SINFO:
        case CORDON_SLURM_SSHARE:
                return no_operands(J);
        default:
                return -EINVAL;
        }
}

int cordon_slurm_scope_check(const struct cordon_slurm_scope_request *req,
                             struct cordon_slurm_scope_result *ret, const char **ret_rule,
                             struct cordon_diag *diag)
{
        if (check_request(req) < 0 || !ret)
                return -EINVAL;
        struct cordon_slurm_judge J = {
            .req = req,
            .narrow = req->scope == CORDON_SLURM_SCOPE_SESSION ||
                      req->scope == CORDON_SLURM_SCOPE_PROJECT,
            .ret_rule = ret_rule,
            .diag = diag,
        };
        int r = judge(&J);
        if (r >= 0 && J.tail) {
                r = strv_extend(&J.out, "--");
                if (r >= 0)
                        r = strv_extend_strv(&J.out, J.tail);
        }
        cordon_slurm_scope_parsed_clear(&J.p);
        strv_free(J.tail);
        free(J.ids);
        if (r < 0) {
                strv_free(J.out);
                return r;
        }
        *ret = (struct cordon_slurm_scope_result){
            .argv = J.out, .filter = J.filter, .header_lines = J.header_lines};
        return 0;
}

void cordon_slurm_scope_result_clear(struct cordon_slurm_scope_result *r)
{
        if (!r)
                return;
        strv_free(r->argv);
        *r = (struct cordon_slurm_scope_result){0};
}
