/* The plan of a launch as text: the policy's mounts, environment and host actions, and the
 * backend, layers and limits cordon_launch_prepare() decided for it. In the launcher, not the
 * policy: it renders the launch's decisions and makes them (cordon_sandbox_plan()). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/launch/backend.h"
#include "lib/launch/landlock-env.h"
#include "lib/launch/launch.h"
#include "lib/launch/plan-describe.h"
#include "lib/mech/ns-user.h"
#include "lib/policy/policy.h"
#include "lib/resolve/mail-stub.h"
#include "shared/macro.h"
#include "shared/strv.h"

static void describe_layers(FILE *f, const struct cordon_launch *l)
{
        if (*l->backend_note)
                fprintf(f, "backend: %s (%s)\n", cordon_backend_to_string(l->backend),
                        l->backend_note);
        else
                fprintf(f, "backend: %s%s\n", cordon_backend_to_string(l->backend),
                        l->auto_backend ? " (auto: the landlock backend if user namespaces turn "
                                          "out to be unavailable)"
                                        : "");
        fputs("layers:", f);
        if (l->landlock)
                fprintf(f, " landlock (ABI %d)", l->landlock_abi);
        if (l->seccomp)
                fputs(" seccomp", f);
        else if (l->seccomp_key.net != CORDON_SECCOMP_NET_ANY)
                fputs(" seccomp (network rules only)", f);
        if (!l->landlock && !l->seccomp && l->seccomp_key.net == CORDON_SECCOMP_NET_ANY)
                fputs(" none", f);
        fputc('\n', f);
}

/* The mode the launch will deliver, decided as the start decides it (net-decide.c): when it is
 * not the one asked for, the fallback and why. */
static void describe_network(FILE *f, const struct cordon_policy *p, const struct cordon_launch *l)
{
        const char *how = "";
        if (l->net_mode == CORDON_NET_ISOLATED)
                how = cordon_backend_ops(l->backend)->net_ns
                          ? ", a network namespace with loopback only"
                          : ", socket() refused by seccomp";
        /* The landlock backend's open network has no mount view to hide the host's unix
         * sockets: the socket rule keeps them out (launch-landlock.c). */
        if (l->seccomp_key.net == CORDON_SECCOMP_NET_OPEN_UNIX)
                how = l->seccomp_key.notify
                          ? ", unix sockets reach only those the command binds"
                          : ", socket(AF_UNIX) refused by seccomp (no user notification to check "
                            "a connect)";
        if (l->net_mode == p->net_mode)
                fprintf(f, "network: %s (from %s%s)\n", cordon_net_mode_to_string(l->net_mode),
                        strempty(p->net_mode_origin), how);
        else
                fprintf(f, "network: %s (fallback%s: %s)\n", cordon_net_mode_to_string(l->net_mode),
                        how, l->net_note);
}

static void describe_size(FILE *f, const char *name, uint64_t v)
{
        if (v >= (1u << 20) && v % (1u << 20) == 0)
                fprintf(f, " %s=%" PRIu64 "M", name, v >> 20);
        else
                fprintf(f, " %s=%" PRIu64, name, v);
}

static void describe_limits(FILE *f, const struct cordon_policy *p, const struct cordon_launch *l)
{
        const struct cordon_limits *lim = &p->limits;
        const enum cordon_limit_mechanism none[_CORDON_LIMIT_KIND_MAX] = {0};
        const enum cordon_limit_mechanism *m = l->limits ? l->limits->mechanism : none;
        fputs("limits:", f);
        bool any = false;
        if (lim->timeout_usec) {
                fprintf(f, " timeout=%gs", (double)lim->timeout_usec / 1e6);
                any = true;
        }
        if (lim->memory_bytes) {
                describe_size(f, "memory", lim->memory_bytes);
                fprintf(f, " (%s)", cordon_limit_mechanism_to_string(m[CORDON_LIMIT_MEMORY]));
                any = true;
        }
        if (lim->pids) {
                fprintf(f, " pids=%" PRIu64 " (%s)", lim->pids,
                        cordon_limit_mechanism_to_string(m[CORDON_LIMIT_PIDS]));
                any = true;
        }
        if (p->nproc_limit) {
                fprintf(f, " nproc=%" PRIu64 " (%s)", p->nproc_limit,
                        l->nproc_mech == CORDON_LIMIT_RLIMIT
                            ? "rlimit: RLIMIT_NPROC, every process of the uid counts"
                        : l->nproc_mech == CORDON_LIMIT_CGROUP2
                            ? "cgroup2: the sandbox's pids cgroup, since uid 0 is exempt from "
                              "RLIMIT_NPROC"
                            : "cgroup1: the sandbox's pids cgroup, since uid 0 is exempt from "
                              "RLIMIT_NPROC");
                any = true;
        }
        if (lim->cpus) {
                fprintf(f, " cpus=%u (%s)", lim->cpus,
                        cordon_limit_mechanism_to_string(m[CORDON_LIMIT_CPUS]));
                any = true;
        }
        if (lim->tmp_size_bytes) {
                describe_size(f, "tmp-size", lim->tmp_size_bytes);
                any = true;
        }
        if (p->cgroup_path) {
                fprintf(f, " cgroup=%s", p->cgroup_path);
                any = true;
        }
        fputs(any ? "\n" : " none\n", f);
}

