/* The public sandbox handle: two sandboxes started from one process run at the same time, are
 * each killed (one from a second thread while the first thread waits for it) and reported
 * correctly, under both backends; three driven by a caller's own poll loop
 * (cordon_sandbox_get_fd(), _get_timeout(), _process()). The sandbox work runs in a fork()ed child
 * of the test (Criterion runs threads; the ns backend's raw clone wants no other thread
 * allocating), which reports through its exit status: 0, or the number of the first check that
 * failed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "lib/policy/policy.h"

static struct cordon_policy *policy(enum cordon_backend backend)
{
        struct cordon_policy *p = cordon_policy_new();
        if (!p)
                return NULL;
        static const char *const ro[] = {"/usr", "/etc"};
        for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++)
                cordon_policy_add_fs(p, ro[i], ro[i], CORDON_ACCESS_RO, 0, "test");
        static const char *const merged[] = {"/bin", "/lib", "/lib64", "/sbin"};
        for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++) {
                struct stat st;
                if (lstat(merged[i], &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        char target[256];
                        ssize_t n = readlink(merged[i], target, sizeof(target) - 1);
                        if (n <= 0)
                                continue;
                        target[n] = 0;
                        cordon_policy_add_fs(p, merged[i], target, CORDON_ACCESS_SYMLINK, 0,
                                             "test");
                } else
                        cordon_policy_add_fs(p, merged[i], merged[i], CORDON_ACCESS_RO, 0, "test");
        }
        cordon_policy_add_fs(p, "/proc", NULL, CORDON_ACCESS_PROC, 0, "test");
        cordon_policy_add_fs(p, "/dev", NULL, CORDON_ACCESS_DEV, 0, "test");
        cordon_policy_add_fs(p, "/tmp", NULL, CORDON_ACCESS_TMPFS, 0, "test");
        cordon_policy_set_cwd(p, "/");
        char path_var[] = "PATH=/usr/bin:/bin";
        char *env[] = {path_var, NULL};
        cordon_policy_set_env(p, env);
        cordon_policy_set_backend(p, backend);
        return p;
}

static bool alive(const struct cordon_sandbox *sb)
{
        struct pollfd pfd = {.fd = cordon_sandbox_pidfd(sb), .events = POLLIN};
        return pfd.fd >= 0 && poll(&pfd, 1, 0) == 0;
}

static void *kill_later(void *arg)
{
        usleep(100 * 1000);
        return (void *)(intptr_t)cordon_sandbox_kill(arg, SIGKILL);
}

/* Exit codes: 0 all as expected, 77 the backend cannot run here, else the failed check. */
static int two_sandboxes(enum cordon_backend backend)
{
        struct cordon_policy *p = policy(backend);
        if (!p)
                return 1;
        char sleep_[] = "sleep", secs[] = "30";
        char *argv[] = {sleep_, secs, NULL};
        struct cordon_sandbox *a = NULL, *b = NULL;
        struct cordon_diag d = {0};
        int r = cordon_sandbox_start(p, argv, &a, &d);
        if (r == -EOPNOTSUPP)
                return 77;
        if (r < 0) {
                fprintf(stderr, "start: %s\n", d.message);
                return 2;
        }
        if (cordon_sandbox_start(p, argv, &b, &d) < 0) {
                fprintf(stderr, "start: %s\n", d.message);
                return 3;
        }
        cordon_policy_free(p); /* not referenced after start */

        const struct cordon_report *ra = cordon_sandbox_report(a), *rb = cordon_sandbox_report(b);
        if (!ra->started || !rb->started || ra->pid <= 0 || rb->pid <= 0 || ra->pid == rb->pid)
                return 4;
        if (ra->backend != backend || rb->backend != backend)
                return 5;
        if ((backend == CORDON_BACKEND_NS) != !!(ra->namespaces & CORDON_NS_PID))
                return 6;
        if (ra->ended || rb->ended || !ra->seccomp.planned)
                return 7;
        usleep(100 * 1000);
        if (!alive(a) || !alive(b))
                return 8;

        /* a: SIGKILL from a second thread while this one waits. */
        pthread_t t;
        if (pthread_create(&t, NULL, kill_later, a) != 0)
                return 9;
        int status = -1;
        if (cordon_sandbox_wait(a, &status) < 0)
                return 10;
        void *kr;
        pthread_join(t, &kr);
        if ((intptr_t)kr != 0)
                return 11;
        if (!ra->ended || ra->end != CORDON_END_KILLED || status != 128 + SIGKILL ||
            ra->exit_status != status || ra->error != 0 || ra->oom_killed)
                return 12;
        if (cordon_sandbox_kill(a, SIGKILL) != -ESRCH)
                return 13;
        int again = -1;
        if (cordon_sandbox_wait(a, &again) != 0 || again != status)
                return 14;

        /* b lived on through all that; SIGTERM reaches its command, which dies of it. */
        if (!alive(b) || rb->ended)
                return 15;
        if (cordon_sandbox_kill(b, SIGUSR2) != -EINVAL)
                return 16;
        if (cordon_sandbox_kill(b, SIGTERM) != 0)
                return 17;
        if (cordon_sandbox_wait(b, &status) < 0)
                return 18;
        if (!rb->ended || rb->end != CORDON_END_EXITED || status != 128 + SIGTERM)
                return 19;
        cordon_sandbox_free(a);
        cordon_sandbox_free(b);
        return 0;
}

