/* `cordon doctor`: reports which kernel features this host offers the sandbox, one line per
 * check or as one JSON object. Exit status 0 when the default `ns` backend can run here. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli-options.h"
#include "cli/commands.h"
#include "cordon/doctor.h"
#include "cordon/settings.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"

enum doctor_option_id {
        DOCTOR_OPT_JSON = CLI_OPTION_FIRST_ID,
        DOCTOR_OPT_HELP,
};

static const struct cli_option doctor_options[] = {
    {"json", 0, NULL, DOCTOR_OPT_JSON, "print one JSON object instead of one line per check"},
    {"help", 'h', NULL, DOCTOR_OPT_HELP, "show this help and exit"},
};
CLI_OPTIONS_ASSERT_FITS(doctor_options);

static void doctor_help(FILE *f)
{
        fprintf(f, "Usage: cordon doctor [OPTIONS]\n\n"
                   "Report which kernel features this host offers the sandbox: user namespaces,\n"
                   "AppArmor's restriction of them (and the command that lifts it for cordon),\n"
                   "the Landlock ABI, seccomp filters, cgroup v2 delegation, what would enforce\n"
                   "--memory, --pids and --cpus, and pasta.\n\n"
                   "Options:\n");
        cli_options_print(f, doctor_options, ELEMENTSOF(doctor_options), 20);
        fprintf(f,
                "\nExit status: 0 when the default backend (ns) can run here, 1 when it cannot,\n"
                "2 for a usage error.\n");
}

/* Returns 0, or -EINVAL after the usage error's line. */
static int doctor_parse(int argc, char **argv, bool *ret_json, bool *ret_help)
{
        struct cli_getopt g;
        cli_options_prepare(doctor_options, ELEMENTSOF(doctor_options), "+:", &g);
        bool json = false;
        for (;;) {
                int c =
                    cli_options_next(doctor_options, ELEMENTSOF(doctor_options), &g, argc, argv);
                if (c == -1)
                        break;
                switch (c) {
                case DOCTOR_OPT_JSON:
                        json = true;
                        break;
                case DOCTOR_OPT_HELP:
                        *ret_help = true;
                        return 0;
                default: {
                        char err[256];
                        cli_options_error(c, doctor_options, ELEMENTSOF(doctor_options), argv, err,
                                          sizeof(err));
                        usage_error("doctor", "%s", err);
                        return -EINVAL;
                }
                }
        }
        if (optind < argc) {
                usage_error("doctor", "unexpected argument '%s'", argv[optind]);
                return -EINVAL;
        }
        *ret_json = json;
        *ret_help = false;
        return 0;
}

static const char *errno_name(int r)
{
        return strerrorname_np(r < 0 ? -r : r) ?: "unknown";
}

/* The reason part of each line, for text and JSON alike; "" when there is nothing to explain. */
static void userns_reason(const struct cordon_doctor_userns *u, char *buf, size_t n)
{
        switch (u->blocker) {
        case CORDON_USERNS_BLOCKER_MAX_NAMESPACES:
                snprintf(buf, n, "user.max_user_namespaces=0");
                return;
        case CORDON_USERNS_BLOCKER_UNPRIVILEGED:
                snprintf(buf, n, "kernel.unprivileged_userns_clone=0");
                return;
        case CORDON_USERNS_BLOCKER_APPARMOR:
                snprintf(
                    buf, n,
                    "AppArmor restricts them: kernel.apparmor_restrict_unprivileged_userns=%ld",
                    u->apparmor_restrict_unprivileged_userns);
                return;
        case CORDON_USERNS_BLOCKER_NONE:
                break;
        }
        if (u->usable)
                snprintf(buf, n, "%s", "");
        else
                snprintf(buf, n, "probe failed with %s: %s", errno_name(u->error),
                         strerror(-u->error));
}

static void landlock_reason(const struct cordon_doctor_landlock *l, char *buf, size_t n)
{
        if (l->abi > 0)
                snprintf(buf, n, "%s", "");
        else if (l->error == -ENOSYS)
                snprintf(buf, n, "ENOSYS: kernel built without Landlock");
        else if (l->error == -EOPNOTSUPP)
                snprintf(buf, n, "EOPNOTSUPP: disabled at boot, landlock is not in the lsm= list");
        else
                snprintf(buf, n, "%s: %s", errno_name(l->error), strerror(-l->error));
}

