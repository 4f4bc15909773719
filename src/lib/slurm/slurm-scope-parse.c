/* The option tables of squeue, scancel, scontrol, sstat, sacct, sinfo, sprio and sshare as
 * Slurm 22.05 gives them to getopt_long (each command's long_options[] and optstring), glibc
 * getopt_long's reading of a command line with them (permuting: options anywhere, "--" ends
 * them), and Slurm's job id lists. Written from Slurm's source, not copied. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/diag.h"
#include "lib/slurm/slurm-scope.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "shared/strv.h"

#define NO  CORDON_SLURM_ARG_NONE
#define REQ CORDON_SLURM_ARG_REQUIRED
#define OPT CORDON_SLURM_ARG_OPTIONAL

#define O(name, val, arg, kind)                                                                    \
        {                                                                                          \
                name, val, arg, CORDON_SCOPE_##kind, NULL                                          \
        }
#define REFUSE(name, val, arg, why)                                                                \
        {                                                                                          \
                name, val, arg, CORDON_SCOPE_REFUSED, why                                          \
        }
#define END                                                                                        \
        {                                                                                          \
                NULL, 0, 0, 0, NULL                                                                \
        }

/* Long-only options: getopt's val is an OPT_LONG_* constant of the command; here 256 + n,
 * the same n where Slurm uses the same constant (aliases getopt takes as one). */
#define L(n) (256 + (n))

/* src/squeue/opts.c */
static const struct cordon_slurm_scope_option squeue_options[] = {
    O("accounts", 'A', REQ, PASS),
    O("all", 'a', NO, PASS), /* hidden partitions, not other users */
    O("array", 'r', NO, PASS),
    O("array-unique", L(1), NO, PASS),
    O("Format", 'O', REQ, PASS),
    O("format", 'o', REQ, PASS),
    O("federation", L(2), NO, PASS),
    O("help", L(3), NO, INFO),
    O("hide", L(4), NO, PASS),
    O("iterate", 'i', REQ, ITERATE),
    O("jobs", 'j', OPT, JOBS),
    O("local", L(5), NO, PASS),
    O("long", 'l', NO, PASS),
    O("licenses", 'L', REQ, PASS),
    O("cluster", 'M', REQ, CLUSTER),
    O("clusters", 'M', REQ, CLUSTER),
    O("me", L(6), NO, ME),
    O("name", 'n', REQ, PASS),
    O("noconvert", L(7), NO, PASS),
    O("node", 'w', REQ, PASS),
    O("nodes", 'w', REQ, PASS),
    O("nodelist", 'w', REQ, PASS),
    O("noheader", 'h', NO, NOHEADER),
    O("partitions", 'p', REQ, PASS),
    O("priority", 'P', NO, PASS),
    O("qos", 'q', REQ, PASS),
    O("reservation", 'R', REQ, PASS),
    O("sib", L(8), NO, PASS),
    O("sibling", L(8), NO, PASS),
    O("sort", 'S', REQ, PASS),
    O("start", L(9), NO, PASS),
    O("steps", 's', OPT, STEPS),
    O("states", 't', REQ, PASS),
    O("usage", L(10), NO, INFO),
    O("user", 'u', REQ, USER),
    O("users", 'u', REQ, USER),
    O("verbose", 'v', NO, VERBOSE),
    O("version", 'V', NO, INFO),
    O("json", L(11), NO, STRUCTURED),
    O("yaml", L(12), NO, STRUCTURED),
    O(NULL, 'U', REQ, PASS), /* accounts, "backwards compatibility" */
    END,
};

