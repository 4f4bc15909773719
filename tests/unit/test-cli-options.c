/* Unit tests for src/cli/cli-options.c: a table that does not fit is refused, never cut short;
 * a mistyped name gets the nearest one, only when it is near. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cli/cli-options.h"

static struct cli_option table[CLI_OPTIONS_MAX + 1];
static char names[CLI_OPTIONS_MAX + 1][16];

static void fill(void)
{
        for (size_t i = 0; i < CLI_OPTIONS_MAX + 1; i++) {
                snprintf(names[i], sizeof(names[i]), "opt%zu", i);
                /* Every option has a short name with an argument: the longest short string. */
                table[i] = (struct cli_option){names[i], (char)('A' + i), "X",
                                               CLI_OPTION_FIRST_ID + (int)i, "help"};
        }
}

Test(cli_options, a_full_table_is_taken_whole)
{
        fill();
        struct cli_getopt g;
        cr_assert_eq(cli_options_prepare(table, CLI_OPTIONS_MAX, "+:", &g), 0);
        cr_expect_str_eq(g.longopts[CLI_OPTIONS_MAX - 1].name, names[CLI_OPTIONS_MAX - 1]);
        cr_expect_null(g.longopts[CLI_OPTIONS_MAX].name);
        cr_expect_eq(strlen(g.shortopts), 2 + 2 * CLI_OPTIONS_MAX);
        /* The last option is there to be parsed, not dropped. */
        char a0[] = "x", a1[32], a2[] = "v";
        snprintf(a1, sizeof(a1), "--opt%d", CLI_OPTIONS_MAX - 1);
        char *argv[] = {a0, a1, a2, NULL};
        cr_expect_eq(cli_options_next(table, CLI_OPTIONS_MAX, &g, 3, argv),
                     CLI_OPTION_FIRST_ID + CLI_OPTIONS_MAX - 1);
}

Test(cli_options, one_option_too_many_is_refused)
{
        fill();
        struct cli_getopt g;
        cr_expect_eq(cli_options_prepare(table, CLI_OPTIONS_MAX + 1, "+:", &g), -E2BIG);
}

Test(cli_options, a_long_prefix_is_refused)
{
        fill();
        struct cli_getopt g;
        cr_expect_eq(cli_options_prepare(table, 1, "+:::", &g), -E2BIG);
        cr_expect_eq(cli_options_prepare(table, CLI_OPTIONS_MAX, "+::", &g), 0);
        cr_expect_eq(strlen(g.shortopts), 3 + 2 * CLI_OPTIONS_MAX);
}

/* "Did you mean": the distance, the threshold, and the messages built on them. */

Test(cli_suggest, edit_distance)
{
        cr_expect_eq(cli_edit_distance("", ""), 0);
        cr_expect_eq(cli_edit_distance("run", "run"), 0);
        cr_expect_eq(cli_edit_distance("", "run"), 3);
        cr_expect_eq(cli_edit_distance("run", ""), 3);
        cr_expect_eq(cli_edit_distance("alow-host", "allow-host"), 1);   /* an insertion */
        cr_expect_eq(cli_edit_distance("allow-hostt", "allow-host"), 1); /* a deletion */
        cr_expect_eq(cli_edit_distance("allow_host", "allow-host"), 1);  /* a substitution */
        cr_expect_eq(cli_edit_distance("rnu", "run"), 1); /* two neighbours swapped */
        cr_expect_eq(cli_edit_distance("ca", "abc"), 3);  /* optimal string alignment, not 2 */
        cr_expect_eq(cli_edit_distance("kitten", "sitting"), 3);
        cr_expect_eq(cli_edit_distance("project_dir", "PROJECT_DIR"), 0); /* letters without case */
        cr_expect_eq(cli_edit_distance("-", "_"), 1);                     /* only letters */
        /* Symmetric. */
        cr_expect_eq(cli_edit_distance("explan", "explain"),
                     cli_edit_distance("explain", "explan"));
}

Test(cli_suggest, long_words_are_not_compared)
{
        char longest[CLI_SUGGEST_MAX + 1], too_long[CLI_SUGGEST_MAX + 2];
        memset(longest, 'a', CLI_SUGGEST_MAX);
        longest[CLI_SUGGEST_MAX] = 0;
        memset(too_long, 'a', CLI_SUGGEST_MAX + 1);
        too_long[CLI_SUGGEST_MAX + 1] = 0;
        cr_expect_eq(cli_edit_distance(longest, longest), 0);
        cr_expect_eq(cli_edit_distance(too_long, too_long), SIZE_MAX);
        cr_expect_eq(cli_edit_distance("a", too_long), SIZE_MAX);
        cr_expect_null(cli_suggest_among(too_long, (const char *[]){too_long, NULL}));
}

