/* The child's steps: one ordered list per backend, the same pipeline with the steps a backend
 * has no use for left out (spawn.c runs the phases that start it). A step that fails is
 * reported as {step, errno, rule} on the control channel, and the child exits; the channel's end
 * of file means the command was executed. */
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
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "lib/mech/caps.h"
#include "lib/launch/control.h"
#include "lib/supervisor/egress.h"
#include "lib/policy/diag.h"
#include "lib/launch/exec-search.h"
#include "lib/mech/keyring.h"
#include "lib/launch/launch.h"
#include "lib/launch/net-mode-hooks.h"
#include "lib/policy/net-modes.h"
#include "lib/mech/ns-limits.h"
#include "lib/mech/ns-mount.h"
#include "lib/mech/ns-net.h"
#include "lib/mech/ns-user.h"
#include "lib/mech/res-limits.h"
#include "lib/launch/pid1.h"
#include "lib/policy/policy.h"
#include "lib/terminal/pty.h"
#include "lib/launch/reaper.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/launch/server.h"
#include "lib/launch/child-steps.h"
#include "lib/launch/step.h"
#include "lib/mech/seccomp-notify.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

/* ---- The child ---------------------------------------------------------------------------- */

/* What a step may say beyond its errno: another step than its row's (the mount plan has
 * several), and the rule it failed on. */
struct step_result {
        int step;
        int rule;
};

struct child_step {
        enum cordon_step step;
        int (*run)(struct cordon_sandbox *sb, struct step_result *res);
};

_Noreturn static void child_fail(const struct cordon_sandbox *sb, int step, int err, int rule,
                                 int code)
{
        (void)cordon_control_report(sb->report_fd >= 0 ? sb->report_fd : sb->control[1], step, err,
                                    rule);
        _exit(code);
}

/* PID 1 and the reaper wait for these with sigwaitinfo(): blocked before anyone can send them
 * (a namespace's PID 1 would ignore them otherwise). */
static int step_block_signals(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        sigset_t set = sb->forward;
        sigaddset(&set, SIGCHLD);
        return sigprocmask(SIG_BLOCK, &set, NULL) < 0 ? -errno : 0;
}

/* Die with the supervisor. The channel's end of file catches a supervisor that died before the
 * death signal was armed; with parent steps to wait for, the release message comes on it. */
static int step_die_with_supervisor(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        const struct cordon_policy *p = sb->l.p;
        if (p->process.die_with_parent && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                return -errno;
        if (sb->await_release) {
                struct cordon_control_msg m;
                if (cordon_control_recv(sb->control[1], 0, &m) <= 0 ||
                    m.type != CORDON_CONTROL_RELEASE)
                        _exit(125);
        } else if (p->process.die_with_parent) {
                struct pollfd pfd = {.fd = sb->control[1], .events = POLLIN};
                if (poll(&pfd, 1, 0) > 0)
                        _exit(125);
        }
        return 0;
}

/* The landlock backend's command joins the sandbox's cgroups itself, first thing: its parent is
 * the reaper, which stays outside them (the pids limit must not count it, the OOM killer and
 * cgroup.kill must not take it before it has reaped), and the supervisor cannot attach a
 * grandchild before it runs without another round trip. */
static int step_join_cgroups(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        const struct cordon_launch *l = &sb->l;
        for (size_t i = 0; l->limits && i < ELEMENTSOF(l->cgroup_fds); i++)
                if (l->cgroup_fds[i] >= 0 && write(l->cgroup_fds[i], "0", 1) != 1)
                        return -errno;
        return 0;
}

/* The rlimits and CPU affinity of the fallback mechanisms, inherited by everything. */
static int step_limits(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        int r = sb->l.limits ? cordon_limits_apply_child(sb->l.limits) : 0;
        /* SANDBOX_NPROC_LIMIT: RLIMIT_NPROC, counted per uid. The kernel exempts uid 0, whose
         * limit is the pids cgroup (launch.c); the rlimit is lowered all the same, so that
         * `ulimit -u` inside says what was asked for. */
        if (r >= 0 && sb->l.p->nproc_limit)
                r = cordon_limits_lower_rlimit(RLIMIT_NPROC, sb->l.p->nproc_limit);
        return r;
}

/* CORDON_SANDBOX_STDIO: the caller's fds become 0, 1 and 2. One that already sits at 0..2 is
 * first moved above them, so that no dup2() overwrites another still to be placed; dup2()
 * clears close-on-exec on the copy, and an fd already in its place gets it cleared by hand. */
static int place_stdio(const int stdio[3])
{
        int fds[3];
        for (int i = 0; i < 3; i++) {
                fds[i] = stdio[i];
                if (fds[i] < 0)
                        return -EBADF;
                if (fds[i] < 3 && fds[i] != i && (fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)) < 0)
                        return -errno;
        }
        for (int i = 0; i < 3; i++) {
                if (fds[i] == i) {
                        if (fcntl(i, F_SETFD, 0) < 0)
                                return -errno;
                } else if (dup2(fds[i], i) < 0)
                        return -errno;
        }
        return 0;
}

