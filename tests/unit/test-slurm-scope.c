/* Unit tests for src/lib/slurm/slurm-scope.c: every rule of squeue, scancel, sstat, sacct,
 * sinfo, sprio, sshare and sacctmgr under each SLURM_SCOPE, the rewritten command, and every
 * refusal (errno, rule key, the option named), each with an allowed control. */
#include "lib/settings/settings.h"
#include "slurm-scope-fixture.h"

TestSuite(scope, .init = scope_setup, .fini = scope_teardown);

/* ---- the request ---- */

Test(scope, enum_order_is_the_registrys)
{
        struct cordon_settings *s = NULL;
        cr_assert_eq(cordon_settings_new("/home/alice", &s), 0);
        cr_assert_eq(s->slurm_scope, CORDON_SLURM_SCOPE_PROJECT); /* the default */
        for (int i = 0; i < _CORDON_SLURM_SCOPE_MAX; i++) {
                const char *name = cordon_slurm_scope_name((enum cordon_slurm_scope)i);
                int r = cordon_settings_set(s, "SLURM_SCOPE", name, "test", &diag);
                cr_assert(r == 0 || r == -EOPNOTSUPP, "%s: %d", name, r);
                if (r == 0)
                        cr_assert_eq(s->slurm_scope, i, "%s", name);
        }
        cr_assert_null(cordon_slurm_scope_name(_CORDON_SLURM_SCOPE_MAX));
        cordon_settings_free(s);
}

Test(scope, invalid_requests)
{
        _cleanup_strv_free_ char **argv = STRV_MAKE("squeue");
        struct cordon_slurm_scope_request req = {
            .command = CORDON_SLURM_SQUEUE, .argv = argv, .scope = 9, .user = USER, .uid = UID};
        cr_assert_eq(cordon_slurm_scope_check(&req, &res, &rule, &diag), -EINVAL);
        req.scope = CORDON_SLURM_SCOPE_USER;
        req.command = _CORDON_SLURM_QUERY_MAX;
        cr_assert_eq(cordon_slurm_scope_check(&req, &res, &rule, &diag), -EINVAL);
        req.command = CORDON_SLURM_SQUEUE;
        req.user = "a,b"; /* would be a list of users in --user=NAME */
        cr_assert_eq(cordon_slurm_scope_check(&req, &res, &rule, &diag), -EINVAL);
        req.user = NULL;
        cr_assert_eq(cordon_slurm_scope_check(&req, &res, &rule, &diag), -EINVAL);
        req.user = USER;
        req.n_ids = 1; /* without ids */
        cr_assert_eq(cordon_slurm_scope_check(&req, &res, &rule, &diag), -EINVAL);
        req.n_ids = 0;
        cr_assert_eq(cordon_slurm_scope_check(&req, &res, &rule, &diag), 0);
        cr_assert_str_eq(res.argv[0], "squeue");
}

Test(scope, limits)
{
        static uint32_t many[CORDON_SLURM_SCOPE_MAX_IDS + 1];
        for (size_t i = 0; i < ELEMENTSOF(many); i++)
                many[i] = (uint32_t)i + 1;
        int r = judge_s(CORDON_SLURM_SQUEUE, CORDON_SLURM_SCOPE_SESSION, many, ELEMENTSOF(many),
                        STRV_MAKE("squeue"));
        EXPECT_REFUSED(r, -E2BIG, "too-many-ids", "squeue");
        r = judge_s(CORDON_SLURM_SQUEUE, CORDON_SLURM_SCOPE_SESSION, many, ELEMENTSOF(many) - 1,
                    STRV_MAKE("squeue"));
        cr_assert_eq(r, 0);
        cr_assert(startswith(joined, "squeue --jobs=1,2,3,"));

        _cleanup_free_ char *big = malloc(128 * 1024 + 2);
        memset(big, 'x', 128 * 1024 + 1);
        big[128 * 1024 + 1] = 0;
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--name", big);
        EXPECT_REFUSED(r, -E2BIG, "argument-too-long", "argv[2]");
        big[128 * 1024] = 0;
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--name", big);
        cr_assert_eq(r, 0);

        /* a list of more jobs or users than the limit, and one at the limit */
        size_t n = 0;
        n += (size_t)sprintf(big, "--jobs=");
        for (unsigned i = 0; i <= CORDON_SLURM_SCOPE_MAX_LIST_ITEMS; i++)
                n += (size_t)sprintf(big + n, "%s1", i ? "," : "");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", big);
        EXPECT_REFUSED(r, -E2BIG, "too-many-ids", "--jobs");
        big[n - 2] = 0;
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", big);
        cr_assert_eq(r, 0, "%s", diag.message);
        n = (size_t)sprintf(big, "--user=");
        for (unsigned i = 0; i <= CORDON_SLURM_SCOPE_MAX_LIST_ITEMS; i++)
                n += (size_t)sprintf(big + n, "%s1000", i ? "," : "");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", big);
        EXPECT_REFUSED(r, -E2BIG, "too-many-users", "(--user)");
        big[n - 5] = 0;
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", big);
        cr_assert_eq(r, 0, "%s", diag.message);
}

