/* The ns backend's PID 1, a process role of its own: once the child's steps are done and the
 * command forked, it is the sandbox's command server (server.c): it reaps zombies, forwards
 * signals, serves a session's commands, and exits with its command's status. */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/launch/pid1.h"
#include "lib/launch/server.h"
#include "lib/terminal/pty.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

int cordon_exit_status_from_wait(int status)
{
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return 255;
}

int cordon_pid1_scrub_environ(void)
{
        /* Fields 48-51 of /proc/self/stat are arg_start, arg_end, env_start, env_end. */
        _cleanup_free_ char *stat = NULL;
        int r = read_full_file("/proc/self/stat", 4096, &stat, NULL);
        if (r < 0)
                return r;
        const char *p = strrchr(stat, ')');
        if (!p)
                return -EINVAL;
        p += 2; /* field 3 */
        unsigned long start = 0, end = 0;
        for (int field = 3; field <= 51 && *p; field++) {
                char *e;
                unsigned long v = strtoul(p, &e, 10);
                if (field == 50)
                        start = v;
                else if (field == 51)
                        end = v;
                p = strchr(e, ' ');
                if (!p)
                        break;
                p++;
        }
        if (start == 0 || end <= start || end - start > (64UL << 20))
                return -EINVAL;
        memset((void *)start, 0, end - start);
        return 0;
}

int cordon_wait_forwarding(pid_t child, const sigset_t *forward, bool reap_all, int *ret_status)
{
        sigset_t set = *forward;
        sigaddset(&set, SIGCHLD);
        for (;;) {
                siginfo_t si;
                int sig = sigwaitinfo(&set, &si);
                if (sig < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (sig != SIGCHLD) {
                        kill(child, sig);
                        continue;
                }
                /* One SIGCHLD may stand for several exits: collect them all. */
                for (;;) {
                        int status;
                        pid_t w = waitpid(reap_all ? -1 : child, &status, WNOHANG);
                        if (w < 0)
                                return -errno;
                        if (w == 0)
                                break;
                        if (w == child) {
                                *ret_status = cordon_exit_status_from_wait(status);
                                return 0;
                        }
                }
        }
}

_Noreturn void cordon_pid1_become(const struct cordon_server_config *c,
                                  const struct cordon_pty *pty)
{
        if (pty) {
                /* PID 1 keeps no way to the user's terminal either: it leaves the caller's
                 * session and holds the slave where the command got it. */
                (void)setsid();
                for (int fd = 0; fd <= 2; fd++)
                        if (!pty->keep_std[fd])
                                (void)dup2(pty->slave, fd);
                const int fds[] = {pty->slave, pty->master, pty->private_tty};
                for (size_t i = 0; i < ELEMENTSOF(fds); i++)
                        if (fds[i] > 2)
                                (void)close(fds[i]);
        }
        cordon_server_run(c);
}
