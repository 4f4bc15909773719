/* Unit tests for a batch job's streams (src/slurm/chaperon-stdio.c): Slurm's file name patterns
 * as shell words, evaluated by /bin/sh with a job's environment (so what is tested is what the
 * job gets), text that must stay text ($, `, ", quotes), the patterns refused; the redirect
 * line of a parsed submission, run in a scratch directory; the shell scripts a line may be put
 * in. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "test-helpers.h"
#include "slurm/chaperon.h"

/* What /bin/sh makes of shell text @word (printf %s WORD) under the job's environment. */
static char *expand(const char *word)
{
        char cmd[4096];
        snprintf(cmd, sizeof(cmd),
                 "env -i SLURM_JOB_ID=123 SLURM_ARRAY_JOB_ID=120 SLURM_ARRAY_TASK_ID=17 "
                 "SLURMD_NODENAME=node7 USER=alice 'SLURM_JOB_NAME=a b$`\"x' /bin/sh -c "
                 "'printf %%s %s'",
                 word);
        /* The word goes inside single quotes above: it has none but printf's in a width. */
        FILE *f = popen(cmd, "r");
        cr_assert_not_null(f);
        static char out[1024];
        size_t n = fread(out, 1, sizeof(out) - 1, f);
        out[n] = 0;
        cr_assert_eq(pclose(f), 0, "%s", cmd);
        return out;
}

static void expect_pattern(const char *spec, const char *want)
{
        _cleanup_free_ char *w = NULL;
        cr_assert_eq(chaperon_stdio_pattern(spec, &w), 0, "%s", spec);
        cr_assert_null(strchr(w, '\''), "%s: %s", spec, w);
        cr_expect_str_eq(expand(w), want, "%s -> %s", spec, w);
}

Test(chaperon_stdio, patterns)
{
        expect_pattern("slurm-%j.out", "slurm-123.out");
        expect_pattern("slurm-%A_%a.out", "slurm-120_17.out");
        expect_pattern("%b|%J|%N|%n|%s|%t|%u", "7|123.batch|node7|0|batch|0|alice");
        expect_pattern("%x.log", "a b$`\"x.log");
        expect_pattern("100%%-%%j", "100%-%j");
        expect_pattern("plain/dir/file.txt", "plain/dir/file.txt");
        /* Text that a shell would run, kept as text. */
        expect_pattern("$(id)`id`${HOME}\"q\".out", "$(id)`id`${HOME}\"q\".out");
}

Test(chaperon_stdio, widths)
{
        /* printf's quotes make the word need '"', so this one is evaluated differently. */
        _cleanup_free_ char *w = NULL;
        cr_assert_eq(chaperon_stdio_pattern("o-%6j-%2a-%10t-%3x", &w), 0);
        char script[512];
        snprintf(script, sizeof(script), "/tmp/cordon-stdio-%d.sh", getpid());
        FILE *f = fopen(script, "w");
        cr_assert_not_null(f);
        fprintf(f, "printf %%s %s\n", w);
        fclose(f);
        char cmd[1024];
        snprintf(cmd, sizeof(cmd),
                 "env -i SLURM_JOB_ID=123 SLURM_ARRAY_TASK_ID=5 SLURM_JOB_NAME=nm /bin/sh %s",
                 script);
        FILE *p = popen(cmd, "r");
        char out[256] = {0};
        cr_assert_not_null(p);
        size_t n = fread(out, 1, sizeof(out) - 1, p);
        out[n] = 0;
        cr_assert_eq(pclose(p), 0);
        unlink(script);
        /* Numbers padded with zeros; a name is not. */
        cr_expect_str_eq(out, "o-000123-05-0000000000-nm");
}

Test(chaperon_stdio, refused_patterns)
{
        static const char *const bad[] = {"a\\b", "%q", "%", "x%", "%11j", "%999j", ""};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *w = NULL;
                cr_expect_eq(chaperon_stdio_pattern(bad[i], &w), -EINVAL, "'%s'", bad[i]);
                cr_expect_null(w);
        }
        cr_expect_eq(chaperon_stdio_pattern(NULL, &(char *){NULL}), -EINVAL);
}

/* The redirect line of sbatch @argv (the script is "#!/bin/sh\ntrue\n"), or NULL with @why. */
/* Takes @argv. */
static char *line_of(char **argv, char *why, size_t n)
{
        static const char script[] = "#!/bin/sh\ntrue\n";
        struct cordon_slurm_submit *s = NULL;
        struct cordon_diag diag = {0};
        const char *rule = NULL;
        cr_assert_eq(cordon_slurm_submit_parse(CORDON_SLURM_SBATCH, argv, script,
                                               sizeof(script) - 1, &s, &rule, &diag),
                     0, "%s", diag.message);
        char *line = NULL;
        int r = chaperon_stdio_redirects(s, &line, why, n);
        cordon_slurm_submit_free(s);
        strv_free(argv);
        cr_assert((r == 0) == (line != NULL));
        return line;
}

