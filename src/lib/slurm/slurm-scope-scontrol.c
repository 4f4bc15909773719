/* SLURM_SCOPE for scontrol: an allow-list of subcommands, found as scontrol 22.05 finds them
 * (_process_command(), _show_it(), scontrol_update_job(): the first keyword in its order that
 * the word abbreviates, case-insensitively, to its minimum length), and written out in full. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/slurm/slurm-scope-judge.h"
#include "shared/strv.h"

enum action {
        A_REFUSED,
        A_SHOW,
        A_HOLD, /* hold, uhold, release */
        A_REQUEUE,
        A_REQUEUEHOLD,
        A_SUSPEND,
        A_RESUME,
        A_TOP,
        A_WAIT_JOB,
        A_UPDATE,
        A_NOTIFY,
        A_VERSION,
        /* show's entities */
        A_JOB,
        A_STEP,
        A_READ, /* no job data */
        /* update's keys */
        A_JOBID,
        A_NAME,
        A_DEPENDENCY,
        A_FIELD,
        A_NICE,  /* also without "=" */
        A_RESET, /* ResetAccrueTime, only without "=" */
};

struct keyword {
        const char *name;
        unsigned min;
        bool fixed; /* compared over min characters, not MAX(length, min) */
        enum action action;
};

/* _process_command()'s order. */
static const struct keyword subcommands[] = {
    {"abort", 5, false, A_REFUSED},
    {"all", 2, false, A_REFUSED},
    {"cancel_reboot", 3, false, A_REFUSED},
    {"completing", 2, false, A_REFUSED},
    {"cluster", 2, false, A_REFUSED},
    {"create", 2, false, A_REFUSED},
    {"details", 1, false, A_REFUSED},
    {"errnumstr", 2, false, A_REFUSED},
    {"errnostr", 2, false, A_REFUSED},
    {"exit", 2, false, A_REFUSED},
    {"gethost", 7, false, A_REFUSED},
    {"hash_file", 15, false, A_REFUSED},
    {"hash", 9, false, A_REFUSED},
    {"help", 2, false, A_REFUSED},
    {"hide", 2, false, A_REFUSED},
    {"oneliner", 1, false, A_REFUSED},
    {"pidinfo", 3, false, A_REFUSED},
    {"ping", 3, false, A_REFUSED},
    {"\\q", 2, true, A_REFUSED},
    {"quiet", 4, false, A_REFUSED},
    {"quit", 4, false, A_REFUSED},
    {"reboot_nodes", 3, false, A_REFUSED},
    {"reconfigure", 3, false, A_REFUSED},
    {"requeue", 3, false, A_REQUEUE},
    {"requeuehold", 11, true, A_REQUEUEHOLD},
    {"hold", 4, true, A_HOLD},
    {"holdu", 5, true, A_HOLD},
    {"uhold", 5, true, A_HOLD},
    {"release", 3, false, A_HOLD},
    {"suspend", 2, false, A_SUSPEND},
    {"resume", 3, false, A_RESUME},
    {"top", 3, false, A_TOP},
    {"token", 3, false, A_REFUSED},
    {"wait_job", 2, false, A_WAIT_JOB},
    {"setdebugflags", 9, false, A_REFUSED},
    {"fsdampeningfactor", 3, false, A_REFUSED},
    {"fairsharedampeningfactor", 3, false, A_REFUSED},
    {"setdebug", 2, false, A_REFUSED},
    {"schedloglevel", 3, false, A_REFUSED},
    {"show", 3, false, A_SHOW},
    {"write", 5, false, A_REFUSED},
    {"takeover", 8, false, A_REFUSED},
    {"shutdown", 8, false, A_REFUSED},
    {"update", 1, false, A_UPDATE},
    {"delete", 1, false, A_REFUSED},
    {"verbose", 4, false, A_REFUSED},
    {"version", 4, false, A_VERSION},
    {"listpids", 1, false, A_REFUSED},
    {"getent", 6, false, A_REFUSED},
    {"notify", 1, false, A_NOTIFY},
    {"callerid", 3, false, A_REFUSED},
    {NULL, 0, false, 0},
};

/* _show_it()'s order. Refused: the associations' usage and limits (every user's), burst
 * buffers (every user's staging), a node's slurmd (the host's). */
