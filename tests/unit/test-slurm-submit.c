/* Unit tests for src/lib/slurm: the getopt_long forms of sbatch, srun and salloc, the #SBATCH
 * directives, and every refusal of the checker, each with an allowed control. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "shared/strv.h"
#include "test-helpers.h"

#define PROJECT "/home/u/proj"
#define CWD     PROJECT "/sub"
#define SCRIPT  "#!/bin/sh\necho hi\n"

static struct cordon_list read_roots, write_roots, blocked, blocked_pat;
static struct cordon_slurm_policy policy;
static struct cordon_diag diag;
static const char *rule;
static struct cordon_slurm_submit *sub;

static void setup(void)
{
        cr_assert_eq(cordon_list_add(&read_roots, "/opt/data", "test"), 0);
        cr_assert_eq(cordon_list_add(&write_roots, "/scratch/u", "test"), 0);
        cr_assert_eq(cordon_list_add(&blocked, "GITHUB_TOKEN", "test"), 0);
        cr_assert_eq(cordon_list_add(&blocked_pat, "*_SECRET", "test"), 0);
        policy = (struct cordon_slurm_policy){
            .project_dir = PROJECT,
            .read_roots = &read_roots,
            .write_roots = &write_roots,
            .blocked_env = &blocked,
            .blocked_env_pat = &blocked_pat,
        };
        diag = (struct cordon_diag){0};
        rule = NULL;
}

static void teardown(void)
{
        cordon_list_clear(&read_roots);
        cordon_list_clear(&write_roots);
        cordon_list_clear(&blocked);
        cordon_list_clear(&blocked_pat);
        sub = cordon_slurm_submit_free(sub);
}

TestSuite(slurm, .init = setup, .fini = teardown);

/* Parses; returns the result, sub set on success. */
static int parse_s(enum cordon_slurm_command c, char **argv, const char *script)
{
        sub = cordon_slurm_submit_free(sub);
        rule = NULL;
        int r = cordon_slurm_submit_parse(c, argv, script, script ? strlen(script) : 0, &sub, &rule,
                                          &diag);
        strv_free(argv);
        return r;
}
#define PARSE(c, script, ...) parse_s(c, STRV_MAKE(__VA_ARGS__), script)

/* Parses (which must succeed) and checks. */
static int check_s(enum cordon_slurm_command c, char **argv, const char *script)
{
        int r = parse_s(c, argv, script);
        cr_assert_eq(r, 0, "parse: %d %s", r, diag.message);
        rule = NULL;
        return cordon_slurm_submit_check(sub, &policy, CWD, &rule, &diag);
}
#define CHECK(c, script, ...) check_s(c, STRV_MAKE(__VA_ARGS__), script)

#define ASSERT_OK(expr)                                                                            \
        do {                                                                                       \
                int r_ = (expr);                                                                   \
                cr_assert_eq(r_, 0, "%d %s", r_, diag.message);                                    \
        } while (0)
#define ASSERT_REFUSED(expr, err, key, text)                                                       \
        do {                                                                                       \
                int r_ = (expr);                                                                   \
                cr_assert_eq(r_, err, "%d %s", r_, diag.message);                                  \
                cr_assert_str_eq(rule, key, "%s", diag.message);                                   \
                cr_assert(strstr(diag.message, text), "'%s' not in '%s'", text, diag.message);     \
        } while (0)

static const struct cordon_slurm_use *use(size_t i)
{
        cr_assert_lt(i, sub->n_uses);
        return &sub->uses[i];
}

/* ---- option forms ---- */

Test(slurm, long_equals_and_separate)
{
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--output=o.txt", "--error", "e.txt",
                        "job.sh", "--output=/etc/x"));
        cr_assert_eq(sub->n_uses, 2);
        cr_assert_str_eq(use(0)->option->name, "output");
        cr_assert_str_eq(use(0)->value, "o.txt");
        cr_assert_str_eq(use(1)->spelling, "--error");
        cr_assert_str_eq(use(1)->value, "e.txt");
        cr_assert_eq(use(1)->argi, 2);
        /* After the script everything is the script's argument. */
        cr_assert_eq(sub->n_operands, 1);
        cr_assert_eq(sub->operands[0], 4);
}

