/* The host checks in words: each check's reason, a limit's caveat, AppArmor's fix, the names of
 * the enums' values and what the landlock backend lacks everywhere. One source for every front
 * end's rendering: the doctor's JSON (doctor-json.c) and `cordon doctor`'s text. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cordon/doctor.h"
#include "lib/report/report-json.h"
#include "shared/macro.h"

/* Formats into @buf of @n (cut, always terminated; nothing for @n == 0) and returns the text. */
_printf_(3, 4) static const char *say(char *buf, size_t n, const char *fmt, ...)
{
        if (!buf || n == 0)
                return "";
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, n, fmt, ap);
        va_end(ap);
        return buf;
}

const char *cordon_errno_name(int r)
{
        return strerrorname_np(r < 0 ? -r : r) ?: "unknown";
}

_public_ const char *cordon_doctor_userns_reason(const struct cordon_doctor_userns *u, char *buf,
                                                 size_t n)
{
        switch (u->blocker) {
        case CORDON_USERNS_BLOCKER_MAX_NAMESPACES:
                return say(buf, n, "user.max_user_namespaces=0");
        case CORDON_USERNS_BLOCKER_UNPRIVILEGED:
                return say(buf, n, "kernel.unprivileged_userns_clone=0");
        case CORDON_USERNS_BLOCKER_APPARMOR:
                return say(
                    buf, n,
                    "AppArmor restricts them: kernel.apparmor_restrict_unprivileged_userns=%ld",
                    u->apparmor_restrict_unprivileged_userns);
        case CORDON_USERNS_BLOCKER_NONE:
                break;
        }
        if (u->usable)
                return say(buf, n, "%s", "");
        return say(buf, n, "probe failed with %s: %s", cordon_errno_name(u->error),
                   strerror(-u->error));
}

_public_ const char *cordon_doctor_landlock_reason(const struct cordon_doctor_landlock *l,
                                                   char *buf, size_t n)
{
        if (l->abi > 0)
                return say(buf, n, "%s", "");
        if (l->error == -ENOSYS)
                return say(buf, n, "ENOSYS: kernel built without Landlock");
        if (l->error == -EOPNOTSUPP)
                return say(buf, n,
                           "EOPNOTSUPP: disabled at boot, landlock is not in the lsm= list");
        return say(buf, n, "%s: %s", cordon_errno_name(l->error), strerror(-l->error));
}

_public_ const char *cordon_doctor_seccomp_reason(const struct cordon_doctor_seccomp *s, char *buf,
                                                  size_t n)
{
        if (s->filter)
                return say(buf, n, "%s", s->mode == 2 ? "this process is already filtered" : "");
        if (s->error == -EINVAL)
                return say(buf, n, "EINVAL: kernel built without %s",
                           s->mode < 0 ? "CONFIG_SECCOMP" : "CONFIG_SECCOMP_FILTER");
        return say(buf, n, "%s: %s", cordon_errno_name(s->error), strerror(-s->error));
}

_public_ const char *cordon_cgroup_layout_to_string(enum cordon_cgroup_layout l)
{
        switch (l) {
        case CORDON_CGROUP_UNIFIED:
                return "unified";
        case CORDON_CGROUP_HYBRID:
                return "hybrid";
        case CORDON_CGROUP_LEGACY:
                return "legacy";
        case CORDON_CGROUP_NONE:
                return "none";
        }
        return NULL;
}

