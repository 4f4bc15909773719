/* Mount namespace: executes the filesystem rules of a policy on a fresh tmpfs root. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "lib/mech/mount-util.h"
#include "lib/mech/ns-mount.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"

/* Where the new root is assembled inside the child's private mount namespace. Every host source
 * is opened before this tmpfs covers it, so a project under /tmp still works. */
#define STAGING "/tmp"

#define ATTR_RO (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define ATTR_RW (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

/* Default tmpfs sizes are rounded down to this; the kernel rounds size= up to pages anyway. */
#define TMPFS_PAGE 4096

static const char *rel(const char *guest)
{
        while (*guest == '/')
                guest++;
        return guest;
}

/* qsort_r(): the policy travels with the call, so sandboxes started at once from several
 * threads each sort their own. */
struct order_ctx {
        const struct cordon_policy *policy;
};

static int order_cmp(const void *a, const void *b, void *userdata)
{
        const struct cordon_policy *policy = ((const struct order_ctx *)userdata)->policy;
        return cordon_policy_fs_order(policy, *(const size_t *)a, *(const size_t *)b);
}

uint64_t cordon_mount_tmpfs_size(const struct cordon_policy *p, uint64_t ram)
{
        if (p->limits.tmp_size_bytes > 0)
                return p->limits.tmp_size_bytes;
        /* The kernel's default gives each tmpfs half of RAM: /tmp, the home and /dev/shm could
         * take 150 % of it together, and a memory limit without a cgroup does not see tmpfs
         * pages at all. By default they share a quarter of RAM instead, split evenly between
         * the ones the sandbox can fill; a sealed tmpfs only holds what cordon copies in. */
        unsigned n = 0;
        bool dev = false;
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                n += r->access == CORDON_ACCESS_TMPFS && !(r->flags & CORDON_FS_SEAL);
                dev |= r->access == CORDON_ACCESS_DEV;
        }
        /* setup_dev()'s /dev/shm, unless a rule puts something else there. */
        n += dev && !cordon_policy_find_fs(p, "/dev/shm");
        uint64_t size = ram / 4 / (n ?: 1) & ~(uint64_t)(TMPFS_PAGE - 1);
        return size ?: TMPFS_PAGE;
}

int cordon_mount_plan_build(const struct cordon_policy *p, struct cordon_mount_plan *ret)
{
        struct cordon_mount_plan plan = {0};
        /* RAM is read here in the parent: the child only formats the number. */
        struct sysinfo si;
        if (sysinfo(&si) < 0)
                return -errno;
        plan.tmpfs_size = cordon_mount_tmpfs_size(p, (uint64_t)si.totalram * si.mem_unit);
        plan.order = calloc(p->n_fs ?: 1, sizeof(size_t));
        plan.src_fds = calloc(p->n_fs ?: 1, sizeof(int));
        if (!plan.order || !plan.src_fds) {
                cordon_mount_plan_clear(&plan);
                return -ENOMEM;
        }
        for (size_t i = 0; i < p->n_fs; i++) {
                plan.order[i] = i;
                plan.src_fds[i] = -EBADF;
        }
        plan.n = p->n_fs;
        /* qsort is not stable; the index tie-break keeps insertion order (later rules win). */
        struct order_ctx ctx = {.policy = p};
        qsort_r(plan.order, plan.n, sizeof(size_t), order_cmp, &ctx);
        *ret = plan;
        return 0;
}

void cordon_mount_plan_clear(struct cordon_mount_plan *plan)
{
        if (plan->src_fds)
                for (size_t i = 0; i < plan->n; i++)
                        safe_close(plan->src_fds[i]);
        free(plan->order);
        free(plan->src_fds);
        *plan = (struct cordon_mount_plan){0};
}

static unsigned long long bind_attrs(enum cordon_access a)
{
        switch (cordon_access_traits(a)->bind) {
        case CORDON_BIND_READ:
                return ATTR_RO;
        case CORDON_BIND_DEVICE:
                return MOUNT_ATTR_NOSUID;
        default:
                return ATTR_RW;
        }
}