static void seccomp_reason(const struct cordon_doctor_seccomp *s, char *buf, size_t n)
{
        if (s->filter)
                snprintf(buf, n, "%s", s->mode == 2 ? "this process is already filtered" : "");
        else if (s->error == -EINVAL)
                snprintf(buf, n, "EINVAL: kernel built without %s",
                         s->mode < 0 ? "CONFIG_SECCOMP" : "CONFIG_SECCOMP_FILTER");
        else
                snprintf(buf, n, "%s: %s", errno_name(s->error), strerror(-s->error));
}

static const char *cgroup_layout_name(enum cordon_cgroup_layout l)
{
        switch (l) {
        case CORDON_CGROUP_UNIFIED:
                return "unified";
        case CORDON_CGROUP_HYBRID:
                return "hybrid";
        case CORDON_CGROUP_LEGACY:
                return "legacy";
        case CORDON_CGROUP_NONE:
                break;
        }
        return "none";
}

/* What a limit's mechanism means for the user beyond its name, "" when nothing: the
 * fallbacks are weaker than a cgroup, and an unenforceable limit says why. */
static void limit_note(const struct cordon_doctor_limits *l, enum cordon_limit_kind k, char *buf,
                       size_t n)
{
        switch (l->mechanism[k]) {
        case CORDON_LIMIT_NONE:
                snprintf(buf, n, "%s", l->reason);
                return;
        case CORDON_LIMIT_RLIMIT:
                if (k == CORDON_LIMIT_MEMORY)
                        snprintf(buf, n,
                                 "memory: RLIMIT_AS/RLIMIT_DATA per process, address "
                                 "space rather than resident memory");
                else
                        snprintf(buf, n,
                                 "pids: RLIMIT_NPROC counts every process of uid %u, also "
                                 "those outside the sandbox",
                                 (unsigned)getuid());
                return;
        case CORDON_LIMIT_AFFINITY:
                snprintf(buf, n, "cpus: CPU affinity to the first N CPUs, not a time quota");
                return;
        case CORDON_LIMIT_PID_MAX:
                snprintf(buf, n, "pids: the pid namespace's pid_max, 300 over the limit");
                return;
        case CORDON_LIMIT_CGROUP1:
        case CORDON_LIMIT_CGROUP2:
                break;
        }
        snprintf(buf, n, "%s", "");
}

/* "memory=cgroup1 pids=unavailable cpus=affinity", the names of the `cordon: limits` banner. */
static void limits_value(const struct cordon_doctor_limits *l, char *buf, size_t n)
{
        size_t len = 0;
        buf[0] = 0;
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX && len < n; k++) {
                enum cordon_limit_mechanism m = l->mechanism[k];
                int w = snprintf(buf + len, n - len, "%s%s=%s", k ? " " : "",
                                 cordon_limit_kind_to_string((enum cordon_limit_kind)k),
                                 m == CORDON_LIMIT_NONE ? "unavailable"
                                                        : cordon_limit_mechanism_to_string(m));
                len += w > 0 ? (size_t)w : 0;
        }
}

static void limits_reason(const struct cordon_doctor_limits *l, char *buf, size_t n)
{
        size_t len = 0;
        buf[0] = 0;
        if (l->error < 0) {
                snprintf(buf, n, "probe failed with %s: %s", errno_name(l->error),
                         *l->reason ? l->reason : strerror(-l->error));
                return;
        }
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX && len < n; k++) {
                char note[sizeof(l->reason)];
                limit_note(l, (enum cordon_limit_kind)k, note, sizeof(note));
                if (!*note)
                        continue;
                int w = snprintf(buf + len, n - len, "%s%s", len ? "; " : "", note);
                len += w > 0 ? (size_t)w : 0;
        }
}

static const char *const seccomp_action_names[_CORDON_SECCOMP_ACTION_COUNT] = {
    "kill_process", "kill_thread", "trap", "errno", "user_notif", "trace", "log", "allow",
};

static void print_words(FILE *f, char *const *l)
{
        if (!l || !*l) {
                fputs("none", f);
                return;
        }
        for (size_t i = 0; l[i]; i++)
                fprintf(f, "%s%s", i ? " " : "", l[i]);
}

static void print_line(const char *label, const char *value, const char *reason)
{
        if (*reason)
                printf("%s: %s (%s)\n", label, value, reason);
        else
                printf("%s: %s\n", label, value);
}

