/* The `cordon run` option table and its parser, kept apart from main() so it can be unit-tested.
 * --help text is generated from the same table, so flags and help cannot drift apart. Most rows
 * name the settings variable they write; the parser hands those to cordon_settings_set(). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli-options.h"
#include "cordon/settings.h"

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
        OPT_NET,
        OPT_BLOCK,
        OPT_ALLOW_HOST,
        OPT_ALLOW_ONLY,
        OPT_NETWORK_POLICY,
        OPT_PROXY_DNS,
        OPT_NET_LOG,
        OPT_CLEANUP_MATERIALIZED,
        OPT_SET,
        OPT_DRY_RUN,
        OPT_HELP,
};

extern const struct cli_option run_options_table[];
extern const size_t run_options_count;

struct run_args {
        struct cordon_settings *settings; /* defaults with the flags applied; not owned */
        char **command;                   /* points into argv */
        const char *policy_file;          /* --policy; read by the caller */
        const char *network_policy_file;  /* --network-policy; read by the caller */
        const char *receipt_file;         /* --receipt */
        bool dry_run;                     /* --dry-run: print the plan, run nothing */
        bool help;
};

/* Parses `cordon run` arguments (argv[0] is "run") into @a->settings, on top of what is already
 * there (the defaults, the environment). Returns 0, or -EINVAL (or -ENOENT for --set of no
 * such variable, -EOPNOTSUPP, -ENOMEM) with a one-line reason in @err that names the option. */
int run_args_parse(struct run_args *a, int argc, char **argv, char *err, size_t errlen);
void run_args_help(FILE *f);

/* The command line that applies a fix of struct cordon_diag: "--ro DIR" for the option of
 * @variable that takes an argument, "--git-writable" for a switch that sets @variable to @value,
 * else "--set VARIABLE=VALUE"; @value quoted for a shell where
 * it needs it. Truncated to @size. */
/* The long name (without "--") of the option that takes a value for @variable, or NULL. */
const char *run_options_long_name(const char *variable);
void run_options_spell_fix(const char *variable, const char *value, char *buf, size_t size);
/* The same, with a @value below the home @home spelled "~/..." where it needs no quotes (a
 * shell expands it back): "--ro ~/src/lib". */
void run_options_spell_fix_home(const char *variable, const char *value, const char *home,
                                char *buf, size_t size);