Test(cli_suggest, only_near_names_are_suggested)
{
        const char *commands[] = {"run", "doctor", "policy", "config", "help", NULL};
        cr_expect_str_eq(cli_suggest_among("rnu", commands), "run");
        cr_expect_str_eq(cli_suggest_among("RUN", commands), "run");
        cr_expect_str_eq(cli_suggest_among("doctr", commands), "doctor");
        cr_expect_str_eq(cli_suggest_among("confgi", commands), "config");
        cr_expect_str_eq(cli_suggest_among("hlep", commands), "help");
        /* Far from everything: nothing, rather than a wild guess. */
        cr_expect_null(cli_suggest_among("frobnicate", commands));
        cr_expect_null(cli_suggest_among("xyz", commands));
        cr_expect_null(cli_suggest_among("", commands));
        cr_expect_null(cli_suggest_among("ls", commands));
        /* A third of the word's length, at least 1 and at most 3 edits. */
        const char *opts[] = {"allow-host", "network-policy", NULL};
        cr_expect_str_eq(cli_suggest_among("alow-host", opts), "allow-host");
        cr_expect_str_eq(cli_suggest_among("alowhost", opts), "allow-host");
        cr_expect_str_eq(cli_suggest_among("netwrk-polcy", opts), "network-policy");
        cr_expect_str_eq(cli_suggest_among("ntwrk-polcy", opts), "network-policy");
        cr_expect_null(cli_suggest_among("ntwrk-plcy", opts)); /* 4 edits */
        cr_expect_null(cli_suggest_among("alw-hst", opts));    /* 3 edits of 7 letters */
        /* A name is never suggested for a word it shares nothing with. */
        cr_expect_null(cli_suggest_among("x", (const char *[]){"y", NULL}));
        cr_expect_str_eq(cli_suggest_among("rx", (const char *[]){"ro", "rw", NULL}), "ro");
        cr_expect_null(cli_suggest_among("anything", (const char *[]){NULL}));
}

Test(cli_suggest, of_equally_near_names_the_first_wins)
{
        cr_expect_str_eq(cli_suggest_among("rx", (const char *[]){"rw", "ro", NULL}), "rw");
        cr_expect_str_eq(cli_suggest_among("rx", (const char *[]){"ro", "rw", NULL}), "ro");
}

Test(cli_suggest, variables_of_the_registry)
{
        cr_expect_str_eq(cli_suggest_variable("PROJCT_DIR"), "PROJECT_DIR");
        cr_expect_str_eq(cli_suggest_variable("tmp_size"), "TMP_SIZE");
        cr_expect_null(cli_suggest_variable("NOT_A_CORDON_VARIABLE_AT_ALL"));
}

Test(cli_suggest, did_you_mean)
{
        char buf[64];
        cr_expect_str_eq(cli_did_you_mean("--", "allow-host", buf, sizeof(buf)),
                         " (did you mean '--allow-host'?)");
        cr_expect_str_eq(cli_did_you_mean("", NULL, buf, sizeof(buf)), "");
        char small[8];
        cr_expect_eq(strlen(cli_did_you_mean("--", "allow-host", small, sizeof(small))), 7);
}

static const struct cli_option demo[] = {
    {"allow-parent", 0, "DIR", CLI_OPTION_FIRST_ID, "h"},
    {"allow-host", 0, "PATTERN", CLI_OPTION_FIRST_ID + 1, "h"},
    {"quiet", 'q', NULL, CLI_OPTION_FIRST_ID + 2, "h"},
};

/* Parses "cmd" and @args (NULL-terminated, at most 7) with the demo table up to the first error;
 * its message. */
static const char *first_error(const char *const *args)
{
        static char err[256], store[8][64];
        char *argv[9] = {store[0]};
        int argc = 1;
        strcpy(store[0], "cmd");
        for (; args[argc - 1]; argc++) {
                cr_assert_lt(argc, 8);
                snprintf(store[argc], sizeof(store[argc]), "%s", args[argc - 1]);
                argv[argc] = store[argc];
        }
        struct cli_getopt g;
        cr_assert_eq(cli_options_prepare(demo, 3, "+:", &g), 0);
        for (;;) {
                int c = cli_options_next(demo, 3, &g, argc, argv);
                cr_assert_neq(c, -1, "no error");
                if (c == ':' || c == '?') {
                        cli_options_error(c, demo, 3, argv, err, sizeof(err));
                        return err;
                }
        }
}

