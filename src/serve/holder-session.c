/* The session holder's session (holder.h): the SandboxSpec made settings (as `cordon run` loads
 * them, the spec's values over them, the admin's rules last), the policy, the start and the
 * mounts; the SandboxSession view; mounts, network policy, suspend/resume, snapshot and the
 * idle suspend of the live session. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "cordon/session.h"
#include "cordon/settings.h"
#include "serve/holder.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"
#include "shared/mem-util.h"
#include "shared/path-util.h"
#include "shared/strv.h"

extern char **environ;

uint64_t holder_now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int holder_error_from_errno(struct serve_error *err, int r, const struct cordon_diag *diag,
                            enum serve_error_kind kind, const char *what)
{
        const char *why = diag && *diag->message ? diag->message : strerror(-r);
        switch (r) {
        case -ENOTCONN:
                kind = SERVE_ERR_LIFECYCLE;
                break;
        case -ENOMEM:
        case -EIO:
                kind = SERVE_ERR_IO;
                break;
        default:
                break;
        }
        serve_error_set(err, kind, "%s: %s", what, why);
        return r < 0 ? r : -EIO;
}

static void warning(void *userdata, const char *message)
{
        (void)userdata;
        log_warning("%s", message);
}

static bool landlock(const struct holder *h)
{
        return h->backend == CORDON_BACKEND_LANDLOCK;
}

/* ---- the mounts ---- */

static void mount_clear(struct holder_mount *m)
{
        free(m->target);
        free(m->host_path);
}

static struct holder_mount *find_mount(struct holder *h, const char *target)
{
        for (size_t i = 0; i < h->n_mounts; i++)
                if (streq(h->mounts[i].target, target))
                        return &h->mounts[i];
        return NULL;
}

/* A directory of the session's own under DIR for @m's empty source ("mount-N"), or @m's
 * source; @ret the host path. */
static int mount_source(struct holder *h, const struct serve_mount *m, char **ret,
                        struct serve_error *err)
{
        if (*m->source) {
                _cleanup_free_ char *norm = NULL;
                if (m->source[0] != '/' || path_normalize(m->source, &norm) < 0)
                        return serve_error_set(err, SERVE_ERR_INVALID_REQUEST,
                                               "mount source '%s' must be an absolute path",
                                               m->source);
                *ret = TAKE_PTR(norm);
                return 0;
        }
        char *dir = NULL;
        if (asprintf(&dir, "%s/mount-%u", h->state_dir, ++h->n_fresh) < 0)
                return -ENOMEM;
        if (mkdir(dir, 0700) < 0) {
                int r = -errno;
                serve_error_set(err, SERVE_ERR_IO, "cannot create '%s': %s", dir, strerror(errno));
                free(dir);
                return r;
        }
        *ret = dir;
        return 0;
}

static int add_mount(struct holder *h, const char *target, char *host_path,
                     enum serve_access access, bool own)
{
        struct holder_mount *n = realloc(h->mounts, (h->n_mounts + 1) * sizeof(*n));
        if (!n) {
                free(host_path);
                return -ENOMEM;
        }
        h->mounts = n;
        char *t = strdup(target);
        if (!t) {
                free(host_path);
                return -ENOMEM;
        }
        h->mounts[h->n_mounts++] = (struct holder_mount){
            .target = t, .host_path = host_path, .access = access, .own = own};
        return 0;
}

/* The canonical pair and the spec's mounts, each with its host path: a spec mount at a
 * canonical target replaces its access and (when given) its source. */
