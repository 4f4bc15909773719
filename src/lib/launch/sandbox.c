/* The public sandbox handle (cordon/sandbox.h): start (the prepare phase's decisions here, the
 * other phases in spawn.c), the rounds of its event loop (process, or wait for the end), kill,
 * report, free; and cordon_spawn() as start + wait + free. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/mech/landlock.h"
#include "lib/launch/launch.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"
#include "lib/terminal/pty.h"
#include "lib/mech/res-limits.h"
#include "lib/supervisor/egress.h"
#include "lib/launch/net-filtered.h"
#include "lib/supervisor/notify.h"
#include "lib/launch/backend.h"
#include "lib/supervisor/janitor.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/supervisor/session.h"
#include "shared/strv.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

void cordon_sandbox_report_decisions(struct cordon_sandbox *sb)
{
        const struct cordon_launch *l = &sb->l;
        struct cordon_report *rep = &sb->report;

        rep->backend = l->backend;
        rep->net_mode = l->net_mode;
        rep->net_note = l->net_note;
        rep->created = l->created_note ? l->created_note : "";
        const struct cordon_backend_ops *ops = cordon_backend_ops(l->backend);
        rep->namespaces = ops ? ops->namespaces(l) : 0;
        rep->landlock.planned = l->landlock;
        rep->landlock.abi = l->landlock_abi;
        rep->landlock.features = 0;
        for (size_t i = 0; i < cordon_landlock_n_features && i < 32; i++)
                if (l->landlock_abi >= cordon_landlock_features[i].abi)
                        rep->landlock.features |= 1u << i;
        rep->landlock.rules = l->landlock ? l->ll.n_rules : 0;
        rep->landlock.tcp_denied = (l->landlock || l->ll.prepared) && l->ll.deny_tcp;
        rep->proxy.port = cordon_net_mode_traits(l->net_mode)->proxy ? l->proxy_port : 0;
        rep->landlock.scoped = l->landlock && l->ll.scope;
        rep->landlock.left_writable = ops && ops->mount_ns_rules_lost ? sb->ns_only_rules : 0;
        rep->seccomp.planned = l->bpf.len > 0;
        rep->seccomp.deny_list = l->seccomp;
        rep->seccomp.deny_network = l->seccomp_key.net == CORDON_SECCOMP_NET_NONE;
        rep->seccomp.deny_socket_create = l->seccomp_isolates_net;
        rep->seccomp.instructions = l->bpf.len;
        for (size_t k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                rep->limits[k] = l->limits ? l->limits->mechanism[k] : CORDON_LIMIT_NONE;
        if (l->pid_max)
                rep->limits[CORDON_LIMIT_PIDS] = CORDON_LIMIT_PID_MAX;
        /* A pids cgroup made for root's SANDBOX_NPROC_LIMIT alone is that limit's, not
         * PIDS_LIMIT's. */
        if (l->nproc_pids_only)
                rep->limits[CORDON_LIMIT_PIDS] = CORDON_LIMIT_NONE;
        rep->nproc_limit = l->nproc_mech;
        size_t n = sizeof(sb->limits_text);
        int len = cordon_limits_describe_mechanisms(rep->limits, sb->limits_text, n);
        if (len >= 0 && l->nproc_mech != CORDON_LIMIT_NONE &&
            snprintf(sb->limits_text + len, n - (size_t)len, "%snproc=%s", len ? " " : "",
                     cordon_limit_mechanism_to_string(l->nproc_mech)) >= (int)(n - (size_t)len))
                len = -ENOBUFS;
        if (len < 0)
                sb->limits_text[0] = 0;
        rep->limits_text = sb->limits_text;
}

