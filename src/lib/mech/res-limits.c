/* Resource limits: picks cgroup v2, cgroup v1 or setrlimit/affinity for each limit (plan, then
 * act: the same plan answers `cordon doctor`), creates the cgroups, and applies the child-side
 * fallbacks between clone and exec. The cgroupfs operations live in cgroup.c. */
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mech/cgroup.h"
#include "lib/policy/diag.h"
#include "lib/mech/res-limits.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"

#define CPU_PERIOD_USEC 100000ULL
#define WHY_MAX         512

/* Controller of each limit; the same name in v1 and v2. */
static const char *const controller[_CORDON_LIMIT_KIND_MAX] = {
    [CORDON_LIMIT_MEMORY] = "memory",
    [CORDON_LIMIT_PIDS] = "pids",
    [CORDON_LIMIT_CPUS] = "cpu",
};

/* What planning found out; nothing is created while it is filled. */
struct plan {
        bool want[_CORDON_LIMIT_KIND_MAX];
        enum cordon_limit_mechanism mech[_CORDON_LIMIT_KIND_MAX];
        bool explicit_path; /* v2 base from --cgroup */
        char v2_base[CORDON_LIMITS_PATH_MAX];
        bool v2_enable[_CORDON_LIMIT_KIND_MAX]; /* to add to v2_base/cgroup.subtree_control */
        char v1_base[_CORDON_LIMIT_KIND_MAX][CORDON_LIMITS_PATH_MAX];
        char why_v2[_CORDON_LIMIT_KIND_MAX][WHY_MAX]; /* why a limit does not get v2 */
        char why_v1[_CORDON_LIMIT_KIND_MAX][WHY_MAX];
        /* Set by a failed attempt to act on an earlier plan: plan again without it. */
        bool skip_v2[_CORDON_LIMIT_KIND_MAX];
        bool skip_v1[_CORDON_LIMIT_KIND_MAX];
};

static const char *host_file(const char *s, const char *fallback)
{
        return s ? s : fallback;
}

static uid_t host_uid(const struct cordon_limits_host *h)
{
        return h && h->uid >= 0 ? (uid_t)h->uid : getuid();
}

static bool writable(const char *dir)
{
        return faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0;
}

static void set_why(char *buf, const char *fmt, ...) _printf_(2, 3);
static void set_why(char *buf, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, WHY_MAX, fmt, ap);
        va_end(ap);
}

/* The caller's own cgroup directory in a hierarchy (@ctl NULL: v2), and that hierarchy's mount
 * point. Returns 0 or -errno with @why set. */
static int own_dir(const struct cordon_limits_host *h, const char *ctl, char *ret, char *ret_mnt,
                   char *why)
{
        _cleanup_free_ char *mi = NULL, *self = NULL;
        char root[CORDON_LIMITS_PATH_MAX], path[CORDON_LIMITS_PATH_MAX];
        const char *what = ctl ? ctl : "cgroup2";
        const char *mi_path = host_file(h ? h->mountinfo : NULL, "/proc/self/mountinfo");
        const char *self_path = host_file(h ? h->proc_self_cgroup : NULL, "/proc/self/cgroup");

        int r = read_full_file(mi_path, 4 << 20, &mi, NULL);
        if (r < 0) {
                set_why(why, "cannot read %s: %s", mi_path, strerror(-r));
                return r;
        }
        r = cordon_mountinfo_find_cgroup(mi, ctl, ret_mnt, CORDON_LIMITS_PATH_MAX, root,
                                         sizeof(root));
        if (r < 0) {
                set_why(why, "no %s hierarchy is mounted", what);
                return r;
        }
        r = read_full_file(self_path, 1 << 20, &self, NULL);
        if (r >= 0)
                r = cordon_cgroup_parse_self(self, ctl, path, sizeof(path));
        if (r < 0) {
                set_why(why, "no %s entry in %s", what, self_path);
                return r;
        }
        r = cordon_cgroup_dir_of(ret_mnt, root, path, ret, CORDON_LIMITS_PATH_MAX);
        if (r < 0)
                set_why(why, "the %s cgroup %s is not visible below %s", what, path, ret_mnt);
        return r;
}

