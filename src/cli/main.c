/* cordon: run untrusted tools and AI agents confined. Dispatches to the subcommands. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-options.h"
#include "cli/commands.h"
#include "config.h"
#include "shared/fd-util.h"
#include "shared/log.h"
#include "shared/macro.h"

static const struct {
        const char *name;
        int (*fn)(int argc, char **argv);
        const char *help;
} commands[] = {
    {"run", cmd_run, "run a command in a sandbox"},
    {"doctor", cmd_doctor, "report which kernel features this host offers"},
    {"policy", cmd_policy, "check and intersect capability policies"},
    {"config", cmd_config, "show the effective configuration and explain where a value comes from"},
    {"serve", cmd_serve, "serve sandbox sessions over a local HTTP socket (cordon-serve)"},
    {"session", cmd_session, "create sessions and run commands in them (client of cordon serve)"},
    {"help", NULL, "show this help, or a command's: cordon help COMMAND"},
};

int usage_error(const char *command, const char *fmt, ...)
{
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        log_error("%s; see 'cordon %s%s--help'", msg, strempty(command), command ? " " : "");
        return EXIT_USAGE;
}

/* An unknown command, with the nearest one when it is close. */
static int unknown_command(const char *name)
{
        const char *names[ELEMENTSOF(commands) + 1] = {NULL};
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                names[i] = commands[i].name;
        char dym[CLI_SUGGEST_MAX + 32];
        return usage_error(NULL, "unknown command '%s'%s", name,
                           cli_did_you_mean("", cli_suggest_among(name, names), dym, sizeof(dym)));
}

static void usage(FILE *f)
{
        fprintf(f, "Usage: cordon COMMAND [OPTIONS]\n\nCommands:\n");
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
        fprintf(f, "\nRun 'cordon COMMAND --help' for a command's options, 'man cordon' for more.\n"
                   "  -h, --help     show this help\n      --version  show the version\n");
}

int main(int argc, char **argv)
{
        /* Started with 0, 1 or 2 closed: /dev/null there before anything is opened, or the
         * first file cordon opens (a config file, a log) would be taken for its own output, and
         * the command would inherit whatever landed there. Without /dev/null nothing can be
         * said: there may be no stderr to say it on. */
        if (stdio_open_missing() < 0)
                return 125;
        if (argc < 2) {
                usage(stderr);
                return EXIT_USAGE;
        }
        if (streq(argv[1], "--help") || streq(argv[1], "-h")) {
                usage(stdout);
                return 0;
        }
        if (streq(argv[1], "--version")) {
                printf("cordon %s\n", CORDON_VERSION);
                return 0;
        }
        /* `cordon help [COMMAND]`: the same as --help. */
        if (streq(argv[1], "help") && argc > 2) {
                static char help_flag[] = "--help";
                for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                        if (commands[i].fn && streq(argv[2], commands[i].name))
                                return commands[i].fn(2, (char *[]){argv[2], help_flag, NULL});
                return unknown_command(argv[2]);
        }
        if (streq(argv[1], "help")) {
                usage(stdout);
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (commands[i].fn && streq(argv[1], commands[i].name))
                        return commands[i].fn(argc - 1, argv + 1);
        if (argv[1][0] == '-' && argv[1][1]) {
                /* cordon's own options are --help and --version. */
                const char *best = cli_suggest_among(argv[1] + strspn(argv[1], "-"),
                                                     (const char *[]){"help", "version", NULL});
                char dym[CLI_SUGGEST_MAX + 32];
                return usage_error(NULL, "unknown option '%s'%s", argv[1],
                                   cli_did_you_mean("--", best, dym, sizeof(dym)));
        }
        return unknown_command(argv[1]);
}
