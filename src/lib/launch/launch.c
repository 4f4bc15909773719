/* Choosing the backend and the hardening layers for a policy, and preparing them in the
 * supervisor. Profiles decide which layers are wanted; the fallback setting decides what a
 * missing mechanism means for the worktree profile; os_hardened always insists. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/launch/backend-auto.h"
#include "lib/launch/backend.h"
#include "lib/launch/launch-internal.h"
#include "lib/launch/net-mode-hooks.h"
#include "lib/launch/net-proxied.h"
#include "lib/policy/diag.h"
#include "lib/resolve/host-action.h"
#include "lib/launch/launch.h"
#include "lib/launch/mail-shadow.h"
#include "lib/supervisor/notify-fs.h"
#include "lib/mech/ns-limits.h"
#include "lib/mech/seccomp-notify.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

_printf_(2, 3) static void warn(const struct cordon_launch *l, const char *fmt, ...)
{
        char buf[512];
        va_list ap;

        if (!l->warn)
                return;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        l->warn(l->userdata, buf);
}

const char *cordon_landlock_missing_reason(int abi)
{
        if (abi == -ENOSYS)
                return "this kernel was built without Landlock";
        if (abi == -EOPNOTSUPP)
                return "Landlock is built in but not enabled at boot (add landlock to lsm=)";
        return strerror(-abi);
}

int cordon_launch_layer_missing(struct cordon_launch *l, bool *layer, const char *what,
                                struct cordon_diag *diag)
{
        const struct cordon_policy *p = l->p;
        if (p->profile == CORDON_PROFILE_OS_HARDENED)
                return cordon_diag_set(diag, -EOPNOTSUPP, "%s; the os_hardened profile requires it",
                                       what);
        if (p->fallback == CORDON_FALLBACK_ENFORCE)
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "%s (CORDON_HANDLER_SANDBOX=warn runs without it)", what);
        warn(l, "%s; running without it (CORDON_HANDLER_SANDBOX=warn)", what);
        *layer = false;
        return 0;
}

static void limits_clear(struct cordon_launch *l)
{
        if (!l->limits)
                return;
        /* Opened only together with the state (before that they may be 0s). */
        for (size_t i = 0; i < ELEMENTSOF(l->cgroup_fds); i++)
                l->cgroup_fds[i] = safe_close(l->cgroup_fds[i]);
        (void)cordon_limits_cleanup(l->limits);
        free(l->limits);
        l->limits = NULL;
}

/* The resource limits: a mechanism for each, and the cgroup.procs files the child writes itself
 * into before anything else (so nothing it starts is ever outside), opened here. */