/* The policy's facts, copied: the policy is not referenced after start. */
static int report_policy(struct cordon_sandbox *sb, const struct cordon_policy *p)
{
        struct cordon_report *rep = &sb->report;
        rep->profile = p->profile;
        rep->fallback = p->fallback;
        rep->net_mode = p->net_mode; /* until the launch decides (report_launch()) */
        rep->net_mode_requested = p->net_mode;
        rep->net_note = "";
        if (p->project_dir && !(sb->project_dir = strdup(p->project_dir)))
                return -ENOMEM;
        rep->project_dir = sb->project_dir;
        rep->home_access = p->home_access;
        rep->env_blocked = p->n_env_blocked;
        if (!(sb->env_blocked_names = p->env_blocked_names ? strv_copy(p->env_blocked_names)
                                                           : calloc(1, sizeof(char *))))
                return -ENOMEM;
        rep->env_blocked_names = (const char *const *)sb->env_blocked_names;
        if ((p->git_roots && !(sb->git_roots = strv_copy(p->git_roots))) ||
            (p->git_kept && !(sb->git_kept = strv_copy(p->git_kept))))
                return -ENOMEM;
        /* The clock the kernel stamps inode changes with (or a finer one): every change made
         * from now on is stamped at or after it (unless the clock is stepped back meanwhile). */
        (void)clock_gettime(CLOCK_REALTIME_COARSE, &sb->git_since);
        if (!(sb->agent_overlaid =
                  p->agent_overlaid ? strv_copy(p->agent_overlaid) : calloc(1, sizeof(char *))))
                return -ENOMEM;
        rep->agents.overlaid = (const char *const *)sb->agent_overlaid;
        rep->git.unchecked = "";
        rep->created = "";
        sb->ns_only_rules = p->agent_files_unkept;
        for (size_t i = 0; i < p->n_fs; i++)
                if (p->fs[i].flags & CORDON_FS_NS_ONLY)
                        sb->ns_only_rules++;
        rep->timeout_usec = p->limits.timeout_usec;
        rep->memory_bytes = p->limits.memory_bytes;
        rep->limits_text = sb->limits_text;
        return 0;
}

/* Once nothing of the sandbox runs any more: its placeholders go, and the repositories it
 * made or changed below its writable roots are judged (git-after.h). */
static void after_end(struct cordon_sandbox *sb)
{
        cordon_launch_cleanup_materialized(&sb->l);
        if (!sb->report.started)
                return;
        /* What flows back from the agents' copies; their homes go. */
        struct cordon_agent_homes *ah = &sb->l.agent_homes;
        if (cordon_agent_homes_finish(ah) >= 0) {
                sb->report.agents.n_writebacks = ah->n_results;
                sb->report.agents.writebacks = ah->results;
        }
        if (!sb->git_roots && !sb->git_kept)
                return;
        int r = cordon_git_after_check(sb->git_roots, sb->git_kept, &sb->git_since,
                                       CORDON_GIT_AFTER_MAX_ENTRIES, &sb->git_after);
        if (r < 0)
                sb->git_after.unchecked = strdup("the check ran out of memory");
        sb->report.git.n_moved = sb->git_after.n_moved;
        sb->report.git.moved = sb->git_after.moved;
        sb->report.git.unchecked = sb->git_after.unchecked ? sb->git_after.unchecked
                                   : r < 0                 ? "the check ran out of memory"
                                                           : "";
}

static int kill_cgroup(void *userdata)
{
        return cordon_limits_kill_all(userdata);
}

static void restore_mask(struct cordon_sandbox *sb)
{
        if (sb->mask_saved) {
                sigprocmask(SIG_SETMASK, &sb->saved_mask, NULL);
                sb->mask_saved = false;
        }
}

static void kill_and_reap(struct cordon_sandbox *sb);

/* The landlock backend's notifications, served on the sandbox's loop from now on. The command
 * may be waiting on its first one already: the caller's wait answers it. */
static int start_notify(struct cordon_sandbox *sb, struct cordon_diag *diag)
{
        const struct cordon_launch *l = &sb->l;
        if (sb->notify_listener < 0)
                return 0;
        /* Where the command may create files: the Landlock plan's grants with a create right
         * (the TMPDIR among them), for the note on a create under /tmp. */
        const uint64_t create = LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_DIR;
        _cleanup_free_ const char **writable = calloc(l->ll.n_rules + 1, sizeof(*writable));
        if (!writable)
                return -ENOMEM;
        size_t n = 0;
        for (size_t i = 0; i < l->ll.n_rules; i++)
                if (l->ll.rules[i].access & create)
                        writable[n++] = l->ll.rules[i].path;
        const struct cordon_notify_config cfg = {
            .shm_dirfd = l->shm_dir ? l->shm_dirfd : -EBADF,
            .writable = writable,
            .n_writable = n,
            .socket_rule = l->seccomp_key.net,
            .tmpdir = l->tmpdir != NULL,
            .proxy_port = l->proxy_port,
            .warn = l->warn,
            .userdata = l->userdata,
        };
        int listener = sb->notify_listener;
        sb->notify_listener = -EBADF; /* cordon_notify_new()'s, whatever the outcome */
        int r = cordon_notify_new(listener, &cfg, &sb->notify);
        if (r >= 0)
                r = cordon_notify_attach(sb->notify, sb->loop);
        if (r < 0)
                return cordon_diag_set(diag, r,
                                       "failed to serve the sandbox's seccomp notifications: %s",
                                       strerror(-r));
        return 0;
}

