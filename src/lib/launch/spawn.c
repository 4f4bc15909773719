/* The launcher's phases and the child's steps. cordon_sandbox_launch() runs the phases in a
 * fixed order: prepare (the mount plan, the control channel, the pty) -> clone -> the parent
 * steps (the cgroup attach of the ns backend's PID 1) -> release -> the child's report. The
 * child's steps are in child-steps.c. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "lib/launch/backend.h"
#include "lib/launch/child-steps.h"
#include "lib/launch/control.h"
#include "lib/supervisor/egress.h"
#include "lib/policy/diag.h"
#include "lib/launch/launch.h"
#include "lib/launch/net-filtered.h"
#include "lib/launch/net-mode-hooks.h"
#include "lib/policy/net-modes.h"
#include "lib/mech/ns-limits.h"
#include "lib/mech/ns-mount.h"
#include "lib/mech/ns-net.h"
#include "lib/mech/res-limits.h"
#include "lib/policy/policy.h"
#include "lib/terminal/pty.h"
#include "lib/launch/reaper.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/launch/step.h"
#include "lib/supervisor/supervise.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

/* ---- The phases --------------------------------------------------------------------------- */

/* The backend's table: looked up each time, since a fallback changes the backend. */
static const struct cordon_backend_ops *ops(const struct cordon_sandbox *sb)
{
        return cordon_backend_ops(sb->l.backend);
}

static void pty_freep(struct cordon_pty **pty)
{
        if (*pty) {
                cordon_pty_close(*pty);
                free(*pty);
        }
}

/* The sandbox's own terminal when stdin is one, with the user's terminal in raw mode from here
 * on (pty_freep() restores it). Returns 0 with *@ret NULL when stdin is no terminal. */
static int open_pty(struct cordon_pty **ret, struct cordon_diag *diag)
{
        /* The usual non-interactive run: no 128 KiB of buffers to map and unmap. Any other
         * answer is left to cordon_pty_open(). */
        struct termios t;
        if (tcgetattr(STDIN_FILENO, &t) < 0 && (errno == ENOTTY || errno == EINVAL))
                return 0;
        _cleanup_(pty_freep) struct cordon_pty *pty = malloc(sizeof(*pty));
        if (!pty)
                return -ENOMEM;
        if (diag)
                diag->step = CORDON_STEP_TERMINAL;
        int r = cordon_pty_open(pty, STDIN_FILENO, STDIN_FILENO);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to create a pseudo-terminal: %s",
                                       strerror(-r));
        if (r == 0)
                return 0;
        cordon_pty_keep_other_std_fds(pty);
        r = cordon_pty_enter_raw(pty);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to put the terminal in raw mode: %s",
                                       strerror(-r));
        *ret = TAKE_PTR(pty);
        return 0;
}

/* Prepare: what the child needs that only the supervisor can make. */
static int phase_prepare(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        struct cordon_launch *l = &sb->l;
        const struct cordon_policy *p = l->p;
        int r;

        if ((r = cordon_control_pair(sb->control)) < 0)
                return cordon_diag_set(diag, r, "failed to create the control channel: %s",
                                       strerror(-r));
        /* The backend's own: the ns backend's mount plan and namespace limits, the landlock
         * backend's status channel for its command. */
        if ((r = ops(sb)->prepare(sb, diag)) < 0)
                return r;
        /* Given fds for 0..2 are the command's terminal or none: no pty of its own; nor has a
         * session, whose commands bring theirs. */
        if (p->process.pty && !sb->pty && !(sb->opts.flags & CORDON_SANDBOX_STDIO) &&
            !sb->session && (r = open_pty(&sb->pty, diag)) < 0)
                return r;
        if (sb->pty)
                cordon_pty_set_passthrough(sb->pty, p->process.terminal_passthrough);
        /* The parent steps the child must wait for: the ns backend's cgroup attach, the network
         * mode's own (filtered: pasta attached to the namespace). */
        sb->await_release = ops(sb)->awaits_release(sb);
        sb->await_network = sb->await_release && cordon_net_mode_hooks(l->net_mode)->parent_ready;
        /* The command need not wait for pasta to be ready, only for the namespace it configures
         * (link, addresses, default routes), which it does in the first third of its start-up;
         * what it sends meanwhile waits in the tap device's queue until pasta reads it. */
        sb->net_routes = 0;
        if (sb->await_network && (sb->net_routes = cordon_ns_net_host_default_routes()) &&
            pipe2(sb->net_up, O_CLOEXEC) < 0)
                return cordon_diag_set(diag, -errno, "failed to create a pipe: %m");
        return 0;
}

