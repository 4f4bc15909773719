/* session-probe: drives a libcordon session through the public API for the shell suites
 * (tests/integration/session.sh). The sandbox is what the settings give for the working
 * directory as the project (SANDBOX_BACKEND from the environment), network isolated.
 * Usage: session-probe TEST [ARG]; prints "ok: ..." lines and exits 0, or says what failed on
 * stderr and exits 1. Tests: start, concurrent N, per-exec, pty, suspend, suspend-unscoped
 * (the Landlock layer off), cycles N, forkloop, wide N, holder-killed, attach,
 * attach-linked-home (HOME a link). */
#include <cordon/cordon.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* A writable copy of a literal or string, for the char *const * arrays. */
#define W(x) ((char *)(uintptr_t)(x))

static struct cordon_sandbox *sb;

_Noreturn __attribute__((format(printf, 1, 2))) static void die(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        fputs("session-probe: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        exit(1);
}

/* NAME=VALUE settings over the defaults, for the network tests (NULL-terminated). */
static const char *const *extra_settings;
/* An archive the next start restores (the snapshot test). */
static const char *restore_from;

static struct cordon_policy *resolve_with(const char *const *set)
{
        struct cordon_host host;
        struct cordon_settings *s = NULL;
        struct cordon_policy *p = NULL;
        struct cordon_diag d = {0};
        const char *backend = getenv("SANDBOX_BACKEND");
        if (cordon_host_init_current(&host, environ) < 0 || cordon_settings_new(host.home, &s) < 0)
                die("settings");
        if (backend && cordon_settings_set(s, "SANDBOX_BACKEND", backend, "test", &d) < 0)
                die("set: %s", d.message);
        for (size_t i = 0; set && set[i]; i++) {
                char name[128];
                const char *eq = strchr(set[i], '=');
                if (!eq || (size_t)(eq - set[i]) >= sizeof(name))
                        die("bad setting %s", set[i]);
                memcpy(name, set[i], (size_t)(eq - set[i]));
                name[eq - set[i]] = 0;
                if (cordon_settings_set(s, name, eq + 1, "test", &d) < 0)
                        die("set %s: %s", set[i], d.message);
        }
        int r = cordon_settings_resolve(s, &host, &p, NULL, &d);
        if (r < 0)
                die("resolve: %s", d.message);
        cordon_settings_free(s);
        cordon_host_clear(&host);
        return p;
}

/* A session for the working directory: the settings' defaults, isolated network unless
 * @extra_settings says otherwise. */
static void start(void)
{
        static const char *const isolated[] = {"NETWORK_FILTER_MODE=isolated", NULL};
        struct cordon_policy *p = resolve_with(extra_settings ? extra_settings : isolated);
        struct cordon_diag d = {0};
        struct cordon_sandbox_options o = {.flags = CORDON_SANDBOX_SESSION,
                                           .restore_from = restore_from};
        int r = cordon_sandbox_start_with(p, NULL, &o, &sb, &d);
        if (r < 0)
                die("start: %s (%s)", strerror(-r), d.message);
        cordon_policy_free(p);
}

static struct cordon_exec *run(const char *script, int out_fd, uint64_t timeout_usec)
{
        char *argv[] = {W("sh"), W("-c"), W(script), NULL};
        struct cordon_exec_options eo = {.argv = argv, .timeout_usec = timeout_usec};
        if (out_fd >= 0) {
                eo.flags = CORDON_EXEC_STDIO;
                eo.stdio[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
                eo.stdio[1] = out_fd;
                eo.stdio[2] = STDERR_FILENO;
        }
        struct cordon_exec *e = NULL;
        struct cordon_diag d = {0};
        int r = cordon_sandbox_exec(sb, &eo, &e, &d);
        if (out_fd >= 0)
                close(eo.stdio[0]);
        if (r < 0)
                die("exec '%s': %s (%s)", script, strerror(-r), d.message);
        return e;
}

static int wait_status(struct cordon_exec *e)
{
        int st = -1, r = cordon_exec_wait(e, &st);
        if (r < 0)
                die("wait: %s", strerror(-r));
        return st;
}

/* Reads @fd to its end (at most @n - 1 bytes). */
static void slurp(int fd, char *buf, size_t n)
{
        size_t k = 0;
        ssize_t m;
        while (k + 1 < n && (m = read(fd, buf + k, n - 1 - k)) > 0)
                k += (size_t)m;
        buf[k] = 0;
}

static uint64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The pid our /proc knows a command by: the "Pid:" of its pidfd's fdinfo. */
static pid_t host_pid(const struct cordon_exec *e)
{
        char path[64], line[256];
        snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", cordon_exec_pidfd(e));
        FILE *f = fopen(path, "re");
        pid_t pid = 0;
        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "Pid: %d", &pid) == 1)
                        break;
        if (f)
                fclose(f);
        if (pid <= 0)
                die("no pid for the command's pidfd");
        return pid;
}

/* State letter and user+system ticks of @pid; 0 when gone. */
static char stat_of(pid_t pid, unsigned long long *ret_ticks)
{
        char path[64], buf[1024];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        char *p = strrchr(buf, ')'), st = 0;
        unsigned long long ut = 0, stt = 0;
        if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &st, &ut,
                         &stt) != 3)
                return 0;
        if (ret_ticks)
                *ret_ticks = ut + stt;
        return st;
}

/* Every process of the session but its server: PID 1's namespace (ns), else the processes
 * below the reaper but the server (landlock: it is stopped too, so it counts). Returns how many
 * there are, and how many of them are not stopped. */
/* The child of @parent named as the landlock reaper names itself, or 0. */
static pid_t child_named_comm(pid_t parent)
{
        const char self[] = "cordon-reaper\n";
        char path[96], buf[4096];
        int fd;
        ssize_t n;
        snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent, (int)parent);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
        if (fd >= 0)
                close(fd);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        for (char *save = NULL, *t = strtok_r(buf, " \n", &save); t;
             t = strtok_r(NULL, " \n", &save)) {
                char comm[32] = "";
                snprintf(path, sizeof(path), "/proc/%s/comm", t);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                ssize_t k = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
                if (fd >= 0)
                        close(fd);
                if (k > 0 && (comm[k] = 0, strcmp(comm, self) == 0))
                        return (pid_t)atoi(t);
        }
        return 0;
}

