/* Unit tests for src/cli/run-options.c: every option of the table parses, misuse is reported
 * with the option's name, the command starts at the first non-option, and the parser can run
 * more than once per process. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "cli/run-options.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/strv.h"
#include "test-helpers.h"

static struct run_args a;
static struct cordon_settings settings; /* a.settings points here */
static char **argv;
static char err[512];

static void init_args(void)
{
        a = (struct run_args){.settings = &settings};
        cr_assert_eq(cordon_settings_init_defaults(a.settings, "/home/u"), 0);
        strcpy(err, "untouched");
}

static void setup(void)
{
        init_args();
}

static void teardown(void)
{
        cordon_settings_clear(a.settings);
        argv = strv_free(argv);
}

TestSuite(run_options, .init = setup, .fini = teardown);

/* Parses @v (argv[0] is "run"); the vector stays alive until the test ends. */
static int parse_strv(char **v)
{
        strv_free(argv);
        argv = v;
        return run_args_parse(&a, (int)strv_length(argv), argv, err, sizeof(err));
}
#define PARSE(...) parse_strv(STRV_MAKE("run", __VA_ARGS__))

static const char *sample_arg(enum run_option_id id)
{
        switch (id) {
        case OPT_HOME_ACCESS:
                return "read";
        case OPT_SETENV:
                return "KEY=value";
        case OPT_DEVICE:
                return "/dev/fuse";
        case OPT_BACKEND:
                return "landlock";
        case OPT_PROFILE:
                return "os_hardened";
        case OPT_TIMEOUT:
                return "2.5";
        case OPT_MEMORY:
                return "512M";
        case OPT_TMP_SIZE:
                return "64M";
        case OPT_PIDS:
        case OPT_CPUS:
                return "3";
        case OPT_NET:
                return "proxied";
        case OPT_BLOCK:
                return "*.example.com";
        case OPT_ALLOW_HOST:
        case OPT_ALLOW_ONLY:
                return "api.example.com:443";
        case OPT_PROXY_DNS:
                return "198.18.0.2:5353";
        case OPT_SET:
                return "SANDBOX_ENV=FROM_SET=1";
        default:
                return "/some/dir";
        }
}

/* The list an option appends to, or NULL. */
static const struct cordon_list *list_of(enum run_option_id id)
{
        switch (id) {
        case OPT_ALLOW_PARENT:
                return &a.settings->allowed_project_parents;
        case OPT_RO:
                return &a.settings->readonly_mounts;
        case OPT_RW:
                return &a.settings->extra_writable_paths;
        case OPT_MASK:
                return &a.settings->blocked_files;
        case OPT_HIDE:
                return &a.settings->extra_blocked_paths;
        case OPT_BLOCK:
                return &a.settings->net_blocklist;
        case OPT_ALLOW_HOST:
        case OPT_ALLOW_ONLY:
                return &a.settings->net_blocklist_except;
        case OPT_DEVICE:
                return &a.settings->devices;
        case OPT_SETENV:
                return &a.settings->sandbox_env;
        default:
                return NULL;
        }
}