static int prepare_limits(struct cordon_launch *l, struct cordon_diag *diag)
{
        struct cordon_limits loose = l->p->limits;
        const struct cordon_limits *lim = &l->p->limits;
        l->pid_max = 0;
        if (lim->pids && lim->pids_loose &&
            cordon_backend_ops(l->backend)->pid_max_for_loose_pids &&
            cordon_ns_pid_max_available()) {
                l->pid_max = cordon_ns_pid_max_for(lim->pids);
                loose.pids = 0;
                lim = &loose;
        }
        /* SANDBOX_NPROC_LIMIT is RLIMIT_NPROC (child-steps.c), which copy_process() never
         * applies to the real uid 0 (INIT_USER): for root the sandbox's pids cgroup carries it
         * (the smaller of it and PIDS_LIMIT), and without one the start is refused. The cgroup
         * counts the sandbox's tasks, not every process of the uid: for root that is the only
         * bound there is. */
        uint64_t nproc = l->p->nproc_limit;
        bool nproc_cgroup = nproc && getuid() == 0;
        l->nproc_mech = nproc ? CORDON_LIMIT_RLIMIT : CORDON_LIMIT_NONE;
        l->nproc_pids_only = nproc_cgroup && !lim->pids;
        if (nproc_cgroup) {
                loose.pids = lim->pids && lim->pids < nproc ? lim->pids : nproc;
                lim = &loose;
        }
        if (!lim->memory_bytes && !lim->pids && !lim->cpus && !l->p->cgroup_path)
                return 0;
        l->limits = calloc(1, sizeof(*l->limits));
        if (!l->limits)
                return -ENOMEM;
        int r = l->dry_run ? cordon_limits_plan(lim, l->p->cgroup_path, l->limits, diag)
                           : cordon_limits_prepare(lim, l->p->cgroup_path, l->limits, diag);
        enum cordon_limit_mechanism pids = r >= 0 ? l->limits->mechanism[CORDON_LIMIT_PIDS] : 0;
        if (r >= 0 && nproc_cgroup && pids != CORDON_LIMIT_CGROUP2 &&
            pids != CORDON_LIMIT_CGROUP1) {
                (void)cordon_limits_cleanup(l->limits);
                r = cordon_diag_set(diag, -EOPNOTSUPP, "the pids limit got no cgroup");
        }
        if (r < 0) {
                free(l->limits);
                l->limits = NULL;
                if (r != -EOPNOTSUPP || !nproc_cgroup)
                        return r;
                char why[sizeof(diag->message)] = "";
                if (diag)
                        snprintf(why, sizeof(why), "%s", diag->message);
                return cordon_diag_set(diag, r,
                                       "SANDBOX_NPROC_LIMIT=%" PRIu64 " cannot be enforced for "
                                       "uid 0: the kernel does not apply RLIMIT_NPROC to uid 0, "
                                       "and no pids cgroup can carry it here (%s)",
                                       nproc, *why ? why : strerror(-r));
        }
        if (nproc_cgroup)
                l->nproc_mech = pids;
        if (l->dry_run)
                return 0;
        size_t n = 0;
        const char *dirs[1 + _CORDON_LIMIT_KIND_MAX] = {l->limits->v2_dir};
        _Static_assert(ELEMENTSOF(dirs) <= ELEMENTSOF(l->cgroup_fds), "a cgroup.procs fd per dir");
        for (size_t k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                dirs[1 + k] = l->limits->v1_dir[k];
        for (size_t i = 0; i < ELEMENTSOF(dirs) && n < ELEMENTSOF(l->cgroup_fds); i++) {
                if (!*dirs[i])
                        continue;
                bool seen = false;
                for (size_t j = 0; j < i; j++)
                        seen |= streq(dirs[j], dirs[i]);
                if (seen)
                        continue;
                char path[CORDON_LIMITS_PATH_MAX + 16];
                snprintf(path, sizeof(path), "%s/cgroup.procs", dirs[i]);
                l->cgroup_fds[n] = open(path, O_WRONLY | O_CLOEXEC);
                if (l->cgroup_fds[n] < 0)
                        return cordon_diag_set(diag, -errno, "cannot open '%s': %m", path);
                n++;
        }
        return 0;
}

/* The command's environment with @vars (NAME=VALUE) set: the launch's own copy, made from the
 * policy's on first use; an earlier value of each name is replaced. */
static int launch_setenv(struct cordon_launch *l, const char *const *vars, size_t n)
{
        _cleanup_strv_free_ char **envp = NULL;
        STRV_FOREACH (e, l->envp ?: l->p->envp) {
                bool replaced = false;
                for (size_t i = 0; i < n && !replaced; i++)
                        replaced = strncmp(*e, vars[i], strcspn(vars[i], "=") + 1) == 0;
                if (!replaced && strv_extend(&envp, *e) < 0)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                if (strv_extend(&envp, vars[i]) < 0)
                        return -ENOMEM;
        strv_free(l->envp);
        l->envp = TAKE_PTR(envp);
        return 0;
}

bool cordon_launch_tmp_writable(const struct cordon_policy *p)
{
        const struct cordon_fs_rule *t = cordon_policy_find_fs(p, "/tmp");
        return !t || t->access == CORDON_ACCESS_RW ||
               (t->access == CORDON_ACCESS_TMPFS && !(t->flags & CORDON_FS_SEAL));
}

bool cordon_launch_has_tmpdir(const struct cordon_launch *l)
{
        /* Asked of a launch prepared or failed: before its backend was chosen, none. */
        const struct cordon_backend_ops *ops = cordon_backend_ops(l->backend);
        return ops && ops->private_tmpdir &&
               (l->tmpdir || (l->dry_run && l->p && cordon_launch_tmp_writable(l->p)));
}

/* Proxied mode: the command is pointed at the proxy (127.0.0.1:@l->proxy_port), in both
 * spellings tools read; whatever proxy the caller's environment named is replaced (it would not
 * be reachable anyway). */
static int set_proxy_env(struct cordon_launch *l)
{
        static const struct {
                const char *name, *scheme;
        } forms[] = {
            {"HTTP_PROXY", "http"},  {"http_proxy", "http"},   {"HTTPS_PROXY", "http"},
            {"https_proxy", "http"}, {"ALL_PROXY", "socks5h"}, {"all_proxy", "socks5h"},
        };
        char buf[ELEMENTSOF(forms)][64];
        const char *vars[ELEMENTSOF(forms) + 2];
        if (!cordon_net_mode_traits(l->net_mode)->proxy)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(forms); i++) {
                snprintf(buf[i], sizeof(buf[i]), "%s=%s://127.0.0.1:%u", forms[i].name,
                         forms[i].scheme, (unsigned)l->proxy_port);
                vars[i] = buf[i];
        }
        vars[ELEMENTSOF(forms)] = "NO_PROXY=localhost,127.0.0.1,::1";
        vars[ELEMENTSOF(forms) + 1] = "no_proxy=localhost,127.0.0.1,::1";
        return launch_setenv(l, vars, ELEMENTSOF(vars));
}

/* What the command is told of its sandbox, as this launch decided it: SANDBOX_BACKEND,
 * SANDBOX_PROFILE and SANDBOX_NETWORK_MODE, each rewritten where the policy's environment
 * names it with another value (cordon_settings_resolve() puts all three there, with what the
 * settings asked for; a policy built by hand without them gets none). */
static int set_launch_facts(struct cordon_launch *l)
{
        const char *const facts[][2] = {
            {"SANDBOX_BACKEND", cordon_backend_to_string(l->backend)},
            {"SANDBOX_PROFILE", cordon_profile_to_string(l->p->profile)},
            {"SANDBOX_NETWORK_MODE", cordon_net_mode_to_string(l->net_mode)},
        };
        char buf[ELEMENTSOF(facts)][64];
        const char *vars[ELEMENTSOF(facts)];
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(facts); i++) {
                size_t len = strlen(facts[i][0]);
                STRV_FOREACH (e, l->envp ?: l->p->envp) {
                        if (strncmp(*e, facts[i][0], len) != 0 || (*e)[len] != '=')
                                continue;
                        if (!streq(*e + len + 1, strempty(facts[i][1]))) {
                                snprintf(buf[n], sizeof(buf[n]), "%s=%s", facts[i][0],
                                         strempty(facts[i][1]));
                                vars[n] = buf[n];
                                n++;
                        }
                        break;
                }
        }
        return n ? launch_setenv(l, vars, n) : 0;
}