/* Clone: the ns backend's PID 1 in its new namespaces, or the landlock backend's reaper. Both
 * come with a pidfd from the clone itself where the kernel has CLONE_PIDFD. */
static pid_t phase_clone(struct cordon_sandbox *sb)
{
        return ops(sb)->clone(sb);
}

/* Ends a child that has not reached its command (or has reported a failure) and reaps it. */
static void kill_child(struct cordon_sandbox *sb, bool kill_it)
{
        ops(sb)->end_child(sb, kill_it);
        sb->pid = 0;
        sb->pidfd = safe_close(sb->pidfd);
}

/* Whether the child wrote its byte on net_up (filtered mode: it goes on to its command once
 * its namespace has its routes, without the second release). Final only once it is dead. */
static bool child_went_on(struct cordon_sandbox *sb)
{
        if (sb->net_up[0] < 0)
                return false;
        struct pollfd pfd = {.fd = sb->net_up[0], .events = POLLIN};
        char b = 0;
        bool said = poll(&pfd, 1, 0) > 0 && read(sb->net_up[0], &b, 1) == 1;
        sb->net_up[0] = safe_close(sb->net_up[0]);
        return said;
}

/* Parent steps, then the release. */
static int phase_parent_steps(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        if (!sb->await_release)
                return 0;
        int r;
        if (ops(sb)->parent_steps && (r = ops(sb)->parent_steps(sb, diag)) < 0)
                return r;
        const struct cordon_net_mode_hooks *net = cordon_net_mode_hooks(sb->l.net_mode);
        if (net->parent_setup && (r = net->parent_setup(&sb->l, sb->pid, diag)) < 0) {
                if (diag)
                        diag->step = CORDON_STEP_NETWORK;
                return r;
        }
        struct cordon_control_msg m = {.type = CORDON_CONTROL_RELEASE, .fd = -1};
        r = cordon_control_send(sb->control[0], &m);
        if (r < 0 && r != -EPIPE)
                return cordon_diag_set(diag, r, "failed to release the sandbox: %s", strerror(-r));
        if (r < 0 || !sb->await_network)
                return 0; /* EPIPE: the child died; its report or end of file says why */
        /* The child runs its steps meanwhile and waits for the second release before the
         * command (filtered: pasta's start-up overlaps the mounts and the firewall's load). */
        r = net->parent_ready(&sb->l, sb->net_up[0], diag);
        if (r < 0) {
                /* A child that failed on its own (pasta then sees its namespace go) has the
                 * better reason in its report; one that had gone on to its command, which has
                 * ended already, lost the network (said once the launch is over). */
                struct pollfd pfd = {.fd = sb->pidfd, .events = POLLIN};
                if (sb->pidfd >= 0 && poll(&pfd, 1, 0) > 0) {
                        if (child_went_on(sb))
                                snprintf(sb->l.net_lost, sizeof(sb->l.net_lost), "%s",
                                         diag ? diag->message : "pasta failed");
                        if (diag)
                                diag->message[0] = 0;
                        return 0;
                }
                /* net_up stays open: whether the child went on regardless is known only once
                 * it is dead (launch_once()). */
                if (diag)
                        diag->step = CORDON_STEP_NETWORK;
                return r;
        }
        sb->net_up[0] = safe_close(sb->net_up[0]);
        if (r == 1)
                return 0; /* the child went on once its namespace was configured */
        r = cordon_control_send(sb->control[0], &m);
        if (r < 0 && r != -EPIPE)
                return cordon_diag_set(diag, r, "failed to release the sandbox: %s", strerror(-r));
        return 0;
}