/* Phase A: open every host source while the host tree is still fully visible. */
static int open_sources(struct cordon_mount_plan *plan, const struct cordon_policy *p,
                        int *ret_rule)
{
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                int fd;
                *ret_rule = (int)i;
                if (cordon_access_is_bind(r->access) && r->host) {
                        _cleanup_close_ int path_fd = cordon_open_host_path(r->host);
                        if (path_fd < 0) {
                                if (path_fd == -ENOENT && (r->flags & CORDON_FS_OPTIONAL))
                                        continue;
                                if (path_fd == -EACCES && (r->flags & CORDON_FS_UNREACHABLE_SKIPS))
                                        continue; /* out of the sandbox's reach */
                                return path_fd;
                        }
                        fd = cordon_clone_tree(path_fd, bind_attrs(r->access), true);
                } else if (r->access == CORDON_ACCESS_COPY) {
                        fd = open(r->host, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
                        if (fd < 0 && errno == ENOENT && (r->flags & CORDON_FS_OPTIONAL))
                                continue;
                        if (fd < 0)
                                fd = -errno;
                } else
                        continue;
                if (fd < 0)
                        return fd;
                plan->src_fds[i] = fd;
        }
        *ret_rule = -1;
        return 0;
}

static int is_dir_fd(int fd)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        return S_ISDIR(st.st_mode);
}

/* Binds a clone of host file @host (e.g. /dev/null) onto @target_fd. */
static int bind_host_file(const char *host, int target_fd, unsigned long long attrs)
{
        _cleanup_close_ int path_fd = cordon_open_host_path(host);
        if (path_fd < 0)
                return path_fd;
        _cleanup_close_ int t = cordon_clone_tree(path_fd, attrs, false);
        if (t < 0)
                return t;
        return cordon_move_mount_fd(t, target_fd);
}

/* Writes @data (or the contents of @src_fd) to a fresh file on the staging root, binds that file
 * onto @rel and unlinks the staging name: the mount keeps the inode alive, and nothing of it is
 * left visible anywhere else. */
static int bind_new_file(int rootfd, const char *relpath, int target_fd, const char *data,
                         int src_fd, mode_t mode, unsigned long long attrs)
{
        static unsigned counter;
        char name[64];
        snprintf(name, sizeof(name), ".cordon-file-%u", counter++);
        _cleanup_close_ int f = openat(rootfd, name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, mode);
        if (f < 0)
                return -errno;
        int r = 0;
        if (data)
                r = write_all(f, data, strlen(data));
        else {
                for (;;) {
                        ssize_t k = sendfile(f, src_fd, NULL, 1 << 20);
                        if (k < 0) {
                                r = -errno;
                                break;
                        }
                        if (k == 0)
                                break;
                }
        }
        if (r >= 0) {
                _cleanup_close_ int t = cordon_clone_tree(f, attrs, false);
                if (t < 0)
                        r = t;
                else if (target_fd >= 0)
                        r = cordon_move_mount_fd(t, target_fd);
                else {
                        _cleanup_close_ int target = cordon_make_mountpoint(rootfd, relpath, false);
                        r = target < 0 ? target : cordon_move_mount_fd(t, target);
                }
        }
        if (unlinkat(rootfd, name, 0) < 0 && r >= 0)
                r = -errno;
        return r;
}

/* The staged file of the last DATA rule: rules with the same contents and mode (the mail stub
 * over each mailer and in the directory of stubs) share it, each costing a clone and a move
 * rather than a file written anew. Its name stays on the staging root until staged_drop(): a
 * clone of an unlinked file cannot be attached. */
struct staged {
        const char *data;
        mode_t mode;
        int fd;
        char name[64];
};

static int staged_drop(int rootfd, struct staged *st)
{
        if (st->fd < 0)
                return 0;
        /* Closed before anything can exec the file: an open writer makes exec fail (ETXTBSY). */
        st->fd = safe_close(st->fd);
        return unlinkat(rootfd, st->name, 0) < 0 ? -errno : 0;
}