/* The launch's own environment, built again for every backend and mode decided: the landlock
 * backend's TMPDIR (the command sees the host's /tmp as denied), what the command is told of
 * its sandbox (set_launch_facts()), the proxy's variables; NULL when the policy's serves as
 * it is. */
static int build_env(struct cordon_launch *l)
{
        const struct cordon_backend_ops *ops = cordon_backend_ops(l->backend);
        l->envp = strv_free(l->envp);
        if (ops->private_tmpdir && l->tmpdir) {
                _cleanup_free_ char *var = NULL;
                _cleanup_free_ char *tmux = NULL;
                if (asprintf(&var, "TMPDIR=%s", l->tmpdir) < 0)
                        return -ENOMEM;
                /* tmux puts its server's socket in $TMUX_TMPDIR, else /tmp/tmux-UID: the
                 * user's own server, which Landlock would keep out of reach anyway (a server
                 * started inside could not make its socket there either). */
                if (asprintf(&tmux, "TMUX_TMPDIR=%s", l->tmpdir) < 0)
                        return -ENOMEM;
                int r = launch_setenv(l, (const char *const[]){var, tmux}, 2);
                if (r < 0)
                        return r;
        }
        /* The variables of the configuration copies and package caches (the landlock
         * backend's, where no mount puts them at the tools' own paths; the ns backend's
         * writable twins of the copies it binds read-only). Before the mail stubs' PATH,
         * which only a backend without mounts has. */
        if (ops->config_env) {
                _cleanup_strv_free_ char **vars = NULL;
                int r = ops->config_env(l, &vars);
                if (r < 0 || (vars && (r = launch_setenv(l, (const char *const *)vars,
                                                         strv_length(vars))) < 0))
                        return r;
        }
        /* NETWORK_MAIL_BLOCK's and Slurm's stubs first on PATH. */
        _cleanup_free_ char *path = NULL;
        int k = cordon_mail_shadow_path(l, l->envp ?: l->p->envp, &path);
        if (k < 0 || (path && (k = launch_setenv(l, (const char *const[]){path}, 1)) < 0))
                return k;
        /* The chaperon's doorbell. */
        _cleanup_free_ char *slurm = NULL;
        if ((k = cordon_chaperon_env(l, &slurm)) < 0 ||
            (slurm && (k = launch_setenv(l, (const char *const[]){slurm}, 1)) < 0))
                return k;
        int r = set_launch_facts(l);
        return r < 0 ? r : set_proxy_env(l);
}