static int start(const struct cordon_policy *p, char *const *argv,
                 const struct cordon_sandbox_options *opts, struct cordon_sandbox *sb,
                 struct cordon_diag *diag)
{
        int r;

        if (diag)
                diag->step = CORDON_STEP_PREPARE;
        sb->session = opts->flags & CORDON_SANDBOX_SESSION;
        if (sb->session ? argv != NULL : !argv || !argv[0])
                return cordon_diag_set(diag, -EINVAL,
                                       sb->session ? "a session starts with no command"
                                                   : "no command given");
        r = cordon_policy_validate(p, diag);
        if (r < 0)
                return r;
        if ((r = report_policy(sb, p)) < 0)
                return r;
        /* What PID 1 and the reaper pass on to the command, and what cordon_sandbox_kill() and
         * the signal forwarding may send. */
        sigemptyset(&sb->forward);
        sigaddset(&sb->forward, SIGINT);
        sigaddset(&sb->forward, SIGTERM);
        sigaddset(&sb->forward, SIGHUP);
        sigaddset(&sb->forward, SIGQUIT);

        sb->l.warn = opts->warning;
        sb->l.userdata = opts->userdata;
        r = cordon_launch_prepare(p, &sb->l, diag);
        cordon_sandbox_report_decisions(sb);
        /* A session's server takes its commands' descriptors over its control channel: a
         * seccomp filter that refuses the socket calls (SIDE_EFFECT_LEVEL below network) would
         * leave it deaf. Refused rather than started half-working. */
        if (r >= 0 && sb->session && sb->l.bpf.len > 0 &&
            sb->l.seccomp_key.net == CORDON_SECCOMP_NET_NONE)
                r = cordon_diag_set(diag, -EOPNOTSUPP,
                                    "a session cannot run under a seccomp filter that refuses "
                                    "the socket calls (SIDE_EFFECT_LEVEL below network): its "
                                    "server takes each command's descriptors over a socket");
        if (r < 0 || (r = cordon_egress_prepare(sb, p, diag)) < 0)
                return r;
        if (opts->prepared)
                opts->prepared(opts->userdata, sb);

        /* Forwarded signals (and a pty's SIGWINCH) are read from a signalfd in the wait: blocked
         * from here on in this thread, so none is lost or acts on the caller meanwhile. */
        sigset_t block;
        sigemptyset(&block);
        if (opts->flags & CORDON_SANDBOX_FORWARD_SIGNALS)
                block = sb->forward;
        if (p->process.pty)
                sigaddset(&block, SIGWINCH);
        if (!sigisemptyset(&block)) {
                sigprocmask(SIG_BLOCK, &block, &sb->saved_mask);
                sb->mask_saved = true;
        }

        r = cordon_sandbox_launch(sb, argv, diag);
        sb->l.p = NULL;
        sb->argv = NULL;
        if (r < 0) {
                restore_mask(sb);
                return r;
        }
        /* What serves the sandbox from now on: its proxy or resolver, the notifications,
         * pasta's watch, the supervisor. Made after the clone, so that no process of the
         * sandbox ever held it. */
        r = cordon_loop_new(&sb->loop);
        if (r < 0)
                cordon_diag_set(diag, r, "failed to make the sandbox's event loop: %s",
                                strerror(-r));
        if (r >= 0)
                r = cordon_egress_start(sb, diag);
        if (r >= 0)
                r = start_notify(sb, diag);
        if (r >= 0 && (r = cordon_chaperon_watch(sb)) < 0)
                cordon_diag_set(diag, r, "SLURM_SCOPE: failed to watch the chaperon's doorbell: %s",
                                strerror(-r));
        if (r >= 0 && (sb->janitor = cordon_janitor_start(sb)) < 0) {
                r = cordon_diag_set(diag, sb->janitor, "failed to start the janitor: %s",
                                    strerror(-sb->janitor));
                sb->janitor = 0;
        }
        if (r >= 0 && sb->session && (r = cordon_session_new(sb, p)) < 0)
                cordon_diag_set(diag, r, "failed to serve the session: %s", strerror(-r));
        if (r >= 0 && sb->session && opts->restore_from)
                r = cordon_session_restore(sb, opts->restore_from, diag);
        if (r >= 0 && (r = cordon_net_filtered_watch(&sb->l, sb->loop, &sb->pasta_io)) < 0)
                cordon_diag_set(diag, r, "failed to watch pasta: %s", strerror(-r));

