/* The Landlock layer: a ruleset that mirrors the filesystem view of the policy (read-only roots
 * readable, writable roots writable, the standard devices), TCP denial in isolated mode, and
 * scoping of abstract unix sockets and signals. Raw syscalls, no library. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon/cordon.h"

struct cordon_policy;

/* Highest Landlock ABI the running kernel supports: > 0, or -ENOSYS (not built in),
 * -EOPNOTSUPP (built in but not enabled at boot), another -errno. */
int cordon_landlock_abi(void);

/* The rights the plan hands out, as LANDLOCK_ACCESS_FS_* bits (numeric here so that this header
 * needs no kernel header; landlock.c checks them against the symbolic values):
 *   READ  = EXECUTE | READ_FILE | READ_DIR
 *   WRITE = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO |
 *           MAKE_SYM | REFER | TRUNCATE (never MAKE_CHAR or MAKE_BLOCK) */
#define CORDON_LANDLOCK_FS_READ  UINT64_C(0x000d)
#define CORDON_LANDLOCK_FS_WRITE UINT64_C(0x77b2)

/* Limits of carving (landlock backend): how many rules the replacement grants of all masked
 * paths may add together, and how deep below a grant a masked path may lie. */
#define CORDON_LANDLOCK_CARVE_MAX_RULES 4096
#define CORDON_LANDLOCK_CARVE_MAX_DEPTH 32

/* One path and the LANDLOCK_ACCESS_FS_* rights it gets (before masking by ABI). */
struct cordon_landlock_rule {
        char *path;
        uint64_t access;
        bool optional; /* a missing path is skipped instead of failing the launch */
        int fs_rule;   /* index into policy->fs this came from, or -1 */
        /* The object planning saw at @path (landlock backend), which the rule must still find
         * there; ino 0: none seen (a guest path, or one that did not exist). */
        dev_t dev;
        ino_t ino;
};

/* One object on the way to a masked path: its device and inode. */
struct cordon_landlock_obj {
        dev_t dev;
        ino_t ino;
};

/* A masked host path (landlock backend) and what planning found on the way to it, from "/" down
 * to the path itself (the last entry), and whether it is a directory. */
struct cordon_landlock_mask {
        char *path;
        struct cordon_landlock_obj *chain;
        size_t n_chain;
        bool dir;
};

struct cordon_landlock_plan {
        struct cordon_landlock_rule *rules;
        size_t n_rules;
        /* Landlock backend: the masked paths, which cordon_landlock_plan_prepare() requires
         * where planning found them, reached by no rule that would open them. */
        struct cordon_landlock_mask *masks;
        size_t n_masks;
        bool deny_tcp; /* handle LANDLOCK_ACCESS_NET_BIND_TCP|CONNECT_TCP, grant nothing */
        /* With @deny_tcp: the one TCP port the sandbox may connect to (the egress proxy's);
         * 0: none. */
        uint16_t connect_port;
        bool scope; /* LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL */
        /* Handle LANDLOCK_ACCESS_FS_RESOLVE_UNIX and grant it nowhere: only a pathname unix
         * socket made inside the sandbox can be reached (ABI >= CORDON_LANDLOCK_RESOLVE_UNIX_ABI;
         * the landlock backend's proxied mode, whose socket rule then admits AF_UNIX). */
        bool resolve_unix;
        int abi;          /* ABI the plan was built for (cordon_landlock_abi()) */
        uint64_t handled; /* LANDLOCK_ACCESS_FS_* handled, already masked by @abi */
        bool host;        /* host paths (landlock backend): plan_add() resolves them too */
        /* Set by cordon_landlock_plan_prepare(): the ruleset with every rule added, owned by the
         * plan; the child only restricts itself with it. */
        bool prepared;
        int ruleset_fd;
};

/* The first Landlock ABI with LANDLOCK_ACCESS_FS_RESOLVE_UNIX (bit 16; Linux 7.1): connect()
 * and sendmsg() to a pathname unix socket need the right on its path, unless the socket was made
 * in the same domain. */
#define CORDON_LANDLOCK_RESOLVE_UNIX_ABI 9