static void print_cgroup(const struct cordon_doctor_cgroup *c)
{
        printf("cgroup: ");
        switch (c->layout) {
        case CORDON_CGROUP_NONE:
                printf("none mounted at /sys/fs/cgroup");
                break;
        case CORDON_CGROUP_LEGACY:
                printf("v1 only");
                break;
        case CORDON_CGROUP_UNIFIED:
        case CORDON_CGROUP_HYBRID:
                printf("v2%s, ", c->layout == CORDON_CGROUP_HYBRID ? " hybrid" : "");
                if (c->error < 0) {
                        printf("unknown (own cgroup: %s, %s)", errno_name(c->error),
                               strerror(-c->error));
                        break;
                }
                printf("%s (controllers: ", c->delegated ? "delegated" : "not delegated");
                print_words(stdout, c->controllers);
                printf(")");
                break;
        }
        /* Limits cordon sets on v2 enforce nothing for controllers that live on v1. */
        if (c->v1_memory || c->v1_pids)
                printf("; on v1: %s%s%s", c->v1_memory ? "memory" : "",
                       c->v1_memory && c->v1_pids ? " " : "", c->v1_pids ? "pids" : "");
        printf("\n");
}

/* What the landlock backend cannot do on any host, for the text and the JSON report alike; what
 * depends on the host is in the report's landlock_backend items. */
static const char *const landlock_backend_gaps[] = {
    "denied paths answer EACCES instead of being hidden (ENOENT)",
    "no pid, ipc, uts or network namespace: isolated mode refuses socket() instead, and the "
    "host's processes show in /proc (what the command leaves behind is killed by a reaper "
    "outside the sandbox, not by the end of a pid namespace)",
    "a blocked path inside a granted directory is carved out of the grant: entries created "
    "later directly in that directory are out of reach",
    "no user namespace of its own: the command shares the user's inotify, fanotify and namespace "
    "limits (/proc/sys/user) and can use them up for the user's programs outside",
};

/* "WHAT: NOTE", the gap line of an item that does not work here. */
static void feature_gap(const struct cordon_doctor_ll_feature *f, char *buf, size_t n)
{
        snprintf(buf, n, "%s: %s", f->what, f->note);
}

/* --- AppArmor (Ubuntu 23.10+): the restriction of user namespaces and the one command that
 * lifts it for cordon --- */

static void put(json_t *o, const char *key, json_t *v, bool *oom);
static json_t *sysctl_json(long v);

/* @s quoted for a POSIX shell when it holds anything but safe characters; "" when it does not
 * fit in @n, so that a truncated path is never offered as a command. */
static void shell_quote(const char *s, char *buf, size_t n)
{
        static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                                   "/._+-";
        size_t len = 0;
        bool plain = *s && strspn(s, safe) == strlen(s);
        if (!plain)
                buf[len++] = '\'';
        for (const char *p = s; *p; p++) {
                const char *piece = !plain && *p == '\'' ? "'\\''" : (char[]){*p, 0};
                size_t k = strlen(piece);
                if (len + k + 2 > n) {
                        buf[0] = 0;
                        return;
                }
                memcpy(buf + len, piece, k);
                len += k;
        }
        if (!plain)
                buf[len++] = '\'';
        buf[len] = 0;
}

static const char *apparmor_value(const struct cordon_doctor_apparmor *a)
{
        if (a->restrict_unprivileged_userns == 1 && a->enabled != 0)
                return "restricts user namespaces";
        return a->enabled == 1 ? "active, user namespaces unrestricted" : "not active";
}

static void apparmor_reason(const struct cordon_doctor_apparmor *a, char *buf, size_t n)
{
        if (a->restrict_unprivileged_userns != 1 || a->enabled == 0)
                snprintf(buf, n, "%s", "");
        else if (a->restricts_caller)
                snprintf(buf, n,
                         "kernel.apparmor_restrict_unprivileged_userns=1 and no profile grants "
                         "them to cordon: the ns backend needs cordon's profile");
        else if (*a->label && !streq(a->label, "unconfined"))
                snprintf(buf, n,
                         "kernel.apparmor_restrict_unprivileged_userns=1; cordon runs under the "
                         "profile '%s'",
                         a->label);
        else
                snprintf(buf, n, "kernel.apparmor_restrict_unprivileged_userns=1; root is exempt");
}

