/* Unit tests for src/lib/supervisor/supervise.c: exit statuses, the wall time limit, the grace
 * period after a forwarded signal, and the teardown of orphans (double-forked daemons) by the
 * landlock backend's reaper, also after SIGKILL of the supervisor; the same without pidfds. Each
 * test supervises from a forked child of its own, so the blocked signals never leak into the test
 * runner. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/launch/raw-syscall.h"
#include "lib/supervisor/supervise.h"

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

/* Someone else reaped the sandbox's first process (here: SIGCHLD ignored, so the kernel did):
 * supervision ends with -ECHILD instead of spinning on a pidfd that stays readable. */
static int reaped_elsewhere(void)
{
        block_all();
        signal(SIGCHLD, SIG_IGN);
        struct cordon_supervise s = {.pid = start("sleep 0.2"), .forward = forward_set()};
        int status = -1;
        enum cordon_end end;
        return cordon_supervise_run(&s, &status, &end) == -ECHILD ? 0 : 1;
}

Test(supervise, reaped_elsewhere_is_an_error, .timeout = 20)
{
        cr_assert_eq(in_child(reaped_elsewhere), 0);
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

/* A command that leaves a double-forked daemon behind, which writes its pid to @fds[1]. Unless
 * it is told to @stay, the command exits once that is done (before it, a reaper would end the
 * daemon with the command). */
static pid_t start_daemonizer(int fds[2], bool stay)
{
        pid_t pid = fork();
        if (pid == 0) {
                sigset_t none;
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                int sync[2];
                if (pipe(sync) < 0)
                        _exit(122);
                if (fork() == 0) {
                        setsid();
                        if (fork() == 0) {
                                pid_t self = getpid();
                                close(fds[0]);
                                (void)!write(fds[1], &self, sizeof(self));
                                (void)!write(sync[1], "", 1);
                                for (;;)
                                        pause();
                        }
                        _exit(0);
                }
                close(sync[1]);
                char c;
                (void)!read(sync[0], &c, 1);
                while (stay)
                        pause();
                _exit(0);
        }
        return pid;
}

/* The sandbox's first process as the launcher starts it for the landlock backend: a reaper
 * (cordon_reaper_run) above the command; without @reaper, the command itself. */
static pid_t start_sandbox(bool reaper, int fds[2], bool stay)
{
        if (!reaper)
                return start_daemonizer(fds, stay);
        pid_t supervisor = getpid();
        pid_t pid = fork();
        if (pid == 0) {
                if (cordon_reaper_prepare(supervisor) < 0)
                        _exit(120);
                pid_t cmd = start_daemonizer(fds, stay);
                if (cmd < 0)
                        _exit(121);
                sigset_t fwd = forward_set();
                cordon_reaper_run(cmd, &fwd, supervisor, -EBADF, NULL, NULL);
        }
        return pid;
}

/* Closes our write end of @fds and reads the daemon's pid from it; -1 when none came. */
static pid_t read_daemon(int fds[2])
{
        close(fds[1]);
        pid_t daemon;
        return read(fds[0], &daemon, sizeof(daemon)) == (ssize_t)sizeof(daemon) ? daemon : -1;
}

static bool gone_within(pid_t pid, int ms)
{
        for (int i = 0; i < ms / 10; i++) {
                if (kill(pid, 0) < 0 && errno == ESRCH)
                        return true;
                struct timespec ts = {0, 10 * 1000 * 1000};
                nanosleep(&ts, NULL);
        }
        return false;
}

/* A double-forked daemon outlives the command. Below a reaper it is killed and reaped when the
 * command ends; the control shows it does outlive the command otherwise. */
static int daemon_alive_after(bool reaper)
{
        block_all();
        int fds[2];
        if (pipe(fds) < 0)
                return 101;
        pid_t pid = start_sandbox(reaper, fds, false);
        pid_t daemon = read_daemon(fds);
        if (daemon < 0)
                return 102;
        struct cordon_supervise s = {
            .pid = pid, .forward = forward_set(), .kill_signal = reaper ? CORDON_REAPER_SIGNAL : 0};
        int status = -1;
        enum cordon_end end;
        if (cordon_supervise_run(&s, &status, &end) < 0)
                return 103;
        if (status != 0)
                return 104;
        bool alive = !gone_within(daemon, reaper ? 2000 : 300);
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
        int k = in_child(daemon_reaped);
        cr_assert_eq(k, 0, "the daemon was killed and reaped (%d)", k);
        cr_assert_eq(in_child(daemon_survives), 1, "control: without it the daemon lives on");
}

/* SIGKILL of the supervisor, which can do nothing about it: the reaper, orphaned, kills the
 * daemon; the control (no reaper) shows the daemon would live on. */
static int daemon_alive_after_supervisor_killed(bool reaper)
{
        int fds[2];
        if (pipe(fds) < 0)
                return 101;
        pid_t sup = fork();
        if (sup == 0) {
                block_all();
                pid_t pid = start_sandbox(reaper, fds, false);
                struct cordon_supervise s = {.pid = pid, .forward = forward_set()};
                int status;
                enum cordon_end end;
                (void)cordon_supervise_run(&s, &status, &end);
                _exit(0);
        }
        pid_t daemon = read_daemon(fds);
        if (daemon < 0)
                return 102;
        kill(sup, SIGKILL);
        waitpid(sup, NULL, 0);
        bool alive = !gone_within(daemon, reaper ? 3000 : 500);
        if (alive) {
                kill(daemon, SIGKILL);
                (void)gone_within(daemon, 1000);
        }
        return alive ? 1 : 0;
}

static int reaper_outlives_supervisor(void)
{
        return daemon_alive_after_supervisor_killed(true);
}

static int no_reaper_control(void)
{
        return daemon_alive_after_supervisor_killed(false);
}

Test(supervise, sigkill_of_the_supervisor_takes_the_sandbox_along)
{
        int k = in_child(reaper_outlives_supervisor);
        cr_assert_eq(k, 0, "the daemon was killed (%d)", k);
        cr_assert_eq(in_child(no_reaper_control), 1, "control: without a reaper it lives on");
}

/* A dying supervisor closes its descriptors before its children are reparented: a command
 * that ends because of that (a session's server, whose channel closed) finds the reaper still
 * the supervisor's child. The lifeline (the supervisor's end of a pipe) hung up tells the
 * reaper it is orphaned all the same. Here the supervisor hangs up without dying, which
 * stands still the moment a SIGKILL passes through; the control, with no lifeline, shows the
 * clean-up would be left to a supervisor that is about to be gone. */
static int marker_fd = -1;

static void orphaned_mark(void *userdata)
{
        (void)userdata;
        (void)!write(marker_fd, "o", 1);
}

static int orphaned_after_hang_up(bool lifeline)
{
        block_all();
        int life[2], hold[2], mark[2];
        if (pipe2(life, O_CLOEXEC) < 0 || pipe2(hold, O_CLOEXEC) < 0 || pipe2(mark, O_CLOEXEC) < 0)
                return 101;
        pid_t supervisor = getpid();
        pid_t pid = fork();
        if (pid == 0) {
                close(life[1]);
                close(hold[1]);
                close(mark[0]);
                marker_fd = mark[1];
                if (cordon_reaper_prepare(supervisor) < 0)
                        _exit(120);
                pid_t cmd = fork();
                if (cmd == 0) {
                        char c; /* the command: ends when the supervisor's end closes */
                        (void)!read(hold[0], &c, 1);
                        _exit(0);
                }
                close(hold[0]);
                sigset_t fwd = forward_set();
                cordon_reaper_run(cmd, &fwd, supervisor, lifeline ? life[0] : -EBADF, orphaned_mark,
                                  NULL);
        }
        close(life[0]);
        close(hold[0]);
        close(mark[1]);
        close(life[1]);
        close(hold[1]);
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
                return 102;
        char c;
        ssize_t k = read(mark[0], &c, 1);
        return k == 1 && c == 'o' ? 1 : 0;
}

static int lifeline_hung_up(void)
{
        return orphaned_after_hang_up(true);
}

static int no_lifeline_control(void)
{
        return orphaned_after_hang_up(false);
}

Test(supervise, a_hung_up_lifeline_is_an_orphaning)
{
        cr_assert_eq(in_child(lifeline_hung_up), 1, "the reaper cleaned up as orphaned");
        cr_assert_eq(in_child(no_lifeline_control), 0,
                     "control: without the lifeline the still-living parent is trusted");
}

/* The supervisor's kill (timeout, grace period) through the reaper ends the daemon too. */
static int timeout_through_reaper(void)
{
        block_all();
        int fds[2];
        if (pipe(fds) < 0)
                return 101;
        pid_t pid = start_sandbox(true, fds, true);
        pid_t daemon = read_daemon(fds);
        if (daemon < 0)
                return 102;
        struct cordon_supervise s = {.pid = pid,
                                     .forward = forward_set(),
                                     .timeout_usec = 200000,
                                     .kill_signal = CORDON_REAPER_SIGNAL};
        int status = -1;
        enum cordon_end end;
        if (cordon_supervise_run(&s, &status, &end) < 0)
                return 103;
        if (end != CORDON_END_TIMEOUT)
                return 104;
        return gone_within(daemon, 2000) ? 0 : 1;
}

Test(supervise, timeout_kills_through_the_reaper)
{
        cr_assert_eq(in_child(timeout_through_reaper), 0);
}

/* What lets the reaper share the supervisor's memory: its system calls report errors as -errno
 * and leave errno (the supervisor's, in shared thread-local storage) alone. */
Test(supervise, raw_syscalls_leave_errno_alone)
{
        errno = 1234;
        cr_assert_eq(cordon_raw_syscall1(SYS_close, -1), -EBADF);
        cr_assert_eq(cordon_raw_syscall0(SYS_getppid), getppid());
        cr_assert_eq(cordon_raw_syscall2(SYS_kill, getpid(), 0), 0);
#if CORDON_RAW_SYSCALL_INLINE
        cr_assert_eq(errno, 1234);
#endif
        /* The control: the libc wrapper does write it. */
        cr_assert_eq(close(-1), -1);
        cr_assert_eq(errno, EBADF);
}

/* A kernel without pidfds (before 5.3): pidfd_open() answers ENOSYS (a seccomp filter here), and
 * the first process is polled instead; its exit status, the wall time's kill and the grace
 * period's kill all still come. */
static void deny_pidfd_open(void)
{
        struct sock_filter f[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
                _exit(99);
}

static int without_pidfd(void)
{
        block_all();
        deny_pidfd_open();
        if (syscall(SYS_pidfd_open, getpid(), 0) >= 0 || errno != ENOSYS)
                return 98; /* the filter does not hold: the test would prove nothing */
        int status = -1;
        enum cordon_end end;
        struct cordon_supervise s = {.pid = start("exit 7"), .forward = forward_set()};
        if (cordon_supervise_run(&s, &status, &end) < 0 || status != 7 || end != CORDON_END_EXITED)
                return 1;
        s = (struct cordon_supervise){
            .pid = start("exec sleep 30"), .forward = forward_set(), .timeout_usec = 200000};
        double t0 = now();
        if (cordon_supervise_run(&s, &status, &end) < 0 || end != CORDON_END_TIMEOUT ||
            status != 128 + SIGKILL || now() - t0 > 5)
                return 2;
        s = (struct cordon_supervise){.pid = start("trap '' TERM; while :; do sleep 0.02; done"),
                                      .forward = forward_set(),
                                      .grace_usec = 200000};
        usleep(200000);
        kill(getpid(), SIGTERM);
        if (cordon_supervise_run(&s, &status, &end) < 0 || end != CORDON_END_KILLED ||
            status != 128 + SIGKILL)
                return 3;
        return 0;
}

Test(supervise, without_pidfds_the_first_process_is_polled, .timeout = 30)
{
        cr_assert_eq(in_child(without_pidfd), 0);
}