static const struct keyword entities[] = {
    {"aliases", 1, false, A_READ},
    {"bbstat", 2, false, A_REFUSED},
    {"dwstat", 2, false, A_REFUSED},
    {"burstbuffer", 2, false, A_REFUSED},
    {"assoc_mgr", 2, false, A_REFUSED},
    {"cache", 2, false, A_REFUSED},
    {"config", 1, false, A_READ},
    {"daemons", 1, false, A_READ},
    {"Federations", 1, false, A_READ},
    {"FrontendName", 1, false, A_READ},
    {"hostnames", 5, false, A_READ},
    {"hostlist", 5, false, A_READ},
    {"hostlistsorted", 9, false, A_READ},
    {"jobs", 1, false, A_JOB},
    {"jobid", 1, false, A_JOB},
    {"licenses", 2, false, A_READ},
    {"nodes", 1, false, A_READ},
    {"partitions", 2, false, A_READ},
    {"partitionname", 2, false, A_READ},
    {"reservations", 1, false, A_READ},
    {"reservationname", 1, false, A_READ},
    {"slurmd", 2, false, A_REFUSED},
    {"steps", 2, false, A_STEP},
    {"topology", 1, false, A_READ},
    {NULL, 0, false, 0},
};

/* scontrol_update_job()'s order (update_job.c). Refused: what names a host path (StdOut,
 * WorkDir), sends mail out (MailUser), stages files (BurstBuffer), acts as or for another
 * user (UserID) or is the administrator's (AdminComment). */
static const struct keyword update_keys[] = {
    {"JobId", 3, false, A_JOBID},
    {"AdminComment", 6, false, A_REFUSED},
    {"SiteFactor", 5, false, A_FIELD},
    {"ArrayTaskThrottle", 10, false, A_FIELD},
    {"Comment", 3, false, A_FIELD},
    {"Clusters", 8, false, A_FIELD},
    {"ClusterFeatures", 8, false, A_FIELD},
    {"DelayBoot", 5, false, A_FIELD},
    {"TimeLimit", 5, false, A_FIELD},
    {"TimeMin", 5, false, A_FIELD},
    {"Priority", 2, false, A_FIELD},
    {"Nice", 2, false, A_NICE},
    {"CPUsPerTask", 9, false, A_FIELD},
    {"CpusPerTres", 9, false, A_FIELD},
    {"NumCPUs", 6, false, A_FIELD},
    {"NumTasks", 8, false, A_FIELD},
    {"ReqProcs", 8, false, A_FIELD},
    {"Requeue", 4, false, A_FIELD},
    {"ReqNodes", 8, false, A_FIELD},
    {"NumNodes", 8, false, A_FIELD},
    {"ReqSockets", 4, false, A_FIELD},
    {"ReqCores", 4, false, A_FIELD},
    {"TasksPerNode", 2, false, A_FIELD},
    {"ReqThreads", 4, false, A_FIELD},
    {"MinCPUsNode", 4, false, A_FIELD},
    {"MinMemoryNode", 10, false, A_FIELD},
    {"MinMemoryCPU", 10, false, A_FIELD},
    {"MinTmpDiskNode", 5, false, A_FIELD},
    {"Partition", 2, false, A_FIELD},
    {"QOS", 2, false, A_FIELD},
    {"ReservationName", 3, false, A_FIELD},
    {"Name", 2, false, A_NAME},
    {"JobName", 4, false, A_NAME},
    {"WCKey", 1, false, A_FIELD},
    {"StdOut", 6, false, A_REFUSED},
    {"Switches", 5, false, A_FIELD},
    {"wait-for-switch", 5, false, A_FIELD},
    {"OverSubscribe", 2, false, A_FIELD},
    {"Shared", 2, false, A_FIELD},
    {"Contiguous", 3, false, A_FIELD},
    {"CoreSpec", 4, false, A_FIELD},
    {"MemPerTres", 5, false, A_FIELD},
    {"ThreadSpec", 4, false, A_FIELD},
    {"TresBind", 5, false, A_FIELD},
    {"TresFreq", 5, false, A_FIELD},
    {"TresPerJob", 8, false, A_FIELD},
    {"TresPerNode", 8, false, A_FIELD},
    {"TresPerSocket", 8, false, A_FIELD},
    {"TresPerTask", 8, false, A_FIELD},
    {"ExcNodeList", 3, false, A_FIELD},
    {"NodeList", 8, false, A_FIELD},
    {"ReqNodeList", 8, false, A_FIELD},
    {"Features", 1, false, A_FIELD},
    {"Prefer", 3, false, A_FIELD},
    {"Gres", 2, false, A_FIELD},
    {"Account", 1, false, A_FIELD},
    {"BurstBuffer", 1, false, A_REFUSED},
    {"Dependency", 1, false, A_DEPENDENCY},
    {"Licenses", 1, false, A_FIELD},
    {"EligibleTime", 2, false, A_FIELD},
    {"StartTime", 2, false, A_FIELD},
    {"EndTime", 2, false, A_FIELD},
    {"Reboot", 3, false, A_FIELD},
    {"UserID", 3, false, A_REFUSED},
    {"Deadline", 3, false, A_FIELD},
    {"WorkDir", 2, false, A_REFUSED},
    {"MailType", 5, false, A_FIELD},
    {"MailUser", 5, false, A_REFUSED},
    {NULL, 0, false, 0},
};

