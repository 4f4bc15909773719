/* Parsing a Slurm submission as Slurm 22.05 reads it: glibc getopt_long with "+" (stop at the
 * first operand), unambiguous prefixes of long options, ":" between the components of a
 * heterogeneous job, and sbatch's #SBATCH directives (src/sbatch/opt.c: next_line,
 * get_argument, _opt_batch_script). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/policy/diag.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* A word getopt looks at: a command-line argument or one of a directive line. */
struct word {
        const char *s;
        unsigned line; /* 0: argv */
        size_t argi;
};

struct words {
        struct word *w;
        size_t n;
        char **owned; /* the directive words' storage */
        size_t n_owned;
};

struct parser {
        struct cordon_slurm_submit *s;
        struct cordon_slurm_use *uses; /* in the order found, before sorting by component */
        size_t n_uses;
        const char **ret_rule;
        struct cordon_diag *diag;
};

static void words_clear(struct words *w)
{
        for (size_t i = 0; i < w->n_owned; i++)
                free(w->owned[i]);
        free(w->owned);
        free(w->w);
        *w = (struct words){0};
}

_printf_(5, 6) static int fail(struct parser *P, int r, const char *rule, const struct word *at,
                               const char *fmt, ...)
{
        if (P->ret_rule)
                *P->ret_rule = rule;
        char where[64];
        if (!at)
                snprintf(where, sizeof(where), "%s", cordon_slurm_command_name(P->s->command));
        else if (at->line)
                snprintf(where, sizeof(where), "script line %u", at->line);
        else
                snprintf(where, sizeof(where), "argv[%zu]", at->argi);
        char what[768];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        return cordon_diag_set(P->diag, r, "%s: %s [%s]", where, what, rule);
}

static bool offered(const struct cordon_slurm_option *o, enum cordon_slurm_command c)
{
        return o->commands & (1u << c);
}

static const struct cordon_slurm_option *find_short(enum cordon_slurm_command c, char ch)
{
        for (const struct cordon_slurm_option *o = cordon_slurm_options; o->name; o++)
                if (o->short_name == ch && offered(o, c))
                        return o;
        return NULL;
}

static bool same_option(const struct cordon_slurm_option *a, const struct cordon_slurm_option *b)
{
        /* getopt_long: equal has_arg and val (flag is always NULL in Slurm's table). */
        if (a->arg != b->arg)
                return false;
        if (a->same_as && b->same_as)
                return streq(a->same_as, b->same_as);
        return a->short_name && a->short_name == b->short_name;
}

/* glibc's rule: an exact name wins; else one prefix match, or several that are the same
 * option. Returns the option, or NULL with *ret_ambiguous telling why. */
static const struct cordon_slurm_option *find_long(enum cordon_slurm_command c, const char *name,
                                                   size_t len, bool *ret_ambiguous)
{
        const struct cordon_slurm_option *found = NULL;
        bool ambiguous = false;
        *ret_ambiguous = false;
        for (const struct cordon_slurm_option *o = cordon_slurm_options; o->name; o++) {
                if (!offered(o, c) || strncmp(o->name, name, len) != 0)
                        continue;
                if (strlen(o->name) == len)
                        return o;
                if (!found)
                        found = o;
                else if (!same_option(found, o))
                        ambiguous = true;
        }
        if (ambiguous) {
                *ret_ambiguous = true;
                return NULL;
        }
        return found;
}

static int add_use(struct parser *P, const struct cordon_slurm_option *o, const char *spelling,
                   size_t spelling_len, const char *value, const struct word *at,
                   unsigned component)
{
        if (value && streq(value, ":"))
                /* sbatch's first pass drops every ":" before getopt sees the line, its second
                 * does not: the two would read the line differently. */
                return fail(P, -EINVAL, "separator-as-value", at,
                            "'%s' takes ':' as its value, which sbatch reads as the separator "
                            "of job components in one of its passes",
                            spelling);
        struct cordon_slurm_use *u = reallocarray(P->uses, P->n_uses + 1, sizeof(*u));
        if (!u)
                return -ENOMEM;
        P->uses = u;
        u = &P->uses[P->n_uses];
        *u = (struct cordon_slurm_use){
            .option = o,
            .spelling = strndup(spelling, spelling_len),
            .value = value ? strdup(value) : NULL,
            .component = component,
            .line = at->line,
            .argi = at->argi,
        };
        if (!u->spelling || (value && !u->value)) {
                free(u->spelling);
                free(u->value);
                return -ENOMEM;
        }
        P->n_uses++;
        return 0;
}

