/* Landlock: the plan (which path gets which rights, built in the parent from the policy) and its
 * application (in the child, without allocating). Raw system calls: libc has no wrappers, and the
 * system headers predate ABI 4, so the newer constants are defined here from the kernel UAPI. */
#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/landlock.h"
#include "lib/policy.h"
#include "shared/macro.h"
#include "shared/path-util.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444 /* the same on every architecture */
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0) /* ABI 4 */
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* struct landlock_ruleset_attr as of ABI 6, under a name of our own: the system header's has
 * only the first field. The kernel takes the size we pass, so older kernels still work. */
struct ruleset_attr {
        uint64_t handled_access_fs;
        uint64_t handled_access_net; /* ABI 4 */
        uint64_t scoped;             /* ABI 6 */
};

#define ACC(x) LANDLOCK_ACCESS_FS_##x

#define FS_READ  CORDON_LANDLOCK_FS_READ
#define FS_WRITE CORDON_LANDLOCK_FS_WRITE
/* Device nodes exposed on purpose: no exec, and ioctls (a GPU is driven by them). READ_DIR lets
 * a device directory (/dev/dri) be listed; apply() strips it from a node like every right that
 * only directories take. */
#define FS_DEVICE (ACC(READ_FILE) | ACC(WRITE_FILE) | ACC(IOCTL_DEV) | ACC(READ_DIR))
#define FS_PROC   (ACC(READ_FILE) | ACC(READ_DIR))
/* The rights landlock_add_rule() accepts on anything that is not a directory (EINVAL else). */
#define FS_FILE_ONLY                                                                               \
        (ACC(EXECUTE) | ACC(WRITE_FILE) | ACC(READ_FILE) | ACC(TRUNCATE) | ACC(IOCTL_DEV))

_Static_assert(FS_READ == (ACC(EXECUTE) | ACC(READ_FILE) | ACC(READ_DIR)), "READ");
_Static_assert(FS_WRITE == (ACC(WRITE_FILE) | ACC(REMOVE_DIR) | ACC(REMOVE_FILE) | ACC(MAKE_DIR) |
                            ACC(MAKE_REG) | ACC(MAKE_SOCK) | ACC(MAKE_FIFO) | ACC(MAKE_SYM) |
                            ACC(REFER) | ACC(TRUNCATE)),
               "WRITE");

/* Every filesystem right the ABI knows: whatever is not granted is then denied. */
static uint64_t handled_fs(int abi)
{
        if (abi >= 5)
                return (ACC(IOCTL_DEV) << 1) - 1;
        if (abi >= 3)
                return (ACC(TRUNCATE) << 1) - 1;
        if (abi >= 2)
                return (ACC(REFER) << 1) - 1;
        return (ACC(MAKE_SYM) << 1) - 1;
}

/* The attribute size of the ABI in use: its last field's end. */
static size_t attr_size(int abi)
{
        if (abi >= 6)
                return offsetof(struct ruleset_attr, scoped) + sizeof(uint64_t);
        if (abi >= 4)
                return offsetof(struct ruleset_attr, handled_access_net) + sizeof(uint64_t);
        return sizeof(uint64_t);
}

int cordon_landlock_abi(void)
{
        long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
        if (abi < 0)
                return negative_errno(); /* ENOSYS: not built in; EOPNOTSUPP: not enabled */
        return abi > 0 ? (int)abi : -EOPNOTSUPP;
}

/* Appends a rule, taking @path. Capacity is implicit: the array grows to the next power of two
 * (at least 8) whenever n_rules reaches one, so the plan needs no extra field. */
