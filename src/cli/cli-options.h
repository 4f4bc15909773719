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
/* A one-line reason for ':' or '?' from cli_options_next(). */
void cli_options_error(int c, char **argv, char *err, size_t errlen);
/* The options as "  -x, --long ARG   help" lines, the left column @width wide. */
void cli_options_print(FILE *f, const struct cli_option *t, size_t n, int width);