static void session_procs(pid_t member, size_t *ret_all, size_t *ret_running)
{
        const struct cordon_report *rep = cordon_sandbox_report(sb);
        char self_ns[64] = "", path[64];
        /* A command's, not PID 1's: an unprivileged user cannot read the namespace links of a
         * process that is not dumpable. */
        snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)member);
        ssize_t k = readlink(path, self_ns, sizeof(self_ns) - 1);
        if (k > 0)
                self_ns[k] = 0;
        *ret_all = *ret_running = 0;
        /* cordon's own processes are not counted: PID 1 (ns), the reaper and the confined
         * server below it (landlock; a fork of the reaper, its child named cordon-reaper as it
         * is), which stays up to serve, as PID 1 does. */
        pid_t server = rep->backend == CORDON_BACKEND_LANDLOCK ? child_named_comm(rep->pid) : 0;
        for (int round = 0; round < 1; round++) {
                FILE *ps = popen("ps -e -o pid= -o ppid=", "r");
                int pid, ppid;
                /* Landlock: descendants of the reaper, by walking ppid chains. */
                static int pids[65536], ppids[65536];
                size_t n = 0;
                while (ps && n < 65536 && fscanf(ps, "%d %d", &pid, &ppid) == 2)
                        pids[n] = pid, ppids[n++] = ppid;
                if (ps)
                        pclose(ps);
                for (size_t i = 0; i < n; i++) {
                        if (pids[i] == rep->pid || pids[i] == server)
                                continue;
                        bool in = false;
                        if (rep->backend == CORDON_BACKEND_NS) {
                                char ns[64] = "";
                                snprintf(path, sizeof(path), "/proc/%d/ns/pid", pids[i]);
                                k = readlink(path, ns, sizeof(ns) - 1);
                                in = k > 0 && (ns[k] = 0, strcmp(ns, self_ns) == 0);
                        } else {
                                int cur = ppids[i];
                                for (int hops = 0; hops < 64 && cur > 1 && !in; hops++) {
                                        in = cur == rep->pid;
                                        size_t j;
                                        for (j = 0; j < n && pids[j] != cur; j++)
                                                ;
                                        cur = j < n ? ppids[j] : 0;
                                }
                        }
                        if (!in)
                                continue;
                        char st = stat_of(pids[i], NULL);
                        if (!st || st == 'Z')
                                continue;
                        (*ret_all)++;
                        if (st != 'T' && st != 't')
                                (*ret_running)++;
                }
        }
}

static void t_concurrent(int n)
{
        struct cordon_exec **e = calloc((size_t)n, sizeof(*e));
        char script[64];
        for (int i = 0; i < n; i++) {
                snprintf(script, sizeof(script), "sleep 0.5; exit %d", i % 100);
                e[i] = run(script, -1, 0);
        }
        for (int i = 0; i < n; i++) {
                int st = wait_status(e[i]);
                if (st != i % 100)
                        die("exec %d ended %d, not %d", i, st, i % 100);
                cordon_exec_free(e[i]);
        }
        free(e);
        printf("ok: %d concurrent execs, each with its own status\n", n);
}