static void check_effect(const struct cli_option *o, const char *arg)
{
        char origin[64];
        snprintf(origin, sizeof(origin), "--%s", o->long_name);
        const struct cordon_list *l = list_of(o->id);
        if (l) {
                const struct cordon_item *it = cordon_list_find(l, arg);
                cr_assert_not_null(it, "--%s did not add '%s'", o->long_name, arg);
                cr_assert_str_eq(it->origin, origin);
                return;
        }
        switch (o->id) {
        case OPT_PROJECT_DIR:
                cr_assert_str_eq(a.settings->project_dir, arg);
                cr_assert_str_eq(a.settings->project_dir_origin, origin);
                break;
        case OPT_HOME_ACCESS:
                cr_assert_eq(a.settings->home_access, CORDON_HOME_READ);
                cr_assert_str_eq(a.settings->home_access_origin, origin);
                break;
        case OPT_BACKEND:
                cr_assert_eq(a.settings->backend, CORDON_BACKEND_LANDLOCK);
                break;
        case OPT_PROFILE:
                cr_assert_eq(a.settings->profile, CORDON_PROFILE_OS_HARDENED);
                break;
        case OPT_POLICY:
                cr_assert_str_eq(a.policy_file, arg);
                break;
        case OPT_RECEIPT:
                cr_assert_str_eq(a.receipt_file, arg);
                break;
        case OPT_TIMEOUT:
                cr_assert_eq(a.settings->limits.timeout_usec, 2500000);
                break;
        case OPT_MEMORY:
                cr_assert_eq(a.settings->limits.memory_bytes, 512ULL << 20);
                break;
        case OPT_PIDS:
                cr_assert_eq(a.settings->limits.pids, 3);
                break;
        case OPT_CPUS:
                cr_assert_eq(a.settings->limits.cpus, 3);
                break;
        case OPT_CGROUP:
                cr_assert_str_eq(a.settings->cgroup_path, arg);
                break;
        case OPT_TMP_SIZE:
                cr_assert_eq(a.settings->limits.tmp_size_bytes, 64ULL << 20);
                break;
        case OPT_NO_PTY:
                cr_assert(a.settings->no_pty);
                break;
        case OPT_TERMINAL_PASSTHROUGH:
                cr_assert(a.settings->terminal_passthrough);
                break;
        case OPT_QUIET:
                cr_assert(a.settings->quiet);
                break;
        case OPT_GIT_WRITABLE:
                cr_assert_not(a.settings->protect_git);
                break;
        case OPT_DRY_RUN:
                cr_assert(a.dry_run);
                break;
        case OPT_NET:
                cr_assert_eq(a.settings->net_mode, CORDON_NET_PROXIED);
                cr_assert_str_eq(a.settings->net_mode_origin, origin);
                /* A mode asked for on the command line is delivered or refused. */
                cr_assert_eq(a.settings->net_fallback, CORDON_NET_FALLBACK_STRICT);
                cr_assert_str_eq(a.settings->net_fallback_origin, origin);
                break;
        case OPT_NETWORK_POLICY:
                cr_assert_str_eq(a.network_policy_file, arg);
                break;
        case OPT_PROXY_DNS:
                cr_assert_str_eq(a.settings->net_proxy_dns, arg);
                break;
        case OPT_NET_LOG:
                cr_assert_str_eq(a.settings->net_log, arg);
                break;
        case OPT_CLEANUP_MATERIALIZED:
                cr_assert(a.settings->cleanup_materialized);
                cr_assert_str_eq(a.settings->cleanup_materialized_origin, origin);
                break;
        case OPT_SET:
                cr_assert_eq(a.settings->sandbox_env.n, 1);
                cr_assert_str_eq(a.settings->sandbox_env.items[0].value, "FROM_SET=1");
                cr_assert_str_eq(a.settings->sandbox_env.items[0].origin, "--set SANDBOX_ENV");
                break;
        case OPT_HELP:
                cr_assert(a.help);
                break;
        default:
                cr_assert_fail("option --%s has no test for its effect", o->long_name);
        }
}

Test(run_options, table_ids_match_positions)
{
        /* The parser derives an option's origin from its id: table[id - OPT_PROJECT_DIR]. */
        cr_assert_eq(run_options_count, OPT_HELP - OPT_PROJECT_DIR + 1);
        for (size_t i = 0; i < run_options_count; i++) {
                cr_assert_eq((size_t)run_options_table[i].id, OPT_PROJECT_DIR + i, "--%s",
                             run_options_table[i].long_name);
                cr_assert_not_null(run_options_table[i].help);
                for (size_t j = 0; j < i; j++) {
                        cr_assert_str_neq(run_options_table[i].long_name,
                                          run_options_table[j].long_name);
                        cr_assert(!run_options_table[i].short_name ||
                                  run_options_table[i].short_name !=
                                      run_options_table[j].short_name);
                }
        }
}

