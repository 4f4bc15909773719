/* The live sandbox behind the public handle (cordon/sandbox.h): what the phase driver
 * (spawn.c), the child's steps and the public functions (sandbox.c) share. */
#pragma once

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "cordon/sandbox.h"
#include "lib/supervisor/dns-relay.h"
#include "lib/launch/git-after.h"
#include "lib/launch/launch.h"
#include "lib/loop/loop.h"
#include "lib/mech/ns-limits.h"
#include "lib/mech/ns-mount.h"
#include "lib/proxy/proxy.h"
#include "lib/launch/reaper.h"
#include "lib/supervisor/supervise.h"
#include "shared/fd-util.h"

struct cordon_pty;
struct cordon_session;

struct cordon_sandbox {
        struct cordon_launch l; /* the decisions; l.p is the caller's policy during start only */
        struct cordon_sandbox_options opts;
        struct cordon_report report;
        char *project_dir; /* the report's strings */
        char **env_blocked_names;
        /* PROTECT_GIT_CONFIG's check once the sandbox has ended (git-after.h): the policy's
         * roots and kept git directories, copied; when the run began (the coarse clock inode
         * changes are stamped with); what the check found. */
        char **agent_overlaid; /* the report's agents.overlaid */
        char **git_roots;
        char **git_kept;
        struct timespec git_since;
        struct cordon_git_after git_after;
        /* The policy's CORDON_FS_NS_ONLY rules, plus one for the agent files an explicit
         * landlock backend made none for (report_policy()). */
        size_t ns_only_rules;
        char limits_text[256];

        /* During start: the child's plan and context (read by the child before its exec). */
        char *const *argv;
        struct cordon_mount_plan plan; /* ns backend */
        struct cordon_ns_limits ns_limits;
        sigset_t forward;   /* what PID 1 and the reaper pass on to the command */
        bool await_release; /* the child waits for CORDON_CONTROL_RELEASE: parent steps exist */
        /* and for a second one before its command: the network mode's parent_ready */
        bool await_network;
        /* The filtered mode's early start: the families whose default route pasta configures
         * (ns-net.h; 0: the child waits for the second release alone), and the pipe the child
         * writes a byte to once its namespace has them ([0] the supervisor's, [1] the child's). */
        unsigned net_routes;
        int net_up[2];
        struct cordon_loop_io *pasta_io; /* pasta's end while the sandbox runs */
        int control[2]; /* the control channel: [0] the supervisor's end, [1] the child's */
        /* The landlock backend's first command: its status channel, [0] the reaper's end (which
         * turns end of file into CORDON_CONTROL_STARTED), [1] the command's (close-on-exec). */
        int status[2];
        /* Where the child's steps report a failure: the command's status channel once there is
         * one (the ns backend's forked command, the landlock backend's), else control[1]. */
        int report_fd;
        /* CORDON_SANDBOX_SESSION: no command of its own; the inside serves commands, and
         * @sess is the supervisor's side of it once it runs. */
        bool session;
        struct cordon_session *sess;
        /* A session under the ns backend: its user, mount and (when it has one) network
         * namespaces, as PID 1 sent them. */
        int ns_fds[3];
        pid_t janitor; /* supervisor/janitor.h; 0: none */
        /* NULL: the command keeps the caller's fds 0..2. Changed only in the ns backend's PID 1
         * (its own copy), by cordon_pty_move_inside(). */
        struct cordon_pty *pty;

        /* The running sandbox. */
        pid_t pid;
        int pidfd;
        struct cordon_reaper reaper; /* landlock backend */
        /* The loop every source of the sandbox runs on (its fd is cordon_sandbox_get_fd()),
         * the supervisor's settings (read by cordon_sandbox_kill() from any thread) and its
         * state on the loop from the end of the start until the end of the run. */
        struct cordon_loop *loop;
        struct cordon_supervise sup;
        struct cordon_supervisor *supervisor;
        /* Proxied mode: the listening socket PID 1 opened inside (until the proxy takes it),
         * the proxy serving it on @loop, its rules (the policy's, copied) and its log. */
        int proxy_listener;
        struct cordon_proxy *proxy;
        /* report.resolver.refused_first: the first names the resolver refused */
        char dns_refused[CORDON_DNS_REFUSED_FIRST][CORDON_NET_NAME_MAX + 1];
        const char *dns_refused_ptrs[CORDON_DNS_REFUSED_FIRST + 1];
        /* report.proxy.refused_first: the first destinations it refused, NULL-terminated */
        char proxy_refused[CORDON_PROXY_REFUSED_FIRST][CORDON_NET_NAME_MAX + 10];
        const char *proxy_refused_ptrs[CORDON_PROXY_REFUSED_FIRST + 1];
        struct cordon_net_rules *net_rules;
        int net_log_fd;
        char *proxy_dns;
        /* Filtered mode: the resolver's socket PID 1 bound inside (until the relay takes it),
         * the relay serving it on @loop (its rules and log are the proxy's above), and the
         * host's resolvers it forwards to, found before the clone. */
        int dns_socket;
        struct cordon_dns_relay *dns;
        struct cordon_dns_server dns_servers[CORDON_DNS_SERVERS_MAX];
        size_t n_dns_servers;
        /* The landlock backend's seccomp listener, as the child sent it (until @notify takes
         * it), and the notifications' source on @loop. */
        int notify_listener;
        /* The caller's closed 0..2, held on /dev/null from the start to the free: no descriptor
         * of the sandbox lands there to be taken for stdio (or closed by the child's stdio
         * placement). */
        struct stdio_guard stdio_guard;
        struct cordon_notify *notify;
        /* The caller's signal mask before start blocked the forwarded signals (and SIGWINCH for
         * a pty) in the starting thread; restored when the wait is over. */
        bool mask_saved;
        sigset_t saved_mask;
        atomic_bool killed; /* cordon_sandbox_kill(SIGKILL) */
        atomic_bool ended;  /* reaped: kill answers -ESRCH */
        bool waited;
        int wait_result;
};

/* The phases of cordon_sandbox_start(), after the prepare phase's decisions (spawn.c): clone,
 * the parent steps, release and the child's report, with the `auto` backend's fallback to
 * landlock. @sb->forward must be set. Returns 0 once the command runs, or -errno with @diag
 * set. */
int cordon_sandbox_launch(struct cordon_sandbox *sb, char *const *argv, struct cordon_diag *diag);

/* Fills the report's decisions from the launch (after prepare, and again after a fallback). */
void cordon_sandbox_report_decisions(struct cordon_sandbox *sb);
