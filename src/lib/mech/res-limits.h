/* Resource limits of a sandbox (memory, pids, cpus): which kernel mechanism enforces each one
 * (a cgroup v2 leaf, cgroup v1 directories, or setrlimit/affinity in the child), and the parent-
 * and child-side steps that apply them. Named res-limits, not limits: src/lib is on the include
 * path of libcordon, and a src/lib/limits.h would shadow <limits.h>. */
#pragma once

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon/cordon.h"
#include "cordon/sandbox.h"
#include "lib/policy/policy.h"

/* enum cordon_limit_mechanism and enum cordon_limit_kind are public: cordon/sandbox.h. */

/* Parses a size: decimal digits with an optional suffix K, M, G, T, P or E (powers of 1024,
 * case-insensitive), optionally followed by "B" or "iB" ("512M", "512MB", "512MiB", "4g"); a bare
 * "B" means bytes ("100B"). A fraction is allowed with a suffix ("1.5G": up to 18 digits,
 * rounded down to whole bytes), not on plain bytes. No signs, spaces or other characters.
 * Pure; thread-safe. Returns 0 and sets @ret; -EINVAL for NULL, garbage, a fraction of a byte,
 * or a size of 0 bytes; -ERANGE when it does not fit in 64 bits. */
int cordon_parse_size(const char *s, uint64_t *ret);

/* Where the host's cgroup facts are read from; tests point it into a fake tree. NULL (or a NULL
 * field) means the real host. */
struct cordon_limits_host {
        const char *proc_self_cgroup; /* default "/proc/self/cgroup" */
        const char *mountinfo;        /* default "/proc/self/mountinfo" */
        /* Create control files that are missing instead of failing with ENOENT: only for fake
         * trees in tests, where mkdir() does not populate a new cgroup. */
        bool create_files;
        /* Real uid deciding whether RLIMIT_NPROC binds; < 0: getuid(). */
        int64_t uid;
};

#define CORDON_LIMITS_PATH_MAX 4096

/* Everything the launch needs to apply and later undo the limits. A plain struct with fixed-size
 * buffers (about 16 KiB: embed it or allocate it) so the child side reads it without allocating.
 * Zero it before cordon_limits_prepare(). Not thread-safe; one per sandbox. */
struct cordon_limits_state {
        enum cordon_limit_mechanism mechanism[_CORDON_LIMIT_KIND_MAX]; /* NONE: not asked for */
        char v2_dir[CORDON_LIMITS_PATH_MAX]; /* the v2 leaf this state created; "" when none */
        char v1_dir[_CORDON_LIMIT_KIND_MAX][CORDON_LIMITS_PATH_MAX]; /* v1 dirs created; "" */
        uint64_t rlimit_as;    /* RLIMIT_AS and RLIMIT_DATA in the child; 0: leave alone */
        uint64_t rlimit_nproc; /* RLIMIT_NPROC in the child; 0: leave alone */
        bool affinity_set;
        cpu_set_t affinity; /* the first N CPUs of the supervisor's affinity mask */
        bool create_files;  /* copied from struct cordon_limits_host */
};

/* Parent side, before the child exists. Chooses a mechanism for each limit asked for in @lim
 * (memory_bytes, pids, cpus; timeout_usec is the supervisor's business) and creates the
 * cgroups it needs; @st must be zeroed. The choice, per limit:
 *   1. with @cgroup_path (from --cgroup): a leaf below that directory, which must be a writable
 *      cgroup v2 directory offering the memory/pids controllers asked for; anything else is an
 *      error, there is no fallback. cpus use cpu.max when the cpu controller can be had, else
 *      affinity.
 *   2. a leaf "cordon-<pid>-<n>" below the caller's own v2 cgroup (/proc/self/cgroup "0::" line,
 *      under the cgroup2 mount of /proc/self/mountinfo) when it is writable and its
 *      cgroup.controllers lists the controller. Controllers missing from cgroup.subtree_control
 *      are enabled there, which the v2 "no internal processes" rule only allows when that cgroup
 *      holds no process (the root cgroup is exempt): otherwise v2 is unavailable. cordon does
 *      not move the caller into a leaf of its own to make room, and never disables controllers
 *      it enabled (a sibling may depend on them).
 *   3. a directory "cordon-<pid>-<n>" below the caller's own cgroup in the controller's v1
 *      hierarchy, when that directory is writable (in practice: root). memory.limit_in_bytes,
 *      pids.max, cpu.cfs_quota_us. Swap is not limited (no memory.memsw.*): on a host with swap
 *      a process over the limit swaps rather than being killed.
 *   4. memory: RLIMIT_AS and RLIMIT_DATA (address space, not resident memory: runtimes that
 *      reserve large mappings, such as the JVM, Go or ASan, fail early); pids: RLIMIT_NPROC
 *      (see cordon_limits_apply_child() for its caveats; refused when the real uid is 0, which
 *      the kernel exempts: SANDBOX_NPROC_LIMIT for root is put in the pids limit by the launch
 *      for that reason, so it gets a cgroup or nothing); cpus: CPU affinity.
 * Leaves are nested below the caller's own cgroups so the sandbox stays inside the caller's
 * limits and accounting. Returns 0; -EOPNOTSUPP when a limit asked for cannot be enforced (the
 * diag names it and why); for @cgroup_path: -ENOENT, -ENOTDIR, -EINVAL (not in the v2
 * hierarchy), -EACCES, -EOPNOTSUPP (controller missing), -EBUSY (it holds processes and the
 * controller is not enabled for its children); -ENAMETOOLONG; -errno from the cgroup files.
 * On failure nothing stays created and @st is zeroed again. */
