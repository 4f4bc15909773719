/* Landlock: the plan (which path gets which rights, built in the parent from the policy; the
 * landlock backend's host paths in landlock-host.c), the ruleset made from it, and its
 * application (in the child, without allocating). Raw system calls: libc has no wrappers, and the
 * system headers predate ABI 4, so the newer constants are defined here from the kernel UAPI. */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/mech/landlock-internal.h"
#include "lib/mech/landlock.h"
#include "lib/policy/backend-traits.h"
#include "lib/policy/net-modes.h"
#include "lib/policy/policy.h"
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

#ifndef LANDLOCK_ACCESS_FS_RESOLVE_UNIX
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX (1ULL << 16) /* ABI 9, Linux 7.1 */
#endif

/* LANDLOCK_RULE_NET_PORT and its attribute (ABI 4), under a name of our own: Debian 12's
 * headers predate them. */
#define CORDON_LANDLOCK_RULE_NET_PORT 2
struct net_port_attr {
        uint64_t allowed_access;
        uint64_t port;
} __attribute__((packed));

/* struct landlock_ruleset_attr as of ABI 6, under a name of our own: the system header's has
 * only the first field. The kernel takes the size we pass, so older kernels still work. */
struct ruleset_attr {
        uint64_t handled_access_fs;
        uint64_t handled_access_net; /* ABI 4 */
        uint64_t scoped;             /* ABI 6 */
};

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

/* Appends a rule, taking @path; @st is what planning saw there, or NULL. Capacity is implicit:
 * the array grows to the next power of two (at least 8) whenever n_rules reaches one, so the
 * plan needs no extra field. */
int cordon_landlock_push(struct cordon_landlock_plan *plan, char *path, uint64_t access,
                         bool optional, int fs_rule, const struct stat *st)
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
        struct cordon_landlock_rule *rule = &plan->rules[plan->n_rules++];
        *rule = (struct cordon_landlock_rule){
            .path = TAKE_PTR(owned), .access = access, .optional = optional, .fs_rule = fs_rule};
        if (st) {
                rule->dev = st->st_dev;
                rule->ino = st->st_ino;
        }
        return 0;
}

int cordon_landlock_plan_add(struct cordon_landlock_plan *plan, const char *path, uint64_t access,
                             bool optional)
{
        if (!plan || !path_is_absolute(path) || access == 0 || plan->prepared)
                return -EINVAL;
        /* As the plan's own grants: a realpath, and the object found there, which prepare()
         * then requires. */
        char *real = plan->host ? realpath(path, NULL) : NULL;
        struct stat st;
        if (!real && errno == ENOMEM)
                return -ENOMEM;
        if (real && stat(real, &st) < 0) {
                free(real);
                return -errno;
        }
        return cordon_landlock_push(plan, real ?: strdup(path), access, optional, -1,
                                    real ? &st : NULL);
}

void cordon_landlock_plan_clear(struct cordon_landlock_plan *plan)
{
        for (size_t i = 0; i < plan->n_rules; i++)
                free(plan->rules[i].path);
        free(plan->rules);
        for (size_t i = 0; i < plan->n_masks; i++) {
                free(plan->masks[i].path);
                free(plan->masks[i].chain);
        }
        free(plan->masks);
        if (plan->prepared)
                safe_close(plan->ruleset_fd);
        *plan = (struct cordon_landlock_plan){0};
}

const struct dev_entry cordon_landlock_dev_entries[] = {
    {"null", ACC(READ_FILE) | ACC(WRITE_FILE), true},
    {"zero", ACC(READ_FILE), true},
    {"full", ACC(READ_FILE), true},
    {"random", ACC(READ_FILE), true},
    {"urandom", ACC(READ_FILE), true},
    {"tty", ACC(READ_FILE) | ACC(WRITE_FILE) | ACC(IOCTL_DEV), true},
    {"pts", ACC(READ_FILE) | ACC(WRITE_FILE) | ACC(IOCTL_DEV), false},
    /* The landlock backend grants the host's /dev/ptmx: a new pty master, of no one else's
     * terminal. Its other end is reached only through the supervisor (TIOCGPTPEER,
     * launch/notify.c): /dev/pts stays closed, where the user's terminals live. */
    {"ptmx", ACC(READ_FILE) | ACC(WRITE_FILE) | ACC(IOCTL_DEV), true},
    {"shm", FS_READ | FS_WRITE, false},
};
const size_t cordon_landlock_n_dev_entries = ELEMENTSOF(cordon_landlock_dev_entries);