/* The child's report: a failure, or CORDON_CONTROL_STARTED once the command has exec'd (a
 * session: once the inside serves). End of file before either means the sandbox ended on the
 * way (-ECHILD). Nothing but recvmsg() and close() until then: the landlock backend's reaper
 * may share our memory and errno (see reaper.c). Returns 1 with @rep set, 0 for the exec,
 * -errno. */
static int phase_child_report(struct cordon_sandbox *sb, struct cordon_step_report *rep,
                              int *ret_master)
{
        /* Without Landlock's signal scoping the command can SIGSTOP its reaper between its own
         * exec and the reaper's close() of its copy of the channel: the end of file would then
         * never come. So the wait looks at the reaper every CORDON_SUPERVISE_STOP_CHECK_USEC and
         * continues it, as the supervisor does later (supervise.c: watch_stops). */
        const bool watch = ops(sb)->first_process_stoppable(&sb->l) && sb->pid > 0;
        for (;;) {
                if (watch) {
                        struct pollfd pfd = {.fd = sb->control[0], .events = POLLIN};
                        if (poll(&pfd, 1, CORDON_SUPERVISE_STOP_CHECK_USEC / 1000) <= 0) {
                                siginfo_t si = {0};
                                if (waitid(P_PID, (id_t)sb->pid, &si, WSTOPPED | WNOHANG) == 0 &&
                                    si.si_pid == sb->pid)
                                        (void)kill(sb->pid, SIGCONT);
                                continue;
                        }
                }
                struct cordon_control_msg m;
                int r = cordon_control_recv(sb->control[0], 0, &m);
                if (r <= 0)
                        return r < 0 ? r : -ECHILD;
                if (m.type == CORDON_CONTROL_STARTED && m.id == 0)
                        return 0;
                if (m.type == CORDON_CONTROL_REPORT) {
                        *rep = (struct cordon_step_report){
                            .step = m.step, .err = m.err, .rule = m.rule};
                        return 1;
                }
                if (m.type == CORDON_CONTROL_FD && m.kind == CORDON_CONTROL_FD_PTY_MASTER &&
                    *ret_master < 0)
                        *ret_master = m.fd;
                else if (m.type == CORDON_CONTROL_FD &&
                         m.kind == CORDON_CONTROL_FD_PROXY_LISTENER && sb->proxy_listener < 0)
                        sb->proxy_listener = m.fd;
                else if (m.type == CORDON_CONTROL_FD && m.kind == CORDON_CONTROL_FD_DNS_SOCKET &&
                         sb->dns_socket < 0)
                        sb->dns_socket = m.fd;
                else if (m.type == CORDON_CONTROL_FD && m.kind == CORDON_CONTROL_FD_USERNS &&
                         sb->session && sb->ns_fds[0] < 0)
                        sb->ns_fds[0] = m.fd;
                else if (m.type == CORDON_CONTROL_FD && m.kind == CORDON_CONTROL_FD_MNTNS &&
                         sb->session && sb->ns_fds[1] < 0)
                        sb->ns_fds[1] = m.fd;
                else if (m.type == CORDON_CONTROL_FD && m.kind == CORDON_CONTROL_FD_NETNS &&
                         sb->session && sb->ns_fds[2] < 0)
                        sb->ns_fds[2] = m.fd;
                else if (m.type == CORDON_CONTROL_FD &&
                         m.kind == CORDON_CONTROL_FD_SECCOMP_NOTIFY && sb->l.seccomp_key.notify &&
                         sb->notify_listener < 0)
                        sb->notify_listener = m.fd;
                else if (m.type == CORDON_CONTROL_FD)
                        (void)close(m.fd);
        }
}