/* Resolves --cgroup PATH to a directory in the v2 hierarchy. Hard errors, with the diag set. */
static int explicit_dir(const struct cordon_limits_host *h, const char *cgroup_path, char *ret,
                        char *ret_mnt, struct cordon_diag *diag)
{
        char why[WHY_MAX], ignored[CORDON_LIMITS_PATH_MAX], real[PATH_MAX];
        if (!realpath(cgroup_path, real))
                return cordon_diag_set(diag, -errno, "cgroup %s: %s", cgroup_path, strerror(errno));
        struct stat st;
        if (stat(real, &st) < 0)
                return cordon_diag_set(diag, -errno, "cgroup %s: %s", cgroup_path, strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return cordon_diag_set(diag, -ENOTDIR, "cgroup %s is not a directory", cgroup_path);
        /* Only the mount point matters here, not the caller's own place in the hierarchy. */
        (void)own_dir(h, NULL, ignored, ret_mnt, why);
        if (!*ret_mnt)
                return cordon_diag_set(diag, -EINVAL, "cgroup %s: %s", cgroup_path, why);
        if (!path_is_below(real, ret_mnt))
                return cordon_diag_set(diag, -EINVAL,
                                       "cgroup %s is not in the cgroup v2 hierarchy (mounted at "
                                       "%s)",
                                       cgroup_path, ret_mnt);
        char probe[CORDON_LIMITS_PATH_MAX];
        if (snprintf(probe, sizeof(probe), "%s/cgroup.controllers", real) >= (int)sizeof(probe))
                return cordon_diag_set(diag, -ENAMETOOLONG, "cgroup %s: path too long",
                                       cgroup_path);
        if (access(probe, F_OK) < 0)
                return cordon_diag_set(diag, -EINVAL,
                                       "%s is not a cgroup v2 directory (no cgroup.controllers)",
                                       cgroup_path);
        if (!writable(real))
                return cordon_diag_set(diag, -EACCES,
                                       "cgroup %s is not writable by uid %u: it must be delegated "
                                       "to the caller",
                                       cgroup_path, (unsigned)geteuid());
        if (strlen(real) >= CORDON_LIMITS_PATH_MAX)
                return cordon_diag_set(diag, -ENAMETOOLONG, "cgroup %s: path too long",
                                       cgroup_path);
        strcpy(ret, real);
        return 0;
}

/* Decides which limits a v2 leaf below the base directory can carry. Hard errors only for an
 * explicit path. */
static int plan_v2(const struct cordon_limits_host *h, const char *cgroup_path, struct plan *pl,
                   struct cordon_diag *diag)
{
        char mnt[CORDON_LIMITS_PATH_MAX] = "", why[WHY_MAX] = "";
        int r;

        if (cgroup_path) {
                r = explicit_dir(h, cgroup_path, pl->v2_base, mnt, diag);
                if (r < 0)
                        return r;
                pl->explicit_path = true;
        } else if (own_dir(h, NULL, pl->v2_base, mnt, why) < 0) {
                for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                        set_why(pl->why_v2[k], "%s", why);
                return 0;
        } else if (!writable(pl->v2_base)) {
                for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                        set_why(pl->why_v2[k], "own cgroup %s is not writable", pl->v2_base);
                return 0;
        }

        _cleanup_free_ char *avail = NULL, *enabled = NULL;
        r = cordon_cgroup_read(pl->v2_base, "cgroup.controllers", &avail);
        if (r >= 0)
                r = cordon_cgroup_read(pl->v2_base, "cgroup.subtree_control", &enabled);
        if (r < 0) {
                if (pl->explicit_path)
                        return cordon_diag_set(diag, r,
                                               "cgroup %s: cannot read its controllers: %s",
                                               cgroup_path, strerror(-r));
                for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                        set_why(pl->why_v2[k], "cannot read the controllers of %s: %s", pl->v2_base,
                                strerror(-r));
                return 0;
        }
        /* "No internal processes": a cgroup other than the root can enable a controller for its
         * children only while it holds no process itself. */
        bool can_enable = streq(pl->v2_base, mnt) || !cordon_cgroup_has_procs(pl->v2_base);

        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++) {
                if (!pl->want[k] || pl->skip_v2[k])
                        continue;
                const char *c = controller[k];
                bool offered = cordon_cgroup_list_has(avail, c);
                bool on = cordon_cgroup_list_has(enabled, c);
                if (offered && (on || can_enable)) {
                        pl->mech[k] = CORDON_LIMIT_CGROUP2;
                        pl->v2_enable[k] = !on;
                        continue;
                }
                int err = offered ? -EBUSY : -EOPNOTSUPP;
                if (!offered)
                        set_why(pl->why_v2[k], "%s/cgroup.controllers does not offer %s",
                                pl->v2_base, c);
                else
                        set_why(pl->why_v2[k],
                                "%s holds processes, so %s cannot be enabled for its children "
                                "(cgroup v2 \"no internal processes\" rule)",
                                pl->v2_base, c);
                if (pl->explicit_path && k != CORDON_LIMIT_CPUS)
                        return cordon_diag_set(
                            diag, err, "the %s limit cannot be enforced in cgroup %s: %s",
                            cordon_limit_kind_to_string((enum cordon_limit_kind)k), cgroup_path,
                            pl->why_v2[k]);
        }
        return 0;
}