/* Sets the network part of @plan for the network mode the launch delivers (which may differ
 * from the policy's, see net-decide.h): for a plan of the host's network namespace (the
 * landlock backend's; the ns backend's own namespace is its isolation), TCP handled and denied,
 * save a connect to @proxy_port when the mode has a proxy; with @resolve_unix, pathname unix
 * sockets of the host are out of reach too (plan->resolve_unix). Parent side, before
 * cordon_landlock_plan_prepare(). */
void cordon_landlock_plan_set_net(struct cordon_landlock_plan *plan, enum cordon_net_mode mode,
                                  uint16_t proxy_port, bool resolve_unix);

/* Parent side. Builds the ruleset for @p as seen by @backend:
 *   CORDON_BACKEND_NS: guest paths (the child applies it after pivot_root);
 *   CORDON_BACKEND_LANDLOCK: host paths; rules that need a mount namespace (tmpfs, data files)
 *     are dropped, and a grant that contains a masked path is replaced by grants on its other
 *     entries so that the masked path stays denied.
 * @abi > 0. On success the caller owns @ret (cordon_landlock_plan_clear()). Returns 0,
 * -EINVAL (@abi <= 0, @backend not NS or LANDLOCK, an unknown access), -ENOMEM, -E2BIG (the
 * carving around masked paths would exceed CORDON_LANDLOCK_CARVE_MAX_RULES rules or
 * CORDON_LANDLOCK_CARVE_MAX_DEPTH levels), or -errno from inspecting the host (landlock
 * backend only: resolving paths, reading the directories it carves; -ELOOP or -ESTALE when a
 * grant it carves changed since it was resolved). Each host rule notes what planning saw at its
 * path, for cordon_landlock_plan_prepare() to require. */
int cordon_landlock_plan_build(const struct cordon_policy *p, enum cordon_backend backend, int abi,
                               struct cordon_landlock_plan *ret);
/* Frees the rules and closes the prepared ruleset; accepts a zeroed plan; leaves @plan zeroed. */
void cordon_landlock_plan_clear(struct cordon_landlock_plan *plan);

/* Parent side (landlock backend), once the plan is complete: creates the ruleset and adds every
 * rule now, so that the child only restricts itself with it. Each path is opened once, without
 * following a symlink in any component (openat2 RESOLVE_NO_SYMLINKS), and must still be the
 * object planning saw there: a directory on the way swapped for a symlink cannot redirect a
 * grant. A rule whose path is gone (ENOENT, ENOTDIR) is skipped when optional. Returns 0, -EINVAL
 * (no plan, already prepared), -EOPNOTSUPP (more than its ABI offers), -ELOOP (a symlink on the
 * way or, for a path planning did not see, at the end), -ESTALE (another object than planning
 * saw; or, once every rule is in, a rule that would reach a masked path, or a masked path no
 * longer below the objects planning found on the way to it: a concurrent rename), or -errno of
 * the system calls; on a rule's failure stores its index in @ret_rule (-1 when no rule was
 * involved); @ret_rule may be NULL. */
int cordon_landlock_plan_prepare(struct cordon_landlock_plan *plan, int *ret_rule);

/* Child side. Restricts the calling thread with the prepared ruleset, or else creates the
 * ruleset and adds every rule (opening each path as cordon_landlock_plan_prepare() does) first.
 * No-new-privs must be set (or CAP_SYS_ADMIN held). Allocates nothing and calls only system
 * calls, so it may run between clone and exec. Returns 0 or the errors of
 * cordon_landlock_plan_prepare() (-ENOMSG: nothing handled at all), with @ret_rule the same. */
int cordon_landlock_apply(const struct cordon_landlock_plan *plan, int *ret_rule);

/* Parent side: adds one more grant to @plan (a copy of @path, resolved to its realpath in a host
 * plan when it exists). Returns 0, -EINVAL (also once prepared), -ENOMEM. */
int cordon_landlock_plan_add(struct cordon_landlock_plan *plan, const char *path, uint64_t access,
                             bool optional);

/* What each Landlock ABI brings that cordon uses, for `cordon doctor` and receipts. */
struct cordon_landlock_feature {
        int abi;
        const char *name;
};
extern const struct cordon_landlock_feature cordon_landlock_features[];
extern const size_t cordon_landlock_n_features;