static void t_per_exec(void)
{
        /* cwd and env. */
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                die("pipe");
        char *argv[] = {W("sh"), W("-c"), W("pwd; echo $PROBE_A"), NULL};
        char *env[] = {W("PROBE_A=alpha"), NULL};
        struct cordon_exec_options eo = {.argv = argv,
                                         .env = env,
                                         .cwd = "/tmp",
                                         .flags = CORDON_EXEC_STDIO,
                                         .stdio = {open("/dev/null", O_RDONLY), p[1], 2}};
        struct cordon_exec *e = NULL;
        struct cordon_diag d = {0};
        if (cordon_sandbox_exec(sb, &eo, &e, &d) < 0)
                die("exec: %s", d.message);
        close(p[1]);
        close(eo.stdio[0]);
        char out[256];
        int st0 = wait_status(e);
        slurp(p[0], out, sizeof(out));
        close(p[0]);
        if (st0 != 0 || strcmp(out, "/tmp\nalpha\n") != 0)
                die("cwd/env: got '%s'", out);
        if (cordon_exec_env_dropped(e))
                die("cwd/env: a variable the rules allow is named as dropped");
        cordon_exec_free(e);
        printf("ok: per-exec cwd and env\n");

        /* stdin. */
        int in[2], o2[2];
        if (pipe2(in, O_CLOEXEC) < 0 || pipe2(o2, O_CLOEXEC) < 0)
                die("pipe");
        char *cat[] = {W("tr"), W("a-z"), W("A-Z"), NULL};
        struct cordon_exec_options co = {
            .argv = cat, .flags = CORDON_EXEC_STDIO, .stdio = {in[0], o2[1], 2}};
        if (cordon_sandbox_exec(sb, &co, &e, &d) < 0)
                die("exec: %s", d.message);
        close(in[0]);
        close(o2[1]);
        if (write(in[1], "piped\n", 6) != 6)
                die("write");
        close(in[1]);
        st0 = wait_status(e);
        slurp(o2[0], out, sizeof(out));
        close(o2[0]);
        if (st0 != 0 || strcmp(out, "PIPED\n") != 0)
                die("stdin: got '%s'", out);
        cordon_exec_free(e);
        printf("ok: per-exec stdin through a pipe\n");

        /* An environment variable the sandbox's rules remove stays out. */
        if (pipe2(p, O_CLOEXEC) < 0)
                die("pipe");
        char *argv2[] = {W("sh"), W("-c"), W("echo \"[${AWS_SECRET_ACCESS_KEY:-unset}]\""), NULL};
        char *env2[] = {W("AWS_SECRET_ACCESS_KEY=hunter2"), NULL};
        struct cordon_exec_options eo2 = {.argv = argv2,
                                          .env = env2,
                                          .flags = CORDON_EXEC_STDIO,
                                          .stdio = {open("/dev/null", O_RDONLY), p[1], 2}};
        if (cordon_sandbox_exec(sb, &eo2, &e, &d) < 0)
                die("exec: %s", d.message);
        close(p[1]);
        close(eo2.stdio[0]);
        st0 = wait_status(e);
        slurp(p[0], out, sizeof(out));
        close(p[0]);
        if (st0 != 0 || strcmp(out, "[unset]\n") != 0)
                die("env filter: got '%s'", out);
        char *const *dropped = cordon_exec_env_dropped(e);
        if (!dropped || !dropped[0] || strcmp(dropped[0], "AWS_SECRET_ACCESS_KEY") != 0 ||
            dropped[1])
                die("env filter: the dropped names are not [AWS_SECRET_ACCESS_KEY]");
        cordon_exec_free(e);
        printf("ok: a blocked variable given to one exec stays out, and is named to the caller\n");

        /* A timeout kills that command's whole group, and only it. */
        if (pipe2(p, O_CLOEXEC) < 0)
                die("pipe");
        struct cordon_exec *other = run("sleep 1.5; echo alive", p[1], 0);
        close(p[1]);
        uint64_t t0 = now_ms();
        char slow_script[128], count_script[160];
        snprintf(slow_script, sizeof(slow_script), "sleep 600.%d & sleep 600.%d; echo never",
                 (int)getpid(), (int)getpid());
        snprintf(count_script, sizeof(count_script),
                 "ps -e -o args= 2>/dev/null | grep -c '^sleep 600.%d' || true", (int)getpid());
        struct cordon_exec *slow = run(slow_script, -1, 300 * 1000);
        int st = wait_status(slow);
        uint64_t took = now_ms() - t0;
        if (st != 137 || took > 5000)
                die("timeout: status %d after %llu ms", st, (unsigned long long)took);
        st0 = wait_status(other);
        slurp(p[0], out, sizeof(out));
        close(p[0]);
        if (st0 != 0 || strcmp(out, "alive\n") != 0)
                die("the other command did not survive the timeout: '%s'", out);
        cordon_exec_free(slow);
        cordon_exec_free(other);
        /* The group died: no `sleep 60` is left. */
        int q[2];
        if (pipe2(q, O_CLOEXEC) < 0)
                die("pipe");
        e = run(count_script, q[1], 0);
        close(q[1]);
        /* Waited for first: the session is served only while the probe is in libcordon (a
         * landlock command's notified calls wait for it), and the output fits the pipe. */
        wait_status(e);
        slurp(q[0], out, sizeof(out));
        close(q[0]);
        cordon_exec_free(e);
        if (strcmp(out, "0\n") != 0 && strcmp(out, "") != 0)
                die("the timed-out group left %s sleeps", out);
        printf("ok: a timeout kills its command's group (137) and not the others\n");

        /* Not found. */
        char *nf[] = {W("/no/such/command"), NULL};
        struct cordon_exec_options no = {.argv = nf};
        int r = cordon_sandbox_exec(sb, &no, &e, &d);
        if (r != -ENOENT || d.step != CORDON_STEP_EXEC)
                die("a missing command gave %d (%s)", r, d.message);
        printf("ok: a missing command is -ENOENT at the exec step\n");
}

static void t_pty(void)
{
        char *argv[] = {W("sh"), W("-c"),
                        W("test -t 0 && test -t 1 && echo terminal; echo \"name:$(tty)\"; "
                          "read x; echo got:$x"),
                        NULL};
        struct cordon_exec_options eo = {.argv = argv, .flags = CORDON_EXEC_PTY};
        struct cordon_exec *e = NULL;
        struct cordon_diag d = {0};
        if (cordon_sandbox_exec(sb, &eo, &e, &d) < 0)
                die("exec: %s", d.message);
        int m = cordon_exec_pty_fd(e);
        if (m < 0)
                die("no pty master");
        if (write(m, "typed\n", 6) != 6)
                die("write");
        char out[512] = "";
        size_t k = 0;
        uint64_t t0 = now_ms();
        while (now_ms() - t0 < 5000 && !strstr(out, "got:typed")) {
                struct pollfd pfd = {.fd = m, .events = POLLIN};
                if (poll(&pfd, 1, 100) > 0) {
                        ssize_t n = read(m, out + k, sizeof(out) - 1 - k);
                        if (n <= 0)
                                break;
                        k += (size_t)n;
                        out[k] = 0;
                }
        }
        if (wait_status(e) != 0 || !strstr(out, "terminal") || !strstr(out, "got:typed"))
                die("pty: got '%s'", out);
        /* A name tty(1) finds, in the sandbox's devpts (ns) or the host's (landlock). */
        if (!strstr(out, "name:/dev/pts/"))
                die("pty: the terminal has no name inside: '%s'", out);
        cordon_exec_free(e);
        printf("ok: output and input through a pty, which is the command's terminal, with a "
               "name (/dev/pts/N)\n");
}

static void check_suspended(struct cordon_exec *busy)
{
        pid_t hp = host_pid(busy);
        unsigned long long t1 = 0, t2 = 0;
        char st = stat_of(hp, &t1);
        usleep(300 * 1000);
        char st2 = stat_of(hp, &t2);
        if (st != 'T' || st2 != 'T' || t1 != t2)
                die("suspended, the busy loop is '%c'/'%c' and used %llu ticks", st, st2, t2 - t1);
        size_t all, running;
        session_procs(hp, &all, &running);
        if (running)
                die("suspended, %zu of %zu processes still run", running, all);
}