Test(slurm, short_attached_separate_cluster)
{
        ASSERT_OK(
            PARSE(CORDON_SLURM_SRUN, NULL, "srun", "-ofile", "-e", "-x", "-Nv", "-vn4", "true"));
        cr_assert_eq(sub->n_uses, 5);
        cr_assert_str_eq(use(0)->value, "file");
        /* A required value is the next word even when it looks like an option. */
        cr_assert_str_eq(use(1)->spelling, "-e");
        cr_assert_str_eq(use(1)->value, "-x");
        /* -N takes a value: "v" is it, not --verbose. */
        cr_assert_str_eq(use(2)->option->name, "nodes");
        cr_assert_str_eq(use(2)->value, "v");
        cr_assert_str_eq(use(3)->option->name, "verbose");
        cr_assert_str_eq(use(4)->option->name, "ntasks");
        cr_assert_str_eq(use(4)->value, "4");
        cr_assert_eq(sub->operands[0], 6);
        /* "--par" is partition and parsable in sbatch. */
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--par=x"), -EINVAL,
                       "ambiguous-option", "'--par'");
}

Test(slurm, prefix_exact_and_ambiguous)
{
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--out=x", "--parti", "debug"));
        cr_assert_str_eq(use(0)->option->name, "output");
        cr_assert_str_eq(use(0)->spelling, "--out");
        cr_assert_str_eq(use(1)->option->name, "partition");
        /* "--cluster" is a name of its own though "--clusters" starts with it. */
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--cluster=a"));
        cr_assert_str_eq(use(0)->option->name, "cluster");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--clus=a"), -EINVAL,
                       "ambiguous-option", "argv[1]: '--clus'");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SRUN, NULL, "srun", "--ntasks-per=2", "true"), -EINVAL,
                       "ambiguous-option", "'--ntasks-per'");
        /* Prefixes of aliases (same has_arg and val) are one option: "--cpu" → cpu-bind,
         * cpu_bind, cpu-freq is ambiguous, but "--cpu-b" and "--cpu_" are not. */
        ASSERT_OK(PARSE(CORDON_SLURM_SRUN, NULL, "srun", "--cpu-b=cores", "true"));
        cr_assert_str_eq(use(0)->option->name, "cpu-bind");
        ASSERT_OK(PARSE(CORDON_SLURM_SRUN, NULL, "srun", "--pack=1", "true"));
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--tasks-per=2"));
        cr_assert_str_eq(use(0)->option->name, "tasks-per-node");
        /* The same prefix depends on the command: sbatch has no --cpu-bind. */
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--cpu-f=high"));
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--cpu-bind=x"), -EINVAL,
                       "unknown-option", "'--cpu-bind' is no option of sbatch");
}

Test(slurm, unknown_missing_unexpected)
{
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--cordon", "x"), -EINVAL,
                       "unknown-option", "argv[1]: '--cordon'");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-vj4"), -EINVAL,
                       "unknown-option", "'-j'");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-o"), -EINVAL, "missing-value",
                       "'-o' needs a value");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--output"), -EINVAL,
                       "missing-value", "'--output'");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--hold=yes"), -EINVAL,
                       "unexpected-value", "'--hold' takes no value");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--=x"), -EINVAL,
                       "ambiguous-option", "'--'");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-o", ":", "job.sh"), -EINVAL,
                       "separator-as-value", "'-o'");
        /* A short option of another command. */
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SALLOC, NULL, "salloc", "-o", "x"), -EINVAL,
                       "unknown-option", "'-o' is no option of salloc");
}