static int bind_data(int rootfd, const char *relpath, const struct cordon_fs_rule *r,
                     struct staged *st)
{
        mode_t mode = r->flags & CORDON_FS_EXEC ? 0555 : 0644;
        if (st->fd < 0 || st->mode != mode || !streq(st->data, r->host)) {
                static unsigned counter;
                int k = staged_drop(rootfd, st);
                if (k < 0)
                        return k;
                snprintf(st->name, sizeof(st->name), ".cordon-data-%u", counter++);
                st->fd = openat(rootfd, st->name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, mode);
                if (st->fd < 0)
                        return -errno;
                st->data = r->host;
                st->mode = mode;
                /* A program's mode whatever the caller's umask. */
                if ((r->flags & CORDON_FS_EXEC) && fchmod(st->fd, mode) < 0)
                        return -errno;
                k = write_all(st->fd, r->host, strlen(r->host));
                if (k < 0)
                        return k;
        }
        _cleanup_close_ int t = cordon_clone_tree(st->fd, ATTR_RO, false);
        if (t < 0)
                return t;
        _cleanup_close_ int target = cordon_make_mountpoint(rootfd, relpath, false);
        return target < 0 ? target : cordon_move_mount_fd(t, target);
}

/* A seeded copy (the contents of @src_fd) or a configuration copy (@data) whose place is on a
 * sandbox tmpfs (the tmpwrite home) becomes a plain file there, so tools can replace it by rename
 * as usual. Returns -EAGAIN when the place is not such a tmpfs or already taken, and the caller
 * binds a copy over it instead. */