static int step_close_fds(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        if (sb->opts.flags & CORDON_SANDBOX_STDIO) {
                int r = place_stdio(sb->opts.stdio);
                if (r < 0)
                        return r;
        }
        if (!sb->l.p->process.close_fds)
                return 0;
        /* The pty's fds stay for cordon_pty_child_setup(), which closes them itself; the
         * prepared Landlock ruleset for step_landlock() (close-on-exec). */
        const struct cordon_pty *pty = sb->pty;
        int keep[] = {sb->control[1],
                      pty ? pty->slave : -EBADF,
                      pty ? pty->master : -EBADF,
                      pty ? pty->private_tty : -EBADF,
                      sb->l.ll.prepared ? sb->l.ll.ruleset_fd : -EBADF,
                      sb->net_up[1],
                      sb->report_fd,
                      sb->l.slurm.fd[1]};
        return close_all_fds_except(keep, ELEMENTSOF(keep));
}

/* SLURM_SCOPE: the chaperon's doorbell stays open across the exec (slurm-doorbell.h). */
static int step_slurm_doorbell(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        return cordon_chaperon_child_step(&sb->l);
}

static int step_id_maps(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        const struct cordon_policy *p = sb->l.p;
        return cordon_ns_user_write_maps(p->identity.uid, p->identity.gid);
}

/* Before the mount plan makes /proc/sys read-only. */
static int step_ns_limits(struct cordon_sandbox *sb, struct step_result *res)
{
        return cordon_ns_limits_apply(&sb->ns_limits, &res->rule);
}

/* A loose pids bound: the pid namespace's pid_max, written as its PID 1 (launch.h). */
static int step_pid_max(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        return sb->l.pid_max ? cordon_ns_pid_max_apply(sb->l.pid_max) : 0;
}

/* The original environment block still holds every variable the supervisor saw. */
static int step_scrub_environ(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)sb;
        (void)res;
        return cordon_pid1_scrub_environ();
}

static int step_mounts(struct cordon_sandbox *sb, struct step_result *res)
{
        return cordon_mount_plan_execute(&sb->plan, sb->l.p, &res->step, &res->rule);
}

/* Once the sandbox's devpts is mounted, the command's terminal moves there, where it has a name
 * (/dev/pts/0) that tty(1), ttyname(3), GPG_TTY=$(tty) find. When that fails the pty made
 * outside serves, nameless inside; once the command's end has moved, the supervisor must get
 * the new master or the terminal would be dead. */
static int step_pty_inside(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        if (!sb->pty)
                return 0;
        int m = cordon_pty_move_inside(sb->pty, "/dev/pts/ptmx");
        if (m < 0)
                return 0;
        struct cordon_control_msg msg = {
            .type = CORDON_CONTROL_FD, .kind = CORDON_CONTROL_FD_PTY_MASTER, .fd = m};
        int r = cordon_control_send(sb->control[1], &msg);
        safe_close(m);
        return r;
}

/* A session's namespaces, for the supervisor's attach (session-attach.c) and network change
 * (session-network.c): PID 1 is not dumpable, so they cannot be opened from outside; it hands
 * them over. */