int cordon_limits_prepare(const struct cordon_limits *lim, const char *cgroup_path,
                          struct cordon_limits_state *st, struct cordon_diag *diag);
int cordon_limits_prepare_at(const struct cordon_limits_host *host, const struct cordon_limits *lim,
                             const char *cgroup_path, struct cordon_limits_state *st,
                             struct cordon_diag *diag);

/* cordon_limits_prepare() without acting: fills @st->mechanism with what planning picks for each
 * limit asked for and creates nothing (no directory in @st). A real prepare may still end on a
 * weaker mechanism when creating a cgroup fails. Returns 0 or the errors of planning. */
int cordon_limits_plan(const struct cordon_limits *lim, const char *cgroup_path,
                       struct cordon_limits_state *st, struct cordon_diag *diag);

/* Parent side, after clone and before the child may run the command: moves @pid (and with it
 * every thread) into each cgroup of @st by writing its cgroup.procs. The child must wait (sync
 * pipe) until this returned, or it runs unlimited for a while. 0 when @st has no cgroup.
 * Returns 0 or -errno (the diag names the file). */
int cordon_limits_attach(struct cordon_limits_state *st, pid_t pid, struct cordon_diag *diag);

/* Child side, between clone and exec: lowers RLIMIT_AS/RLIMIT_DATA/RLIMIT_NPROC (soft and hard,
 * never raising a lower inherited value) and sets the CPU affinity, as @st says. Only system
 * calls: async-signal-safe, allocates nothing. Returns 0 or -errno.
 * RLIMIT_NPROC is not a per-sandbox count: fork() fails once the real uid owns that many tasks
 * (threads included) in the child's user namespace, counted together with every other process
 * of that uid there; in the caller's own user namespace that is every process the user runs. */
/* Child side: lowers rlimit @resource (soft and hard) to at most @v, keeping a lower inherited
 * value. Only system calls: safe between clone and exec. 0 or -errno. */
int cordon_limits_lower_rlimit(int resource, uint64_t v);
int cordon_limits_apply_child(const struct cordon_limits_state *st);

/* After the sandbox ended, before cordon_limits_cleanup(): did the OOM killer kill anything in
 * the memory cgroup? cgroup v2: memory.events "oom_kill"; cgroup v1: memory.oom_control
 * "oom_kill" (Linux 4.13+), on older kernels memory.failcnt > 0 (the limit was hit, which need
 * not have killed anything). false for the rlimit mechanism, where an allocation fails instead. */
bool cordon_limits_oom_killed(const struct cordon_limits_state *st);

/* Kills every process in the sandbox's cgroups, including sub-cgroups: one write of
 * cgroup.kill on v2 (Linux 5.14+); otherwise SIGKILL to every pid listed in cgroup.procs,
 * round after round until none is left. Each pid is signalled through a pidfd opened before
 * its membership is checked again, so a pid that exited and was reused outside the sandbox is
 * never hit. Returns 0; -EOPNOTSUPP without cgroups (rlimit mechanism); -EBUSY when processes
 * were still listed after about a second; -errno from the cgroup files. */
int cordon_limits_kill_all(struct cordon_limits_state *st);

/* Removes the cgroups @st created (and any sub-cgroup made inside them), once their processes
 * are gone; retries rmdir() for about 200 ms while it fails with EBUSY. Forgets what it
 * removed; safe to call twice or on a zeroed state. Returns 0 or the first -errno (the
 * directory then stays listed in @st). */
int cordon_limits_cleanup(struct cordon_limits_state *st);
/* Whether @st (may be NULL) made a cgroup (v2 or any v1 directory). */
bool cordon_limits_have_cgroup(const struct cordon_limits_state *st);

/* For `cordon doctor`: the mechanism each limit would get for this caller right now, creating
 * nothing; NONE for a limit that could not be enforced, with the reason in the diag (as
 * cordon_limits_prepare() would have said it). Returns 0 or, for @cgroup_path, the errors of
 * cordon_limits_prepare() with the diag set. */
int cordon_limits_probe_at(const struct cordon_limits_host *host, const char *cgroup_path,
                           enum cordon_limit_mechanism ret[_CORDON_LIMIT_KIND_MAX],
                           struct cordon_diag *diag);
/* The weaker of the memory and pids mechanisms (cgroup2 > cgroup1 > rlimit), NONE when either
 * cannot be enforced or @cgroup_path is unusable. */
enum cordon_limit_mechanism cordon_limits_probe(const char *cgroup_path);

/* "memory=cgroup1 pids=rlimit cpus=affinity" for the limits @st enforces, "" for none, for the
 * banner and receipts. Returns the length, or -ENOBUFS when @n is too small. */
int cordon_limits_describe(const struct cordon_limits_state *st, char *buf, size_t n);
/* The same for mechanisms @m, by enum cordon_limit_kind (NONE: left out). */
int cordon_limits_describe_mechanisms(const enum cordon_limit_mechanism m[_CORDON_LIMIT_KIND_MAX],
                                      char *buf, size_t n);