static void plan_v1(const struct cordon_limits_host *h, struct plan *pl, int k)
{
        char mnt[CORDON_LIMITS_PATH_MAX];
        if (pl->skip_v1[k] || own_dir(h, controller[k], pl->v1_base[k], mnt, pl->why_v1[k]) < 0)
                return;
        if (!writable(pl->v1_base[k])) {
                set_why(pl->why_v1[k], "own %s cgroup %s is not writable", controller[k],
                        pl->v1_base[k]);
                return;
        }
        pl->mech[k] = CORDON_LIMIT_CGROUP1;
}

/* Fills pl->mech[] for every limit in pl->want[]. -EOPNOTSUPP when one cannot be enforced. */
static int plan(const struct cordon_limits_host *h, const char *cgroup_path, struct plan *pl,
                struct cordon_diag *diag)
{
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++) {
                pl->mech[k] = CORDON_LIMIT_NONE;
                pl->v2_enable[k] = false;
                pl->why_v2[k][0] = pl->why_v1[k][0] = 0;
        }
        bool any = pl->want[CORDON_LIMIT_MEMORY] || pl->want[CORDON_LIMIT_PIDS] ||
                   pl->want[CORDON_LIMIT_CPUS];
        if (cgroup_path || any) {
                int r = plan_v2(h, cgroup_path, pl, diag);
                if (r < 0)
                        return r;
        }
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++) {
                if (!pl->want[k] || pl->mech[k] != CORDON_LIMIT_NONE)
                        continue;
                if (!pl->explicit_path)
                        plan_v1(h, pl, k);
                if (pl->mech[k] != CORDON_LIMIT_NONE)
                        continue;
                if (k == CORDON_LIMIT_MEMORY)
                        pl->mech[k] = CORDON_LIMIT_RLIMIT;
                else if (k == CORDON_LIMIT_CPUS)
                        pl->mech[k] = CORDON_LIMIT_AFFINITY;
                else if (host_uid(h) != 0)
                        pl->mech[k] = CORDON_LIMIT_RLIMIT;
                else
                        /* The kernel never applies RLIMIT_NPROC to the real uid 0
                         * (copy_process() checks for INIT_USER). */
                        return cordon_diag_set(
                            diag, -EOPNOTSUPP,
                            "the pids limit cannot be enforced: cgroup v2: %s; cgroup v1: %s; "
                            "and RLIMIT_NPROC does not apply to uid 0",
                            pl->why_v2[k][0] ? pl->why_v2[k] : "not usable",
                            pl->why_v1[k][0] ? pl->why_v1[k] : "not usable");
        }
        return 0;
}