static int step_session_ns(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        if (!sb->session)
                return 0;
        static const struct {
                const char *path;
                uint32_t kind;
        } ns[] = {{"/proc/self/ns/user", CORDON_CONTROL_FD_USERNS},
                  {"/proc/self/ns/mnt", CORDON_CONTROL_FD_MNTNS},
                  {"/proc/self/ns/net", CORDON_CONTROL_FD_NETNS}};
        const bool netns = cordon_net_mode_traits(sb->l.net_mode)->netns;
        for (size_t i = 0; i < ELEMENTSOF(ns) - !netns; i++) {
                int fd = open(ns[i].path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                struct cordon_control_msg msg = {
                    .type = CORDON_CONTROL_FD, .kind = ns[i].kind, .fd = fd};
                int r = cordon_control_send(sb->control[1], &msg);
                safe_close(fd);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int step_hostname(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        const char *h = sb->l.p->identity.hostname;
        return h ? cordon_ns_uts_set_hostname(h) : 0;
}

static int step_loopback(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        return cordon_net_mode_traits(sb->l.net_mode)->loopback ? cordon_ns_net_loopback_up() : 0;
}

/* Proxied mode: the proxy's port is opened inside, on the sandbox's own loopback, and served
 * from outside by the supervisor, which gets the socket over the control channel: no bridge
 * process, no socket file under any bound path. */
static int step_proxy_listener(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        if (!cordon_net_mode_traits(sb->l.net_mode)->proxy)
                return 0;
        int fd = cordon_ns_net_listen_loopback(CORDON_PROXY_PORT);
        if (fd < 0)
                return fd;
        struct cordon_control_msg msg = {
            .type = CORDON_CONTROL_FD, .kind = CORDON_CONTROL_FD_PROXY_LISTENER, .fd = fd};
        int r = cordon_control_send(sb->control[1], &msg);
        safe_close(fd);
        return r;
}

/* Filtered mode: the sandbox's resolver is served the same way, from a UDP socket bound inside
 * on the address its resolv.conf names (see dns-relay.h). */
static int step_dns_socket(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        if (!cordon_net_mode_traits(sb->l.net_mode)->dns)
                return 0;
        int fd = cordon_ns_net_bind_udp(CORDON_DNS_ADDR, CORDON_DNS_PORT);
        if (fd < 0)
                return fd;
        struct cordon_control_msg msg = {
            .type = CORDON_CONTROL_FD, .kind = CORDON_CONTROL_FD_DNS_SOCKET, .fd = fd};
        int r = cordon_control_send(sb->control[1], &msg);
        safe_close(fd);
        return r;
}

/* The network mode's own step (filtered: its nftables rules), while the capabilities it needs
 * in the namespace are still held. */
static int step_net_mode(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        const struct cordon_net_mode_hooks *t = cordon_net_mode_hooks(sb->l.net_mode);
        return t->child_setup ? t->child_setup(&sb->l) : 0;
}

/* The network mode's parent step is done (filtered: pasta has configured the namespace and
 * said so): the second release. Before the command can run, and before the child stops being
 * dumpable, which would keep pasta out of /proc/PID/ns (it has joined the namespaces long before
 * it configures them). Filtered mode goes on sooner, once pasta has configured the namespace's
 * default routes, and says so on its pipe: the supervisor then sends no second release. */
static int step_await_network(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        if (!sb->await_network)
                return 0;
        if (sb->net_up[1] >= 0 &&
            cordon_ns_net_wait_default_routes(sb->net_routes, sb->control[1]) == 1) {
                static const char up = 1;
                ssize_t k = write(sb->net_up[1], &up, 1);
                (void)close(sb->net_up[1]);
                if (k == 1)
                        return 0;
                /* Not told: the supervisor still sends the release. */
        }
        struct cordon_control_msg m;
        if (cordon_control_recv(sb->control[1], 0, &m) <= 0 || m.type != CORDON_CONTROL_RELEASE)
                _exit(125);
        return 0;
}

static int step_keyring(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)sb;
        (void)res;
        return cordon_keyring_detach();
}

/* Nothing inside may read PID 1's memory or /proc/1/environ, or ptrace it. */
static int step_not_dumpable(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)sb;
        (void)res;
        return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ? -errno : 0;
}

static int step_drop_caps(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        return sb->l.p->process.drop_capabilities ? cordon_caps_drop_all() : 0;
}

/* Without a user namespace only a caller that holds capabilities (root) has any to drop. */
static int step_drop_held_caps(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        return sb->l.p->process.drop_capabilities && cordon_caps_any() ? cordon_caps_drop_all() : 0;
}

static int step_no_new_privs_if_asked(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        return sb->l.p->process.no_new_privs ? cordon_caps_set_no_new_privs() : 0;
}

/* Without a user namespace no-new-privs is what keeps everyone from gaining capabilities
 * through execve: always. */
static int step_no_new_privs(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)sb;
        (void)res;
        return cordon_caps_set_no_new_privs();
}

