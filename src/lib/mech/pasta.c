/* pasta attached to the sandbox's network namespace (see pasta.h). Facts this relies on,
 * measured on Debian 12's passt: attached by pid it configures the namespace and then writes
 * its pid to the -P file (in the foreground: its own); a daemonized pasta does not exit when
 * the namespace's process dies, and run as root without --runas it drops to nobody and hangs;
 * its defaults forward the host's loopback ports in and map the gateway to the host. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/mech/host-program.h"
#include "lib/mech/pasta.h"
#include "lib/policy/backend-traits.h"
#include "lib/policy/diag.h"
#include "shared/kernel-util.h"
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

/* passt's own start on x86-64 (arch.c): when the CPU has AVX2, the generic binary re-executes
 * itself as its path with ".avx2" appended, an exec that costs 1.5-2.7 ms of a start. For the
 * pasta found in the system directories (never NETWORK_FILTER_HELPER's: an admin's choice is
 * run as chosen) that is the genuine passt, cordon runs that build itself: @found must resolve
 * to a file named "passt" that is no mount point of its own (a file bound over it, as tests do,
 * is run as found), and PATH.avx2 beside it, on the same mount, must pass the host program
 * checks. Returns its O_PATH descriptor, or -errno when the generic build runs. */
static int avx2_build(const char *found)
{
#if defined(__x86_64__)
        if (!__builtin_cpu_supports("avx2"))
                return -ENOTSUP;
        _cleanup_free_ char *real = realpath(found, NULL);
        const char *base = real ? strrchr(real, '/') : NULL;
        if (!base || !streq(base, "/passt"))
                return -ENOENT;
        _cleanup_free_ char *dir = strndup(real, (size_t)(base - real));
        _cleanup_free_ char *avx2 = NULL;
        if (!dir || asprintf(&avx2, "%s.avx2", real) < 0)
                return -ENOMEM;
        struct statx a, b, c;
        if (statx(AT_FDCWD, real, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &a) < 0 ||
            statx(AT_FDCWD, *dir ? dir : "/", 0, STATX_MNT_ID, &b) < 0 ||
            statx(AT_FDCWD, avx2, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID | STATX_TYPE, &c) < 0)
                return negative_errno();
        if (!(a.stx_mask & b.stx_mask & c.stx_mask & STATX_MNT_ID) ||
            a.stx_mnt_id != b.stx_mnt_id || c.stx_mnt_id != b.stx_mnt_id || !S_ISREG(c.stx_mode))
                return -EXDEV;
        int fd = -EBADF;
        int r = cordon_host_program_open(avx2, "NETWORK_FILTER_HELPER", &fd, NULL);
        return r < 0 ? r : fd;
#else
        (void)found;
        return -ENOTSUP;
#endif
}

/* The pasta to run, found (cordon_pasta_find()) and opened as a host program: pasta runs outside
 * the sandbox, so only root may have chosen its file, whoever named the path. *@ret_fd is the
 * descriptor to execute; *@ret_path the path, for messages. */
static int pasta_open(const char *path, char **ret_path, int *ret_fd, struct cordon_diag *diag)
{
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
        if ((r = cordon_host_program_open(found, "NETWORK_FILTER_HELPER", ret_fd, diag)) < 0)
                return r;
        /* Checked as found first: a start with the other build refuses what this one would. */
        int fast = path ? -EBADF : avx2_build(found);
        if (fast == -ENOMEM)
                return fast;
        if (fast >= 0) {
                safe_close(*ret_fd);
                *ret_fd = fast;
        }
        if (ret_path)
                *ret_path = TAKE_PTR(found);
        return 0;
}

/* The tun device's numbers, fixed by the kernel (MISC_MAJOR, TUN_MINOR in miscdevice.h). */
#define TUN_MAJOR 10u
#define TUN_MINOR 200u

/* Before Linux 5.7 SO_BINDTODEVICE, which pasta uses on its host-side sockets, needs
 * CAP_NET_RAW. */
static bool kernel_before(unsigned major, unsigned minor)
{
        struct utsname u;
        unsigned n = uname(&u) == 0 ? kernel_release_number(u.release) : 0;
        return n && n < major * 100 + minor;
}