static int write_u64(const char *dir, const char *file, unsigned long long v, bool create)
{
        char buf[32];
        snprintf(buf, sizeof(buf), "%llu", v);
        return cordon_cgroup_write(dir, file, buf, create);
}

/* Acts on @pl. Returns 0, a hard -errno with the diag set, or 1 when a step failed that
 * planning could not foresee and a plan without it should be tried (pl->skip_* is set). */
static int execute(const struct cordon_limits *lim, struct plan *pl, struct cordon_limits_state *st,
                   bool create, struct cordon_diag *diag)
{
        const char *ctl_path = NULL;
        int r;

        bool v2 = false;
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                v2 |= pl->mech[k] == CORDON_LIMIT_CGROUP2;
        if (v2 || pl->explicit_path) {
                /* The limits asked for first, in one write (all or none); then cpu, which may
                 * fail on its own (realtime processes in the cgroup) and has a fallback. */
                char add[64] = "";
                for (int k = 0; k < CORDON_LIMIT_CPUS; k++)
                        if (pl->v2_enable[k])
                                snprintf(add + strlen(add), sizeof(add) - strlen(add), "%s+%s",
                                         *add ? " " : "", controller[k]);
                if (*add && (r = cordon_cgroup_write(pl->v2_base, "cgroup.subtree_control", add,
                                                     create)) < 0) {
                        if (pl->explicit_path)
                                return cordon_diag_set(diag, r,
                                                       "cannot enable '%s' in "
                                                       "%s/cgroup.subtree_control: %s",
                                                       add, pl->v2_base, strerror(-r));
                        pl->skip_v2[CORDON_LIMIT_MEMORY] = pl->skip_v2[CORDON_LIMIT_PIDS] = true;
                        return 1;
                }
                if (pl->v2_enable[CORDON_LIMIT_CPUS] &&
                    cordon_cgroup_write(pl->v2_base, "cgroup.subtree_control", "+cpu", create) <
                        0) {
                        pl->skip_v2[CORDON_LIMIT_CPUS] = true;
                        return 1;
                }
                r = cordon_cgroup_make_leaf(pl->v2_base, st->v2_dir, sizeof(st->v2_dir));
                if (r < 0) {
                        st->v2_dir[0] = 0;
                        if (pl->explicit_path)
                                return cordon_diag_set(diag, r, "cannot create a cgroup in %s: %s",
                                                       pl->v2_base, strerror(-r));
                        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                                pl->skip_v2[k] = true;
                        return 1;
                }
                if (pl->mech[CORDON_LIMIT_MEMORY] == CORDON_LIMIT_CGROUP2 &&
                    (r = write_u64(st->v2_dir, ctl_path = "memory.max", lim->memory_bytes,
                                   create)) < 0)
                        goto fail_v2;
                if (pl->mech[CORDON_LIMIT_PIDS] == CORDON_LIMIT_CGROUP2 &&
                    (r = write_u64(st->v2_dir, ctl_path = "pids.max", lim->pids, create)) < 0)
                        goto fail_v2;
                if (pl->mech[CORDON_LIMIT_CPUS] == CORDON_LIMIT_CGROUP2) {
                        char buf[64];
                        snprintf(buf, sizeof(buf), "%llu %llu",
                                 (unsigned long long)lim->cpus * CPU_PERIOD_USEC, CPU_PERIOD_USEC);
                        if ((r = cordon_cgroup_write(st->v2_dir, ctl_path = "cpu.max", buf,
                                                     create)) < 0)
                                goto fail_v2;
                }
        }

        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++) {
                if (pl->mech[k] != CORDON_LIMIT_CGROUP1)
                        continue;
                char *dir = st->v1_dir[k];
                r = cordon_cgroup_make_leaf(pl->v1_base[k], dir, CORDON_LIMITS_PATH_MAX);
                if (r < 0) {
                        dir[0] = 0;
                        set_why(pl->why_v1[k], "cannot create a cgroup in %s: %s", pl->v1_base[k],
                                strerror(-r));
                        pl->skip_v1[k] = true;
                        return 1;
                }
                if (k == CORDON_LIMIT_MEMORY)
                        r = write_u64(dir, ctl_path = "memory.limit_in_bytes", lim->memory_bytes,
                                      create);
                else if (k == CORDON_LIMIT_PIDS)
                        r = write_u64(dir, ctl_path = "pids.max", lim->pids, create);
                else if ((r = write_u64(dir, ctl_path = "cpu.cfs_period_us", CPU_PERIOD_USEC,
                                        create)) >= 0)
                        r = write_u64(dir, ctl_path = "cpu.cfs_quota_us",
                                      (unsigned long long)lim->cpus * CPU_PERIOD_USEC, create);
                if (r < 0)
                        return cordon_diag_set(diag, r, "cannot set the %s limit in %s/%s: %s",
                                               cordon_limit_kind_to_string(k), dir, ctl_path,
                                               strerror(-r));
        }

        if (pl->mech[CORDON_LIMIT_MEMORY] == CORDON_LIMIT_RLIMIT)
                st->rlimit_as = lim->memory_bytes;
        if (pl->mech[CORDON_LIMIT_PIDS] == CORDON_LIMIT_RLIMIT)
                st->rlimit_nproc = lim->pids;
        if (pl->mech[CORDON_LIMIT_CPUS] == CORDON_LIMIT_AFFINITY) {
                cpu_set_t all;
                CPU_ZERO(&all);
                if (sched_getaffinity(0, sizeof(all), &all) < 0)
                        return cordon_diag_set(diag, -errno,
                                               "the cpus limit cannot be enforced: "
                                               "sched_getaffinity: %s",
                                               strerror(errno));
                CPU_ZERO(&st->affinity);
                for (unsigned i = 0, n = 0; i < CPU_SETSIZE && n < lim->cpus; i++)
                        if (CPU_ISSET(i, &all)) {
                                CPU_SET(i, &st->affinity);
                                n++;
                        }
                st->affinity_set = true;
        }
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                st->mechanism[k] = pl->mech[k];
        return 0;