/* ---- squeue ---- */

Test(scope, squeue_session_adds_the_jobs_and_me)
{
        int r = SESSION(CORDON_SLURM_SQUEUE, "squeue");
        EXPECT_ARGV(r, "squeue --jobs=100,200,300 --me");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_NONE);
        r = PROJECT(CORDON_SLURM_SQUEUE, "squeue", "-o", "%i %j", "-u", "alice", "-t", "R");
        EXPECT_ARGV(r, "squeue --format=%i %j --user=alice --states=R --jobs=100,200,300 --me");
}

Test(scope, squeue_user_and_none_add_me)
{
        int r = USERS(CORDON_SLURM_SQUEUE, "squeue", "-a", "-l");
        EXPECT_ARGV(r, "squeue --all --long --me");
        r = NONE(CORDON_SLURM_SQUEUE, "squeue", "--user=1000");
        EXPECT_ARGV(r, "squeue --user=1000 --me");
        r = NONE(CORDON_SLURM_SQUEUE, "squeue", "-j", "555");
        EXPECT_ARGV(r, "squeue --jobs --jobs=555 --me");
}

Test(scope, squeue_one_job_goes_in_twice)
{
        static const uint32_t one[] = {42};
        int r =
            judge_s(CORDON_SLURM_SQUEUE, CORDON_SLURM_SCOPE_SESSION, one, 1, STRV_MAKE("squeue"));
        /* a list of one is squeue's "load that job", an error once it is gone */
        EXPECT_ARGV(r, "squeue --jobs=42,42 --me");
}

Test(scope, squeue_own_job_list)
{
        int r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "--jobs=100,200_4");
        EXPECT_ARGV(r, "squeue --jobs=100,200_4 --me");
        r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "-j300");
        EXPECT_ARGV(r, "squeue --jobs=300 --me");
        /* -j's value is optional: the operand is the list */
        r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "-j", "100");
        EXPECT_ARGV(r, "squeue --jobs --jobs=100 --me");
        /* -j without a list: every job, so the scope's list */
        r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "-j");
        EXPECT_ARGV(r, "squeue --jobs --jobs=100,200,300 --me");
}

Test(scope, squeue_job_out_of_scope)
{
        int r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "--jobs=100,400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "--jobs");
        cr_assert(strstr(diag.message, "job 400"), "%s", diag.message);
        cr_assert(strstr(diag.message, "SLURM_SCOPE=session"), "%s", diag.message);
        r = PROJECT(CORDON_SLURM_SQUEUE, "squeue", "-j", "400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "'400'");
        cr_assert(strstr(diag.message, "SLURM_SCOPE=project"), "%s", diag.message);
        r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "--jobs=400_1");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "job 400");
        /* control: the same list in user scope */
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--jobs=100,400");
        EXPECT_ARGV(r, "squeue --jobs=100,400 --me");
}

Test(scope, squeue_steps)
{
        int r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "--steps=100.0,200.batch");
        EXPECT_ARGV(r, "squeue --steps=100.0,200.batch --jobs=100,200,300 --me");
        /* the operand of --steps stays a step list next to the --jobs the scope adds */
        r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "-s", "100.1");
        EXPECT_ARGV(r, "squeue --steps --steps=100.1 --jobs=100,200,300 --me");
        r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "--steps=400.0");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "--steps");
}