int cordon_pasta_probe(const struct cordon_pasta_config *cfg, enum cordon_backend backend,
                       bool skip_probes, struct cordon_diag *diag)
{
        const char *path = cfg ? cfg->path : NULL;
        if (!cordon_backend_traits(backend)->net_ns)
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "the filtered network needs a network namespace for pasta "
                                       "and the landlock backend has none (SANDBOX_BACKEND=ns)");
        _cleanup_close_ int fd = -EBADF;
        int r = pasta_open(path, NULL, &fd, diag);
        if (r < 0)
                return r;
        if (skip_probes)
                return 0;
        if (geteuid() != 0 && kernel_before(5, 7))
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "pasta needs Linux 5.7 or later to run without privileges "
                                       "(SO_BINDTODEVICE)");
        /* Asked, not opened: opening the device can load the tun module, and a probe (a dry
         * run, doctor) changes nothing on the host. */
        struct stat st;
        int st_err = stat("/dev/net/tun", &st) < 0 ? errno : S_ISCHR(st.st_mode) ? 0 : ENODEV;
        if (st_err) {
                r = -st_err;
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "pasta needs /dev/net/tun, which this host lacks: %s "
                                       "(load the tun module: modprobe tun)",
                                       strerror(-r));
        }
        /* Another device in its place (a container's /dev/null bound over it) passes the
         * access check and fails only when pasta starts, after the banner has named the mode. */
        if (major(st.st_rdev) != TUN_MAJOR || minor(st.st_rdev) != TUN_MINOR)
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "/dev/net/tun is not the tun device here (character device "
                                       "%u:%u, not %u:%u), so pasta cannot use it",
                                       major(st.st_rdev), minor(st.st_rdev), TUN_MAJOR, TUN_MINOR);
        if (faccessat(AT_FDCWD, "/dev/net/tun", R_OK | W_OK, AT_EACCESS) < 0) {
                r = -errno;
                return cordon_diag_set(diag, -EACCES,
                                       "pasta cannot open /dev/net/tun: %s (udev's default makes "
                                       "it usable by everyone: chmod 0666 /dev/net/tun)",
                                       strerror(-r));
        }
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
                /* The line moves first: it may start just after @out, where "; " goes (the
                 * separator written first clobbered its first character). It ends with the
                 * NUL that was its newline, so moved one byte right it stays clear of the next. */
                size_t n = strlen(line), sep = out != s ? 2 : 0;
                memmove(out + sep, line, n);
                if (sep)
                        out[0] = ';', out[1] = ' ';
                out += sep + n;
        }
        *out = 0;
}

/* The daemon's pid as it wrote it ("PID\n") once the namespace is configured; 0 when it exited
 * first (@pidfd readable), 1 when @other gave a byte first, or -ETIME at @deadline. */
static int wait_ready(int pidfd, int fd, int other, uint64_t deadline, pid_t *ret)
{
        char buf[32];
        size_t len = 0;
        for (;;) {
                uint64_t now = now_ms();
                if (now >= deadline)
                        return -ETIME;
                struct pollfd pfd[3] = {{.fd = fd, .events = POLLIN},
                                        {.fd = pidfd, .events = POLLIN},
                                        {.fd = other, .events = POLLIN}};
                int n = poll(pfd, other >= 0 ? 3 : 2, (int)(deadline - now));
                if (n < 0 && errno != EINTR)
                        return -errno;
                if (n <= 0)
                        continue;
                if (other >= 0 && pfd[2].revents && !pfd[0].revents) {
                        char b;
                        ssize_t k = read(other, &b, 1);
                        if (k == 1)
                                return 1;
                        if (k < 0 && errno == EINTR)
                                continue;
                        other = -EBADF; /* its end of file: nothing will come there */
                        continue;
                }
                if (pfd[0].revents) {
                        ssize_t k = read(fd, buf + len, sizeof(buf) - 1 - len);
                        if (k < 0 && errno == EINTR)
                                continue;
                        if (k > 0) {
                                len += (size_t)k;
                                if (memchr(buf, '\n', len) || len == sizeof(buf) - 1)
                                        break;
                                continue;
                        }
                }
                /* The end of the pid pipe, or an exit: gone without saying it was ready. */
                *ret = 0;
                return 0;
        }
        buf[len] = 0;
        char *end = NULL;
        long pid = strtol(buf, &end, 10);
        *ret = end == buf || pid <= 0 || pid > INT32_MAX || (*end && *end != '\n') ? 0 : (pid_t)pid;
        return 0;
}