Test(slurm, optional_values)
{
        /* An optional value only attached: "--bcast dest" leaves dest the command. */
        ASSERT_OK(PARSE(CORDON_SLURM_SRUN, NULL, "srun", "-Ifoo", "-I", "--bcast", "/tmp/x", "-o"));
        cr_assert_eq(sub->n_uses, 3);
        cr_assert_str_eq(use(0)->value, "foo");
        cr_assert_null(use(1)->value);
        cr_assert_null(use(2)->value);
        cr_assert_eq(sub->operands[0], 4);
        ASSERT_OK(PARSE(CORDON_SLURM_SRUN, NULL, "srun", "--bcast=/tmp/x", "a"));
        cr_assert_str_eq(use(0)->value, "/tmp/x");
}

Test(slurm, double_dash_and_components)
{
        ASSERT_OK(PARSE(CORDON_SLURM_SRUN, NULL, "srun", "-n1", "--", "-o", "x"));
        cr_assert_eq(sub->n_uses, 1);
        cr_assert_eq(sub->operands[0], 3);
        /* srun: a command per component, the next component's options after ":". */
        ASSERT_OK(
            PARSE(CORDON_SLURM_SRUN, NULL, "srun", "-n1", "a", "-o", "x", ":", "-o", "y", "b"));
        cr_assert_eq(sub->n_components, 2);
        cr_assert_eq(sub->n_uses, 2);
        cr_assert_str_eq(use(1)->value, "y");
        cr_assert_eq(use(1)->component, 1);
        cr_assert_eq(sub->n_operands, 2);
        /* sbatch: components before the script. */
        ASSERT_OK(
            PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-N1", ":", "-N2", "job.sh", ":", "-o"));
        cr_assert_eq(sub->n_components, 2);
        cr_assert_eq(sub->n_uses, 2);
        /* "-" is an operand. */
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-", "-o", "x"));
        cr_assert_eq(sub->n_uses, 0);
}

/* ---- the batch script ---- */

Test(slurm, script_directives_quoting_and_stop)
{
        const char *script = "#!/bin/bash\n"
                             "#SBATCH -J \"a b\" --comment='x # y' # a comment\n"
                             "\n"
                             "   # an indented comment\n"
                             "#SLURM --mem=1G\n"
                             "  #SBATCH --output=/etc/indented-is-a-comment\n"
                             "#SBATCH -o\n"
                             "#SBATCH spanning.out\n"
                             "#SBATCH --comment=a\\\"b \"\" --output=/etc/after-empty-word\n"
                             "echo start\n"
                             "#SBATCH --output=/etc/after-the-first-command\n";
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, script, "sbatch"));
        cr_assert_eq(sub->n_uses, 5);
        cr_assert_str_eq(use(0)->value, "a b");
        cr_assert_eq(use(0)->line, 2);
        cr_assert_str_eq(use(1)->value, "x # y");
        cr_assert_str_eq(use(2)->option->name, "mem");
        /* A value on the next directive line. */
        cr_assert_str_eq(use(3)->value, "spanning.out");
        cr_assert_eq(use(3)->line, 7);
        cr_assert_str_eq(use(4)->value, "a\"b");
}

Test(slurm, script_override_order)
{
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, "#!/bin/sh\n#SBATCH -o script.out\n", "sbatch", "-o",
                        "argv.out", "job.sh"));
        cr_assert_eq(sub->n_uses, 2);
        cr_assert_eq(use(0)->line, 2);
        cr_assert_eq(use(1)->line, 0);
        cr_assert_str_eq(cordon_slurm_submit_last(sub, 0, "output")->value, "argv.out");
        cr_assert_null(cordon_slurm_submit_last(sub, 0, "error"));
}

Test(slurm, script_hetjob)
{
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH,
                        "#!/bin/sh\n#SBATCH -N1\n#SBATCH hetjob -o ignored\n#SBATCH -o two.out\n",
                        "sbatch"));
        cr_assert_eq(sub->n_components, 2);
        cr_assert_eq(sub->n_uses, 2);
        cr_assert_eq(use(1)->component, 1);
        cr_assert_str_eq(use(1)->value, "two.out");
}