static int plan_mounts(struct holder *h, struct serve_error *err)
{
        static const char *const canon[] = {HOLDER_MEMORY_MOUNT, HOLDER_OUTPUTS_MOUNT};
        static const char *const dirs[] = {"memory", "outputs"};
        for (size_t i = 0; i < 2; i++) {
                const struct serve_mount *given = NULL;
                for (size_t k = 0; k < h->spec.n_mounts; k++)
                        if (streq(h->spec.mounts[k].target, canon[i]))
                                given = &h->spec.mounts[k];
                char *host = NULL;
                int r;
                if (given && *given->source)
                        r = mount_source(h, given, &host, err);
                else if (asprintf(&host, "%s/%s", h->state_dir, dirs[i]) < 0)
                        r = -ENOMEM;
                else if (mkdir(host, 0700) < 0 && errno != EEXIST)
                        r = serve_error_set(err, SERVE_ERR_IO, "cannot create '%s': %m", host);
                else
                        r = 0;
                if (r < 0) {
                        free(host);
                        return r;
                }
                enum serve_access a = given ? given->access
                                      : i   ? SERVE_READ_WRITE
                                            : SERVE_READ_ONLY;
                if ((r = add_mount(h, canon[i], host, a, !(given && *given->source))) < 0)
                        return r;
        }
        for (size_t k = 0; k < h->spec.n_mounts; k++) {
                const struct serve_mount *m = &h->spec.mounts[k];
                if (streq(m->target, HOLDER_MEMORY_MOUNT) || streq(m->target, HOLDER_OUTPUTS_MOUNT))
                        continue;
                if (find_mount(h, m->target) || streq(m->target, "/"))
                        return serve_error_set(err, SERVE_ERR_INVALID_REQUEST,
                                               "mounts[%zu].target: '%s' is mounted already", k,
                                               m->target);
                char *host = NULL;
                int r = mount_source(h, m, &host, err);
                if (r < 0 || (r = add_mount(h, m->target, host, m->access, !*m->source)) < 0)
                        return r;
        }
        return 0;
}

static int unsupported_mount(struct serve_error *err, const char *target)
{
        serve_error_set(err, SERVE_ERR_UNSUPPORTED,
                        "the landlock backend has no mount namespace: '%s' can only be shown at "
                        "its own host path",
                        target);
        err->backend = "landlock";
        err->operation = "mount";
        return -EOPNOTSUPP;
}

/* Under the landlock backend a mount is shown at its host path only (the canonical pair's
 * targets become theirs). */
static int landlock_mounts(struct holder *h, struct serve_error *err)
{
        for (size_t i = 2; landlock(h) && i < h->n_mounts; i++)
                if (!streq(h->mounts[i].target, h->mounts[i].host_path))
                        return unsupported_mount(err, h->mounts[i].target);
        return 0;
}

/* ---- settings ---- */

struct set_ctx {
        struct cordon_settings *s;
        struct serve_error *err;
};

static int set(struct set_ctx *c, const char *name, const char *value, const char *origin,
               enum serve_error_kind kind)
{
        struct cordon_diag diag = {0};
        int r = cordon_settings_set(c->s, name, value, origin, &diag);
        if (r < 0)
                return holder_error_from_errno(c->err, r, &diag, kind, origin);
        return 0;
}

static int set_network(struct set_ctx *c, const struct serve_network_policy *np)
{
        const char *o = "SandboxSpec.network_policy";
        const enum serve_error_kind k = SERVE_ERR_NETWORK_POLICY;
        const char *mode = !np->limited ? "open" : np->n_hosts ? "proxied" : "isolated";
        int r = set(c, "NETWORK_FILTER_MODE", mode, o, k);
        if (r >= 0)
                r = set(c, "NETWORK_FILTER_FALLBACK", "strict", o, k);
        if (r < 0 || !np->limited || !np->n_hosts)
                return r;
        if ((r = set(c, "NETWORK_BLOCKLIST", "*", o, k)) < 0)
                return r;
        for (size_t i = 0; i < np->n_hosts; i++) {
                char origin[96];
                snprintf(origin, sizeof(origin), "SandboxSpec.network_policy.allowed_hosts[%zu]",
                         i);
                if ((r = set(c, "NETWORK_BLOCKLIST_EXCEPT", np->allowed_hosts[i], origin, k)) < 0)
                        return r;
        }
        return 0;
}

/* The variables the spec sets; an admin rule that changed one refuses the spec. */
static const char *const spec_variables[] = {"NETWORK_FILTER_MODE",
                                             "NETWORK_FILTER_FALLBACK",
                                             "NETWORK_BLOCKLIST",
                                             "NETWORK_BLOCKLIST_EXCEPT",
                                             "MEMORY_LIMIT",
                                             "CPU_LIMIT",
                                             "READONLY_MOUNTS",
                                             "EXTRA_WRITABLE_PATHS",
                                             "SANDBOX_ENV",
                                             "PROJECT_DIR",
                                             NULL};

