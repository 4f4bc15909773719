/* Unit tests for src/lib/slurm/slurm-scope-scontrol.c: scontrol's subcommands found as scontrol
 * finds them (abbreviations, first match in its order) and written out in full, the allow-list,
 * job ids in scope, update's keys, and the filter asked for show job|step. */
#include "slurm-scope-fixture.h"

TestSuite(scontrol, .init = scope_setup, .fini = scope_teardown);

#define SC CORDON_SLURM_SCONTROL

Test(scontrol, show_job)
{
        int r = SESSION(SC, "scontrol", "show", "job", "100");
        EXPECT_ARGV(r, "scontrol -- show jobs 100");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_NONE);
        r = SESSION(SC, "scontrol", "-d", "sho", "j=200_3");
        EXPECT_ARGV(r, "scontrol --details -- show jobs 200_3");
        r = SESSION(SC, "scontrol", "show", "job", "400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "'400'");
        r = SESSION(SC, "scontrol", "show", "jobid=400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "'jobid=400'");
        r = SESSION(SC, "scontrol", "show", "job", "100,200");
        EXPECT_REFUSED(r, -EINVAL, "job-id-invalid", "one job id");
        /* control */
        r = USERS(SC, "scontrol", "show", "job", "400");
        EXPECT_ARGV(r, "scontrol -- show jobs 400");
}

Test(scontrol, show_job_without_id_is_filtered)
{
        int r = SESSION(SC, "scontrol", "-o", "show", "job");
        EXPECT_ARGV(r, "scontrol --oneliner -- show jobs");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_SCONTROL);
        r = PROJECT(SC, "scontrol", "show", "steps");
        EXPECT_ARGV(r, "scontrol -- show steps");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_SCONTROL);
        r = SESSION(SC, "scontrol", "show", "step", "100.0");
        EXPECT_ARGV(r, "scontrol -- show steps 100.0");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_NONE);
        /* user and none: scontrol's own view */
        r = USERS(SC, "scontrol", "show", "job");
        EXPECT_ARGV(r, "scontrol -- show jobs");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_NONE);
}

Test(scontrol, show_other_entities)
{
        int r = SESSION(SC, "scontrol", "show", "partition", "gpu");
        EXPECT_ARGV(r, "scontrol -- show partitions gpu");
        r = SESSION(SC, "scontrol", "show", "node");
        EXPECT_ARGV(r, "scontrol -- show nodes");
        r = SESSION(SC, "scontrol", "show", "res");
        EXPECT_ARGV(r, "scontrol -- show reservations");
        r = SESSION(SC, "scontrol", "show", "config");
        EXPECT_ARGV(r, "scontrol -- show config");
        r = SESSION(SC, "scontrol", "show", "hostnames", "n[1-4]");
        EXPECT_ARGV(r, "scontrol -- show hostnames n[1-4]");
        /* "hostlists" is too long for hostlist: hostlistsorted */
        r = SESSION(SC, "scontrol", "show", "hostlists", "n1,n2");
        EXPECT_ARGV(r, "scontrol -- show hostlistsorted n1,n2");
        const char *refused[] = {"assoc_mgr", "cache", "burstbuffer", "bbstat", "slurmd", "xyz"};
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                r = SESSION(SC, "scontrol", "show", refused[i]);
                EXPECT_REFUSED(r, -EPERM, "scontrol-refused", "argv[2]");
        }
        r = SESSION(SC, "scontrol", "show");
        EXPECT_REFUSED(r, -EINVAL, "scontrol-arguments", "show");
        r = SESSION(SC, "scontrol", "show", "job", "100", "x");
        EXPECT_REFUSED(r, -EINVAL, "scontrol-arguments", "'x'");
}