/* src/scancel/opt.c */
static const struct cordon_slurm_scope_option scancel_options[] = {
    O("account", 'A', REQ, PASS),
    O("batch", 'b', NO, PASS),
    O("ctld", L(1), NO, PASS),
    O("full", 'f', NO, PASS),
    O("help", L(2), NO, INFO),
    O("hurry", 'H', NO, PASS),
    O("interactive", 'i', NO, PASS),
    O("cluster", 'M', REQ, CLUSTER),
    O("clusters", 'M', REQ, CLUSTER),
    O("jobname", 'n', REQ, PASS),
    O("me", L(3), NO, ME),
    O("name", 'n', REQ, PASS),
    O("nodelist", 'w', REQ, PASS),
    O("partition", 'p', REQ, PASS),
    O("qos", 'q', REQ, PASS),
    O("quiet", 'Q', NO, PASS),
    O("reservation", 'R', REQ, PASS),
    O("sibling", L(4), REQ, PASS),
    O("signal", 's', REQ, PASS),
    O("state", 't', REQ, PASS),
    O("usage", L(5), NO, INFO),
    O("user", 'u', REQ, USER),
    O("verbose", 'v', NO, PASS),
    O("version", 'V', NO, INFO),
    O("wckey", L(6), REQ, PASS),
    END,
};

/* src/scontrol/scontrol.c, main() */
static const struct cordon_slurm_scope_option scontrol_options[] = {
    O("all", 'a', NO, PASS),
    O("cluster", 'M', REQ, CLUSTER),
    O("clusters", 'M', REQ, CLUSTER),
    O("details", 'd', NO, PASS),
    O("federation", L(1), NO, PASS),
    O("future", 'F', NO, PASS),
    O("help", 'h', NO, INFO),
    O("hide", L(2), NO, PASS),
    O("local", L(3), NO, PASS),
    O("oneliner", 'o', NO, PASS),
    O("quiet", 'Q', NO, PASS),
    O("sibling", L(4), NO, PASS),
    O("uid", 'u', REQ, USER),
    O("usage", 'h', NO, INFO),
    O("verbose", 'v', NO, PASS),
    O("version", 'V', NO, INFO),
    END,
};

/* src/sstat/options.c ("usage" sets a flag: getopt's val 3 with a flag pointer, an option of
 * its own for the prefix rule) */
static const struct cordon_slurm_scope_option sstat_options[] = {
    O("allsteps", 'a', NO, PASS), O("helpformat", 'e', NO, INFO),   O("help", 'h', NO, INFO),
    O("jobs", 'j', REQ, JOBS),    O("noheader", 'n', NO, NOHEADER), O("fields", 'o', REQ, PASS),
    O("format", 'o', REQ, PASS),  O("noconvert", L(1), NO, PASS),   O("pidformat", 'i', NO, PASS),
    O("parsable", 'p', NO, PASS), O("parsable2", 'P', NO, PASS),    O("usage", L(99), NO, INFO),
    O("verbose", 'v', NO, PASS),  O("version", 'V', NO, INFO),      END,
};

