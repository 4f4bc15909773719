/* `cordon doctor`: the text's own words (a limit's banner names, a setting with its origin), the
 * commands that fix what the checks find, and the problems of the settings in use (what is
 * wrong, then what fixes it). Each check's reason in words is the library's
 * (cordon_doctor_*_reason()). Renders nothing itself. */
#include <errno.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/doctor-cli.h"
#include "shared/macro.h"

const char *doctor_errno_name(int r)
{
        return strerrorname_np(r < 0 ? -r : r) ?: "unknown";
}

void doctor_limits_value(const struct cordon_doctor_limits *l, const bool *only, char *buf,
                         size_t n)
{
        size_t len = 0;
        buf[0] = 0;
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX && len < n; k++) {
                enum cordon_limit_mechanism m = l->mechanism[k];
                if (only && !only[k])
                        continue;
                int w = snprintf(buf + len, n - len, "%s%s=%s", len ? " " : "",
                                 cordon_limit_kind_to_string((enum cordon_limit_kind)k),
                                 m == CORDON_LIMIT_NONE ? "unavailable"
                                                        : cordon_limit_mechanism_to_string(m));
                len += w > 0 ? (size_t)w : 0;
        }
}

void doctor_limits_reason(const struct cordon_doctor_limits *l, const bool *only, char *buf,
                          size_t n)
{
        size_t len = 0;
        buf[0] = 0;
        if (l->error < 0) {
                snprintf(buf, n, "probe failed with %s: %s", doctor_errno_name(l->error),
                         *l->reason ? l->reason : strerror(-l->error));
                return;
        }
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX && len < n; k++) {
                char note[sizeof(l->reason)];
                if (only && !only[k])
                        continue;
                cordon_doctor_limit_note(l, (enum cordon_limit_kind)k, note, sizeof(note));
                if (!*note)
                        continue;
                int w = snprintf(buf + len, n - len, "%s%s", len ? "; " : "", note);
                len += w > 0 ? (size_t)w : 0;
        }
}

void doctor_feature_gap(const struct cordon_doctor_ll_feature *f, char *buf, size_t n)
{
        snprintf(buf, n, "%s: %s", f->what, f->note);
}

const char *doctor_apparmor_value(const struct cordon_doctor_apparmor *a)
{
        if (a->restrict_unprivileged_userns == 1 && a->enabled != 0)
                return "restricts user namespaces";
        return a->enabled == 1 ? "active, user namespaces unrestricted" : "not active";
}

void doctor_setting(const struct cordon_settings *s, const char *name, char *buf, size_t n)
{
        char value[256];
        const char *origin = NULL;
        if (cordon_settings_get(s, name, value, sizeof(value), &origin) < 0)
                snprintf(value, sizeof(value), "?");
        snprintf(buf, n, "%s=%s (%s)", name, value, origin ?: "?");
}

/* --- problems --- */

_printf_(4, 5) static void add(struct doctor_problems *pr, bool refuses, const char *fix,
                               const char *fmt, ...)
{
        if (pr->n >= ELEMENTSOF(pr->p))
                return;
        struct doctor_problem *p = &pr->p[pr->n++];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->what, sizeof(p->what), fmt, ap);
        va_end(ap);
        snprintf(p->fix, sizeof(p->fix), "%s", fix);
        p->refuses = refuses;
}

/* The library's reasons end in the fix, in parentheses ("pasta cannot open /dev/net/tun:
 * Permission denied (udev's default ...: chmod 0666 /dev/net/tun)"): @why split into the two. */
static void split_fix(const char *why, char *what, size_t wn, char *fix, size_t fn)
{
        size_t len = strlen(why);
        *fix = 0;
        if (len > 2 && why[len - 1] == ')') {
                int depth = 0;
                for (size_t i = len; i-- > 0;) {
                        depth += why[i] == ')' ? 1 : why[i] == '(' ? -1 : 0;
                        if (depth == 0 && i > 0 && why[i - 1] == ' ') {
                                snprintf(what, wn, "%.*s", (int)(i - 1), why);
                                /* "why it helps: COMMAND" is rendered "COMMAND (why it helps)":
                                 * the command first. */
                                const char *in = why + i + 1;
                                int k = (int)(len - i - 2);
                                const char *colon = memmem(in, (size_t)k, ": ", 2);
                                if (colon)
                                        snprintf(fix, fn, "%.*s (%.*s)",
                                                 (int)(k - (colon + 2 - in)), colon + 2,
                                                 (int)(colon - in), in);
                                else
                                        snprintf(fix, fn, "%.*s", k, in);
                                return;
                        }
                        if (depth == 0)
                                break;
                }
        }
        snprintf(what, wn, "%s", why);
}