/* Runs @line and then prints OUT on stdout and ERR on stderr, in scratch directory @dir. */
static int run_line(const char *dir, const char *line)
{
        char script[4096];
        snprintf(script, sizeof(script), "%s/run.sh", dir);
        FILE *f = fopen(script, "w");
        cr_assert_not_null(f);
        fprintf(f, "cd %s || exit 9\n%s || exit 1\necho OUT\necho ERR >&2\n", dir, line);
        fclose(f);
        char cmd[8192];
        snprintf(cmd, sizeof(cmd), "env -i SLURM_JOB_ID=42 /bin/sh %s </dev/null >/dev/null 2>&1",
                 script);
        int st = system(cmd);
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *dir, const char *name)
{
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", dir, name);
        FILE *f = fopen(p, "r");
        static char buf[256];
        if (!f)
                return strcpy(buf, "(missing)");
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = 0;
        fclose(f);
        return buf;
}

Test(chaperon_stdio, redirects)
{
        char dir[] = "/tmp/cordon-stdio.XXXXXX";
        cr_assert_not_null(mkdtemp(dir));
        char why[512];
        /* Slurm's default: stdout and stderr in slurm-%j.out, truncated. */
        _cleanup_free_ char *l1 = line_of(STRV_MAKE("sbatch", "job.sh"), why, sizeof(why));
        cr_assert_not_null(l1);
        cr_expect_eq(run_line(dir, l1), 0);
        cr_expect_str_eq(slurp(dir, "slurm-42.out"), "OUT\nERR\n");
        cr_expect_eq(run_line(dir, l1), 0);
        cr_expect_str_eq(slurp(dir, "slurm-42.out"), "OUT\nERR\n", "truncated");
        /* --error apart, --open-mode=append; the last --output wins. */
        _cleanup_free_ char *l2 = line_of(STRV_MAKE("sbatch", "-o", "first", "-o", "o-%j", "-e",
                                                    "e-%j", "--open-mode=append", "job.sh"),
                                          why, sizeof(why));
        cr_assert_not_null(l2);
        cr_expect_eq(run_line(dir, l2), 0);
        cr_expect_eq(run_line(dir, l2), 0);
        cr_expect_str_eq(slurp(dir, "o-42"), "OUT\nOUT\n");
        cr_expect_str_eq(slurp(dir, "e-42"), "ERR\nERR\n");
        cr_expect_str_eq(slurp(dir, "first"), "(missing)");
        /* An array's default; --input. */
        _cleanup_free_ char *l3 =
            line_of(STRV_MAKE("sbatch", "--array=1-2", "-i", "in.txt", "job.sh"), why, sizeof(why));
        cr_assert_not_null(l3);
        cr_expect(strstr(l3, "SLURM_ARRAY_TASK_ID") != NULL, "%s", l3);
        cr_expect(strstr(l3, "<\"in.txt\"") != NULL, "%s", l3);
        /* An input that is not there fails the line, as Slurm fails the job. */
        cr_expect_neq(run_line(dir, l3), 0);
        /* A pattern the chaperon cannot give, with the file named. */
        char *bad = line_of(STRV_MAKE("sbatch", "-o", "x-%Z", "job.sh"), why, sizeof(why));
        cr_expect_null(bad);
        cr_expect(strstr(why, "'x-%Z'") != NULL, "%s", why);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        cr_expect_eq(system(cmd), 0);
}

Test(chaperon_stdio, shell_scripts)
{
        static const struct {
                const char *script;
                bool shell;
        } cases[] = {
            {"#!/bin/sh\ntrue\n", true},
            {"#!/bin/bash -l\n", true},
            {"#! /usr/bin/env bash\n", true},
            {"#!/usr/bin/env zsh", true},
            {"#!/usr/bin/python3\nprint(1)\n", false},
            {"#!/usr/bin/env python3\n", false},
            {"#!/bin/shx\n", false},
            {"echo no shebang\n", false},
            {"", false},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                cr_expect_eq(chaperon_stdio_shell_script(cases[i].script, strlen(cases[i].script)),
                             cases[i].shell, "%s", cases[i].script);
        cr_expect(chaperon_stdio_option("output") && chaperon_stdio_option("open-mode"));
        cr_expect(!chaperon_stdio_option("chdir"));
}