static int push(struct cordon_landlock_plan *plan, char *path, uint64_t access, bool optional,
                int fs_rule)
{
        _cleanup_free_ char *owned = path;
        size_t n = plan->n_rules;
        if (!owned)
                return -ENOMEM;
        if (n == 0 || (n >= 8 && (n & (n - 1)) == 0)) {
                struct cordon_landlock_rule *r =
                    reallocarray(plan->rules, n ? 2 * n : 8, sizeof(*plan->rules));
                if (!r)
                        return -ENOMEM;
                plan->rules = r;
        }
        plan->rules[plan->n_rules++] = (struct cordon_landlock_rule){
            .path = TAKE_PTR(owned), .access = access, .optional = optional, .fs_rule = fs_rule};
        return 0;
}

int cordon_landlock_plan_add(struct cordon_landlock_plan *plan, const char *path, uint64_t access,
                             bool optional)
{
        if (!plan || !path_is_absolute(path) || access == 0)
                return -EINVAL;
        return push(plan, strdup(path), access, optional, -1);
}

void cordon_landlock_plan_clear(struct cordon_landlock_plan *plan)
{
        for (size_t i = 0; i < plan->n_rules; i++)
                free(plan->rules[i].path);
        free(plan->rules);
        *plan = (struct cordon_landlock_plan){0};
}

struct dev_entry {
        const char *name;
        uint64_t access;
        bool host; /* also granted by the landlock backend on the host's /dev */
};

/* The minimal /dev of ns-mount.c. Device ioctls are handled but granted only to terminals, which
 * need them (TIOCSTI is refused by seccomp). The host's pts, ptmx and shm are shared with the
 * user's other terminals and processes, so the landlock backend leaves them out. */
static const struct dev_entry dev_entries[] = {
    {"null", ACC(READ_FILE) | ACC(WRITE_FILE), true},
    {"zero", ACC(READ_FILE), true},
    {"full", ACC(READ_FILE), true},
    {"random", ACC(READ_FILE), true},
    {"urandom", ACC(READ_FILE), true},
    {"tty", ACC(READ_FILE) | ACC(WRITE_FILE) | ACC(IOCTL_DEV), true},
    {"pts", ACC(READ_FILE) | ACC(WRITE_FILE) | ACC(IOCTL_DEV), false},
    {"ptmx", ACC(READ_FILE) | ACC(WRITE_FILE) | ACC(IOCTL_DEV), false},
    {"shm", FS_READ | FS_WRITE, false},
};

static int push_dev(struct cordon_landlock_plan *plan, const char *dir, bool optional, int fs_rule)
{
        int r = push(plan, strdup(dir), ACC(READ_DIR), optional, fs_rule);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(dev_entries); i++) {
                const struct dev_entry *e = &dev_entries[i];
                /* Our /dev/ptmx is a symlink to pts/ptmx, which the pts rule covers; apply()
                 * skips an optional symlink, and grants a real node. */
                bool opt = optional || streq(e->name, "ptmx");
                r = push(plan, path_join(dir, e->name), e->access, opt, fs_rule);
        }
        return r;
}

/* True when @path is at or below a masked guest path. The mask is mounted over everything there
 * (masks come last), so a grant would only reach the empty placeholder, or fail to open. */
static bool guest_masked(const struct cordon_policy *p, const char *path)
{
        for (size_t i = 0; i < p->n_fs; i++)
                if (p->fs[i].access == CORDON_ACCESS_MASKED && path_is_below(path, p->fs[i].guest))
                        return true;
        return false;
}

/* The namespace backend: the view is already limited by what is mounted, so the rules follow
 * the mounts at their guest paths. */