static int push_dev(struct cordon_landlock_plan *plan, const char *dir, bool optional, int fs_rule)
{
        int r = cordon_landlock_push(plan, strdup(dir), ACC(READ_DIR), optional, fs_rule, NULL);
        for (size_t i = 0; r >= 0 && i < cordon_landlock_n_dev_entries; i++) {
                const struct dev_entry *e = &cordon_landlock_dev_entries[i];
                /* Our /dev/ptmx is a symlink to pts/ptmx, which the pts rule covers; apply()
                 * skips an optional symlink, and grants a real node. */
                bool opt = optional || streq(e->name, "ptmx");
                r = cordon_landlock_push(plan, path_join(dir, e->name), e->access, opt, fs_rule,
                                         NULL);
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
        int r = cordon_landlock_push(plan, strdup("/"), ACC(READ_DIR), false, -1, NULL);
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
                        access = cordon_landlock_rule_access(f->access, f->flags);
                        break;
                case CORDON_ACCESS_TMPFS:
                        access = FS_READ | (f->flags & CORDON_FS_SEAL ? 0 : FS_WRITE);
                        break;
                case CORDON_ACCESS_COPY:
                        access = FS_READ | ACC(WRITE_FILE) | ACC(TRUNCATE);
                        break;
                case CORDON_ACCESS_DATA:
                        /* A generated program (the mail stub) is run as well as read. */
                        access = ACC(READ_FILE) | (f->flags & CORDON_FS_EXEC ? ACC(EXECUTE) : 0);
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
                /* A configuration copy is mounted over its original's mask. */
                if (guest_masked(p, f->guest) && !(f->flags & CORDON_FS_CONFIG_COPY))
                        continue;
                if ((r = cordon_landlock_push(plan, strdup(f->guest), access, optional, (int)i,
                                              NULL)) < 0)
                        return r;
        }
        return 0;
}

/* Drops every rule that lies strictly below another whose rights hold all of its own: Landlock
 * grants a path the union of the rules on it and on its parents, so such a rule adds nothing,
 * and each costs an open, an fstat() and a landlock_add_rule() at every start (the agents'
 * files in their read-only directories; under the ns backend, every mount inside the tmpfs
 * home). Kept when the rule is required and the one above it optional: that one may be skipped.
 * Transitive, so a rule dropped itself still covers the ones below it. */
static int drop_covered(struct cordon_landlock_plan *plan)
{
        size_t n_rules = plan->n_rules ? plan->n_rules : 1;
        bool *covered = calloc(n_rules, sizeof(*covered));
        size_t *len = malloc(n_rules * sizeof(*len));
        if (!covered || !len) {
                free(covered);
                free(len);
                return -ENOMEM;
        }
        for (size_t i = 0; i < plan->n_rules; i++)
                len[i] = strlen(plan->rules[i].path);
        /* Every pair, so the cheap tests first: the rights, then the lengths. */
        for (size_t i = 0; i < plan->n_rules; i++) {
                const struct cordon_landlock_rule *r = &plan->rules[i];
                for (size_t j = 0; j < plan->n_rules && !covered[i]; j++) {
                        const struct cordon_landlock_rule *a = &plan->rules[j];
                        size_t k = len[j] == 1 ? 0 : len[j]; /* "/" holds every other path */
                        covered[i] = (r->access & ~a->access) == 0 &&
                                     (!a->optional || r->optional) && len[i] > len[j] &&
                                     r->path[k] == '/' && memcmp(r->path, a->path, k) == 0;
                }
        }
        free(len);
        size_t n = 0;
        for (size_t i = 0; i < plan->n_rules; i++) {
                if (covered[i])
                        free(plan->rules[i].path);
                else
                        plan->rules[n++] = plan->rules[i];
        }
        plan->n_rules = n;
        free(covered);
        return 0;
}

int cordon_landlock_plan_build(const struct cordon_policy *p, enum cordon_backend backend, int abi,
                               struct cordon_landlock_plan *ret)
{
        const struct cordon_net_mode_traits *net = p ? cordon_net_mode_traits(p->net_mode) : NULL;
        const struct cordon_backend_traits *traits = cordon_backend_traits(backend);
        if (!p || !ret || abi <= 0 || !net)
                return -EINVAL;
        /* TCP only where the command shares the host's network namespace: under the ns
         * backend the sandbox's own namespace (loopback only, or the proxy's port inside) is
         * the isolation, and servers and clients on its loopback work as they do outside. */
        struct cordon_landlock_plan plan = {
            .abi = abi,
            .handled = handled_fs(abi),
            .deny_tcp = net->landlock_deny_tcp && abi >= 4 && !traits->net_ns,
            .scope = abi >= 6,
        };
        int r;
        if (!traits->runs)
                r = -EINVAL;
        else if (traits->mount_ns)
                r = build_ns(p, &plan);
        else {
                plan.host = true;
                r = cordon_landlock_build_host(p, &plan);
        }
        if (r >= 0)
                r = drop_covered(&plan);
        if (r < 0) {
                cordon_landlock_plan_clear(&plan);
                return r;
        }
        *ret = plan;
        return 0;
}