static int in_child(enum cordon_backend backend)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
                _exit(two_sandboxes(backend));
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st), "the child died: %d", st);
        return WEXITSTATUS(st);
}

Test(sandbox, two_ns_sandboxes_killed_and_reported, .timeout = 60)
{
        int k = in_child(CORDON_BACKEND_NS);
        if (k == 77)
                cr_skip_test("the ns backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}

Test(sandbox, two_landlock_sandboxes_killed_and_reported, .timeout = 60)
{
        int k = in_child(CORDON_BACKEND_LANDLOCK);
        if (k == 77)
                cr_skip_test("the landlock backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}

/* Whatever the caller holds when it starts a sandbox stays the caller's: nothing of the
 * sandbox (the landlock backend's reaper, the ns backend's PID 1) keeps a copy, or a pipe the
 * caller closes would never see its end of file while the sandbox runs (another sandbox's
 * control channel, in a program that starts sandboxes from several threads). */
static int caller_fds_not_held(enum cordon_backend backend)
{
        struct cordon_policy *p = policy(backend);
        char sleep_[] = "sleep", secs[] = "30";
        char *argv[] = {sleep_, secs, NULL};
        int pipefd[2];
        if (!p || pipe2(pipefd, O_CLOEXEC) < 0)
                return 1;
        struct cordon_sandbox *sb = NULL;
        struct cordon_diag d = {0};
        int r = cordon_sandbox_start(p, argv, &sb, &d);
        if (r == -EOPNOTSUPP)
                return 77;
        if (r < 0)
                return 2;
        close(pipefd[1]);
        struct pollfd pfd = {.fd = pipefd[0], .events = POLLIN};
        char c;
        int k = poll(&pfd, 1, 2000) == 1 && read(pipefd[0], &c, 1) == 0 ? 0 : 3;
        cordon_sandbox_kill(sb, SIGKILL);
        int status;
        cordon_sandbox_wait(sb, &status);
        cordon_sandbox_free(sb);
        cordon_policy_free(p);
        return k;
}

static int fds_in_child(enum cordon_backend backend)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
                _exit(caller_fds_not_held(backend));
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st), "the child died: %d", st);
        return WEXITSTATUS(st);
}

Test(sandbox, caller_fds_not_held_landlock, .timeout = 30)
{
        int k = fds_in_child(CORDON_BACKEND_LANDLOCK);
        if (k == 77)
                cr_skip_test("the landlock backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}

Test(sandbox, caller_fds_not_held_ns, .timeout = 30)
{
        int k = fds_in_child(CORDON_BACKEND_NS);
        if (k == 77)
                cr_skip_test("the ns backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}

/* A start that fails: no handle unless asked for, and then one with the failure reported. */
static int failing_start(void)
{
        struct cordon_policy *p = policy(CORDON_BACKEND_NS);
        char missing[] = "cordon-no-such-command";
        char *argv[] = {missing, NULL};
        struct cordon_sandbox *sb = (void *)1;
        struct cordon_diag d = {0};
        if (cordon_sandbox_start(p, argv, &sb, &d) != -ENOENT || sb || d.step != CORDON_STEP_EXEC)
                return 1;
        const struct cordon_sandbox_options opts = {.flags = CORDON_SANDBOX_RETURN_FAILED};
        if (cordon_sandbox_start_with(p, argv, &opts, &sb, &d) != -ENOENT || !sb)
                return 2;
        const struct cordon_report *r = cordon_sandbox_report(sb);
        if (r->started || r->error != -ENOENT || r->failed_step != CORDON_STEP_EXEC)
                return 3;
        if (cordon_sandbox_kill(sb, SIGKILL) != -ESRCH || cordon_sandbox_pidfd(sb) != -EBADF)
                return 4;
        cordon_sandbox_free(sb);
        cordon_policy_free(p);
        return 0;
}

Test(sandbox, failed_start_reports_the_step)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
                _exit(failing_start());
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st));
        cr_assert_eq(WEXITSTATUS(st), 0, "check %d failed", WEXITSTATUS(st));
}

Test(sandbox, landlock_feature_names)
{
        int abi = 0;
        cr_assert_str_eq(cordon_landlock_feature_name(0, &abi), "filesystem");
        cr_assert_eq(abi, 1);
        unsigned n = 0;
        while (cordon_landlock_feature_name(n, NULL))
                n++;
        cr_assert_gt(n, 1);
        cr_assert_null(cordon_landlock_feature_name(n, &abi));
}

/* CORDON_SANDBOX_STDIO: the command's 0, 1 and 2 are the given fds (here /dev/null and two
 * pipes), and nothing else of the caller's reaches it. */
static int given_stdio(enum cordon_backend backend, bool closed)
{
        struct cordon_policy *p = policy(backend);
        char sh[] = "sh", c[] = "-c",
             script[] = "cat; echo out; echo err >&2; ls /proc/self/fd | wc -l >&2";
        char *argv[] = {sh, c, script, NULL};
        int out[2], err[2];
        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (!p || devnull < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
                return 1;
        /* Given in an order that makes the child move them around. */
        int spare = dup(devnull);
        /* A caller whose own 0, 1 and 2 are closed: what the start opens (its control channel,
         * the pidfd, a ruleset...) must not land there and be taken for the command's stdio. */
        if (closed && (spare < 3 || close(0) < 0 || close(1) < 0 || close(2) < 0))
                return 6;
        struct cordon_sandbox_options opts = {
            .flags = CORDON_SANDBOX_STDIO,
            .stdio = {spare, out[1], err[1]},
        };
        struct cordon_sandbox *sb = NULL;
        struct cordon_diag d = {0};
        int r = cordon_sandbox_start_with(p, argv, &opts, &sb, &d);
        if (r == -EOPNOTSUPP)
                return 77;
        if (r < 0)
                return 2;
        close(out[1]);
        close(err[1]);
        close(spare);
        char o[64] = "", e[64] = "";
        ssize_t no = read(out[0], o, sizeof(o) - 1), ne = 0, k;
        while ((k = read(err[0], e + ne, sizeof(e) - 1 - (size_t)ne)) > 0)
                ne += k;
        int status = -1;
        if (cordon_sandbox_wait(sb, &status) < 0 || status != 0)
                return 3;
        if (no != 4 || strcmp(o, "out\n") != 0)
                return 4;
        e[ne > 0 ? ne : 0] = 0;
        /* "err", and ls's own fds: 0, 1, 2 and the directory it reads (4 entries). */
        if (strcmp(e, "err\n4\n") != 0)
                return 5;
        cordon_sandbox_free(sb);
        cordon_policy_free(p);
        /* What the start filled in for the caller is gone again: 0, 1 and 2 are closed. */
        if (closed && (fcntl(0, F_GETFD) >= 0 || fcntl(1, F_GETFD) >= 0 || fcntl(2, F_GETFD) >= 0))
                return 7;
        return 0;
}

static int stdio_in_child(enum cordon_backend backend, bool closed)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
                _exit(given_stdio(backend, closed));
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st), "the child died: %d", st);
        return WEXITSTATUS(st);
}