/* Slurm's commands in a session are cordon's stub as in `cordon run` (cordon_policy_set_slurm()):
 * the programs beside this one (an install's libexecdir), else in a build tree's src/slurm. */
static int set_slurm(struct cordon_policy *p, struct cordon_diag *diag)
{
        char stub[PATH_MAX], chaperon[PATH_MAX];
        if (find_sibling_program("cordon-slurm-stub", "serve", "slurm", stub, sizeof(stub)) < 0)
                snprintf(stub, sizeof(stub), "%s", CORDON_SLURM_STUB_PATH);
        if (find_sibling_program("cordon-chaperon", "serve", "slurm", chaperon, sizeof(chaperon)) <
            0)
                snprintf(chaperon, sizeof(chaperon), "%s", CORDON_CHAPERON_PATH);
        return cordon_policy_set_slurm(p, stub, chaperon, diag);
}

/* The settings `cordon run` would load in the session root, with the spec's over them, and
 * the admin's rules applied. */
static int build_settings(struct holder *h, const struct serve_network_policy *np,
                          struct cordon_settings **ret, struct serve_error *err)
{
        struct cordon_settings *s = NULL;
        struct cordon_diag diag = {0};
        if (cordon_settings_new(getenv("HOME"), &s) < 0)
                return -ENOMEM;
        struct set_ctx c = {s, err};
        _cleanup_strv_free_ char **warnings = NULL;
        const struct cordon_config_options o = {.envp = environ, .project_dir = h->root};
        int r = cordon_settings_load_config(s, &o, &warnings, &diag);
        STRV_FOREACH (w, warnings)
                log_warning("%s", *w);
        if (r < 0) {
                r = holder_error_from_errno(err, r, &diag, SERVE_ERR_IO,
                                            "the configuration does not load");
                goto fail;
        }
        if ((r = cordon_settings_apply_environment(s, environ, &diag)) < 0) {
                r = holder_error_from_errno(err, r, &diag, SERVE_ERR_INVALID_REQUEST,
                                            "the environment");
                goto fail;
        }
        if ((r = set(&c, "PROJECT_DIR", h->root, "SandboxSpec (session root)",
                     SERVE_ERR_INVALID_REQUEST)) < 0 ||
            (r = set_network(&c, np)) < 0)
                goto fail;
        char v[64];
        if (h->spec.limits.has_memory_mb) {
                snprintf(v, sizeof(v), "%uM", h->spec.limits.memory_mb);
                if ((r = set(&c, "MEMORY_LIMIT", v, "SandboxSpec.limits.memory_mb",
                             SERVE_ERR_INVALID_REQUEST)) < 0)
                        goto fail;
        }
        if (h->spec.limits.has_cpu_count) {
                snprintf(v, sizeof(v), "%u", h->spec.limits.cpu_count);
                if ((r = set(&c, "CPU_LIMIT", v, "SandboxSpec.limits.cpu_count",
                             SERVE_ERR_INVALID_REQUEST)) < 0)
                        goto fail;
        }
        /* The backend the settings ask for, before the variables that depend on it are set:
         * loading them again for it would cost a start some 0.5 ms. (An admin's rule can still
         * change it below; the start is then tried again.) */
        char asked[32] = "";
        if (!landlock(h) &&
            cordon_settings_get(s, "SANDBOX_BACKEND", asked, sizeof(asked), NULL) >= 0 &&
            streq(asked, "landlock")) {
                h->backend = CORDON_BACKEND_LANDLOCK;
                if ((r = landlock_mounts(h, err)) < 0)
                        goto fail;
        }
        /* Without a mount namespace a mount is its host path, granted as such. */
        for (size_t i = 0; landlock(h) && i < h->n_mounts; i++) {
                const struct holder_mount *m = &h->mounts[i];
                const char *var =
                    m->access == SERVE_READ_WRITE ? "EXTRA_WRITABLE_PATHS" : "READONLY_MOUNTS";
                if ((r = set(&c, var, m->host_path, "SandboxSpec.mounts",
                             SERVE_ERR_INVALID_REQUEST)) < 0)
                        goto fail;
        }
        /* The canonical pair is always first (plan_mounts()); under landlock their targets
         * become their host paths once started. */
        const struct holder_mount *mem = &h->mounts[0], *out = &h->mounts[1];
        const char *names[] = {"HARN_MEMORY_DIR", "CORDON_MEMORY_DIR", "HARN_OUTPUTS_DIR",
                               "CORDON_OUTPUTS_DIR"};
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                const struct holder_mount *m = i < 2 ? mem : out;
                _cleanup_free_ char *a = NULL;
                if (asprintf(&a, "%s=%s", names[i], landlock(h) ? m->host_path : m->target) < 0) {
                        r = -ENOMEM;
                        goto fail;
                }
                if ((r = set(&c, "SANDBOX_ENV", a, "SandboxSpec (canonical mounts)",
                             SERVE_ERR_INVALID_REQUEST)) < 0)
                        goto fail;
        }
        strv_free(TAKE_PTR(warnings));
        r = cordon_settings_finalize(s, &warnings, &diag);
        STRV_FOREACH (w, warnings)
                log_warning("%s", *w);
        if (r < 0) {
                r = holder_error_from_errno(err, r, &diag, SERVE_ERR_INVALID_REQUEST,
                                            "the admin's rules");
                goto fail;
        }
        char backend[32] = "";
        if (!landlock(h) &&
            cordon_settings_get(s, "SANDBOX_BACKEND", backend, sizeof(backend), NULL) >= 0 &&
            streq(backend, "landlock")) {
                h->backend = CORDON_BACKEND_LANDLOCK;
                r = -EAGAIN;
                goto fail;
        }
        /* The admin's rules win: one that changed what the spec asked for refuses it, rather
         * than giving a session other than the one asked for. */
        ssize_t n = cordon_settings_admin_change_count(s);
        for (ssize_t i = 0; i < n; i++) {
                const char *name = NULL, *message = NULL;
                bool ours = false;
                if (cordon_settings_get_admin_change(s, (size_t)i, &name, &message) < 0)
                        continue;
                for (size_t k = 0; spec_variables[k]; k++)
                        ours = ours || streq(spec_variables[k], name);
                if (!ours)
                        continue;
                r = serve_error_set(err,
                                    startswith(name, "NETWORK_") ? SERVE_ERR_NETWORK_POLICY
                                                                 : SERVE_ERR_INVALID_REQUEST,
                                    "the administrator's configuration does not allow this: %s",
                                    message);
                goto fail;
        }
        *ret = s;
        return 0;