static int build_ns(const struct cordon_policy *p, struct cordon_landlock_plan *plan)
{
        /* READ_DIR reaches every directory below, so `ls` works anywhere in the view. */
        int r = push(plan, strdup("/"), ACC(READ_DIR), false, -1);
        if (r < 0)
                return r;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *f = &p->fs[i];
                bool optional = f->flags & CORDON_FS_OPTIONAL;
                uint64_t access;
                switch (f->access) {
                case CORDON_ACCESS_RO:
                case CORDON_ACCESS_RW:
                case CORDON_ACCESS_DEVICE:
                        /* Without a host path the rule remounts what is already there (e.g.
                         * /proc/sys read-only): it narrows, and the enclosing grant applies. */
                        if (!f->host)
                                continue;
                        access = f->access == CORDON_ACCESS_RO   ? FS_READ
                                 : f->access == CORDON_ACCESS_RW ? FS_READ | FS_WRITE
                                                                 : FS_DEVICE;
                        break;
                case CORDON_ACCESS_TMPFS:
                        access = FS_READ | (f->flags & CORDON_FS_SEAL ? 0 : FS_WRITE);
                        break;
                case CORDON_ACCESS_COPY:
                        access = FS_READ | ACC(WRITE_FILE) | ACC(TRUNCATE);
                        break;
                case CORDON_ACCESS_DATA:
                        access = ACC(READ_FILE);
                        break;
                case CORDON_ACCESS_PROC:
                        access = FS_PROC;
                        break;
                case CORDON_ACCESS_DEV:
                        if (guest_masked(p, f->guest))
                                continue;
                        if ((r = push_dev(plan, f->guest, optional, (int)i)) < 0)
                                return r;
                        continue;
                case CORDON_ACCESS_SYMLINK:
                        /* Following a link needs no right; its target has its own rule. */
                        continue;
                case CORDON_ACCESS_MASKED:
                        /* Nothing of its own. A parent's grant reaches into the mask, but the
                         * mask is an empty read-only tmpfs or an empty read-only file: there is
                         * nothing to read, and every write fails with EROFS. */
                        continue;
                default:
                        return -EINVAL;
                }
                if (guest_masked(p, f->guest))
                        continue;
                if ((r = push(plan, strdup(f->guest), access, optional, (int)i)) < 0)
                        return r;
        }
        return 0;
}

/* ---- The landlock backend: host paths, with carving around masked paths ---- */

struct grant {
        char *path;
        uint64_t access;
        bool optional;
        int fs_rule;
        bool dropped;
};

struct host_view {
        struct grant *grants;
        size_t n_grants;
        char **masks; /* host realpaths that must stay denied */
        bool *mask_dirs;
        size_t n_masks;
        size_t budget; /* rules carving may still add */
};

static void host_view_clear(struct host_view *v)
{
        for (size_t i = 0; i < v->n_grants; i++)
                free(v->grants[i].path);
        for (size_t i = 0; i < v->n_masks; i++)
                free(v->masks[i]);
        free(v->grants);
        free(v->masks);
        free(v->mask_dirs);
}

