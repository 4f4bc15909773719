/* The landlock backend's operations (backend.h): no namespaces; its first process is the
 * reaper (reaper.c), outside the sandbox, which starts the command (or a session's server) and
 * kills what it leaves behind. The command has a status channel of its own, made here and read
 * by the reaper. */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/launch/backend.h"
#include "lib/launch/child-steps.h"
#include "lib/launch/control.h"
#include "lib/launch/launch-landlock.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/policy/diag.h"
#include "lib/terminal/pty.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

/* The command's status channel (a session's server says STARTED itself). */
static int ll_prepare(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        int r = sb->session ? 0 : cordon_control_pair(sb->status);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to create the status channel: %s",
                                       strerror(-r));
        return 0;
}

/* The command joins its cgroups itself; nothing waits for the supervisor. */
static bool ll_awaits_release(const struct cordon_sandbox *sb)
{
        (void)sb;
        return false;
}

/* The supervisor was SIGKILLed: its leftovers on the host (the private TMPDIR, cgroups) are the
 * reaper's to remove, once the sandbox is gone. */
static void clear_launch(void *userdata)
{
        struct cordon_launch *l = userdata;
        /* The reaper shares the supervisor's memory but not its descriptors, which it closed:
         * the private /dev/shm directory goes by its path (checked to be ours), never through
         * a number that may name something else here. */
        l->shm_dirfd = -EBADF;
        l->agent_homes.locked = false; /* its lock is the supervisor's, gone with it */
        cordon_launch_clear(l);
}

static pid_t ll_clone(struct cordon_sandbox *sb)
{
        struct cordon_launch *l = &sb->l;
        int drop = 0;
        sb->reaper.command = cordon_child_landlock;
        sb->reaper.arg = sb;
        sb->reaper.parent_fds[0] = sb->control[0];
        /* The proxy's listening socket (proxied mode): the supervisor's to serve, never the
         * command's to accept on. */
        sb->reaper.parent_fds[1] = l->proxy_fd;
        sb->reaper.control_fd = sb->control[1];
        sb->reaper.session = sb->session;
        sb->reaper.status_fd = sb->status[0];
        sb->reaper.status_child_fd = sb->status[1];
        sb->report_fd = sb->session ? -EBADF : sb->status[1];
        for (size_t i = 0; i < ELEMENTSOF(sb->reaper.drop_fds); i++)
                sb->reaper.drop_fds[i] = -EBADF;
        if (l->ll.prepared)
                sb->reaper.drop_fds[drop++] = l->ll.ruleset_fd;
        if (sb->pty) {
                const int fds[] = {sb->pty->slave, sb->pty->master, sb->pty->private_tty};
                for (size_t i = 0; i < ELEMENTSOF(fds); i++)
                        if (fds[i] > 2)
                                sb->reaper.drop_fds[drop++] = fds[i];
        }
        sb->reaper.forward = sb->forward;
        sb->reaper.orphaned = clear_launch;
        sb->reaper.userdata = l;
        sb->reaper.fork = sb->opts.flags & CORDON_SANDBOX_FORK_REAPER;
        pid_t pid = cordon_reaper_start(&sb->reaper, &sb->pidfd);
        if (pid < 0)
                errno = -pid;
        return pid < 0 ? -1 : pid;
}

static void ll_end_child(struct cordon_sandbox *sb, bool kill_it)
{
        if (kill_it)
                cordon_reaper_stop(&sb->reaper);
        else
                while (waitpid(sb->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        sb->reaper.pid = 0;
}

static void ll_stop(struct cordon_sandbox *sb)
{
        cordon_reaper_stop(&sb->reaper);
}

static void ll_undo(struct cordon_sandbox *sb)
{
        cordon_reaper_clear(&sb->reaper);
}

static unsigned ll_namespaces(const struct cordon_launch *l)
{
        (void)l;
        return 0;
}

/* Without Landlock's signal scoping the command can SIGSTOP its reaper. */
static bool ll_stoppable(const struct cordon_launch *l)
{
        return !(l->landlock && l->ll.scope);
}

const struct cordon_backend_ops cordon_backend_landlock_ops = {
    .backend = CORDON_BACKEND_LANDLOCK,
    .prepare_launch = cordon_launch_landlock_prepare,
    .prepare_ruleset = cordon_launch_landlock_ruleset,
    .notify = cordon_launch_landlock_notify,
    .config_env = cordon_launch_landlock_env,
    .private_tmpdir = true,
    .pid_max_for_loose_pids = false,
    .net_ns = false,
    .prepare = ll_prepare,
    .awaits_release = ll_awaits_release,
    .clone = ll_clone,
    .refused = NULL,
    .end_child = ll_end_child,
    .stop = ll_stop,
    .undo = ll_undo,
    .namespaces = ll_namespaces,
    .kill_signal = CORDON_REAPER_SIGNAL,
    .first_process_stoppable = ll_stoppable,
    .mount_ns_rules_lost = true,
    .suspends_inside = false,
    .mount_ns = false,
};