/* NETWORK_MAIL_BLOCK as the backend gives it: the ns backend's stubs are in the mounts below;
 * the landlock backend has only the directory of stubs first on PATH. */
static void describe_mail(FILE *f, const struct cordon_policy *p, const struct cordon_launch *l)
{
        if (!p->mail_stub)
                return;
        if (cordon_backend_ops(l->backend)->mount_ns)
                fputs("mail: NETWORK_MAIL_BLOCK: the stub over each mailer of the host and the "
                      "directory of stubs first on PATH (" CORDON_MAIL_STUB_DIR ", below)\n",
                      f);
        else
                fprintf(f,
                        "mail: NETWORK_MAIL_BLOCK: the landlock backend has no mounts, so only "
                        "the mailers called by name are stopped, by a directory of stubs first on "
                        "PATH (%s, read-only inside, removed after the run); one run by its path, "
                        "such as /usr/sbin/sendmail, still runs, and the network rules still "
                        "apply\n",
                        l->mail_dir ? l->mail_dir : "cordon-mail-XXXXXX in /dev/shm");
}

/* Where a configuration copy (TOOL_CONFIG_COPIES) is, and whether the command may write it:
 * the ns backend makes it a plain file on the sandbox's own tmpfs where it can (the tmpwrite
 * home) and binds it read-only elsewhere, with a writable twin on its /tmp named in the tool's
 * variable; the landlock backend writes it into its TMPDIR and names it in the tool's variable,
 * or hands none over. */
static void describe_config_copy(FILE *f, const struct cordon_policy *p, size_t i,
                                 const struct cordon_launch *l)
{
        const char *guest = p->fs[i].guest;
        size_t len = 0;
        bool callers = false;
        const char *twin_var = cordon_config_env_var(p, p->ns_env_files, guest, &len, &callers);
        if (cordon_backend_ops(l->backend)->mount_ns) {
                fputs(cordon_policy_on_own_tmpfs(p, i) ? " [writable, discarded on exit"
                                                       : " [read-only",
                      f);
                if (twin_var && callers)
                        fprintf(f, "; unused: %.*s is the caller's own", (int)len, twin_var);
                else if (twin_var)
                        fprintf(f, "; named by %.*s", (int)len, twin_var);
                fputc(']', f);
                return;
        }
        if (twin_var) {
                fputs(" [ns backend only]", f);
                return;
        }
        const char *var = cordon_config_env_var(p, p->landlock_env_files, guest, &len, &callers);
        if (!var)
                fputs(" [landlock: not handed over, no variable names it]", f);
        else if (!cordon_launch_has_tmpdir(l))
                fputs(" [landlock: not handed over, no private TMPDIR to hold it]", f);
        else if (callers)
                fprintf(f, " [landlock: not handed over, %.*s is the caller's own]", (int)len, var);
        else
                fprintf(f, " [landlock: a writable copy in its TMPDIR, named by %.*s]", (int)len,
                        var);
}

static void describe_mounts(FILE *f, const struct cordon_policy *p, const struct cordon_launch *l)
{
        fprintf(f, "mounts, in order (%zu):\n", p->n_fs);
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                fprintf(f, "  %-7s %s", cordon_access_to_string(r->access), r->guest);
                if (r->access == CORDON_ACCESS_DATA)
                        fputs(" <- (generated)", f);
                else if (r->access == CORDON_ACCESS_SYMLINK)
                        fprintf(f, " -> %s", strempty(r->host));
                else if (r->host && !streq(r->host, r->guest))
                        fprintf(f, " <- %s", r->host);
                if (r->flags & CORDON_FS_OPTIONAL)
                        fputs(" [optional]", f);
                if (r->flags & CORDON_FS_SEAL)
                        fputs(" [sealed]", f);
                if (r->flags & CORDON_FS_NS_ONLY)
                        fputs(" [ns backend only]", f);
                if (r->flags & CORDON_FS_EXEC)
                        fputs(" [executable]", f);
                if (r->flags & CORDON_FS_REMOVE)
                        fputs(" [remove: landlock only]", f);
                if (r->flags & CORDON_FS_CONFIG_COPY)
                        describe_config_copy(f, p, i, l);
                fprintf(f, "  (from %s)\n", strempty(r->origin));
        }
}