/* One attempt with the launch's current backend. Returns 0 once the command runs, -errno with
 * @diag filled, or -EAGAIN with @why set when an `auto` launch should fall back. */
static int launch_once(struct cordon_sandbox *sb, char *why, size_t whylen,
                       struct cordon_diag *diag)
{
        struct cordon_launch *l = &sb->l;
        int r;

        r = phase_prepare(sb, diag);
        if (r < 0)
                return r;

        if (diag)
                diag->step = CORDON_STEP_CLONE;
        pid_t pid = phase_clone(sb);
        if (pid < 0) {
                if (l->auto_backend && ops(sb)->refused && ops(sb)->refused(errno)) {
                        snprintf(why, whylen, "clone: %s", strerror(errno));
                        return -EAGAIN;
                }
                return cordon_diag_set(diag, -errno, "failed to create the sandbox namespaces: %m");
        }
        sb->pid = pid;
        /* Only close() until the child's report (see phase_child_report()): no errno saved
         * and restored, and sb->control[1] stays as the child, who may share our memory,
         * reads it. */
        (void)close(sb->control[1]);
        if (sb->status[0] >= 0) {
                (void)close(sb->status[0]);
                (void)close(sb->status[1]);
        }
        sb->net_up[1] = safe_close(sb->net_up[1]);

        r = phase_parent_steps(sb, diag);
        if (r < 0) {
                sb->control[1] = sb->status[0] = sb->status[1] = -EBADF;
                kill_child(sb, true);
                bool went_on = child_went_on(sb);
                /* pasta would not start: NETWORK_FILTER_FALLBACK decides (strict: the refusal
                 * names it). Never after the command may have started: the child can go on
                 * once its namespace has its routes, and pasta can fail just after configuring
                 * them, with the supervisor seeing pasta's end first; such a child was killed
                 * above, possibly in its command, which is not started a second time. */
                if (diag && diag->step == CORDON_STEP_NETWORK &&
                    l->net_mode == CORDON_NET_FILTERED) {
                        if (went_on) {
                                char failed[sizeof(diag->message)];
                                snprintf(failed, sizeof(failed), "%s", diag->message);
                                return cordon_diag_set(
                                    diag, r,
                                    "%s; the sandbox's network was configured and its command "
                                    "may have started: the sandbox was killed, and is not "
                                    "started again under NETWORK_FILTER_FALLBACK",
                                    failed);
                        }
                        snprintf(why, whylen, "%s", diag->message);
                        return -ENOLINK;
                }
                return r;
        }

        struct cordon_step_report rep;
        int master = -EBADF;
        r = phase_child_report(sb, &rep, &master);
        sb->control[1] = sb->status[0] = sb->status[1] = -EBADF; /* closed above */
        if (sb->pty)
                cordon_pty_parent_after_clone(sb->pty);
        if (r < 0) {
                safe_close(master);
                kill_child(sb, true);
                if (r == -ECHILD)
                        return cordon_diag_set(diag, r,
                                               "the sandbox ended before its command started");
                return cordon_diag_set(diag, r, "failed to read the sandbox's report: %s",
                                       strerror(-r));
        }
        if (r > 0) {
                safe_close(master);
                kill_child(sb, false);
                l->net_lost[0] = 0; /* the child's failure is the reason */
                /* The namespaces were created but the id maps or the first mount were refused:
                 * what AppArmor's userns restriction looks like. Nothing has run yet. */
                if (l->auto_backend && (rep.step == CORDON_STEP_USERNS ||
                                        (rep.step == CORDON_STEP_ROOT && rep.err == EPERM))) {
                        snprintf(why, whylen, "%s: %s",
                                 rep.step == CORDON_STEP_USERNS ? "writing the id maps"
                                                                : "mounting the root",
                                 strerror(rep.err));
                        return -EAGAIN;
                }
                /* A session has no argv: no command step can be the one that failed. */
                cordon_step_describe(l, &rep, sb->argv ? sb->argv[0] : "", diag);
                return rep.err > 0 ? -rep.err : -EIO;
        }
        if (diag)
                diag->step = CORDON_STEP_NONE;
        /* pasta failed while a child that had gone on ran its command, which has ended. */
        if (*l->net_lost) {
                char what[sizeof(l->net_lost)];
                snprintf(what, sizeof(what), "%s", l->net_lost);
                l->net_lost[0] = 0;
                cordon_net_filtered_lost(l, what);
        }
        /* PID 1 sent it before starting the command, whose exec we just saw; none means the pty
         * made outside serves. A master that came and cannot be used leaves the command's
         * terminal unrelayed: hang it up rather. */
        if (master >= 0 && cordon_pty_adopt_master(sb->pty, master) < 0)
                cordon_pty_close(sb->pty);
        /* The control channel stays: the sandbox's lifeline, and a session's way in. */
        /* The command is confined now and the ruleset is done with: closing it here, while the
         * command runs, takes freeing its rules off the way from the command's exit to ours. */
        if (l->ll.prepared)
                l->ll.ruleset_fd = safe_close(l->ll.ruleset_fd);
        return 0;
}

