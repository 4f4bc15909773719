/* `cordon doctor` checks: each asks the kernel directly (a probe or a harmless syscall) rather
 * than guessing from version numbers, and records the errno when the answer is "no". */
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/launch/backend-auto.h"
#include "lib/mech/cgroup.h"
#include "lib/doctor/doctor.h"
#include "lib/mech/pasta.h"
#include "lib/mech/landlock.h"
#include "lib/mech/ns-user.h"
#include "lib/snapshot/snapshot-lib.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#ifndef SECCOMP_GET_ACTION_AVAIL
#define SECCOMP_GET_ACTION_AVAIL 2
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U
#endif

#define DEFAULT_SEARCH_PATH "/usr/local/bin:/usr/bin:/bin"

/* A sysctl holding one non-negative integer, or -1 when it is absent or unreadable. */
long cordon_read_sysctl(const char *path)
{
        _cleanup_free_ char *s = NULL;
        if (read_full_file(path, 64, &s, NULL) < 0)
                return -1;
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || v < 0)
                return -1;
        return v;
}

/* Which host setting explains a failed probe. The probe collapses a refused id-map write into
 * EPERM, so the sysctls are what tells the cases apart. user.max_user_namespaces = 0 binds even
 * root, so it comes first; the other two exempt CAP_SYS_ADMIN callers, but a failed probe means
 * the caller was not exempt. */
static enum cordon_userns_blocker userns_blocker(const struct cordon_doctor_userns *u)
{
        if (u->max_user_namespaces == 0)
                return CORDON_USERNS_BLOCKER_MAX_NAMESPACES;
        if (u->unprivileged_userns_clone == 0)
                return CORDON_USERNS_BLOCKER_UNPRIVILEGED;
        /* Ubuntu 23.10+: the clone succeeds, but the child holds no capabilities in the new
         * namespace unless an AppArmor profile grants "userns", so writing the id maps fails. */
        if (u->apparmor_restrict_unprivileged_userns > 0)
                return CORDON_USERNS_BLOCKER_APPARMOR;
        return CORDON_USERNS_BLOCKER_NONE;
}

_public_ void cordon_doctor_check_userns(struct cordon_doctor_userns *ret)
{
        struct cordon_doctor_userns u = {
            .unprivileged_userns_clone =
                cordon_read_sysctl("/proc/sys/kernel/unprivileged_userns_clone"),
            .max_user_namespaces = cordon_read_sysctl("/proc/sys/user/max_user_namespaces"),
            .apparmor_restrict_unprivileged_userns =
                cordon_read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
        };
        /* The real thing rather than the sysctls alone: seccomp policies of container runtimes,
         * a chroot, or an exhausted namespace count also refuse, and no sysctl shows those. */
        int r = cordon_ns_user_probe();
        u.usable = r >= 0;
        u.error = r < 0 ? r : 0;
        if (!u.usable)
                u.blocker = userns_blocker(&u);
        *ret = u;
}

_public_ void cordon_doctor_check_landlock(struct cordon_doctor_landlock *ret)
{
        int abi = cordon_landlock_abi();
        *ret = abi > 0 ? (struct cordon_doctor_landlock){.abi = abi}
                       : (struct cordon_doctor_landlock){.error = abi};
}

static const uint32_t seccomp_actions[_CORDON_SECCOMP_ACTION_COUNT] = {
    SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP, SECCOMP_RET_ERRNO,
    SECCOMP_RET_USER_NOTIF,   SECCOMP_RET_TRACE,       SECCOMP_RET_LOG,  SECCOMP_RET_ALLOW,
};

_public_ void cordon_doctor_check_seccomp(struct cordon_doctor_seccomp *ret)
{
        struct cordon_doctor_seccomp s = {.mode = -1};

        /* EINVAL here: the kernel was built without CONFIG_SECCOMP. */
        int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
        if (mode < 0) {
                s.error = negative_errno();
                *ret = s;
                return;
        }
        s.mode = mode;

        /* A NULL program is refused with EFAULT only after the kernel has accepted the request as
         * a filter; without CONFIG_SECCOMP_FILTER the answer is EINVAL. Nothing is installed. */
        int k = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0);
        if (k < 0 && errno == EFAULT)
                s.filter = true;
        else
                s.error = k < 0 ? negative_errno() : -EIO;

        /* Informational: SECCOMP_GET_ACTION_AVAIL exists since 4.14; older kernels say EINVAL
         * and leave the mask empty. */
        for (size_t i = 0; s.filter && i < ELEMENTSOF(seccomp_actions); i++) {
                uint32_t action = seccomp_actions[i];
                if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0)
                        s.actions |= 1u << i;
        }
        *ret = s;
}

static enum cordon_cgroup_layout cgroup_layout(const char **ret_v2_mount)
{
        struct statfs fs;