/* The command that lifts what keeps user namespaces from cordon; "" when there is none. */
static void userns_fix(const struct cordon_doctor_report *r, char *buf, size_t n)
{
        switch (r->userns.blocker) {
        case CORDON_USERNS_BLOCKER_MAX_NAMESPACES:
                snprintf(buf, n, "sudo sysctl -w user.max_user_namespaces=10000");
                return;
        case CORDON_USERNS_BLOCKER_UNPRIVILEGED:
                snprintf(buf, n, "sudo sysctl -w kernel.unprivileged_userns_clone=1");
                return;
        case CORDON_USERNS_BLOCKER_APPARMOR:
                cordon_doctor_apparmor_fix(&r->apparmor, buf, n);
                return;
        case CORDON_USERNS_BLOCKER_NONE:
                break;
        }
        snprintf(buf, n, "%s", "");
}

static void landlock_fix(const struct cordon_doctor_landlock *l, char *buf, size_t n)
{
        if (l->error == -EOPNOTSUPP)
                snprintf(buf, n, "add landlock to the kernel's lsm= boot parameter");
        else if (l->error == -ENOSYS)
                snprintf(buf, n, "a kernel built with CONFIG_SECURITY_LANDLOCK (Linux 5.13+)");
        else
                snprintf(buf, n, "%s", "");
}

static void backend_problems(const struct doctor_view *v, struct doctor_problems *pr)
{
        const struct cordon_doctor_report *r = v->r;
        const struct cordon_doctor_setup *d = v->setup;
        char ureason[256], lreason[256], ufix[sizeof(pr->p[0].fix) - 512], lfix[256];
        char fix[sizeof(pr->p[0].fix)];
        cordon_doctor_userns_reason(&r->userns, ureason, sizeof(ureason));
        cordon_doctor_landlock_reason(&r->landlock, lreason, sizeof(lreason));
        userns_fix(r, ufix, sizeof(ufix));
        landlock_fix(&r->landlock, lfix, sizeof(lfix));
        char afix[sizeof(ufix)];
        cordon_doctor_apparmor_fix(&r->apparmor, afix, sizeof(afix));

        /* AppArmor's restriction has its own fix, the one command that lifts it for cordon. */
        bool apparmor =
            r->apparmor.restricts_caller && d->backend_setting != CORDON_BACKEND_LANDLOCK;
        if (apparmor) {
                char reason[256];
                cordon_doctor_apparmor_reason(&r->apparmor, reason, sizeof(reason));
                add(pr, !d->backend_usable, afix, "AppArmor restricts user namespaces (%s)%s",
                    reason,
                    d->backend == CORDON_BACKEND_LANDLOCK ? "; auto uses the landlock backend"
                                                          : "");
                if (r->userns.blocker == CORDON_USERNS_BLOCKER_APPARMOR || r->userns.usable)
                        return;
        }
        switch (d->backend_setting) {
        case CORDON_BACKEND_NS:
                if (!d->backend_usable)
                        add(pr, true, *ufix ? ufix : "SANDBOX_BACKEND=landlock",
                            "SANDBOX_BACKEND=ns, and user namespaces are unavailable here (%s)",
                            ureason);
                return;
        case CORDON_BACKEND_LANDLOCK:
                if (!d->backend_usable)
                        add(pr, true, *lfix ? lfix : "SANDBOX_BACKEND=ns",
                            "SANDBOX_BACKEND=landlock, and Landlock is unavailable here (%s)",
                            lreason);
                return;
        case CORDON_BACKEND_AUTO:
                break;
        }
        if (d->backend < 0) {
                snprintf(fix, sizeof(fix), "%s%s%s", ufix, *ufix && *lfix ? "; or " : "", lfix);
                add(pr, true, fix,
                    "no backend can run here: user namespaces are unavailable (%s) and so is "
                    "Landlock (%s)",
                    ureason, lreason);
        } else if (d->backend == CORDON_BACKEND_LANDLOCK)
                add(pr, false, *ufix ? ufix : "run cordon where user namespaces are allowed",
                    "user namespaces are unavailable (%s): auto uses the landlock backend, with "
                    "the gaps listed above",
                    ureason);
}

/* Landlock and seccomp under the ns backend (the landlock backend's own need is the backend
 * problem above). */
