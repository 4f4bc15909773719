/* The launcher pipeline: clone into new namespaces, build the filesystem view, drop privileges,
 * exec under a small PID 1, and supervise until the command exits. The child reports the first
 * failure as {step, errno, rule} on a close-on-exec pipe; end-of-file means exec succeeded. */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/caps.h"
#include "lib/diag.h"
#include "lib/keyring.h"
#include "lib/ns-mount.h"
#include "lib/ns-net.h"
#include "lib/ns-user.h"
#include "lib/pid1.h"
#include "lib/policy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

extern char **environ;

struct child_report {
        int32_t step;
        int32_t err;
        int32_t rule;
};

struct child_ctx {
        const struct cordon_policy *p;
        struct cordon_mount_plan *plan;
        char *const *argv;
        int report_fd;
        int lifeline_fd;
        sigset_t forward;
};

_Noreturn static void child_fail(const struct child_ctx *c, int step, int err, int rule, int code)
{
        struct child_report rep = {.step = step, .err = err < 0 ? -err : err, .rule = rule};
        (void)write_all(c->report_fd, &rep, sizeof(rep));
        _exit(code);
}

_Noreturn static void exec_command(const struct child_ctx *c)
{
        sigset_t empty;
        sigemptyset(&empty);
        sigprocmask(SIG_SETMASK, &empty, NULL);
        if (c->p->process.new_session && setsid() < 0)
                child_fail(c, CORDON_STEP_PROCESS, errno, -1, 125);
        if (c->p->cwd && chdir(c->p->cwd) < 0)
                child_fail(c, CORDON_STEP_CHDIR, errno, -1, 125);
        environ = c->p->envp;
        execvp(c->argv[0], c->argv);
        child_fail(c, CORDON_STEP_EXEC, errno, -1, errno == ENOENT ? 127 : 126);
}

_Noreturn static void child_main(const struct child_ctx *c)
{
        const struct cordon_policy *p = c->p;
        int r, step, rule = -1;

        /* Die with the supervisor; the lifeline pipe catches a supervisor that died before the
         * death signal was armed (its write end is only held there). */
        if (p->process.die_with_parent) {
                if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                        child_fail(c, CORDON_STEP_PROCESS, errno, -1, 125);
                struct pollfd pfd = {.fd = c->lifeline_fd, .events = POLLIN};
                if (poll(&pfd, 1, 0) > 0)
                        _exit(125);
        }
        if (p->process.close_fds) {
                int keep[] = {c->report_fd, c->lifeline_fd};
                if ((r = close_all_fds_except(keep, ELEMENTSOF(keep))) < 0)
                        child_fail(c, CORDON_STEP_PROCESS, r, -1, 125);
        }
        if ((r = cordon_ns_user_write_maps(p->identity.uid, p->identity.gid)) < 0)
                child_fail(c, CORDON_STEP_USERNS, r, -1, 125);
        /* The original environment block still holds every variable the supervisor saw. */
        if ((r = cordon_pid1_scrub_environ()) < 0)
                child_fail(c, CORDON_STEP_PROCESS, r, -1, 125);
        if ((r = cordon_mount_plan_execute(c->plan, p, &step, &rule)) < 0)
                child_fail(c, step, r, rule, 125);
        if (p->identity.hostname && (r = cordon_ns_uts_set_hostname(p->identity.hostname)) < 0)
                child_fail(c, CORDON_STEP_HOSTNAME, r, -1, 125);
        if (p->net_mode != CORDON_NET_OPEN && (r = cordon_ns_net_loopback_up()) < 0)
                child_fail(c, CORDON_STEP_NETWORK, r, -1, 125);
        if ((r = cordon_keyring_detach()) < 0)
                child_fail(c, CORDON_STEP_KEYRING, r, -1, 125);
        /* Nothing inside may read PID 1's memory or /proc/1/environ, or ptrace it. */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                child_fail(c, CORDON_STEP_PROCESS, errno, -1, 125);
        if (p->process.drop_capabilities && (r = cordon_caps_drop_all()) < 0)
                child_fail(c, CORDON_STEP_CAPS, r, -1, 125);
        if (p->process.no_new_privs && (r = cordon_caps_set_no_new_privs()) < 0)
                child_fail(c, CORDON_STEP_NNP, r, -1, 125);

        pid_t cmd = fork();
        if (cmd < 0)
                child_fail(c, CORDON_STEP_FORK, errno, -1, 125);
        if (cmd == 0)
                exec_command(c);
        safe_close(c->report_fd);
        safe_close(c->lifeline_fd);
        cordon_pid1_run(cmd, &c->forward);
}

static unsigned long clone_flags(const struct cordon_policy *p)
{
        unsigned long f = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                          CLONE_NEWCGROUP;
        if (p->net_mode != CORDON_NET_OPEN)
                f |= CLONE_NEWNET;
        return f;
}