fail:
        cordon_settings_free(s);
        return r;
}

static int resolve(struct holder *h, const struct serve_network_policy *np,
                   struct cordon_policy **ret, struct serve_error *err)
{
        struct cordon_settings *s = NULL;
        int r = build_settings(h, np, &s, err);
        if (r < 0)
                return r;
        _cleanup_(cordon_host_clear) struct cordon_host host = {0};
        struct cordon_diag diag = {0};
        _cleanup_strv_free_ char **warnings = NULL;
        r = cordon_host_init_current(&host, environ);
        if (r >= 0)
                r = cordon_settings_resolve(s, &host, ret, &warnings, &diag);
        cordon_settings_free(s);
        STRV_FOREACH (w, warnings)
                log_warning("%s", *w);
        if (r >= 0 && (r = set_slurm(*ret, &diag)) < 0) {
                /* Without cordon's programs the host's Slurm commands stay as the rules make
                 * them, and reach nothing: munge's socket is out of every sandbox. */
                if (r == -ENOMEM) {
                        *ret = cordon_policy_free(*ret);
                        return holder_error_from_errno(err, r, &diag, SERVE_ERR_EXEC,
                                                       "the session's Slurm programs");
                }
                log_warning("%s; Slurm's commands are not served in this session", diag.message);
                diag = (struct cordon_diag){0};
                r = 0;
        }
        if (r < 0)
                return holder_error_from_errno(err, r, &diag,
                                               r == -EOPNOTSUPP ? SERVE_ERR_UNSUPPORTED
                                                                : SERVE_ERR_INVALID_REQUEST,
                                               "the sandbox's policy");
        return 0;
}