/* What pasta wrote to its error output so far (without blocking). */
static void read_errors(int fd, char *err, size_t size)
{
        size_t len = strlen(err);
        ssize_t k;
        while (len + 1 < size && (k = read(fd, err + len, size - 1 - len)) > 0)
                len += (size_t)k;
        err[len] = 0;
}

_noreturn_ static void exec_pasta(int exe, pid_t parent, char *const *argv, char *const *envp,
                                  int errfd, int pid_w)
{
        /* In the foreground, pasta stays our child and dies with us: a supervisor that is
         * SIGKILLed leaves no pasta behind (a daemonized one would outlive its namespace). The
         * signal survives pasta's own setup: its credentials change only to fewer capabilities. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
                _exit(127);
        /* Not in the caller's process group (a ^C at the terminal is the sandbox's to get), with
         * no signal blocked or ignored that the supervisor blocks or ignores for itself. */
        (void)setpgid(0, 0);
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        for (int sig = 1; sig < 32; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void)sigaction(sig, &dfl, NULL);
        sigset_t none;
        sigemptyset(&none);
        (void)sigprocmask(SIG_SETMASK, &none, NULL);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
            dup2(errfd, STDERR_FILENO) < 0 || dup2(pid_w, PIDFILE_FD) < 0)
                _exit(127);
        /* The file that was checked, not whatever its path names now. Close-on-exec cleared so
         * that an interpreter (a #! helper) can open /dev/fd/N; pasta itself gets an O_PATH
         * descriptor of its own file, nothing more. */
        if (fcntl(exe, F_SETFD, 0) < 0)
                _exit(127);
        syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
        _exit(127);
}

/* Forks and runs pasta in the foreground. Only async-signal-safe calls in the child: the caller
 * may have other threads. */
static int spawn_pasta(int exe, pid_t child, const char *dns_forward, int errfd, int pid_w,
                       pid_t *ret_pid)
{
        char target[16], runas[32], pidfile[32], dns[INET6_ADDRSTRLEN];
        snprintf(target, sizeof(target), "%d", (int)child);
        snprintf(runas, sizeof(runas), "%u:%u", (unsigned)getuid(), (unsigned)getgid());
        snprintf(pidfile, sizeof(pidfile), "/dev/fd/%d", PIDFILE_FD);
        snprintf(dns, sizeof(dns), "%s", dns_forward ? dns_forward : "");
        /* -T/-U none: no port of the host's loopback forwarded in; -t/-u none: none forwarded
         * out to the sandbox; --no-map-gw: the gateway's address is the real gateway, not the
         * host. --runas: as root, pasta would otherwise drop to nobody and hang. -f: it writes
         * its pid file once the namespace is configured, which is our sign that it is ready. */
        static const char *const fixed[] = {
            "pasta", "-f", "-q",   "--config-net", "-T",   "none",        "-U",
            "none",  "-t", "none", "-u",           "none", "--no-map-gw",
        };
        /* execve() takes char *const[]: writable copies, no cast away from const. */
        char words[ELEMENTSOF(fixed) + 2][16];
        char *argv[ELEMENTSOF(fixed) + 8];
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(fixed); i++) {
                snprintf(words[i], sizeof(words[i]), "%s", fixed[i]);
                argv[n++] = words[i];
        }
        snprintf(words[ELEMENTSOF(fixed)], sizeof(words[0]), "--runas");
        snprintf(words[ELEMENTSOF(fixed) + 1], sizeof(words[0]), "-P");
        argv[n++] = words[ELEMENTSOF(fixed)];
        argv[n++] = runas;
        /* Queries to this address inside go to the host's first resolver, even one on the
         * host's loopback. */
        char dns_opt[] = "--dns-forward";
        if (*dns) {
                argv[n++] = dns_opt;
                argv[n++] = dns;
        }
        argv[n++] = words[ELEMENTSOF(fixed) + 1];
        argv[n++] = pidfile;
        argv[n++] = target;
        argv[n] = NULL;
        char path_env[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
        char *const envp[] = {path_env, NULL};

        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0)
                exec_pasta(exe, parent, argv, envp, errfd, pid_w);
        *ret_pid = pid;
        return 0;
}