/* The environment by count: variables of the caller kept, removed, and set by the policy (a
 * set one replaces a kept one of the same name); then the names of the removed ones. */
static void describe_env(FILE *f, const struct cordon_policy *p)
{
        size_t set = 0;
        CORDON_LIST_FOREACH (it, &p->env_rules.set) {
                size_t len = strcspn(it->value, "=");
                bool later = false;
                for (const struct cordon_item *j = it + 1;
                     j < p->env_rules.set.items + p->env_rules.set.n; j++)
                        later |= strncmp(j->value, it->value, len + 1) == 0;
                set += !later;
        }
        size_t total = strv_length(p->envp);
        fprintf(f, "environment: %zu kept, %zu blocked, %zu set\n", total > set ? total - set : 0,
                p->n_env_blocked, set);
        /* Names only: a value could be the credential itself. */
        if (p->env_blocked_names && p->env_blocked_names[0]) {
                fputs("  removed:", f);
                STRV_FOREACH (n, p->env_blocked_names)
                        fprintf(f, " %s", *n);
                fputc('\n', f);
        }
}

static void describe_actions(FILE *f, const struct cordon_policy *p)
{
        if (p->n_actions == 0) {
                fputs("host actions it would take: none\n", f);
                return;
        }
        fprintf(f, "host actions it would take (%zu; none was taken):\n", p->n_actions);
        for (size_t i = 0; i < p->n_actions; i++) {
                const struct cordon_host_action *a = &p->actions[i];
                fprintf(f, "  %s %s (%04o)  for %s\n",
                        a->kind == CORDON_HOST_MKDIR ? "mkdir " : "create", a->path,
                        (unsigned)a->mode, a->reason);
                if (a->warning)
                        fprintf(f, "    would report: %s\n", a->warning);
        }
}

int cordon_policy_describe(const struct cordon_policy *p, const struct cordon_launch *l, char **ret)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        fprintf(f, "profile: %s (side effects: %s, fallback: %s)\n",
                cordon_profile_to_string(p->profile),
                cordon_side_effect_to_string(p->side_effect_level),
                cordon_fallback_to_string(p->fallback));
        describe_layers(f, l);
        describe_network(f, p, l);
        describe_mail(f, p, l);
        describe_limits(f, p, l);
        if (p->project_dir)
                fprintf(f, "project: %s\n", p->project_dir);
        if (p->home_dir)
                fprintf(f, "home: %s (%s)\n", p->home_dir,
                        cordon_home_access_to_string(p->home_access));
        if (p->cwd)
                fprintf(f, "working directory: %s\n", p->cwd);
        describe_mounts(f, p, l);
        if (p->devices_unmatched) {
                fputs("devices that match nothing here (dropped without a warning):", f);
                STRV_FOREACH (d, p->devices_unmatched)
                        fprintf(f, " %s%s", *d, d[1] ? "," : "");
                fputc('\n', f);
        }
        describe_env(f, p);
        describe_actions(f, p);
        if (fclose(f) != 0 || !buf) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

/* The launch's own prepare phase with dry_run set: the same decisions, nothing created. */
_public_ int cordon_sandbox_plan(const struct cordon_policy *p,
                                 const struct cordon_sandbox_options *opts, char **ret_text,
                                 struct cordon_diag *diag)
{
        if (!p || !ret_text)
                return -EINVAL;
        struct cordon_launch launch = {
            .dry_run = true,
            .warn = opts ? opts->warning : NULL,
            .userdata = opts ? opts->userdata : NULL,
        };
        int r = cordon_policy_validate(p, diag);
        if (r >= 0)
                r = cordon_launch_prepare(p, &launch, diag);
        /* A start finds out whether user namespaces work by making them, and falls back then;
         * the plan asks a probe, and falls back by the same function. */
        if (r >= 0 && launch.auto_backend) {
                int u = cordon_ns_user_probe();
                if (u < 0) {
                        char why[128];
                        snprintf(why, sizeof(why), "a probe could not create one: %s",
                                 strerror(-u));
                        r = cordon_launch_fall_back(&launch, why, diag);
                } else {
                        launch.auto_backend = false;
                        snprintf(launch.backend_note, sizeof(launch.backend_note),
                                 "auto: a probe created a user namespace");
                }
        }
        if (r >= 0)
                r = cordon_policy_describe(p, &launch, ret_text);
        cordon_launch_clear(&launch);
        return r;
}