/* Under the ns backend each mount is attached once the session runs, by the library's
 * attach and its checks (hidden paths, read-only ones, the admin's denied writable paths, no
 * link on the source's way); no command runs before. Its target must be reached by the
 * session's Landlock rules, which are fixed at the start and skip a covered mount point: /mnt
 * is an empty tmpfs of the session's (where nothing is there already), below which any target
 * is reached; a target elsewhere is bound in the policy as well, from the same source, so that
 * the rule Landlock gets is on the very directory the attach shows there (a refused attach
 * ends the session before anything has run in it). */
static int ns_mount_points(struct holder *h, struct cordon_policy *p, struct serve_error *err)
{
        /* Only where the policy shows nothing at, above or below /mnt: a tmpfs added last
         * would be mounted over what a rule put there. */
        struct cordon_path_info info;
        bool mnt = cordon_policy_describe_path(p, "/mnt", CORDON_BACKEND_NS, &info) >= 0 &&
                   info.view == CORDON_PATH_ABSENT;
        for (size_t i = 0; mnt && i < cordon_policy_fs_count(p); i++) {
                const char *guest = NULL;
                if (cordon_policy_get_fs(p, i, &guest, NULL, NULL, NULL, NULL) >= 0 &&
                    path_is_below(guest, "/mnt"))
                        mnt = false;
        }
        int r = 0;
        if (mnt)
                r = cordon_policy_add_fs(p, "/mnt", NULL, CORDON_ACCESS_TMPFS, 0,
                                         "cordon-serve-session (mount points)");
        for (size_t i = 0; r >= 0 && i < h->n_mounts; i++) {
                struct holder_mount *m = &h->mounts[i];
                const bool below_mnt =
                    mnt && path_is_below(m->target, "/mnt") && !streq(m->target, "/mnt");
                /* A directory of the holder's below our /mnt is bound by the start itself,
                 * after the same checks an attach makes of its source: an attach costs two
                 * helper processes and a user namespace, 1 ms each of the canonical pair. */
                m->at_start = below_mnt && m->own;
                if (m->at_start) {
                        struct cordon_diag diag = {0};
                        const bool rw = m->access == SERVE_READ_WRITE;
                        r = cordon_policy_check_source(p, m->host_path,
                                                       rw ? CORDON_ATTACH_READ_WRITE : 0, &diag);
                        if (r < 0)
                                return holder_error_from_errno(
                                    err, r, &diag, SERVE_ERR_INVALID_REQUEST, m->target);
                        r = cordon_policy_add_fs(p, m->target, m->host_path,
                                                 rw ? CORDON_ACCESS_RW : CORDON_ACCESS_RO, 0,
                                                 "SandboxSpec.mounts");
                        continue;
                }
                if (below_mnt)
                        continue;
                r = cordon_policy_add_fs(p, m->target, m->host_path,
                                         m->access == SERVE_READ_WRITE ? CORDON_ACCESS_RW
                                                                       : CORDON_ACCESS_RO,
                                         0, "SandboxSpec.mounts");
        }
        if (r < 0)
                return serve_error_set(err, SERVE_ERR_INVALID_REQUEST,
                                       "cannot place the mounts: %s", strerror(-r));
        return 0;
}

static int attach(struct holder *h, const struct holder_mount *m, struct serve_error *err)
{
        struct cordon_diag diag = {0};
        int r = cordon_sandbox_attach(h->sb, m->host_path, m->target,
                                      m->access == SERVE_READ_WRITE ? CORDON_ATTACH_READ_WRITE : 0,
                                      &diag);
        if (r == -EOPNOTSUPP) {
                serve_error_set(err, SERVE_ERR_UNSUPPORTED, "%s", diag.message);
                err->backend = "landlock";
                err->operation = "mount";
                return r;
        }
        if (r < 0)
                return holder_error_from_errno(
                    err, r, &diag, r == -EIO ? SERVE_ERR_IO : SERVE_ERR_INVALID_REQUEST, m->target);
        return 0;
}

