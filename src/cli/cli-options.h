/* Option tables for the cordon subcommands: one table per command drives getopt_long(), the
 * --help listing and the usage-error messages, so flags, help and errors cannot drift apart. */
#pragma once

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

struct cli_option {
        const char *long_name;
        char short_name; /* 0: none */
        const char *arg; /* the argument's name in help; NULL: takes no argument */
        int id;          /* returned for the option; >= CLI_OPTION_FIRST_ID */
        const char *help;
        /* The settings variable the option writes (cordon/settings.h), or NULL for an option of
         * the command itself. With an argument the argument is the value; without, @value is. */
        const char *variable;
        const char *value;
        unsigned flags; /* CLI_OPTION_* */
};

enum {
        CLI_OPTION_NONEMPTY = 1u << 0, /* an empty argument is refused (the variable takes one) */
};

/* Ids start here, above every character getopt_long() can return. */
#define CLI_OPTION_FIRST_ID    0x100
#define CLI_OPTIONS_MAX        48
#define CLI_OPTIONS_PREFIX_MAX 3

/* getopt_long() state built from a table of at most CLI_OPTIONS_MAX options. */
struct cli_getopt {
        struct option longopts[CLI_OPTIONS_MAX + 1];
        /* the prefix, then "x:" for each option, then the terminating NUL */
        char shortopts[CLI_OPTIONS_PREFIX_MAX + 2 * CLI_OPTIONS_MAX + 1];
};

/* A table fits in struct cli_getopt: put beside each static option table, so that a table grown
 * past CLI_OPTIONS_MAX fails the build instead of cli_options_prepare(). */
#define CLI_OPTIONS_ASSERT_FITS(table)                                                             \
        _Static_assert(sizeof(table) / sizeof((table)[0]) <= CLI_OPTIONS_MAX,                      \
                       #table " has more options than struct cli_getopt holds")

/* Fills @g for @t; @prefix starts the short options string ("+:" stops at the first operand,
 * ":" permutes). Also resets getopt for a fresh parse. Returns 0, or -E2BIG (and leaves @g and
 * getopt alone) for more than CLI_OPTIONS_MAX options or a prefix longer than
 * CLI_OPTIONS_PREFIX_MAX: nothing is dropped silently. A caller whose table has
 * CLI_OPTIONS_ASSERT_FITS() and whose prefix is a short literal cannot get it. */
int cli_options_prepare(const struct cli_option *t, size_t n, const char *prefix,
                        struct cli_getopt *g);
/* The next option's id (short options mapped to their table id), ':' for a missing argument,
 * '?' for anything else getopt refused, -1 at the end. */
int cli_options_next(const struct cli_option *t, size_t n, const struct cli_getopt *g, int argc,
                     char **argv);
/* A one-line reason for ':' or '?' from cli_options_next() on table @t: an unknown long option
 * names the nearest one of @t when it is close (cli_suggest), an ambiguous abbreviation the
 * options it could be. */
void cli_options_error(int c, const struct cli_option *t, size_t n, char **argv, char *err,
                       size_t errlen);
/* The options as "  -x, --long ARG   help" lines, the left column @width wide. */
void cli_options_print(FILE *f, const struct cli_option *t, size_t n, int width);

/* The library writes a setting a message proposes in sandbox.conf's spelling, NAME+=('VALUE');
 * this writes @text into @buf (always terminated, cut at @size) with each such setting whose
 * NAME an option of @t with an argument writes spelled as that option: "--block '*'", and
 * "the explanation of NAME" (what lists a variable's items) as "cordon config explain NAME",
 * "the doctor's report" as "'cordon doctor'". Other text is copied as it is. */
void cli_respell_settings(const struct cli_option *t, size_t n, const char *text, char *buf,
                          size_t size);

/* Words longer than this are never compared (the distance needs a row per character). */
#define CLI_SUGGEST_MAX 64

/* The optimal-string-alignment distance (Damerau-Levenshtein with adjacent transpositions, each
 * substring edited once) of @a and @b, ASCII letters compared without case; SIZE_MAX when either
 * is longer than CLI_SUGGEST_MAX. */
size_t cli_edit_distance(const char *a, const char *b);

/* The nearest of a set of names to a mistyped @word, for "did you mean": feed it every name the
 * parser accepts, in table order (of equally near names the first wins), then ask. */
struct cli_suggest {
        const char *word;
        const char *best;
        size_t best_distance;
};
void cli_suggest_init(struct cli_suggest *s, const char *word);
void cli_suggest_add(struct cli_suggest *s, const char *candidate);
/* The nearest name, or NULL when none is near enough to be a likely typo: at most a third of
 * the word's length in edits (at least 1, at most 3), and fewer edits than the name is long. */
const char *cli_suggest_result(const struct cli_suggest *s);
/* The nearest of the NULL-terminated @names to @word, or NULL (cli_suggest_result()). */
const char *cli_suggest_among(const char *word, const char *const *names);
/* The nearest variable of the settings registry to @word, or NULL. */
const char *cli_suggest_variable(const char *word);
/* " (did you mean 'PREFIXNAME'?)" in @buf for a suggestion @name, "" for NULL. Returns @buf. */
const char *cli_did_you_mean(const char *prefix, const char *name, char *buf, size_t size);