fail_v2:
        return cordon_diag_set(diag, r, "cannot set a limit in %s/%s: %s", st->v2_dir, ctl_path,
                               strerror(-r));
}

static void plan_wants(struct plan *pl, const struct cordon_limits *lim)
{
        pl->want[CORDON_LIMIT_MEMORY] = lim->memory_bytes > 0;
        pl->want[CORDON_LIMIT_PIDS] = lim->pids > 0;
        pl->want[CORDON_LIMIT_CPUS] = lim->cpus > 0;
}

int cordon_limits_prepare_at(const struct cordon_limits_host *host, const struct cordon_limits *lim,
                             const char *cgroup_path, struct cordon_limits_state *st,
                             struct cordon_diag *diag)
{
        _cleanup_free_ struct plan *pl = calloc(1, sizeof(*pl));
        if (!pl)
                return -ENOMEM;
        plan_wants(pl, lim);
        memset(st, 0, sizeof(*st));
        st->create_files = host && host->create_files;

        /* Each retry skips one more (version, limit) pair, so this ends. */
        for (;;) {
                int r = plan(host, cgroup_path, pl, diag);
                if (r >= 0)
                        r = execute(lim, pl, st, st->create_files, diag);
                if (r == 0)
                        return 0;
                bool create = st->create_files;
                (void)cordon_limits_cleanup(st);
                memset(st, 0, sizeof(*st));
                st->create_files = create;
                if (r < 0)
                        return r;
        }
}

int cordon_limits_prepare(const struct cordon_limits *lim, const char *cgroup_path,
                          struct cordon_limits_state *st, struct cordon_diag *diag)
{
        return cordon_limits_prepare_at(NULL, lim, cgroup_path, st, diag);
}