/* The one command that installs and loads cordon's profile; "" when none is needed. */
static void apparmor_fix(const struct cordon_doctor_apparmor *a, char *buf, size_t n)
{
        char src[PATH_MAX + 64], dst[PATH_MAX + 64], dst_path[PATH_MAX];
        if (!a->restricts_caller) {
                snprintf(buf, n, "%s", "");
                return;
        }
        if (!a->profile_installed) {
                snprintf(buf, n,
                         "none from here: %s is missing; `sudo make install` in cordon's source "
                         "tree installs and loads the profile",
                         a->profile);
                return;
        }
        snprintf(dst_path, sizeof(dst_path), "%s/cordon", a->profile_dir);
        shell_quote(a->profile, src, sizeof(src));
        shell_quote(dst_path, dst, sizeof(dst));
        if (!*src || !*dst) {
                snprintf(buf, n, "%s", "");
                return;
        }
        int w = snprintf(buf, n, "sudo install -m 0644 %s %s && sudo apparmor_parser -r %s", src,
                         dst, dst);
        if (w < 0 || (size_t)w >= n)
                buf[0] = 0; /* never a truncated command */
}

static void print_apparmor(const struct cordon_doctor_apparmor *a)
{
        char reason[256], fix[3 * PATH_MAX];
        apparmor_reason(a, reason, sizeof(reason));
        print_line("apparmor", apparmor_value(a), reason);
        apparmor_fix(a, fix, sizeof(fix));
        if (*fix)
                printf("apparmor fix: %s\n", fix);
}

static json_t *apparmor_json(const struct cordon_doctor_apparmor *a, bool *oom)
{
        char reason[256], fix[3 * PATH_MAX];
        json_t *o = json_object();
        apparmor_reason(a, reason, sizeof(reason));
        apparmor_fix(a, fix, sizeof(fix));
        put(o, "enabled", a->enabled < 0 ? json_null() : json_boolean(a->enabled), oom);
        put(o, "kernel.apparmor_restrict_unprivileged_userns",
            sysctl_json(a->restrict_unprivileged_userns), oom);
        put(o, "label", json_string_or_null(*a->label ? a->label : NULL), oom);
        put(o, "restricts_user_namespaces", json_boolean(a->restricts_caller), oom);
        put(o, "reason", json_string_or_null(*reason ? reason : NULL), oom);
        put(o, "profile", json_string(a->profile), oom);
        put(o, "profile_installed", json_boolean(a->profile_installed), oom);
        put(o, "profile_dir", json_string(a->profile_dir), oom);
        put(o, "fix", json_string_or_null(*fix ? fix : NULL), oom);
        return o;
}

/* The variables held for the Slurm integration, with their values as the defaults and the
 * environment make them: accepted, not yet active. */
static struct cordon_settings *held_settings(void)
{
        struct cordon_settings *s = NULL;
        if (cordon_settings_new(getenv("HOME"), &s) < 0)
                return NULL;
        /* A bad value there is `cordon run`'s to report; the defaults stand. */
        (void)cordon_settings_apply_environment(s, environ, NULL);
        return s;
}

static void print_held(void)
{
        struct cordon_settings *s = held_settings();
        const char *name;
        for (size_t i = 0; s && (name = cordon_settings_variable(i)); i++) {
                char value[64];
                const char *origin = NULL;
                if (cordon_settings_variable_is_held(name) == 1 &&
                    cordon_settings_get(s, name, value, sizeof(value), &origin) >= 0)
                        printf("accepted, not yet active: %s=%s (%s)\n", name, value, origin);
        }
        cordon_settings_free(s);
}

static void put(json_t *o, const char *key, json_t *v, bool *oom);

static json_t *held_json(bool *oom)
{
        json_t *a = json_array();
        struct cordon_settings *s = held_settings();
        const char *name;
        for (size_t i = 0; a && s && (name = cordon_settings_variable(i)); i++) {
                char value[64];
                const char *origin = NULL;
                if (cordon_settings_variable_is_held(name) != 1 ||
                    cordon_settings_get(s, name, value, sizeof(value), &origin) < 0)
                        continue;
                json_t *o = json_object();
                put(o, "name", json_string(name), oom);
                put(o, "value", json_string(value), oom);
                put(o, "origin", json_string(origin), oom);
                if (!o || json_array_append_new(a, o) < 0)
                        *oom = true;
        }
        if (!a || !s)
                *oom = true;
        cordon_settings_free(s);
        return a;
}

