/* poll-loop: two sandboxes driven from the program's own poll() loop, beside a timerfd of its
 * own, through cordon_sandbox_get_fd(), _get_timeout() and _process(): `sleep 0.2; exit 3` ends
 * on its own; `sleep 60` gets SIGTERM when the timer fires at 500 ms. Prints how each ended.
 * Build: cc poll-loop.c $(pkg-config --cflags --libs libcordon)
 * SANDBOX_BACKEND=ns|landlock picks a backend (default: auto). */
#define _POSIX_C_SOURCE 200809L
#include <cordon/cordon.h>
#include <cordon/sandbox.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

static struct cordon_policy *policy(void)
{
        static const char *const dirs[] = {"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64"};
        static char path[] = "PATH=/usr/bin:/bin";
        char *env[] = {path, NULL};
        const char *backend = getenv("SANDBOX_BACKEND");
        struct cordon_policy *p = cordon_policy_new();
        int r = p ? 0 : -1;
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && r >= 0; i++) {
                char target[256];
                ssize_t n = readlink(dirs[i], target, sizeof(target) - 1);
                target[n > 0 ? n : 0] = 0;
                r = cordon_policy_add_fs(p, dirs[i], n > 0 ? target : dirs[i],
                                         n > 0 ? CORDON_ACCESS_SYMLINK : CORDON_ACCESS_RO,
                                         n > 0 ? 0 : CORDON_FS_OPTIONAL, "example");
        }
        if (r >= 0)
                r = cordon_policy_add_fs(p, "/proc", NULL, CORDON_ACCESS_PROC, 0, "example");
        if (r >= 0)
                r = cordon_policy_add_fs(p, "/dev", NULL, CORDON_ACCESS_DEV, 0, "example");
        if (r >= 0)
                r = cordon_policy_set_cwd(p, "/usr");
        if (r >= 0)
                r = cordon_policy_set_env(p, env);
        if (r >= 0 && backend && (r = cordon_backend_from_string(backend)) >= 0)
                r = cordon_policy_set_backend(p, (enum cordon_backend)r);
        return r >= 0 ? p : cordon_policy_free(p);
}

int main(void)
{
        static char sh[] = "sh", c[] = "-c", quick[] = "sleep 0.2; exit 3", slow[] = "sleep 60";
        char *argv[2][4] = {{sh, c, quick, NULL}, {sh, c, slow, NULL}};
        struct cordon_policy *p = policy();
        struct cordon_sandbox *sb[2] = {NULL, NULL};
        struct cordon_diag diag = {0};
        for (int i = 0; i < 2 && p; i++)
                if (cordon_sandbox_start(p, argv[i], &sb[i], &diag) < 0) {
                        fprintf(stderr, "cannot start: %s\n", diag.message);
                        return 1;
                }
        cordon_policy_free(p);
        int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        struct itimerspec at = {.it_value = {0, 500 * 1000 * 1000}};
        if (!sb[1] || tfd < 0 || timerfd_settime(tfd, 0, &at, NULL) < 0)
                return 1;
        int done[2] = {0, 0};
        while (!done[0] || !done[1]) {
                struct pollfd pfd[3] = {{.fd = tfd, .events = POLLIN}};
                int timeout = -1;
                for (int i = 0; i < 2; i++) {
                        uint64_t usec;
                        pfd[i + 1] =
                            (struct pollfd){.fd = cordon_sandbox_get_fd(sb[i]), .events = POLLIN};
                        cordon_sandbox_get_timeout(sb[i], &usec);
                        int ms = usec == UINT64_MAX ? -1 : (int)((usec + 999) / 1000);
                        if (ms >= 0 && (timeout < 0 || ms < timeout))
                                timeout = ms;
                }
                if (poll(pfd, 3, timeout) < 0)
                        return 1;
                uint64_t ticks;
                if (pfd[0].revents && read(tfd, &ticks, sizeof(ticks)) > 0)
                        cordon_sandbox_kill(sb[1], SIGTERM);
                for (int i = 0; i < 2; i++)
                        if (!done[i] && (done[i] = cordon_sandbox_process(sb[i])) < 0)
                                fprintf(stderr, "sandbox %d: %s\n", i, strerror(-done[i]));
        }
        static const char *const ends[] = {"exited", "timeout", "killed"};
        for (int i = 0; i < 2; i++) {
                const struct cordon_report *rep = cordon_sandbox_report(sb[i]);
                printf("%s: end=%s status=%d\n", argv[i][2], ends[rep->end], rep->exit_status);
                cordon_sandbox_free(sb[i]);
        }
        close(tfd);
        return done[0] != 1 || done[1] != 1;
}