static int copy_into_tmpfs(int rootfd, const char *relpath, const char *data, int src_fd,
                           mode_t mode)
{
        const char *slash = strrchr(relpath, '/');
        char buf[4096];
        if (!slash || (size_t)(slash - relpath) >= sizeof(buf))
                return -EAGAIN;
        snprintf(buf, sizeof(buf), "%.*s", (int)(slash - relpath), relpath);
        _cleanup_close_ int parent = cordon_mkdir_p_beneath(rootfd, buf);
        if (parent < 0)
                return parent;
        struct statfs sfs;
        if (fstatfs(parent, &sfs) < 0)
                return -errno;
        if (sfs.f_type != TMPFS_MAGIC)
                return -EAGAIN;
        _cleanup_close_ int dir = openat(parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
                return -errno;
        _cleanup_close_ int f =
            openat(dir, slash + 1, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
        if (f < 0)
                return errno == EEXIST || errno == EROFS ? -EAGAIN : -errno;
        if (data)
                return write_all(f, data, strlen(data));
        for (;;) {
                ssize_t n = sendfile(f, src_fd, NULL, 1 << 20);
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return 0;
        }
}

static int setup_dev(int rootfd, int dev_fd, uint64_t shm_size)
{
        static const char *const nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
        static const char *const links[][2] = {
            {"ptmx", "pts/ptmx"},          {"fd", "/proc/self/fd"},
            {"stdin", "/proc/self/fd/0"},  {"stdout", "/proc/self/fd/1"},
            {"stderr", "/proc/self/fd/2"},
        };
        int r = cordon_mount_on_fd("tmpfs", dev_fd, "tmpfs", MS_NOSUID | MS_NOEXEC,
                                   "mode=0755,size=64k");
        if (r < 0)
                return r;
        _cleanup_close_ int dev = cordon_open_beneath(rootfd, "dev", O_DIRECTORY);
        if (dev < 0)
                return dev;
        for (size_t i = 0; i < ELEMENTSOF(nodes); i++) {
                char host[32];
                snprintf(host, sizeof(host), "/dev/%s", nodes[i]);
                _cleanup_close_ int t = cordon_make_mountpoint(dev, nodes[i], false);
                if (t < 0)
                        return t;
                r = bind_host_file(host, t, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < ELEMENTSOF(links); i++)
                if (symlinkat(links[i][1], dev, links[i][0]) < 0)
                        return -errno;
        _cleanup_close_ int pts = cordon_make_mountpoint(dev, "pts", true);
        if (pts < 0)
                return pts;
        r = cordon_mount_on_fd("devpts", pts, "devpts", MS_NOSUID | MS_NOEXEC,
                               "newinstance,ptmxmode=0666,mode=620");
        if (r < 0)
                return r;
        _cleanup_close_ int shm = cordon_make_mountpoint(dev, "shm", true);
        if (shm < 0)
                return shm;
        /* Sized like the other tmpfs mounts: POSIX shared memory is files here, outside a
         * memory limit that has no cgroup. A stack buffer: this runs in the child. */
        char opts[64];
        snprintf(opts, sizeof(opts), "mode=1777,size=%" PRIu64, shm_size);
        /* /dev itself is sealed read-only at the end, once --device nodes are bound into it. */
        return cordon_mount_on_fd("tmpfs", shm, "tmpfs", MS_NOSUID | MS_NODEV, opts);
}

/* Covers @t: a directory with an empty read-only tmpfs, a file with @empty_fd (an empty file,
 * or -EBADF to make one). */
static int mask_fd(int rootfd, int t, int empty_fd)
{
        struct stat st;
        if (fstat(t, &st) < 0)
                return -errno;
        if (S_ISLNK(st.st_mode))
                return -ELOOP; /* a mount cannot cover a symlink; refuse rather than leave it */
        if (S_ISDIR(st.st_mode))
                return cordon_mount_on_fd("tmpfs", t, "tmpfs",
                                          MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                                          "mode=0755,size=4k,nr_inodes=1");
        /* An empty read-only regular file: reads give nothing, writes fail with EROFS. /dev/null
         * would need a mount without nodev, and writes to it would then succeed silently. */
        if (empty_fd < 0)
                return bind_new_file(rootfd, NULL, t, "", -EBADF, 0644,
                                     ATTR_RO | MOUNT_ATTR_NOEXEC);
        _cleanup_close_ int c = cordon_clone_tree(empty_fd, ATTR_RO | MOUNT_ATTR_NOEXEC, false);
        return c < 0 ? c : cordon_move_mount_fd(c, t);
}

static int apply_mask(int rootfd, const struct cordon_fs_rule *r)
{
        _cleanup_close_ int t = cordon_open_beneath(rootfd, rel(r->guest), O_NOFOLLOW);
        /* Not visible at this guest path: there is nothing to hide here. Nor where the sandbox
         * cannot reach it (see CORDON_FS_UNREACHABLE_SKIPS). */
        if (t == -ENOENT || t == -ENOTDIR ||
            (t == -EACCES && (r->flags & CORDON_FS_UNREACHABLE_SKIPS)))
                return 0;
        if (t < 0)
                return t;
        return mask_fd(rootfd, t, -EBADF);
}

/* Entries of the sandbox's procfs that describe the whole host rather than the sandbox's own
 * pid namespace, hidden the way container runtimes hide them (runc's masked paths), plus the
 * files the kernel keeps to root alone. Those last ones matter because cordon run by root maps
 * the sandbox's uid 0 to the host's: the mode check that hides them from everyone else passes.
 * Absent entries (kernel configuration) cost one failed lookup. Left visible on purpose:
 * kmsg (opening it needs CAP_SYSLOG in the initial namespace), kallsyms (the kernel prints
 * zero addresses without that same capability; the names match the distribution's System.map),
 * /proc/sys, sysrq-trigger, irq and bus (read-only by policy rules, see lower_system()). */
static const char *const proc_masked[] = {
    /* Descriptions of the caller's keys: keyrings belong to the user, not the namespace, so
     * the sandbox would list the host session's keys (fscrypt, kerberos, ...). */
    "keys",
    /* Host-wide timers with the functions and pids behind them; the host's run queues. */
    "timer_list",
    "timer_stats",
    "sched_debug",
    "latency_stats",
    /* Kernel memory and its layout: kernel image, slab caches used to groom heap exploits,
     * vmalloc areas, and the flags and map counts of every physical page. */
    "kcore",
    "slabinfo",
    "vmallocinfo",
    "pagetypeinfo",
    "kpageflags",
    "kpagecount",
    "kpagecgroup",
    /* Hardware control directories runc hides. */
    "acpi",
    "asound",
    "scsi",
};

/* Hides proc_masked[] in the procfs just mounted at @relpath, those the sandbox could open.
 * One empty file serves every file mask, so each costs a clone and a move. Its staging name
 * goes once the masks are in place (a clone of an unlinked file cannot be attached), so nothing
 * of it stays visible on the root. */
static int mask_proc(int rootfd, const char *relpath)
{
        _cleanup_close_ int proc = cordon_open_beneath(rootfd, relpath, O_DIRECTORY);
        if (proc < 0)
                return proc;
        static const char name[] = ".cordon-proc-mask";
        _cleanup_close_ int empty = -EBADF;
        int r = 0;
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(proc_masked); i++) {
                _cleanup_close_ int t =
                    openat(proc, proc_masked[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;
                if (t < 0 && errno == ENOENT)
                        continue;
                if (t < 0 || fstat(t, &st) < 0) {
                        r = -errno;
                        break;
                }
                /* Only its owner may open it, and that is not the sandbox's uid (root shows as
                 * the overflow uid when the caller is not root): the kernel keeps it out
                 * already, and a mount would only add to the start-up time. */
                if (!(st.st_mode & 0066) && st.st_uid != getuid())
                        continue;
                if (!S_ISDIR(st.st_mode) && empty < 0) {
                        empty = openat(rootfd, name, O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC, 0444);
                        if (empty < 0) {
                                r = -errno;
                                break;
                        }
                }
                r = mask_fd(rootfd, t, empty);
        }
        if (empty >= 0 && unlinkat(rootfd, name, 0) < 0 && r >= 0)
                r = -errno;
        return r;
}

/* What consecutive rules of one kind share while the plan is executed. */
struct apply_cache {
        struct staged data;
        int link_dir; /* the directory of the last SYMLINK rule, at link_rel; only for the next */
        char link_rel[256];
};

static int apply_rule(struct cordon_mount_plan *plan, int rootfd, const struct cordon_policy *p,
                      size_t idx, struct apply_cache *cache, int *ret_step)
{
        const struct cordon_fs_rule *r = &p->fs[idx];
        const char *relpath = rel(r->guest);
        int src = plan->src_fds[idx];
        int k;

        /* A mount after the last link could cover its directory. */
        if (r->access != CORDON_ACCESS_SYMLINK)
                cache->link_dir = safe_close(cache->link_dir);

        *ret_step = CORDON_STEP_MOUNTPOINT;
        switch (r->access) {
        case CORDON_ACCESS_RO:
        case CORDON_ACCESS_RW:
        case CORDON_ACCESS_DEVICE: {
                if (!r->host) {
                        /* Read-only in place, e.g. /proc/sys of the sandbox's own procfs. */
                        _cleanup_close_ int t = cordon_open_beneath(rootfd, relpath, O_NOFOLLOW);
                        if (t == -ENOENT && (r->flags & CORDON_FS_OPTIONAL))
                                return 0;
                        if (t < 0)
                                return t;
                        *ret_step = CORDON_STEP_MOUNT;
                        _cleanup_close_ int c =
                            cordon_clone_tree(t, bind_attrs(r->access) | MOUNT_ATTR_NOEXEC, true);
                        return c < 0 ? c : cordon_move_mount_fd(c, t);
                }
                if (src < 0)
                        return 0; /* optional and missing */
                if ((k = is_dir_fd(src)) < 0)
                        return k;
                _cleanup_close_ int t = cordon_make_mountpoint(rootfd, relpath, k);
                if (t < 0)
                        return t;
                *ret_step = CORDON_STEP_MOUNT;
                return cordon_move_mount_fd(src, t);
        }
        case CORDON_ACCESS_TMPFS: {
                _cleanup_close_ int t = cordon_make_mountpoint(rootfd, relpath, true);
                if (t < 0)
                        return t;
                *ret_step = CORDON_STEP_MOUNT;
                /* 1777 for shared scratch like /tmp, 0700 for a private home. */
                const char *mode = streq(r->guest, "/tmp") || streq(r->guest, "/var/tmp")
                                       ? "mode=1777"
                                       : "mode=0700";
                /* The size the parent planned (cordon_mount_tmpfs_size()). A stack buffer: this
                 * runs in the child after clone. */
                char opts[64];
                snprintf(opts, sizeof(opts), "%s,size=%" PRIu64, mode, plan->tmpfs_size);
                return cordon_mount_on_fd("tmpfs", t, "tmpfs", MS_NOSUID | MS_NODEV, opts);
        }
        case CORDON_ACCESS_SYMLINK: {
                const char *slash = strrchr(relpath, '/');
                size_t dl = slash ? (size_t)(slash - relpath) : 0;
                /* The links of one directory (the mail stubs' names) come one after another:
                 * the first finds or makes the directory, the others go straight in. An
                 * existing entry is left as it is, as below. */
                if (slash && cache->link_dir >= 0 && strlen(cache->link_rel) == dl &&
                    strncmp(cache->link_rel, relpath, dl) == 0) {
                        *ret_step = CORDON_STEP_MOUNT;
                        return symlinkat(r->host, cache->link_dir, slash + 1) < 0 && errno != EEXIST
                                   ? -errno
                                   : 0;
                }
                _cleanup_close_ int existing = cordon_open_beneath(rootfd, relpath, O_NOFOLLOW);
                if (existing >= 0)
                        return 0; /* already visible through a parent bind */
                _cleanup_close_ int parent = -EBADF;
                if (slash) {
                        char buf[4096];
                        snprintf(buf, sizeof(buf), "%.*s", (int)(slash - relpath), relpath);
                        parent = cordon_mkdir_p_beneath(rootfd, buf);
                } else
                        parent = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
                if (parent < 0)
                        return parent == -1 ? -errno : parent;
                *ret_step = CORDON_STEP_MOUNT;
                if (symlinkat(r->host, parent, slash ? slash + 1 : relpath) < 0)
                        return -errno;
                if (slash && dl < sizeof(cache->link_rel)) {
                        memcpy(cache->link_rel, relpath, dl);
                        cache->link_rel[dl] = 0;
                        cache->link_dir = TAKE_FD(parent);
                }
                return 0;
        }
        case CORDON_ACCESS_DATA:
                *ret_step = CORDON_STEP_MOUNT;
                /* A configuration copy on the sandbox's own writable tmpfs (the tmpwrite home)
                 * is a plain file of the sandbox's there, which tools may rewrite and replace
                 * by rename (git config writes a lock file and renames it over; a mount
                 * point refuses that with EBUSY). Elsewhere, or with its place taken, it is
                 * bound read-only, as every generated file. */
                if ((r->flags & CORDON_FS_CONFIG_COPY) && cordon_policy_on_own_tmpfs(p, idx)) {
                        k = copy_into_tmpfs(rootfd, relpath, r->host, -EBADF, 0600);
                        if (k != -EAGAIN)
                                return k;
                }
                return bind_data(rootfd, relpath, r, &cache->data);
        case CORDON_ACCESS_COPY: {
                if (src < 0)
                        return 0;
                struct stat st;
                if (fstat(src, &st) < 0)
                        return -errno;
                *ret_step = CORDON_STEP_MOUNT;
                k = copy_into_tmpfs(rootfd, relpath, NULL, src, st.st_mode & 0777);
                if (k != -EAGAIN)
                        return k;
                return bind_new_file(rootfd, relpath, -EBADF, NULL, src, st.st_mode & 0777,
                                     ATTR_RW);
        }
        case CORDON_ACCESS_PROC: {
                _cleanup_close_ int t = cordon_make_mountpoint(rootfd, relpath, true);
                if (t < 0)
                        return t;
                *ret_step = CORDON_STEP_MOUNT;
                k = cordon_mount_on_fd("proc", t, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
                if (k < 0)
                        return k;
                *ret_step = CORDON_STEP_MASK;
                return mask_proc(rootfd, relpath);
        }
        case CORDON_ACCESS_DEV: {
                _cleanup_close_ int t = cordon_make_mountpoint(rootfd, relpath, true);
                if (t < 0)
                        return t;
                *ret_step = CORDON_STEP_MOUNT;
                return setup_dev(rootfd, t, plan->tmpfs_size);
        }
        case CORDON_ACCESS_MASKED:
                *ret_step = CORDON_STEP_MASK;
                /* A configuration copy goes over the original in the mask's place (a mount
                 * cannot stack on the mask's unlinked file), after the other masks. */
                for (size_t i = 0; i < p->n_fs; i++)
                        if ((p->fs[i].flags & CORDON_FS_CONFIG_COPY) &&
                            p->fs[i].access == CORDON_ACCESS_DATA &&
                            streq(p->fs[i].guest, r->guest))
                                return 0;
                return apply_mask(rootfd, r);
        default:
                return -EINVAL;
        }
}

/* Remounts read-only the tmpfs rules flagged SEAL and /dev (nothing may be created there once the
 * device nodes are in), then the root itself. */
static int seal(int rootfd, const struct cordon_policy *p, int *ret_rule)
{
        for (size_t i = 0; i < p->n_fs; i++) {
                const struct cordon_fs_rule *r = &p->fs[i];
                if (!(r->access == CORDON_ACCESS_TMPFS && (r->flags & CORDON_FS_SEAL)) &&
                    r->access != CORDON_ACCESS_DEV)
                        continue;
                *ret_rule = (int)i;
                _cleanup_close_ int t = cordon_open_beneath(rootfd, rel(r->guest), O_DIRECTORY);
                if (t < 0)
                        return t;
                int k = cordon_mount_on_fd(
                    NULL, t, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
                if (k < 0)
                        return k;
        }
        *ret_rule = -1;
        if (mount(NULL, STAGING, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
                  NULL) < 0)
                return -errno;
        return 0;
}

int cordon_mount_plan_execute(struct cordon_mount_plan *plan, const struct cordon_policy *p,
                              int *ret_step, int *ret_rule)
{
        int r;

        *ret_step = CORDON_STEP_OPEN;
        r = open_sources(plan, p, ret_rule);
        if (r < 0)
                return r;

        *ret_step = CORDON_STEP_ROOT;
        *ret_rule = -1;
        if (mount("tmpfs", STAGING, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") < 0)
                return -errno;
        _cleanup_close_ int rootfd = open(STAGING, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return -errno;

        struct apply_cache cache = {.data.fd = -EBADF, .link_dir = -EBADF};
        for (size_t i = 0; i < plan->n; i++) {
                size_t idx = plan->order[i];
                *ret_rule = (int)idx;
                r = apply_rule(plan, rootfd, p, idx, &cache, ret_step);
                if (r < 0)
                        break;
                plan->src_fds[idx] = safe_close(plan->src_fds[idx]);
        }
        safe_close(cache.link_dir);
        int k = staged_drop(rootfd, &cache.data);
        if (r < 0)
                return r;
        *ret_rule = -1;
        r = k;
        if (r < 0)
                return r;

        *ret_step = CORDON_STEP_MOUNT;
        r = seal(rootfd, p, ret_rule);
        if (r < 0)
                return r;

        /* pivot_root(".", ".") stacks the old root on top of the new one; detaching "." then
         * removes the old root and every mount below it from this namespace for good. */
        *ret_step = CORDON_STEP_PIVOT;
        *ret_rule = -1;
        if (fchdir(rootfd) < 0)
                return -errno;
        if (syscall(SYS_pivot_root, ".", ".") < 0)
                return -errno;
        if (umount2(".", MNT_DETACH) < 0)
                return -errno;
        if (chdir("/") < 0)
                return -errno;
        return 0;
}