Test(scontrol, subcommands_refused)
{
        const char *refused[] = {
            "create",        "delete",    "reconfigure", "shutdown", "takeover",
            "setdebug",      "token",     "write",       "abort",    "listpids",
            "reboot_nodes",  "ping",      "callerid",    "cluster",  "getent",
            "schedloglevel", "errnumstr", "hide",        "oneliner", "pidinfo",
            "quit",          "exit",      "details",     "all",      "c"};
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                int r = NONE(SC, "scontrol", refused[i], "x");
                cr_assert_eq(r, -EPERM, "%s: %s", refused[i], diag.message);
                EXPECT_REFUSED(r, -EPERM, "scontrol-refused", "argv[1]");
        }
        /* "de" is details (first in scontrol's order), "d" too; "del" is delete */
        int r = NONE(SC, "scontrol", "del", "job", "1");
        EXPECT_REFUSED(r, -EPERM, "scontrol-refused", "scontrol delete");
        /* a word starting "setdebug" stops scontrol's options */
        r = NONE(SC, "scontrol", "-v", "setdebugflags", "-x");
        EXPECT_REFUSED(r, -EPERM, "scontrol-refused", "setdebug");
        r = NONE(SC, "scontrol", "show", "-v", "SetDebugX");
        EXPECT_REFUSED(r, -EPERM, "scontrol-refused", "argv[3]");
        /* scontrol without a command reads commands from its input */
        r = NONE(SC, "scontrol", "-v");
        EXPECT_REFUSED(r, -EPERM, "scontrol-interactive", "argv[0]");
        r = NONE(SC, "scontrol", "--help");
        EXPECT_ARGV(r, "scontrol --help");
        r = NONE(SC, "scontrol", "vers");
        EXPECT_ARGV(r, "scontrol -- version");
}

Test(scontrol, options)
{
        int r = NONE(SC, "scontrol", "-u", "bob", "hold", "1");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "(--uid)");
        r = NONE(SC, "scontrol", "--uid=alice", "hold", "1");
        EXPECT_ARGV(r, "scontrol --uid=alice -- hold 1");
        r = SESSION(SC, "scontrol", "-M", "c2", "show", "job", "100");
        EXPECT_REFUSED(r, -EPERM, "cluster-in-scope", "(--cluster)");
        /* permuted: "-d" after the subcommand is scontrol's option */
        r = SESSION(SC, "scontrol", "show", "job", "100", "-d");
        EXPECT_ARGV(r, "scontrol --details -- show jobs 100");
        r = NONE(SC, "scontrol", "--json", "show", "job");
        EXPECT_REFUSED(r, -EINVAL, "unknown-option", "--json");
        /* usage and help are one option (val 'h'); "--u" is also uid */
        r = NONE(SC, "scontrol", "--u");
        EXPECT_REFUSED(r, -EINVAL, "ambiguous-option", "--u");
}