/* The backend `--backend auto` would pick here (the launcher's own decision), or NULL when
 * none can run. */
static const char *auto_backend(const struct cordon_doctor_report *r)
{
        int b = cordon_doctor_auto_backend(r);
        return b < 0 ? NULL : cordon_backend_to_string((enum cordon_backend)b);
}

/* One line per item that works here, then one per gap: those of every host first, then the
 * items that do not work here. */
static void print_landlock_backend(const struct cordon_doctor_landlock_backend *b)
{
        printf("landlock backend: %s\n", b->usable ? "usable" : "unusable");
        for (size_t i = 0; i < ELEMENTSOF(b->features); i++)
                if (b->features[i].works)
                        print_line("landlock backend works", b->features[i].what,
                                   b->features[i].note);
        for (size_t i = 0; i < ELEMENTSOF(landlock_backend_gaps); i++)
                printf("landlock backend gap: %s\n", landlock_backend_gaps[i]);
        for (size_t i = 0; i < ELEMENTSOF(b->features); i++)
                if (!b->features[i].works) {
                        char gap[sizeof(b->features[i].note) + 128];
                        feature_gap(&b->features[i], gap, sizeof(gap));
                        printf("landlock backend gap: %s\n", gap);
                }
}

static void print_text(const struct cordon_doctor_report *r)
{
        char reason[256], value[32];

        userns_reason(&r->userns, reason, sizeof(reason));
        print_line("user namespaces", r->userns.usable ? "yes" : "no", reason);
        print_apparmor(&r->apparmor);

        landlock_reason(&r->landlock, reason, sizeof(reason));
        if (r->landlock.abi > 0)
                snprintf(value, sizeof(value), "ABI %d", r->landlock.abi);
        else
                snprintf(value, sizeof(value), "unavailable");
        print_line("landlock", value, reason);

        seccomp_reason(&r->seccomp, reason, sizeof(reason));
        print_line("seccomp", r->seccomp.filter ? "yes" : "no", reason);

        print_cgroup(&r->cgroup);

        char limits[128], limits_why[2048];
        if (r->limits.error < 0)
                snprintf(limits, sizeof(limits), "unknown");
        else
                limits_value(&r->limits, limits, sizeof(limits));
        limits_reason(&r->limits, limits_why, sizeof(limits_why));
        print_line("limits", limits, limits_why);

        print_line("pasta", r->pasta.path ?: "not found in PATH", "");
        print_line("network",
                   r->network.filtered ? "filtered, proxied, open, isolated"
                                       : "proxied, open, isolated",
                   r->network.filtered ? "" : r->network.reason);

        printf("landlock features:");
        const char *name;
        int abi = 0;
        for (unsigned i = 0; (name = cordon_landlock_feature_name(i, &abi)); i++)
                if (r->landlock.abi >= abi)
                        printf(" %s", name);
        printf("%s\n", r->landlock.abi > 0 ? "" : " none");

        print_line("backend", auto_backend(r) ?: "none can run here",
                   auto_backend(r) ? "what --backend auto picks" : "");
        print_landlock_backend(&r->landlock_backend);
        print_held();
}

/* Adds @v to @o under @key; any failure (including @o or @v being NULL after a failed
 * allocation) sets *@oom. json_object_set_new() consumes @v either way. */
static void put(json_t *o, const char *key, json_t *v, bool *oom)
{
        if (json_object_set_new(o, key, v) < 0)
                *oom = true;
}

static json_t *error_json(int r)
{
        return r < 0 ? json_string(errno_name(r)) : json_null();
}

static json_t *sysctl_json(long v)
{
        return v >= 0 ? json_integer(v) : json_null();
}

static json_t *words_json(char *const *l, bool *oom)
{
        json_t *a = json_array();
        for (size_t i = 0; a && l && l[i]; i++)
                if (json_array_append_new(a, json_string_or_null(l[i])) < 0)
                        *oom = true;
        return a;
}

/* Each builder fills its object completely before the caller attaches it to the parent: once
 * attached, a failed json_object_set_new() may already have released it. */