        sb->report.started = true;
        sb->report.pid = sb->pid;
        sb->sup = (struct cordon_supervise){
            .pid = sb->pid,
            .has_pidfd = sb->pidfd >= 0,
            .pidfd = sb->pidfd,
            .timeout_usec = sb->report.timeout_usec,
            .kill_signal = cordon_backend_ops(sb->l.backend)->kill_signal,
            .kill_all = sb->l.limits ? kill_cgroup : NULL,
            /* Without Landlock's signal scoping the command can SIGSTOP its reaper. */
            .watch_stops = cordon_backend_ops(sb->l.backend)->first_process_stoppable(&sb->l),
            .userdata = sb->l.limits,
            .pty = sb->pty,
            .killed = &sb->killed,
        };
        sigemptyset(&sb->sup.forward);
        if (opts->flags & CORDON_SANDBOX_FORWARD_SIGNALS)
                sb->sup.forward = sb->forward;
        /* From here on the loop supervises it: cordon_sandbox_process() and _wait() drive it. */
        if (r >= 0 && (r = cordon_supervisor_start(&sb->sup, sb->loop, &sb->supervisor)) < 0)
                cordon_diag_set(diag, r, "failed to supervise the sandbox: %s", strerror(-r));
        if (r < 0) {
                /* The command runs, told of a proxy that is not there (or with notifications
                 * nobody would answer): end it. */
                kill_and_reap(sb);
                sb->pid = 0;
                restore_mask(sb);
                return r;
        }
        return 0;
}

_public_ int cordon_sandbox_start_with(const struct cordon_policy *p, char *const *argv,
                                       const struct cordon_sandbox_options *opts,
                                       struct cordon_sandbox **ret_sb, struct cordon_diag *diag)
{
        static const struct cordon_sandbox_options none = {0};
        if (!p || !ret_sb)
                return -EINVAL;
        *ret_sb = NULL;
        struct cordon_sandbox *sb = calloc(1, sizeof(*sb));
        if (!sb)
                return -ENOMEM;
        sb->opts = opts ? *opts : none;
        int r = cordon_session_check_host_trees(&sb->opts, diag);
        if (r < 0) {
                free(sb);
                return r;
        }
        sb->pidfd = sb->control[0] = sb->control[1] = sb->status[0] = sb->status[1] = -EBADF;
        sb->report_fd = sb->ns_fds[0] = sb->ns_fds[1] = sb->ns_fds[2] = -EBADF;
        sb->proxy_listener = sb->net_log_fd = sb->l.proxy_fd = sb->notify_listener = -EBADF;
        sb->dns_socket = sb->net_up[0] = sb->net_up[1] = -EBADF;
        sb->l.slurm.fd[0] = sb->l.slurm.fd[1] = -EBADF;
        sb->reaper.lifeline[0] = sb->reaper.lifeline[1] = -EBADF;
        sb->l.cgroup_fds[0] = sb->l.cgroup_fds[1] = sb->l.cgroup_fds[2] = sb->l.cgroup_fds[3] =
            -EBADF;
        sb->l.pasta = CORDON_PASTA_NONE;
        sb->report.error = 0;
        r = stdio_guard_fill(&sb->stdio_guard);
        if (r < 0) {
                cordon_sandbox_free(sb);
                return cordon_diag_set(diag, r,
                                       "standard input, output or error is closed, and /dev/null "
                                       "cannot be opened to hold its place: %s",
                                       strerror(-r));
        }
        r = start(p, argv, &sb->opts, sb, diag);
        if (r < 0) {
                sb->report.error = r;
                sb->report.failed_step = diag ? diag->step : CORDON_STEP_NONE;
                sb->waited = true;
                sb->wait_result = r;
                /* Nothing of the sandbox runs any more: its placeholders can go. */
                cordon_launch_cleanup_materialized(&sb->l);
                atomic_store(&sb->ended, true);
                if (sb->opts.flags & CORDON_SANDBOX_RETURN_FAILED)
                        *ret_sb = sb;
                else
                        cordon_sandbox_free(sb);
                return r;
        }
        *ret_sb = sb;
        return 0;
}