/* xstrncasecmp(word, name, fixed ? min : MAX(len, min)) == 0, over the whole word as Slurm
 * passes it (for "Key=value" the '=' and the value take part when len < min). */
static const struct keyword *lookup(const struct keyword *t, const char *word, size_t len)
{
        for (const struct keyword *k = t; k->name; k++) {
                size_t n = k->fixed ? k->min : (len > k->min ? len : k->min);
                if (strncasecmp(word, k->name, n) == 0)
                        return k;
        }
        return NULL;
}

static size_t operand(const struct cordon_slurm_judge *J, size_t i)
{
        return J->p.operands[i];
}

static const char *word(const struct cordon_slurm_judge *J, size_t i)
{
        return J->req->argv[J->p.operands[i]];
}

static int emit(struct cordon_slurm_judge *J, const char *s)
{
        return strv_extend(&J->tail, s);
}

/* One job list argument of hold, requeue, suspend, top: scontrol strips "JobID=" and "Job="
 * (requeuehold does not: written out without them, it reads them too). */
static int job_argument(struct cordon_slurm_judge *J, size_t i, bool single)
{
        const char *w = word(J, i);
        if (strncasecmp(w, "JobID=", 6) == 0)
                w += 6;
        if (strncasecmp(w, "Job=", 4) == 0)
                w += 4;
        int r = cordon_slurm_judge_jobs(J, w, false, single, operand(J, i), "the job list");
        if (r < 0)
                return r;
        return emit(J, w);
}

static int needs_words(struct cordon_slurm_judge *J, size_t min, size_t max, const char *sub)
{
        size_t n = J->p.n_operands;
        if (n >= min && n <= max)
                return 0;
        return cordon_slurm_judge_fail_word(
            J, -EINVAL, "scontrol-arguments", operand(J, n < min ? 0 : max),
            "scontrol %s takes %s arguments", sub, n < min ? "more" : "fewer");
}

static int show(struct cordon_slurm_judge *J)
{
        int r = needs_words(J, 2, 3, "show");
        if (r < 0)
                return r;
        const char *tag = word(J, 1), *eq = strchr(tag, '=');
        size_t len = eq ? (size_t)(eq - tag) : strlen(tag);
        const char *val = eq ? eq + 1 : J->p.n_operands == 3 ? word(J, 2) : NULL;
        const struct keyword *k = lookup(entities, tag, len);
        if (!k || k->action == A_REFUSED)
                return cordon_slurm_judge_fail_word(
                    J, -EPERM, "scontrol-refused", operand(J, 1),
                    "scontrol show %s is not available in a sandbox: it %s; allowed: job, "
                    "step, partition, node, reservation, config, licenses, topology, "
                    "hostnames, hostlist, federation, frontend, aliases, daemons",
                    k ? k->name : tag,
                    k ? "shows other users' data or the host's" : "is no entity of scontrol");
        r = emit(J, k->name);
        if (r >= 0 && val)
                r = emit(J, val);
        if (r < 0)
                return r;
        if (k->action == A_READ)
                return 0;
        if (val)
                return cordon_slurm_judge_jobs(J, val, k->action == A_STEP, true,
                                               operand(J, eq ? 1 : 2), "the job");
        if (J->narrow)
                J->filter = CORDON_SLURM_FILTER_SCONTROL;
        return 0;
}

/* parse_requeue_flags(): "Incomplete" (any prefix, also the empty word) or "State=SpecialExit"
 * ("State=SE"). */