        *ret_v2_mount = NULL;
        if (statfs("/sys/fs/cgroup", &fs) < 0)
                return CORDON_CGROUP_NONE;
        if (fs.f_type == CGROUP2_SUPER_MAGIC) {
                *ret_v2_mount = "/sys/fs/cgroup";
                return CORDON_CGROUP_UNIFIED;
        }
        /* Legacy and hybrid put a tmpfs there with one v1 mount per controller below it;
         * hybrid adds the v2 tree as "unified" (the systemd convention). */
        if (fs.f_type != TMPFS_MAGIC)
                return CORDON_CGROUP_NONE;
        if (statfs("/sys/fs/cgroup/unified", &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC) {
                *ret_v2_mount = "/sys/fs/cgroup/unified";
                return CORDON_CGROUP_HYBRID;
        }
        return CORDON_CGROUP_LEGACY;
}

/* The caller's v2 cgroup and its v1 memory and pids cgroups, from /proc/self/cgroup. */
static int parse_proc_cgroup(const char *text, struct cordon_doctor_cgroup *c)
{
        const struct {
                const char *controller; /* NULL: the v2 hierarchy */
                char **dst;
        } want[] = {{NULL, &c->path}, {"memory", &c->v1_memory}, {"pids", &c->v1_pids}};
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                char path[PATH_MAX];
                int r = cordon_cgroup_parse_self(text, want[i].controller, path, sizeof(path));
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return r;
                *want[i].dst = strdup(path);
                if (!*want[i].dst)
                        return -ENOMEM;
        }
        return 0;
}

