/* Unit tests for src/lib/slurm/slurm-scope-filter.c: scontrol show job|step output, multi-line
 * and oneliner, kept to the jobs in scope (array tasks and heterogeneous components by their
 * base job), and its limits. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/slurm/slurm-scope.h"
#include "shared/macro.h"

static const uint32_t ids[] = {300, 100};
static char *out;
static size_t out_len;

static void teardown(void)
{
        free(out);
        out = NULL;
}

TestSuite(scope_filter, .fini = teardown);

static int filter(const char *in)
{
        free(out);
        out = NULL;
        return cordon_slurm_scope_filter_scontrol(in, strlen(in), ids, ELEMENTSOF(ids), &out,
                                                  &out_len);
}

#define JOB(id, extra)                                                                             \
        "JobId=" #id " " extra "JobName=n" #id "\n   UserId=alice(1000) GroupId=g(1000)\n"         \
        "   JobState=RUNNING Reason=None\n\n"

Test(scope_filter, multi_line_records)
{
        const char *in = JOB(100, "") JOB(200, "") JOB(300, "");
        cr_assert_eq(filter(in), 0);
        cr_assert_str_eq(out, JOB(100, "") JOB(300, ""));
        cr_assert_eq(out_len, strlen(out));
}

Test(scope_filter, oneliner_records)
{
        const char *in = "JobId=100 JobName=a UserId=alice(1000)\n"
                         "JobId=200 JobName=b UserId=alice(1000)\n"
                         "JobId=300 JobName=c UserId=alice(1000)\n";
        cr_assert_eq(filter(in), 0);
        cr_assert_str_eq(out, "JobId=100 JobName=a UserId=alice(1000)\n"
                              "JobId=300 JobName=c UserId=alice(1000)\n");
        /* the last line without a newline */
        cr_assert_eq(filter("JobId=200 JobName=b\nJobId=100 JobName=a"), 0);
        cr_assert_str_eq(out, "JobId=100 JobName=a");
}

Test(scope_filter, array_tasks_and_het_components_by_their_base)
{
        const char *in = JOB(101, "ArrayJobId=100 ArrayTaskId=1 ")
            JOB(201, "ArrayJobId=200 ArrayTaskId=1 ") JOB(100, "ArrayJobId=100 ArrayTaskId=2-9%2 ")
                JOB(301, "HetJobId=300 HetJobOffset=1 ") JOB(401, "HetJobId=400 HetJobOffset=1 ");
        cr_assert_eq(filter(in), 0);
        cr_assert_str_eq(out, JOB(101, "ArrayJobId=100 ArrayTaskId=1 ")
                                  JOB(100, "ArrayJobId=100 ArrayTaskId=2-9%2 ")
                                      JOB(301, "HetJobId=300 HetJobOffset=1 "));
}

Test(scope_filter, the_name_is_not_read)
{
        /* a job named "x ArrayJobId=100" is no task of job 100 */
        const char *in = "JobId=500 JobName=x ArrayJobId=100\n   UserId=bob(1001)\n\n";
        cr_assert_eq(filter(in), 0);
        cr_assert_str_eq(out, "No jobs in the system\n");
        /* a field line that starts "JobId=" only after indentation is a field */
        in = JOB(100, "") "JobId=500 JobName=y\n      JobId=100 in a comment\n\n";
        cr_assert_eq(filter(in), 0);
        cr_assert_str_eq(out, JOB(100, ""));
}

Test(scope_filter, steps)
{
        const char *in = "StepId=100.0 UserId=1000 StartTime=x\n   Partition=p\n\n"
                         "StepId=200.batch UserId=1000\n\n"
                         "StepId=300_4.extern UserId=1000\n\n";
        cr_assert_eq(filter(in), 0);
        cr_assert_str_eq(out, "StepId=100.0 UserId=1000 StartTime=x\n   Partition=p\n\n"
                              "StepId=300_4.extern UserId=1000\n\n");
        cr_assert_eq(filter("StepId=200.0 UserId=1000\n\n"), 0);
        cr_assert_str_eq(out, "No job steps in the system\n");
}

Test(scope_filter, no_records)
{
        /* scontrol's own message, kept */
        cr_assert_eq(filter("No jobs in the system\n"), 0);
        cr_assert_str_eq(out, "No jobs in the system\n");
        cr_assert_eq(filter(""), 0);
        cr_assert_str_eq(out, "");
        cr_assert_eq(out_len, 0);
        /* scontrol -v's counts before the records are not kept */
        cr_assert_eq(filter("last_update_time=x, records=3\n" JOB(100, "") JOB(200, "")), 0);
        cr_assert_str_eq(out, JOB(100, ""));
        /* a record whose id cannot be read is not kept */
        cr_assert_eq(filter("JobId=x JobName=a\n"), 0);
        cr_assert_str_eq(out, "No jobs in the system\n");
        cr_assert_eq(filter("JobId=100 ArrayJobId=x JobName=a\n"), 0);
        cr_assert_str_eq(out, "No jobs in the system\n");
        cr_assert_eq(filter("JobId=4294967296 JobName=a\n"), 0);
        cr_assert_str_eq(out, "No jobs in the system\n");
}

Test(scope_filter, empty_scope_and_limits)
{
        const char *in = JOB(100, "");
        cr_assert_eq(cordon_slurm_scope_filter_scontrol(in, strlen(in), NULL, 0, &out, &out_len),
                     0);
        cr_assert_str_eq(out, "No jobs in the system\n");
        free(out);
        out = NULL;
        cr_assert_eq(cordon_slurm_scope_filter_scontrol(in, CORDON_SLURM_SCOPE_MAX_OUTPUT + 1, ids,
                                                        2, &out, &out_len),
                     -E2BIG);
        cr_assert_eq(cordon_slurm_scope_filter_scontrol(
                         in, strlen(in), ids, CORDON_SLURM_SCOPE_MAX_IDS + 1, &out, &out_len),
                     -E2BIG);
        cr_assert_eq(cordon_slurm_scope_filter_scontrol(NULL, 1, ids, 2, &out, &out_len), -EINVAL);
        cr_assert_eq(cordon_slurm_scope_filter_scontrol(in, strlen(in), NULL, 2, &out, &out_len),
                     -EINVAL);
        cr_assert_eq(cordon_slurm_scope_filter_scontrol(in, strlen(in), ids, 2, NULL, &out_len),
                     -EINVAL);
        cr_assert_null(out);
        /* NUL bytes in the output are data like any other */
        static const char nul[] = "JobId=100 JobName=a\0b\nJobId=200 JobName=c\n";
        cr_assert_eq(
            cordon_slurm_scope_filter_scontrol(nul, sizeof(nul) - 1, ids, 2, &out, &out_len), 0);
        cr_assert_eq(out_len, 22);
        cr_assert_eq(memcmp(out, nul, 22), 0);
}