/* src/sacct/options.c */
static const struct cordon_slurm_scope_option sacct_options[] = {
    O("allusers", 'a', NO, ALL_USERS),
    O("accounts", 'A', REQ, PASS),
    O("allocations", 'X', NO, PASS),
    O("brief", 'b', NO, PASS),
    O("batch-script", 'B', NO, SCRIPT),
    O("completion", 'c', NO, PASS),
    O("constraints", 'C', REQ, PASS),
    O("delimiter", L(1), REQ, PASS),
    O("duplicates", 'D', NO, PASS),
    O("federation", L(2), NO, PASS),
    O("helpformat", 'e', NO, INFO),
    O("help-fields", 'e', NO, INFO),
    O("endtime", 'E', REQ, PASS),
    O("env-vars", L(3), NO, SCRIPT),
    REFUSE("file", 'f', REQ,
           "it reads a job completion file on the host, a path outside the policy, and "
           "every user's jobs in it"),
    O("flags", 'F', REQ, PASS),
    O("gid", 'g', REQ, PASS),
    O("group", 'g', REQ, PASS),
    O("help", 'h', NO, INFO),
    O("local", L(4), NO, PASS),
    O("name", L(5), REQ, PASS),
    O("nnodes", 'i', REQ, PASS),
    O("ncpus", 'I', REQ, PASS),
    O("jobs", 'j', REQ, JOBS),
    O("timelimit-min", 'k', REQ, PASS),
    O("timelimit-max", 'K', REQ, PASS),
    O("long", 'l', NO, PASS),
    O("allclusters", 'L', NO, CLUSTER),
    O("cluster", 'M', REQ, CLUSTER),
    O("clusters", 'M', REQ, CLUSTER),
    O("nodelist", 'N', REQ, PASS),
    O("noconvert", L(6), NO, PASS),
    O("units", L(7), REQ, PASS),
    O("noheader", 'n', NO, NOHEADER),
    O("fields", 'o', REQ, PASS),
    O("format", 'o', REQ, PASS),
    O("parsable", 'p', NO, PARSABLE),
    O("parsable2", 'P', NO, PARSABLE),
    O("qos", 'q', REQ, PASS),
    O("partition", 'r', REQ, PASS),
    O("reason", 'R', REQ, PASS),
    O("state", 's', REQ, PASS),
    O("starttime", 'S', REQ, PASS),
    O("truncate", 'T', NO, PASS),
    O("uid", 'u', REQ, USER),
    O("use-local-uid", L(8), NO, PASS),
    O("usage", 'U', NO, INFO),
    O("user", 'u', REQ, USER),
    O("verbose", 'v', NO, PASS),
    O("version", 'V', NO, INFO),
    O("wckeys", 'W', REQ, PASS),
    O("whole-hetjob", L(9), OPT, PASS),
    O("associations", 'x', REQ, PASS),
    O("json", L(10), NO, STRUCTURED),
    O("yaml", L(11), NO, STRUCTURED),
    O(NULL, 't', NO, PASS), /* deprecated -X */
    END,
};

/* src/sinfo/opts.c: nodes and partitions, no job's data */
static const struct cordon_slurm_scope_option sinfo_options[] = {
    O("all", 'a', NO, PASS),        O("dead", 'd', NO, PASS),
    O("exact", 'e', NO, PASS),      O("federation", L(1), NO, PASS),
    O("help", L(2), NO, INFO),      O("hide", L(3), NO, PASS),
    O("iterate", 'i', REQ, PASS),   O("local", L(4), NO, PASS),
    O("long", 'l', NO, PASS),       O("cluster", 'M', REQ, PASS),
    O("clusters", 'M', REQ, PASS),  O("nodes", 'n', REQ, PASS),
    O("noconvert", L(5), NO, PASS), O("noheader", 'h', NO, PASS),
    O("Node", 'N', NO, PASS),       O("format", 'o', REQ, PASS),
    O("Format", 'O', REQ, PASS),    O("partition", 'p', REQ, PASS),
    O("responding", 'r', NO, PASS), O("list-reasons", 'R', NO, PASS),
    O("summarize", 's', NO, PASS),  O("sort", 'S', REQ, PASS),
    O("states", 't', REQ, PASS),    O("reservation", 'T', NO, PASS),
    O("usage", L(6), NO, INFO),     O("verbose", 'v', NO, PASS),
    O("version", 'V', NO, INFO),    O("json", L(7), NO, PASS),
    O("yaml", L(8), NO, PASS),      END,
};

/* src/sprio/opts.c */
static const struct cordon_slurm_scope_option sprio_options[] = {
    O("noheader", 'h', NO, NOHEADER),
    O("jobs", 'j', OPT, JOBS),
    O("long", 'l', NO, PASS),
    O("cluster", 'M', REQ, CLUSTER),
    O("clusters", 'M', REQ, CLUSTER),
    O("norm", 'n', NO, PASS),
    O("format", 'o', REQ, PASS),
    O("sort", 'S', REQ, PASS),
    O("partition", 'p', REQ, PASS),
    O("user", 'u', REQ, USER),
    O("users", 'u', REQ, USER),
    O("verbose", 'v', NO, VERBOSE),
    O("version", 'V', NO, INFO),
    O("weights", 'w', NO, NOJOBS),
    O("federation", L(1), NO, PASS),
    O("help", L(2), NO, INFO),
    O("local", L(3), NO, PASS),
    O("sib", L(4), NO, PASS),
    O("sibling", L(4), NO, PASS),
    O("usage", L(5), NO, INFO),
    END,
};

