/* session-bench: the timed side of bench/session.sh. It drives libcordon sessions through the
 * public API (as tests/helpers/session-probe.c starts them: the settings for the working
 * directory as the project) and prints one "NAME NANOSECONDS" line per sample; the script
 * computes the medians. Usage:
 *   session-bench exec BACKEND ROUNDS WARMUP         warm exec of /bin/true in one live session
 *                                                    against fork+exec+wait of it, interleaved
 *   session-bench start BACKEND ROUNDS WARMUP NET CORDON
 *                                                    settings+resolve and start_with(SESSION)
 *                                                    against `CORDON run --quiet -- /bin/true`
 *   session-bench suspend BACKEND ROUNDS WARMUP PROCS  suspend + resume with PROCS sleeps
 *   session-bench memory BACKEND ROUNDS              idle sessions: prints "pids PID..." (the
 *                                                    session's own processes) and waits for a
 *                                                    line on stdin before the next
 *   session-bench snapshot BACKEND ROUNDS WARMUP FILES MBYTES ARCHIVE_DIR
 *                                                    snapshot of FILES files / MBYTES MB in
 *                                                    the session's temporary directory and
 *                                                    restores of it, against tar with zstd
 *                                                    (session-bench-snapshot.c)
 * NET is "isolated" or "default" (NETWORK_FILTER_MODE left unset); exec, suspend, memory and
 * snapshot use isolated. Any failure ends it with a message on stderr and status 1. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "session-bench.h"

extern char **environ;

#define TREE_MAX 4096

const char *backend;

void die(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "session-bench (%s): ", backend ? backend : "?");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        exit(1);
}

int64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t rnd(void)
{
        static uint64_t x = 0x9e3779b97f4a7c15u;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
}

/* The order of a round's two items. */
static unsigned coin(void)
{
        return (unsigned)(rnd() & 1);
}

struct cordon_policy *resolve(const char *net)
{
        struct cordon_host host;
        struct cordon_settings *s = NULL;
        struct cordon_policy *p = NULL;
        struct cordon_diag d = {0};
        if (cordon_host_init_current(&host, environ) < 0 || cordon_settings_new(host.home, &s) < 0)
                die("settings");
        if (cordon_settings_set(s, "SANDBOX_BACKEND", backend, "bench", &d) < 0 ||
            (strcmp(net, "default") != 0 &&
             cordon_settings_set(s, "NETWORK_FILTER_MODE", net, "bench", &d) < 0))
                die("set: %s", d.message);
        int r = cordon_settings_resolve(s, &host, &p, NULL, &d);
        if (r < 0)
                die("resolve: %s", d.message);
        cordon_settings_free(s);
        cordon_host_clear(&host);
        return p;
}

struct cordon_sandbox *start_restored(const struct cordon_policy *p, const char *restore_from)
{
        struct cordon_sandbox *sb = NULL;
        struct cordon_diag d = {0};
        struct cordon_sandbox_options o = {.flags = CORDON_SANDBOX_SESSION,
                                           .restore_from = restore_from};
        int r = cordon_sandbox_start_with(p, NULL, &o, &sb, &d);
        if (r < 0)
                die("start: %s (%s)", strerror(-r), d.message);
        if (cordon_sandbox_report(sb)->backend !=
            (strcmp(backend, "ns") == 0 ? CORDON_BACKEND_NS : CORDON_BACKEND_LANDLOCK))
                die("the session runs under another backend");
        return sb;
}

static struct cordon_sandbox *start(const struct cordon_policy *p)
{
        return start_restored(p, NULL);
}

static struct cordon_sandbox *start_isolated(void)
{
        struct cordon_policy *p = resolve("isolated");
        struct cordon_sandbox *sb = start(p);
        cordon_policy_free(p);
        return sb;
}

/* Runs @argv in the session and waits for it; returns the nanoseconds of exec + wait. */
static int64_t session_run(struct cordon_sandbox *sb, char *const *argv)
{
        struct cordon_exec_options eo = {.argv = argv};
        struct cordon_exec *e = NULL;
        struct cordon_diag d = {0};
        int st = -1;
        int64_t t0 = now_ns();
        int r = cordon_sandbox_exec(sb, &eo, &e, &d);
        if (r < 0)
                die("exec %s: %s (%s)", argv[0], strerror(-r), d.message);
        r = cordon_exec_wait(e, &st);
        int64_t t1 = now_ns();
        if (r < 0 || st != 0)
                die("%s in the session: %s, status %d", argv[0], strerror(-r), st);
        cordon_exec_free(e);
        return t1 - t0;
}

