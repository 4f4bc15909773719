/* The ns backend's janitor (janitor.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/launch/backend.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/mech/res-limits.h"
#include "lib/supervisor/janitor.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

_Noreturn static void janitor_main(struct cordon_sandbox *sb, pid_t supervisor)
{
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        (void)sigprocmask(SIG_BLOCK, &set, NULL);
        /* Its own session: a ^C at the caller's terminal must not take it before the
         * supervisor. */
        (void)setsid();
        if (prctl(PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0) < 0)
                _exit(1);
        const int keep[] = {sb->pidfd};
        (void)close_all_fds_except(keep, ELEMENTSOF(keep));
        if (getppid() == supervisor) {
                siginfo_t si;
                while (sigwaitinfo(&set, &si) < 0 && errno == EINTR)
                        ;
                /* Only the supervisor's death wakes it (a SIGUSR1 from anyone else while the
                 * supervisor lives is waited past). */
                while (getppid() == supervisor)
                        while (sigwaitinfo(&set, &si) < 0 && errno == EINTR)
                                ;
        }
        /* Orphaned: PID 1 dies with its supervisor (its parent-death signal, its control
         * channel's end); once it has, the cgroups are empty and go. */
        struct pollfd pfd = {.fd = sb->pidfd, .events = POLLIN};
        while (sb->pidfd >= 0 && poll(&pfd, 1, -1) < 0 && errno == EINTR)
                ;
        struct cordon_launch *l = &sb->l;
        /* Its descriptors are closed: what they named may be something else here. */
        l->shm_dirfd = -EBADF;
        l->agent_homes.locked = false;
        (void)cordon_limits_cleanup(l->limits);
        _exit(0);
}

pid_t cordon_janitor_start(struct cordon_sandbox *sb)
{
        if (!cordon_backend_ops(sb->l.backend)->needs_janitor ||
            !cordon_limits_have_cgroup(sb->l.limits))
                return 0;
        pid_t supervisor = getpid();
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0)
                janitor_main(sb, supervisor);
        return pid;
}

void cordon_janitor_stop(pid_t pid)
{
        if (pid <= 0)
                return;
        (void)kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}
