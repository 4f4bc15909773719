/* cordon-chaperon's main(): started by a sandbox's supervisor (lib/slurm/slurm-doorbell.c) with
 * the doorbell on descriptor 3 and its configuration on 4. Each ring brings one end of a stub's
 * own socket pair, served by a process of its own, so that a slow command (srun) holds no other
 * call up. It ends once the doorbell's end of file says every process of the sandbox has gone,
 * after its calls. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/slurm/slurm-names.h"
#include "shared/fd-util.h"
#include "shared/path-util.h"
#include "slurm/chaperon.h"

#define DOORBELL_FD 3
#define CONFIG_FD   4
/* The most calls served at once: a sandbox that rings faster waits for one to end. */
#define CALLS_MAX 32

/* The cordon program that wraps a job: beside this chaperon in an install into one directory,
 * in the build tree (build/src/slurm/ and build/src/cli/cordon), else the install's bin
 * directory (libexecdir's sibling). */
static int find_cordon(struct chaperon_config *c)
{
        char path[PATH_MAX + 16];
        int r = find_sibling_program("cordon", "slurm", "cli", path, sizeof(path));
        if (r < 0) {
                char self[PATH_MAX];
                if ((r = self_exe_dir(self, sizeof(self))) < 0)
                        return r;
                snprintf(path, sizeof(path), "%s/../bin/cordon", self);
        }
        char *real = realpath(path, NULL);
        if (!real || access(real, X_OK) < 0) {
                free(real);
                return -ENOENT;
        }
        c->cordon = real;
        return 0;
}

/* The session's log (CHAPERON_LOG_LEVEL, CHAPERON_LOG_RETAIN_DAYS): a chaperon that cannot
 * keep one still serves, and says so on stderr, which is the supervisor's. Its directory is
 * also the chaperon's state directory (the job registry, the jobs' scripts). */
static void open_log(struct chaperon_config *c)
{
        const char *base = NULL, *sub = NULL;
        struct cordon_diag diag = {0};
        int r =
            cordon_chaperon_log_dir(getenv("XDG_STATE_HOME"), getenv("HOME"), &base, &sub, &diag);
        if (r >= 0 && asprintf(&c->state_dir, "%s/%s", base, sub) < 0)
                r = -ENOMEM;
        if (r >= 0) {
                struct cordon_chaperon_log_options o = {.base_dir = base,
                                                        .sub_dir = sub,
                                                        .level = c->log_level,
                                                        .retain_days = c->log_retain_days};
                r = cordon_chaperon_log_open(&o, &c->log, &diag);
        }
        if (r < 0)
                fprintf(stderr, "cordon-chaperon: no log for this session: %s\n", diag.message);
}

/* Takes the stub's end from a ring: 1 and the descriptor, 0 at the end of file, -EAGAIN for a
 * message that is not a ring with one SOCK_SEQPACKET socket (its descriptor closed), -errno. */
static int take_ring(int doorbell, int *ret)
{
        char tag = 0;
        int fd = fd_recv(doorbell, &tag);
        if (fd == -EPIPE) {
                /* A zero-length message is no ring; the end of file is a read of 0 too: ask. */
                char c;
                ssize_t n = recv(doorbell, &c, 1, MSG_PEEK | MSG_DONTWAIT);
                return n == 0 ? 0 : -EAGAIN;
        }
        if (fd == -EINTR || fd == -ENOENT || fd == -EBADMSG)
                return -EAGAIN;
        if (fd < 0)
                return fd;
        int type = 0;
        socklen_t tl = sizeof(type);
        if (tag != CORDON_CHAPERON_RING || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
            type != SOCK_SEQPACKET) {
                close(fd);
                return -EAGAIN;
        }
        *ret = fd;
        return 1;
}

static void reap(size_t *calls, bool block)
{
        for (;;) {
                pid_t p = waitpid(-1, NULL, block ? 0 : WNOHANG);
                if (p <= 0)
                        return;
                if (*calls > 0)
                        (*calls)--;
                block = false;
        }
}

int main(int argc, char **argv)
{
        (void)argc;
        (void)argv;
        /* Gone with the supervisor: a sandbox without one has ended. */
        (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
        struct chaperon_config c = {0};
        char why[512];
        if (chaperon_config_read(CONFIG_FD, &c, why, sizeof(why)) < 0) {
                fprintf(stderr, "cordon-chaperon: %s\n", why);
                return 1;
        }
        close(CONFIG_FD);
        open_log(&c);
        if (!c.state_dir || find_cordon(&c) < 0) {
                fprintf(stderr, "cordon-chaperon: %s\n",
                        !c.state_dir ? "no state directory (HOME is not set)"
                                     : "the cordon program that confines jobs is not found");
                return 1;
        }
        (void)cordon_chaperon_log_line(c.log, CORDON_CHAPERON_INFO,
                                       "started: session %s, project %s, scope %s", c.session,
                                       c.project, chaperon_config_scope_name(c.scope));
        size_t calls = 0;
        for (;;) {
                if (calls >= CALLS_MAX)
                        reap(&calls, true);
                struct pollfd pfd = {.fd = DOORBELL_FD, .events = POLLIN};
                int k = poll(&pfd, 1, calls ? 100 : -1);
                reap(&calls, false);
                if (k <= 0)
                        continue;
                int fd = -1;
                int r = take_ring(DOORBELL_FD, &fd);
                if (r == -EAGAIN)
                        continue;
                if (r <= 0)
                        break;
                pid_t pid = fork();
                if (pid == 0) {
                        close(DOORBELL_FD);
                        _exit(chaperon_call(&c, fd));
                }
                close(fd);
                if (pid > 0)
                        calls++;
        }
        while (calls > 0)
                reap(&calls, true);
        (void)cordon_chaperon_log_line(c.log, CORDON_CHAPERON_INFO, "stopped: the sandbox ended");
        chaperon_config_clear(&c);
        return 0;
}
