/* pasta attached to the sandbox's network namespace (see pasta.h). Facts this relies on,
 * measured on Debian 12's passt: attached by pid it configures the namespace, daemonizes and its
 * first process exits 0, with the daemon's pid written to the -P file by that first process;
 * the daemon does not exit when the namespace's process dies; run as root without --runas it
 * drops to nobody and hangs; its defaults forward the host's loopback ports in and map the
 * gateway to the host. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/mech/pasta.h"
#include "lib/policy/diag.h"
#include "shared/macro.h"
#include "shared/path-util.h"

/* The descriptor pasta writes its daemon's pid to, through -P /dev/fd/N: a pipe of ours, so no
 * file is made anywhere. */
#define PIDFILE_FD 3
#define ERR_MAX    1024

int cordon_pasta_find(const char *path, char **ret_path)
{
        if (path) {
                if (!path_is_absolute(path))
                        return -EINVAL;
                struct stat st;
                if (stat(path, &st) < 0)
                        return -errno;
                if (!S_ISREG(st.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
                        return -EACCES;
                char *copy = strdup(path);
                if (!copy)
                        return -ENOMEM;
                *ret_path = copy;
                return 0;
        }
        _cleanup_free_ char *dirs = strdup(CORDON_PASTA_SEARCH_PATH);
        if (!dirs)
                return -ENOMEM;
        char *rest = dirs, *dir;
        while ((dir = strsep(&rest, ":"))) {
                _cleanup_free_ char *candidate = path_join(dir, "pasta");
                if (!candidate)
                        return -ENOMEM;
                struct stat st;
                if (stat(candidate, &st) < 0 || !S_ISREG(st.st_mode) ||
                    faccessat(AT_FDCWD, candidate, X_OK, AT_EACCESS) < 0)
                        continue;
                *ret_path = TAKE_PTR(candidate);
                return 0;
        }
        return -ENOENT;
}

/* Before Linux 5.7 SO_BINDTODEVICE, which pasta uses on its host-side sockets, needs
 * CAP_NET_RAW. */
static bool kernel_before(unsigned major, unsigned minor)
{
        struct utsname u;
        unsigned ma = 0, mi = 0;
        if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &ma, &mi) != 2)
                return false;
        return ma < major || (ma == major && mi < minor);
}

int cordon_pasta_probe(const struct cordon_pasta_config *cfg, enum cordon_backend backend,
                       bool skip_probes, struct cordon_diag *diag)
{
        const char *path = cfg ? cfg->path : NULL;
        if (backend == CORDON_BACKEND_LANDLOCK)
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "the filtered network needs a network namespace for pasta "
                                       "and the landlock backend has none (SANDBOX_BACKEND=ns)");
        _cleanup_free_ char *found = NULL;
        int r = cordon_pasta_find(path, &found);
        if (r == -ENOMEM)
                return r;
        if (r < 0 && path)
                return cordon_diag_set(diag, r == -EINVAL ? -EINVAL : -ENOENT,
                                       "pasta '%s' is not an executable file given by an absolute "
                                       "path: %s",
                                       path, strerror(-r));
        if (r < 0)
                return cordon_diag_set(diag, -ENOENT,
                                       "the filtered network needs pasta, which is not in %s "
                                       "(install the passt package: apt-get install passt)",
                                       CORDON_PASTA_SEARCH_PATH);
        if (skip_probes)
                return 0;
        if (geteuid() != 0 && kernel_before(5, 7))
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "pasta needs Linux 5.7 or later to run without privileges "
                                       "(SO_BINDTODEVICE)");
        int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                r = -errno;
                if (r == -ENOENT || r == -ENXIO || r == -ENODEV)
                        return cordon_diag_set(diag, -EOPNOTSUPP,
                                               "pasta needs /dev/net/tun, which this host lacks: "
                                               "%s (load the tun module: modprobe tun)",
                                               strerror(-r));
                return cordon_diag_set(diag, -EACCES,
                                       "pasta cannot open /dev/net/tun: %s (udev's default makes "
                                       "it usable by everyone: chmod 0666 /dev/net/tun)",
                                       strerror(-r));
        }
        close(fd);
        return 0;
}

