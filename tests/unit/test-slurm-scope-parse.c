/* Unit tests for src/lib/slurm/slurm-scope-parse.c: the option tables against their
 * optstrings, glibc getopt_long's reading (permuting, "--", clusters, optional values,
 * prefixes), and Slurm's job id lists. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "lib/slurm/slurm-scope.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "shared/strv.h"
#include "test-helpers.h"

static struct cordon_diag diag;
static const char *rule;
static struct cordon_slurm_scope_parsed parsed;

static void teardown(void)
{
        cordon_slurm_scope_parsed_clear(&parsed);
}

TestSuite(scope_parse, .fini = teardown);

static int getopt_s(enum cordon_slurm_query q, char **argv)
{
        cordon_slurm_scope_parsed_clear(&parsed);
        rule = NULL;
        int r = cordon_slurm_scope_getopt(q, argv, &parsed, &rule, &diag);
        strv_free(argv);
        return r;
}
#define GETOPT(q, ...) getopt_s(q, STRV_MAKE(__VA_ARGS__))

Test(scope_parse, tables_match_their_optstrings)
{
        for (int q = 0; q < CORDON_SLURM_SACCTMGR; q++) {
                const char *optstring = NULL;
                const struct cordon_slurm_scope_option *t =
                    cordon_slurm_scope_table((enum cordon_slurm_query)q, &optstring);
                cr_assert_not_null(t);
                cr_assert_not_null(optstring);
                /* every row with a letter in the optstring: the same has_arg there (a letter
                 * may be missing: sacct's --reason is 'R', which its optstring lacks); a
                 * short-only row: in the optstring */
                for (const struct cordon_slurm_scope_option *o = t; o->val; o++) {
                        if (o->val >= 256)
                                continue;
                        const char *at = strchr(optstring, o->val);
                        if (o->name && !at)
                                continue;
                        cr_assert_not_null(at, "%s: -%c", cordon_slurm_query_name(q), o->val);
                        unsigned arg = at[1] != ':'   ? CORDON_SLURM_ARG_NONE
                                       : at[2] == ':' ? CORDON_SLURM_ARG_OPTIONAL
                                                      : CORDON_SLURM_ARG_REQUIRED;
                        cr_assert_eq(o->arg, arg, "%s: -%c", cordon_slurm_query_name(q), o->val);
                        if (o->kind == CORDON_SCOPE_REFUSED)
                                cr_assert(o->why && o->why[0]);
                }
                /* every letter of the optstring: a row */
                for (const char *c = optstring; *c; c++) {
                        if (*c == ':')
                                continue;
                        bool found = false;
                        for (const struct cordon_slurm_scope_option *o = t; o->val; o++)
                                found = found || o->val == *c;
                        cr_assert(found, "%s: -%c has no row", cordon_slurm_query_name(q), *c);
                }
        }
        cr_assert_null(cordon_slurm_scope_table(CORDON_SLURM_SACCTMGR, NULL));
        cr_assert_str_eq(cordon_slurm_query_name(CORDON_SLURM_SPRIO), "sprio");
        cr_assert_null(cordon_slurm_query_name(_CORDON_SLURM_QUERY_MAX));
}

Test(scope_parse, forms)
{
        cr_assert_eq(GETOPT(CORDON_SLURM_SQUEUE, "squeue", "-hl", "-ubob", "-u", "-x", "op",
                            "--name=a=b", "--format", "--me", "-", "--", "-v", "--x"),
                     0);
        cr_assert_eq(parsed.n_uses, 6);
        cr_assert_str_eq(parsed.uses[0].option->name, "noheader");
        cr_assert_str_eq(parsed.uses[1].option->name, "long");
        cr_assert_eq(parsed.uses[1].argi, 1);
        cr_assert_str_eq(parsed.uses[2].value, "bob");
        cr_assert_str_eq(parsed.uses[3].value, "-x"); /* the next word, whatever it is */
        cr_assert_eq(parsed.uses[3].argi, 3);
        cr_assert_str_eq(parsed.uses[4].value, "a=b");
        cr_assert_str_eq(parsed.uses[5].value, "--me");
        cr_assert_str_eq(parsed.uses[5].spelling, "--format");
        /* "op", "-", and all after "--" */
        cr_assert_eq(parsed.n_operands, 4);
        cr_assert_eq(parsed.operands[0], 5);
        cr_assert_eq(parsed.operands[1], 9);
        cr_assert_eq(parsed.operands[2], 11);
        cr_assert_eq(parsed.operands[3], 12);
}

Test(scope_parse, optional_values_only_attached)
{
        cr_assert_eq(GETOPT(CORDON_SLURM_SQUEUE, "squeue", "-j", "1", "-j2", "--jobs", "3",
                            "--jobs=4", "--jobs="),
                     0);
        cr_assert_eq(parsed.n_uses, 5);
        cr_assert_null(parsed.uses[0].value);
        cr_assert_str_eq(parsed.uses[1].value, "2");
        cr_assert_null(parsed.uses[2].value);
        cr_assert_str_eq(parsed.uses[3].value, "4");
        cr_assert_str_eq(parsed.uses[4].value, "");
        cr_assert_eq(parsed.n_operands, 2);
}

