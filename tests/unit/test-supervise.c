/* Unit tests for src/lib/supervise.c: exit statuses, the wall time limit, the grace period after
 * a forwarded signal, and the teardown of orphans (double-forked daemons) for a subreaper. Each
 * test supervises from a forked child of its own, so the subreaper flag and the blocked signals
 * never leak into the test runner. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/supervise.h"

static sigset_t forward_set(void)
{
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGINT);
        sigaddset(&s, SIGTERM);
        sigaddset(&s, SIGHUP);
        return s;
}

/* Blocks the forwarded signals and SIGCHLD, as the launcher does before clone. */
static void block_all(void)
{
        sigset_t s = forward_set();
        sigaddset(&s, SIGCHLD);
        sigprocmask(SIG_BLOCK, &s, NULL);
}

static pid_t start(const char *script)
{
        pid_t pid = fork();
        if (pid == 0) {
                sigset_t none;
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                execl("/bin/sh", "sh", "-c", script, (char *)NULL);
                _exit(127);
        }
        return pid;
}

/* Runs @fn in a forked child and returns its exit code (the tests report through it). */
static int in_child(int (*fn)(void))
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
                _exit(fn());
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st), "the supervising child died: %d", st);
        return WEXITSTATUS(st);
}

static double now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int exit_code(void)
{
        block_all();
        struct cordon_supervise s = {.pid = start("exit 7"), .forward = forward_set()};
        int status = -1;
        enum cordon_end end = CORDON_END_TIMEOUT;
        if (cordon_supervise_run(&s, &status, &end) < 0)
                return 100;
        return status == 7 && end == CORDON_END_EXITED ? 0 : 1;
}

Test(supervise, exit_code_comes_back)
{
        cr_assert_eq(in_child(exit_code), 0);
}

static int died_of_signal(void)
{
        block_all();
        struct cordon_supervise s = {.pid = start("kill -USR1 $$"), .forward = forward_set()};
        int status = -1;
        enum cordon_end end;
        if (cordon_supervise_run(&s, &status, &end) < 0)
                return 100;
        return status == 128 + SIGUSR1 && end == CORDON_END_EXITED ? 0 : 1;
}

Test(supervise, death_by_signal_is_128_plus_n)
{
        cr_assert_eq(in_child(died_of_signal), 0);
}

static int timeout_kills(void)
{
        block_all();
        struct cordon_supervise s = {
            .pid = start("exec sleep 30"), .forward = forward_set(), .timeout_usec = 200000};
        int status = -1;
        enum cordon_end end;
        double t0 = now();
        if (cordon_supervise_run(&s, &status, &end) < 0)
                return 100;
        double took = now() - t0;
        if (end != CORDON_END_TIMEOUT)
                return 1;
        if (status != 128 + SIGKILL)
                return 2;
        return took >= 0.19 && took < 5 ? 0 : 3;
}

Test(supervise, timeout_kills_the_sandbox)
{
        cr_assert_eq(in_child(timeout_kills), 0);
}

static int in_time(void)
{
        block_all();
        struct cordon_supervise s = {
            .pid = start("exit 3"), .forward = forward_set(), .timeout_usec = 5000000};
        int status = -1;
        enum cordon_end end;
        if (cordon_supervise_run(&s, &status, &end) < 0)
                return 100;
        return status == 3 && end == CORDON_END_EXITED ? 0 : 1;
}

Test(supervise, a_command_within_its_time_is_untouched)
{
        cr_assert_eq(in_child(in_time), 0);
}

/* A forwarded SIGTERM that the command obeys ends it normally; one it ignores is followed by a
 * kill once the grace period is over. */
static int forward_and_grace(bool obey)
{
        block_all();
        pid_t pid = start(obey ? "trap 'exit 9' TERM; while :; do sleep 0.02; done"
                               : "trap '' TERM; while :; do sleep 0.02; done");
        struct cordon_supervise s = {.pid = pid, .forward = forward_set(), .grace_usec = 300000};
        usleep(200000);          /* let sh install its trap */
        kill(getpid(), SIGTERM); /* blocked: waits in the signalfd for the supervisor */
        int status = -1;
        enum cordon_end end;
        double t0 = now();
        if (cordon_supervise_run(&s, &status, &end) < 0)
                return 100;
        double took = now() - t0;
        if (obey)
                return status == 9 && end == CORDON_END_EXITED ? 0 : 1;
        if (end != CORDON_END_KILLED || status != 128 + SIGKILL)
                return 2;
        return took >= 0.29 && took < 5 ? 0 : 3;
}

static int forward_obeyed(void)
{
        return forward_and_grace(true);
}

static int forward_ignored(void)
{
        return forward_and_grace(false);
}

Test(supervise, forwarded_signal_reaches_the_command)
{
        cr_assert_eq(in_child(forward_obeyed), 0);
}

Test(supervise, ignored_signal_is_followed_by_a_kill_after_the_grace_period)
{
        cr_assert_eq(in_child(forward_ignored), 0);
}

/* A double-forked daemon outlives the command. As our orphan (subreaper) it is killed and
 * reaped when the command ends; the control shows it does outlive the command otherwise. */
static int daemon_alive_after(bool reap_orphans)
{
        block_all();
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
                return 100;
        int fds[2];
        if (pipe(fds) < 0)
                return 101;
        pid_t pid = fork();
        if (pid == 0) {
                sigset_t none;
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                if (fork() == 0) {
                        setsid();
                        if (fork() == 0) {
                                pid_t self = getpid();
                                close(fds[0]);
                                (void)!write(fds[1], &self, sizeof(self));
                                for (;;)
                                        pause();
                        }
                        _exit(0);
                }
                _exit(0);
        }
        close(fds[1]);
        pid_t daemon;
        if (read(fds[0], &daemon, sizeof(daemon)) != (ssize_t)sizeof(daemon))
                return 102;
        struct cordon_supervise s = {
            .pid = pid, .forward = forward_set(), .reap_orphans = reap_orphans};
        int status = -1;
        enum cordon_end end;
        if (cordon_supervise_run(&s, &status, &end) < 0)
                return 103;
        /* Reap whatever zombies are left, then ask whether the daemon still exists. */
        while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
        bool alive = kill(daemon, 0) == 0;
        if (alive) { /* the control's daemon: ours to end */
                kill(daemon, SIGKILL);
                waitpid(daemon, NULL, 0);
        }
        return alive ? 1 : 0;
}

static int daemon_reaped(void)
{
        return daemon_alive_after(true);
}

static int daemon_survives(void)
{
        return daemon_alive_after(false);
}

Test(supervise, orphans_are_killed_with_the_sandbox)
{
        cr_assert_eq(in_child(daemon_reaped), 0, "the daemon was killed and reaped");
        cr_assert_eq(in_child(daemon_survives), 1, "control: without it the daemon lives on");
}
