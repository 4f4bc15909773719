/* cordon_confine_self() (cordon/confine.h): the caller confines itself with the landlock
 * backend's launch and steps, where no process of cordon's can stand around it (a Slurm task
 * just before its exec). What needs such a process is refused here, before anything is made. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cordon/confine.h"
#include "lib/launch/child-steps.h"
#include "lib/launch/confine-self.h"
#include "lib/launch/launch-internal.h"
#include "lib/launch/sandbox-internal.h"
#include "lib/launch/step.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"
#include "shared/strv.h"

extern char **environ;

static int needs_helper(struct cordon_diag *diag, const char *var, const char *why)
{
        return cordon_diag_set(diag, -EOPNOTSUPP,
                               "%s cannot be applied by a process confining itself: %s", var, why);
}

int cordon_confine_self_check(const struct cordon_policy *p, bool stdin_tty, uid_t uid,
                              struct cordon_diag *diag)
{
        if (p->backend != CORDON_BACKEND_LANDLOCK)
                return needs_helper(diag, "SANDBOX_BACKEND",
                                    "it applies the landlock backend's steps, and the policy "
                                    "must be resolved for that backend (SANDBOX_BACKEND=landlock)");
        if (p->net_mode != CORDON_NET_OPEN && p->net_mode != CORDON_NET_ISOLATED) {
                char why[128];
                snprintf(why, sizeof(why),
                         "%s needs a process of cordon's (the proxy, or pasta and a network "
                         "namespace); open and isolated need none",
                         cordon_net_mode_to_string(p->net_mode));
                return needs_helper(diag, "NETWORK_FILTER_MODE", why);
        }
        static const char cgroup[] = "it is a cgroup made and removed by a supervisor";
        if (p->limits.timeout_usec)
                return needs_helper(diag, "TIMEOUT", "a wall time limit needs a supervisor");
        if (p->limits.memory_bytes)
                return needs_helper(diag, "MEMORY_LIMIT", cgroup);
        if (p->limits.pids)
                return needs_helper(diag, "PIDS_LIMIT", cgroup);
        if (p->limits.cpus)
                return needs_helper(diag, "CPU_LIMIT", cgroup);
        if (p->cgroup_path)
                return needs_helper(diag, "CGROUP_PATH",
                                    "its leaf cgroup is made and removed by a supervisor");
        /* RLIMIT_NPROC does not bind uid 0: the landlock backend gives root a pids cgroup. */
        if (p->nproc_limit && uid == 0)
                return needs_helper(diag, "SANDBOX_NPROC_LIMIT",
                                    "for uid 0 it is a cgroup made and removed by a supervisor");
        /* The landlock backend's private TMPDIR stands in for a private /tmp: a directory on
         * the host that its supervisor removes. The host's /tmp bound read-write is a rule of
         * the plan like any other. */
        const struct cordon_fs_rule *tmp = cordon_policy_find_fs(p, "/tmp");
        if (cordon_launch_tmp_writable(p) && !(tmp && tmp->access == CORDON_ACCESS_RW))
                return needs_helper(diag, "PRIVATE_TMP",
                                    "the private TMPDIR is a directory a supervisor removes "
                                    "(PRIVATE_TMP=false where the caller's /tmp is private "
                                    "already)");
        if (p->mail_stub)
                return needs_helper(diag, "NETWORK_MAIL_BLOCK",
                                    "its stubs' directory is made and removed by a supervisor");
        if (p->agent_run_dir || p->n_agent_homes)
                return needs_helper(diag, "ENABLED_AGENTS",
                                    "the agents' private homes are made, written back and "
                                    "removed by a supervisor");
        if (p->git_roots && *p->git_roots)
                return needs_helper(diag, "PROTECT_GIT_CONFIG",
                                    "the repositories are checked by a supervisor after the run");
        if (p->cleanup_materialized)
                return needs_helper(diag, "CLEANUP_MATERIALIZED_BLOCKED_FILES",
                                    "the placeholders are removed by a supervisor after the run");
        if (p->process.pty && stdin_tty)
                return needs_helper(diag, "NO_PTY",
                                    "the pseudo-terminal is relayed by a supervisor (NO_PTY=true "
                                    "keeps the caller's terminal)");
        return 0;
}