Test(slurm, script_refusals)
{
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, "echo\n", "sbatch"), -EINVAL, "script-invalid",
                       "'#!'");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, "#!/bin/sh\r\necho\r\n", "sbatch"), -EINVAL,
                       "script-invalid", "DOS");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, "#!/bin/sh\n#SBATCH -J 'x\n", "sbatch"), -EINVAL,
                       "script-invalid", "script line 2: an unmatched '");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, "#!/bin/sh\n#SBATCH : -N1\n", "sbatch"), -EINVAL,
                       "script-invalid", "':'");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, "#!/bin/sh\n#SBATCH job\n", "sbatch"), -EINVAL,
                       "script-directive-operand", "script line 2: 'job'");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, "#!/bin/sh\n#SBATCH --bogus\n", "sbatch"),
                       -EINVAL, "unknown-option", "script line 2");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, NULL, "sbatch", "job.sh"), -EINVAL,
                       "script-missing", "no batch script");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SRUN, SCRIPT, "srun", "true"), -EINVAL,
                       "script-unexpected", "srun");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--wrap=true"), -EINVAL,
                       "wrap-with-script", "--wrap");
        /* sbatch's own NUL refusal: the length is given, the NUL inside. */
        _cleanup_strv_free_ char **argv0 = STRV_MAKE("sbatch");
        cr_assert_eq(cordon_slurm_submit_parse(CORDON_SLURM_SBATCH, argv0, "#!/bin/sh\n\0x", 12,
                                               &sub, &rule, &diag),
                     -EINVAL);
        cr_assert_str_eq(rule, "script-invalid");
}

Test(slurm, wrap_directives_parsed)
{
        ASSERT_OK(
            PARSE(CORDON_SLURM_SBATCH, NULL, "sbatch", "--wrap", "#SBATCH -o w.out\nhostname"));
        cr_assert_eq(sub->n_uses, 2);
        cr_assert_str_eq(use(0)->value, "w.out");
        cr_assert_eq(use(0)->line, 4);
        cr_assert(strstr(sub->script, "# This script was created by sbatch --wrap."));
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, NULL, "sbatch", "--wrap",
                             "#SBATCH --output=/etc/cron.d/x\nhostname"),
                       -EPERM, "path-not-writable", "script line 4: '--output'");
}

Test(slurm, limits)
{
        char **argv = STRV_MAKE("sbatch");
        for (unsigned i = 0; i < CORDON_SLURM_MAX_ARGS; i++)
                cr_assert_eq(strv_extend(&argv, "-v"), 0);
        ASSERT_REFUSED(parse_s(CORDON_SLURM_SBATCH, argv, SCRIPT), -E2BIG, "too-many-arguments",
                       "");
        _cleanup_free_ char *big = malloc(CORDON_SLURM_MAX_SCRIPT_SIZE + 2);
        cr_assert_not_null(big);
        memset(big, '\n', CORDON_SLURM_MAX_SCRIPT_SIZE + 1);
        memcpy(big, "#!", 2);
        big[CORDON_SLURM_MAX_SCRIPT_SIZE + 1] = 0;
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, big, "sbatch"), -E2BIG, "script-too-large", "");
        /* At the limit: allowed. */
        big[CORDON_SLURM_MAX_SCRIPT_SIZE] = 0;
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, big, "sbatch"));
        _cleanup_free_ char *line = malloc(CORDON_SLURM_MAX_LINE + 32);
        cr_assert_not_null(line);
        strcpy(line, "#!/bin/sh\n#SBATCH -J ");
        size_t l = strlen(line);
        memset(line + l, 'a', CORDON_SLURM_MAX_LINE);
        line[l + CORDON_SLURM_MAX_LINE] = 0;
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, line, "sbatch"), -E2BIG, "line-too-long",
                       "script line 2");
        _cleanup_free_ char *many = malloc(12 * (CORDON_SLURM_MAX_DIRECTIVES + 2) + 16);
        cr_assert_not_null(many);
        strcpy(many, "#!/bin/sh\n");
        for (unsigned i = 0; i <= CORDON_SLURM_MAX_DIRECTIVES; i++)
                strcat(many, "#SBATCH -v\n");
        ASSERT_REFUSED(PARSE(CORDON_SLURM_SBATCH, many, "sbatch"), -E2BIG, "too-many-directives",
                       "");
        char *arg = malloc(CORDON_SLURM_MAX_ARG_SIZE + 2);
        cr_assert_not_null(arg);
        memset(arg, 'a', CORDON_SLURM_MAX_ARG_SIZE + 1);
        arg[CORDON_SLURM_MAX_ARG_SIZE + 1] = 0;
        int r = PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-J", arg);
        free(arg);
        ASSERT_REFUSED(r, -E2BIG, "argument-too-long", "argv[2]");
}