static void t_suspend(void)
{
        /* A process of the same user outside the session: a stop that reached past the
         * sandbox (the landlock server's kill(-1) without Landlock's signal scoping) would
         * stop it too. */
        pid_t outside = fork();
        if (outside == 0) {
                /* Not holding our output open, and gone with us should we die first. */
                int null = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 ||
                    prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                        _exit(127);
                execl("/bin/sleep", "sleep", "30", (char *)NULL);
                _exit(127);
        }
        if (outside < 0)
                die("fork");
        struct cordon_exec *busy = run("while :; do :; done", -1, 0);
        usleep(100 * 1000);
        struct cordon_diag d = {0};
        if (cordon_sandbox_suspend(sb, &d) < 0)
                die("suspend: %s", d.message);
        check_suspended(busy);
        char out_st = stat_of(outside, NULL);
        kill(outside, SIGKILL);
        waitpid(outside, NULL, 0);
        if (out_st != 'S' && out_st != 'R')
                die("suspended, a process of the same user outside the session is '%c'", out_st);
        printf("ok: suspended (%s): nothing runs, no CPU time is used; a process outside is "
               "not stopped\n",
               cordon_suspend_mechanism_to_string(cordon_sandbox_report(sb)->suspend));
        /* An exec resumes it first. */
        struct cordon_exec *t = run("true", -1, 0);
        if (wait_status(t) != 0)
                die("exec after suspend");
        cordon_exec_free(t);
        unsigned long long t1 = 0, t2 = 0;
        pid_t hp = host_pid(busy);
        stat_of(hp, &t1);
        usleep(300 * 1000);
        char st = stat_of(hp, &t2);
        if (st == 'T' || t2 == t1)
                die("after the exec the busy loop is '%c' and used no CPU", st);
        cordon_exec_kill(busy, SIGKILL);
        if (wait_status(busy) != 137)
                die("the busy loop's kill");
        cordon_exec_free(busy);
        printf("ok: an exec resumes the session first\n");
}

static void t_cycles(int n)
{
        /* A writer appends numbers; the cycles must lose none and keep it alive. */
        struct cordon_exec *w = run("i=0; f=${TMPDIR:-/tmp}/seq; : > $f; while [ $i -lt 3000 ]; do "
                                    "echo $i >> $f; i=$((i+1)); done",
                                    -1, 0);
        struct cordon_diag d = {0};
        for (int i = 0; i < n; i++) {
                if (cordon_sandbox_suspend(sb, &d) < 0 || cordon_sandbox_resume(sb, &d) < 0)
                        die("cycle %d: %s", i, d.message);
        }
        if (wait_status(w) != 0)
                die("the writer did not end well: %d", wait_status(w));
        cordon_exec_free(w);
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                die("pipe");
        struct cordon_exec *c = run("seq 0 2999 | cmp - ${TMPDIR:-/tmp}/seq && echo same", p[1], 0);
        close(p[1]);
        char out[64];
        int st = wait_status(c);
        slurp(p[0], out, sizeof(out));
        close(p[0]);
        if (st != 0 || strcmp(out, "same\n") != 0)
                die("the writer's file differs after the cycles: %s", out);
        cordon_exec_free(c);
        printf("ok: %d suspend/resume cycles under writes keep the file and the process\n", n);
}

static void t_forkloop(void)
{
        struct cordon_exec *f = run("while :; do sleep 30 & done", -1, 0);
        usleep(200 * 1000);
        struct cordon_diag d = {0};
        if (cordon_sandbox_suspend(sb, &d) < 0)
                die("suspend: %s", d.message);
        size_t all, running;
        pid_t hp = host_pid(f);
        session_procs(hp, &all, &running);
        usleep(200 * 1000);
        size_t all2, running2;
        session_procs(hp, &all2, &running2);
        if (running || running2 || all2 != all || all < 2)
                die("fork loop: %zu/%zu running, then %zu/%zu", running, all, running2, all2);
        if (cordon_sandbox_resume(sb, &d) < 0)
                die("resume: %s", d.message);
        cordon_exec_kill(f, SIGKILL);
        wait_status(f);
        cordon_exec_free(f);
        printf("ok: a fork loop is stopped whole (%zu processes, none running)\n", all);
}

/* One process with a thousand children (its /proc children list is over 4 KB, read in more
 * than one piece): the suspend stops every one. */
static void t_wide(int n)
{
        int q[2];
        if (pipe2(q, O_CLOEXEC) < 0)
                die("pipe");
        char script[160];
        snprintf(script, sizeof(script),
                 "i=0; while [ $i -lt %d ]; do sleep 60 & i=$((i+1)); done; echo ready; "
                 "exec sleep 60",
                 n);
        struct cordon_exec *f = run(script, q[1], 0);
        close(q[1]);
        char buf[64] = "";
        size_t k = 0;
        uint64_t t0 = now_ms();
        while (!strstr(buf, "ready") && now_ms() - t0 < 60000) {
                struct pollfd pfd = {.fd = q[0], .events = POLLIN};
                if (poll(&pfd, 1, 100) > 0) {
                        ssize_t r = read(q[0], buf + k, sizeof(buf) - 1 - k);
                        if (r <= 0)
                                break;
                        k += (size_t)r;
                        buf[k] = 0;
                }
                (void)cordon_exec_poll(f);
        }
        close(q[0]);
        if (!strstr(buf, "ready"))
                die("wide: the %d children did not start", n);
        struct cordon_diag d = {0};
        if (cordon_sandbox_suspend(sb, &d) < 0)
                die("suspend: %s", d.message);
        size_t all, running;
        session_procs(host_pid(f), &all, &running);
        if (running || all < (size_t)n)
                die("wide: %zu of %zu processes still run after the suspend", running, all);
        if (cordon_sandbox_resume(sb, &d) < 0)
                die("resume: %s", d.message);
        cordon_exec_kill(f, SIGKILL);
        wait_status(f);
        cordon_exec_free(f);
        printf("ok: a process with %d children is stopped whole (%zu processes, none running)\n", n,
               all);
}