static void layer_problems(const struct doctor_view *v, struct doctor_problems *pr)
{
        const struct cordon_doctor_report *r = v->r;
        const struct cordon_doctor_setup *d = v->setup;
        if (!d->layers_wanted || d->backend != CORDON_BACKEND_NS || !d->backend_usable)
                return;
        const char *then = d->layer_missing_refuses ? "cordon run refuses to start"
                                                    : "cordon run warns and runs without it";
        if (r->landlock.abi <= 0) {
                char reason[256], fix[512], lfix[256];
                cordon_doctor_landlock_reason(&r->landlock, reason, sizeof(reason));
                landlock_fix(&r->landlock, lfix, sizeof(lfix));
                snprintf(fix, sizeof(fix), "%s%sCORDON_HANDLER_SANDBOX=warn runs without it", lfix,
                         *lfix ? "; or " : "");
                add(pr, d->layer_missing_refuses, fix, "Landlock is unavailable (%s): %s", reason,
                    then);
        }
        if (!r->seccomp.filter) {
                char reason[256];
                cordon_doctor_seccomp_reason(&r->seccomp, reason, sizeof(reason));
                add(pr, d->layer_missing_refuses,
                    "a kernel with CONFIG_SECCOMP_FILTER; or CORDON_HANDLER_SANDBOX=warn runs "
                    "without it",
                    "seccomp filters are unavailable (%s): %s", reason, then);
        }
}

static void net_problems(const struct doctor_view *v, struct doctor_problems *pr)
{
        const struct cordon_doctor_setup *d = v->setup;
        if (d->backend < 0 || !d->backend_usable || !*d->net_why)
                return;
        char what[sizeof(pr->p[0].what)], fix[sizeof(pr->p[0].fix)], mode[512];
        split_fix(d->net_why, what, sizeof(what), fix, sizeof(fix));
        doctor_setting(v->s, "NETWORK_FILTER_MODE", mode, sizeof(mode));
        if (d->net_mode >= 0) {
                const char *got = cordon_net_mode_to_string((enum cordon_net_mode)d->net_mode);
                /* Asking for what runs anyway also settles it, without the warning. */
                size_t k = strlen(fix);
                snprintf(fix + k, sizeof(fix) - k, "%sNETWORK_FILTER_MODE=%s to ask for %s",
                         k ? "; or " : "", got, got);
                const struct passwd *pw = getpwuid(getuid());
                add(pr, false, fix,
                    "network mode %s cannot be delivered for %s here: %s; cordon run uses %s "
                    "instead (NETWORK_FILTER_FALLBACK)",
                    cordon_net_mode_to_string(d->net_want), pw ? pw->pw_name : "this user", what,
                    got);
        } else {
                if (!*fix)
                        snprintf(fix, sizeof(fix), "another NETWORK_FILTER_MODE");
                add(pr, true, fix, "%s cannot be delivered here: %s; cordon run refuses to start",
                    mode, what);
        }
}

static void limit_problems(const struct doctor_view *v, struct doctor_problems *pr)
{
        const struct cordon_doctor_setup *d = v->setup;
        static const char *const names[_CORDON_LIMIT_KIND_MAX] = {
            [CORDON_LIMIT_MEMORY] = "MEMORY_LIMIT",
            [CORDON_LIMIT_PIDS] = "PIDS_LIMIT",
            [CORDON_LIMIT_CPUS] = "CPU_LIMIT",
        };
        char setting[512];
        if (d->limits.error < 0) {
                doctor_setting(v->s, "CGROUP_PATH", setting, sizeof(setting));
                add(pr, true, "CGROUP_PATH naming a cgroup v2 directory delegated to you",
                    "%s cannot be used: %s", setting,
                    *d->limits.reason ? d->limits.reason : strerror(-d->limits.error));
                return;
        }
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                if (d->limit_set[k] && d->limits.mechanism[k] == CORDON_LIMIT_NONE) {
                        doctor_setting(v->s, names[k], setting, sizeof(setting));
                        add(pr, true,
                            "CGROUP_PATH naming a cgroup v2 directory delegated to you, with "
                            "that controller",
                            "%s cannot be enforced: %s", setting, d->limits.reason);
                }
}

void doctor_problems_find(const struct doctor_view *v, struct doctor_problems *ret)
{
        *ret = (struct doctor_problems){0};
        if (*v->config_error)
                add(ret, true, "correct the file and line named above (cordon config show)",
                    "the configuration cannot be loaded: %s", v->config_error);
        backend_problems(v, ret);
        layer_problems(v, ret);
        net_problems(v, ret);
        limit_problems(v, ret);
}
