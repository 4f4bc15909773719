/* Running the real Slurm command for a call (chaperon.h): its stdin /dev/null, its output
 * relayed to the stub as it comes (or stdout captured, for a command whose answer is read
 * first), and the command killed when the stub goes away. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/slurm/slurm-names.h"
#include "slurm/chaperon.h"

int chaperon_send(int fd, char type, const void *data, size_t len)
{
        const char *p = data;
        do {
                size_t n = len > CORDON_CHAPERON_CHUNK ? CORDON_CHAPERON_CHUNK : len;
                char buf[1 + CORDON_CHAPERON_CHUNK];
                buf[0] = type;
                if (n)
                        memcpy(buf + 1, p, n);
                ssize_t k;
                do
                        k = send(fd, buf, 1 + n, MSG_NOSIGNAL);
                while (k < 0 && errno == EINTR);
                if (k < 0)
                        return -errno;
                p += n;
                len -= n;
        } while (len > 0);
        return 0;
}

int chaperon_say(int fd, const char *fmt, ...)
{
        char buf[4096];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
        va_end(ap);
        if (n < 0)
                return -EINVAL;
        size_t len = (size_t)n < sizeof(buf) - 1 ? (size_t)n : sizeof(buf) - 2;
        buf[len++] = '\n';
        return chaperon_send(fd, CORDON_CHAPERON_ERR, buf, len);
}

static void child(const struct chaperon_run *run, int out, int err)
{
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
                _exit(127);
        if (run->cwd && chdir(run->cwd) < 0) {
                dprintf(2, "%s: cannot enter %s: %s\n", run->argv[0], run->cwd, strerror(errno));
                _exit(1);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        execvpe(run->argv[0], run->argv, run->envp);
        dprintf(2, "%s: cannot run it on the host: %s\n", run->argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
}

int chaperon_exec(int fd, struct chaperon_run *run)
{
        int out[2], err[2];
        if (pipe2(out, O_CLOEXEC) < 0)
                return -errno;
        if (pipe2(err, O_CLOEXEC) < 0) {
                close(out[0]);
                close(out[1]);
                return -errno;
        }
        pid_t pid = fork();
        if (pid < 0) {
                int e = -errno;
                close(out[0]);
                close(out[1]);
                close(err[0]);
                close(err[1]);
                return e;
        }
        if (pid == 0)
                child(run, out[1], err[1]);
        close(out[1]);
        close(err[1]);
        struct pollfd p[3] = {{.fd = out[0], .events = POLLIN},
                              {.fd = err[0], .events = POLLIN},
                              {.fd = fd, .events = 0}};
        int open_n = 2, r = 0;
        bool gone = false;
        while (open_n > 0 && !gone) {
                if (poll(p, 3, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                if (p[2].revents & (POLLHUP | POLLERR)) {
                        gone = true; /* the stub went away: so does its command */
                        break;
                }
                for (int i = 0; i < 2; i++) {
                        if (p[i].fd < 0 || !p[i].revents)
                                continue;
                        char buf[CORDON_CHAPERON_CHUNK];
                        ssize_t n = read(p[i].fd, buf, sizeof(buf));
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0) {
                                close(p[i].fd);
                                p[i].fd = -1;
                                open_n--;
                                continue;
                        }
                        if (i == 0 && run->capture) {
                                if (run->out_len + (size_t)n > CHAPERON_CAPTURE_MAX) {
                                        r = -EFBIG;
                                        gone = true;
                                        break;
                                }
                                char *m = realloc(run->out, run->out_len + (size_t)n + 1);
                                if (!m) {
                                        r = -ENOMEM;
                                        gone = true;
                                        break;
                                }
                                memcpy(m + run->out_len, buf, (size_t)n);
                                run->out = m;
                                run->out_len += (size_t)n;
                                run->out[run->out_len] = 0;
                        } else if (chaperon_send(fd,
                                                 i == 0 ? CORDON_CHAPERON_OUT : CORDON_CHAPERON_ERR,
                                                 buf, (size_t)n) < 0)
                                gone = true;
                }
        }
        if (gone)
                kill(pid, SIGTERM);
        for (int i = 0; i < 2; i++)
                if (p[i].fd >= 0)
                        close(p[i].fd);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        if (r < 0)
                return r;
        if (WIFEXITED(st))
                return WEXITSTATUS(st);
        return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}