static int add_grant(struct host_view *v, const char *path, uint64_t access, bool optional,
                     int fs_rule)
{
        _cleanup_free_ char *copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        struct grant *g = reallocarray(v->grants, v->n_grants + 1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        v->grants = g;
        g[v->n_grants++] = (struct grant){
            .path = TAKE_PTR(copy), .access = access, .optional = optional, .fs_rule = fs_rule};
        return 0;
}

/* Adds the host realpath of @path as a masked path. Nothing to hide when it cannot be reached. */
static int add_mask(void *userdata, const char *path)
{
        struct host_view *v = userdata;
        _cleanup_free_ char *real = realpath(path, NULL);
        if (!real)
                return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
        for (size_t i = 0; i < v->n_masks; i++)
                if (streq(v->masks[i], real))
                        return 0;
        struct stat st;
        bool dir = lstat(real, &st) < 0 || S_ISDIR(st.st_mode); /* unknown counts as a dir */
        char **m = reallocarray(v->masks, v->n_masks + 1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        v->masks = m;
        bool *d = reallocarray(v->mask_dirs, v->n_masks + 1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        v->mask_dirs = d;
        m[v->n_masks] = TAKE_PTR(real);
        d[v->n_masks++] = dir;
        return 0;
}

/* Calls @fn for every host path where guest path @guest shows up: through each bind that holds
 * it (the guest path of a bind need not be its host path: $HOME through a symlink), and as
 * itself, since without namespaces the command resolves guest paths on the host. */
static int for_each_host_path(const struct cordon_policy *p, const char *guest,
                              int (*fn)(void *, const char *), void *userdata)
{
        int r = fn(userdata, guest);
        if (r < 0)
                return r;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *f = &p->fs[i];
                if (!f->host ||
                    !(cordon_access_is_bind(f->access) || f->access == CORDON_ACCESS_COPY) ||
                    !path_is_below(guest, f->guest))
                        continue;
                const char *suffix = guest + strlen(f->guest);
                _cleanup_free_ char *host = *suffix ? path_join(f->host, suffix) : strdup(f->host);
                if (!host)
                        return -ENOMEM;
                if ((r = fn(userdata, host)) < 0)
                        return r;
        }
        return 0;
}

static bool in_mask(const struct host_view *v, const char *path)
{
        for (size_t i = 0; i < v->n_masks; i++)
                if (path_is_below(path, v->masks[i]))
                        return true;
        return false;
}

/* The innermost grant holding @path, or NULL. */
static const struct grant *enclosing(const struct host_view *v, const char *path)
{
        const struct grant *best = NULL;
        for (size_t i = 0; i < v->n_grants; i++)
                if (!v->grants[i].dropped && path_is_below(path, v->grants[i].path) &&
                    (!best || strlen(v->grants[i].path) > strlen(best->path)))
                        best = &v->grants[i];
        return best;
}

struct in_place {
        struct host_view *v;
        int fs_rule;
};

/* A read-only remount in place (no host path, e.g. /proc/sys) narrows what the enclosing grant
 * gives there: it becomes a nested grant with the read rights only, which the enclosing one is
 * then carved around. Nothing to do below a grant without write rights. */
static int add_in_place(void *userdata, const char *path)
{
        struct in_place *ip = userdata;
        _cleanup_free_ char *real = realpath(path, NULL);
        if (!real)
                return 0;
        const struct grant *g = enclosing(ip->v, real);
        if (!g || !(g->access & ~FS_READ) || in_mask(ip->v, real))
                return 0;
        return add_grant(ip->v, real, g->access & FS_READ, true, ip->fs_rule);
}

static bool below_strictly(const char *path, const char *parent)
{
        return !streq(path, parent) && path_is_below(path, parent);
}

struct carve {
        struct host_view *v;
        struct cordon_landlock_plan *plan;
        const char **points; /* paths below the grant that it must not reach */
        size_t n_points;
        uint64_t access;
        int fs_rule;
};

static bool is_point(const struct carve *c, const char *path)
{
        for (size_t i = 0; i < c->n_points; i++)
                if (streq(c->points[i], path))
                        return true;
        return false;
}

static bool point_below(const struct carve *c, const char *path)
{
        for (size_t i = 0; i < c->n_points; i++)
                if (below_strictly(c->points[i], path))
                        return true;
        return false;
}

/* True when a masked directory lies at or below @path: READ_DIR there would list its names. */
static bool masked_dir_below(const struct host_view *v, const char *path)
{
        for (size_t i = 0; i < v->n_masks; i++)
                if (v->mask_dirs[i] && path_is_below(v->masks[i], path))
                        return true;
        return false;
}

static bool is_grant(const struct host_view *v, const char *path)
{
        for (size_t i = 0; i < v->n_grants; i++)
                if (!v->grants[i].dropped && streq(v->grants[i].path, path))
                        return true;
        return false;
}

static int name_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

/* Reads the entry names of @d (without "." and ".."), sorted so that plans are reproducible. */
static int read_names(DIR *d, size_t max, char ***ret, size_t *ret_n)
{
        char **names = NULL;
        size_t n = 0;
        int r = 0;
        for (;;) {
                errno = 0;
                struct dirent *de = readdir(d);
                if (!de) {
                        r = errno ? -errno : 0;
                        break;
                }
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (n >= max) {
                        r = -E2BIG;
                        break;
                }
                char **nn = reallocarray(names, n + 1, sizeof(*nn));
                if (!nn || !(nn[n] = strdup(de->d_name))) {
                        names = nn ?: names;
                        r = -ENOMEM;
                        break;
                }
                names = nn;
                n++;
        }
        if (r < 0) {
                free_names(names, n);
                return r;
        }
        if (n)
                qsort(names, n, sizeof(*names), name_cmp);
        *ret = names;
        *ret_n = n;
        return 0;
}

static int take_budget(struct carve *c)
{
        if (c->v->budget == 0)
                return -E2BIG;
        c->v->budget--;
        return 0;
}

/* Carving. Landlock rules only add rights, so a grant on a directory that holds a masked path
 * cannot be narrowed; instead the grant is replaced by one on each entry of the directory except
 * the one leading to the masked path, recursing into that one. Symlinks are skipped: looking one
 * up needs no right, and a grant on it would follow it and widen the grant. The cost: an entry
 * created later directly in a carved directory (the grant itself or one on the way down) is not
 * reachable, and nothing new can be made there, since the directory has no rights of its own.
 * It keeps READ_DIR when no masked directory lies below it, so it can still be listed. */
static int carve_dir(struct carve *c, int parent_fd, const char *name, const char *path,
                     unsigned depth)
{
        int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        DIR *d = fdopendir(fd);
        if (!d) {
                int k = -errno;
                close(fd);
                return k;
        }
        char **names = NULL;
        size_t n = 0;
        int r = read_names(d, c->v->budget + c->n_points, &names, &n);
        if (r >= 0 && (c->access & ACC(READ_DIR)) && !masked_dir_below(c->v, path) &&
            (r = take_budget(c)) >= 0)
                r = push(c->plan, strdup(path), ACC(READ_DIR), true, c->fs_rule);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                _cleanup_free_ char *child = path_join(path, names[i]);
                if (!child) {
                        r = -ENOMEM;
                        break;
                }
                /* A point stays out; another grant covers itself with at least our rights. */
                if (is_point(c, child) || is_grant(c->v, child))
                        continue;
                struct stat st;
                if (fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno != ENOENT) /* gone since readdir: nothing to grant */
                                r = -errno;
                        continue;
                }
                if (S_ISLNK(st.st_mode))
                        continue;
                if (S_ISDIR(st.st_mode) && point_below(c, child)) {
                        r = depth + 1 >= CORDON_LANDLOCK_CARVE_MAX_DEPTH
                                ? -E2BIG
                                : carve_dir(c, dirfd(d), names[i], child, depth + 1);
                        continue;
                }
                uint64_t a = S_ISDIR(st.st_mode) ? c->access : c->access & FS_FILE_ONLY;
                /* Optional: an entry may vanish before the child applies the plan. */
                if (a && (r = take_budget(c)) >= 0)
                        r = push(c->plan, TAKE_PTR(child), a, true, c->fs_rule);
        }
        free_names(names, n);
        closedir(d);
        return r;
}

