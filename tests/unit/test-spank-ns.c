/* The SPANK plugin's namespace comparison (src/slurm/spank/spank-ns.c) as Slurm's job container
 * leaves a task: a namespace the task has and its parent (slurmstepd) has not is the job's (1),
 * the parent's own is not (0), a parent whose links the task may not read is an error, never a
 * guess (-EACCES). The "slurmstepd" is a child in a user namespace of its own, so that an
 * unprivileged run may give its "task" a mount or network namespace. (isolated's namespace is
 * tested in tests/integration/slurm-spank.sh, in a real Slurm.) */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slurm/spank/spank-ns.h"

/* In a forked "slurmstepd" in a user namespace of its own (@protected: not dumpable, as a
 * protected PID 1 is), a forked "task" unshares @flags (0: none) and reports
 * cordon_spank_ns_is_own(@ns): its exit status, 100 + errno for an error, 90-94 for a set-up
 * step that failed. */
static int task_is_own(bool protected, int flags, const char *ns)
{
        pid_t stepd = fork();
        cr_assert_geq(stepd, 0);
        if (stepd == 0) {
                if (unshare(CLONE_NEWUSER) < 0)
                        _exit(90);
                if (protected && prctl(PR_SET_DUMPABLE, 0) < 0)
                        _exit(94);
                pid_t task = fork();
                if (task < 0)
                        _exit(91);
                if (task == 0) {
                        if (flags && unshare(flags) < 0)
                                _exit(92);
                        int r = cordon_spank_ns_is_own(ns);
                        _exit(r < 0 ? 100 - r : r);
                }
                int status;
                if (waitpid(task, &status, 0) != task || !WIFEXITED(status))
                        _exit(93);
                _exit(WEXITSTATUS(status));
        }
        int status;
        cr_assert_eq(waitpid(stepd, &status, 0), stepd);
        cr_assert(WIFEXITED(status));
        return WEXITSTATUS(status);
}

Test(spank_ns, the_parents_namespaces_are_not_the_jobs)
{
        cr_expect_eq(task_is_own(false, 0, "mnt"), 0);
        cr_expect_eq(task_is_own(false, 0, "net"), 0);
}

/* job_container/tmpfs: a mount namespace of the job's, joined after slurmstepd's fork. */
Test(spank_ns, a_mount_namespace_of_the_tasks_own_is_the_jobs)
{
        cr_expect_eq(task_is_own(false, CLONE_NEWNS, "mnt"), 1);
        cr_expect_eq(task_is_own(false, CLONE_NEWNS, "net"), 0);
}

Test(spank_ns, a_network_namespace_of_the_tasks_own_is_the_jobs)
{
        cr_expect_eq(task_is_own(false, CLONE_NEWNET, "net"), 1);
        cr_expect_eq(task_is_own(false, CLONE_NEWNET, "mnt"), 0);
}

/* A parent whose links the task may not read (not dumpable, and the task without
 * CAP_SYS_PTRACE where the parent's program was started), as root may not read a protected PID
 * 1's: an error, not a "no". */
Test(spank_ns, links_it_may_not_read_are_an_error)
{
        cr_expect_eq(task_is_own(true, 0, "mnt"), 100 + EACCES);
        cr_expect_eq(task_is_own(true, CLONE_NEWNS, "mnt"), 100 + EACCES);
}