_public_ const char *cordon_doctor_limit_note(const struct cordon_doctor_limits *l,
                                              enum cordon_limit_kind k, char *buf, size_t n)
{
        if ((unsigned)k >= _CORDON_LIMIT_KIND_MAX)
                return say(buf, n, "%s", "");
        switch (l->mechanism[k]) {
        case CORDON_LIMIT_NONE:
                return say(buf, n, "%s", l->reason);
        case CORDON_LIMIT_RLIMIT:
                if (k == CORDON_LIMIT_MEMORY)
                        return say(buf, n,
                                   "memory: RLIMIT_AS/RLIMIT_DATA per process, address "
                                   "space rather than resident memory");
                return say(buf, n,
                           "pids: RLIMIT_NPROC counts every process of uid %u, also those "
                           "outside the sandbox",
                           (unsigned)getuid());
        case CORDON_LIMIT_AFFINITY:
                return say(buf, n, "cpus: CPU affinity to the first N CPUs, not a time quota");
        case CORDON_LIMIT_PID_MAX:
                return say(buf, n, "pids: the pid namespace's pid_max, 300 over the limit");
        case CORDON_LIMIT_CGROUP1:
        case CORDON_LIMIT_CGROUP2:
                break;
        }
        return say(buf, n, "%s", "");
}

_public_ const char *cordon_doctor_seccomp_action_name(unsigned i)
{
        static const char *const names[_CORDON_SECCOMP_ACTION_COUNT] = {
            "kill_process", "kill_thread", "trap", "errno", "user_notif", "trace", "log", "allow",
        };
        return i < ELEMENTSOF(names) ? names[i] : NULL;
}

_public_ const char *cordon_doctor_landlock_backend_gap(unsigned i)
{
        /* What depends on the host is in the report's landlock_backend items. */
        static const char *const gaps[] = {
            "denied paths answer EACCES instead of being hidden (ENOENT)",
            "no pid, ipc, uts or network namespace: isolated mode refuses socket() instead, and "
            "the host's processes show in /proc (what the command leaves behind is killed by a "
            "reaper outside the sandbox, not by the end of a pid namespace)",
            "a blocked path inside a granted directory is carved out of the grant: entries "
            "created later directly in that directory are out of reach",
            "no user namespace of its own: the command shares the user's inotify, fanotify and "
            "namespace limits (/proc/sys/user) and can use them up for the user's programs "
            "outside",
        };
        return i < ELEMENTSOF(gaps) ? gaps[i] : NULL;
}

/* --- AppArmor (Ubuntu 23.10+): the restriction of user namespaces and the one command that
 * lifts it for cordon --- */

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

_public_ const char *cordon_doctor_apparmor_reason(const struct cordon_doctor_apparmor *a,
                                                   char *buf, size_t n)
{
        if (a->restrict_unprivileged_userns != 1 || a->enabled == 0)
                return say(buf, n, "%s", "");
        if (a->restricts_caller)
                return say(buf, n,
                           "kernel.apparmor_restrict_unprivileged_userns=1 and no profile grants "
                           "them to cordon: the ns backend needs cordon's profile");
        if (*a->label && !streq(a->label, "unconfined"))
                return say(buf, n,
                           "kernel.apparmor_restrict_unprivileged_userns=1; cordon runs under the "
                           "profile '%s'",
                           a->label);
        return say(buf, n, "kernel.apparmor_restrict_unprivileged_userns=1; root is exempt");
}

_public_ const char *cordon_doctor_apparmor_fix(const struct cordon_doctor_apparmor *a, char *buf,
                                                size_t n)
{
        char src[PATH_MAX + 64], dst[PATH_MAX + 64], dst_path[PATH_MAX];
        if (!buf || n == 0)
                return "";
        if (!a->restricts_caller)
                return say(buf, n, "%s", "");
        if (!a->profile_installed)
                return say(buf, n,
                           "none from here: %s is missing; `sudo make install` in cordon's source "
                           "tree installs and loads the profile",
                           a->profile);
        snprintf(dst_path, sizeof(dst_path), "%s/cordon", a->profile_dir);
        shell_quote(a->profile, src, sizeof(src));
        shell_quote(dst_path, dst, sizeof(dst));
        if (!*src || !*dst)
                return say(buf, n, "%s", "");
        int w = snprintf(buf, n, "sudo install -m 0644 %s %s && sudo apparmor_parser -r %s", src,
                         dst, dst);
        if (w < 0 || (size_t)w >= n)
                buf[0] = 0; /* never a truncated command */
        return buf;
}