static void reap(pid_t pid)
{
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

/* pastas killed but not yet reaped: a killed pasta takes tens of milliseconds to exit (its tap
 * device is unregistered), which a caller should not wait for. Each is reaped without waiting at
 * the next stop or start in this process; a process that exits first leaves them to init. */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static int pending[32];
static size_t n_pending;

static bool reaped(int pidfd)
{
        siginfo_t si = {0};
        return waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG) == 0 ? si.si_pid != 0
                                                                         : errno == ECHILD;
}

void cordon_pasta_reap(bool wait)
{
        pthread_mutex_lock(&pending_lock);
        for (size_t i = 0; i < n_pending;)
                if (wait) {
                        siginfo_t si;
                        while (waitid(P_PIDFD, (id_t)pending[i], &si, WEXITED) < 0 &&
                               errno == EINTR)
                                ;
                        safe_close(pending[i]);
                        pending[i] = pending[--n_pending];
                } else if (reaped(pending[i])) {
                        safe_close(pending[i]);
                        pending[i] = pending[--n_pending];
                } else
                        i++;
        pthread_mutex_unlock(&pending_lock);
}

/* Keeps @pidfd for a later reap; false when the list is full (then the caller waits). */
static bool defer_reap(int pidfd)
{
        pthread_mutex_lock(&pending_lock);
        bool kept = n_pending < ELEMENTSOF(pending);
        if (kept)
                pending[n_pending++] = pidfd;
        pthread_mutex_unlock(&pending_lock);
        return kept;
}

int cordon_pasta_spawn(const struct cordon_pasta_config *cfg, pid_t child, struct cordon_pasta *ret,
                       struct cordon_diag *diag)
{
        cordon_pasta_reap(false);
        unsigned timeout = cfg && cfg->timeout_ms ? cfg->timeout_ms : CORDON_PASTA_START_TIMEOUT_MS;
        if (cfg && cfg->dns_forward) {
                unsigned char a[sizeof(struct in6_addr)];
                if (inet_pton(AF_INET, cfg->dns_forward, a) != 1 &&
                    inet_pton(AF_INET6, cfg->dns_forward, a) != 1)
                        return cordon_diag_set(diag, -EINVAL,
                                               "pasta's DNS forwarding address '%s' is not an IP "
                                               "address",
                                               cfg->dns_forward);
        }
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int exe = -EBADF;
        int r = pasta_open(cfg ? cfg->path : NULL, &path, &exe, diag);
        if (r < 0)
                return r;

        int errp[2], pidp[2];
        if (pipe2(errp, O_CLOEXEC | O_NONBLOCK) < 0)
                return -errno;
        /* Non-blocking on both ends: pasta's later messages are dropped when nobody reads them,
         * never a reason for it to stall. */
        _cleanup_close_ int err_r = errp[0], err_w = errp[1];
        if (pipe2(pidp, O_CLOEXEC) < 0)
                return -errno;
        _cleanup_close_ int pid_r = pidp[0], pid_w = pidp[1];

        uint64_t deadline = now_ms() + timeout;
        pid_t pid = 0;
        r = spawn_pasta(exe, child, cfg ? cfg->dns_forward : NULL, err_w, pid_w, &pid);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to run pasta '%s': %s", path, strerror(-r));
        err_w = safe_close(err_w);
        pid_w = safe_close(pid_w);
        int pidfd = pidfd_open(pid);
        if (pidfd < 0) {
                r = -errno;
                kill_pidfd(-EBADF, pid);
                reap(pid);
                return cordon_diag_set(diag, r, "failed to watch pasta: %s", strerror(-r));
        }
        *ret = (struct cordon_pasta){.pid = pid,
                                     .pidfd = pidfd,
                                     .errfd = TAKE_FD(err_r),
                                     .readyfd = TAKE_FD(pid_r),
                                     .deadline_ms = deadline,
                                     .timeout_ms = timeout,
                                     .path = TAKE_PTR(path)};
        return 0;
}