/* The paths grant @g must not reach: masked paths below it, and the grants nested in it that
 * need it kept out: those with fewer rights (a mount would shadow the parent there) and those
 * with masked paths of their own below them. */
static int carve_points(const struct host_view *v, const struct grant *g, const char ***ret,
                        size_t *ret_n)
{
        const char **pts = calloc(v->n_masks + v->n_grants + 1, sizeof(*pts));
        size_t n = 0;
        if (!pts)
                return -ENOMEM;
        for (size_t i = 0; i < v->n_masks; i++)
                if (below_strictly(v->masks[i], g->path))
                        pts[n++] = v->masks[i];
        for (size_t i = 0; i < v->n_grants; i++) {
                const struct grant *h = &v->grants[i];
                if (h->dropped || !below_strictly(h->path, g->path))
                        continue;
                bool masks_below = false;
                for (size_t j = 0; j < v->n_masks; j++)
                        masks_below |= below_strictly(v->masks[j], h->path);
                if ((g->access & ~h->access) || masks_below)
                        pts[n++] = h->path;
        }
        *ret = pts;
        *ret_n = n;
        return 0;
}

static int collect_host(const struct cordon_policy *p, struct host_view *v)
{
        int r;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *f = &p->fs[i];
                bool optional = f->flags & CORDON_FS_OPTIONAL;
                if (f->flags & CORDON_FS_NS_ONLY)
                        continue; /* pins, protected files, socket masks: mounts only */
                switch (f->access) {
                case CORDON_ACCESS_RO:
                case CORDON_ACCESS_RW:
                case CORDON_ACCESS_DEVICE:
                        if (!f->host)
                                continue; /* narrowing in place: resolved below */
                        r = add_grant(v, f->host,
                                      f->access == CORDON_ACCESS_RO   ? FS_READ
                                      : f->access == CORDON_ACCESS_RW ? FS_READ | FS_WRITE
                                                                      : FS_DEVICE,
                                      optional, (int)i);
                        break;
                case CORDON_ACCESS_COPY:
                        /* No private copy without a mount namespace: the host file, read-only
                         * (the launcher warns). */
                        r = add_grant(v, f->host, FS_READ, optional, (int)i);
                        break;
                case CORDON_ACCESS_PROC:
                        /* The host's procfs. Landlock denies ptrace-mode access to processes
                         * outside the domain, which keeps their environ, mem, fds and maps out;
                         * no write right keeps /proc/sys and /proc/sysrq-trigger read-only. */
                        r = add_grant(v, "/proc", FS_PROC, optional, (int)i);
                        break;
                case CORDON_ACCESS_DEV:
                        /* Host device files only: this view has no /dev of its own. */
                        r = 0;
                        for (size_t k = 0; r >= 0 && k < ELEMENTSOF(dev_entries); k++) {
                                _cleanup_free_ char *path = path_join("/dev", dev_entries[k].name);
                                if (!path)
                                        return -ENOMEM;
                                if (dev_entries[k].host)
                                        r = add_grant(v, path, dev_entries[k].access, optional,
                                                      (int)i);
                        }
                        break;
                case CORDON_ACCESS_MASKED:
                        r = for_each_host_path(p, f->guest, add_mask, v);
                        break;
                case CORDON_ACCESS_TMPFS:
                case CORDON_ACCESS_DATA:
                case CORDON_ACCESS_SYMLINK:
                        /* They need a mount namespace; the launcher adds a private TMPDIR. */
                        continue;
                default:
                        return -EINVAL;
                }
                if (r < 0)
                        return r;
        }
        /* Resolve grants the way the masks are resolved, so that paths compare as strings. A
         * path that cannot be resolved stays as it is, and apply() decides (optional or not). */
        for (size_t i = 0; i < v->n_grants; i++) {
                char *real = realpath(v->grants[i].path, NULL);
                if (real) {
                        free(v->grants[i].path);
                        v->grants[i].path = real;
                } else if (errno == ENOMEM)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < v->n_grants; i++)
                v->grants[i].dropped = in_mask(v, v->grants[i].path); /* at or inside a mask */
        /* In-place read-only rules last, once the grants they narrow are known. */
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *f = &p->fs[i];
                struct in_place ip = {.v = v, .fs_rule = (int)i};
                if (f->access == CORDON_ACCESS_RO && !f->host &&
                    (r = for_each_host_path(p, f->guest, add_in_place, &ip)) < 0)
                        return r;
        }
        return 0;
}