Test(run_options, every_long_option_parses)
{
        for (size_t i = 0; i < run_options_count; i++) {
                const struct cli_option *o = &run_options_table[i];
                const char *arg = o->arg ? sample_arg(o->id) : NULL;
                char opt[64];
                snprintf(opt, sizeof(opt), "--%s", o->long_name);
                int r = arg ? PARSE(opt, arg, "cmd") : PARSE(opt, "cmd");
                cr_assert_eq(r, 0, "%s: %d (%s)", opt, r, err);
                check_effect(o, arg);
                if (o->id != OPT_HELP) {
                        cr_assert_not_null(a.command, "%s", opt);
                        cr_assert_str_eq(a.command[0], "cmd", "%s", opt);
                        cr_assert_null(a.command[1]);
                }
                cordon_settings_clear(a.settings);
                init_args();
        }
}

Test(run_options, every_long_option_parses_with_equals)
{
        for (size_t i = 0; i < run_options_count; i++) {
                const struct cli_option *o = &run_options_table[i];
                if (!o->arg)
                        continue;
                const char *arg = sample_arg(o->id);
                char opt[128];
                snprintf(opt, sizeof(opt), "--%s=%s", o->long_name, arg);
                int r = PARSE(opt, "cmd");
                cr_assert_eq(r, 0, "%s: %d (%s)", opt, r, err);
                check_effect(o, arg);
                cordon_settings_clear(a.settings);
                init_args();
        }
}

Test(run_options, every_short_option_parses)
{
        size_t n_short = 0;
        for (size_t i = 0; i < run_options_count; i++) {
                const struct cli_option *o = &run_options_table[i];
                if (!o->short_name)
                        continue;
                n_short++;
                const char *arg = o->arg ? sample_arg(o->id) : NULL;
                char opt[3] = {'-', o->short_name, 0};
                int r = arg ? PARSE(opt, arg, "cmd") : PARSE(opt, "cmd");
                cr_assert_eq(r, 0, "%s: %d (%s)", opt, r, err);
                check_effect(o, arg);
                if (arg) {
                        /* Attached form: -pDIR. */
                        cordon_settings_clear(a.settings);
                        init_args();
                        char attached[64];
                        snprintf(attached, sizeof(attached), "-%c%s", o->short_name, arg);
                        r = PARSE(attached, "cmd");
                        cr_assert_eq(r, 0, "%s: %d (%s)", attached, r, err);
                        check_effect(o, arg);
                }
                cordon_settings_clear(a.settings);
                init_args();
        }
        cr_assert_geq(n_short, 3, "-p, -q and -h exist");
}

Test(run_options, bundled_short_options)
{
        cr_assert_eq(PARSE("-qp", "/proj", "cmd"), 0, "%s", err);
        cr_assert(a.settings->quiet);
        cr_assert_str_eq(a.settings->project_dir, "/proj");
        cr_assert_str_eq(a.settings->project_dir_origin, "--project-dir");
}

Test(run_options, repeated_options)
{
        cr_assert_eq(
            PARSE("--ro", "/a", "--ro", "/b", "-p", "/one", "--project-dir", "/two", "--", "cmd"),
            0, "%s", err);
        cr_assert_not_null(cordon_list_find(&a.settings->readonly_mounts, "/a"));
        cr_assert_not_null(cordon_list_find(&a.settings->readonly_mounts, "/b"));
        cr_assert_str_eq(a.settings->project_dir, "/two", "the last --project-dir wins");
}

