/* cordon-serve's peer check (see serve-peer.h). Sandboxed processes run as our uid, so the uid
 * is only the first question: the peer's pidfd is taken at once, its namespaces, cgroup and
 * ancestry read from /proc, and the pidfd asked afterwards whether it still names a live
 * process, so that a pid reused while /proc was read cannot pass for the peer. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "serve/serve-peer.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* /proc/PID/cgroup and /proc/PID/status are small; this is far above either. */
#define PROC_TEXT_MAX (64u << 10)

bool serve_peer_cgroup_is_cordon(const char *text)
{
        for (const char *line = text; *line;) {
                const char *end = strchrnul(line, '\n');
                /* ID:CONTROLLERS:PATH; the path is everything after the second colon. */
                const char *c1 = memchr(line, ':', (size_t)(end - line));
                const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
                if (!c2 || c2[1] != '/')
                        return true;
                for (const char *p = c2 + 1; p < end;) {
                        while (p < end && *p == '/')
                                p++;
                        if ((size_t)(end - p) >= 7 && memcmp(p, "cordon-", 7) == 0)
                                return true;
                        while (p < end && *p != '/')
                                p++;
                }
                line = *end ? end + 1 : end;
        }
        return false;
}

int serve_peer_status_parse(const char *text, char *ret_name, size_t n, pid_t *ret_ppid)
{
        bool have_name = false, have_ppid = false;
        for (const char *line = text; *line;) {
                const char *end = strchrnul(line, '\n');
                const char *v;
                if (!have_name && (v = startswith(line, "Name:"))) {
                        while (v < end && (*v == '\t' || *v == ' '))
                                v++;
                        size_t len = (size_t)(end - v);
                        if (n == 0)
                                return -EBADMSG;
                        if (len >= n)
                                len = n - 1;
                        memcpy(ret_name, v, len);
                        ret_name[len] = 0;
                        have_name = true;
                } else if (!have_ppid && (v = startswith(line, "PPid:"))) {
                        while (v < end && (*v == '\t' || *v == ' '))
                                v++;
                        char *e;
                        errno = 0;
                        long p = strtol(v, &e, 10);
                        if (errno || e == v || e != end || p < 0 || p > INT32_MAX)
                                return -EBADMSG;
                        *ret_ppid = (pid_t)p;
                        have_ppid = true;
                }
                line = *end ? end + 1 : end;
        }
        return have_name && have_ppid ? 0 : -EBADMSG;
}

static int proc_read(pid_t pid, const char *what, char **ret)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
        return read_full_file(path, PROC_TEXT_MAX, ret, NULL);
}

/* 1: the namespace @ns of @pid is ours; 0: another; -errno. */
static int same_ns(pid_t pid, const char *ns)
{
        char path[64];
        struct stat self, peer;
        snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
        if (stat(path, &self) < 0)
                return -errno;
        snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns);
        if (stat(path, &peer) < 0)
                return -errno;
        return self.st_dev == peer.st_dev && self.st_ino == peer.st_ino;
}

/* The pid of @pidfd in our pid namespace, from its fdinfo; -ESRCH once it has exited. */
static pid_t pidfd_pid(int pidfd)
{
        char path[64];
        _cleanup_free_ char *text = NULL;
        snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
        int r = read_full_file(path, PROC_TEXT_MAX, &text, NULL);
        if (r < 0)
                return r;
        const char *p = strstr(text, "\nPid:");
        if (!p)
                return -EBADMSG;
        long pid = strtol(p + 5, NULL, 10);
        return pid > 0 ? (pid_t)pid : -ESRCH;
}

_printf_(3, 4) static int refuse(char *why, size_t n, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, n, fmt, ap);
        va_end(ap);
        return 0;
}

int serve_peer_check(int fd, char *why, size_t n)
{
        struct ucred cred;
        socklen_t len = sizeof(cred);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return -errno;
        if (cred.uid != geteuid())
                return refuse(why, n, "peer pid %d runs as uid %u, not %u", (int)cred.pid,
                              (unsigned)cred.uid, (unsigned)geteuid());

        /* The pidfd of the process that connected (kernel 6.5+), else one of the pid
         * SO_PEERCRED names, which could in principle be reused already: the liveness check
         * at the end then covers only the time the check took. */
        _cleanup_close_ int pidfd = -EBADF;
        len = sizeof(pidfd);
        pid_t pid = cred.pid;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0) {
                pid = pidfd_pid(pidfd);
                if (pid == -ESRCH)
                        return refuse(why, n, "peer pid %d has exited", (int)cred.pid);
                if (pid < 0)
                        return pid;
        } else if (errno == ENOPROTOOPT || errno == EINVAL) {
                if (cred.pid <= 0)
                        return refuse(why, n, "peer has no pid in this pid namespace");
                pidfd = (int)syscall(SYS_pidfd_open, cred.pid, 0);
                if (pidfd < 0)
                        return errno == ESRCH
                                   ? refuse(why, n, "peer pid %d has exited", (int)cred.pid)
                                   : -errno;
        } else
                return -errno;

        static const char *const namespaces[] = {"pid", "user"};
        for (size_t i = 0; i < ELEMENTSOF(namespaces); i++) {
                int r = same_ns(pid, namespaces[i]);
                if (r < 0)
                        return r;
                if (r == 0)
                        return refuse(why, n, "peer pid %d is in another %s namespace (a sandbox)",
                                      (int)pid, namespaces[i]);
        }

        _cleanup_free_ char *cgroup = NULL;
        int r = proc_read(pid, "cgroup", &cgroup);
        if (r < 0)
                return r;
        if (serve_peer_cgroup_is_cordon(cgroup))
                return refuse(why, n, "peer pid %d is in a cordon sandbox's cgroup", (int)pid);

        /* The peer itself and every ancestor up to PID 1: none may be a landlock reaper. */
        pid_t p = pid;
        for (unsigned depth = 0; p > 1; depth++) {
                if (depth >= SERVE_PEER_DEPTH_MAX)
                        return refuse(why, n, "peer pid %d has more than %u ancestors", (int)pid,
                                      SERVE_PEER_DEPTH_MAX);
                _cleanup_free_ char *status = NULL;
                char name[64];
                pid_t ppid;
                r = proc_read(p, "status", &status);
                if (r < 0)
                        return r;
                if (serve_peer_status_parse(status, name, sizeof(name), &ppid) < 0)
                        return -EBADMSG;
                if (streq(name, SERVE_PEER_REAPER_COMM))
                        return refuse(why, n, "peer pid %d runs below a cordon reaper (pid %d)",
                                      (int)pid, (int)p);
                p = ppid;
        }

        if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
                return errno == ESRCH ? refuse(why, n, "peer pid %d has exited", (int)pid) : -errno;
        return 1;
}
