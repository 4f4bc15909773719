/* `cordon policy`: validates a capability policy file and prints its canonical form, or prints
 * the strictest-wins intersection of two policies (see cordon-policy(5)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli-options.h"
#include "cli/commands.h"
#include "cordon/cap-policy.h"
#include "shared/fd-util.h"
#include "shared/log.h"
#include "shared/macro.h"

enum policy_option_id {
        POLICY_OPT_HELP = CLI_OPTION_FIRST_ID,
};

static const struct cli_option policy_options[] = {
    {"help", 'h', NULL, POLICY_OPT_HELP, "show this help and exit"},
};
CLI_OPTIONS_ASSERT_FITS(policy_options);

static void policy_help(FILE *f)
{
        fprintf(f, "Usage: cordon policy show FILE\n"
                   "       cordon policy intersect FILE1 FILE2\n\n"
                   "Check capability policies (JSON, see cordon-policy(5)):\n"
                   "  show       print the canonical form of one policy\n"
                   "  intersect  print the strictest-wins intersection of two policies\n"
                   "FILE '-' is standard input.\n\n"
                   "Options:\n");
        cli_options_print(f, policy_options, ELEMENTSOF(policy_options), 20);
        fprintf(f, "\nExit status: 0 on success, 1 when the two policies cannot be intersected\n"
                   "(no root in common), 2 for a usage error or a file that cannot be read or\n"
                   "parsed.\n");
}

/* Collects the operands into @ret_args (pointers into @argv). Returns 0, or -EINVAL after the
 * usage error's line. */
static int policy_parse(int argc, char **argv, char ***ret_args, int *ret_n, bool *ret_help)
{
        struct cli_getopt g;
        cli_options_prepare(policy_options, ELEMENTSOF(policy_options), ":", &g);
        for (;;) {
                int c =
                    cli_options_next(policy_options, ELEMENTSOF(policy_options), &g, argc, argv);
                if (c == -1)
                        break;
                if (c == POLICY_OPT_HELP) {
                        *ret_help = true;
                        return 0;
                }
                char err[256];
                cli_options_error(c, policy_options, ELEMENTSOF(policy_options), argv, err,
                                  sizeof(err));
                usage_error("policy", "%s", err);
                return -EINVAL;
        }
        *ret_args = argv + optind;
        *ret_n = argc - optind;
        *ret_help = false;
        return 0;
}

static const char *display_name(const char *path)
{
        return streq(path, "-") ? "<stdin>" : path;
}

int policy_file_load(const char *path, struct cordon_cap_policy **ret)
{
        struct cordon_diag diag = {0};
        int r = cordon_cap_policy_load(path, ret, &diag);
        if (r < 0)
                return log_error_errno(r, "%s", *diag.message ? diag.message : strerror(-r));
        return 0;
}

static int print_policy(const struct cordon_cap_policy *p)
{
        _cleanup_free_ char *s = NULL;
        int r = cordon_cap_policy_format_json(p, &s);
        if (r < 0)
                return log_error_errno(r, "cannot write the policy: %m");
        if (puts(s) == EOF || fflush(stdout) != 0)
                return log_error_errno(-errno, "cannot write the policy: %m");
        return 0;
}

static void cap_policy_freep(struct cordon_cap_policy **p)
{
        *p = cordon_cap_policy_free(*p);
}

static int policy_show(const char *path)
{
        _cleanup_(cap_policy_freep) struct cordon_cap_policy *p = NULL;
        if (policy_file_load(path, &p) < 0)
                return EXIT_USAGE;
        return print_policy(p) < 0 ? 1 : 0;
}

static int policy_intersect(const char *path_a, const char *path_b)
{
        _cleanup_(cap_policy_freep) struct cordon_cap_policy *a = NULL, *b = NULL, *result = NULL;
        if (policy_file_load(path_a, &a) < 0 || policy_file_load(path_b, &b) < 0)
                return EXIT_USAGE;

        struct cordon_diag diag = {0};
        int r = cordon_cap_policy_intersection(a, b, &result, &diag);
        if (r < 0) {
                log_error_errno(r, "cannot intersect %s and %s: %s", display_name(path_a),
                                display_name(path_b), *diag.message ? diag.message : strerror(-r));
                return 1;
        }
        return print_policy(result) < 0 ? 1 : 0;
}

int cmd_policy(int argc, char **argv)
{
        char **args = NULL;
        int n = 0;
        bool help = false;
        if (policy_parse(argc, argv, &args, &n, &help) < 0)
                return EXIT_USAGE;
        if (help) {
                policy_help(stdout);
                return 0;
        }

        if (n == 0)
                return usage_error("policy", "no subcommand given (show or intersect)");
        if (!streq(args[0], "show") && !streq(args[0], "intersect")) {
                const char *best =
                    cli_suggest_among(args[0], (const char *[]){"show", "intersect", NULL});
                char dym[CLI_SUGGEST_MAX + 32];
                return usage_error("policy", "unknown policy subcommand '%s'%s", args[0],
                                   cli_did_you_mean("", best, dym, sizeof(dym)));
        }
        if (streq(args[0], "show") && n != 2)
                return usage_error("policy", "'show' takes one file");
        if (streq(args[0], "intersect") && n != 3)
                return usage_error("policy", "'intersect' takes two files");
        if (streq(args[0], "intersect") && streq(args[1], "-") && streq(args[2], "-"))
                return usage_error("policy", "standard input can be read only once");

        if (streq(args[0], "show"))
                return policy_show(args[1]);
        return policy_intersect(args[1], args[2]);
}