Test(run_options, home_access_values)
{
        const char *names[] = {"tmpwrite", "restricted", "read", "write"};
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                cr_assert_eq(PARSE("--home-access", names[i], "cmd"), 0, "%s", err);
                cr_assert_eq(a.settings->home_access, (enum cordon_home_access)i);
        }
        strcpy(err, "");
        cr_assert_eq(PARSE("--home-access", "everything", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--home-access"), "%s", err);
        cr_assert(strstr(err, "everything"), "%s", err);
}

Test(run_options, allow_parent_must_be_absolute)
{
        size_t before = a.settings->allowed_project_parents.n;
        cr_assert_eq(PARSE("--allow-parent", "relative/dir", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--allow-parent"), "%s", err);
        cr_assert(strstr(err, "relative/dir"), "%s", err);
        cr_assert_eq(PARSE("--allow-parent", "", "cmd"), -EINVAL);
        cr_assert_eq(a.settings->allowed_project_parents.n, before);
}

Test(run_options, setenv_validation)
{
        const char *bad[] = {"NOEQUALS", "=value", "1ABC=x", "A-B=x", "A B=x", ""};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strcpy(err, "");
                cr_assert_eq(PARSE("--setenv", bad[i], "cmd"), -EINVAL, "'%s'", bad[i]);
                cr_assert(strstr(err, "--setenv"), "'%s': %s", bad[i], err);
                cr_assert(strstr(err, bad[i]), "'%s': %s", bad[i], err);
        }
        cr_assert_eq(a.settings->sandbox_env.n, 0);
        const char *good[] = {"A=", "_X=1", "OPTS=a=b=c", "PATH=/x:/y"};
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                cr_assert_eq(PARSE("--setenv", good[i], "cmd"), 0, "'%s': %s", good[i], err);
                cr_assert_not_null(cordon_list_find(&a.settings->sandbox_env, good[i]));
        }
}

Test(run_options, timeout_values)
{
        const char *bad[] = {"0", "0.0", "-1", "1e3", "1.", ".5", "abc", "", "5s", "99999999999"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strcpy(err, "");
                cr_assert_eq(PARSE("--timeout", bad[i], "cmd"), -EINVAL, "'%s'", bad[i]);
                cr_assert(strstr(err, "--timeout"), "'%s': %s", bad[i], err);
        }
        cr_assert_eq(a.settings->limits.timeout_usec, 0);
        const struct {
                const char *in;
                uint64_t usec;
        } good[] = {{"30", 30000000},
                    {"0.5", 500000},
                    {"1.25", 1250000},
                    {"0.000001", 1},
                    {"2.1234567", 2123456}};
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                cr_assert_eq(PARSE("--timeout", good[i].in, "cmd"), 0, "'%s': %s", good[i].in, err);
                cr_assert_eq(a.settings->limits.timeout_usec, good[i].usec, "'%s'", good[i].in);
        }
}

Test(run_options, tmp_size_values)
{
        /* 0 would mean "no size" downstream; above 1E the kernel's page rounding can wrap. */
        const char *bad[] = {"0",   "0M",  "-1M", "lots", "",    "1M ",
                             " 1M", "1.5", "1Q",  "2E",   "16E", "99999999999999999999"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                strcpy(err, "");
                cr_assert_eq(PARSE("--tmp-size", bad[i], "cmd"), -EINVAL, "'%s'", bad[i]);
                cr_assert(strstr(err, "--tmp-size"), "'%s': %s", bad[i], err);
        }
        cr_assert_eq(a.settings->limits.tmp_size_bytes, 0, "the default is no size");
        const struct {
                const char *in;
                uint64_t bytes;
        } good[] = {{"1", 1},
                    {"4096", 4096},
                    {"1M", 1ULL << 20},
                    {"64m", 64ULL << 20},
                    {"1.5G", 3ULL << 29},
                    {"2GiB", 2ULL << 30},
                    {"1E", 1ULL << 60}};
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                cr_assert_eq(PARSE("--tmp-size", good[i].in, "cmd"), 0, "'%s': %s", good[i].in,
                             err);
                cr_assert_eq(a.settings->limits.tmp_size_bytes, good[i].bytes, "'%s'", good[i].in);
        }
        /* It is a size of its own, not the memory limit. */
        cr_assert_eq(a.settings->limits.memory_bytes, 0);
}

