/* Option tables for the cordon subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli-options.h"
#include "cordon/settings.h"
#include "shared/macro.h"

int cli_options_prepare(const struct cli_option *t, size_t n, const char *prefix,
                        struct cli_getopt *g)
{
        size_t ns = strlen(prefix);
        /* Refused rather than cut short: an option past the end would be "unknown". */
        if (n > CLI_OPTIONS_MAX || ns > CLI_OPTIONS_PREFIX_MAX)
                return -E2BIG;
        memcpy(g->shortopts, prefix, ns);
        for (size_t i = 0; i < n; i++) {
                g->longopts[i] = (struct option){
                    t[i].long_name, t[i].arg ? required_argument : no_argument, NULL, t[i].id};
                if (t[i].short_name) {
                        g->shortopts[ns++] = t[i].short_name;
                        if (t[i].arg)
                                g->shortopts[ns++] = ':';
                }
        }
        g->longopts[n] = (struct option){0};
        g->shortopts[ns] = 0;
        optind = 0; /* full reset, so that a parser can run more than once per process */
        opterr = 0;
        return 0;
}

int cli_options_next(const struct cli_option *t, size_t n, const struct cli_getopt *g, int argc,
                     char **argv)
{
        int c = getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
        for (size_t i = 0; c > 0 && c < CLI_OPTION_FIRST_ID && i < n; i++)
                if (t[i].short_name && t[i].short_name == c)
                        return t[i].id;
        return c;
}

/* Appends to @buf of @size at *@pos, never past its end. */
_printf_(4, 5) static void append(char *buf, size_t size, size_t *pos, const char *fmt, ...)
{
        if (*pos >= size)
                return;
        va_list ap;
        va_start(ap, fmt);
        int r = vsnprintf(buf + *pos, size - *pos, fmt, ap);
        va_end(ap);
        if (r > 0)
                *pos += (size_t)r;
}

/* A long option getopt did not take (@arg is "--NAME" or "--NAME=VALUE"): an abbreviation of
 * several options, or unknown, perhaps with the nearest one. The value is never repeated. */
static void long_option_error(const char *arg, const struct cli_option *t, size_t n, char *err,
                              size_t errlen)
{
        const char *name = arg + 2;
        int len = (int)strcspn(name, "=");
        size_t pos = 0, matches = 0;
        for (size_t i = 0; i < n; i++)
                matches += strncmp(t[i].long_name, name, (size_t)len) == 0;
        if (len > 0 && matches > 1) {
                append(err, errlen, &pos, "option '--%.*s' is ambiguous:", len, name);
                for (size_t i = 0, k = 0; i < n; i++)
                        if (strncmp(t[i].long_name, name, (size_t)len) == 0)
                                append(err, errlen, &pos, "%s '--%s'",
                                       k++ == 0 ? "" : (k == matches ? " or" : ","),
                                       t[i].long_name);
                return;
        }
        append(err, errlen, &pos, "unknown option '--%.*s'", len, name);
        char word[CLI_SUGGEST_MAX + 1];
        if (len > CLI_SUGGEST_MAX)
                return;
        memcpy(word, name, (size_t)len);
        word[len] = 0;
        struct cli_suggest sg;
        cli_suggest_init(&sg, word);
        for (size_t i = 0; i < n; i++)
                cli_suggest_add(&sg, t[i].long_name);
        char dym[CLI_SUGGEST_MAX + 32];
        append(err, errlen, &pos, "%s",
               cli_did_you_mean("--", cli_suggest_result(&sg), dym, sizeof(dym)));
}

void cli_options_error(int c, const struct cli_option *t, size_t n, char **argv, char *err,
                       size_t errlen)
{
        const char *arg = argv[optind - 1];
        if (errlen)
                *err = 0;
        if (c == ':')
                snprintf(err, errlen, "option '%s' needs an argument", arg);
        /* getopt reports a long option given "=VALUE" with its id in optopt. */
        else if (optopt >= CLI_OPTION_FIRST_ID)
                snprintf(err, errlen, "option '%.*s' takes no argument", (int)strcspn(arg, "="),
                         arg);
        else if (optopt)
                snprintf(err, errlen, "unknown option '-%c'", optopt);
        else if (strncmp(arg, "--", 2) == 0)
                long_option_error(arg, t, n, err, errlen);
        else
                snprintf(err, errlen, "unknown option '%s'", arg);
}

static bool same_letter(char a, char b)
{
        return a == b || ((a | 0x20) == (b | 0x20) && (a | 0x20) >= 'a' && (a | 0x20) <= 'z');
}

size_t cli_edit_distance(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b);
        if (la > CLI_SUGGEST_MAX || lb > CLI_SUGGEST_MAX)
                return SIZE_MAX;
        /* Rows i-2, i-1 and i of the table of distances between prefixes of a and b. */
        size_t rows[3][CLI_SUGGEST_MAX + 1];
        size_t *before = rows[0], *last = rows[1], *cur = rows[2];
        for (size_t j = 0; j <= lb; j++)
                last[j] = j;
        for (size_t i = 1; i <= la; i++) {
                cur[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t d = last[j - 1] + !same_letter(a[i - 1], b[j - 1]);
                        if (last[j] + 1 < d)
                                d = last[j] + 1; /* a deletion */
                        if (cur[j - 1] + 1 < d)
                                d = cur[j - 1] + 1; /* an insertion */
                        if (i > 1 && j > 1 && same_letter(a[i - 1], b[j - 2]) &&
                            same_letter(a[i - 2], b[j - 1]) && before[j - 2] + 1 < d)
                                d = before[j - 2] + 1; /* two neighbours swapped */
                        cur[j] = d;
                }
                size_t *t = before;
                before = last;
                last = cur;
                cur = t;
        }
        return last[lb];
}