/* Everything that depends on the backend: the Landlock plan, the socket rule of the seccomp
 * filter, and the backend's own part through its table (backend.h: the landlock backend's
 * refusals, TMPDIR, network stand-in and ruleset, launch-landlock.c). */
static int prepare_backend(struct cordon_launch *l, struct cordon_diag *diag)
{
        const struct cordon_backend_ops *ops = cordon_backend_ops(l->backend);
        const struct cordon_policy *p = l->p;
        int r;

        bool resolve_unix = false;
        cordon_bpf_clear(&l->bpf);
        cordon_landlock_plan_clear(&l->ll);
        l->seccomp_key.notify = false;

        /* The network mode's own (filtered: pasta needs the ns backend; the ruleset). */
        const struct cordon_net_mode_hooks *hooks = cordon_net_mode_hooks(l->net_mode);
        if (hooks->prepare && (r = hooks->prepare(l, diag)) < 0)
                return r;

        /* The backend's own: what it refuses, its TMPDIR, its stand-in for a network
         * namespace. */
        if (ops->prepare_launch && (r = ops->prepare_launch(l, &resolve_unix, diag)) < 0)
                return r;

        if (l->landlock) {
                r = cordon_landlock_plan_build(p, l->backend, l->landlock_abi, &l->ll);
                if (r < 0)
                        return cordon_diag_set(diag, r, "failed to plan the Landlock rules: %s",
                                               strerror(-r));
                cordon_landlock_plan_set_net(&l->ll, l->net_mode, l->proxy_port, resolve_unix);
                /* Placed where no grant of the plan lets the command write, and read-only. */
                if ((r = cordon_mail_shadow_prepare(l, diag)) < 0)
                        return r;
        }
        if (ops->prepare_ruleset && (r = ops->prepare_ruleset(l, resolve_unix, diag)) < 0)
                return r;
        /* Without the Landlock layer nothing is confined: the stubs are only the message. */
        if (!l->landlock && (r = cordon_mail_shadow_prepare(l, diag)) < 0)
                return r;

        if ((r = build_env(l)) < 0)
                return r;
        if (l->seccomp || l->seccomp_key.net != CORDON_SECCOMP_NET_ANY) {
                l->seccomp_key.tier =
                    l->seccomp ? CORDON_SECCOMP_TIER_FULL : CORDON_SECCOMP_TIER_NET_ONLY;
                r = cordon_seccomp_build(&l->seccomp_key, &l->bpf);
                if (r < 0)
                        return cordon_diag_set(diag, r, "failed to build the seccomp filter: %s",
                                               strerror(-r));
        }
        return 0;
}

