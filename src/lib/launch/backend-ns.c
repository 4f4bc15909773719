/* The ns backend's operations (backend.h): its first process is PID 1 of new user, mount, pid,
 * UTS, cgroup (and IPC and network) namespaces, made with a raw clone; it plans its mounts and
 * namespace limits before, and the supervisor can attach it to cgroups between the clone and
 * the release. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/launch/backend.h"
#include "lib/launch/child-steps.h"
#include "lib/launch/landlock-env.h"
#include "lib/launch/net-mode-hooks.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/mech/ns-limits.h"
#include "lib/mech/ns-mount.h"
#include "lib/mech/res-limits.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"
#include "shared/fd-util.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

/* The writable twins, on the sandbox's /tmp, of the configuration copies it binds
 * read-only. */
static int ns_config_env(const struct cordon_launch *l, char ***ret)
{
        *ret = NULL;
        return l->p->ns_env_files ? cordon_ns_config_env(l->p, ret) : 0;
}

static int ns_prepare(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        const struct cordon_launch *l = &sb->l;
        const struct cordon_policy *p = l->p;
        int r = cordon_mount_plan_build(p, &sb->plan);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to plan the mounts: %s", strerror(-r));
        /* The resolv.conf naming cordon's resolver, only where one serves. */
        if (!cordon_net_mode_traits(l->net_mode)->dns) {
                size_t k = 0;
                for (size_t i = 0; i < sb->plan.n; i++)
                        if (!(p->fs[sb->plan.order[i]].flags & CORDON_FS_DNS))
                                sb->plan.order[k++] = sb->plan.order[i];
                sb->plan.n = k;
        }
        /* With the seccomp layer on only the inotify counts can grow inside. */
        r = cordon_ns_limits_plan(NULL, l->seccomp, &sb->ns_limits);
        if (r < 0)
                return cordon_diag_set(diag, r,
                                       "failed to read the user namespace limits in "
                                       "/proc/sys/user: %s",
                                       strerror(-r));
        return 0;
}

/* The parent steps the child must wait for: the cgroup attach, the network mode's own
 * (filtered: pasta attached to the namespace). */
static bool ns_awaits_release(const struct cordon_sandbox *sb)
{
        return cordon_limits_have_cgroup(sb->l.limits) ||
               cordon_net_mode_hooks(sb->l.net_mode)->parent_setup;
}

/* PID 1 joins the sandbox's cgroups from outside, before it is released. */
static int ns_parent_steps(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        int r = 0;
        if (cordon_limits_have_cgroup(sb->l.limits) &&
            (r = cordon_limits_attach(sb->l.limits, sb->pid, diag)) < 0 && diag)
                diag->step = CORDON_STEP_LIMITS;
        return r;
}

static unsigned long clone_flags(const struct cordon_launch *l)
{
        unsigned long f =
            CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWCGROUP;
        /* PRIVATE_IPC=false shares the host's SysV IPC and POSIX message queues (MPI, NCCL). */
        if (!l->p->host_ipc)
                f |= CLONE_NEWIPC;
        if (cordon_net_mode_traits(l->net_mode)->netns)
                f |= CLONE_NEWNET;
        return f;
}

/* A raw clone, not fork(): fork() would run no namespace flags. Unlike fork() it takes none of
 * libc's locks first, and the steps allocate (the /proc reads of cordon_pid1_scrub_environ(),
 * the mount plan's helpers): a caller's thread holding malloc's lock right now would leave the
 * child stuck. Hence the rule in sandbox.h that ns sandboxes start while no other thread
 * allocates. */
static pid_t ns_clone(struct cordon_sandbox *sb)
{
        int pidfd = -1;
        pid_t pid = (pid_t)syscall(SYS_clone, clone_flags(&sb->l) | CLONE_PIDFD | SIGCHLD, NULL,
                                   &pidfd, NULL, 0);
        if (pid == 0) {
                safe_close(sb->control[0]);
                cordon_child_ns(sb);
        }
        if (pid > 0)
                sb->pidfd = pidfd >= 0 ? pidfd : (int)syscall(SYS_pidfd_open, pid, 0);
        return pid;
}

/* Errors of clone(CLONE_NEWUSER...) that mean "no user namespaces here" rather than a
 * transient shortage: container runtimes' seccomp policies (EPERM), kernels without them
 * (EINVAL), a zero or exhausted namespace limit (ENOSPC, EUSERS). */
static bool ns_refused(int err)
{
        return err == EPERM || err == EINVAL || err == ENOSPC || err == EUSERS || err == ENOSYS;
}

static void ns_end_child(struct cordon_sandbox *sb, bool kill_it)
{
        if (kill_it)
                (void)kill(sb->pid, SIGKILL);
        while (waitpid(sb->pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

/* PID 1 takes its namespace along. */
static void ns_stop(struct cordon_sandbox *sb)
{
        (void)cordon_supervise_kill(&sb->sup);
        while (waitpid(sb->pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

static void ns_undo(struct cordon_sandbox *sb)
{
        cordon_mount_plan_clear(&sb->plan);
        sb->plan = (struct cordon_mount_plan){0};
}

static unsigned ns_namespaces(const struct cordon_launch *l)
{
        unsigned n = CORDON_NS_USER | CORDON_NS_MOUNT | CORDON_NS_PID | CORDON_NS_IPC |
                     CORDON_NS_UTS | CORDON_NS_CGROUP;
        if (cordon_net_mode_traits(l->net_mode)->netns)
                n |= CORDON_NS_NET;
        return n;
}

static bool never(const struct cordon_launch *l)
{
        (void)l;
        return false;
}

const struct cordon_backend_ops cordon_backend_ns_ops = {
    .backend = CORDON_BACKEND_NS,
    .prepare_launch = NULL,
    .prepare_ruleset = NULL,
    .notify = NULL,
    .config_env = ns_config_env,
    .private_tmpdir = false,
    .pid_max_for_loose_pids = true,
    .net_ns = true,
    .prepare = ns_prepare,
    .awaits_release = ns_awaits_release,
    .parent_steps = ns_parent_steps,
    .clone = ns_clone,
    .refused = ns_refused,
    .end_child = ns_end_child,
    .stop = ns_stop,
    .undo = ns_undo,
    .namespaces = ns_namespaces,
    .kill_signal = 0,
    .first_process_stoppable = never,
    .mount_ns_rules_lost = false,
    .suspends_inside = true,
    .needs_janitor = true,
    .mount_ns = true,
};

const struct cordon_backend_ops *cordon_backend_ops(enum cordon_backend b)
{
        switch (b) {
        case CORDON_BACKEND_NS:
                return &cordon_backend_ns_ops;
        case CORDON_BACKEND_LANDLOCK:
                return &cordon_backend_landlock_ops;
        default:
                return NULL;
        }
}