/* Landlock, then the seccomp filter last of all: the filter refuses calls (mount, keyctl,
 * unshare...) that earlier steps need. Both apply to PID 1 too, and everything it forks
 * inherits them. */
static int step_landlock(struct cordon_sandbox *sb, struct step_result *res)
{
        /* Also without the layer: proxied mode's TCP rule under the landlock backend (a ruleset
         * prepared in the supervisor, launch.c). */
        return sb->l.landlock || sb->l.ll.prepared ? cordon_landlock_apply(&sb->l.ll, &res->rule)
                                                   : 0;
}

static int step_seccomp(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        if (sb->l.bpf.len == 0)
                return 0;
        if (!sb->l.seccomp_key.notify)
                return cordon_seccomp_install(&sb->l.bpf);
        /* The landlock backend's notifications: the listener goes to the supervisor before the
         * exec (which closes this copy), or the command would wait on calls nobody answers.
         * Nothing after this may make a notified call (an open with O_CREAT, a TIOCGPTPEER):
         * the supervisor answers only once the command runs. */
        int fd = cordon_seccomp_install_listener(&sb->l.bpf);
        if (fd < 0)
                return fd;
        struct cordon_control_msg msg = {
            .type = CORDON_CONTROL_FD, .kind = CORDON_CONTROL_FD_SECCOMP_NOTIFY, .fd = fd};
        int r = cordon_control_send(sb->control[1], &msg);
        safe_close(fd);
        return r;
}

_Noreturn static void exec_command(const struct cordon_sandbox *sb)
{
        const struct cordon_policy *p = sb->l.p;
        sigset_t empty;
        sigemptyset(&empty);
        sigprocmask(SIG_SETMASK, &empty, NULL);
        int r;
        /* A session of its own with the pty as controlling terminal and its process group in
         * the foreground: job control, ^C and ^Z work inside as in any terminal. */
        if (sb->pty && (r = cordon_pty_child_setup(sb->pty)) < 0)
                child_fail(sb, CORDON_STEP_TERMINAL, r, -1, 125);
        if (!sb->pty && p->process.new_session && setsid() < 0)
                child_fail(sb, CORDON_STEP_PROCESS, errno, -1, 125);
        if (p->cwd && chdir(p->cwd) < 0)
                child_fail(sb, CORDON_STEP_CHDIR, errno, -1, 125);
        cordon_exec_search(sb->argv[0], sb->argv, sb->l.envp ? sb->l.envp : p->envp);
        child_fail(sb, CORDON_STEP_EXEC, errno, -1, errno == ENOENT ? 127 : 126);
}

static struct cordon_server_config server_config(const struct cordon_sandbox *sb, bool pid1)
{
        const struct cordon_policy *p = sb->l.p;
        return (struct cordon_server_config){
            .control = sb->control[1],
            .forward = sb->forward,
            .die_with_supervisor = p->process.die_with_parent,
            .pid1 = pid1,
            .envp = sb->l.envp ? sb->l.envp : p->envp,
            .cwd = p->cwd,
            .new_session = p->process.new_session,
        };
}

/* Serving starts: the supervisor's start is over once it reads this. */
static int say_started(const struct cordon_sandbox *sb, pid_t pid)
{
        struct cordon_control_msg m = {
            .type = CORDON_CONTROL_STARTED, .id = 0, .pid = pid, .rule = -1, .fd = -1};
        return cordon_control_write(sb->control[1], &m);
}