/* What an `auto` launch gives up by taking the landlock backend, for its warning: the rules of
 * @p only a mount namespace can give (read-only files inside writable directories, generated
 * files such as the filtered passwd); "" when there are none. */
static void landlock_drops(const struct cordon_policy *p, char *buf, size_t n)
{
        size_t ro_inside = 0, generated = 0;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                if (r->flags & CORDON_FS_NS_ONLY)
                        ro_inside++;
                else if (r->access == CORDON_ACCESS_DATA &&
                         !(r->flags & (CORDON_FS_DNS | CORDON_FS_CONFIG_COPY)))
                        generated++; /* the resolv.conf goes with the filtered mode anyway, the
                                      * configuration copies are named in variables */
        }
        *buf = 0;
        if (ro_inside || generated)
                snprintf(buf, n,
                         ", which leaves out %zu read-only file(s) inside writable directories "
                         "(.git/config, hooks, agent settings) and %zu generated file(s) (the "
                         "filtered passwd and group)",
                         ro_inside, generated);
}

/* The delivered network mode, for the backend now chosen; a weaker fallback is warned about.
 * Decided @again after the `prepared` callback (a start that fell back), a stricter mode than
 * the one before is warned about too: the banner has told of the other. */
static int decide_net(struct cordon_launch *l, bool again, struct cordon_diag *diag)
{
        const struct cordon_backend_ops *ops = cordon_backend_ops(l->backend);
        enum cordon_net_mode before = l->net_mode;
        const struct cordon_net_host host = {.landlock_abi = l->landlock_abi,
                                             .seccomp = l->probe_seccomp(),
                                             .notify = ops->notify && ops->notify(l)};
        int r = cordon_net_decide(l->p, l->backend, &host, l->probe_filtered, l->filtered_failed,
                                  &l->net_mode, l->net_note, sizeof(l->net_note), diag);
        /* A weaker network than asked for is always a warning; a stricter one takes nothing
         * away and is told in the report (and the banner). */
        if (r >= 0 && *l->net_note &&
            (l->net_mode < l->p->net_mode || (again && !l->dry_run && l->net_mode > before)))
                warn(l, "%s", l->net_note);
        return r;
}

/* The socket rule of the seccomp filter, from the delivered mode and the side-effect level. */
static int net_seccomp_rule(struct cordon_launch *l, struct cordon_diag *diag)
{
        const struct cordon_policy *p = l->p;
        /* The socket families a network namespace cannot confine (AF_VSOCK...) are part of the
         * seccomp layer. */
        l->seccomp_key.net =
            l->seccomp ? cordon_net_mode_hooks(l->net_mode)->seccomp_rule : CORDON_SECCOMP_NET_ANY;
        /* A side-effect ceiling below `network` is a restriction the policy asked for, not a
         * hardening layer: its socket rule is applied whatever the profile or the fallback says
         * about the layers (as a filter with the network rules only when they are off), and a
         * kernel without seccomp cannot run it. */
        if (p->side_effect_level < CORDON_SIDE_EFFECT_NETWORK) {
                if (!l->seccomp && !l->probe_seccomp())
                        return cordon_diag_set(
                            diag, -EOPNOTSUPP,
                            "the side-effect level %s refuses the network with seccomp, which "
                            "this kernel does not offer",
                            cordon_side_effect_to_string(p->side_effect_level));
                l->seccomp_key.net =
                    cordon_seccomp_net_stricter(l->seccomp_key.net, CORDON_SECCOMP_NET_NONE);
        }

        return 0;
}