/* A copy of @src into @dst (cleared first by the caller). */
static int policy_copy(struct serve_network_policy *dst, const struct serve_network_policy *src)
{
        *dst = (struct serve_network_policy){.limited = src->limited};
        dst->allowed_hosts = strv_copy(src->allowed_hosts ? src->allowed_hosts : (char *[]){NULL});
        if (!dst->allowed_hosts)
                return -ENOMEM;
        dst->n_hosts = src->n_hosts;
        return 0;
}

/* One try at the start for the backend assumed in h->backend: -EAGAIN when the settings or
 * the start gave the other one (the mounts are planned differently: start again). */
static int start_once(struct holder *h, struct serve_error *err)
{
        int r = landlock_mounts(h, err);
        if (r < 0)
                return r;
        struct cordon_policy *p = NULL;
        r = resolve(h, &h->spec.network, &p, err);
        if (r < 0)
                return r;
        if (!landlock(h) && (r = ns_mount_points(h, p, err)) < 0) {
                cordon_policy_free(p);
                return r;
        }
        /* A snapshot holds the session's work: the session root (its working directory) and
         * the outputs, when that is the directory the holder made (a spec's own source is the
         * caller's, not the session's). */
        _cleanup_free_ char *outputs = NULL;
        if (asprintf(&outputs, "%s/outputs", h->state_dir) < 0) {
                cordon_policy_free(p);
                return -ENOMEM;
        }
        const struct cordon_host_tree trees[] = {{"root", h->root},
                                                 {"outputs", h->mounts[1].host_path}};
        const struct cordon_sandbox_options o = {
            .flags = CORDON_SANDBOX_SESSION,
            .warning = warning,
            .restore_from = h->from_snapshot,
            .host_trees = trees,
            .n_host_trees = streq(h->mounts[1].host_path, outputs) ? 2 : 1,
        };
        struct cordon_diag diag = {0};
        r = cordon_sandbox_start_with(p, NULL, &o, &h->sb, &diag);
        cordon_policy_free(p);
        if (r < 0)
                return holder_error_from_errno(
                    err, r, &diag, r == -EOPNOTSUPP ? SERVE_ERR_UNSUPPORTED : SERVE_ERR_LIFECYCLE,
                    "the session does not start");
        if (cordon_sandbox_report(h->sb)->backend != h->backend) {
                /* `auto` fell back to landlock at the clone. */
                h->sb = cordon_sandbox_free(h->sb);
                h->backend = CORDON_BACKEND_LANDLOCK;
                return -EAGAIN;
        }
        return 0;
}

int holder_session_start(struct holder *h, struct serve_error *err)
{
        struct serve_limits *lim = &h->spec.limits;
        h->wall_usec = lim->wall_time.set ? serve_duration_usec(&lim->wall_time) : 0;
        h->idle_usec = lim->idle_timeout.set ? serve_duration_usec(&lim->idle_timeout) : 0;
        int r = plan_mounts(h, err);
        if (r < 0)
                return r;
        h->backend = CORDON_BACKEND_NS;
        r = start_once(h, err);
        if (r == -EAGAIN)
                r = start_once(h, err);
        if (r == -EAGAIN)
                r = serve_error_set(err, SERVE_ERR_LIFECYCLE, "the backend changed twice");
        if (r < 0)
                return r;

        const struct cordon_report *rep = cordon_sandbox_report(h->sb);
        /* Fail closed: a limit asked for is enforced, or there is no session. */
        if ((lim->has_memory_mb && rep->limits[CORDON_LIMIT_MEMORY] == CORDON_LIMIT_NONE) ||
            (lim->has_cpu_count && rep->limits[CORDON_LIMIT_CPUS] == CORDON_LIMIT_NONE))
                return serve_error_set(err, SERVE_ERR_UNSUPPORTED,
                                       "a limit asked for cannot be enforced on this host (%s)",
                                       *rep->limits_text ? rep->limits_text : "no mechanism");
        /* Each command holds up to four descriptors here, and proxied mode's proxy six a
         * tunnel: the soft limit up to the hard one, in this process only (the session's
         * processes were started with the limits they were given). */
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                (void)setrlimit(RLIMIT_NOFILE, &rl);
        }
        if (!landlock(h))
                for (size_t i = 0; i < h->n_mounts; i++)
                        if (!h->mounts[i].at_start && (r = attach(h, &h->mounts[i], err)) < 0)
                                return r;
        if (landlock(h))
                for (size_t i = 0; i < 2; i++) {
                        /* Where the command finds them: their host paths. */
                        char *t = strdup(h->mounts[i].host_path);
                        if (!t)
                                return -ENOMEM;
                        free(h->mounts[i].target);
                        h->mounts[i].target = t;
                }
        if ((r = policy_copy(&h->network, &h->spec.network)) < 0)
                return r;
        h->state = SERVE_RUNNING;
        holder_session_touch(h);
        return 0;
}