/* posix_spawn() + waitpid() of @argv with its stdio on /dev/null; returns the nanoseconds. */
static int64_t spawn_run(char *const *argv)
{
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        for (int fd = 0; fd < 3; fd++)
                posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_RDWR, 0);
        pid_t pid;
        int st = 0;
        int64_t t0 = now_ns();
        int r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
        if (r != 0)
                die("spawn %s: %s", argv[0], strerror(r));
        if (waitpid(pid, &st, 0) < 0)
                die("waitpid: %m");
        int64_t t1 = now_ns();
        posix_spawn_file_actions_destroy(&fa);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                die("%s ended with wait status %d", argv[0], st);
        return t1 - t0;
}

/* fork() + execve() + waitpid() of /bin/true, stdio on /dev/null; returns the nanoseconds. */
static int64_t bare_run(void)
{
        char *argv[] = {W("/bin/true"), NULL};
        int st = 0;
        int64_t t0 = now_ns();
        pid_t pid = fork();
        if (pid < 0)
                die("fork: %m");
        if (pid == 0) {
                int fd = open("/dev/null", O_RDWR);
                if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
                        _exit(126);
                execve(argv[0], argv, environ);
                _exit(127);
        }
        if (waitpid(pid, &st, 0) < 0)
                die("waitpid: %m");
        int64_t t1 = now_ns();
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                die("/bin/true ended with wait status %d", st);
        return t1 - t0;
}

void sample(int round, int warmup, const char *name, int64_t ns)
{
        if (round >= warmup)
                printf("%s %lld\n", name, (long long)ns);
}

static void t_exec(int rounds, int warmup)
{
        struct cordon_sandbox *sb = start_isolated();
        char *argv[] = {W("/bin/true"), NULL};
        for (int i = 0; i < warmup + rounds; i++) {
                unsigned first = coin();
                for (unsigned k = 0; k < 2; k++) {
                        if ((k ^ first) == 0)
                                sample(i, warmup, "bare", bare_run());
                        else
                                sample(i, warmup, "exec", session_run(sb, argv));
                }
        }
        cordon_sandbox_free(sb);
}

static void t_start(int rounds, int warmup, const char *net, const char *cordon)
{
        char *run[] = {W(cordon),  W("run"),      W("--quiet"), W("--backend"), W(backend),
                       W("--net"), W("isolated"), W("--"),      W("/bin/true"), NULL};
        if (strcmp(net, "default") == 0) {
                /* The default network mode: no --net. */
                run[5] = W("--");
                run[6] = W("/bin/true");
                run[7] = NULL;
        }
        for (int i = 0; i < warmup + rounds; i++) {
                unsigned first = coin();
                for (unsigned k = 0; k < 2; k++) {
                        if ((k ^ first) == 0) {
                                sample(i, warmup, "run", spawn_run(run));
                                continue;
                        }
                        int64_t t0 = now_ns();
                        struct cordon_policy *p = resolve(net);
                        int64_t t1 = now_ns();
                        struct cordon_sandbox *sb = start(p);
                        int64_t t2 = now_ns();
                        sample(i, warmup, "resolve", t1 - t0);
                        sample(i, warmup, "start", t2 - t1);
                        /* What the mode gave here (the default one depends on the host). */
                        const struct cordon_report *rep = cordon_sandbox_report(sb);
                        if (i == 0)
                                printf("net %s %s %s\n", cordon_net_mode_to_string(rep->net_mode),
                                       cordon_net_mode_to_string(rep->net_mode_requested),
                                       rep->net_note ? rep->net_note : "");
                        cordon_policy_free(p);
                        cordon_sandbox_free(sb);
                }
        }
}