void cordon_landlock_plan_set_net(struct cordon_landlock_plan *plan, enum cordon_net_mode mode,
                                  uint16_t proxy_port, bool resolve_unix)
{
        const struct cordon_net_mode_traits *net = cordon_net_mode_traits(mode);
        /* Only a plan for the host's network namespace (the landlock backend's). */
        plan->deny_tcp = plan->host && net && net->landlock_deny_tcp && plan->abi >= 4;
        plan->connect_port = plan->deny_tcp && net->proxy ? proxy_port : 0;
        /* Asked for only where the kernel has it; create_ruleset() refuses it otherwise. */
        plan->resolve_unix = resolve_unix;
}

/* Fail closed: a restriction the ABI cannot express is an error, not a no-op. */
static int create_ruleset(const struct cordon_landlock_plan *plan)
{
        if ((plan->deny_tcp && plan->abi < 4) || (plan->scope && plan->abi < 6) ||
            (plan->resolve_unix && plan->abi < CORDON_LANDLOCK_RESOLVE_UNIX_ABI))
                return -EOPNOTSUPP;
        struct ruleset_attr attr = {
            /* RESOLVE_UNIX handled, and no rule grants it (add_path_rule() masks every grant
             * with handled_fs()). */
            .handled_access_fs = (plan->handled & handled_fs(plan->abi)) |
                                 (plan->resolve_unix ? LANDLOCK_ACCESS_FS_RESOLVE_UNIX : 0),
            .handled_access_net =
                plan->deny_tcp ? LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP : 0,
            .scoped = plan->scope ? LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL : 0,
        };
        int rs = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size(plan->abi), 0);
        return rs < 0 ? -errno : rs;
}

/* The rules' O_PATH fds, closed in runs once their rules are added: opened one after another,
 * they usually have consecutive numbers, and one close_range() then closes a run (every number
 * in it is one of ours) where a close() a rule would cost a system call each. No allocation:
 * the ns backend's child builds its ruleset too. */
struct fd_batch {
        int fds[32];
        size_t n;
};

static void fd_batch_flush(struct fd_batch *b)
{
        for (size_t i = 0, j; i < b->n; i = j + 1) {
                for (j = i; j + 1 < b->n && b->fds[j + 1] == b->fds[j] + 1; j++)
                        ;
                if (j > i && syscall(SYS_close_range, b->fds[i], b->fds[j], 0) == 0)
                        continue;
                for (size_t k = i; k <= j; k++)
                        (void)close(b->fds[k]);
        }
        b->n = 0;
}

static void fd_batch_add(struct fd_batch *b, int fd)
{
        if (b->n == ELEMENTSOF(b->fds))
                fd_batch_flush(b);
        b->fds[b->n++] = fd;
}

/* Opens @rule's path once and adds it to ruleset @rs; the fd goes to @done for closing. No
 * symlink is followed in any component (O_NOFOLLOW alone guards only the last one): a
 * directory on the way that a concurrent writer swaps for a symlink to $HOME would otherwise
 * move the grant onto ~/.ssh. For a path planning saw, a symlink there or another object means
 * it changed since: refused even when optional, since that is what an attack looks like; it
 * merely vanishing is not. Returns 0, 1 when skipped, or -errno. No allocation: the ns
 * backend's child runs it. */