json_t *holder_session_view(const struct holder *h)
{
        const struct cordon_report *rep = h->sb ? cordon_sandbox_report(h->sb) : NULL;
        _cleanup_free_ struct serve_resolved_mount *rm =
            calloc(h->n_mounts ? h->n_mounts : 1, sizeof(*rm));
        if (!rm)
                return NULL;
        for (size_t i = 0; i < h->n_mounts; i++)
                rm[i] = (struct serve_resolved_mount){h->mounts[i].target, h->mounts[i].access,
                                                      h->mounts[i].host_path};
        /* serve_label holds writable strings: the values are copied here. */
        char k[6][16] = {"session_root", "backend", "network", "suspend", "limits", "mounts"};
        char backend[32], network[32], suspend[32], limits[256], mounts[160];
        snprintf(backend, sizeof(backend), "%s", cordon_backend_to_string(h->backend));
        snprintf(network, sizeof(network), "%s",
                 rep ? cordon_net_mode_to_string(rep->net_mode) : "");
        snprintf(suspend, sizeof(suspend), "%s",
                 rep ? cordon_suspend_mechanism_to_string(rep->suspend) : "none");
        snprintf(limits, sizeof(limits), "%s", rep ? rep->limits_text : "");
        snprintf(mounts, sizeof(mounts), "%s",
                 landlock(h) ? "host paths: the landlock backend has no mount namespace, so "
                               "HARN_MEMORY_DIR and HARN_OUTPUTS_DIR name the host directories"
                             : "bound at their targets in the session's mount namespace");
        struct serve_label md[] = {
            {k[0], h->root}, {k[1], backend}, {k[2], network},
            {k[3], suspend}, {k[4], limits},  {k[5], mounts},
        };
        struct serve_session_view v = {
            .id = h->session_id,
            .backend = HOLDER_BACKEND_NAME,
            .state = h->state,
            .mounts = rm,
            .n_mounts = h->n_mounts,
            .metadata = md,
            .n_metadata = ELEMENTSOF(md),
        };
        return serve_session_to_json(&v);
}

int holder_session_mount(struct holder *h, const struct serve_mount *m, struct serve_error *err)
{
        if (landlock(h))
                return unsupported_mount(err, m->target);
        if (find_mount(h, m->target))
                return serve_error_set(err, SERVE_ERR_INVALID_REQUEST,
                                       "target: '%s' is mounted already", m->target);
        char *host = NULL;
        int r = mount_source(h, m, &host, err);
        if (r < 0)
                return r;
        struct holder_mount hm = {
            .target = (char *)m->target, .host_path = host, .access = m->access};
        if ((r = attach(h, &hm, err)) < 0) {
                free(host);
                return r;
        }
        return add_mount(h, m->target, host, m->access, !*m->source);
}

int holder_session_network(struct holder *h, const struct serve_network_policy *np,
                           struct serve_error *err)
{
        struct cordon_policy *p = NULL;
        int r = resolve(h, np, &p, err);
        if (r < 0) {
                if (err->kind == SERVE_ERR_INVALID_REQUEST)
                        err->kind = SERVE_ERR_NETWORK_POLICY;
                return r;
        }
        struct cordon_diag diag = {0};
        r = cordon_sandbox_set_network(h->sb, p, &diag);
        cordon_policy_free(p);
        if (r < 0)
                return holder_error_from_errno(err, r, &diag, SERVE_ERR_NETWORK_POLICY,
                                               "the network policy cannot be applied");
        struct serve_network_policy copy = {0};
        if ((r = policy_copy(&copy, np)) < 0)
                return r;
        serve_network_policy_clear(&h->network);
        h->network = copy;
        return 0;
}