_public_ int cordon_sandbox_start(const struct cordon_policy *p, char *const *argv,
                                  struct cordon_sandbox **ret_sb, struct cordon_diag *diag)
{
        return cordon_sandbox_start_with(p, argv, NULL, ret_sb, diag);
}

_public_ int cordon_sandbox_pidfd(const struct cordon_sandbox *sb)
{
        return sb && sb->report.started ? sb->pidfd : -EBADF;
}

/* Reaps the first process after an error of the wait: killed first, so that nothing of the
 * sandbox runs on (nor, for a reaper, in our memory). */
static void kill_and_reap(struct cordon_sandbox *sb)
{
        cordon_backend_ops(sb->l.backend)->stop(sb);
}

/* The sandbox has ended (@r >= 0: with @status and @end), or supervising it failed (@r < 0:
 * it is killed and reaped now): the report's outcome, and what goes with the run. */
static void end_run(struct cordon_sandbox *sb, int r, int status, enum cordon_end end)
{
        if (r < 0)
                kill_and_reap(sb);
        sb->supervisor = cordon_supervisor_free(sb->supervisor);
        /* Before pasta is killed: its end is no news any more. */
        sb->pasta_io = cordon_loop_io_free(sb->pasta_io);
        /* The sandbox has ended: its network helper goes now (reaped at free, where
         * cordon_launch_clear() stops it: its exit takes tens of milliseconds). */
        cordon_pasta_kill(&sb->l.pasta);
        /* pasta ended while the command ran: it had only its loopback from then on. */
        if (*sb->l.net_lost) {
                sb->report.net_mode = CORDON_NET_ISOLATED;
                sb->report.net_note = sb->l.net_lost;
        }
        sb->reaper.pid = 0;
        atomic_store(&sb->ended, true);
        restore_mask(sb);
        sb->report.ended = true;
        cordon_egress_report(sb);
        sb->report.oom_killed = sb->l.limits && cordon_limits_oom_killed(sb->l.limits);
        if (r < 0) {
                sb->report.error = r;
        } else {
                sb->report.exit_status = status;
                sb->report.end = end;
        }
        sb->waited = true;
        sb->wait_result = r;
        after_end(sb);
}

_public_ int cordon_sandbox_get_fd(struct cordon_sandbox *sb)
{
        if (!sb)
                return -EINVAL;
        return sb->loop ? cordon_loop_get_fd(sb->loop) : -ESRCH;
}

_public_ int cordon_sandbox_get_timeout(struct cordon_sandbox *sb, uint64_t *ret_usec)
{
        if (!sb || !ret_usec)
                return -EINVAL;
        /* Ended (or about to be said so): the next cordon_sandbox_process() answers at once. */
        if (sb->waited || !sb->supervisor || cordon_supervisor_state(sb->supervisor) != 0)
                *ret_usec = 0;
        else
                *ret_usec = cordon_loop_get_timeout(sb->loop);
        return 0;
}

_public_ int cordon_sandbox_process(struct cordon_sandbox *sb)
{
        if (!sb)
                return -EINVAL;
        if (!sb->waited) {
                int r = sb->supervisor ? cordon_supervisor_process(sb->supervisor, 0) : -ESRCH;
                if (r == 0)
                        return 0;
                int status = 0;
                enum cordon_end end = CORDON_END_EXITED;
                if (r > 0)
                        r = cordon_supervisor_finish(sb->supervisor, &status, &end);
                end_run(sb, r, status, end);
        }
        return sb->wait_result < 0 ? sb->wait_result : 1;
}

/* poll()'s timeout for @usec: rounded up, so that a timer is never early; -1 for none. */
static int poll_timeout(uint64_t usec)
{
        if (usec == UINT64_MAX)
                return -1;
        uint64_t ms = (usec + 999) / 1000;
        return ms > INT_MAX ? INT_MAX : (int)ms;
}