Test(scope, squeue_foreign_user)
{
        int r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "-u", "bob");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "(--user)");
        cr_assert(strstr(diag.message, "'bob'"), "%s", diag.message);
        /* in every scope, also none: --me semantics */
        r = NONE(CORDON_SLURM_SQUEUE, "squeue", "--users=alice,bob");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "--users=alice,bob");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--user=1001");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "1001");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--user=");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "--user");
        /* an abbreviation is the option it abbreviates */
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--use=bob");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "(--user)");
        /* a cluster of letters, a value attached */
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "-hubob");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "-hubob");
        /* getopt permutes: an option after an operand is read */
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "-j", "5", "-u", "bob");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "argv[3]");
        /* controls */
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--use=alice,1000");
        EXPECT_ARGV(r, "squeue --user=alice,1000 --me");
}

Test(scope, squeue_option_in_a_value_is_a_value)
{
        /* "-u" is --name's value, not an option */
        int r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--name", "-u", "--partition=-ubob");
        EXPECT_ARGV(r, "squeue --name=-u --partitions=-ubob --me");
        /* a short option without a long name keeps its value a word of its own */
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "-U", "", "-v");
        EXPECT_ARGV(r, "squeue -U  --verbose --me");
        cr_assert_str_eq(res.argv[1], "-U");
        cr_assert_str_eq(res.argv[2], "");
}

Test(scope, squeue_unknown_ambiguous_and_malformed)
{
        int r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--usr=bob");
        EXPECT_REFUSED(r, -EINVAL, "unknown-option", "--usr");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "-X");
        EXPECT_REFUSED(r, -EINVAL, "unknown-option", "-X");
        /* usage, user, users: two options */
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--us=bob");
        EXPECT_REFUSED(r, -EINVAL, "ambiguous-option", "--us");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--=x");
        EXPECT_REFUSED(r, -EINVAL, "ambiguous-option", "argv[1]");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--me=bob");
        EXPECT_REFUSED(r, -EINVAL, "unexpected-value", "--me");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "-u");
        EXPECT_REFUSED(r, -EINVAL, "missing-value", "-u");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--user");
        EXPECT_REFUSED(r, -EINVAL, "missing-value", "--user");
        /* an operand without --jobs or --steps; two operands; "--" makes options operands */
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "100");
        EXPECT_REFUSED(r, -EINVAL, "unexpected-operand", "'100'");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "-j", "100", "200");
        EXPECT_REFUSED(r, -EINVAL, "unexpected-operand", "'200'");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "-j", "--", "-u");
        EXPECT_REFUSED(r, -EINVAL, "job-id-invalid", "'-u'");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--jobs=012");
        EXPECT_REFUSED(r, -EINVAL, "job-id-invalid", "012");
        /* exact names win over longer ones */
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "--sib", "--node=n1", "--cluster=c");
        EXPECT_ARGV(r, "squeue --sib --node=n1 --cluster=c --me");
}

Test(scope, squeue_iterate_and_cluster_in_a_narrow_scope)
{
        int r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "-i", "5");
        EXPECT_REFUSED(r, -EPERM, "iterate-in-scope", "(--iterate)");
        r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "--clusters=other");
        EXPECT_REFUSED(r, -EPERM, "cluster-in-scope", "--clusters");
        r = USERS(CORDON_SLURM_SQUEUE, "squeue", "-i", "5", "-M", "other");
        EXPECT_ARGV(r, "squeue --iterate=5 --cluster=other --me");
}

Test(scope, squeue_empty_scope_prints_the_header)
{
        int r = EMPTY(CORDON_SLURM_SQUEUE, "squeue");
        EXPECT_ARGV(r, "squeue --me");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_HEADER_ONLY);
        cr_assert_eq(res.header_lines, 1);
        r = EMPTY(CORDON_SLURM_SQUEUE, "squeue", "--long");
        cr_assert_eq(r, 0);
        cr_assert_eq(res.header_lines, 2); /* the date line, then the header */
        r = EMPTY(CORDON_SLURM_SQUEUE, "squeue", "-h", "-o", "%i");
        cr_assert_eq(r, 0);
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_HEADER_ONLY);
        cr_assert_eq(res.header_lines, 0);
        r = EMPTY(CORDON_SLURM_SQUEUE, "squeue", "--json");
        EXPECT_REFUSED(r, -EPERM, "empty-scope-output", "(--json)");
        r = EMPTY(CORDON_SLURM_SQUEUE, "squeue", "-v");
        EXPECT_REFUSED(r, -EPERM, "empty-scope-output", "(--verbose)");
        /* controls: help prints no job; --json with jobs in scope is squeue's own filter */
        r = EMPTY(CORDON_SLURM_SQUEUE, "squeue", "--help");
        EXPECT_ARGV(r, "squeue --help --me");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_NONE);
        r = SESSION(CORDON_SLURM_SQUEUE, "squeue", "--json");
        EXPECT_ARGV(r, "squeue --json --jobs=100,200,300 --me");
        /* the empty scope names no job */
        r = EMPTY(CORDON_SLURM_SQUEUE, "squeue", "-j", "1");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "'1'");
}