int holder_session_suspend(struct holder *h, struct serve_error *err)
{
        struct cordon_diag diag = {0};
        int r = cordon_sandbox_suspend(h->sb, &diag);
        if (r < 0)
                return holder_error_from_errno(err, r, &diag, SERVE_ERR_LIFECYCLE,
                                               "the session cannot be suspended");
        h->state = SERVE_SUSPENDED;
        return 0;
}

int holder_session_resume(struct holder *h, struct serve_error *err)
{
        holder_session_touch(h);
        if (h->state != SERVE_SUSPENDED)
                return 0;
        struct cordon_diag diag = {0};
        int r = cordon_sandbox_resume(h->sb, &diag);
        if (r < 0)
                return holder_error_from_errno(err, r, &diag, SERVE_ERR_LIFECYCLE,
                                               "the session cannot be resumed");
        h->state = SERVE_RUNNING;
        return 0;
}

int holder_session_snapshot(struct holder *h, const char *path, uint64_t *ret_bytes,
                            struct serve_error *err)
{
        struct cordon_diag diag = {0};
        int r = cordon_sandbox_snapshot(h->sb, path, &diag);
        if (r < 0)
                return holder_error_from_errno(err, r, &diag, SERVE_ERR_IO, "the snapshot failed");
        struct stat st;
        if (stat(path, &st) < 0)
                return serve_error_set(err, SERVE_ERR_IO, "the snapshot '%s': %m", path);
        *ret_bytes = (uint64_t)st.st_size;
        return 0;
}

void holder_session_touch(struct holder *h)
{
        h->last_activity = holder_now_usec();
        h->released = false;
}

/* Microseconds until the memory an activity left is given back (-1: nothing to give back). */
static int64_t release_timeout(const struct holder *h)
{
        if (h->released || holder_exec_busy(h))
                return -1;
        uint64_t due = h->last_activity + HOLDER_RELEASE_AFTER_USEC, now = holder_now_usec();
        return due <= now ? 0 : (int64_t)(due - now);
}

static int64_t suspend_timeout(const struct holder *h)
{
        if (!h->idle_usec || h->state != SERVE_RUNNING || holder_exec_busy(h))
                return -1;
        uint64_t due = h->last_activity + h->idle_usec, now = holder_now_usec();
        return due <= now ? 0 : (int64_t)(due - now);
}

int64_t holder_session_idle_timeout(const struct holder *h)
{
        int64_t a = suspend_timeout(h), b = release_timeout(h);
        return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

void holder_session_idle_check(struct holder *h)
{
        /* A connection through the egress proxy counts as activity too. */
        const struct cordon_report *rep = h->sb ? cordon_sandbox_report(h->sb) : NULL;
        if (rep && rep->proxy.connections != h->proxy_connections) {
                h->proxy_connections = rep->proxy.connections;
                holder_session_touch(h);
        }
        /* A session mostly waits: what a command's handling left (its stack, the heap's
         * free pages) is given back once it has been quiet a moment. */
        if (release_timeout(h) == 0) {
                memory_release_idle(MEMORY_RELEASE_HEAP | MEMORY_RELEASE_STACK);
                h->released = true;
        }
        if (suspend_timeout(h) != 0)
                return;
        struct serve_error err;
        if (holder_session_suspend(h, &err) < 0) {
                /* Tried again after another idle period, not on every turn. */
                holder_session_touch(h);
                log_warning("the idle session could not be suspended: %s", err.message);
        } else
                log_info("suspended after %llu ms without activity",
                         (unsigned long long)(h->idle_usec / 1000));
}

void holder_session_free(struct holder *h)
{
        h->sb = cordon_sandbox_free(h->sb);
        for (size_t i = 0; i < h->n_mounts; i++)
                mount_clear(&h->mounts[i]);
        free(h->mounts);
        h->mounts = NULL;
        h->n_mounts = 0;
        serve_network_policy_clear(&h->network);
}