/* The ns backend's last step: fork the command (none in a session), and become PID 1, the
 * sandbox's command server. The command has a close-on-exec status channel of its own: its end
 * of file says the exec happened, which PID 1 passes on as CORDON_CONTROL_STARTED; a failure
 * before the exec is its report, passed on as it came. */
static int step_become_pid1(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        struct cordon_server_config cfg = server_config(sb, true);
        if (sb->session) {
                int r = say_started(sb, 0);
                if (r < 0)
                        return r;
                cordon_pid1_become(&cfg, sb->pty);
        }
        /* A pipe, read and written with read()/write(): PID 1 is under the seccomp filter,
         * which may refuse the socket calls (SIDE_EFFECT_LEVEL process_exec). */
        int st[2];
        if (pipe2(st, O_CLOEXEC) < 0)
                return -errno;
        pid_t cmd = fork();
        if (cmd < 0) {
                int e = errno;
                safe_close(st[0]);
                safe_close(st[1]);
                return -e;
        }
        if (cmd == 0) {
                safe_close(st[0]);
                sb->report_fd = st[1];
                exec_command(sb);
        }
        safe_close(st[1]);
        struct cordon_control_msg m;
        ssize_t k;
        do
                k = read(st[0], &m, sizeof(m));
        while (k < 0 && errno == EINTR);
        safe_close(st[0]);
        int r = k == 0 ? 0 : k < 0 ? -errno : -EIO;
        if (k == (ssize_t)sizeof(m) && m.type == CORDON_CONTROL_REPORT) {
                /* The command's failure is the sandbox's: said, and PID 1 ends as it did. */
                m.fd = -1;
                (void)cordon_control_write(sb->control[1], &m);
                int status = 0;
                while (waitpid(cmd, &status, 0) < 0 && errno == EINTR)
                        ;
                _exit(cordon_exit_status_from_wait(status));
        }
        if (r >= 0)
                r = say_started(sb, cmd);
        if (r < 0) {
                (void)kill(cmd, SIGKILL);
                return r;
        }
        cfg.main = cmd;
        cordon_pid1_become(&cfg, sb->pty);
}

/* The landlock backend's last step: the command's process becomes the command; in a session,
 * the confined server its commands are forked from. It is not dumpable: its commands, which
 * are (the exec resets the flag), cannot ptrace it or read its memory. */
static int step_exec(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        if (!sb->session)
                exec_command(sb);
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                return -errno;
        struct cordon_server_config cfg = server_config(sb, false);
        int r = say_started(sb, 0);
        if (r < 0)
                return r;
        cordon_server_run(&cfg);
}

/* cordon_confine_self(): the caller's own descriptors stay usable until its exec, which closes
 * every one the landlock backend's command would not have had (step_close_fds()). */
static int step_cloexec_fds(struct cordon_sandbox *sb, struct step_result *res)
{
        (void)res;
        return sb->l.p->process.close_fds ? fds_cloexec_above_stdio() : 0;
}

/* The two pipelines, side by side. A step missing on one side is one that backend has no use
 * for (no namespaces: no id maps, mounts, hostname, loopback, PID 1) or does differently (its
 * cgroup join, capabilities, no-new-privs). */
