/* Option tables for the cordon subcommands. */
#include <errno.h>
#include <string.h>

#include "cli/cli-options.h"

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

void cli_options_error(int c, char **argv, char *err, size_t errlen)
{
        if (c == ':')
                snprintf(err, errlen, "option '%s' needs an argument", argv[optind - 1]);
        /* getopt reports a long option given "=VALUE" with its id in optopt. */
        else if (optopt >= CLI_OPTION_FIRST_ID)
                snprintf(err, errlen, "option '%s' takes no argument", argv[optind - 1]);
        else if (optopt)
                snprintf(err, errlen, "unknown option '-%c'", optopt);
        else
                snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]);
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