/* The launch made no helper after all: checked again on what it decided, so that a later
 * change of the launch cannot slip one in unseen. */
static int check_launch(const struct cordon_launch *l, struct cordon_diag *diag)
{
        const char *what = l->backend != CORDON_BACKEND_LANDLOCK ? "another backend"
                           : l->seccomp_key.notify               ? "seccomp notifications"
                           : l->tmpdir                           ? "a private TMPDIR"
                           : l->mail_dir                         ? "the mail stubs"
                           : l->limits                           ? "a cgroup"
                           : l->shm_dir                          ? "a private /dev/shm"
                           : l->net_mode != l->p->net_mode       ? "another network mode"
                                                                 : NULL;
        return what ? cordon_diag_set(diag, -EOPNOTSUPP,
                                      "the launch needs %s, which a process confining itself "
                                      "cannot have",
                                      what)
                    : 0;
}

/* Landlock's restrict_self and a seccomp filter bind the calling thread alone. */
static int check_single_threaded(struct cordon_diag *diag)
{
        FILE *f = fopen("/proc/self/status", "re");
        if (!f)
                return cordon_diag_set(diag, -errno,
                                       "cannot tell whether the caller is single-threaded: "
                                       "/proc/self/status: %m");
        char line[256];
        long threads = -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Threads: %ld", &threads) == 1)
                        break;
        fclose(f);
        if (threads == 1)
                return 0;
        if (threads < 1)
                return cordon_diag_set(diag, -EIO, "no thread count in /proc/self/status");
        return cordon_diag_set(diag, -EBUSY,
                               "the caller has %ld threads: Landlock and seccomp confine the "
                               "calling thread alone",
                               threads);
}

struct warnings {
        char text[sizeof(((struct cordon_diag *)0)->message)];
};

static void collect_warning(void *userdata, const char *message)
{
        struct warnings *w = userdata;
        size_t n = strlen(w->text);
        snprintf(w->text + n, sizeof(w->text) - n, "%s%s", n ? "; " : "", message);
}

static void launch_freep(struct cordon_sandbox **sb)
{
        if (!*sb)
                return;
        cordon_launch_clear(&(*sb)->l);
        free(*sb);
}

_public_ int cordon_confine_self(const struct cordon_policy *p, unsigned flags,
                                 struct cordon_diag *diag)
{
        if (!p || (flags & ~(unsigned)CORDON_CONFINE_ENVIRON))
                return cordon_diag_set(diag, -EINVAL, "no policy, or unknown flags");
        if (diag)
                *diag = (struct cordon_diag){0};
        int r = cordon_confine_self_check(p, isatty(STDIN_FILENO), getuid(), diag);
        if (r < 0 || (r = check_single_threaded(diag)) < 0)
                return r;

        /* A sandbox with no process of its own: its launch is all the steps read
         * (child-steps.h). */
        _cleanup_(launch_freep) struct cordon_sandbox *sb = calloc(1, sizeof(*sb));
        if (!sb)
                return -ENOMEM;
        struct warnings w = {""};
        sb->l.self = true;
        sb->l.warn = collect_warning;
        sb->l.userdata = &w;
        if ((r = cordon_launch_prepare(p, &sb->l, diag)) < 0 ||
            (r = check_launch(&sb->l, diag)) < 0)
                return r;

        /* Copied before the steps: the environment is set only once the process is confined. */
        _cleanup_strv_free_ char **envp = NULL;
        if ((flags & CORDON_CONFINE_ENVIRON) && !(envp = strv_copy(sb->l.envp ?: p->envp)))
                return -ENOMEM;

        int step = CORDON_STEP_NONE, rule = -1;
        r = cordon_child_confine_self(sb, &step, &rule);
        if (r < 0) {
                if (diag) {
                        struct cordon_step_report rep = {.step = step, .err = -r, .rule = rule};
                        cordon_step_describe(&sb->l, &rep, NULL, diag);
                }
                return r;
        }
        if (flags & CORDON_CONFINE_ENVIRON) {
                /* The caller's strings are left as they were: a pointer kept into them stays
                 * valid. */
                environ = TAKE_PTR(envp);
        }
        if (diag)
                snprintf(diag->message, sizeof(diag->message), "%s", w.text);
        return 0;
}
