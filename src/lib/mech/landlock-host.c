/* Planning the landlock backend's rules: host paths, resolved and noted while planning, with
 * the grants that hold a masked path carved into grants on their other entries. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/mech/landlock-internal.h"
#include "lib/mech/landlock.h"
#include "lib/policy/policy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

struct grant {
        char *path;
        uint64_t access;
        bool optional;
        int fs_rule;
        bool dropped;
        struct stat st; /* what is at @path now, once resolved (seen) */
        bool seen;
        size_t len; /* strlen(@path), once it is final (cordon_landlock_build_host()) */
};

struct host_view {
        struct grant *grants;
        size_t n_grants;
        char **masks; /* host realpaths that must stay denied */
        bool *mask_dirs;
        /* What is on the way to each, from "/" down to itself, as add_mask() found it: the
         * carving goes by names, which a concurrent rename can move, so prepare() requires
         * every rule to stay off these objects and each mask to be still below them. */
        struct cordon_landlock_obj **chains;
        size_t *n_chains;
        size_t n_masks;
        size_t budget; /* rules carving may still add */
        char **dirs;   /* directories on the way to a grant seen to be no symlink (plain_path()) */
        size_t n_dirs;
};

static void host_view_clear(struct host_view *v)
{
        for (size_t i = 0; i < v->n_grants; i++)
                free(v->grants[i].path);
        for (size_t i = 0; i < v->n_masks; i++) {
                free(v->masks[i]);
                free(v->chains[i]);
        }
        free(v->chains);
        free(v->n_chains);
        for (size_t i = 0; i < v->n_dirs; i++)
                free(v->dirs[i]);
        free(v->grants);
        free(v->masks);
        free(v->mask_dirs);
        free(v->dirs);
}

static bool dir_seen(const struct host_view *v, const char *dir, size_t len)
{
        for (size_t i = 0; i < v->n_dirs; i++)
                if (strlen(v->dirs[i]) == len && memcmp(v->dirs[i], dir, len) == 0)
                        return true;
        return false;
}