static const struct child_step ns_steps[] = {
    {CORDON_STEP_PROCESS, step_block_signals},
    {CORDON_STEP_PROCESS, step_die_with_supervisor}, /* and the release: the parent attached
                                                      * PID 1 to the cgroups */
    {CORDON_STEP_PROCESS, step_close_fds},
    {CORDON_STEP_PROCESS, step_slurm_doorbell},
    {CORDON_STEP_USERNS, step_id_maps},
    {CORDON_STEP_NS_LIMITS, step_ns_limits},
    {CORDON_STEP_LIMITS, step_pid_max}, /* before the mounts make /proc/sys read-only */
    {CORDON_STEP_PROCESS, step_scrub_environ},
    {CORDON_STEP_MOUNT, step_mounts},
    {CORDON_STEP_TERMINAL, step_pty_inside},
    {CORDON_STEP_PROCESS, step_session_ns},
    {CORDON_STEP_HOSTNAME, step_hostname},
    {CORDON_STEP_NETWORK, step_loopback},
    {CORDON_STEP_PROXY, step_proxy_listener},
    {CORDON_STEP_NET_FILTER, step_dns_socket},
    {CORDON_STEP_NET_FILTER, step_net_mode},
    /* After the set-up that allocates (libnftables): a memory rlimit is for the command. */
    {CORDON_STEP_LIMITS, step_limits},
    {CORDON_STEP_KEYRING, step_keyring},
    {CORDON_STEP_NETWORK, step_await_network},
    {CORDON_STEP_PROCESS, step_not_dumpable},
    {CORDON_STEP_CAPS, step_drop_caps},
    {CORDON_STEP_NNP, step_no_new_privs_if_asked},
    {CORDON_STEP_LANDLOCK, step_landlock},
    {CORDON_STEP_SECCOMP, step_seccomp},
    {CORDON_STEP_FORK, step_become_pid1},
};

static const struct child_step landlock_steps[] = {
    /* The reaper blocked the signals it waits for itself; the command unblocks all. */
    {CORDON_STEP_PROCESS, step_die_with_supervisor},
    {CORDON_STEP_LIMITS, step_join_cgroups},
    {CORDON_STEP_LIMITS, step_limits},
    {CORDON_STEP_PROCESS, step_close_fds},
    {CORDON_STEP_PROCESS, step_slurm_doorbell},
    {CORDON_STEP_KEYRING, step_keyring},
    {CORDON_STEP_CAPS, step_drop_held_caps},
    {CORDON_STEP_NNP, step_no_new_privs},
    {CORDON_STEP_LANDLOCK, step_landlock},
    {CORDON_STEP_SECCOMP, step_seccomp},
    {CORDON_STEP_EXEC, step_exec},
};

/* cordon_confine_self() (confine-self.c): the landlock backend's steps from its limits to its
 * seccomp filter, taken by the caller on itself. Left out: what concerns a supervisor (its
 * death, its release, its cgroups to join: confine-self.c refuses the limits that need them)
 * and the exec, which is the caller's; the descriptors are marked rather than closed. The
 * filter has no listener (launch.h's @self), so step_seccomp() installs it alone. */
static const struct child_step self_steps[] = {
    {CORDON_STEP_LIMITS, step_limits},    {CORDON_STEP_PROCESS, step_cloexec_fds},
    {CORDON_STEP_KEYRING, step_keyring},  {CORDON_STEP_CAPS, step_drop_held_caps},
    {CORDON_STEP_NNP, step_no_new_privs}, {CORDON_STEP_LANDLOCK, step_landlock},
    {CORDON_STEP_SECCOMP, step_seccomp},
};

int cordon_child_confine_self(struct cordon_sandbox *sb, int *ret_step, int *ret_rule)
{
        for (size_t i = 0; i < ELEMENTSOF(self_steps); i++) {
                struct step_result res = {.step = self_steps[i].step, .rule = -1};
                int r = self_steps[i].run(sb, &res);
                if (r < 0) {
                        *ret_step = res.step;
                        *ret_rule = res.rule;
                        return r;
                }
        }
        return 0;
}

_Noreturn static void run_steps(struct cordon_sandbox *sb, const struct child_step *steps, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                struct step_result res = {.step = steps[i].step, .rule = -1};
                int r = steps[i].run(sb, &res);
                if (r < 0)
                        child_fail(sb, res.step, r, res.rule, 125);
        }
        _exit(125); /* not reached: the last step execs or becomes PID 1 */
}

/* The landlock backend's command, started by the reaper (a vfork-like child sharing its
 * memory: see reaper.c). */
int cordon_child_landlock(void *arg)
{
        run_steps(arg, landlock_steps, ELEMENTSOF(landlock_steps));
}

/* The ns backend's first process, after the clone: its steps, then PID 1. */
_Noreturn void cordon_child_ns(struct cordon_sandbox *sb)
{
        run_steps(sb, ns_steps, ELEMENTSOF(ns_steps));
}