int cordon_limits_plan(const struct cordon_limits *lim, const char *cgroup_path,
                       struct cordon_limits_state *st, struct cordon_diag *diag)
{
        _cleanup_free_ struct plan *pl = calloc(1, sizeof(*pl));
        if (!pl)
                return -ENOMEM;
        plan_wants(pl, lim);
        memset(st, 0, sizeof(*st));
        int r = plan(NULL, cgroup_path, pl, diag);
        if (r < 0)
                return r;
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                st->mechanism[k] = pl->want[k] ? pl->mech[k] : CORDON_LIMIT_NONE;
        return 0;
}

int cordon_limits_probe_at(const struct cordon_limits_host *host, const char *cgroup_path,
                           enum cordon_limit_mechanism ret[_CORDON_LIMIT_KIND_MAX],
                           struct cordon_diag *diag)
{
        _cleanup_free_ struct plan *pl = calloc(1, sizeof(*pl));
        if (!pl)
                return -ENOMEM;
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                pl->want[k] = true;
        int r = plan(host, cgroup_path, pl, diag);
        /* An unenforceable pids limit fails planning: say so for pids, keep the others. */
        if (r == -EOPNOTSUPP && pl->mech[CORDON_LIMIT_PIDS] == CORDON_LIMIT_NONE) {
                pl->want[CORDON_LIMIT_PIDS] = false;
                r = plan(host, cgroup_path, pl, NULL);
        }
        if (r < 0)
                return r;
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                ret[k] = pl->mech[k];
        return 0;
}

static int strength(enum cordon_limit_mechanism m)
{
        return m == CORDON_LIMIT_CGROUP2   ? 3
               : m == CORDON_LIMIT_CGROUP1 ? 2
               : m == CORDON_LIMIT_RLIMIT  ? 1
                                           : 0;
}

enum cordon_limit_mechanism cordon_limits_probe(const char *cgroup_path)
{
        enum cordon_limit_mechanism m[_CORDON_LIMIT_KIND_MAX];
        if (cordon_limits_probe_at(NULL, cgroup_path, m, NULL) < 0)
                return CORDON_LIMIT_NONE;
        enum cordon_limit_mechanism a = m[CORDON_LIMIT_MEMORY], b = m[CORDON_LIMIT_PIDS];
        return strength(a) <= strength(b) ? a : b;
}

int cordon_limits_attach(struct cordon_limits_state *st, pid_t pid, struct cordon_diag *diag)
{
        char buf[32];
        snprintf(buf, sizeof(buf), "%d", (int)pid);
        for (int i = -1; i < _CORDON_LIMIT_KIND_MAX; i++) {
                const char *dir = i < 0 ? st->v2_dir : st->v1_dir[i];
                if (!*dir)
                        continue;
                int r = cordon_cgroup_write(dir, "cgroup.procs", buf, st->create_files);
                if (r < 0)
                        return cordon_diag_set(diag, r, "cannot move process %d into %s: %s",
                                               (int)pid, dir, strerror(-r));
        }
        return 0;
}

/* Lowers one limit to at most @v, keeping a lower inherited value. Only system calls. */
int cordon_limits_lower_rlimit(int resource, uint64_t v)
{
        struct rlimit rl;
        if (getrlimit(resource, &rl) < 0)
                return -errno;
        if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > v)
                rl.rlim_cur = (rlim_t)v;
        if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > v)
                rl.rlim_max = (rlim_t)v;
        return setrlimit(resource, &rl) < 0 ? -errno : 0;
}

