/* cordon: run untrusted tools and AI agents confined. Dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "config.h"
#include "shared/fd-util.h"
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
    {"help", NULL, "show this help, or a command's: cordon help COMMAND"},
};

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
                fprintf(stderr, "cordon: unknown command '%s'\n", argv[2]);
                usage(stderr);
                return EXIT_USAGE;
        }
        if (streq(argv[1], "help")) {
                usage(stdout);
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (commands[i].fn && streq(argv[1], commands[i].name))
                        return commands[i].fn(argc - 1, argv + 1);
        fprintf(stderr, "cordon: unknown command '%s'\n", argv[1]);
        usage(stderr);
        return EXIT_USAGE;
}