/* ---- the checker ---- */

Test(slurm, allowed_submissions)
{
        ASSERT_OK(CHECK(CORDON_SLURM_SBATCH,
                        "#!/bin/sh\n#SBATCH --output=logs/%x-%j.out\n#SBATCH -e " PROJECT "/e\n",
                        "sbatch", "-J", "build", "--chdir=..", "-i", "/opt/data/in", "-D",
                        "/scratch/u/run", "--export=ALL", "--mail-type=END", "--open-mode=append",
                        "job.sh", "--output=/etc/passwd"));
        ASSERT_OK(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "-n4", "-o", "none", "-i", "all", "-e",
                        "3", "--export=NONE,PATH", "--bcast=/scratch/u/bin", "./a.out"));
        ASSERT_OK(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--multi-prog", "conf/multi.conf"));
        ASSERT_OK(CHECK(CORDON_SLURM_SALLOC, NULL, "salloc", "-N2", "--no-shell"));
        ASSERT_OK(
            CHECK(CORDON_SLURM_SBATCH, "#!/bin/sh\n#PBS -o /etc/x\n", "sbatch", "--ignore-pbs"));
        ASSERT_OK(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "-w", "node[1-4]", "-x", "node5", "true"));
        policy.job_env_filtered = true;
        ASSERT_OK(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--export=NONE"));
}

Test(slurm, paths_outside)
{
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--out=/etc/x"), -EPERM,
                       "path-not-writable", "argv[1]: '--out' (--output): the path '/etc/x'");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-e", "../../x"), -EPERM,
                       "path-not-writable", "'/home/u/x'");
        /* A read root is not writable. */
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-o", "/opt/data/o"), -EPERM,
                       "path-not-writable", "'-o' (--output)");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--input=/home/u/.ssh/id_rsa"),
                       -EPERM, "path-not-readable", "'--input' (--input)");
        /* srun's files are opened by slurmstepd after the check, whatever the path: only a
         * task spec passes (a batch job's are given by the chaperon's redirects). */
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "-o", "/tmp/x", "true"), -EPERM,
                       "stdio-file", "'-o'");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "-e", PROJECT "/err", "true"), -EPERM,
                       "stdio-file", "'-e' (--error)");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--input=in.txt", "true"), -EPERM,
                       "stdio-file", "redirect inside the command");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-D", "/home/u"), -EPERM,
                       "path-not-readable", "'-D' (--chdir)");
        /* A relative path is judged from the --chdir too. */
        ASSERT_REFUSED(
            CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-D", "/opt/data", "-o", "x.out"), -EPERM,
            "path-not-writable", "'/opt/data/x.out'");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, "#!/bin/sh\n#SBATCH -o /proj2/x\n", "sbatch"),
                       -EPERM, "path-not-writable", "script line 2: '-o'");
        /* "/home/u/proj2" is not below "/home/u/proj". */
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-o", PROJECT "2/x"), -EPERM,
                       "path-not-writable", "proj2");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-F", "/etc/hosts"), -EPERM,
                       "path-not-readable", "'-F' (--nodefile)");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "-w", "/etc/shadow", "true"), -EPERM,
                       "path-not-readable", "'-w' (--nodelist)");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--exclude=/root/x"), -EPERM,
                       "path-not-readable", "--exclude");
}