static json_t *userns_json(const struct cordon_doctor_userns *u, bool *oom)
{
        char reason[256];
        json_t *o = json_object(), *sysctl = json_object();

        userns_reason(u, reason, sizeof(reason));
        put(o, "usable", json_boolean(u->usable), oom);
        put(o, "error", error_json(u->error), oom);
        put(o, "reason", json_string_or_null(*reason ? reason : NULL), oom);
        put(sysctl, "kernel.unprivileged_userns_clone", sysctl_json(u->unprivileged_userns_clone),
            oom);
        put(sysctl, "user.max_user_namespaces", sysctl_json(u->max_user_namespaces), oom);
        put(sysctl, "kernel.apparmor_restrict_unprivileged_userns",
            sysctl_json(u->apparmor_restrict_unprivileged_userns), oom);
        put(o, "sysctl", sysctl, oom);
        return o;
}

static json_t *landlock_json(const struct cordon_doctor_landlock *l, bool *oom)
{
        char reason[256];
        json_t *o = json_object();

        landlock_reason(l, reason, sizeof(reason));
        put(o, "available", json_boolean(l->abi > 0), oom);
        put(o, "abi", l->abi > 0 ? json_integer(l->abi) : json_null(), oom);
        json_t *features = json_array();
        const char *name;
        int abi = 0;
        for (unsigned i = 0; features && (name = cordon_landlock_feature_name(i, &abi)); i++)
                if (l->abi >= abi && json_array_append_new(features, json_string(name)) < 0)
                        *oom = true;
        put(o, "features", features, oom);
        put(o, "error", error_json(l->error), oom);
        put(o, "reason", json_string_or_null(*reason ? reason : NULL), oom);
        return o;
}

static json_t *seccomp_json(const struct cordon_doctor_seccomp *s, bool *oom)
{
        char reason[256];
        json_t *o = json_object(), *actions = json_array();

        seccomp_reason(s, reason, sizeof(reason));
        put(o, "available", json_boolean(s->filter), oom);
        put(o, "mode", s->mode >= 0 ? json_integer(s->mode) : json_null(), oom);
        for (size_t i = 0; actions && i < ELEMENTSOF(seccomp_action_names); i++)
                if ((s->actions & (1u << i)) &&
                    json_array_append_new(actions, json_string(seccomp_action_names[i])) < 0)
                        *oom = true;
        put(o, "actions", actions, oom);
        put(o, "error", error_json(s->error), oom);
        put(o, "reason", json_string_or_null(*reason ? reason : NULL), oom);
        return o;
}

static json_t *cgroup_json(const struct cordon_doctor_cgroup *c, bool *oom)
{
        bool v2 = c->v2_mount && c->error >= 0;
        json_t *o = json_object(), *v1 = json_object();

        put(o, "layout", json_string(cgroup_layout_name(c->layout)), oom);
        put(o, "v2_mount", json_string_or_null(c->v2_mount), oom);
        put(o, "path", json_string_or_null(c->path), oom);
        put(o, "controllers", v2 ? words_json(c->controllers, oom) : json_null(), oom);
        put(o, "delegated", json_boolean(v2 && c->delegated), oom);
        put(o, "error", error_json(c->error), oom);
        put(v1, "memory", json_string_or_null(c->v1_memory), oom);
        put(v1, "pids", json_string_or_null(c->v1_pids), oom);
        put(o, "v1", v1, oom);
        return o;
}

/* {"memory": {"mechanism": "rlimit", "note": "..."}, "pids": ..., "cpus": ..., "error": null};
 * a mechanism of null: that limit cannot be enforced (the note says why). */
static json_t *limits_json(const struct cordon_doctor_limits *l, bool *oom)
{
        json_t *o = json_object();
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++) {
                enum cordon_limit_mechanism m = l->mechanism[k];
                char note[sizeof(l->reason)];
                json_t *one = json_object();
                limit_note(l, (enum cordon_limit_kind)k, note, sizeof(note));
                put(one, "mechanism",
                    json_string_or_null(
                        m == CORDON_LIMIT_NONE ? NULL : cordon_limit_mechanism_to_string(m)),
                    oom);
                put(one, "note", json_string_or_null(*note ? note : NULL), oom);
                put(o, cordon_limit_kind_to_string((enum cordon_limit_kind)k), one, oom);
        }
        put(o, "error", error_json(l->error), oom);
        return o;
}

/* {"usable": true, "gaps": [the text's gap lines], "features": [{"name": "shm", "what": "...",
 * "works": true, "note": "..."}, ...]}: the same facts as the text, in the same order. */