/* State letter of @pid from /proc/PID/stat, and its command name; 0 when gone. */
static char proc_state(pid_t pid, char comm[static 32])
{
        char path[64], buf[512];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
        if (!open_paren || !close_paren || close_paren < open_paren || !close_paren[1])
                return 0;
        size_t len = (size_t)(close_paren - open_paren - 1);
        if (len > 31)
                len = 31;
        memcpy(comm, open_paren + 1, len);
        comm[len] = 0;
        return close_paren[2];
}

/* Appends the children of every thread of @pid to @out (at most TREE_MAX in all). */
static void children_of(pid_t pid, pid_t *out, size_t *n)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d)
                return;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char cpath[384], buf[8192];
                snprintf(cpath, sizeof(cpath), "%s/%s/children", path, de->d_name);
                int fd = open(cpath, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                ssize_t k = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (k <= 0)
                        continue;
                buf[k] = 0;
                for (char *s = buf, *e; *s && *n < TREE_MAX; s = e) {
                        long v = strtol(s, &e, 10);
                        if (e == s)
                                break;
                        if (v > 0)
                                out[(*n)++] = (pid_t)v;
                }
        }
        closedir(d);
}

struct tree {
        size_t all, sleeps, running;
};

/* Every live process below @top (not it, nor @server, cordon's own, which stays up to serve
 * as PID 1 does; 0: none): how many, how many are `sleep`, how many are not stopped. */
static struct tree tree_of(pid_t top, pid_t server)
{
        static pid_t pids[TREE_MAX];
        size_t n = 0;
        struct tree t = {0};
        children_of(top, pids, &n);
        for (size_t at = 0; at < n; at++) {
                char comm[32];
                char st = proc_state(pids[at], comm);
                if (!st || st == 'Z' || st == 'X')
                        continue;
                if (pids[at] == server) {
                        children_of(pids[at], pids, &n);
                        continue;
                }
                t.all++;
                t.sleeps += strcmp(comm, "sleep") == 0;
                t.running += st != 'T' && st != 't';
                children_of(pids[at], pids, &n);
        }
        return t;
}

static void t_suspend(int rounds, int warmup, int procs)
{
        struct cordon_sandbox *sb = start_isolated();
        pid_t top = cordon_sandbox_report(sb)->pid, server = 0;
        /* The landlock backend: the idle reaper's one child is the confined server. */
        if (strcmp(backend, "landlock") == 0) {
                pid_t kids[TREE_MAX];
                size_t n = 0;
                children_of(top, kids, &n);
                if (n != 1)
                        die("the idle reaper has %zu children, not 1 (the server)", n);
                server = kids[0];
        }
        char script[128];
        snprintf(script, sizeof(script), "for i in $(seq %d); do sleep 1000 & done; wait", procs);
        char *argv[] = {W("sh"), W("-c"), script, NULL};
        struct cordon_exec_options eo = {.argv = argv};
        struct cordon_exec *e = NULL;
        struct cordon_diag d = {0};
        int r = cordon_sandbox_exec(sb, &eo, &e, &d);
        if (r < 0)
                die("exec sh: %s (%s)", strerror(-r), d.message);
        struct tree t = {0};
        for (int64_t t0 = now_ns(); now_ns() - t0 < 10 * 1000000000LL;) {
                if (cordon_exec_poll(e) != 0)
                        die("the sleeps' shell ended early");
                t = tree_of(top, server);
                if (t.sleeps >= (size_t)procs)
                        break;
                usleep(10 * 1000);
        }
        if (t.sleeps < (size_t)procs)
                die("only %zu of %d sleeps started", t.sleeps, procs);
        printf("procs %zu\n", t.all);
        for (int i = 0; i < warmup + rounds; i++) {
                int64_t t0 = now_ns();
                if ((r = cordon_sandbox_suspend(sb, &d)) < 0)
                        die("suspend: %s (%s)", strerror(-r), d.message);
                int64_t t1 = now_ns();
                /* How many were not stopped yet when it returned, and when every one was seen
                 * stopped (a walk of /proc included: an upper bound). Each round starts its
                 * resume from a session wholly stopped, and its next suspend from one wholly
                 * running again. */
                t = tree_of(top, server);
                size_t late = t.running;
                while (t.running && now_ns() - t1 < 5 * 1000000000LL)
                        t = tree_of(top, server);
                int64_t t2 = now_ns();
                /* What one walk of /proc over them costs here, for reading "stopped". */
                (void)tree_of(top, server);
                int64_t walk = now_ns() - t2, t2b = now_ns();
                if (t.running)
                        die("suspended, %zu of %zu processes still run after 5 s", t.running,
                            t.all);
                if ((r = cordon_sandbox_resume(sb, &d)) < 0)
                        die("resume: %s (%s)", strerror(-r), d.message);
                int64_t t3 = now_ns();
                t = tree_of(top, server);
                while (t.running != t.all && now_ns() - t3 < 5 * 1000000000LL)
                        t = tree_of(top, server);
                int64_t t4 = now_ns();
                if (t.running != t.all)
                        die("resumed, %zu of %zu processes are still stopped after 5 s",
                            t.all - t.running, t.all);
                if (t.all < (size_t)procs)
                        die("only %zu processes are left of %d", t.all, procs);
                sample(i, warmup, "suspend", t1 - t0);
                sample(i, warmup, "resume", t3 - t2b);
                sample(i, warmup, "cycle", (t1 - t0) + (t3 - t2b));
                sample(i, warmup, "stopped", t2 - t0);
                sample(i, warmup, "running", t4 - t2b);
                sample(i, warmup, "walk", walk);
                /* Every round's, the warm-up's too. */
                sample(i, 0, "late", (int64_t)late);
        }
        printf("mechanism %s\n",
               cordon_suspend_mechanism_to_string(cordon_sandbox_report(sb)->suspend));
        cordon_exec_free(e);
        cordon_sandbox_free(sb);
}