Test(sandbox, given_stdio_ns, .timeout = 30)
{
        int k = stdio_in_child(CORDON_BACKEND_NS, false);
        if (k == 77)
                cr_skip_test("the ns backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}

Test(sandbox, given_stdio_landlock, .timeout = 30)
{
        int k = stdio_in_child(CORDON_BACKEND_LANDLOCK, false);
        if (k == 77)
                cr_skip_test("the landlock backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}

Test(sandbox, given_stdio_caller_without_stdio_ns, .timeout = 30)
{
        int k = stdio_in_child(CORDON_BACKEND_NS, true);
        if (k == 77)
                cr_skip_test("the ns backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}

Test(sandbox, given_stdio_caller_without_stdio_landlock, .timeout = 30)
{
        int k = stdio_in_child(CORDON_BACKEND_LANDLOCK, true);
        if (k == 77)
                cr_skip_test("the landlock backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}

/* ---- driven from the caller's own poll loop ------------------------------------------------ */

static double now_sec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Three sandboxes and a descriptor of the caller's own in one poll(), never
 * cordon_sandbox_wait(): `exit 3` ends first while the others run; `sleep 30` with a wall time
 * limit of 300 ms is killed by its loop's timer, which only cordon_sandbox_get_timeout() tells
 * the caller about; `sleep 30` without one is killed once the caller's own pipe says so. */
static int polled_by_caller(enum cordon_backend backend)
{
        struct cordon_policy *p = policy(backend), *limited = policy(backend);
        if (!p || !limited)
                return 1;
        limited->limits.timeout_usec = 300 * 1000;
        char sh[] = "sh", c[] = "-c", quick[] = "sleep 0.1; exit 3", sleep_[] = "sleep",
             secs[] = "30";
        char *argv_quick[] = {sh, c, quick, NULL}, *argv_sleep[] = {sleep_, secs, NULL};
        struct cordon_sandbox *sb[3] = {NULL};
        struct cordon_diag d = {0};
        /* Before the starts: the limit counts from the end of its own. */
        double t0 = now_sec(), ended_at[3] = {0};
        int r = cordon_sandbox_start(p, argv_quick, &sb[0], &d);
        if (r == -EOPNOTSUPP)
                return 77;
        if (r < 0 || cordon_sandbox_start(limited, argv_sleep, &sb[1], &d) < 0 ||
            cordon_sandbox_start(p, argv_sleep, &sb[2], &d) < 0) {
                fprintf(stderr, "start: %s\n", d.message);
                return 2;
        }
        cordon_policy_free(p);
        cordon_policy_free(limited);
        int own[2];
        if (pipe2(own, O_CLOEXEC) < 0)
                return 3;

        /* The limited one has a timer: its timeout is at most the limit. */
        uint64_t usec = 0;
        if (cordon_sandbox_get_timeout(sb[1], &usec) != 0 || usec > 300 * 1000 || usec == 0)
                return 4;
        int result[3] = {0};
        while (!ended_at[0] || !ended_at[1] || !ended_at[2]) {
                struct pollfd pfd[4];
                int timeout = -1;
                for (int i = 0; i < 3; i++) {
                        pfd[i] =
                            (struct pollfd){.fd = cordon_sandbox_get_fd(sb[i]), .events = POLLIN};
                        if (pfd[i].fd < 0 || cordon_sandbox_get_timeout(sb[i], &usec) < 0)
                                return 5;
                        int ms = usec == UINT64_MAX ? -1 : (int)((usec + 999) / 1000);
                        if (ms >= 0 && (timeout < 0 || ms < timeout))
                                timeout = ms;
                }
                pfd[3] = (struct pollfd){.fd = own[0], .events = POLLIN};
                if (poll(pfd, 4, timeout) < 0)
                        return 6;
                if (pfd[3].revents) {
                        char byte;
                        if (read(own[0], &byte, 1) != 1 || cordon_sandbox_kill(sb[2], SIGKILL) < 0)
                                return 7;
                }
                for (int i = 0; i < 3; i++) {
                        if (ended_at[i])
                                continue;
                        double before = now_sec();
                        result[i] = cordon_sandbox_process(sb[i]);
                        /* A round never waits for the sandbox. */
                        if (now_sec() - before > 1.0)
                                return 8;
                        if (result[i] == 0)
                                continue;
                        ended_at[i] = now_sec() - t0;
                        /* The first one's end is the caller's cue for the third. */
                        if (i == 0 && write(own[1], "x", 1) != 1)
                                return 9;
                }
                if (now_sec() - t0 > 20)
                        return 10;
        }
        const struct cordon_report *r0 = cordon_sandbox_report(sb[0]),
                                   *r1 = cordon_sandbox_report(sb[1]),
                                   *r2 = cordon_sandbox_report(sb[2]);
        if (result[0] != 1 || !r0->ended || r0->end != CORDON_END_EXITED || r0->exit_status != 3)
                return 11;
        if (result[1] != 1 || r1->end != CORDON_END_TIMEOUT || r1->exit_status != 128 + SIGKILL ||
            ended_at[1] < 0.29)
                return 12;
        if (result[2] != 1 || r2->end != CORDON_END_KILLED || r2->exit_status != 128 + SIGKILL ||
            ended_at[2] < ended_at[0])
                return 13;
        /* Once ended: the same answer at once, and wait agrees. */
        int status = -1;
        if (cordon_sandbox_process(sb[1]) != 1 || cordon_sandbox_get_timeout(sb[1], &usec) != 0 ||
            usec != 0 || cordon_sandbox_wait(sb[1], &status) != 0 || status != 128 + SIGKILL)
                return 14;
        for (int i = 0; i < 3; i++)
                cordon_sandbox_free(sb[i]);
        close(own[0]);
        close(own[1]);
        return 0;
}

static int polled_in_child(enum cordon_backend backend)
{
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
                _exit(polled_by_caller(backend));
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st), "the child died: %d", st);
        return WEXITSTATUS(st);
}

Test(sandbox, driven_from_a_callers_poll_ns, .timeout = 60)
{
        int k = polled_in_child(CORDON_BACKEND_NS);
        if (k == 77)
                cr_skip_test("the ns backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}

Test(sandbox, driven_from_a_callers_poll_landlock, .timeout = 60)
{
        int k = polled_in_child(CORDON_BACKEND_LANDLOCK);
        if (k == 77)
                cr_skip_test("the landlock backend cannot run here");
        cr_assert_eq(k, 0, "check %d failed", k);
}