static int note_dir(struct host_view *v, const char *dir, size_t len)
{
        _cleanup_free_ char *copy = strndup(dir, len);
        if (!copy)
                return -ENOMEM;
        char **d = reallocarray(v->dirs, v->n_dirs + 1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        v->dirs = d;
        d[v->n_dirs++] = TAKE_PTR(copy);
        return 0;
}

/* realpath() and stat() of @path at once, for the usual grant, which has nothing to resolve: a
 * normal absolute path with no symlink on it is its own realpath. Each directory on the way is
 * looked at once per plan (most grants share their parents: /dev, $HOME, /proc), where
 * realpath() would read every one again for each path. Returns 1 with *@ret_real (a copy of
 * @path) and *@ret_st set; -ENOENT or -ENOTDIR when nothing is there (as realpath() would
 * fail); 0 when realpath() must decide (a symlink, an odd path, another error); -ENOMEM. Racy
 * as realpath() is: prepare() opens the result with RESOLVE_NO_SYMLINKS and requires this
 * object there. */
static int plain_path(struct host_view *v, const char *path, char **ret_real, struct stat *ret_st)
{
        if (!path_is_normal(path))
                return 0;
        struct stat st;
        int r;
        for (const char *c = strchr(path + 1, '/'); c; c = strchr(c + 1, '/')) {
                size_t len = (size_t)(c - path);
                if (dir_seen(v, path, len))
                        continue;
                _cleanup_free_ char *dir = strndup(path, len);
                if (!dir)
                        return -ENOMEM;
                if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
                        return 0;
                if ((r = note_dir(v, path, len)) < 0)
                        return r;
        }
        if (lstat(path, &st) < 0)
                return errno == ENOENT || errno == ENOTDIR ? -errno : 0;
        if (S_ISLNK(st.st_mode))
                return 0;
        if (S_ISDIR(st.st_mode) && !dir_seen(v, path, strlen(path)) &&
            (r = note_dir(v, path, strlen(path))) < 0)
                return r;
        char *real = strdup(path);
        if (!real)
                return -ENOMEM;
        *ret_real = real;
        *ret_st = st;
        return 1;
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

/* The objects on the way to realpath @real, from "/" down to @real itself. A prefix that has
 * gone since realpath() saw it is a concurrent rename: -ESTALE. */
static int chain_of(const char *real, struct cordon_landlock_obj **ret, size_t *ret_n)
{
        size_t depth = 1;
        for (const char *c = real; *c; c++)
                depth += *c == '/';
        _cleanup_free_ struct cordon_landlock_obj *chain = calloc(depth, sizeof(*chain));
        _cleanup_free_ char *buf = strdup(real);
        if (!chain || !buf)
                return -ENOMEM;
        struct stat st;
        if (lstat("/", &st) < 0)
                return -errno;
        size_t n = 0;
        chain[n++] = (struct cordon_landlock_obj){st.st_dev, st.st_ino};
        for (char *c = buf + 1;; c++) {
                if (*c && *c != '/')
                        continue;
                char saved = *c;
                *c = 0;
                if (c > buf + 1) {
                        if (lstat(buf, &st) < 0)
                                return errno == ENOENT || errno == ENOTDIR ? -ESTALE : -errno;
                        if (n < depth)
                                chain[n++] = (struct cordon_landlock_obj){st.st_dev, st.st_ino};
                }
                if (!saved)
                        break;
                *c = saved;
        }
        *ret = TAKE_PTR(chain);
        *ret_n = n;
        return 0;
}

/* Adds the host realpath of @path as a masked path. Nothing to hide when it cannot be reached. */
static int add_mask(void *userdata, const char *path)
{
        struct host_view *v = userdata;
        struct stat st;
        /* Most masked paths (the credential stores of the home) do not exist: one lstat() says
         * so for less than realpath()'s walk, which would fail the same way. */
        if (lstat(path, &st) < 0)
                return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
        _cleanup_free_ char *real = realpath(path, NULL);
        if (!real)
                return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
        for (size_t i = 0; i < v->n_masks; i++)
                if (streq(v->masks[i], real))
                        return 0;
        bool dir = lstat(real, &st) < 0 || S_ISDIR(st.st_mode); /* unknown counts as a dir */
        struct cordon_landlock_obj *chain = NULL;
        size_t n_chain = 0;
        int r = chain_of(real, &chain, &n_chain);
        if (r < 0)
                return r;
        char **m = reallocarray(v->masks, v->n_masks + 1, sizeof(*m));
        if (m)
                v->masks = m;
        bool *d = m ? reallocarray(v->mask_dirs, v->n_masks + 1, sizeof(*d)) : NULL;
        if (d)
                v->mask_dirs = d;
        struct cordon_landlock_obj **ch =
            d ? reallocarray(v->chains, v->n_masks + 1, sizeof(*ch)) : NULL;
        if (ch)
                v->chains = ch;
        size_t *nc = ch ? reallocarray(v->n_chains, v->n_masks + 1, sizeof(*nc)) : NULL;
        if (!nc) {
                free(chain);
                return -ENOMEM;
        }
        v->n_chains = nc;
        m[v->n_masks] = TAKE_PTR(real);
        d[v->n_masks] = dir;
        ch[v->n_masks] = chain;
        nc[v->n_masks++] = n_chain;
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
                if (!f->host || !cordon_access_host_is_path(f->access) ||
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
        _cleanup_free_ char *real = NULL;
        struct stat st;
        int plain = plain_path(ip->v, path, &real, &st);
        if (plain == -ENOENT || plain == -ENOTDIR)
                return 0; /* as when realpath() fails */
        if (plain < 0)
                return plain;
        if (!plain && !(real = realpath(path, NULL)))
                return 0;
        const struct grant *g = enclosing(ip->v, real);
        if (!g || !(g->access & ~FS_READ) || in_mask(ip->v, real))
                return 0;
        if (!plain && stat(real, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        int r = add_grant(ip->v, real, g->access & FS_READ, true, ip->fs_rule);
        if (r >= 0) {
                ip->v->grants[ip->v->n_grants - 1].st = st;
                ip->v->grants[ip->v->n_grants - 1].seen = true;
        }
        return r;
}

static bool below_strictly(const char *path, const char *parent)
{
        return path_is_below(path, parent) && !streq(path, parent);
}

struct carve {
        struct host_view *v;
        struct cordon_landlock_plan *plan;
        const char **points; /* paths below the grant that it must not reach */
        size_t n_points;
        uint64_t access;
        int fs_rule;
        const struct stat *top; /* what collect_host() saw at the grant, or NULL */
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

static int take_budget(struct carve *c)
{
        if (c->v->budget == 0)
                return -E2BIG;
        c->v->budget--;
        return 0;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Opens the grant at @path (depth 0) or entry @name of @parent_fd to read it. The grant's path is
 * its realpath: a symlink on it now was swapped in since, and would take the carving (and the
 * grants below, which prepare() checks against what the carving saw) somewhere else. */
static int carve_open(const struct carve *c, int parent_fd, const char *name, unsigned depth)
{
        if (depth > 0) {
                int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                return fd < 0 ? -errno : fd;
        }
        struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
                               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        _cleanup_close_ int fd = (int)syscall(SYS_openat2, AT_FDCWD, name, &how, sizeof(how));
        struct stat st;
        if (fd < 0)
                return -errno;
        if (c->top && (fstat(fd, &st) < 0 || !same_inode(&st, c->top)))
                return -ESTALE;
        return TAKE_FD(fd);
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
        int fd = carve_open(c, parent_fd, name, depth);
        if (fd < 0)
                return fd;
        DIR *d = fdopendir(fd);
        if (!d) {
                int k = -errno;
                close(fd);
                return k;
        }
        char **names = NULL;
        size_t n = 0;
        struct stat dst;
        int r = fstat(dirfd(d), &dst) < 0 ? -errno : 0;
        if (r >= 0)
                r = dir_read_names(d, c->v->budget + c->n_points, &names, &n);
        if (r >= 0 && (c->access & ACC(READ_DIR)) && !masked_dir_below(c->v, path) &&
            (r = take_budget(c)) >= 0)
                r = cordon_landlock_push(c->plan, strdup(path), ACC(READ_DIR), true, c->fs_rule,
                                         &dst);
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
                /* Optional: an entry may vanish before prepare() opens it. */
                if (a && (r = take_budget(c)) >= 0)
                        r = cordon_landlock_push(c->plan, TAKE_PTR(child), a, true, c->fs_rule,
                                                 &st);
        }
        strv_free(names);
        closedir(d);
        return r;
}

/* The paths grant @g must not reach: masked paths below it, and the grants nested in it that
 * need it kept out: those with fewer rights (a mount would shadow the parent there) and those
 * with masked paths of their own below them. */
/* below_strictly() with both lengths known: most pairs differ in length or have no '/' at the
 * parent's end, and carve_points() compares every pair of grants. */
static bool below_strictly_n(const char *path, size_t n, const char *parent, size_t m)
{
        if (m == 1)
                return parent[0] == '/' && n > 1 && path[0] == '/';
        return n > m && path[m] == '/' && memcmp(path, parent, m) == 0;
}

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
                if (h->dropped || !below_strictly_n(h->path, h->len, g->path, g->len))
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

/* The host's password hashes. Masked only for a caller who could read them (root, the shadow
 * group): for anyone else their file modes already deny it, and carving /etc costs a rule per
 * entry (a hundred or more) at every start. Not where a grant of their own asks for them. */
static int mask_shadow(struct host_view *v)
{
        static const char *const files[] = {"/etc/shadow", "/etc/gshadow"};
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                if (faccessat(AT_FDCWD, files[i], R_OK, AT_EACCESS) < 0)
                        continue;
                _cleanup_free_ char *real = realpath(files[i], NULL);
                if (!real) {
                        if (errno == ENOMEM)
                                return -ENOMEM;
                        continue;
                }
                const struct grant *g = enclosing(v, real);
                if (!g || streq(g->path, real))
                        continue;
                int r = add_mask(v, real);
                if (r < 0)
                        return r;
        }
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
                /* Kinds only a mount namespace can give (tmpfs, generated files, symlinks); the
                 * launcher adds a private TMPDIR. */
                const struct cordon_access_traits *kind = cordon_access_traits(f->access);
                if (!kind)
                        return -EINVAL;
                if (kind->ns_only)
                        continue;
                switch (f->access) {
                case CORDON_ACCESS_RO:
                case CORDON_ACCESS_RW:
                case CORDON_ACCESS_DEVICE:
                        if (!f->host)
                                continue; /* narrowing in place: resolved below */
                        r = add_grant(v, f->host, cordon_landlock_rule_access(f->access, f->flags),
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
                        for (size_t k = 0; r >= 0 && k < cordon_landlock_n_dev_entries; k++) {
                                _cleanup_free_ char *path =
                                    path_join("/dev", cordon_landlock_dev_entries[k].name);
                                if (!path)
                                        return -ENOMEM;
                                if (cordon_landlock_dev_entries[k].host)
                                        r = add_grant(v, path,
                                                      cordon_landlock_dev_entries[k].access,
                                                      optional, (int)i);
                        }
                        break;
                case CORDON_ACCESS_MASKED:
                        r = for_each_host_path(p, f->guest, add_mask, v);
                        break;
                default:
                        return -EINVAL;
                }
                if (r < 0)
                        return r;
        }
        /* Resolve grants the way the masks are resolved, so that paths compare as strings, and
         * note what is there, which prepare() then requires. A path that cannot be resolved
         * stays as it is, and prepare() decides (optional or not). */
        for (size_t i = 0; i < v->n_grants; i++) {
                struct grant *g = &v->grants[i];
                char *real = NULL;
                r = plain_path(v, g->path, &real, &g->st);
                if (r == -ENOENT || r == -ENOTDIR)
                        continue; /* stays as it is, as when realpath() fails */
                if (r < 0)
                        return r;
                if (r > 0) {
                        free(g->path);
                        g->path = real;
                        g->seen = true;
                        continue;
                }
                real = realpath(g->path, NULL);
                if (real) {
                        free(g->path);
                        g->path = real;
                        if (stat(real, &g->st) == 0)
                                g->seen = true;
                        else if (errno != ENOENT && errno != ENOTDIR)
                                return -errno;
                } else if (errno == ENOMEM)
                        return -ENOMEM;
        }
        if ((r = mask_shadow(v)) < 0)
                return r;
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

int cordon_landlock_build_host(const struct cordon_policy *p, struct cordon_landlock_plan *plan)
{
        struct host_view v = {.budget = CORDON_LANDLOCK_CARVE_MAX_RULES};
        int r = collect_host(p, &v);
        for (size_t i = 0; r >= 0 && i < v.n_grants; i++)
                v.grants[i].len = strlen(v.grants[i].path);
        for (size_t i = 0; r >= 0 && i < v.n_grants; i++) {
                const struct grant *g = &v.grants[i];
                if (g->dropped)
                        continue;
                const char **pts = NULL;
                size_t n = 0;
                if ((r = carve_points(&v, g, &pts, &n)) < 0)
                        break;
                if (n == 0)
                        r = cordon_landlock_push(plan, strdup(g->path), g->access, g->optional,
                                                 g->fs_rule, g->seen ? &g->st : NULL);
                else {
                        struct carve c = {.v = &v,
                                          .plan = plan,
                                          .points = pts,
                                          .n_points = n,
                                          .access = g->access,
                                          .fs_rule = g->fs_rule,
                                          .top = g->seen ? &g->st : NULL};
                        r = carve_dir(&c, AT_FDCWD, g->path, g->path, 0);
                        if (r == -ENOENT && g->optional)
                                r = 0;
                }
                free(pts);
        }
        /* The masks go to the plan with what was found on the way to them, for prepare() to
         * require once the rules are fixed on their objects. */
        if (r >= 0 && v.n_masks > 0) {
                plan->masks = calloc(v.n_masks, sizeof(*plan->masks));
                r = plan->masks ? 0 : -ENOMEM;
                for (size_t i = 0; r >= 0 && i < v.n_masks; i++) {
                        struct cordon_landlock_mask *m = &plan->masks[plan->n_masks];
                        if (!(m->path = strdup(v.masks[i]))) {
                                r = -ENOMEM;
                                break;
                        }
                        m->chain = TAKE_PTR(v.chains[i]);
                        m->n_chain = v.n_chains[i];
                        m->dir = v.mask_dirs[i];
                        plan->n_masks++;
                }
        }
        host_view_clear(&v);
        return r;
}