/* The process holding the session dies of SIGKILL: nothing of it may stay. */
/* The first child of @parent whose argv[0] starts with @name (pasta), or 0. */
static pid_t child_named(pid_t parent, const char *name)
{
        char path[96], buf[4096];
        snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent, (int)parent);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n")) {
                /* argv[0]: its comm is the descriptor it was executed from. */
                char arg0[64] = "";
                snprintf(path, sizeof(path), "/proc/%s/cmdline", t);
                int cfd = open(path, O_RDONLY | O_CLOEXEC);
                ssize_t k = cfd >= 0 ? read(cfd, arg0, sizeof(arg0) - 1) : -1;
                if (cfd >= 0)
                        close(cfd);
                if (k > 0 && strncmp(arg0, name, strlen(name)) == 0)
                        return (pid_t)atoi(t);
        }
        return 0;
}

/* The process holding the session dies of SIGKILL (in the default network mode: filtered where
 * pasta can run): nothing of it may stay: its first process, its commands, pasta, and under the
 * landlock backend the private TMPDIR on the host. */
static void t_holder_killed(void)
{
        int p[2];
        if (pipe2(p, 0) < 0)
                die("pipe");
        /* As root (cgroups are root's here), with a memory limit: its cgroup must go too. */
        static const char *const defaults[] = {NULL}, *const limited[] = {"MEMORY_LIMIT=256M",
                                                                          NULL};
        const bool root = geteuid() == 0;
        pid_t holder = fork();
        if (holder == 0) {
                extra_settings = root ? limited : defaults; /* the default network mode */
                start();
                int q[2];
                if (pipe2(q, O_CLOEXEC) < 0)
                        _exit(1);
                struct cordon_exec *e = run("echo \"${TMPDIR:-}\"; exec sleep 1000", q[1], 0);
                close(q[1]);
                char tmpdir[1024] = "";
                ssize_t k = read(q[0], tmpdir, sizeof(tmpdir) - 1);
                tmpdir[k > 0 ? k : 0] = 0;
                char *nl = strchr(tmpdir, '\n');
                if (nl)
                        *nl = 0;
                const struct cordon_report *rep = cordon_sandbox_report(sb);
                char line[1400];
                int n = snprintf(line, sizeof(line), "%d %d %d %s %s\n", (int)rep->pid,
                                 (int)host_pid(e), (int)child_named(getpid(), "pasta"),
                                 rep->backend == CORDON_BACKEND_LANDLOCK && *tmpdir ? tmpdir : "-",
                                 cordon_net_mode_to_string(rep->net_mode));
                if (write(p[1], line, (size_t)n) != n)
                        _exit(1);
                pause();
                _exit(0);
        }
        close(p[1]);
        char line[1400] = "", tmpdir[1100] = "", mode[32] = "";
        ssize_t got = read(p[0], line, sizeof(line) - 1);
        if (got > 0)
                line[got] = 0;
        int first = 0, cmd = 0, pasta = 0;
        if (sscanf(line, "%d %d %d %1099s %31s", &first, &cmd, &pasta, tmpdir, mode) != 5)
                die("the holder said '%s'", line);
        kill(holder, SIGKILL);
        waitpid(holder, NULL, 0);
        struct stat st;
        bool tmp_left = true;
        uint64_t t0 = now_ms();
        for (;;) {
                tmp_left = strcmp(tmpdir, "-") != 0 && lstat(tmpdir, &st) == 0;
                bool alive =
                    stat_of(first, NULL) || stat_of(cmd, NULL) || (pasta && stat_of(pasta, NULL));
                if ((!alive && !tmp_left) || now_ms() - t0 > 15000)
                        break;
                usleep(20 * 1000);
        }
        char a = stat_of(first, NULL), b = stat_of(cmd, NULL), c = pasta ? stat_of(pasta, NULL) : 0;
        if ((a && a != 'Z') || (b && b != 'Z') || (c && c != 'Z'))
                die("after the holder's SIGKILL the sandbox (%c), its command (%c) or pasta (%c) "
                    "lives",
                    a ?: '-', b ?: '-', c ?: '-');
        if (tmp_left)
                die("after the holder's SIGKILL its TMPDIR %s is still there", tmpdir);
        /* The supervisor names its cgroups cordon-PID-N. */
        char find[160], left[512] = "";
        snprintf(find, sizeof(find),
                 "find /sys/fs/cgroup -maxdepth 6 -name 'cordon-%d-*' 2>/dev/null | head -3",
                 (int)holder);
        for (t0 = now_ms(); root && now_ms() - t0 < 5000; usleep(50 * 1000)) {
                FILE *f = popen(find, "r");
                size_t k = f ? fread(left, 1, sizeof(left) - 1, f) : 0;
                left[k] = 0;
                if (f)
                        pclose(f);
                if (!*left)
                        break;
        }
        if (*left)
                die("after the holder's SIGKILL its cgroups are still there: %s", left);
        printf("ok: SIGKILL of the holder takes the session along (network %s: first process, "
               "commands%s%s%s)\n",
               mode, pasta ? ", pasta" : "", strcmp(tmpdir, "-") ? ", private TMPDIR" : "",
               root ? ", cgroups" : "");
}

static int attach(const char *host, const char *guest, unsigned flags, struct cordon_diag *d)
{
        memset(d, 0, sizeof(*d));
        return cordon_sandbox_attach(sb, host, guest, flags, d);
}