_public_ int cordon_sandbox_wait(struct cordon_sandbox *sb, int *ret_status)
{
        if (!sb)
                return -EINVAL;
        while (cordon_sandbox_process(sb) == 0) {
                uint64_t usec = 0;
                (void)cordon_sandbox_get_timeout(sb, &usec);
                struct pollfd p = {.fd = cordon_sandbox_get_fd(sb), .events = POLLIN};
                if (poll(&p, 1, poll_timeout(usec)) < 0 && errno != EINTR) {
                        end_run(sb, -errno, 0, CORDON_END_EXITED);
                        break;
                }
        }
        if (sb->wait_result >= 0 && ret_status)
                *ret_status = sb->report.exit_status;
        return sb->wait_result;
}

_public_ int cordon_sandbox_kill(struct cordon_sandbox *sb, int sig)
{
        if (!sb)
                return -EINVAL;
        if (!sb->report.started || atomic_load(&sb->ended))
                return -ESRCH;
        if (sig == SIGKILL) {
                atomic_store(&sb->killed, true);
                return cordon_supervise_kill(&sb->sup);
        }
        /* PID 1 and the reaper pass these on to the command; anything else would hit them. */
        if (sig <= 0 || sig >= _NSIG || !sigismember(&sb->forward, sig))
                return -EINVAL;
        int r;
        if (sb->pidfd >= 0)
                r = syscall(SYS_pidfd_send_signal, sb->pidfd, sig, NULL, 0) < 0 ? -errno : 0;
        else
                r = kill(sb->pid, sig) < 0 ? -errno : 0;
        /* A reaper the command stopped takes the signal now rather than at the next check. */
        if (r >= 0 && sb->sup.watch_stops)
                (void)kill(sb->pid, SIGCONT);
        return r;
}

_public_ const struct cordon_report *cordon_sandbox_report(const struct cordon_sandbox *sb)
{
        return &sb->report;
}

_public_ struct cordon_sandbox *cordon_sandbox_free(struct cordon_sandbox *sb)
{
        if (!sb)
                return NULL;
        if (sb->report.started && !sb->waited) {
                atomic_store(&sb->killed, true);
                kill_and_reap(sb);
                atomic_store(&sb->ended, true);
                sb->waited = true;
                after_end(sb);
        }
        /* The loop's sources go before the loop, and before the descriptors they watch. */
        sb->supervisor = cordon_supervisor_free(sb->supervisor);
        sb->pasta_io = cordon_loop_io_free(sb->pasta_io);
        restore_mask(sb);
        cordon_session_free(sb);
        cordon_notify_free(sb->notify);
        safe_close(sb->notify_listener);
        cordon_reaper_clear(&sb->reaper);
        if (sb->pty) {
                cordon_pty_close(sb->pty);
                free(sb->pty);
        }
        safe_close(sb->pidfd);
        safe_close(sb->ns_fds[0]);
        safe_close(sb->ns_fds[1]);
        safe_close(sb->ns_fds[2]);
        safe_close(sb->control[0]);
        safe_close(sb->control[1]);
        safe_close(sb->net_up[0]);
        safe_close(sb->net_up[1]);
        cordon_mount_plan_clear(&sb->plan);
        cordon_egress_free(sb);
        sb->l.slurm.io = cordon_loop_io_free(sb->l.slurm.io);
        sb->loop = cordon_loop_free(sb->loop);
        /* The supervisor clears its launch itself: the janitor goes first. */
        cordon_janitor_stop(sb->janitor);
        cordon_launch_clear(&sb->l);
        free(sb->project_dir);
        strv_free(sb->env_blocked_names);
        strv_free(sb->git_roots);
        strv_free(sb->git_kept);
        strv_free(sb->agent_overlaid);
        cordon_git_after_clear(&sb->git_after);
        /* Last: every descriptor of the sandbox is closed. */
        stdio_guard_release(&sb->stdio_guard);
        free(sb);
        return NULL;
}

_public_ int cordon_spawn(const struct cordon_policy *p, char *const *argv, int *ret_status,
                          struct cordon_diag *diag)
{
        const struct cordon_sandbox_options opts = {.flags = CORDON_SANDBOX_FORWARD_SIGNALS};
        struct cordon_sandbox *sb = NULL;
        int r = cordon_sandbox_start_with(p, argv, &opts, &sb, diag);
        if (r < 0)
                return r;
        r = cordon_sandbox_wait(sb, ret_status);
        if (r < 0)
                cordon_diag_set(diag, r, "failed to wait for the sandbox: %s", strerror(-r));
        cordon_sandbox_free(sb);
        return r;
}