/* What an attempt left behind, before the next one. */
static void launch_undo(struct cordon_sandbox *sb)
{
        const struct cordon_net_mode_hooks *net = cordon_net_mode_hooks(sb->l.net_mode);
        if (net->teardown)
                net->teardown(&sb->l);
        sb->control[0] = safe_close(sb->control[0]);
        sb->control[1] = safe_close(sb->control[1]);
        sb->status[0] = safe_close(sb->status[0]);
        sb->status[1] = safe_close(sb->status[1]);
        sb->report_fd = -EBADF;
        sb->net_up[0] = safe_close(sb->net_up[0]);
        sb->net_up[1] = safe_close(sb->net_up[1]);
        sb->notify_listener = safe_close(sb->notify_listener);
        sb->dns_socket = safe_close(sb->dns_socket);
        sb->ns_fds[0] = safe_close(sb->ns_fds[0]);
        sb->ns_fds[1] = safe_close(sb->ns_fds[1]);
        sb->ns_fds[2] = safe_close(sb->ns_fds[2]);
        ops(sb)->undo(sb);
        pty_freep(&sb->pty);
        sb->pty = NULL;
}

int cordon_sandbox_launch(struct cordon_sandbox *sb, char *const *argv, struct cordon_diag *diag)
{
        char why[sizeof(((struct cordon_diag *)0)->message)] = "";
        int r;

        sb->argv = argv; /* sb->forward: set by the caller, cordon_sandbox_start() */

        r = launch_once(sb, why, sizeof(why), diag);
        if (r == -ENOLINK) {
                launch_undo(sb);
                /* A strict fallback refuses here, as the network's step. */
                if (diag)
                        diag->step = CORDON_STEP_NETWORK;
                r = cordon_launch_net_fall_back(&sb->l, why, diag);
                if (r >= 0)
                        r = cordon_egress_prepare(sb, sb->l.p, diag);
                cordon_sandbox_report_decisions(sb);
                if (r >= 0 && sb->opts.prepared)
                        sb->opts.prepared(sb->opts.userdata, sb);
                if (r >= 0)
                        r = launch_once(sb, why, sizeof(why), diag);
        }
        if (r == -EAGAIN) {
                launch_undo(sb);
                if (diag)
                        diag->step = CORDON_STEP_PREPARE;
                r = cordon_launch_fall_back(&sb->l, why, diag);
                cordon_sandbox_report_decisions(sb);
                if (r >= 0 && sb->opts.prepared)
                        sb->opts.prepared(sb->opts.userdata, sb);
                if (r >= 0)
                        r = launch_once(sb, why, sizeof(why), diag);
        }
        if (r < 0) {
                launch_undo(sb);
                return r;
        }
        /* The child has its copy; the supervisor needs none of it any more. */
        cordon_mount_plan_clear(&sb->plan);
        sb->plan = (struct cordon_mount_plan){0};
        return 0;
}