/* Binds while a command runs, which sees it; read-only unless asked; the refusals of a start. */
static void t_attach(void)
{
        char cwd[4096], src[4200], dst[4200], rwsrc[4200], rwdst[4200], link[4200];
        const char *tmp = getenv("T_TMP") ?: "/tmp";
        if (!getcwd(cwd, sizeof(cwd)))
                die("getcwd");
        snprintf(src, sizeof(src), "%s/attach-src-%d", tmp, (int)getpid());
        snprintf(rwsrc, sizeof(rwsrc), "%s/attach-rw-%d", tmp, (int)getpid());
        snprintf(link, sizeof(link), "%s/attach-link-%d", tmp, (int)getpid());
        snprintf(dst, sizeof(dst), "%s/attached", cwd);
        snprintf(rwdst, sizeof(rwdst), "%s/attached-rw", cwd);
        if (mkdir(src, 0755) < 0 || mkdir(rwsrc, 0755) < 0 || symlink(src, link) < 0)
                die("setup: %s", strerror(errno));
        char file[4300];
        snprintf(file, sizeof(file), "%s/hello", src);
        FILE *f = fopen(file, "we");
        if (!f || fputs("hi\n", f) < 0 || fclose(f) != 0)
                die("setup file");
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                die("pipe");
        struct cordon_exec *waiter =
            run("i=0; while [ ! -e attached/hello ] && [ $i -lt 200 ]; do sleep 0.05; "
                "i=$((i+1)); done; cat attached/hello",
                p[1], 0);
        close(p[1]);
        struct cordon_diag d;
        int r = attach(src, dst, 0, &d);
        if (cordon_sandbox_report(sb)->backend != CORDON_BACKEND_NS) {
                if (r != -EOPNOTSUPP)
                        die("landlock attach gave %d, not -EOPNOTSUPP (%s)", r, d.message);
                cordon_exec_kill(waiter, SIGKILL);
                wait_status(waiter);
                cordon_exec_free(waiter);
                close(p[0]);
                printf("ok: the landlock backend answers -EOPNOTSUPP (no mount namespace)\n");
                return;
        }
        if (r < 0)
                die("attach: %s (%s)", strerror(-r), d.message);
        int st = wait_status(waiter);
        char out[256];
        slurp(p[0], out, sizeof(out));
        close(p[0]);
        if (st != 0 || strcmp(out, "hi\n") != 0)
                die("the running command did not see the attach: %d '%s'", st, out);
        cordon_exec_free(waiter);
        printf("ok: a running command sees what was attached\n");
        struct cordon_exec *w = run("echo x > attached/new 2>/dev/null", -1, 0);
        if (wait_status(w) == 0)
                die("a read-only attach took a write");
        cordon_exec_free(w);
        printf("ok: a read-only attach refuses writes\n");
        if ((r = attach(rwsrc, rwdst, CORDON_ATTACH_READ_WRITE, &d)) < 0)
                die("rw attach: %s (%s)", strerror(-r), d.message);
        w = run("echo written > attached-rw/out", -1, 0);
        snprintf(file, sizeof(file), "%s/out", rwsrc);
        char back[64] = "";
        f = wait_status(w) == 0 ? fopen(file, "re") : NULL;
        if (!f || !fgets(back, sizeof(back), f) || strcmp(back, "written\n") != 0)
                die("a read-write attach's write did not reach the host");
        fclose(f);
        cordon_exec_free(w);
        printf("ok: a read-write attach's writes reach the host\n");
        /* The refusals. */
        snprintf(dst, sizeof(dst), "%s/via-link", cwd);
        if ((r = attach(link, dst, 0, &d)) != -ELOOP)
                die("a symlinked source gave %d, not -ELOOP", r);
        const char *home = getenv("HOME");
        char ssh[4200];
        snprintf(ssh, sizeof(ssh), "%s/.ssh", home ? home : "/nonexistent");
        snprintf(dst, sizeof(dst), "%s/keys", cwd);
        int r1 = attach(ssh, dst, 0, &d);
        int r2 = home ? attach(home, dst, 0, &d) : -EACCES;
        if (r1 != -EACCES || r2 != -EACCES)
                die("attaching the hidden ~/.ssh gave %d, its parent %d (not -EACCES)", r1, r2);
        if ((r = attach(src, "/opt/cordon-attach-test", 0, &d)) != -EACCES)
                die("a target outside the Landlock rules gave %d (%s)", r, d.message);
        if ((r = attach(src, "relative/path", 0, &d)) != -EINVAL)
                die("a relative target gave %d", r);
        printf("ok: refused: a symlinked source (ELOOP), a hidden credential store and its parent, "
               "a target Landlock does not open (EACCES), a relative path (EINVAL)\n");
}

/* $HOME is a symbolic link (to a directory of another name, as a home on /export linked from
 * /home is): the home's real path and the .ssh below it are refused as $HOME's are, though the
 * session's hidden paths are written with the link (they used to be compared as written, so
 * the real path passed and showed the keys). Control: the real path differs from $HOME, and
 * a plain directory beside it is taken. */
static void t_attach_linked_home(void)
{
        const char *home = getenv("HOME");
        char real[PATH_MAX], ssh[PATH_MAX + 8], cwd[4096], dst[4200], plain[PATH_MAX + 16];
        if (!home || !realpath(home, real) || !getcwd(cwd, sizeof(cwd)))
                die("HOME or the working directory cannot be resolved");
        if (strcmp(real, home) == 0)
                die("control: HOME '%s' is no link", home);
        snprintf(ssh, sizeof(ssh), "%s/.ssh", real);
        snprintf(plain, sizeof(plain), "%s-plain", real);
        snprintf(dst, sizeof(dst), "%s/keys", cwd);
        if (mkdir(plain, 0755) < 0 && errno != EEXIST)
                die("setup: %s", strerror(errno));
        struct cordon_diag d;
        int r0 = attach(plain, dst, 0, &d);
        if (cordon_sandbox_report(sb)->backend != CORDON_BACKEND_NS) {
                if (r0 != -EOPNOTSUPP)
                        die("landlock attach gave %d, not -EOPNOTSUPP", r0);
                printf("ok: the landlock backend answers -EOPNOTSUPP (no mount namespace)\n");
                return;
        }
        if (r0 < 0)
                die("control: a plain directory was refused: %s (%s)", strerror(-r0), d.message);
        snprintf(dst, sizeof(dst), "%s/keys2", cwd);
        int r1 = attach(ssh, dst, 0, &d), r2 = attach(real, dst, 0, &d);
        if (r1 != -EACCES || r2 != -EACCES)
                die("through the home's real path: .ssh gave %d, the home %d (not -EACCES)", r1,
                    r2);
        printf("ok: with HOME a link, its real path and the .ssh below are refused (EACCES); a "
               "plain directory is taken\n");
}

/* A python3 client that holds a connection (through the proxy in proxied mode) and echoes
 * every 100 ms: "up" once it is through, then "cut" when it breaks, "alive" after 12 s. */