int cordon_limits_apply_child(const struct cordon_limits_state *st)
{
        int r;
        if (st->rlimit_as) {
                /* RLIMIT_DATA as well: since Linux 4.7 it also bounds private anonymous mmaps,
                 * and it keeps a process that raised nothing from brk() past the limit. */
                if ((r = cordon_limits_lower_rlimit(RLIMIT_AS, st->rlimit_as)) < 0 ||
                    (r = cordon_limits_lower_rlimit(RLIMIT_DATA, st->rlimit_as)) < 0)
                        return r;
        }
        if (st->rlimit_nproc &&
            (r = cordon_limits_lower_rlimit(RLIMIT_NPROC, st->rlimit_nproc)) < 0)
                return r;
        if (st->affinity_set && sched_setaffinity(0, sizeof(st->affinity), &st->affinity) < 0)
                return -errno;
        return 0;
}

bool cordon_limits_oom_killed(const struct cordon_limits_state *st)
{
        unsigned long long v = 0;
        switch (st->mechanism[CORDON_LIMIT_MEMORY]) {
        case CORDON_LIMIT_CGROUP2:
                return cordon_cgroup_read_key(st->v2_dir, "memory.events", "oom_kill", &v) >= 0 &&
                       v > 0;
        case CORDON_LIMIT_CGROUP1: {
                const char *dir = st->v1_dir[CORDON_LIMIT_MEMORY];
                int r = cordon_cgroup_read_key(dir, "memory.oom_control", "oom_kill", &v);
                if (r == -ENOENT) /* Linux < 4.13 has no oom_kill counter */
                        r = cordon_cgroup_read_key(dir, "memory.failcnt", NULL, &v);
                return r >= 0 && v > 0;
        }
        default:
                return false;
        }
}

int cordon_limits_kill_all(struct cordon_limits_state *st)
{
        const char *dir = st->v2_dir;
        if (*dir) {
                char path[CORDON_LIMITS_PATH_MAX + 16];
                snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
                /* cgroup.kill (Linux 5.14) kills the whole subtree, forks in flight included. */
                if (access(path, F_OK) == 0)
                        return cordon_cgroup_write(dir, "cgroup.kill", "1", false);
                return cordon_cgroup_kill_tree(dir);
        }
        /* v1: every process of the sandbox is in each of its hierarchies; one is enough. */
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                if (*st->v1_dir[k])
                        return cordon_cgroup_kill_tree(st->v1_dir[k]);
        return -EOPNOTSUPP;
}

int cordon_limits_cleanup(struct cordon_limits_state *st)
{
        int ret = 0;
        for (int i = -1; i < _CORDON_LIMIT_KIND_MAX; i++) {
                char *dir = i < 0 ? st->v2_dir : st->v1_dir[i];
                if (!*dir)
                        continue;
                int r = cordon_cgroup_remove_tree(dir);
                if (r < 0) {
                        if (ret == 0)
                                ret = r;
                        continue;
                }
                dir[0] = 0;
        }
        return ret;
}

bool cordon_limits_have_cgroup(const struct cordon_limits_state *st)
{
        if (!st)
                return false;
        bool any = *st->v2_dir;
        for (size_t k = 0; k < _CORDON_LIMIT_KIND_MAX; k++)
                any |= *st->v1_dir[k] != 0;
        return any;
}

int cordon_limits_describe(const struct cordon_limits_state *st, char *buf, size_t n)
{
        return cordon_limits_describe_mechanisms(st->mechanism, buf, n);
}

int cordon_limits_describe_mechanisms(const enum cordon_limit_mechanism m[_CORDON_LIMIT_KIND_MAX],
                                      char *buf, size_t n)
{
        size_t len = 0;
        if (n == 0)
                return -ENOBUFS;
        buf[0] = 0;
        for (int k = 0; k < _CORDON_LIMIT_KIND_MAX; k++) {
                if (m[k] == CORDON_LIMIT_NONE)
                        continue;
                int w = snprintf(buf + len, n - len, "%s%s=%s", len ? " " : "",
                                 cordon_limit_kind_to_string((enum cordon_limit_kind)k),
                                 cordon_limit_mechanism_to_string(m[k]));
                if (w < 0 || (size_t)w >= n - len)
                        return -ENOBUFS;
                len += (size_t)w;
        }
        return (int)len;
}