static int split_words(const char *s, char ***ret)
{
        _cleanup_strv_free_ char **l = NULL;
        for (const char *p = s;;) {
                p += strspn(p, " \t\n");
                if (!*p)
                        break;
                size_t n = strcspn(p, " \t\n");
                char *w = strndup(p, n);
                if (!w || strv_consume(&l, w) < 0)
                        return -ENOMEM;
                p += n;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

static bool can_write(const char *dir, const char *name)
{
        _cleanup_free_ char *p = name ? path_join(dir, name) : NULL;
        if (name && !p)
                return false;
        /* Effective ids: those are what the later mkdir and writes are checked against. */
        return faccessat(AT_FDCWD, p ?: dir, W_OK, AT_EACCESS) == 0;
}

/* Fills path, controllers and delegated from the caller's v2 cgroup and the v1 paths. */
static int cgroup_inspect(struct cordon_doctor_cgroup *c)
{
        _cleanup_free_ char *text = NULL;
        int r = read_full_file("/proc/self/cgroup", 64 * 1024, &text, NULL);
        if (r < 0)
                return r;
        r = parse_proc_cgroup(text, c);
        if (r < 0)
                return r;
        if (!c->v2_mount)
                return 0;
        if (!c->path)
                return -ENODATA; /* a v2 mount but no "0::" line: a kernel older than 4.5 */

        /* "/.." prefixes: the cgroup lies outside our cgroup namespace and is not visible. */
        _cleanup_free_ char *norm = NULL;
        r = path_normalize(c->path, &norm);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return -ENOENT;
        _cleanup_free_ char *dir =
            streq(norm, "/") ? strdup(c->v2_mount) : path_join(c->v2_mount, norm);
        _cleanup_free_ char *file = dir ? path_join(dir, "cgroup.controllers") : NULL;
        if (!file)
                return -ENOMEM;

        _cleanup_free_ char *controllers = NULL;
        r = read_full_file(file, 64 * 1024, &controllers, NULL);
        if (r < 0)
                return r;
        r = split_words(controllers, &c->controllers);
        if (r < 0)
                return r;

        /* Delegation as systemd grants it: the directory (to create children) and its
         * cgroup.procs and cgroup.subtree_control belong to the caller. Moving ourselves into a
         * child needs write access to cgroup.procs of the common ancestor, which is this one. */
        c->delegated = can_write(dir, NULL) && can_write(dir, "cgroup.procs") &&
                       can_write(dir, "cgroup.subtree_control");
        return 0;
}

static void cgroup_clear(struct cordon_doctor_cgroup *c)
{
        free(c->path);
        strv_free(c->controllers);
        free(c->v1_memory);
        free(c->v1_pids);
        *c = (struct cordon_doctor_cgroup){0};
}

_public_ int cordon_doctor_check_cgroup(struct cordon_doctor_cgroup *ret)
{
        struct cordon_doctor_cgroup c = {0};
        c.layout = cgroup_layout(&c.v2_mount);
        int r = cgroup_inspect(&c);
        if (r == -ENOMEM) {
                cgroup_clear(&c);
                return r;
        }
        c.error = r < 0 ? r : 0;
        *ret = c;
        return 0;
}

int cordon_doctor_check_limits_in(const struct cordon_limits_host *host, const char *cgroup_path,
                                  struct cordon_doctor_limits *ret)
{
        struct cordon_doctor_limits l = {0};
        struct cordon_diag diag = {0};

        int r = cordon_limits_probe_at(host, cgroup_path, l.mechanism, &diag);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                l = (struct cordon_doctor_limits){.error = r};
                snprintf(l.reason, sizeof(l.reason), "%s", diag.message);
        } else {
                bool none = false;
                for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                        none |= l.mechanism[k] == CORDON_LIMIT_NONE;
                /* The diag is only meaningful when the probe refused a limit. */
                if (none)
                        snprintf(l.reason, sizeof(l.reason), "%s", diag.message);
        }
        *ret = l;
        return 0;
}

int cordon_doctor_check_limits_at(const struct cordon_limits_host *host,
                                  struct cordon_doctor_limits *ret)
{
        /* No --cgroup: what a plain `cordon run --memory/--pids/--cpus` gets. */
        return cordon_doctor_check_limits_in(host, NULL, ret);
}

_public_ int cordon_doctor_check_limits(struct cordon_doctor_limits *ret)
{
        return cordon_doctor_check_limits_at(NULL, ret);
}

_public_ int cordon_doctor_find_pasta(const char *search_path, struct cordon_doctor_pasta *ret)
{
        _cleanup_free_ char *copy = strdup(search_path ?: DEFAULT_SEARCH_PATH);
        if (!copy)
                return -ENOMEM;
        char *rest = copy, *dir;
        while ((dir = strsep(&rest, ":"))) {
                /* Empty ("the working directory") and relative entries would make the helper
                 * depend on where cordon was started: never pick a helper from them. */
                if (!path_is_absolute(dir))
                        continue;
                _cleanup_free_ char *candidate = path_join(dir, "pasta");
                if (!candidate)
                        return -ENOMEM;
                struct stat st;
                if (stat(candidate, &st) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (faccessat(AT_FDCWD, candidate, X_OK, AT_EACCESS) < 0)
                        continue;
                *ret = (struct cordon_doctor_pasta){.path = TAKE_PTR(candidate)};
                return 0;
        }
        *ret = (struct cordon_doctor_pasta){0};
        return 0;
}

_public_ void cordon_doctor_check_network(struct cordon_doctor_network *ret)
{
        struct cordon_diag diag = {0};
        /* The launch's own probe, for the ns backend and without NETWORK_FILTER_HELPER:
         * what the default settings get. */
        ret->filtered = cordon_pasta_probe(NULL, CORDON_BACKEND_NS, false, &diag) >= 0;
        snprintf(ret->reason, sizeof(ret->reason), "%s", ret->filtered ? "" : diag.message);
}

_public_ int cordon_doctor_check_snapshot(struct cordon_diag *diag)
{
        /* The snapshot module's own loader: what a snapshot would find, found the same way. */
        return cordon_snapshot_lib(diag) ? 0 : -ENOPKG;
}

_public_ void cordon_doctor_report_clear(struct cordon_doctor_report *r)
{
        if (!r)
                return;
        cgroup_clear(&r->cgroup);
        free(r->pasta.path);
        *r = (struct cordon_doctor_report){0};
}

_public_ int cordon_doctor_collect(const char *search_path, struct cordon_doctor_report *ret)
{
        _cleanup_(cordon_doctor_report_clear) struct cordon_doctor_report rep = {0};

        cordon_doctor_check_userns(&rep.userns);
        cordon_doctor_check_landlock(&rep.landlock);
        cordon_doctor_check_seccomp(&rep.seccomp);
        int r = cordon_doctor_check_cgroup(&rep.cgroup);
        if (r < 0)
                return r;
        r = cordon_doctor_check_limits(&rep.limits);
        if (r < 0)
                return r;
        r = cordon_doctor_find_pasta(search_path, &rep.pasta);
        if (r < 0)
                return r;
        cordon_doctor_check_network(&rep.network);
        cordon_doctor_check_landlock_backend(&rep.landlock, &rep.seccomp, &rep.landlock_backend);
        cordon_doctor_check_apparmor(NULL, &rep.apparmor); /* doctor-apparmor.c */
        *ret = rep;
        rep = (struct cordon_doctor_report){0}; /* ownership went to *ret */
        return 0;
}

_public_ bool cordon_doctor_ns_backend_usable(const struct cordon_doctor_report *r)
{
        return r->userns.usable;
}

_public_ int cordon_doctor_auto_backend(const struct cordon_doctor_report *r)
{
        const struct cordon_backend_facts f = {
            .userns = r->userns.usable ? 1 : 0,
            .landlock_abi = r->landlock.abi > 0 ? r->landlock.abi : r->landlock.error,
            .euid = geteuid(),
            .apparmor_restrict_unprivileged_userns =
                r->userns.apparmor_restrict_unprivileged_userns,
        };
        return cordon_backend_auto_decide(&f, NULL);
}

/* Declared in cordon/sandbox.h: the public face of cordon_landlock_features[], for doctor
 * reports and receipts. */
_public_ const char *cordon_landlock_feature_name(unsigned i, int *ret_abi)
{
        if (i >= cordon_landlock_n_features)
                return NULL;
        if (ret_abi)
                *ret_abi = cordon_landlock_features[i].abi;
        return cordon_landlock_features[i].name;
}