Test(run_options, unknown_long_option)
{
        cr_assert_eq(PARSE("--bogus", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--bogus"), "%s", err);
        cr_assert_eq(PARSE("--bogus=1", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--bogus"), "%s", err);
}

Test(run_options, unknown_short_option)
{
        cr_assert_eq(PARSE("-x", "cmd"), -EINVAL);
        cr_assert(strstr(err, "-x"), "%s", err);
        cr_assert_eq(PARSE("-qZ", "cmd"), -EINVAL);
        cr_assert(strstr(err, "-Z"), "%s", err);
}

Test(run_options, unknown_option_after_valid_ones)
{
        cr_assert_eq(PARSE("--ro", "/a", "-q", "--nope", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--nope"), "%s", err);
}

Test(run_options, a_mistyped_option_gets_the_nearest_one)
{
        /* Every option of five letters or more, its first two letters swapped, finds its way back.
         */
        for (size_t i = 0; i < run_options_count; i++) {
                const char *name = run_options_table[i].long_name;
                if (strlen(name) < 5)
                        continue;
                char typo[64], want[96];
                snprintf(typo, sizeof(typo), "--%s", name);
                char t = typo[2];
                typo[2] = typo[3];
                typo[3] = t;
                snprintf(want, sizeof(want), "(did you mean '--%s'?)", name);
                cr_assert_eq(PARSE(typo, "x", "cmd"), -EINVAL, "%s", typo);
                cr_assert(strstr(err, want), "%s: %s", typo, err);
        }
        cr_assert_eq(PARSE("--alow-host", "x", "--", "cmd"), -EINVAL);
        cr_assert_str_eq(err, "unknown option '--alow-host' (did you mean '--allow-host'?)");
        cr_assert_eq(PARSE("--allow", "x", "cmd"), -EINVAL);
        cr_assert_str_eq(err, "option '--allow' is ambiguous: '--allow-parent', '--allow-host' or "
                              "'--allow-only'");
}

Test(run_options, set_of_a_mistyped_variable_gets_the_nearest_one)
{
        cr_assert_eq(PARSE("--set", "PROJCT_DIR=/x", "cmd"), -ENOENT);
        cr_assert_str_eq(err, "--set 'PROJCT_DIR': no such configuration variable (did you mean "
                              "'PROJECT_DIR'?)");
        cr_assert_eq(PARSE("--set", "NOTHING_LIKE_ANY_NAME=1", "cmd"), -ENOENT);
        cr_assert_str_eq(err, "--set 'NOTHING_LIKE_ANY_NAME': no such configuration variable");
        cr_assert_eq(PARSE("--set", "NOEQUALS", "cmd"), -EINVAL);
        cr_assert_str_eq(err, "--set 'NOEQUALS': expected NAME=VALUE");
}

Test(run_options, argument_to_flag_is_refused_naming_it)
{
        /* getopt reports "--quiet=1" as an error with optopt set to the option's value. */
        cr_assert_eq(PARSE("--quiet=1", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--quiet"), "message does not name the option: '%s'", err);
        cr_assert_eq(PARSE("--help=yes", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--help"), "message does not name the option: '%s'", err);
}

Test(run_options, missing_argument_long)
{
        for (size_t i = 0; i < run_options_count; i++) {
                const struct cli_option *o = &run_options_table[i];
                if (!o->arg)
                        continue;
                char opt[64];
                snprintf(opt, sizeof(opt), "--%s", o->long_name);
                strcpy(err, "");
                cr_assert_eq(PARSE("-q", opt), -EINVAL, "%s", opt);
                cr_assert(strstr(err, opt), "%s: '%s'", opt, err);
                cr_assert(strstr(err, "argument"), "%s: '%s'", opt, err);
        }
}

Test(run_options, missing_argument_short)
{
        cr_assert_eq(PARSE("-p"), -EINVAL);
        cr_assert(strstr(err, "-p"), "%s", err);
        cr_assert(strstr(err, "argument"), "%s", err);
}

Test(run_options, no_command)
{
        cr_assert_eq(PARSE("-q"), -EINVAL);
        cr_assert(strstr(err, "command"), "%s", err);
        cr_assert_eq(PARSE("--"), -EINVAL);
        cr_assert(strstr(err, "command"), "%s", err);
        cr_assert_eq(parse_strv(STRV_MAKE("run")), -EINVAL);
}

Test(run_options, help_needs_no_command)
{
        cr_assert_eq(PARSE("--help"), 0);
        cr_assert(a.help);
        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("-h", "--bogus"), 0, "parsing stops at --help");
        cr_assert(a.help);
}

Test(run_options, command_after_double_dash)
{
        size_t ro = a.settings->readonly_mounts.n;
        cr_assert_eq(PARSE("-q", "--", "--ro", "/x", "-p"), 0, "%s", err);
        cr_assert_eq(a.command, argv + 3);
        cr_assert_str_eq(a.command[0], "--ro");
        cr_assert_str_eq(a.command[2], "-p");
        cr_assert_null(a.command[3]);
        cr_assert_eq(a.settings->readonly_mounts.n, ro);
        cr_assert_null(a.settings->project_dir);
}

Test(run_options, options_after_command_belong_to_it)
{
        size_t ro = a.settings->readonly_mounts.n;
        cr_assert_eq(PARSE("-q", "ls", "--ro", "/x", "-p", "--bogus", "--"), 0, "%s", err);
        cr_assert(a.settings->quiet);
        cr_assert_eq(a.command, argv + 2);
        const char *expected[] = {"ls", "--ro", "/x", "-p", "--bogus", "--"};
        for (size_t i = 0; i < ELEMENTSOF(expected); i++)
                cr_assert_str_eq(a.command[i], expected[i]);
        cr_assert_null(a.command[ELEMENTSOF(expected)]);
        cr_assert_eq(a.settings->readonly_mounts.n, ro);
        cr_assert_null(a.settings->project_dir);
}

Test(run_options, command_named_like_an_option_value)
{
        /* "-" alone is an operand, not an option. */
        cr_assert_eq(PARSE("-", "x"), 0, "%s", err);
        cr_assert_str_eq(a.command[0], "-");
}

Test(run_options, argument_may_start_with_dash)
{
        cr_assert_eq(PARSE("--ro", "--rw", "cmd"), 0, "%s", err);
        cr_assert_not_null(cordon_list_find(&a.settings->readonly_mounts, "--rw"));
        cr_assert_eq(a.settings->extra_writable_paths.n, 0);
}

Test(run_options, parser_runs_twice)
{
        cr_assert_eq(PARSE("-q", "--ro", "/a", "first", "arg"), 0, "%s", err);
        cr_assert_str_eq(a.command[0], "first");
        cordon_settings_clear(a.settings);
        init_args();
        /* A second parse must start from argv[1] again, not where the first one stopped. */
        cr_assert_eq(PARSE("--rw", "/b", "second"), 0, "%s", err);
        cr_assert_str_eq(a.command[0], "second");
        cr_assert_not_null(cordon_list_find(&a.settings->extra_writable_paths, "/b"));
        cr_assert_not(a.settings->quiet, "nothing carried over from the first parse");
}

Test(run_options, parser_runs_again_after_error_mid_bundle)
{
        /* The first parse fails inside a bundle of short options ("-qZq"); getopt keeps its
         * position inside that argument unless fully reset. */
        cr_assert_eq(PARSE("-qZq", "cmd"), -EINVAL);
        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("-p", "/proj", "next"), 0, "%s", err);
        cr_assert_not(a.settings->quiet);
        cr_assert_str_eq(a.settings->project_dir, "/proj");
        cr_assert_str_eq(a.command[0], "next");
        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("-h"), 0, "%s", err);
        cr_assert(a.help);
}

Test(run_options, parse_on_top_of_defaults)
{
        size_t ro = a.settings->readonly_mounts.n;
        cr_assert_eq(PARSE("--ro", "/opt", "cmd"), 0, "%s", err);
        cr_assert_eq(a.settings->readonly_mounts.n, ro + 1);
        cr_assert_not_null(cordon_list_find(&a.settings->readonly_mounts, "/usr"));
        cr_assert_eq(a.settings->home_access, CORDON_HOME_TMPWRITE);
}

Test(run_options, help_lists_every_option)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        cr_assert_not_null(f);
        run_args_help(f);
        cr_assert_eq(fclose(f), 0);
        cr_assert(strstr(buf, "Usage: cordon run"), "%s", buf);
        for (size_t i = 0; i < run_options_count; i++) {
                const struct cli_option *o = &run_options_table[i];
                char opt[96];
                if (o->short_name)
                        snprintf(opt, sizeof(opt), "-%c, --%s%s%s", o->short_name, o->long_name,
                                 o->arg ? " " : "", o->arg ? o->arg : "");
                else
                        snprintf(opt, sizeof(opt), "--%s%s%s", o->long_name, o->arg ? " " : "",
                                 o->arg ? o->arg : "");
                cr_assert(strstr(buf, opt), "help lacks '%s'", opt);
                cr_assert(strstr(buf, o->help), "help lacks the text of --%s", o->long_name);
        }
        free(buf);
}

Test(run_options, backend_and_profile_values)
{
        cr_assert_eq(PARSE("--backend", "bwrap", "cmd"), 0, "%s", err);
        cr_assert_eq(a.settings->backend, CORDON_BACKEND_NS, "bwrap is the ns backend");
        cordon_settings_clear(a.settings);
        init_args();
        /* agent-sandbox's firejail is what the ns backend does too. */
        cr_assert_eq(PARSE("--backend", "firejail", "cmd"), 0, "%s", err);
        cr_assert_eq(a.settings->backend, CORDON_BACKEND_NS, "firejail is the ns backend");
        cr_assert_str_eq(a.settings->backend_origin, "--backend");
        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("--backend", "docker", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--backend 'docker'"), "%s", err);
        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("--backend=", "cmd"), -EINVAL, "an empty backend is refused");
        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("--profile", "strict", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--profile 'strict'"), "%s", err);
}

Test(run_options, set_reaches_every_variable)
{
        cr_assert_eq(PARSE("--set", "SANDBOX_NPROC_LIMIT=40", "--set", "PRIVATE_IPC=false", "--set",
                           "DEVICES=/dev/null", "--set", "DEVICES=/dev/zero", "cmd"),
                     0, "%s", err);
        cr_assert_eq(a.settings->nproc_limit, 40);
        cr_assert_str_eq(a.settings->nproc_limit_origin, "--set SANDBOX_NPROC_LIMIT");
        cr_assert_not(a.settings->private_ipc);
        size_t n = a.settings->devices.n;
        cr_assert_str_eq(a.settings->devices.items[n - 1].value, "/dev/zero", "appended");
        cr_assert_str_eq(a.settings->devices.items[n - 2].value, "/dev/null");
        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("--set", "NO_SUCH_VARIABLE=1", "cmd"), -ENOENT);
        cr_assert(strstr(err, "NO_SUCH_VARIABLE"), "%s", err);
        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("--set", "PRIVATE_TMP=maybe", "cmd"), -EINVAL);
        cr_assert(strstr(err, "--set PRIVATE_TMP 'maybe'"), "%s", err);
        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("--set", "novalue", "cmd"), -EINVAL);
        cr_assert(strstr(err, "expected NAME=VALUE"), "%s", err);
}

/* The fix of a failure spelled as this command line's option, quoted for a shell. */
Test(run_options, spell_fix)
{
        char buf[256];
        run_options_spell_fix("READONLY_MOUNTS", "/opt/node/bin", buf, sizeof(buf));
        cr_assert_str_eq(buf, "--ro /opt/node/bin");
        run_options_spell_fix("READONLY_MOUNTS", "/opt/my tools/it's", buf, sizeof(buf));
        cr_assert_str_eq(buf, "--ro '/opt/my tools/it'\\''s'");
        run_options_spell_fix("HOME_READONLY", ".local/bin", buf, sizeof(buf));
        cr_assert_str_eq(buf, "--set HOME_READONLY=.local/bin", "no option: --set");
        run_options_spell_fix("PROTECT_GIT_CONFIG", "false", buf, sizeof(buf));
        cr_assert_str_eq(buf, "--git-writable", "a switch that sets the value");
        run_options_spell_fix("PROTECT_GIT_CONFIG", "true", buf, sizeof(buf));
        cr_assert_str_eq(buf, "--set PROTECT_GIT_CONFIG=true", "not the switch's value");
        run_options_spell_fix_home("READONLY_MOUNTS", "/home/u/src/lib", "/home/u", buf,
                                   sizeof(buf));
        cr_assert_str_eq(buf, "--ro ~/src/lib");
        run_options_spell_fix_home("READONLY_MOUNTS", "/home/u/my lib", "/home/u", buf,
                                   sizeof(buf));
        cr_assert_str_eq(buf, "--ro '/home/u/my lib'", "quoted: no ~, which would stay literal");
        run_options_spell_fix_home("READONLY_MOUNTS", "/home/uu/x", "/home/u", buf, sizeof(buf));
        cr_assert_str_eq(buf, "--ro /home/uu/x");
        run_options_spell_fix_home("READONLY_MOUNTS", "/home/u/x", NULL, buf, sizeof(buf));
        cr_assert_str_eq(buf, "--ro /home/u/x");
        run_options_spell_fix("READONLY_MOUNTS", "/a;b", buf, 8);
        cr_assert_eq(strlen(buf), 7, "truncated to the buffer");
}

/* --allow-only: the exception and, once, the block of everything else, both named by it; an
 * allow list needs nothing else, and a '*' already blocked is not added again. */
Test(run_options, allow_only_is_an_allow_list)
{
        cr_assert_eq(PARSE("--allow-only", "a.example.com", "--allow-only", "b.example.com:443",
                           "--", "true"),
                     0, "%s", err);
        const struct cordon_list *except = &a.settings->net_blocklist_except;
        const struct cordon_list *block = &a.settings->net_blocklist;
        cr_assert_eq(except->n, 2);
        cr_expect_str_eq(except->items[0].value, "a.example.com");
        cr_expect_str_eq(except->items[0].origin, "--allow-only");
        cr_expect_str_eq(except->items[1].value, "b.example.com:443");
        cr_assert_eq(block->n, 1);
        cr_expect_str_eq(block->items[0].value, "*");
        cr_expect_str_eq(block->items[0].origin, "--allow-only");

        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("--block", "*", "--allow-only", "a.example.com", "--", "true"), 0, "%s",
                     err);
        cr_assert_eq(a.settings->net_blocklist.n, 1);
        cr_expect_str_eq(a.settings->net_blocklist.items[0].origin, "--block");

        cordon_settings_clear(a.settings);
        init_args();
        cr_assert_eq(PARSE("--allow-only", "not a host", "--", "true"), -EINVAL);
        cr_expect(strncmp(err, "--allow-only 'not a host':", 26) == 0, "%s", err);
        cr_expect_eq(a.settings->net_blocklist.n, 0, "a refused pattern blocks nothing either");
}