static void t_memory(int rounds)
{
        char *argv[] = {W("/bin/true"), NULL};
        for (int i = 0; i < rounds; i++) {
                struct cordon_sandbox *sb = start_isolated();
                /* Idle after one command, which the server has forked and reaped. */
                session_run(sb, argv);
                usleep(20 * 1000);
                pid_t top = cordon_sandbox_report(sb)->pid, kids[TREE_MAX];
                size_t n = 0;
                printf("pids %d", (int)top);
                /* The landlock backend: the reaper's child, the confined server. */
                if (strcmp(backend, "landlock") == 0) {
                        children_of(top, kids, &n);
                        if (n != 1)
                                die("the idle reaper has %zu children, not 1 (the server)", n);
                        printf(" %d", (int)kids[0]);
                }
                printf("\n");
                fflush(stdout);
                char line[64];
                if (!fgets(line, sizeof(line), stdin))
                        die("no go-ahead on stdin");
                cordon_sandbox_free(sb);
        }
}

static int number(const char *s)
{
        char *end;
        long v = strtol(s, &end, 10);
        if (*end || v < 0 || v > 1000000)
                die("'%s' is not a count", s);
        return (int)v;
}

int main(int argc, char **argv)
{
        if (argc < 4)
                die("usage: session-bench MODE BACKEND ROUNDS [WARMUP [ARG...]]");
        const char *mode = argv[1];
        backend = argv[2];
        if (strcmp(backend, "ns") != 0 && strcmp(backend, "landlock") != 0)
                die("BACKEND is ns or landlock");
        int rounds = number(argv[3]);
        if (strcmp(mode, "start") == 0 && argc == 7 && strcmp(argv[5], "isolated") != 0 &&
            strcmp(argv[5], "default") != 0)
                die("NET is isolated or default");
        setvbuf(stdout, NULL, _IOLBF, 0);
        if (strcmp(mode, "exec") == 0 && argc == 5)
                t_exec(rounds, number(argv[4]));
        else if (strcmp(mode, "start") == 0 && argc == 7)
                t_start(rounds, number(argv[4]), argv[5], argv[6]);
        else if (strcmp(mode, "suspend") == 0 && argc == 6)
                t_suspend(rounds, number(argv[4]), number(argv[5]));
        else if (strcmp(mode, "memory") == 0 && argc == 4)
                t_memory(rounds);
        else if (strcmp(mode, "snapshot") == 0 && argc == 8)
                t_snapshot(rounds, number(argv[4]), number(argv[5]), number(argv[6]), argv[7]);
        else
                die("unknown mode or wrong arguments: %s", mode);
        return 0;
}