static const char *requeue_flag(const char *w)
{
        if (strncasecmp(w, "incomplete", strlen(w)) == 0)
                return "Incomplete";
        if (strncasecmp(w, "state=", 6) == 0 &&
            (strncasecmp(w + 6, "specialexit", 11) == 0 || strncasecmp(w + 6, "se", 2) == 0))
                return "State=SpecialExit";
        return NULL;
}

static int job_lists(struct cordon_slurm_judge *J, enum action a, const char *sub)
{
        int r = needs_words(J, 2, a == A_TOP || a == A_WAIT_JOB ? 2 : SIZE_MAX, sub);
        if (r < 0)
                return r;
        size_t i = 1;
        if (a == A_REQUEUE || a == A_REQUEUEHOLD)
                for (const char *f; i < J->p.n_operands && (f = requeue_flag(word(J, i))); i++) {
                        r = emit(J, f);
                        if (r < 0)
                                return r;
                }
        for (; i < J->p.n_operands; i++) {
                const char *w = word(J, i);
                if (a == A_HOLD &&
                    (strncasecmp(w, "Name=", 5) == 0 || strncasecmp(w, "JobName=", 8) == 0)) {
                        if (J->narrow)
                                return cordon_slurm_judge_fail_word(
                                    J, -EPERM, "name-selection", operand(J, i),
                                    "a job name chooses jobs by criteria, which could reach "
                                    "jobs out of scope (%s): name the job ids",
                                    cordon_slurm_judge_scope_words(J));
                        r = emit(J, w);
                } else
                        r = job_argument(J, i, a == A_WAIT_JOB);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Dependency=TYPE:ID[:ID...][,|?TYPE:...]: every job it names in scope. "singleton" and the
 * empty value name none. */
static int dependency(struct cordon_slurm_judge *J, const char *v, size_t argi)
{
        _cleanup_free_ char *copy = strdup(v);
        if (!copy)
                return -ENOMEM;
        char *save = NULL;
        for (char *part = strtok_r(copy, ",?", &save); part; part = strtok_r(NULL, ",?", &save)) {
                if (strcasecmp(part, "singleton") == 0)
                        continue;
                char *ids = strchr(part, ':');
                if (!ids)
                        return cordon_slurm_judge_fail_word(
                            J, -EINVAL, "job-id-invalid", argi,
                            "'%.100s' is no dependency of the form TYPE:ID[:ID...]", part);
                char *save2 = NULL;
                for (char *id = strtok_r(ids + 1, ":", &save2); id;
                     id = strtok_r(NULL, ":", &save2)) {
                        int r = cordon_slurm_judge_jobs(J, id, false, true, argi, "the dependency");
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* A job name lands in %x of the job's file names (slurm-submit.c's rule). */
static bool name_is_path(const char *v)
{
        return !*v || strchr(v, '/') || streq(v, ".") || streq(v, "..");
}

static int update_word(struct cordon_slurm_judge *J, size_t i, bool first)
{
        const char *w = word(J, i), *eq = strchr(w, '=');
        size_t argi = operand(J, i);
        if (!eq) {
                /* scontrol_update_job() takes only these without "=": any other word takes
                 * the next as its value, which _update_it() reads differently */
                if (!first && strncasecmp(w, "Nice", strlen(w) > 2 ? strlen(w) : 2) == 0)
                        return emit(J, "Nice");
                if (!first && strncasecmp(w, "ResetAccrueTime", strlen(w) > 3 ? strlen(w) : 3) == 0)
                        return emit(J, "ResetAccrueTime");
                return cordon_slurm_judge_fail_word(J, -EINVAL, "update-syntax", argi,
                                                    "write the update as Key=Value words, the "
                                                    "first JobId=ID");
        }
        size_t len = (size_t)(eq - w);
        const char *op = "=";
        if (len > 0 && (eq[-1] == '+' || eq[-1] == '-')) {
                op = eq[-1] == '+' ? "+=" : "-=";
                len--;
        }
        const struct keyword *k = lookup(update_keys, w, len);
        const char *v = eq + 1;
        if (first && (!k || k->action != A_JOBID || op[0] != '='))
                return cordon_slurm_judge_fail_word(J, -EINVAL, "update-syntax", argi,
                                                    "scontrol update's first word must be "
                                                    "JobId=ID: only jobs can be updated here");
        if (!k)
                return cordon_slurm_judge_fail_word(J, -EINVAL, "update-key-unknown", argi,
                                                    "'%.*s' is no job field scontrol updates",
                                                    (int)(len > 100 ? 100 : len), w);
        int r = 0;
        switch (k->action) {
        case A_REFUSED:
                return cordon_slurm_judge_fail_word(
                    J, -EPERM, "update-key-refused", argi,
                    "the job field %s is not available in a sandbox: it names a host path, "
                    "sends mail out, stages files or belongs to another user or the "
                    "administrator",
                    k->name);
        case A_JOBID:
                r = cordon_slurm_judge_jobs(J, v, false, false, argi, "JobId");
                break;
        case A_NAME:
                if (name_is_path(v))
                        return cordon_slurm_judge_fail_word(
                            J, -EPERM, "path-job-name", argi,
                            "a job name with '/', '.', '..' or empty lands in the job's file "
                            "names (%%x)");
                break;
        case A_DEPENDENCY:
                r = dependency(J, v, argi);
                break;
        default:
                break;
        }
        if (r < 0)
                return r;
        return strv_extendf(&J->tail, "%s%s%s", k->name, op, v);
}

static int update(struct cordon_slurm_judge *J)
{
        int r = needs_words(J, 2, SIZE_MAX, "update");
        for (size_t i = 1; r >= 0 && i < J->p.n_operands; i++)
                r = update_word(J, i, i == 1);
        return r;
}

static int notify(struct cordon_slurm_judge *J)
{
        int r = needs_words(J, 3, SIZE_MAX, "notify");
        if (r < 0)
                return r;
        /* scontrol reads the id with atoi(): a plain id only */
        r = cordon_slurm_judge_jobs(J, word(J, 1), false, true, operand(J, 1), "the job");
        if (r < 0)
                return r;
        const char *w = word(J, 1);
        for (const char *c = w; *c; c++)
                if (*c < '0' || *c > '9')
                        return cordon_slurm_judge_fail_word(J, -EINVAL, "job-id-invalid",
                                                            operand(J, 1),
                                                            "scontrol notify takes a plain job id");
        for (size_t i = 1; r >= 0 && i < J->p.n_operands; i++)
                r = emit(J, word(J, i));
        return r;
}

int cordon_slurm_judge_scontrol_words(struct cordon_slurm_judge *J)
{
        /* scontrol stops reading options at a word starting "setdebug" (its flags look like
         * options): a reading of the rest that getopt alone does not give; before getopt */
        for (size_t i = 1; J->req->argv[i]; i++)
                if (strncasecmp(J->req->argv[i], "setdebug", 8) == 0)
                        return cordon_slurm_judge_fail_word(
                            J, -EPERM, "scontrol-refused", i,
                            "scontrol setdebug and setdebugflags are the administrator's");
        return 0;
}

int cordon_slurm_judge_scontrol(struct cordon_slurm_judge *J)
{
        if (J->p.n_operands == 0) {
                if (J->info)
                        return 0;
                return cordon_slurm_judge_fail_word(
                    J, -EPERM, "scontrol-interactive", 0,
                    "scontrol without a command reads commands from its input: give the "
                    "command as arguments");
        }
        const char *tag = word(J, 0);
        const struct keyword *k = lookup(subcommands, tag, strlen(tag));
        if (!k || k->action == A_REFUSED)
                return cordon_slurm_judge_fail_word(
                    J, -EPERM, "scontrol-refused", operand(J, 0),
                    "scontrol %s is not available in a sandbox; allowed: show, hold, uhold, "
                    "release, requeue, requeuehold, suspend, resume, top, wait_job, "
                    "update JobId=, notify, version",
                    k ? k->name : tag);
        const char *name = k->name;
        if (k->action == A_HOLD)
                name = strncasecmp(tag, "holdu", 5) == 0 || strncasecmp(tag, "uhold", 5) == 0
                           ? "uhold"
                       : strncasecmp(tag, "hold", 4) == 0 ? "hold"
                                                          : "release";
        int r = emit(J, name);
        if (r < 0)
                return r;
        switch (k->action) {
        case A_SHOW:
                return show(J);
        case A_UPDATE:
                return update(J);
        case A_NOTIFY:
                return notify(J);
        case A_VERSION:
                return needs_words(J, 1, 1, "version");
        default:
                return job_lists(J, k->action, name);
        }
}