void cli_suggest_init(struct cli_suggest *s, const char *word)
{
        *s = (struct cli_suggest){.word = word, .best_distance = SIZE_MAX};
}

void cli_suggest_add(struct cli_suggest *s, const char *candidate)
{
        size_t d = cli_edit_distance(s->word, candidate);
        if (d < s->best_distance) {
                s->best = candidate;
                s->best_distance = d;
        }
}

const char *cli_suggest_result(const struct cli_suggest *s)
{
        if (!s->best)
                return NULL;
        size_t limit = strlen(s->word) / 3;
        limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
        return s->best_distance <= limit && s->best_distance < strlen(s->best) ? s->best : NULL;
}

void cli_options_print(FILE *f, const struct cli_option *t, size_t n, int width)
{
        for (size_t i = 0; i < n; i++) {
                char left[64], shortpart[8] = "    ";
                if (t[i].short_name)
                        snprintf(shortpart, sizeof(shortpart), "-%c, ", t[i].short_name);
                snprintf(left, sizeof(left), "%s--%s%s%s", shortpart, t[i].long_name,
                         t[i].arg ? " " : "", t[i].arg ? t[i].arg : "");
                fprintf(f, "  %-*s %s\n", width, left, t[i].help);
        }
}

const char *cli_suggest_among(const char *word, const char *const *names)
{
        struct cli_suggest s;
        cli_suggest_init(&s, word);
        for (; *names; names++)
                cli_suggest_add(&s, *names);
        return cli_suggest_result(&s);
}

const char *cli_suggest_variable(const char *word)
{
        struct cli_suggest s;
        cli_suggest_init(&s, word);
        for (size_t i = 0; cordon_settings_variable(i); i++)
                cli_suggest_add(&s, cordon_settings_variable(i));
        return cli_suggest_result(&s);
}

const char *cli_did_you_mean(const char *prefix, const char *name, char *buf, size_t size)
{
        if (size)
                *buf = 0;
        if (name)
                snprintf(buf, size, " (did you mean '%s%s'?)", prefix, name);
        return buf;
}

/* The first option of @t with an argument that writes variable @name of @len bytes, or NULL. */
static const struct cli_option *option_of(const struct cli_option *t, size_t n, const char *name,
                                          size_t len)
{
        for (size_t i = 0; i < n; i++)
                if (t[i].arg && t[i].variable && strlen(t[i].variable) == len &&
                    strncmp(t[i].variable, name, len) == 0)
                        return &t[i];
        return NULL;
}

/* The library's words for what this program does with a command of its own: "the explanation
 * of NAME" (what lists a variable's items with their origins) and "the doctor's report" (what
 * the host offers). */
static const struct {
        const char *from, *to;
} own_commands[] = {
    {"the explanation of ", "cordon config explain "},
    {"the doctor's report", "'cordon doctor'"},
};

/* @text with each of the library's words in own_commands[] as this program's command. Returns
 * a heap string, or NULL when out of memory. */
static char *respell_commands(const char *text)
{
        size_t grow = 0;
        for (size_t i = 0; i < ELEMENTSOF(own_commands); i++) {
                size_t from = strlen(own_commands[i].from), to = strlen(own_commands[i].to);
                for (const char *p = strstr(text, own_commands[i].from); p;
                     p = strstr(p + from, own_commands[i].from))
                        grow += to > from ? to - from : 0;
        }
        char *out = malloc(strlen(text) + grow + 1);
        if (!out)
                return NULL;
        size_t o = 0;
        for (const char *p = text; *p;) {
                size_t i = 0;
                while (i < ELEMENTSOF(own_commands) && !startswith(p, own_commands[i].from))
                        i++;
                if (i == ELEMENTSOF(own_commands)) {
                        out[o++] = *p++;
                        continue;
                }
                size_t to = strlen(own_commands[i].to);
                memcpy(out + o, own_commands[i].to, to);
                o += to;
                p += strlen(own_commands[i].from);
        }
        out[o] = 0;
        return out;
}

void cli_respell_settings(const struct cli_option *t, size_t n, const char *text, char *buf,
                          size_t size)
{
        size_t pos = 0;
        if (size == 0)
                return;
        buf[0] = 0;
        _cleanup_free_ char *own = respell_commands(text);
        if (own)
                text = own;
        for (const char *p = text; *p;) {
                const char *op = strstr(p, "+=('");
                const char *end = op ? strstr(op + 4, "')") : NULL;
                const char *name = op;
                while (name && name > p &&
                       (name[-1] == '_' || (name[-1] >= 'A' && name[-1] <= 'Z')))
                        name--;
                const struct cli_option *o =
                    end && name < op ? option_of(t, n, name, (size_t)(op - name)) : NULL;
                if (!o) {
                        const char *stop = op ? op + 4 : p + strlen(p);
                        append(buf, size, &pos, "%.*s", (int)(stop - p), p);
                        p = stop;
                        continue;
                }
                append(buf, size, &pos, "%.*s--%s '%.*s'", (int)(name - p), p, o->long_name,
                       (int)(end - (op + 4)), op + 4);
                p = end + 2;
        }
}