int cordon_pasta_wait_ready(struct cordon_pasta *p, struct cordon_diag *diag)
{
        return cordon_pasta_wait_ready_or(p, -EBADF, diag);
}

int cordon_pasta_wait_ready_or(struct cordon_pasta *p, int other, struct cordon_diag *diag)
{
        if (p->readyfd < 0)
                return 0; /* said so already */
        pid_t said = 0;
        char err[ERR_MAX] = "";
        int r = wait_ready(p->pidfd, p->readyfd, other, p->deadline_ms, &said);
        if (r == 1)
                return 1;
        if (r >= 0 && said == p->pid) {
                p->readyfd = safe_close(p->readyfd);
                return 0;
        }
        _cleanup_free_ char *path = TAKE_PTR(p->path);
        kill_pidfd(p->pidfd, p->pid);
        int status = 0;
        while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
                ;
        read_errors(p->errfd, err, sizeof(err));
        tidy_errors(err);
        unsigned timeout = p->timeout_ms;
        safe_close(p->pidfd);
        safe_close(p->errfd);
        safe_close(p->readyfd);
        *p = CORDON_PASTA_NONE;
        if (r == -ETIME)
                return cordon_diag_set(diag, -ETIMEDOUT,
                                       "pasta '%s' did not attach to the sandbox's network "
                                       "namespace within %u ms; killed it",
                                       path, timeout);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to wait for pasta '%s': %s", path,
                                       strerror(-r));
        char how[64];
        if (WIFEXITED(status))
                snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(status));
        else if (said)
                snprintf(how, sizeof(how), "it named pid %d, not its own", (int)said);
        else
                snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(status));
        return cordon_diag_set(diag, -ECHILD,
                               "pasta '%s' failed to attach to the sandbox's network namespace "
                               "(%s)%s%s",
                               path, how, *err ? ": " : "", err);
}

int cordon_pasta_start(const struct cordon_pasta_config *cfg, pid_t child, struct cordon_pasta *ret,
                       struct cordon_diag *diag)
{
        struct cordon_pasta p = CORDON_PASTA_NONE;
        int r = cordon_pasta_spawn(cfg, child, &p, diag);
        if (r >= 0)
                r = cordon_pasta_wait_ready(&p, diag);
        if (r < 0)
                return r;
        *ret = p;
        return 0;
}

void cordon_pasta_describe_exit(const struct cordon_pasta *p, char *buf, size_t size)
{
        char err[ERR_MAX] = "";
        siginfo_t si = {0};
        /* WNOWAIT: reaped by cordon_pasta_stop() as before. */
        if (waitid(P_PIDFD, (id_t)p->pidfd, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || !si.si_pid) {
                snprintf(buf, size, "it ended");
                return;
        }
        if (p->errfd >= 0)
                read_errors(p->errfd, err, sizeof(err));
        tidy_errors(err);
        if (si.si_code == CLD_EXITED)
                snprintf(buf, size, "exit status %d%s%s", si.si_status, *err ? ": " : "", err);
        else
                snprintf(buf, size, "killed by signal %d%s%s", si.si_status, *err ? ": " : "", err);
}

void cordon_pasta_kill(const struct cordon_pasta *p)
{
        if (p && p->pid > 0 && p->pidfd >= 0)
                (void)syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
}

void cordon_pasta_stop(struct cordon_pasta *p)
{
        if (!p)
                return;
        /* A zeroed struct (pid 0) owns nothing, fd 0 included. */
        if (p->pid <= 0) {
                free(p->path);
                *p = CORDON_PASTA_NONE;
                return;
        }
        if (p->pidfd >= 0) {
                (void)syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
                /* Killed now; reaped now if it is already gone, else later (see above). */
                if (reaped(p->pidfd))
                        safe_close(p->pidfd);
                else if (!defer_reap(p->pidfd)) {
                        siginfo_t si;
                        while (waitid(P_PIDFD, (id_t)p->pidfd, &si, WEXITED) < 0 && errno == EINTR)
                                ;
                        safe_close(p->pidfd);
                }
                p->pidfd = -EBADF;
        }
        cordon_pasta_reap(false);
        safe_close(p->errfd);
        safe_close(p->readyfd);
        free(p->path);
        *p = CORDON_PASTA_NONE;
}