Test(scontrol, hold_release_and_friends)
{
        int r = SESSION(SC, "scontrol", "hold", "100", "JobId=200_[1-2]", "job=300");
        EXPECT_ARGV(r, "scontrol -- hold 100 200_[1-2] 300");
        r = SESSION(SC, "scontrol", "holdu", "100");
        EXPECT_ARGV(r, "scontrol -- uhold 100");
        r = SESSION(SC, "scontrol", "UHOLD", "100");
        EXPECT_ARGV(r, "scontrol -- uhold 100");
        r = SESSION(SC, "scontrol", "holdme", "100"); /* "hold" over 4 characters */
        EXPECT_ARGV(r, "scontrol -- hold 100");
        r = SESSION(SC, "scontrol", "rel", "100,200");
        EXPECT_ARGV(r, "scontrol -- release 100,200");
        r = SESSION(SC, "scontrol", "su", "100");
        EXPECT_ARGV(r, "scontrol -- suspend 100");
        r = SESSION(SC, "scontrol", "res", "100");
        EXPECT_ARGV(r, "scontrol -- resume 100");
        r = SESSION(SC, "scontrol", "top", "100");
        EXPECT_ARGV(r, "scontrol -- top 100");
        r = SESSION(SC, "scontrol", "wait", "100");
        EXPECT_ARGV(r, "scontrol -- wait_job 100");
        r = SESSION(SC, "scontrol", "requeue", "inc", "State=SE", "100");
        EXPECT_ARGV(r, "scontrol -- requeue Incomplete State=SpecialExit 100");
        r = SESSION(SC, "scontrol", "requeuehold", "JobId=100");
        EXPECT_ARGV(r, "scontrol -- requeuehold 100");

        r = SESSION(SC, "scontrol", "hold", "100", "400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "argv[3]");
        r = SESSION(SC, "scontrol", "release", "jobid=400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "job 400");
        r = SESSION(SC, "scontrol", "suspend", "100,400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "job 400");
        r = SESSION(SC, "scontrol", "hold", "1 2");
        EXPECT_REFUSED(r, -EINVAL, "job-id-invalid", "'1 2'");
        r = SESSION(SC, "scontrol", "top", "100", "200");
        EXPECT_REFUSED(r, -EINVAL, "scontrol-arguments", "argv[3]");
        r = SESSION(SC, "scontrol", "hold");
        EXPECT_REFUSED(r, -EINVAL, "scontrol-arguments", "hold");
        /* a job name chooses by criteria */
        r = SESSION(SC, "scontrol", "hold", "Name=x");
        EXPECT_REFUSED(r, -EPERM, "name-selection", "'Name=x'");
        r = USERS(SC, "scontrol", "hold", "JobName=x");
        EXPECT_ARGV(r, "scontrol -- hold JobName=x");
}

Test(scontrol, notify)
{
        int r = SESSION(SC, "scontrol", "notify", "100", "hello", "there");
        EXPECT_ARGV(r, "scontrol -- notify 100 hello there");
        r = SESSION(SC, "scontrol", "notify", "400", "hi");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "'400'");
        r = SESSION(SC, "scontrol", "notify", "100_1", "hi"); /* atoi() would read 100 */
        EXPECT_REFUSED(r, -EINVAL, "job-id-invalid", "plain job id");
        r = SESSION(SC, "scontrol", "notify", "100");
        EXPECT_REFUSED(r, -EINVAL, "scontrol-arguments", "notify");
}

Test(scontrol, update)
{
        int r = SESSION(SC, "scontrol", "update", "JobId=100", "TimeLimit+=10", "partition=gpu",
                        "Nice", "comm=x", "Dependency=afterok:200:300_1,singleton");
        EXPECT_ARGV(r, "scontrol -- update JobId=100 TimeLimit+=10 Partition=gpu Nice "
                       "Comment=x Dependency=afterok:200:300_1,singleton");
        r = SESSION(SC, "scontrol", "u", "jobid=100,200", "JobName=new", "ResetAcc");
        EXPECT_ARGV(r, "scontrol -- update JobId=100,200 JobName=new ResetAccrueTime");

        r = SESSION(SC, "scontrol", "update", "JobId=400", "Nice=5");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "'JobId=400'");
        r = SESSION(SC, "scontrol", "update", "JobId=100", "JobId=400", "Nice=5");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "argv[3]");
        r = SESSION(SC, "scontrol", "update", "JobId=100", "Dependency=afterany:400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "job 400");
        r = SESSION(SC, "scontrol", "update", "JobId=100", "Dependency=after");
        EXPECT_REFUSED(r, -EINVAL, "job-id-invalid", "TYPE:ID");

        const char *refused[] = {"StdOut=/tmp/x", "WorkDir=/",      "MailUser=a@b", "BurstBuffer=x",
                                 "UserID=bob",    "AdminComment=x", "wo=/"};
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                r = NONE(SC, "scontrol", "update", "JobId=1", refused[i]);
                EXPECT_REFUSED(r, -EPERM, "update-key-refused", "argv[3]");
        }
        r = NONE(SC, "scontrol", "update", "JobId=1", "Name=../x");
        EXPECT_REFUSED(r, -EPERM, "path-job-name", "'Name=../x'");
        r = NONE(SC, "scontrol", "update", "JobId=1", "JobName=");
        EXPECT_REFUSED(r, -EPERM, "path-job-name", "argv[3]");
        /* the first word: JobId=; no other entity */
        r = NONE(SC, "scontrol", "update", "PartitionName=x", "JobId=1");
        EXPECT_REFUSED(r, -EINVAL, "update-syntax", "JobId=ID");
        r = NONE(SC, "scontrol", "update", "Nice", "JobId=1", "PartitionName=p");
        EXPECT_REFUSED(r, -EINVAL, "update-syntax", "argv[2]");
        r = NONE(SC, "scontrol", "update", "JobId", "1");
        EXPECT_REFUSED(r, -EINVAL, "update-syntax", "argv[2]");
        r = NONE(SC, "scontrol", "update", "JobId=1", "TimeLimit", "5");
        EXPECT_REFUSED(r, -EINVAL, "update-syntax", "argv[3]");
        r = NONE(SC, "scontrol", "update", "JobId=1", "Bogus=5");
        EXPECT_REFUSED(r, -EINVAL, "update-key-unknown", "Bogus");
        /* "Jo" is too short for JobId (three characters) */
        r = NONE(SC, "scontrol", "update", "Jo=1", "Nice=1");
        EXPECT_REFUSED(r, -EINVAL, "update-syntax", "argv[2]");
}