/* ---- scancel ---- */

Test(scope, scancel_ids_in_scope)
{
        int r = SESSION(CORDON_SLURM_SCANCEL, "scancel", "100", "200_4", "300_[1-3,5]", "100+1",
                        "200.0", "300_*", "100,200");
        EXPECT_ARGV(r, "scancel --user=alice -- 100 200_4 300_[1-3,5] 100+1 200.0 300_* 100,200");
        r = SESSION(CORDON_SLURM_SCANCEL, "scancel", "--signal=USR1", "-b", "100");
        EXPECT_ARGV(r, "scancel --signal=USR1 --batch --user=alice -- 100");
        /* the operand after an option is still an operand (permuted) */
        r = SESSION(CORDON_SLURM_SCANCEL, "scancel", "100", "--me");
        EXPECT_ARGV(r, "scancel --me --user=alice -- 100");
}

Test(scope, scancel_id_out_of_scope)
{
        int r = SESSION(CORDON_SLURM_SCANCEL, "scancel", "100", "400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "argv[2]: '400'");
        r = SESSION(CORDON_SLURM_SCANCEL, "scancel", "100,400_2");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "job 400");
        r = PROJECT(CORDON_SLURM_SCANCEL, "scancel", "400+1");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "job 400");
        /* control */
        r = USERS(CORDON_SLURM_SCANCEL, "scancel", "400");
        EXPECT_ARGV(r, "scancel --user=alice -- 400");
}

Test(scope, scancel_malformed_ids)
{
        /* each would be read by scancel's strtol() as something else, or a range of ids */
        const char *bad[] = {"0100",    "+100",     " 100",     "100x",    "4294967396",
                             "12[3-5]", "100_[1-3", "100_[a]",  "100.0.1", "",
                             "0",       "100_",     "100,,200", "-100"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                int r = USERS(CORDON_SLURM_SCANCEL, "scancel", "--", bad[i]);
                EXPECT_REFUSED(r, -EINVAL, "job-id-invalid", "argv[2]");
        }
        int r = USERS(CORDON_SLURM_SCANCEL, "scancel", "4294967293");
        EXPECT_ARGV(r, "scancel --user=alice -- 4294967293");
}

Test(scope, scancel_criteria_only)
{
        int r = SESSION(CORDON_SLURM_SCANCEL, "scancel", "--name=x");
        EXPECT_REFUSED(r, -EPERM, "criteria-cancel", "scancel");
        r = SESSION(CORDON_SLURM_SCANCEL, "scancel", "--me");
        EXPECT_REFUSED(r, -EPERM, "criteria-cancel", "name the job ids");
        /* user and none: the criteria, and the user's own jobs only */
        r = USERS(CORDON_SLURM_SCANCEL, "scancel", "--name=x", "-p", "gpu");
        EXPECT_ARGV(r, "scancel --name=x --partition=gpu --user=alice");
        r = NONE(CORDON_SLURM_SCANCEL, "scancel", "--state=PENDING");
        EXPECT_ARGV(r, "scancel --state=PENDING --user=alice");
        r = SESSION(CORDON_SLURM_SCANCEL, "scancel", "--version");
        EXPECT_ARGV(r, "scancel --version --user=alice");
}

Test(scope, scancel_options)
{
        int r = USERS(CORDON_SLURM_SCANCEL, "scancel", "-u", "bob");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "(--user)");
        /* sibling, signal */
        r = USERS(CORDON_SLURM_SCANCEL, "scancel", "--si=x", "100");
        EXPECT_REFUSED(r, -EINVAL, "ambiguous-option", "--si");
        r = USERS(CORDON_SLURM_SCANCEL, "scancel", "--sig=KILL", "--jobn", "x", "100");
        EXPECT_ARGV(r, "scancel --signal=KILL --jobname=x --user=alice -- 100");
        r = SESSION(CORDON_SLURM_SCANCEL, "scancel", "-M", "c2", "100");
        EXPECT_REFUSED(r, -EPERM, "cluster-in-scope", "(--cluster)");
}