/* The caller's second look at each path: what it refuses is refused as "path-link", naming the
 * path; it sees every path the lexical check let through, and nothing else. */
static char seen_paths[512];
static int recheck(const void *userdata, const char *path, bool write)
{
        (void)userdata;
        size_t n = strlen(seen_paths);
        snprintf(seen_paths + n, sizeof(seen_paths) - n, "%s%s:%d", n ? " " : "", path, write);
        return strstr(path, "link") ? -ELOOP : 0;
}

Test(slurm, paths_rechecked)
{
        policy.recheck_path = recheck;
        seen_paths[0] = 0;
        ASSERT_OK(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-o", "out", "-i", "/opt/data/in"));
        cr_assert_str_eq(seen_paths, CWD "/out:1 /opt/data/in:0");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-o", "link/out"), -EPERM,
                       "path-link",
                       "'" CWD "/link/out' passes through a symbolic link on the host");
        seen_paths[0] = 0;
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-o", "/etc/link"), -EPERM,
                       "path-not-writable", "/etc/link");
        cr_assert_str_eq(seen_paths, "", "a path refused lexically is not looked at");
}

Test(slurm, path_patterns)
{
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-o", "%j/../../../x"), -EPERM,
                       "path-pattern-dotdot", "'%j/../../../x'");
        ASSERT_REFUSED(
            CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-J", "../../../.bashrc", "-o", "%x"),
            -EPERM, "path-job-name", "'-o' (--output)");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-J", "..", "-o", "a/%5x.out"),
                       -EPERM, "path-job-name", "");
        /* Control: %% is a literal '%', and a safe name. */
        ASSERT_OK(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-J", "../x", "-o", "a%%x"));
        ASSERT_OK(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "-J", "n", "-o", "%x/%j.out"));
}

Test(slurm, refused_options)
{
        static const char *const cases[][2] = {
            {"--task-prolog=/bin/x", "--task-prolog"},
            {"--task-epilog=x", "--task-epilog"},
            {"--prolog=x", "--prolog"},
            {"--epilog=x", "--epilog"},
            {"--uid=0", "--uid"},
            {"--gid=0", "--gid"},
            {"--container=/b", "--container"},
            {"--bb=x", "--bb"},
            {"--bbf=x", "--bbf"},
            {"--x11", "--x11"},
            {"--mail-user=a@b", "--mail-user"},
            {"--context=u:r:t", "--context"},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", cases[i][0], "true"), -EPERM,
                               "option-refused", cases[i][1]);
        }
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--get-user-env"), -EPERM,
                       "option-refused", "'--get-user-env' (--get-user-env)");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, "#!/bin/sh\n#SBATCH --get-user=10L\n", "sbatch"),
                       -EPERM, "option-refused", "script line 2: '--get-user'");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--export-file=/p/env"), -EPERM,
                       "option-refused", "--export-file");
}

Test(slurm, export)
{
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--export=ALL,GITHUB_TOKEN", "true"),
                       -EPERM, "export-blocked", "GITHUB_TOKEN");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--export=A=1,DB_SECRET=x", "true"),
                       -EPERM, "export-blocked", "DB_SECRET");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--export=PATH=/a:/b,/c", "true"),
                       -EPERM, "export-not-a-name", "'/c'");
        ASSERT_REFUSED(
            CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--export=SLURM_TASK_PROLOG=/x", "true"), -EPERM,
            "export-slurm-variable", "SLURM_TASK_PROLOG");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--export=NONE"), -EPERM,
                       "export-login-environment", "'NONE'");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--export=ALL,A=1"), -EPERM,
                       "export-login-environment", "");
        ASSERT_OK(CHECK(CORDON_SLURM_SBATCH, SCRIPT, "sbatch", "--export=all"));
        ASSERT_OK(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--export=NIL,A=1,B", "true"));
}