static const char held_connection[] =
    "import socket,sys,time\n"
    "mode,host,port=sys.argv[1],sys.argv[2],int(sys.argv[3])\n"
    "try:\n"
    "  if mode=='proxied':\n"
    "    import os,urllib.parse\n"
    "    u=urllib.parse.urlsplit(os.environ.get('HTTP_PROXY','http://127.0.0.1:3128'))\n"
    "    s=socket.create_connection((u.hostname,u.port),timeout=5)\n"
    "    s.sendall(('CONNECT %s:%d HTTP/1.1\\r\\nHost: "
    "%s:%d\\r\\n\\r\\n'%(host,port,host,port)).encode())\n"
    "    r=s.recv(1024)\n"
    "    if b' 200' not in r.split(b'\\r\\n')[0]:\n"
    "      print('refused',flush=True);sys.exit(0)\n"
    "  else:\n"
    "    s=socket.create_connection((host,port),timeout=3)\n"
    "except OSError as e:\n"
    "  print('refused',flush=True);sys.exit(0)\n"
    "print('up',flush=True)\n"
    "s.settimeout(1.5)\n"
    "t=time.time()\n"
    "while time.time()-t<12:\n"
    "  try:\n"
    "    s.sendall(b'ping')\n"
    "    if not s.recv(16):\n"
    "      print('cut',flush=True);sys.exit(0)\n"
    "  except OSError:\n"
    "    print('cut',flush=True);sys.exit(0)\n"
    "  time.sleep(0.1)\n"
    "print('alive',flush=True)\n";

/* Serves the session until @fd has a line (or 15 s pass); the line in @buf. */
static void read_line_serving(int fd, char *buf, size_t n)
{
        size_t k = 0;
        buf[0] = 0;
        uint64_t t0 = now_ms();
        while (now_ms() - t0 < 15000 && !strchr(buf, '\n')) {
                struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN},
                                        {.fd = cordon_sandbox_get_fd(sb), .events = POLLIN}};
                uint64_t tmo = 0;
                (void)cordon_sandbox_get_timeout(sb, &tmo);
                int ms = tmo == UINT64_MAX || tmo > 50000 ? 50 : (int)(tmo / 1000);
                if (poll(pfd, 2, ms) < 0)
                        die("poll");
                if (pfd[0].revents) {
                        ssize_t m = read(fd, buf + k, n - 1 - k);
                        if (m <= 0)
                                break;
                        k += (size_t)m;
                        buf[k] = 0;
                }
                if (cordon_sandbox_process(sb) < 0)
                        die("process");
        }
}

static struct cordon_exec *hold(const char *mode, const char *host, const char *port, int out)
{
        char *argv[] = {W("python3"), W("-c"), W(held_connection), W(mode), W(host), W(port), NULL};
        struct cordon_exec_options eo = {
            .argv = argv,
            .flags = CORDON_EXEC_STDIO,
            .stdio = {open("/dev/null", O_RDONLY | O_CLOEXEC), out, 2}};
        struct cordon_exec *e = NULL;
        struct cordon_diag d = {0};
        if (cordon_sandbox_exec(sb, &eo, &e, &d) < 0)
                die("exec: %s", d.message);
        close(eo.stdio[0]);
        return e;
}

/* NET_OK_ADDR, NET_OTHER_ADDR, NET_NET, NET_TCP_ECHO_PORT from the test internet. A held
 * connection to the first is cut by a rule change that blocks it; a new one there is refused,
 * one to the other goes through; a weaker mode is refused. */
static void t_network(const char *mode)
{
        const char *ok = getenv("NET_OK_ADDR"), *other = getenv("NET_OTHER_ADDR");
        const char *net = getenv("NET_NET"), *port = getenv("NET_TCP_ECHO_PORT");
        if (!ok || !other || !net || !port)
                die("the test internet's variables are not set");
        char m[64], except[128], block[128];
        snprintf(m, sizeof(m), "NETWORK_FILTER_MODE=%s", mode);
        snprintf(except, sizeof(except), "NETWORK_BLOCKLIST_EXCEPT=%s", net);
        snprintf(block, sizeof(block), "NETWORK_BLOCKLIST=%s", ok);
        const char *const before[] = {m, except, NULL}, *const after[] = {m, except, block, NULL};
        extra_settings = before;
        start();
        if (cordon_sandbox_report(sb)->net_mode !=
            (strcmp(mode, "proxied") == 0 ? CORDON_NET_PROXIED : CORDON_NET_FILTERED))
                die("the session did not get %s", mode);
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                die("pipe");
        struct cordon_exec *held = hold(mode, ok, port, p[1]);
        char line[64];
        read_line_serving(p[0], line, sizeof(line));
        if (strcmp(line, "up\n") != 0)
                die("the connection did not come up: '%s'", line);
        struct cordon_policy *np = resolve_with(after);
        struct cordon_diag d = {0};
        int r = cordon_sandbox_set_network(sb, np, &d);
        cordon_policy_free(np);
        if (r < 0)
                die("set_network: %s (%s)", strerror(-r), d.message);
        read_line_serving(p[0], line, sizeof(line));
        close(p[1]);
        close(p[0]);
        cordon_exec_kill(held, SIGKILL);
        wait_status(held);
        cordon_exec_free(held);
        if (strcmp(line, "cut\n") != 0)
                die("the held connection was not cut: '%s'", line);
        printf("ok: %s: a rule change cuts a connection it now refuses\n", mode);
        /* New connections follow the new rules. */
        for (int i = 0; i < 2; i++) {
                if (pipe2(p, O_CLOEXEC) < 0)
                        die("pipe");
                struct cordon_exec *e = hold(mode, i ? other : ok, port, p[1]);
                read_line_serving(p[0], line, sizeof(line));
                close(p[1]);
                close(p[0]);
                cordon_exec_kill(e, SIGKILL);
                wait_status(e);
                cordon_exec_free(e);
                if (strcmp(line, i ? "up\n" : "refused\n") != 0)
                        die("a new connection to %s: '%s'", i ? other : ok, line);
        }
        printf("ok: %s: new connections follow the new rules (blocked refused, other through)\n",
               mode);
        const char *const weaker[] = {"NETWORK_FILTER_MODE=open", NULL};
        np = resolve_with(weaker);
        r = cordon_sandbox_set_network(sb, np, &d);
        cordon_policy_free(np);
        if (r != -EPERM)
                die("a weaker mode gave %d (%s)", r, d.message);
        printf("ok: %s: a weaker mode is refused (EPERM)\n", mode);
        /* Isolated: what went through a moment ago is refused, and the report says so. */
        const char *const iso[] = {"NETWORK_FILTER_MODE=isolated", NULL};
        np = resolve_with(iso);
        r = cordon_sandbox_set_network(sb, np, &d);
        cordon_policy_free(np);
        if (r < 0)
                die("isolating: %s (%s)", strerror(-r), d.message);
        if (pipe2(p, O_CLOEXEC) < 0)
                die("pipe");
        struct cordon_exec *e = hold(mode, other, port, p[1]);
        read_line_serving(p[0], line, sizeof(line));
        close(p[1]);
        close(p[0]);
        cordon_exec_kill(e, SIGKILL);
        wait_status(e);
        cordon_exec_free(e);
        if (strcmp(line, "refused\n") != 0 ||
            cordon_sandbox_report(sb)->net_mode != CORDON_NET_ISOLATED)
                die("after isolating, a connection to %s: '%s'", other, line);
        printf("ok: %s: the session isolated live (the other address refused now)\n", mode);
}