/* ---- sstat ---- */

Test(scope, sstat)
{
        int r = SESSION(CORDON_SLURM_SSTAT, "sstat", "-j", "100.0,200", "-a");
        EXPECT_ARGV(r, "sstat --jobs=100.0,200 --allsteps");
        r = SESSION(CORDON_SLURM_SSTAT, "sstat", "100.batch");
        EXPECT_ARGV(r, "sstat -- 100.batch");
        r = SESSION(CORDON_SLURM_SSTAT, "sstat", "--jobs=400.0");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "--jobs");
        r = SESSION(CORDON_SLURM_SSTAT, "sstat", "-a");
        EXPECT_REFUSED(r, -EPERM, "jobs-required", "sstat");
        r = SESSION(CORDON_SLURM_SSTAT, "sstat", "--helpformat");
        EXPECT_ARGV(r, "sstat --helpformat");
        r = USERS(CORDON_SLURM_SSTAT, "sstat", "-a");
        EXPECT_ARGV(r, "sstat --allsteps");
        /* "usage" sets a flag in sstat's table: an option of its own, so "--us" is it */
        r = USERS(CORDON_SLURM_SSTAT, "sstat", "--us");
        EXPECT_ARGV(r, "sstat --usage");
}

/* ---- sacct ---- */

Test(scope, sacct_forces_the_user)
{
        int r = USERS(CORDON_SLURM_SACCT, "sacct");
        EXPECT_ARGV(r, "sacct --user=alice");
        r = NONE(CORDON_SLURM_SACCT, "sacct", "-u", "alice", "-S", "now-1day");
        EXPECT_ARGV(r, "sacct --uid=alice --starttime=now-1day --user=alice");
        r = SESSION(CORDON_SLURM_SACCT, "sacct", "-X");
        EXPECT_ARGV(r, "sacct --allocations --jobs=100,200,300 --user=alice");
        r = SESSION(CORDON_SLURM_SACCT, "sacct", "-j", "100.batch,200_3.extern");
        EXPECT_ARGV(r, "sacct --jobs=100.batch,200_3.extern --user=alice");
}

Test(scope, sacct_refusals)
{
        int r = USERS(CORDON_SLURM_SACCT, "sacct", "-a");
        EXPECT_REFUSED(r, -EPERM, "all-users", "(--allusers)");
        r = NONE(CORDON_SLURM_SACCT, "sacct", "--allu");
        EXPECT_REFUSED(r, -EPERM, "all-users", "--allu");
        r = NONE(CORDON_SLURM_SACCT, "sacct", "-u", "-1"); /* sacct's "every user" */
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "(--uid)");
        r = NONE(CORDON_SLURM_SACCT, "sacct", "--user=bob");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "--user=bob");
        r = NONE(CORDON_SLURM_SACCT, "sacct", "--uid=0");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "--uid=0");
        r = NONE(CORDON_SLURM_SACCT, "sacct", "-f", "/var/log/slurm/jobcomp");
        EXPECT_REFUSED(r, -EPERM, "option-refused", "(--file)");
        r = SESSION(CORDON_SLURM_SACCT, "sacct", "-L");
        EXPECT_REFUSED(r, -EPERM, "cluster-in-scope", "(--allclusters)");
        r = SESSION(CORDON_SLURM_SACCT, "sacct", "--jobs=400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "--jobs");
        r = NONE(CORDON_SLURM_SACCT, "sacct", "100");
        EXPECT_REFUSED(r, -EINVAL, "unexpected-operand", "'100'");
        /* controls */
        r = NONE(CORDON_SLURM_SACCT, "sacct", "--uid=1000", "-L");
        EXPECT_ARGV(r, "sacct --uid=1000 --allclusters --user=alice");
}

