/* Unit tests for src/cli/cli-options.c: a table that does not fit is refused, never cut short. */
#include <criterion/criterion.h>
#include <errno.h>
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