/* A listing of the session's scratch tree: type, mode, path, link target, content hash. */
static const char listing[] = "cd \"${TMPDIR:-/tmp}\" && find . -printf '%y %m %p %l\\n' | sort && "
                              "find . -type f | sort | xargs -r sha256sum";

static void capture(const char *script, char *out, size_t n)
{
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                die("pipe");
        struct cordon_exec *e = run(script, p[1], 0);
        close(p[1]);
        int st = wait_status(e);
        slurp(p[0], out, n);
        close(p[0]);
        cordon_exec_free(e);
        if (st != 0)
                die("'%s' ended %d", script, st);
}

/* snapshot -> free -> restore into a new session -> the trees are equal. */
static void t_snapshot(void)
{
        static char before[65536], after[65536];
        const char *tmp = getenv("T_TMP") ?: "/tmp";
        char archive[4096];
        snprintf(archive, sizeof(archive), "%s/session-%d.tar.zst", tmp, (int)getpid());
        start();
        struct cordon_exec *w =
            run("cd \"${TMPDIR:-/tmp}\" && mkdir -p a/b empty && printf 'one\\n' > a/one && "
                "head -c 100000 /dev/urandom > a/b/blob && chmod 640 a/one && chmod 700 a/b && "
                "ln -s one a/link && ln -s b/blob a/b-link && printf x > exec.sh && "
                "chmod 755 exec.sh",
                -1, 0);
        if (wait_status(w) != 0)
                die("writing the tree failed");
        cordon_exec_free(w);
        capture(listing, before, sizeof(before));
        struct cordon_diag d = {0};
        int r = cordon_sandbox_snapshot(sb, archive, &d);
        if (r < 0)
                die("snapshot: %s (%s)", strerror(-r), d.message);
        if (cordon_sandbox_report(sb)->suspend == CORDON_SUSPEND_NONE)
                die("the snapshot did not suspend the session");
        cordon_sandbox_free(sb);
        sb = NULL;
        restore_from = archive;
        start();
        capture(listing, after, sizeof(after));
        if (strcmp(before, after) != 0)
                die("the restored tree differs:\n--- before\n%s--- after\n%s", before, after);
        unlink(archive);
        printf("ok: snapshot, free, restore into a new session: the tree is equal (content, "
               "modes, links)\n");
}

int main(int argc, char **argv)
{
        if (argc < 2)
                die("usage: session-probe TEST [ARG]");
        const char *t = argv[1];
        int n = argc > 2 ? atoi(argv[2]) : 0;
        if (strcmp(t, "holder-killed") == 0) {
                t_holder_killed();
                return 0;
        }
        if (strcmp(t, "snapshot") == 0) {
                t_snapshot();
                cordon_sandbox_free(sb);
                return 0;
        }
        if (strcmp(t, "network") == 0) {
                t_network(argc > 2 ? argv[2] : "proxied");
                cordon_sandbox_free(sb);
                return 0;
        }
        /* The suspend with the Landlock layer off (the landlock backend): no signal scoping, so
         * the server must leave it to the supervisor's walk, and nothing outside may stop. */
        static const char *const unscoped[] = {"SANDBOX_PROFILE=unrestricted",
                                               "NETWORK_FILTER_MODE=open", NULL};
        if (strcmp(t, "suspend-unscoped") == 0) {
                extra_settings = unscoped;
                t = "suspend";
                printf("ok: a session with the Landlock layer off started\n");
        }
        start();
        if (strcmp(t, "start") == 0)
                printf("ok: a session started (%s)\n",
                       cordon_backend_to_string(cordon_sandbox_report(sb)->backend));
        else if (strcmp(t, "concurrent") == 0)
                t_concurrent(n ?: 200);
        else if (strcmp(t, "per-exec") == 0)
                t_per_exec();
        else if (strcmp(t, "pty") == 0)
                t_pty();
        else if (strcmp(t, "suspend") == 0)
                t_suspend();
        else if (strcmp(t, "cycles") == 0)
                t_cycles(n ?: 50);
        else if (strcmp(t, "forkloop") == 0)
                t_forkloop();
        else if (strcmp(t, "wide") == 0)
                t_wide(n ?: 1000);
        else if (strcmp(t, "attach") == 0)
                t_attach();
        else if (strcmp(t, "attach-linked-home") == 0)
                t_attach_linked_home();
        else
                die("unknown test %s", t);
        cordon_sandbox_free(sb);
        return 0;
}