static uint64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int pidfd_open(pid_t pid)
{
        return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void kill_pidfd(int pidfd, pid_t pid)
{
        if (pidfd >= 0)
                (void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
        else if (pid > 0)
                (void)kill(pid, SIGKILL);
}

/* pasta's error output without the lines of its failed syslog writes, on one line. */
static void tidy_errors(char *s)
{
        char *out = s;
        for (char *line = s, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if (!*line || (startswith(line, "Failed to send ") && strstr(line, "syslog")))
                        continue;
                if (out != s)
                        *out++ = ';', *out++ = ' ';
                size_t n = strlen(line);
                memmove(out, line, n);
                out += n;
        }
        *out = 0;
}

/* Waits for the first process (@pidfd) to exit, collecting its error output until the end of
 * file, until @deadline. Returns 0 or -ETIME. */
static int wait_first(int pidfd, int errfd, char *err, size_t *err_len, uint64_t deadline)
{
        bool exited = false, eof = false;
        while (!exited || !eof) {
                uint64_t now = now_ms();
                if (now >= deadline)
                        return -ETIME;
                struct pollfd pfd[2] = {{.fd = exited ? -1 : pidfd, .events = POLLIN},
                                        {.fd = eof ? -1 : errfd, .events = POLLIN}};
                int n = poll(pfd, 2, (int)(deadline - now));
                if (n < 0 && errno != EINTR)
                        return -errno;
                if (n <= 0)
                        continue;
                if (pfd[0].revents)
                        exited = true;
                if (pfd[1].revents) {
                        char buf[256];
                        ssize_t k = read(errfd, buf, sizeof(buf));
                        if (k < 0 && errno == EINTR)
                                continue;
                        if (k <= 0) {
                                eof = true;
                                continue;
                        }
                        size_t room = ERR_MAX - 1 - *err_len;
                        size_t take = (size_t)k < room ? (size_t)k : room;
                        memcpy(err + *err_len, buf, take);
                        *err_len += take;
                        err[*err_len] = 0;
                }
        }
        return 0;
}

/* The daemon's pid, as the first process wrote it ("PID\n"); 0 when none came by @deadline. */
static pid_t read_daemon_pid(int fd, uint64_t deadline)
{
        char buf[32];
        size_t len = 0;
        for (;;) {
                uint64_t now = now_ms();
                struct pollfd pfd = {.fd = fd, .events = POLLIN};
                int n = poll(&pfd, 1, now >= deadline ? 0 : (int)(deadline - now));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                ssize_t k = read(fd, buf + len, sizeof(buf) - 1 - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                len += (size_t)k;
                if (memchr(buf, '\n', len) || len == sizeof(buf) - 1)
                        break;
        }
        buf[len] = 0;
        char *end = NULL;
        long pid = strtol(buf, &end, 10);
        if (end == buf || pid <= 0 || pid > INT32_MAX || (*end && *end != '\n'))
                return 0;
        return (pid_t)pid;
}

static void spawn_actions_freep(posix_spawn_file_actions_t **fa)
{
        if (*fa)
                posix_spawn_file_actions_destroy(*fa);
}

static int spawn_pasta(const char *path, pid_t child, int errfd, int pidfd_w, pid_t *ret_pid)
{
        char target[16], runas[32];
        snprintf(target, sizeof(target), "%d", (int)child);
        snprintf(runas, sizeof(runas), "%u:%u", (unsigned)getuid(), (unsigned)getgid());
        char pidfile[32];
        snprintf(pidfile, sizeof(pidfile), "/dev/fd/%d", PIDFILE_FD);
        /* -T/-U none: no port of the host's loopback forwarded in; -t/-u none: none forwarded
         * out to the sandbox; --no-map-gw: the gateway's address is the real gateway, not the
         * host. --runas: as root, pasta would otherwise drop to nobody and hang. */
        static const char *const fixed[] = {
            "pasta", "-q",   "--config-net", "-T",      "none", "-U", "none", "-t", "none",
            "-u",    "none", "--no-map-gw",  "--runas", NULL,   "-P", NULL,   NULL,
        };
        /* posix_spawn() takes char *const[]: writable copies, no cast away from const. */
        char words[ELEMENTSOF(fixed)][16];
        char *argv[ELEMENTSOF(fixed) + 1];
        for (size_t i = 0; i < ELEMENTSOF(fixed); i++) {
                snprintf(words[i], sizeof(words[i]), "%s", fixed[i] ? fixed[i] : "");
                argv[i] = words[i];
        }
        argv[13] = runas;
        argv[15] = pidfile;
        argv[16] = target;
        argv[ELEMENTSOF(fixed)] = NULL;
        char path_env[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
        char *const envp[] = {path_env, NULL};

        posix_spawn_file_actions_t fa_storage;
        _cleanup_(spawn_actions_freep) posix_spawn_file_actions_t *fa = NULL;
        if (posix_spawn_file_actions_init(&fa_storage) != 0)
                return -ENOMEM;
        fa = &fa_storage;
        int r;
        if ((r = posix_spawn_file_actions_addopen(fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0)) ||
            (r = posix_spawn_file_actions_addopen(fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)) ||
            (r = posix_spawn_file_actions_adddup2(fa, errfd, STDERR_FILENO)) ||
            (r = posix_spawn_file_actions_adddup2(fa, pidfd_w, PIDFILE_FD)))
                return -r;

        posix_spawnattr_t attr;
        if ((r = posix_spawnattr_init(&attr)))
                return -r;
        sigset_t none, all;
        sigemptyset(&none);
        sigfillset(&all);
        /* Not in the caller's process group (a ^C at the terminal is the sandbox's to get), with
         * no signal blocked or ignored that the supervisor blocks for its own signalfd. */
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                            POSIX_SPAWN_SETSIGDEF);
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &all);
        pid_t pid;
        r = posix_spawn(&pid, path, fa, &attr, argv, envp);
        posix_spawnattr_destroy(&attr);
        if (r)
                return -r;
        *ret_pid = pid;
        return 0;
}

static void reap(pid_t pid)
{
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

int cordon_pasta_start(const struct cordon_pasta_config *cfg, pid_t child, struct cordon_pasta *ret,
                       struct cordon_diag *diag)
{
        unsigned timeout = cfg && cfg->timeout_ms ? cfg->timeout_ms : CORDON_PASTA_START_TIMEOUT_MS;
        _cleanup_free_ char *path = NULL;
        int r = cordon_pasta_find(cfg ? cfg->path : NULL, &path);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return cordon_diag_set(diag, r, "cannot find pasta for the filtered network: %s",
                                       strerror(-r));

        int errp[2], pidp[2];
        if (pipe2(errp, O_CLOEXEC) < 0)
                return -errno;
        _cleanup_close_ int err_r = errp[0], err_w = errp[1];
        if (pipe2(pidp, O_CLOEXEC) < 0)
                return -errno;
        _cleanup_close_ int pid_r = pidp[0], pid_w = pidp[1];

        uint64_t deadline = now_ms() + timeout;
        pid_t first = 0;
        r = spawn_pasta(path, child, err_w, pid_w, &first);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to run pasta '%s': %s", path, strerror(-r));
        err_w = safe_close(err_w);
        pid_w = safe_close(pid_w);
        _cleanup_close_ int first_fd = pidfd_open(first);

        char err[ERR_MAX] = "";
        size_t err_len = 0;
        int status = 0;
        pid_t daemon = 0;
        r = first_fd < 0 ? -errno : wait_first(first_fd, err_r, err, &err_len, deadline);
        if (r < 0) {
                /* It hangs (the known way: dropped to nobody as root) or poll failed. The pid
                 * file may already name a daemon: that one goes too. */
                kill_pidfd(first_fd, first);
                reap(first);
                daemon = read_daemon_pid(pid_r, 0);
                if (daemon > 0)
                        (void)kill(daemon, SIGKILL);
                if (r == -ETIME)
                        return cordon_diag_set(diag, -ETIMEDOUT,
                                               "pasta '%s' did not attach to the sandbox's network "
                                               "namespace within %u ms; killed it",
                                               path, timeout);
                return cordon_diag_set(diag, r, "failed to wait for pasta '%s': %s", path,
                                       strerror(-r));
        }
        while (waitpid(first, &status, 0) < 0 && errno == EINTR)
                ;
        daemon = read_daemon_pid(pid_r, deadline);
        tidy_errors(err);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                if (daemon > 0)
                        (void)kill(daemon, SIGKILL);
                char how[64];
                if (WIFEXITED(status))
                        snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(status));
                else
                        snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(status));
                return cordon_diag_set(diag, -ECHILD,
                                       "pasta '%s' failed to attach to the sandbox's network "
                                       "namespace (%s)%s%s",
                                       path, how, *err ? ": " : "", err);
        }
        if (daemon <= 0)
                return cordon_diag_set(diag, -EPROTO,
                                       "pasta '%s' started but did not say its daemon's pid%s%s",
                                       path, *err ? ": " : "", err);
        int dfd = pidfd_open(daemon);
        if (dfd < 0)
                return cordon_diag_set(diag, -ESRCH, "pasta '%s' exited right after starting%s%s",
                                       path, *err ? ": " : "", err);
        struct pollfd pfd = {.fd = dfd, .events = POLLIN};
        if (poll(&pfd, 1, 0) > 0) {
                close(dfd);
                return cordon_diag_set(diag, -ESRCH, "pasta '%s' exited right after starting%s%s",
                                       path, *err ? ": " : "", err);
        }
        *ret = (struct cordon_pasta){.pid = daemon, .pidfd = dfd};
        return 0;
}

void cordon_pasta_stop(struct cordon_pasta *p)
{
        if (!p || p->pidfd < 0) {
                if (p)
                        *p = CORDON_PASTA_NONE;
                return;
        }
        (void)syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
        /* Gone before we return (a caller that checks finds no pasta), bounded: a process in
         * uninterruptible sleep is not ours to wait for. Reaped when it is ours after all (a
         * caller that is a child subreaper inherits the daemon). */
        struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
        while (poll(&pfd, 1, 1000) < 0 && errno == EINTR)
                ;
        siginfo_t si;
        (void)waitid(P_PIDFD, (id_t)p->pidfd, &si, WEXITED | WNOHANG);
        safe_close(p->pidfd);
        *p = CORDON_PASTA_NONE;
}