Test(scope_parse, prefixes)
{
        /* exact wins ("cluster" against "clusters"); aliases with one val are one option */
        cr_assert_eq(GETOPT(CORDON_SLURM_SQUEUE, "squeue", "--cluster=a", "--clu=b", "--nod=n",
                            "--use=x", "--sib", "--F=%i"),
                     0);
        cr_assert_str_eq(parsed.uses[0].option->name, "cluster");
        cr_assert_eq(parsed.uses[1].option->val, 'M');
        cr_assert_eq(parsed.uses[2].option->val, 'w');
        cr_assert_eq(parsed.uses[3].option->val, 'u');
        cr_assert_str_eq(parsed.uses[4].option->name, "sib");
        cr_assert_str_eq(parsed.uses[5].option->name, "Format"); /* case counts */
        cr_assert_eq(GETOPT(CORDON_SLURM_SQUEUE, "squeue", "--f"), -EINVAL);
        cr_assert_str_eq(rule, "ambiguous-option");
        cr_assert_eq(GETOPT(CORDON_SLURM_SACCT, "sacct", "--help"), 0); /* exact, not help-fields */
        cr_assert_str_eq(parsed.uses[0].option->name, "help");
        cr_assert_eq(GETOPT(CORDON_SLURM_SACCT, "sacct", "--help-"), 0);
        cr_assert_eq(parsed.uses[0].option->val, 'e');
        /* helpformat and help-fields are one option; help is another */
        cr_assert_eq(GETOPT(CORDON_SLURM_SACCT, "sacct", "--hel"), -EINVAL);
        cr_assert_str_eq(rule, "ambiguous-option");
        cr_assert(strstr(diag.message, "--hel"), "%s", diag.message);
}

Test(scope_parse, errors)
{
        cr_assert_eq(GETOPT(CORDON_SLURM_SINFO, "sinfo", "-Z"), -EINVAL);
        cr_assert_str_eq(rule, "unknown-option");
        /* --reason, but no -R in sacct's optstring */
        cr_assert_eq(GETOPT(CORDON_SLURM_SACCT, "sacct", "--reason=x"), 0);
        cr_assert_eq(GETOPT(CORDON_SLURM_SACCT, "sacct", "-R", "x"), -EINVAL);
        cr_assert_str_eq(rule, "unknown-option");
        cr_assert_eq(GETOPT(CORDON_SLURM_SINFO, "sinfo", "-l:"), -EINVAL);
        cr_assert_str_eq(rule, "unknown-option");
        cr_assert_eq(GETOPT(CORDON_SLURM_SINFO, "sinfo", "-p"), -EINVAL);
        cr_assert_str_eq(rule, "missing-value");
        cr_assert_eq(GETOPT(CORDON_SLURM_SINFO, "sinfo", "--long=1"), -EINVAL);
        cr_assert_str_eq(rule, "unexpected-value");
        cr_assert_eq(GETOPT(CORDON_SLURM_SACCTMGR, "sacctmgr"), -EINVAL);
        char **none = STRV_MAKE("");
        free(none[0]);
        none[0] = NULL;
        cr_assert_eq(getopt_s(CORDON_SLURM_SINFO, none), -EINVAL);
        cr_assert_eq(GETOPT(CORDON_SLURM_SINFO, "sinfo"), 0);
        cr_assert_eq(parsed.n_uses + parsed.n_operands, 0);
}

static int list(const char *s, bool steps, size_t *n, uint32_t *first)
{
        struct cordon_slurm_job_ref *refs = NULL;
        const char *bad = NULL;
        size_t bad_len = 0;
        int r = cordon_slurm_job_list_parse(s, steps, &refs, n, &bad, &bad_len);
        if (r >= 0 && first)
                *first = refs[0].id;
        free(refs);
        return r;
}

Test(scope_parse, job_lists)
{
        size_t n;
        uint32_t first;
        cr_assert_eq(list("1,22_3,33_[1-3,5%2],44+1,55_*,66.batch", true, &n, &first), 0);
        cr_assert_eq(n, 6);
        cr_assert_eq(first, 1);
        cr_assert_eq(list("4294967293", false, &n, &first), 0);
        cr_assert_eq(first, 4294967293u);
        cr_assert_eq(list("7_0.0", true, &n, NULL), 0);
        cr_assert_eq(list("7.extern", true, &n, NULL), 0);
        cr_assert_eq(list("7.interactive", true, &n, NULL), 0);
        const char *bad[] = {"",      "0",    "01",       "4294967294", "99999999999", "1,",
                             ",1",    "1_",   "1_[]",     "1_[1-2",     "1_[a]",       "1+",
                             "1+x",   "1.",   "1.x",      "1.0.0",      "1_2_3",       "[1-3]",
                             "1[2]",  "-1",   " 1",       "1 ",         "+1",          "1_-1",
                             "1_1+1", "0x10", "1.batch2", "1.Batch"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                cr_assert_eq(list(bad[i], true, &n, NULL), -EINVAL, "'%s'", bad[i]);
        /* steps only where asked for */
        cr_assert_eq(list("7.0", false, &n, NULL), -EINVAL);

        const char *b = NULL;
        size_t bl = 0;
        struct cordon_slurm_job_ref *refs = NULL;
        cr_assert_eq(cordon_slurm_job_list_parse("1,2,x3,4", false, &refs, &n, &b, &bl), -EINVAL);
        cr_assert_eq(bl, 2);
        cr_assert_eq(strncmp(b, "x3", 2), 0);

        /* the item limit */
        _cleanup_free_ char *many = malloc(CORDON_SLURM_SCOPE_MAX_LIST_ITEMS * 2 + 2);
        size_t l = 0;
        for (unsigned i = 0; i <= CORDON_SLURM_SCOPE_MAX_LIST_ITEMS; i++) {
                many[l++] = '1';
                many[l++] = ',';
        }
        many[l - 1] = 0;
        cr_assert_eq(list(many, false, &n, NULL), -E2BIG);
        many[l - 3] = 0;
        cr_assert_eq(list(many, false, &n, NULL), 0);
        cr_assert_eq(n, CORDON_SLURM_SCOPE_MAX_LIST_ITEMS);
}