static int build_host(const struct cordon_policy *p, struct cordon_landlock_plan *plan)
{
        struct host_view v = {.budget = CORDON_LANDLOCK_CARVE_MAX_RULES};
        int r = collect_host(p, &v);
        for (size_t i = 0; r >= 0 && i < v.n_grants; i++) {
                const struct grant *g = &v.grants[i];
                if (g->dropped)
                        continue;
                const char **pts = NULL;
                size_t n = 0;
                if ((r = carve_points(&v, g, &pts, &n)) < 0)
                        break;
                if (n == 0)
                        r = push(plan, strdup(g->path), g->access, g->optional, g->fs_rule);
                else {
                        struct carve c = {.v = &v,
                                          .plan = plan,
                                          .points = pts,
                                          .n_points = n,
                                          .access = g->access,
                                          .fs_rule = g->fs_rule};
                        r = carve_dir(&c, AT_FDCWD, g->path, g->path, 0);
                        if (r == -ENOENT && g->optional)
                                r = 0;
                }
                free(pts);
        }
        host_view_clear(&v);
        return r;
}

int cordon_landlock_plan_build(const struct cordon_policy *p, enum cordon_backend backend, int abi,
                               struct cordon_landlock_plan *ret)
{
        if (!p || !ret || abi <= 0)
                return -EINVAL;
        struct cordon_landlock_plan plan = {
            .abi = abi,
            .handled = handled_fs(abi),
            .deny_tcp = p->net_mode == CORDON_NET_ISOLATED && abi >= 4,
            .scope = abi >= 6,
        };
        int r;
        if (backend == CORDON_BACKEND_NS)
                r = build_ns(p, &plan);
        else if (backend == CORDON_BACKEND_LANDLOCK)
                r = build_host(p, &plan);
        else
                r = -EINVAL;
        if (r < 0) {
                cordon_landlock_plan_clear(&plan);
                return r;
        }
        *ret = plan;
        return 0;
}