int cordon_launch_prepare(const struct cordon_policy *p, struct cordon_launch *l,
                          struct cordon_diag *diag)
{
        struct cordon_launch keep = *l;
        int r;

        *l = (struct cordon_launch){
            .p = p,
            .cgroup_fds = {-EBADF, -EBADF, -EBADF, -EBADF},
            .pasta = CORDON_PASTA_NONE,
            .proxy_fd = -EBADF,
            .slurm = {.fd = {-EBADF, -EBADF}},
            .dry_run = keep.dry_run,
            .self = keep.self,
            .warn = keep.warn,
            .userdata = keep.userdata,
            .probe_landlock = keep.probe_landlock ?: cordon_landlock_abi,
            .probe_seccomp = keep.probe_seccomp ?: cordon_seccomp_available,
            .probe_notify = keep.probe_notify ?: cordon_seccomp_notify_available,
            .shm_dirfd = -EBADF,
            .probe_filtered = keep.probe_filtered ?: cordon_pasta_filtered_probe,
        };

        if (!cordon_net_mode_traits(p->net_mode))
                return cordon_diag_set(diag, -EINVAL, "unknown network mode %d", (int)p->net_mode);
        if (p->profile == CORDON_PROFILE_WASI)
                return cordon_diag_set(diag, -EINVAL,
                                       "the wasi profile is enforced by a WASI runtime; cordon "
                                       "cannot start a host process under it");
        /* Before the environment is built: it names the doorbell. */
        if (!l->dry_run && !l->self && (r = cordon_chaperon_prepare(l, p, diag)) < 0)
                return r;

        if (p->landlock_only && p->backend != CORDON_BACKEND_LANDLOCK)
                return cordon_diag_set(diag, -EPERM,
                                       "the policy was resolved for the landlock backend and lacks "
                                       "the %s backend's rules",
                                       cordon_backend_to_string(p->backend));
        l->landlock_abi = l->probe_landlock();
        switch (p->backend) {
        case CORDON_BACKEND_NS:
        case CORDON_BACKEND_LANDLOCK:
                l->backend = p->backend;
                break;
        default: {
                /* The decision `cordon doctor` reports; without a probe it is never -EOPNOTSUPP. */
                struct cordon_backend_facts facts;
                cordon_backend_facts_read(l->landlock_abi, &facts);
                l->backend = cordon_backend_auto_decide(&facts, &l->auto_backend);
                if (l->backend == CORDON_BACKEND_LANDLOCK) {
                        char drops[256];
                        landlock_drops(p, drops, sizeof(drops));
                        warn(l,
                             "AppArmor restricts unprivileged user namespaces here "
                             "(kernel.apparmor_restrict_unprivileged_userns=1); using the "
                             "landlock backend%s",
                             drops);
                }
        }
        }

        bool layers =
            p->profile != CORDON_PROFILE_UNRESTRICTED &&
            !(p->profile == CORDON_PROFILE_WORKTREE && p->fallback == CORDON_FALLBACK_OFF);
        if (!layers && p->profile == CORDON_PROFILE_WORKTREE)
                warn(l, "CORDON_HANDLER_SANDBOX=off: Landlock and seccomp are not applied");
        l->landlock = l->seccomp = layers;

        if (l->landlock && l->landlock_abi <= 0) {
                char what[256];
                snprintf(what, sizeof(what), "Landlock is unavailable: %s",
                         cordon_landlock_missing_reason(l->landlock_abi));
                if ((r = cordon_launch_layer_missing(l, &l->landlock, what, diag)) < 0)
                        return r;
        }
        if (l->seccomp && !l->probe_seccomp() &&
            (r = cordon_launch_layer_missing(
                 l, &l->seccomp, "seccomp filters are unavailable on this kernel", diag)) < 0)
                return r;
        if ((r = decide_net(l, false, diag)) < 0 || (r = net_seccomp_rule(l, diag)) < 0)
                return r;