/* getopt_long over w[start..n) with "+": options until the first operand or "--". Stores in
 * @ret_next the index of the first word not read. */
static int getopt_words(struct parser *P, const struct word *w, size_t n, size_t start,
                        unsigned component, size_t *ret_next)
{
        enum cordon_slurm_command c = P->s->command;
        size_t i = start;
        int r;
        while (i < n) {
                const struct word *at = &w[i];
                const char *a = at->s;
                if (a[0] != '-' || a[1] == 0)
                        break; /* an operand ("-" is one too) */
                if (streq(a, "--")) {
                        i++;
                        break;
                }
                if (a[1] == '-') {
                        const char *name = a + 2, *eq = strchr(name, '=');
                        size_t len = eq ? (size_t)(eq - name) : strlen(name);
                        bool ambiguous;
                        const struct cordon_slurm_option *o = find_long(c, name, len, &ambiguous);
                        _cleanup_free_ char *sp = strndup(a, len + 2);
                        if (!sp)
                                return -ENOMEM;
                        if (ambiguous || len == 0)
                                return fail(P, -EINVAL, "ambiguous-option", at,
                                            "'%s' is the start of several options of %s", sp,
                                            cordon_slurm_command_name(c));
                        if (!o)
                                return fail(P, -EINVAL, "unknown-option", at,
                                            "'%s' is no option of %s known here (one could "
                                            "take the next word as its value)",
                                            sp, cordon_slurm_command_name(c));
                        const char *value = NULL;
                        if (eq) {
                                if (o->arg == CORDON_SLURM_ARG_NONE)
                                        return fail(P, -EINVAL, "unexpected-value", at,
                                                    "'%s' takes no value", sp);
                                value = eq + 1;
                        } else if (o->arg == CORDON_SLURM_ARG_REQUIRED) {
                                if (i + 1 >= n)
                                        return fail(P, -EINVAL, "missing-value", at,
                                                    "'%s' needs a value", sp);
                                value = w[++i].s;
                        }
                        r = add_use(P, o, a, len + 2, value, at, component);
                        if (r < 0)
                                return r;
                        i++;
                        continue;
                }
                /* A cluster of short options: "-Nv", "-ofile". */
                for (const char *p = a + 1; *p; p++) {
                        const struct cordon_slurm_option *o = find_short(c, *p);
                        char sp[3] = {'-', *p, 0};
                        if (!o)
                                return fail(P, -EINVAL, "unknown-option", at,
                                            "'%s' is no option of %s known here (one could "
                                            "take the next word as its value)",
                                            sp, cordon_slurm_command_name(c));
                        if (o->arg == CORDON_SLURM_ARG_NONE) {
                                r = add_use(P, o, sp, 2, NULL, at, component);
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        const char *value = p[1] ? p + 1 : NULL;
                        if (!value && o->arg == CORDON_SLURM_ARG_REQUIRED) {
                                if (i + 1 >= n)
                                        return fail(P, -EINVAL, "missing-value", at,
                                                    "'%s' needs a value", sp);
                                value = w[++i].s;
                        }
                        r = add_use(P, o, sp, 2, value, at, component);
                        if (r < 0)
                                return r;
                        break;
                }
                i++;
        }
        *ret_next = i;
        return 0;
}

static int parse_argv(struct parser *P, char *const *argv, unsigned *ret_components)
{
        struct cordon_slurm_submit *s = P->s;
        size_t n = strv_length(argv), total = 0;
        if (n > CORDON_SLURM_MAX_ARGS)
                return fail(P, -E2BIG, "too-many-arguments", NULL, "more arguments than the limit");
        _cleanup_free_ struct word *w = calloc(n + 1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                size_t l = strlen(argv[i]);
                w[i] = (struct word){.s = argv[i], .argi = i};
                total += l + 1;
                if (l > CORDON_SLURM_MAX_ARG_SIZE || total > CORDON_SLURM_MAX_ARGV_SIZE)
                        return fail(P, -E2BIG, "argument-too-long", &w[i],
                                    "the arguments are longer than the limit");
        }
        unsigned component = 0;
        size_t i = 1;
        while (i < n) {
                size_t next;
                int r = getopt_words(P, w, n, i, component, &next);
                if (r < 0)
                        return r;
                if (next < n && !streq(argv[next], ":")) {
                        size_t *o = reallocarray(s->operands, s->n_operands + 1, sizeof(*o));
                        if (!o)
                                return -ENOMEM;
                        s->operands = o;
                        s->operands[s->n_operands++] = next;
                        if (s->command != CORDON_SLURM_SRUN)
                                break; /* the rest is the script's or command's arguments */
                        /* srun: the command runs to the next ":". */
                        while (next < n && !streq(argv[next], ":"))
                                next++;
                }
                if (next >= n)
                        break;
                /* argv[next] is ":": getopt starts over after it. */
                if (++component >= CORDON_SLURM_MAX_COMPONENTS)
                        return fail(P, -E2BIG, "too-many-components", &w[next],
                                    "more job components than the limit");
                i = next + 1;
        }
        *ret_components = component + 1;
        return 0;
}

/* sbatch's get_argument(): the next word of a directive line from *p, or NULL at its end (an
 * unquoted '#' starts a comment; an empty word and a "hetjob" word end the line too). */
static int next_argument(struct parser *P, const char **p, const struct word *at, char **ret)
{
        const char *ptr = *p;
        *ret = NULL;
        while (isspace((unsigned char)*ptr))
                ptr++;
        if ((strncasecmp(ptr, "packjob", 7) == 0 && (!ptr[7] || isspace((unsigned char)ptr[7]))) ||
            (strncasecmp(ptr, "hetjob", 6) == 0 && (!ptr[6] || isspace((unsigned char)ptr[6])))) {
                *p = ptr;
                return 0; /* sbatch blanks the word, and then finds no argument */
        }
        if (*ptr == ':')
                return fail(P, -EINVAL, "script-invalid", at, "an unexpected ':'");
        _cleanup_free_ char *arg = malloc(strlen(ptr) + 1);
        if (!arg)
                return -ENOMEM;
        size_t n = 0;
        bool escape = false, quoted = false;
        char q = 0;
        while ((quoted || !isspace((unsigned char)*ptr)) && *ptr) {
                if (escape)
                        escape = false;
                else if (*ptr == '\\') {
                        escape = true;
                        ptr++;
                        continue;
                } else if (quoted) {
                        if (*ptr == q) {
                                quoted = false;
                                ptr++;
                                continue;
                        }
                } else if (*ptr == '"' || *ptr == '\'') {
                        quoted = true;
                        q = *ptr++;
                        continue;
                } else if (*ptr == '#')
                        break;
                arg[n++] = *ptr++;
        }
        if (quoted) {
                char qs[2] = {q, 0};
                return fail(P, -EINVAL, "script-invalid", at, "an unmatched %s", qs);
        }
        *p = ptr;
        if (n == 0)
                return 0;
        arg[n] = 0;
        *ret = TAKE_PTR(arg);
        return 0;
}

static int words_add(struct words *w, char *s, unsigned line)
{
        struct word *nw = reallocarray(w->w, w->n + 1, sizeof(*nw));
        if (!nw)
                goto fail;
        w->w = nw;
        char **no = reallocarray(w->owned, w->n_owned + 1, sizeof(*no));
        if (!no)
                goto fail;
        w->owned = no;
        w->owned[w->n_owned++] = s;
        w->w[w->n++] = (struct word){.s = s, .line = line};
        return 0;
fail:
        free(s);
        return -ENOMEM;
}

/* sbatch's own refusals of a script (_get_script_buffer), so that what passes here is what
 * sbatch reads. */
static int script_valid(struct parser *P, const char *b, size_t size)
{
        if (size > CORDON_SLURM_MAX_SCRIPT_SIZE)
                return fail(P, -E2BIG, "script-too-large", NULL,
                            "the batch script is larger than the limit");
        bool blank = true;
        for (size_t i = 0; i < size; i++) {
                if (b[i] == 0)
                        return fail(P, -EINVAL, "script-invalid", NULL,
                                    "the batch script holds a NUL byte");
                if (b[i] == '\n' && i > 0 && b[i - 1] == '\r')
                        return fail(P, -EINVAL, "script-invalid", NULL,
                                    "the batch script has DOS line breaks");
                blank = blank && isspace((unsigned char)b[i]);
        }
        if (size < 2 || blank || b[0] != '#' || b[1] != '!')
                return fail(P, -EINVAL, "script-invalid", NULL,
                            "the batch script does not start with '#!'");
        return 0;
}

/* Splits the directives of the script into one word list per component. */
static int script_words(struct parser *P, struct words *per, unsigned *ret_components)
{
        struct cordon_slurm_submit *s = P->s;
        const char *b = s->script, *end = b + s->script_size;
        unsigned line = 0, component = 0, directives = 0;
        bool block = true;
        int r;
        for (const char *l = b; l < end; line++) {
                const char *nl = memchr(l, '\n', (size_t)(end - l));
                size_t len = nl ? (size_t)(nl - l) : (size_t)(end - l);
                const char *next = nl ? nl + 1 : end;
                struct word at = {.line = line + 1};
                /* Translated (xlate.c) and burst buffer directives count anywhere. */
                if (!s->pbs_line && ((len >= 4 && strncmp(l, "#PBS", 4) == 0) ||
                                     (len >= 5 && strncmp(l, "#BSUB", 5) == 0)))
                        s->pbs_line = line + 1;
                if (!s->bb_line && len >= 3 &&
                    (strncmp(l, "#BB", 3) == 0 || strncmp(l, "#DW", 3) == 0))
                        s->bb_line = line + 1;
                if (!block) {
                        l = next;
                        continue;
                }
                if (len > CORDON_SLURM_MAX_LINE)
                        return fail(P, -E2BIG, "line-too-long", &at,
                                    "a line of the directives is longer than the limit");
                _cleanup_free_ char *text = strndup(l, len);
                if (!text)
                        return -ENOMEM;
                l = next;
                const char *p = startswith(text, "#SBATCH") ?: startswith(text, "#SLURM");
                if (!p) {
                        const char *q = text;
                        while (isspace((unsigned char)*q))
                                q++;
                        if (*q && *q != '#')
                                block = false; /* the first command ends the directives */
                        continue;
                }
                if (++directives > CORDON_SLURM_MAX_DIRECTIVES)
                        return fail(P, -E2BIG, "too-many-directives", &at,
                                    "more #SBATCH lines than the limit");
                const char *q = p;
                while (isspace((unsigned char)*q))
                        q++;
                if ((strncasecmp(q, "packjob", 7) == 0 &&
                     (!q[7] || isspace((unsigned char)q[7]))) ||
                    (strncasecmp(q, "hetjob", 6) == 0 && (!q[6] || isspace((unsigned char)q[6])))) {
                        if (++component >= CORDON_SLURM_MAX_COMPONENTS)
                                return fail(P, -E2BIG, "too-many-components", &at,
                                            "more job components than the limit");
                }
                for (;;) {
                        char *arg;
                        r = next_argument(P, &p, &at, &arg);
                        if (r < 0)
                                return r;
                        if (!arg)
                                break;
                        r = words_add(&per[component], arg, line + 1);
                        if (r < 0)
                                return r;
                }
        }
        *ret_components = component + 1;
        return 0;
}

static int parse_script(struct parser *P, unsigned *ret_components)
{
        struct words per[CORDON_SLURM_MAX_COMPONENTS] = {};
        unsigned n = 0;
        int r = script_words(P, per, &n);
        for (unsigned k = 0; r >= 0 && k < n; k++) {
                /* getopt skips argv[0] ("sbatch"): the words start at 0 here. */
                size_t next;
                r = getopt_words(P, per[k].w, per[k].n, 0, k, &next);
                if (r >= 0 && next < per[k].n)
                        r = fail(P, -EINVAL, "script-directive-operand", &per[k].w[next],
                                 "'%s' in a directive is no option (sbatch refuses it)",
                                 per[k].w[next].s);
        }
        for (unsigned k = 0; k < ELEMENTSOF(per); k++)
                words_clear(&per[k]);
        if (r >= 0)
                *ret_components = n;
        return r;
}

/* The script sbatch writes for --wrap (sbatch.c, _script_wrap()). */
static int wrap_script(struct cordon_slurm_submit *s, const char *text)
{
        static const char head[] = "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n";
        size_t n = strlen(text);
        char *b = malloc(sizeof(head) + n + 1);
        if (!b)
                return -ENOMEM;
        memcpy(b, head, sizeof(head) - 1);
        memcpy(b + sizeof(head) - 1, text, n);
        b[sizeof(head) - 1 + n] = '\n';
        b[sizeof(head) + n] = 0;
        s->script = b;
        s->script_size = sizeof(head) + n;
        return 0;
}

int cordon_slurm_submit_parse(enum cordon_slurm_command command, char *const *argv,
                              const char *script, size_t script_size,
                              struct cordon_slurm_submit **ret, const char **ret_rule,
                              struct cordon_diag *diag)
{
        if ((unsigned)command >= _CORDON_SLURM_COMMAND_MAX || !argv || !argv[0] || !ret)
                return -EINVAL;
        _cleanup_(cordon_slurm_submit_freep) struct cordon_slurm_submit *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->command = command;
        struct parser P = {.s = s, .ret_rule = ret_rule, .diag = diag};
        unsigned n_argv = 0, n_script = 0;
        size_t first_script_use;
        int r = strv_extend_strv(&s->argv, argv);
        if (r < 0)
                goto out;
        r = parse_argv(&P, argv, &n_argv);
        if (r < 0)
                goto out;
        first_script_use = P.n_uses;
        if (command == CORDON_SLURM_SBATCH) {
                const struct cordon_slurm_use *wrap = NULL;
                for (size_t i = 0; i < P.n_uses; i++)
                        if (P.uses[i].option->rule == CORDON_SLURM_RULE_WRAP)
                                wrap = &P.uses[i];
                if (wrap && (script || s->n_operands > 0)) {
                        r = fail(&P, -EINVAL, "wrap-with-script", NULL,
                                 "a script or its arguments with --wrap");
                        goto out;
                }
                if (wrap)
                        r = wrap_script(s, wrap->value);
                else if (!script) {
                        r = fail(&P, -EINVAL, "script-missing", NULL, "no batch script");
                        goto out;
                } else {
                        r = script_valid(&P, script, script_size);
                        if (r >= 0) {
                                s->script = malloc(script_size);
                                if (s->script) {
                                        memcpy(s->script, script, script_size);
                                        s->script_size = script_size;
                                } else
                                        r = -ENOMEM;
                        }
                }
                if (r < 0)
                        goto out;
                r = parse_script(&P, &n_script);
                if (r < 0)
                        goto out;
        } else if (script) {
                r = fail(&P, -EINVAL, "script-unexpected", NULL,
                         "a batch script for a command that reads none");
                goto out;
        }
        s->n_components = n_argv > n_script ? n_argv : n_script;
        /* Slurm's order: a component's directives, then its command line. */
        s->uses = calloc(P.n_uses ?: 1, sizeof(*s->uses));
        if (!s->uses) {
                r = -ENOMEM;
                goto out;
        }
        for (unsigned k = 0; k < s->n_components; k++) {
                for (size_t i = first_script_use; i < P.n_uses; i++)
                        if (P.uses[i].component == k)
                                s->uses[s->n_uses++] = P.uses[i];
                for (size_t i = 0; i < first_script_use; i++)
                        if (P.uses[i].component == k)
                                s->uses[s->n_uses++] = P.uses[i];
        }
        free(P.uses);
        P.uses = NULL;
        P.n_uses = 0;
        *ret = TAKE_PTR(s);
        return 0;
out:
        for (size_t i = 0; i < P.n_uses; i++) {
                free(P.uses[i].spelling);
                free(P.uses[i].value);
        }
        free(P.uses);
        return r;
}

int cordon_slurm_submit_script_operand(char *const *argv, size_t *ret_index, bool *ret_wrap,
                                       const char **ret_rule, struct cordon_diag *diag)
{
        if (!argv || !argv[0] || !ret_index || !ret_wrap)
                return -EINVAL;
        _cleanup_(cordon_slurm_submit_freep) struct cordon_slurm_submit *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->command = CORDON_SLURM_SBATCH;
        struct parser P = {.s = s, .ret_rule = ret_rule, .diag = diag};
        unsigned n_argv = 0;
        int r = parse_argv(&P, argv, &n_argv);
        bool wrap = false;
        for (size_t i = 0; i < P.n_uses; i++) {
                wrap = wrap || P.uses[i].option->rule == CORDON_SLURM_RULE_WRAP;
                free(P.uses[i].spelling);
                free(P.uses[i].value);
        }
        free(P.uses);
        if (r < 0)
                return r;
        *ret_wrap = wrap;
        if (s->n_operands == 0)
                return -ENOENT;
        *ret_index = s->operands[0];
        return 0;
}

struct cordon_slurm_submit *cordon_slurm_submit_free(struct cordon_slurm_submit *s)
{
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_uses; i++) {
                free(s->uses[i].spelling);
                free(s->uses[i].value);
        }
        free(s->uses);
        free(s->operands);
        strv_free(s->argv);
        free(s->script);
        free(s);
        return NULL;
}

const struct cordon_slurm_use *cordon_slurm_submit_last(const struct cordon_slurm_submit *s,
                                                        unsigned component, const char *name)
{
        const struct cordon_slurm_use *last = NULL;
        for (size_t i = 0; i < s->n_uses; i++)
                if (s->uses[i].component == component && streq(s->uses[i].option->name, name))
                        last = &s->uses[i];
        return last;
}