int cordon_landlock_apply(const struct cordon_landlock_plan *plan, int *ret_rule)
{
        if (ret_rule)
                *ret_rule = -1;
        if (!plan || plan->abi <= 0)
                return -EINVAL;
        /* Fail closed: a restriction the ABI cannot express is an error, not a no-op. */
        if ((plan->deny_tcp && plan->abi < 4) || (plan->scope && plan->abi < 6))
                return -EOPNOTSUPP;
        uint64_t handled = plan->handled & handled_fs(plan->abi);
        struct ruleset_attr attr = {
            .handled_access_fs = handled,
            .handled_access_net =
                plan->deny_tcp ? LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP : 0,
            .scoped = plan->scope ? LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL : 0,
        };
        _cleanup_close_ int rs =
            (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size(plan->abi), 0);
        if (rs < 0)
                return -errno;

        for (size_t i = 0; i < plan->n_rules; i++) {
                const struct cordon_landlock_rule *rule = &plan->rules[i];
                uint64_t access = rule->access & handled;
                if (access == 0)
                        continue; /* nothing this ABI can grant */
                _cleanup_close_ int fd = open(rule->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                int k = 0;
                struct stat st;
                if (fd < 0)
                        k = (errno == ENOENT || errno == ENOTDIR) && rule->optional ? 1 : -errno;
                else if (fstat(fd, &st) < 0)
                        k = -errno;
                else if (S_ISLNK(st.st_mode))
                        k = rule->optional ? 1 : -ELOOP;
                else if (!S_ISDIR(st.st_mode))
                        access &= FS_FILE_ONLY;
                if (k == 0 && access) {
                        struct landlock_path_beneath_attr pb = {.allowed_access = access,
                                                                .parent_fd = fd};
                        if (syscall(__NR_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb,
                                    0) < 0)
                                k = -errno;
                }
                if (k < 0) {
                        if (ret_rule)
                                *ret_rule = (int)i;
                        return k;
                }
        }
        if (syscall(__NR_landlock_restrict_self, rs, 0) < 0)
                return -errno;
        return 0;
}

const struct cordon_landlock_feature cordon_landlock_features[] = {
    {1, "filesystem"}, {2, "refer"}, {3, "truncate"}, {4, "tcp"}, {5, "ioctl_dev"}, {6, "scope"},
};
const size_t cordon_landlock_n_features = ELEMENTSOF(cordon_landlock_features);