        /* What lowering planned for the host (placeholders, HOME_WRITABLE directories), before
         * anything opens the paths; the layers are decided, so a refused run creates nothing. */
        if (!l->dry_run &&
            (r = cordon_policy_apply_record(p, l->warn, l->userdata,
                                            p->cleanup_materialized ? &l->created : NULL,
                                            &l->n_created, &l->created_note, diag)) < 0)
                return r;
        /* The agents' homes link to their state, made by the host actions above. */
        if (!l->dry_run &&
            (r = cordon_agent_homes_make(p, &l->agent_homes, l->warn, l->userdata, diag)) < 0)
                return r;
        if ((r = prepare_limits(l, diag)) < 0)
                return r;
        return prepare_backend(l, diag);
}

int cordon_launch_fall_back(struct cordon_launch *l, const char *why, struct cordon_diag *diag)
{
        if (l->landlock_abi <= 0)
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "user namespaces are unavailable here (%s) and the landlock "
                                       "backend cannot run either: %s",
                                       why, cordon_landlock_missing_reason(l->landlock_abi));
        char drops[256];
        landlock_drops(l->p, drops, sizeof(drops));
        warn(l, "user namespaces are unavailable here (%s); using the landlock backend%s", why,
             drops);
        snprintf(l->backend_note, sizeof(l->backend_note),
                 "auto: user namespaces are unavailable here (%s)", why);
        l->backend = CORDON_BACKEND_LANDLOCK;
        l->auto_backend = false;
        int r;
        /* No pid namespace now: a loose pids bound goes to a cgroup or RLIMIT_NPROC. */
        if (l->pid_max) {
                limits_clear(l);
                if ((r = prepare_limits(l, diag)) < 0)
                        return r;
        }
        r = decide_net(l, true, diag);
        if (r < 0 || (r = net_seccomp_rule(l, diag)) < 0)
                return r;
        return prepare_backend(l, diag);
}

int cordon_launch_net_fall_back(struct cordon_launch *l, const char *why, struct cordon_diag *diag)
{
        snprintf(l->filtered_failed, sizeof(l->filtered_failed), "pasta failed to start: %s", why);
        /* The banner has told of filtered already: a change after it is always said. */
        int r = decide_net(l, true, diag);
        if (r < 0 || (r = net_seccomp_rule(l, diag)) < 0)
                return r;
        return prepare_backend(l, diag);
}

void cordon_launch_cleanup_materialized(struct cordon_launch *l)
{
        if (!l->created)
                return;
        (void)cordon_host_cleanup_materialized(l->created, l->n_created, l->warn, l->userdata);
        cordon_host_created_free(l->created, l->n_created);
        l->created = NULL;
        l->n_created = 0;
}

void cordon_launch_clear(struct cordon_launch *l)
{
        cordon_chaperon_clear(l);
        free(l->created_note);
        l->created_note = NULL;
        cordon_agent_homes_clear(&l->agent_homes);
        cordon_host_created_free(l->created, l->n_created);
        l->created = NULL;
        l->n_created = 0;
        /* pasta first: nothing of the sandbox's network outlives it. */
        cordon_pasta_stop(&l->pasta);
        cordon_net_proxied_teardown(l);
        cordon_nft_plan_clear(&l->nft);
        limits_clear(l);
        cordon_bpf_clear(&l->bpf);
        cordon_landlock_plan_clear(&l->ll);
        cordon_mail_shadow_remove(l);
        if (l->tmpdir) {
                /* Most commands leave it empty: one rmdir, no walk. */
                remove_tree_physical(l->tmpdir);
                free(l->tmpdir);
                l->tmpdir = NULL;
        }
        if (l->shm_dir) {
                cordon_shm_dir_remove(l->shm_dirfd, l->shm_dir);
                safe_close(l->shm_dirfd);
                free(l->shm_dir);
                l->shm_dir = NULL;
                l->shm_dirfd = -EBADF;
        }
        l->envp = strv_free(l->envp);
}