/* src/sshare/sshare.c (its optstring's -q and -t fall to sshare's "getopt error": left out,
 * so refused as unknown) */
static const struct cordon_slurm_scope_option sshare_options[] = {
    O("accounts", 'A', REQ, PASS),
    O("all", 'a', NO, ALL_USERS),
    O("helpformat", 'e', NO, INFO),
    O("long", 'l', NO, PASS),
    O("partition", 'm', NO, PASS),
    O("cluster", 'M', REQ, PASS),
    O("clusters", 'M', REQ, PASS),
    O("noheader", 'n', NO, PASS),
    O("format", 'o', REQ, PASS),
    O("parsable", 'p', NO, PASS),
    O("parsable2", 'P', NO, PASS),
    O("users", 'u', REQ, USER),
    O("Users", 'U', NO, PASS),
    O("verbose", 'v', NO, PASS),
    O("version", 'V', NO, INFO),
    O("help", L(1), NO, INFO),
    O("usage", L(2), NO, INFO),
    O(NULL, 'h', NO, PASS), /* no header */
    END,
};

static const struct {
        const char *name;
        const struct cordon_slurm_scope_option *table;
        const char *optstring;
} commands[_CORDON_SLURM_QUERY_MAX] = {
    [CORDON_SLURM_SQUEUE] = {"squeue", squeue_options,
                             "A:ahi:j::lL:n:M:O:o:p:Pq:R:rs::S:t:u:U:vVw:"},
    [CORDON_SLURM_SCANCEL] = {"scancel", scancel_options, "A:bfHiM:n:p:Qq:R:s:t:u:vVw:"},
    [CORDON_SLURM_SCONTROL] = {"scontrol", scontrol_options, "adhM:FoQu:vV"},
    [CORDON_SLURM_SSTAT] = {"sstat", sstat_options, "aehij:no:pPvV"},
    [CORDON_SLURM_SACCT] = {"sacct", sacct_options,
                            "aA:bBcC:DeE:f:F:g:hi:I:j:k:K:lLM:nN:o:pPq:r:s:S:Ttu:UvVW:x:X"},
    [CORDON_SLURM_SINFO] = {"sinfo", sinfo_options, "adehi:lM:n:No:O:p:rRsS:t:TvV"},
    [CORDON_SLURM_SPRIO] = {"sprio", sprio_options, "hj::lM:no:S:p:u:vVw"},
    /* Slurm's is "aA:ehlM:no:pPqUu:t:vVm"; without q and t (above) */
    [CORDON_SLURM_SSHARE] = {"sshare", sshare_options, "aA:ehlM:no:pPUu:vVm"},
    [CORDON_SLURM_SACCTMGR] = {"sacctmgr", NULL, NULL},
};

const char *cordon_slurm_query_name(enum cordon_slurm_query q)
{
        return (unsigned)q < _CORDON_SLURM_QUERY_MAX ? commands[q].name : NULL;
}

const char *cordon_slurm_scope_name(enum cordon_slurm_scope s)
{
        static const char *const names[] = {"session", "project", "user", "none"};
        return (unsigned)s < ELEMENTSOF(names) ? names[s] : NULL;
}

const struct cordon_slurm_scope_option *cordon_slurm_scope_table(enum cordon_slurm_query command,
                                                                 const char **ret_optstring)
{
        if ((unsigned)command >= _CORDON_SLURM_QUERY_MAX)
                return NULL;
        if (ret_optstring)
                *ret_optstring = commands[command].optstring;
        return commands[command].table;
}