static int add_path_rule(int rs, uint64_t handled, const struct cordon_landlock_rule *rule,
                         struct fd_batch *done, struct stat *ret_st)
{
        uint64_t access = rule->access & handled;
        if (access == 0)
                return 1; /* nothing this ABI can grant */
        bool seen = rule->ino != 0;
        struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
                               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        int fd = (int)syscall(SYS_openat2, AT_FDCWD, rule->path, &how, sizeof(how));
        struct stat st;
        if (fd < 0) {
                if ((errno == ENOENT || errno == ENOTDIR) && rule->optional)
                        return 1;
                if (errno == ELOOP && rule->optional && !seen)
                        return 1; /* it was not there when planned: no rights reach it */
                return -errno;
        }
        fd_batch_add(done, fd);
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISLNK(st.st_mode))
                return rule->optional && !seen ? 1 : -ELOOP;
        if (seen && (st.st_dev != rule->dev || st.st_ino != rule->ino))
                return -ESTALE;
        if (!S_ISDIR(st.st_mode))
                access &= FS_FILE_ONLY;
        if (access == 0)
                return 1;
        *ret_st = st;
        struct landlock_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};
        if (syscall(__NR_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
                return -errno;
        return 0;
}

/* True when a rule with @access on object @st would open masked path @m: it is the path, or a
 * directory on the way with more than READ_DIR (which only lists names, a masked directory's
 * among them when it lies below). No allocation. */
static bool reaches_mask(const struct cordon_landlock_mask *m, const struct stat *st,
                         uint64_t access)
{
        for (size_t i = 0; i < m->n_chain; i++) {
                if (m->chain[i].dev != st->st_dev || m->chain[i].ino != st->st_ino)
                        continue;
                bool last = i + 1 == m->n_chain;
                if (last || (access & ~ACC(READ_DIR)) || m->dir)
                        return true;
        }
        return false;
}

/* Walks @m's path from "/" without following a symlink, and requires every object on the way
 * to be the one planning found. With the rules in (each on the object it opened), a masked path
 * still below the same directories as when they were carved around it is out of every rule's
 * reach; one moved by a concurrent rename may not be. Parent side only. */
static int mask_in_place(const struct cordon_landlock_mask *m)
{
        _cleanup_close_ int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0)
                return -errno;
        if (m->n_chain == 0 || st.st_dev != m->chain[0].dev || st.st_ino != m->chain[0].ino)
                return -ESTALE;
        size_t i = 1;
        for (const char *p = m->path;; i++) {
                while (*p == '/')
                        p++;
                if (!*p)
                        break;
                const char *e = strchrnul(p, '/');
                char name[NAME_MAX + 1];
                if ((size_t)(e - p) > NAME_MAX || i >= m->n_chain)
                        return -ESTALE;
                memcpy(name, p, (size_t)(e - p));
                name[e - p] = 0;
                int next = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        return -ESTALE;
                close(fd);
                fd = next;
                if (fstat(fd, &st) < 0)
                        return -errno;
                if (st.st_dev != m->chain[i].dev || st.st_ino != m->chain[i].ino)
                        return -ESTALE;
                p = e;
        }
        return i == m->n_chain ? 0 : -ESTALE;
}

/* Creates the ruleset of @plan with every rule added. */
static int build_ruleset(const struct cordon_landlock_plan *plan, int *ret_rule)
{
        _cleanup_close_ int rs = create_ruleset(plan);
        if (rs < 0)
                return rs;
        if (plan->connect_port) {
                struct net_port_attr np = {
                    .allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP,
                    .port = plan->connect_port,
                };
                if (syscall(__NR_landlock_add_rule, rs, CORDON_LANDLOCK_RULE_NET_PORT, &np, 0) < 0)
                        return -errno;
        }
        uint64_t handled = plan->handled & handled_fs(plan->abi);
        struct fd_batch done = {.n = 0};
        for (size_t i = 0; i < plan->n_rules; i++) {
                struct stat st = {0};
                int k = add_path_rule(rs, handled, &plan->rules[i], &done, &st);
                /* What a rule was given is what it opened: one on a masked path or above it
                 * (moved there since planning) is refused. */
                for (size_t m = 0; k == 0 && m < plan->n_masks; m++)
                        if (reaches_mask(&plan->masks[m], &st, plan->rules[i].access & handled))
                                k = -ESTALE;
                if (k < 0) {
                        fd_batch_flush(&done);
                        if (ret_rule)
                                *ret_rule = (int)i;
                        return k;
                }
        }
        fd_batch_flush(&done);
        /* Last, with every rule fixed on its object: the masked paths are still where the
         * rules were carved around them. */
        for (size_t m = 0; m < plan->n_masks; m++) {
                int k = mask_in_place(&plan->masks[m]);
                if (k < 0)
                        return k;
        }
        return TAKE_FD(rs);
}

int cordon_landlock_plan_prepare(struct cordon_landlock_plan *plan, int *ret_rule)
{
        if (ret_rule)
                *ret_rule = -1;
        if (!plan || plan->abi <= 0 || plan->prepared)
                return -EINVAL;
        int rs = build_ruleset(plan, ret_rule);
        if (rs < 0)
                return rs;
        plan->ruleset_fd = rs;
        plan->prepared = true;
        return 0;
}

int cordon_landlock_apply(const struct cordon_landlock_plan *plan, int *ret_rule)
{
        if (ret_rule)
                *ret_rule = -1;
        if (!plan || plan->abi <= 0)
                return -EINVAL;
        if (plan->prepared)
                return syscall(__NR_landlock_restrict_self, plan->ruleset_fd, 0) < 0 ? -errno : 0;
        _cleanup_close_ int rs = build_ruleset(plan, ret_rule);
        if (rs < 0)
                return rs;
        if (syscall(__NR_landlock_restrict_self, rs, 0) < 0)
                return -errno;
        return 0;
}

const struct cordon_landlock_feature cordon_landlock_features[] = {
    {1, "filesystem"}, {2, "refer"}, {3, "truncate"}, {4, "tcp"}, {5, "ioctl_dev"}, {6, "scope"},
};
const size_t cordon_landlock_n_features = ELEMENTSOF(cordon_landlock_features);