static json_t *landlock_backend_json(const struct cordon_doctor_landlock_backend *b, bool *oom)
{
        json_t *lb = json_object(), *gaps = json_array(), *features = json_array();
        for (size_t i = 0; gaps && i < ELEMENTSOF(landlock_backend_gaps); i++)
                if (json_array_append_new(gaps, json_string(landlock_backend_gaps[i])) < 0)
                        *oom = true;
        for (size_t i = 0; gaps && features && i < ELEMENTSOF(b->features); i++) {
                const struct cordon_doctor_ll_feature *f = &b->features[i];
                if (!f->works) {
                        char gap[sizeof(f->note) + 128];
                        feature_gap(f, gap, sizeof(gap));
                        if (json_array_append_new(gaps, json_string(gap)) < 0)
                                *oom = true;
                }
                json_t *o = json_object();
                put(o, "name", json_string_or_null(f->name), oom);
                put(o, "what", json_string_or_null(f->what), oom);
                put(o, "works", json_boolean(f->works), oom);
                put(o, "note", json_string_or_null(*f->note ? f->note : NULL), oom);
                if (!o || json_array_append_new(features, o) < 0)
                        *oom = true;
        }
        if (!gaps || !features)
                *oom = true;
        put(lb, "usable", json_boolean(b->usable), oom);
        put(lb, "gaps", gaps, oom);
        put(lb, "features", features, oom);
        return lb;
}

static json_t *build_json(const struct cordon_doctor_report *r)
{
        bool oom = false;
        _cleanup_json_ json_t *root = json_object();
        json_t *pasta = json_object();

        put(pasta, "path", json_string_or_null(r->pasta.path), &oom);

        put(root, "user_namespaces", userns_json(&r->userns, &oom), &oom);
        put(root, "apparmor", apparmor_json(&r->apparmor, &oom), &oom);
        put(root, "landlock", landlock_json(&r->landlock, &oom), &oom);
        put(root, "seccomp", seccomp_json(&r->seccomp, &oom), &oom);
        put(root, "cgroup", cgroup_json(&r->cgroup, &oom), &oom);
        put(root, "limits", limits_json(&r->limits, &oom), &oom);
        put(root, "pasta", pasta, &oom);
        json_t *net = json_object();
        put(net, "filtered", json_boolean(r->network.filtered), &oom);
        put(net, "reason", json_string_or_null(*r->network.reason ? r->network.reason : NULL),
            &oom);
        put(root, "network", net, &oom);
        put(root, "ns_backend_usable", json_boolean(cordon_doctor_ns_backend_usable(r)), &oom);
        put(root, "backend", json_string_or_null(auto_backend(r)), &oom);
        put(root, "landlock_backend", landlock_backend_json(&r->landlock_backend, &oom), &oom);
        put(root, "held", held_json(&oom), &oom);
        return oom ? NULL : TAKE_PTR(root);
}

int cmd_doctor(int argc, char **argv)
{
        bool json = false, help = false;
        if (doctor_parse(argc, argv, &json, &help) < 0)
                return EXIT_USAGE;
        if (help) {
                doctor_help(stdout);
                return 0;
        }

        _cleanup_(cordon_doctor_report_clear) struct cordon_doctor_report report = {0};
        int r = cordon_doctor_collect(getenv("PATH"), &report);
        if (r < 0) {
                log_error_errno(r, "cannot run the checks: %m");
                return 1;
        }

        /* Tests only: the AppArmor facts from a directory standing in for / (see
         * tests/integration/doctor-apparmor.sh), as the other checks cannot be faked. */
        const char *apparmor_root = getenv("CORDON_DOCTOR_APPARMOR_ROOT");
        if (apparmor_root && *apparmor_root)
                cordon_doctor_check_apparmor(apparmor_root, &report.apparmor);

        if (json) {
                _cleanup_json_ json_t *j = build_json(&report);
                if (!j) {
                        log_error("out of memory");
                        return 1;
                }
                if (json_dumpf(j, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF) {
                        log_error("cannot write the report");
                        return 1;
                }
        } else
                print_text(&report);

        if (fflush(stdout) != 0) {
                log_error("cannot write the report: %m");
                return 1;
        }
        return cordon_doctor_ns_backend_usable(&report) ? 0 : 1;
}