void cordon_slurm_scope_parsed_clear(struct cordon_slurm_scope_parsed *p)
{
        for (size_t i = 0; i < p->n_uses; i++) {
                free(p->uses[i].spelling);
                free(p->uses[i].value);
        }
        free(p->uses);
        free(p->operands);
        *p = (struct cordon_slurm_scope_parsed){0};
}

struct getopt_state {
        enum cordon_slurm_query command;
        char *const *argv;
        struct cordon_slurm_scope_parsed *p;
        const char **ret_rule;
        struct cordon_diag *diag;
};

_printf_(5, 6) static int fail(struct getopt_state *G, int r, const char *rule, size_t argi,
                               const char *fmt, ...)
{
        if (G->ret_rule)
                *G->ret_rule = rule;
        char what[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        return cordon_diag_set(G->diag, r, "argv[%zu]: %s [%s]", argi, what, rule);
}

/* glibc: an exact name wins; else one prefix match, or several with the same has_arg and val
 * (flag is NULL in every table here but sstat's "usage", whose val is its own). */
static const struct cordon_slurm_scope_option *find_long(const struct cordon_slurm_scope_option *t,
                                                         const char *name, size_t len,
                                                         bool *ret_ambiguous)
{
        const struct cordon_slurm_scope_option *found = NULL;
        bool ambiguous = false;
        *ret_ambiguous = false;
        for (const struct cordon_slurm_scope_option *o = t; o->val; o++) {
                if (!o->name || strncmp(o->name, name, len) != 0)
                        continue;
                if (strlen(o->name) == len)
                        return o;
                if (!found)
                        found = o;
                else if (found->arg != o->arg || found->val != o->val)
                        ambiguous = true;
        }
        if (ambiguous) {
                *ret_ambiguous = true;
                return NULL;
        }
        return found;
}

/* The option of short letter @c, and its has_arg from the optstring (which is what getopt
 * reads for a short option). */
static const struct cordon_slurm_scope_option *find_short(enum cordon_slurm_query q, char c,
                                                          unsigned *ret_arg)
{
        const char *s = commands[q].optstring;
        const char *at = c && c != ':' ? strchr(s, c) : NULL;
        if (!at)
                return NULL;
        *ret_arg = at[1] != ':' ? NO : at[2] == ':' ? OPT : REQ;
        for (const struct cordon_slurm_scope_option *o = commands[q].table; o->val; o++)
                if (o->val == (unsigned char)c)
                        return o;
        return NULL;
}

static int add_use(struct getopt_state *G, const struct cordon_slurm_scope_option *o,
                   const char *spelling, size_t spelling_len, const char *value, size_t argi)
{
        struct cordon_slurm_scope_parsed *p = G->p;
        struct cordon_slurm_scope_use *u = reallocarray(p->uses, p->n_uses + 1, sizeof(*u));
        if (!u)
                return -ENOMEM;
        p->uses = u;
        _cleanup_free_ char *sp = strndup(spelling, spelling_len);
        _cleanup_free_ char *v = value ? strdup(value) : NULL;
        if (!sp || (value && !v))
                return -ENOMEM;
        p->uses[p->n_uses++] = (struct cordon_slurm_scope_use){
            .option = o, .spelling = TAKE_PTR(sp), .value = TAKE_PTR(v), .argi = argi};
        return 0;
}

static int add_operand(struct cordon_slurm_scope_parsed *p, size_t argi)
{
        size_t *o = reallocarray(p->operands, p->n_operands + 1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        p->operands = o;
        p->operands[p->n_operands++] = argi;
        return 0;
}

static int long_option(struct getopt_state *G, size_t n, size_t *i)
{
        const char *a = G->argv[*i], *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name), argi = *i;
        bool ambiguous;
        const struct cordon_slurm_scope_option *o =
            len > 0 ? find_long(commands[G->command].table, name, len, &ambiguous) : NULL;
        const char *cmd = commands[G->command].name;
        if (len == 0 || ambiguous)
                return fail(G, -EINVAL, "ambiguous-option", argi,
                            "'%.*s' is the start of several options of %s", (int)len + 2, a, cmd);
        if (!o)
                return fail(G, -EINVAL, "unknown-option", argi,
                            "'%.*s' is no option of %s (Slurm 22.05): an unknown name could "
                            "take the next word as its value",
                            (int)len + 2, a, cmd);
        const char *value = NULL;
        if (o->arg == NO && eq)
                return fail(G, -EINVAL, "unexpected-value", argi, "'%.*s' (--%s) takes no value",
                            (int)len + 2, a, o->name);
        if (o->arg == REQ) {
                if (eq)
                        value = eq + 1;
                else if (*i + 1 < n)
                        value = G->argv[++*i];
                else
                        return fail(G, -EINVAL, "missing-value", argi, "'%s' (--%s) needs a value",
                                    a, o->name);
        } else if (o->arg == OPT && eq)
                value = eq + 1;
        return add_use(G, o, a, len + 2, value, argi);
}

static int short_options(struct getopt_state *G, size_t n, size_t *i)
{
        const char *a = G->argv[*i];
        size_t argi = *i;
        for (size_t j = 1; a[j]; j++) {
                unsigned arg;
                const struct cordon_slurm_scope_option *o = find_short(G->command, a[j], &arg);
                char sp[3] = {'-', a[j], 0};
                if (!o)
                        return fail(G, -EINVAL, "unknown-option", argi,
                                    "'%s' in '%s' is no option of %s (Slurm 22.05)", sp, a,
                                    commands[G->command].name);
                if (arg == NO) {
                        int r = add_use(G, o, sp, 2, NULL, argi);
                        if (r < 0)
                                return r;
                        continue;
                }
                const char *value = a[j + 1] ? a + j + 1 : NULL;
                if (!value && arg == REQ) {
                        if (*i + 1 >= n)
                                return fail(G, -EINVAL, "missing-value", argi, "'%s' needs a value",
                                            sp);
                        value = G->argv[++*i];
                }
                return add_use(G, o, sp, 2, value, argi);
        }
        return 0;
}

int cordon_slurm_scope_getopt(enum cordon_slurm_query command, char *const *argv,
                              struct cordon_slurm_scope_parsed *ret, const char **ret_rule,
                              struct cordon_diag *diag)
{
        if ((unsigned)command >= _CORDON_SLURM_QUERY_MAX || !commands[command].table || !argv ||
            !argv[0] || !ret)
                return -EINVAL;
        struct cordon_slurm_scope_parsed p = {};
        struct getopt_state G = {
            .command = command, .argv = argv, .p = &p, .ret_rule = ret_rule, .diag = diag};
        size_t n = 0, total = 0;
        int r = 0;
        for (; argv[n]; n++) {
                size_t l = strlen(argv[n]);
                total += l + 1;
                if (n >= CORDON_SLURM_MAX_ARGS || l > CORDON_SLURM_MAX_ARG_SIZE ||
                    total > CORDON_SLURM_MAX_ARGV_SIZE)
                        return fail(&G, -E2BIG, "argument-too-long", n,
                                    "the arguments are more or longer than the limit");
        }
        for (size_t i = 1; i < n && r >= 0; i++) {
                const char *a = argv[i];
                if (streq(a, "--")) {
                        for (i++; i < n && r >= 0; i++)
                                r = add_operand(&p, i);
                        break;
                }
                if (a[0] != '-' || a[1] == 0)
                        r = add_operand(&p, i); /* permuted past, as glibc does */
                else if (a[1] == '-')
                        r = long_option(&G, n, &i);
                else
                        r = short_options(&G, n, &i);
        }
        if (r < 0) {
                cordon_slurm_scope_parsed_clear(&p);
                return r;
        }
        *ret = p;
        return 0;
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* A decimal number without sign or leading zero (0 itself allowed when @zero), at most @max.
 * Advances *p past it. */
static bool number(const char **p, const char *end, bool zero, uint64_t max, uint64_t *ret)
{
        const char *s = *p;
        uint64_t v = 0;
        if (s >= end || !is_digit(*s) || (*s == '0' && !zero))
                return false;
        if (*s == '0' && s + 1 < end && is_digit(s[1]))
                return false;
        for (; s < end && is_digit(*s); s++) {
                v = v * 10 + (uint64_t)(*s - '0');
                if (v > max)
                        return false;
        }
        *p = s;
        if (ret)
                *ret = v;
        return true;
}

/* The largest job id taken: NO_VAL (0xfffffffe) and INFINITE are Slurm's markers, and
 * 0xfffffffd is NO_VAL - 1; every parser in Slurm reads the number with strtol into a long,
 * so no smaller value wraps. */
#define JOB_ID_MAX 4294967293u

static bool job_item(const char *s, const char *end, bool allow_step, uint32_t *ret_id,
                     bool *ret_step)
{
        uint64_t id;
        if (!number(&s, end, false, JOB_ID_MAX, &id))
                return false;
        if (s < end && *s == '_') {
                s++;
                if (s < end && *s == '*')
                        s++;
                else if (s < end && *s == '[') {
                        /* task ranges: digits, '-', ',', ':' (step) and '%' (throttle) */
                        const char *close = memchr(s, ']', (size_t)(end - s));
                        if (!close || close == s + 1)
                                return false;
                        for (const char *q = s + 1; q < close; q++)
                                if (!is_digit(*q) && !strchr("-,:%", *q))
                                        return false;
                        s = close + 1;
                } else if (!number(&s, end, true, UINT32_MAX, NULL))
                        return false;
        } else if (s < end && *s == '+') {
                s++;
                if (!number(&s, end, true, UINT32_MAX, NULL))
                        return false;
        }
        bool step = false;
        if (s < end && *s == '.') {
                s++;
                size_t rest = (size_t)(end - s);
                step = true;
                if (!allow_step)
                        return false;
                if ((rest == 5 && strncmp(s, "batch", 5) == 0) ||
                    (rest == 6 && strncmp(s, "extern", 6) == 0) ||
                    (rest == 11 && strncmp(s, "interactive", 11) == 0))
                        s = end;
                else if (!number(&s, end, true, UINT32_MAX, NULL))
                        return false;
        }
        if (s != end)
                return false;
        *ret_id = (uint32_t)id;
        *ret_step = step;
        return true;
}

int cordon_slurm_job_list_parse(const char *list, bool allow_step,
                                struct cordon_slurm_job_ref **ret, size_t *ret_n,
                                const char **ret_bad, size_t *ret_bad_len)
{
        _cleanup_free_ struct cordon_slurm_job_ref *refs = NULL;
        size_t n = 0;
        const char *item = list;
        *ret_bad = list;
        *ret_bad_len = strlen(list);
        for (;;) {
                /* the item ends at a ',' outside brackets */
                const char *e = item;
                int depth = 0;
                while (*e && (depth > 0 || *e != ',')) {
                        if (*e == '[')
                                depth++;
                        else if (*e == ']' && depth > 0)
                                depth--;
                        e++;
                }
                uint32_t id;
                bool step;
                if (!job_item(item, e, allow_step, &id, &step)) {
                        *ret_bad = item;
                        *ret_bad_len = (size_t)(e - item);
                        return -EINVAL;
                }
                if (n >= CORDON_SLURM_SCOPE_MAX_LIST_ITEMS)
                        return -E2BIG;
                struct cordon_slurm_job_ref *nr = reallocarray(refs, n + 1, sizeof(*nr));
                if (!nr)
                        return -ENOMEM;
                refs = nr;
                refs[n++] = (struct cordon_slurm_job_ref){.id = id, .has_step = step};
                if (!*e)
                        break;
                item = e + 1;
        }
        *ret = TAKE_PTR(refs);
        *ret_n = n;
        return 0;
}
