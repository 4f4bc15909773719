/* run-and-kill: starts `sleep 60` in a sandbox through libcordon's public API, kills it from a
 * second thread after 200 ms, waits for it and prints how it ended from the sandbox's report.
 * Build: cc run-and-kill.c $(pkg-config --cflags --libs libcordon) -pthread
 * SANDBOX_BACKEND=ns|landlock picks a backend (default: auto). */
#define _POSIX_C_SOURCE 200809L
#include <cordon/cordon.h>
#include <cordon/sandbox.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *killer(void *arg)
{
        struct timespec delay = {0, 200 * 1000 * 1000};
        nanosleep(&delay, NULL);
        int r = cordon_sandbox_kill(arg, SIGKILL);
        if (r < 0)
                fprintf(stderr, "cordon_sandbox_kill: %s\n", strerror(-r));
        return NULL;
}

/* The host's system directories, read-only; a usr-merged /bin stays a symlink. */
static int add_system(struct cordon_policy *p)
{
        static const char *const dirs[] = {"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64"};
        int r = 0;
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && r >= 0; i++) {
                char target[256];
                ssize_t n = readlink(dirs[i], target, sizeof(target) - 1);
                if (n > 0) {
                        target[n] = 0;
                        r = cordon_policy_add_fs(p, dirs[i], target, CORDON_ACCESS_SYMLINK, 0,
                                                 "example");
                } else
                        r = cordon_policy_add_fs(p, dirs[i], dirs[i], CORDON_ACCESS_RO,
                                                 CORDON_FS_OPTIONAL, "example");
        }
        if (r >= 0)
                r = cordon_policy_add_fs(p, "/proc", NULL, CORDON_ACCESS_PROC, 0, "example");
        if (r >= 0)
                r = cordon_policy_add_fs(p, "/dev", NULL, CORDON_ACCESS_DEV, 0, "example");
        if (r >= 0)
                r = cordon_policy_add_fs(p, "/tmp", NULL, CORDON_ACCESS_TMPFS, 0, "example");
        return r;
}

int main(void)
{
        static char path[] = "PATH=/usr/bin:/bin", sleep_[] = "sleep", sixty[] = "60";
        char *env[] = {path, NULL}, *argv[] = {sleep_, sixty, NULL};
        struct cordon_diag diag = {0};
        struct cordon_sandbox *sb = NULL;
        struct cordon_policy *p = cordon_policy_new();
        const char *backend = getenv("SANDBOX_BACKEND");

        int r = p ? add_system(p) : -ENOMEM;
        if (r >= 0)
                r = cordon_policy_set_cwd(p, "/usr");
        if (r >= 0)
                r = cordon_policy_set_env(p, env);
        if (r >= 0 && backend)
                r = cordon_backend_from_string(backend);
        if (r >= 0 && backend)
                r = cordon_policy_set_backend(p, (enum cordon_backend)r);
        if (r >= 0)
                r = cordon_sandbox_start(p, argv, &sb, &diag);
        cordon_policy_free(p);
        if (r < 0) {
                fprintf(stderr, "cannot start: %s (%s)\n", strerror(-r), diag.message);
                return 1;
        }

        pthread_t t;
        int status = -1;
        if (pthread_create(&t, NULL, killer, sb) != 0)
                return 1;
        r = cordon_sandbox_wait(sb, &status);
        pthread_join(t, NULL);

        const struct cordon_report *rep = cordon_sandbox_report(sb);
        static const char *const ends[] = {"exited", "timeout", "killed"};
        printf("backend=%s started=%d end=%s status=%d wait=%d\n",
               cordon_backend_to_string(rep->backend), rep->started,
               (unsigned)rep->end < 3 ? ends[rep->end] : "?", status, r);
        int failed = r < 0 || rep->end != CORDON_END_KILLED || status != 128 + SIGKILL;
        cordon_sandbox_free(sb); /* the report goes with it */
        return failed;
}
