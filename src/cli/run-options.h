/* The `cordon run` option table and its parser, kept apart from main() so it can be unit-tested.
 * --help text is generated from the same table, so flags and help cannot drift apart. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli-options.h"
#include "lib/settings.h"

enum run_option_id {
        OPT_PROJECT_DIR = CLI_OPTION_FIRST_ID,
        OPT_ALLOW_PARENT,
        OPT_HOME_ACCESS,
        OPT_RO,
        OPT_RW,
        OPT_MASK,
        OPT_HIDE,
        OPT_DEVICE,
        OPT_SETENV,
        OPT_BACKEND,
        OPT_PROFILE,
        OPT_POLICY,
        OPT_RECEIPT,
        OPT_TIMEOUT,
        OPT_MEMORY,
        OPT_PIDS,
        OPT_CPUS,
        OPT_CGROUP,
        OPT_TMP_SIZE,
        OPT_NO_PTY,
        OPT_TERMINAL_PASSTHROUGH,
        OPT_QUIET,
        OPT_GIT_WRITABLE,
        OPT_DRY_RUN,
        OPT_HELP,
};

extern const struct cli_option run_options_table[];
extern const size_t run_options_count;

struct run_args {
        struct cordon_settings settings; /* defaults with the flags applied */
        char **command;                  /* points into argv */
        const char *policy_file;         /* --policy; read by the caller */
        const char *receipt_file;        /* --receipt */
        bool dry_run;                    /* --dry-run: print the plan, run nothing */
        bool help;
};

/* Parses `cordon run` arguments (argv[0] is "run") on top of the defaults already in
 * @a->settings. Returns 0, or -EINVAL with a one-line reason in @err. */
int run_args_parse(struct run_args *a, int argc, char **argv, char *err, size_t errlen);
void run_args_help(FILE *f);