#define FIRST_ERROR(...) first_error((const char *[]){__VA_ARGS__, NULL})

Test(cli_options, errors_name_the_option_and_the_nearest_one)
{
        cr_expect_str_eq(FIRST_ERROR("--alow-host", "x"),
                         "unknown option '--alow-host' (did you mean '--allow-host'?)");
        /* The value is not repeated. */
        cr_expect_str_eq(FIRST_ERROR("--alow-host=secret"),
                         "unknown option '--alow-host' (did you mean '--allow-host'?)");
        cr_expect_str_eq(FIRST_ERROR("-q", "--quiett"),
                         "unknown option '--quiett' (did you mean '--quiet'?)");
        cr_expect_str_eq(FIRST_ERROR("--bogus"), "unknown option '--bogus'");
        cr_expect_str_eq(FIRST_ERROR("--allow", "x"),
                         "option '--allow' is ambiguous: '--allow-parent' or '--allow-host'");
        cr_expect_str_eq(FIRST_ERROR("--allow-host"), "option '--allow-host' needs an argument");
        cr_expect_str_eq(FIRST_ERROR("--quiet=yes"), "option '--quiet' takes no argument");
        cr_expect_str_eq(FIRST_ERROR("-x"), "unknown option '-x'");
}

/* A setting a library message proposes in sandbox.conf's spelling is spelled as the option that
 * writes it (the first with an argument); other text, and variables no option writes, stay. */
Test(cli_options, respell_settings)
{
        static const struct cli_option t[] = {
            {"quiet", 0, NULL, CLI_OPTION_FIRST_ID, "h", "NETWORK_BLOCKLIST", "x"},
            {"block", 0, "PATTERN", CLI_OPTION_FIRST_ID + 1, "h", "NETWORK_BLOCKLIST"},
            {"allow-host", 0, "PATTERN", CLI_OPTION_FIRST_ID + 2, "h", "NETWORK_BLOCKLIST_EXCEPT"},
        };
        char buf[256];
        cli_respell_settings(t, 3, "for an allow list: NETWORK_BLOCKLIST+=('*')", buf, sizeof(buf));
        cr_expect_str_eq(buf, "for an allow list: --block '*'");
        cli_respell_settings(t, 3,
                             "NETWORK_BLOCKLIST_EXCEPT+=('a.b:443'), then X+=('y') and +=('z')",
                             buf, sizeof(buf));
        cr_expect_str_eq(buf, "--allow-host 'a.b:443', then X+=('y') and +=('z')");
        cli_respell_settings(t, 3, "no setting here", buf, sizeof(buf));
        cr_expect_str_eq(buf, "no setting here");
        cli_respell_settings(t, 3, "NETWORK_BLOCKLIST+=('unterminated", buf, sizeof(buf));
        cr_expect_str_eq(buf, "NETWORK_BLOCKLIST+=('unterminated");
        char small[8];
        cli_respell_settings(t, 3, "NETWORK_BLOCKLIST+=('*') and more", small, sizeof(small));
        cr_expect_eq(strlen(small), 7);
        /* What lists a variable's items is this program's `config explain`. */
        cli_respell_settings(t, 3,
                             "listed by the explanation of NETWORK_BLOCKLIST and the explanation "
                             "of NETWORK_BLOCKLIST_EXCEPT; NETWORK_BLOCKLIST+=('*')",
                             buf, sizeof(buf));
        cr_expect_str_eq(buf, "listed by cordon config explain NETWORK_BLOCKLIST and cordon config "
                              "explain NETWORK_BLOCKLIST_EXCEPT; --block '*'");
        /* What tells of the host is this program's `doctor`. */
        cli_respell_settings(t, 3, "or the ns backend; see the doctor's report)", buf, sizeof(buf));
        cr_expect_str_eq(buf, "or the ns backend; see 'cordon doctor')");
        cli_respell_settings(t, 3, "the doctor's report, the doctor's", buf, sizeof(buf));
        cr_expect_str_eq(buf, "'cordon doctor', the doctor's");
}