Test(slurm, srun_files_read_on_host)
{
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--multi-prog", "/etc/multi.conf"),
                       -EPERM, "path-not-readable", "argv[2]: '/etc/multi.conf'");
        ASSERT_REFUSED(
            CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--bcast=/scratch/u/x", "/home/u/.ssh/id_rsa"),
            -EPERM, "path-not-readable", "argv[2]");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--bcast=/scratch/u/x", "hostname"),
                       -EPERM, "bcast-command", "argv[2]: 'hostname'");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--bcast", "./a.out"), -EPERM,
                       "bcast-destination", "'--bcast'");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "--bcast=/usr/bin/x", "./a.out"),
                       -EPERM, "path-not-writable", "'/usr/bin/x'");
        /* Control: without --bcast or --multi-prog the command runs on the node, confined. */
        ASSERT_OK(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "/home/u/.ssh/x"));
}

Test(slurm, salloc_host_command)
{
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SALLOC, NULL, "salloc", "-N1"), -EPERM, "salloc-shell",
                       "--no-shell");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SALLOC, NULL, "salloc", "--no-shell", "bash"), -EPERM,
                       "salloc-command", "argv[2]: 'bash'");
}

Test(slurm, script_translated_and_burst_buffer)
{
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, "#!/bin/sh\necho\n#PBS -o /etc/x\n", "sbatch"),
                       -EPERM, "script-translated-directive", "script line 3");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, "#!/bin/sh\n#BSUB -o /etc/x\n", "sbatch"), -EPERM,
                       "script-translated-directive", "script line 2");
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SBATCH, "#!/bin/sh\n#DW stage_in source=/x\n", "sbatch"),
                       -EPERM, "script-burst-buffer", "script line 2");
        ASSERT_REFUSED(
            CHECK(CORDON_SLURM_SBATCH, "#!/bin/sh\n#BB_LUA pool=x\n", "sbatch", "--ignore-pbs"),
            -EPERM, "script-burst-buffer", "");
}

Test(slurm, every_use_judged)
{
        /* Overridden by the command line, the directive is still judged. */
        ASSERT_REFUSED(
            CHECK(CORDON_SLURM_SBATCH, "#!/bin/sh\n#SBATCH -o /etc/x\n", "sbatch", "-o", "ok"),
            -EPERM, "path-not-writable", "script line 2");
        /* The second component's options too. */
        ASSERT_REFUSED(CHECK(CORDON_SLURM_SRUN, NULL, "srun", "a", ":", "--task-prolog=x", "b"),
                       -EPERM, "option-refused", "argv[3]");
}

Test(slurm, cwd_and_table)
{
        ASSERT_OK(PARSE(CORDON_SLURM_SBATCH, SCRIPT, "sbatch"));
        cr_assert_eq(cordon_slurm_submit_check(sub, &policy, "rel", &rule, &diag), -EINVAL);
        /* Every row: a name, a command, a reason when refused; short names unique per command. */
        for (const struct cordon_slurm_option *o = cordon_slurm_options; o->name; o++) {
                cr_assert(o->commands != 0, "%s", o->name);
                cr_assert(o->rule != CORDON_SLURM_RULE_REFUSED || o->why[0], "%s", o->name);
                for (const struct cordon_slurm_option *q = o + 1; q->name; q++) {
                        cr_assert(!(o->short_name && o->short_name == q->short_name &&
                                    (o->commands & q->commands)),
                                  "-%c twice", o->short_name);
                        cr_assert(!(streq(o->name, q->name) && (o->commands & q->commands)),
                                  "--%s twice", o->name);
                }
        }
}