Test(scope, sacct_empty_scope)
{
        int r = EMPTY(CORDON_SLURM_SACCT, "sacct");
        EXPECT_ARGV(r, "sacct --user=alice");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_HEADER_ONLY);
        cr_assert_eq(res.header_lines, 2); /* names, dashes */
        r = EMPTY(CORDON_SLURM_SACCT, "sacct", "-P");
        cr_assert_eq(r, 0);
        cr_assert_eq(res.header_lines, 1);
        r = EMPTY(CORDON_SLURM_SACCT, "sacct", "-n");
        cr_assert_eq(r, 0);
        cr_assert_eq(res.header_lines, 0);
        r = EMPTY(CORDON_SLURM_SACCT, "sacct", "--batch-script");
        cr_assert_eq(r, 0);
        cr_assert_eq(res.header_lines, 0);
        r = EMPTY(CORDON_SLURM_SACCT, "sacct", "--yaml");
        EXPECT_REFUSED(r, -EPERM, "empty-scope-output", "(--yaml)");
        r = EMPTY(CORDON_SLURM_SACCT, "sacct", "-e");
        EXPECT_ARGV(r, "sacct --helpformat --user=alice");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_NONE);
}

/* ---- sinfo, sprio, sshare, sacctmgr ---- */

Test(scope, sinfo_passes)
{
        int r = SESSION(CORDON_SLURM_SINFO, "sinfo", "-N", "-l", "--json", "-i", "5", "-M", "c");
        EXPECT_ARGV(r, "sinfo --Node --long --json --iterate=5 --cluster=c");
        r = SESSION(CORDON_SLURM_SINFO, "sinfo", "--bogus");
        EXPECT_REFUSED(r, -EINVAL, "unknown-option", "--bogus");
        r = SESSION(CORDON_SLURM_SINFO, "sinfo", "gpu");
        EXPECT_REFUSED(r, -EINVAL, "unexpected-operand", "'gpu'");
}

Test(scope, sprio)
{
        int r = SESSION(CORDON_SLURM_SPRIO, "sprio", "-l");
        EXPECT_ARGV(r, "sprio --long --jobs=100,200,300 --user=alice");
        r = SESSION(CORDON_SLURM_SPRIO, "sprio", "-j", "200");
        EXPECT_ARGV(r, "sprio --jobs --jobs=200 --user=alice");
        r = SESSION(CORDON_SLURM_SPRIO, "sprio", "--jobs=400");
        EXPECT_REFUSED(r, -EPERM, "job-out-of-scope", "--jobs");
        r = USERS(CORDON_SLURM_SPRIO, "sprio", "-u", "bob");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "(--user)");
        r = USERS(CORDON_SLURM_SPRIO, "sprio");
        EXPECT_ARGV(r, "sprio --user=alice");
        r = EMPTY(CORDON_SLURM_SPRIO, "sprio");
        EXPECT_ARGV(r, "sprio --user=alice");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_HEADER_ONLY);
        cr_assert_eq(res.header_lines, 1);
        /* the weights: no job's data */
        r = EMPTY(CORDON_SLURM_SPRIO, "sprio", "-w");
        EXPECT_ARGV(r, "sprio --weights --user=alice");
        cr_assert_eq(res.filter, CORDON_SLURM_FILTER_NONE);
}

Test(scope, sshare)
{
        int r = NONE(CORDON_SLURM_SSHARE, "sshare", "-a");
        EXPECT_REFUSED(r, -EPERM, "all-users", "(--all)");
        r = NONE(CORDON_SLURM_SSHARE, "sshare", "-u", "bob");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "(--users)");
        r = NONE(CORDON_SLURM_SSHARE, "sshare", "-u", "-1");
        EXPECT_REFUSED(r, -EPERM, "foreign-user", "'-1'");
        /* sshare's getopt error for -q and -t: refused as unknown */
        r = NONE(CORDON_SLURM_SSHARE, "sshare", "-q");
        EXPECT_REFUSED(r, -EINVAL, "unknown-option", "-q");
        r = SESSION(CORDON_SLURM_SSHARE, "sshare", "-u", "alice", "-l", "-M", "c");
        EXPECT_ARGV(r, "sshare --users=alice --long --cluster=c");
}

Test(scope, sacctmgr_always_refused)
{
        for (int s = 0; s < _CORDON_SLURM_SCOPE_MAX; s++) {
                int r = judge_s(CORDON_SLURM_SACCTMGR, (enum cordon_slurm_scope)s, NULL, 0,
                                STRV_MAKE("sacctmgr", "show", "user"));
                EXPECT_REFUSED(r, -EPERM, "sacctmgr-refused", "sacctmgr is not available");
        }
}