static void describe_failure(const struct cordon_policy *p, const struct child_report *rep,
                             char *const *argv, struct cordon_diag *diag)
{
        const struct cordon_fs_rule *r =
            rep->rule >= 0 && (size_t)rep->rule < p->n_fs ? &p->fs[rep->rule] : NULL;
        const char *err = strerror(rep->err);
        const char *what =
            r ? (r->host && cordon_access_is_bind(r->access) ? r->host : r->guest) : "";

        if (diag)
                diag->step = (enum cordon_step)rep->step;
        switch (rep->step) {
        case CORDON_STEP_USERNS:
                cordon_diag_set(diag, 0, "failed to write the user namespace id maps: %s", err);
                break;
        case CORDON_STEP_OPEN:
                cordon_diag_set(diag, 0, "failed to open '%s': %s", what, err);
                break;
        case CORDON_STEP_ROOT:
                cordon_diag_set(diag, 0, "failed to mount the sandbox root: %s", err);
                break;
        case CORDON_STEP_MOUNTPOINT:
                cordon_diag_set(diag, 0, "failed to create mount point '%s': %s", r ? r->guest : "",
                                err);
                break;
        case CORDON_STEP_MOUNT:
                if (r && cordon_access_is_bind(r->access))
                        cordon_diag_set(diag, 0, "failed to bind '%s': %s", what, err);
                else
                        cordon_diag_set(diag, 0, "failed to mount %s on '%s': %s",
                                        r ? cordon_access_to_string(r->access) : "tmpfs",
                                        r ? r->guest : "/", err);
                break;
        case CORDON_STEP_MASK:
                cordon_diag_set(diag, 0, "failed to mask '%s': %s", r ? r->guest : "", err);
                break;
        case CORDON_STEP_PIVOT:
                cordon_diag_set(diag, 0, "failed to switch to the sandbox root: %s", err);
                break;
        case CORDON_STEP_HOSTNAME:
                cordon_diag_set(diag, 0, "failed to set the hostname: %s", err);
                break;
        case CORDON_STEP_NETWORK:
                cordon_diag_set(diag, 0, "failed to bring up the loopback interface: %s", err);
                break;
        case CORDON_STEP_KEYRING:
                cordon_diag_set(diag, 0, "failed to leave the session keyring: %s", err);
                break;
        case CORDON_STEP_CAPS:
                cordon_diag_set(diag, 0, "failed to drop capabilities: %s", err);
                break;
        case CORDON_STEP_NNP:
                cordon_diag_set(diag, 0, "failed to set no-new-privs: %s", err);
                break;
        case CORDON_STEP_CHDIR:
                cordon_diag_set(diag, 0, "failed to change directory to '%s': %s", strempty(p->cwd),
                                err);
                break;
        case CORDON_STEP_FORK:
                cordon_diag_set(diag, 0, "failed to start the command: %s", err);
                break;
        case CORDON_STEP_EXEC:
                cordon_diag_set(diag, 0, "failed to execute '%s': %s", argv[0], err);
                break;
        default:
                cordon_diag_set(diag, 0, "failed to set up the sandbox: %s", err);
        }
}

_public_ int cordon_spawn(const struct cordon_policy *p, char *const *argv, int *ret_status,
                          struct cordon_diag *diag)
{
        int r;

        if (diag)
                diag->step = CORDON_STEP_PREPARE;
        if (!argv || !argv[0])
                return cordon_diag_set(diag, -EINVAL, "no command given");
        r = cordon_policy_validate(p, diag);
        if (r < 0)
                return r;

        struct cordon_mount_plan plan = {0};
        r = cordon_mount_plan_build(p, &plan);
        if (r < 0)
                return cordon_diag_set(diag, r, "failed to plan the mounts: %s", strerror(-r));

        int report[2] = {-EBADF, -EBADF}, lifeline[2] = {-EBADF, -EBADF};
        if (pipe2(report, O_CLOEXEC) < 0 || pipe2(lifeline, O_CLOEXEC) < 0) {
                r = cordon_diag_set(diag, -errno, "failed to create a pipe: %m");
                goto out;
        }

        struct child_ctx ctx = {
            .p = p,
            .plan = &plan,
            .argv = argv,
            .report_fd = report[1],
            .lifeline_fd = lifeline[0],
        };
        sigemptyset(&ctx.forward);
        sigaddset(&ctx.forward, SIGINT);
        sigaddset(&ctx.forward, SIGTERM);
        sigaddset(&ctx.forward, SIGHUP);
        sigaddset(&ctx.forward, SIGQUIT);
        sigset_t block = ctx.forward, saved;
        sigaddset(&block, SIGCHLD);
        sigprocmask(SIG_BLOCK, &block, &saved);

        if (diag)
                diag->step = CORDON_STEP_CLONE;
        pid_t pid = (pid_t)syscall(SYS_clone, clone_flags(p) | SIGCHLD, NULL, NULL, NULL, 0);
        if (pid < 0) {
                r = cordon_diag_set(
                    diag, -errno,
                    "failed to create the sandbox namespaces: %m (see 'cordon doctor')");
                sigprocmask(SIG_SETMASK, &saved, NULL);
                goto out;
        }
        if (pid == 0) {
                report[0] = safe_close(report[0]);
                lifeline[1] = safe_close(lifeline[1]);
                child_main(&ctx);
        }
        report[1] = safe_close(report[1]);
        lifeline[0] = safe_close(lifeline[0]);

        struct child_report rep;
        ssize_t n;
        do
                n = read(report[0], &rep, sizeof(rep));
        while (n < 0 && errno == EINTR);

        int status = 0;
        if (n == (ssize_t)sizeof(rep)) {
                describe_failure(p, &rep, argv, diag);
                r = rep.err > 0 ? -rep.err : -EIO;
                (void)cordon_wait_forwarding(pid, &ctx.forward, false, &status);
        } else {
                if (diag)
                        diag->step = CORDON_STEP_NONE;
                r = cordon_wait_forwarding(pid, &ctx.forward, false, &status);
                if (r < 0)
                        cordon_diag_set(diag, r, "failed to wait for the sandbox: %s",
                                        strerror(-r));
                else
                        *ret_status = status;
        }
        sigprocmask(SIG_SETMASK, &saved, NULL);
out:
        safe_close(report[0]);
        safe_close(report[1]);
        safe_close(lifeline[0]);
        safe_close(lifeline[1]);
        cordon_mount_plan_clear(&plan);
        return r;
}
