/* Per-user-namespace limits: the sandbox's own user namespace gets lower counts of inotify
 * instances and watches, fanotify groups and marks and namespaces than the user has, so that it
 * cannot take all of the user's and break their editors outside (issue 11). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The limits under /proc/sys/user, one slot each; a plan lists those this kernel has. */
#define CORDON_NS_LIMITS_MAX 12

struct cordon_ns_limits {
        struct {
                unsigned index; /* into the names below: cordon_ns_limit_name(index) */
                char value[24]; /* decimal, as written */
        } v[CORDON_NS_LIMITS_MAX];
        unsigned n;
};

/* The file name under /proc/sys/user of limit @index ("max_inotify_instances"), or "?". */
const char *cordon_ns_limit_name(int index);

/* Parent side, before clone. Plans the sandbox's limits from the caller's own, read from @dir
 * (NULL: /proc/sys/user): half of each, at least 1. With @seccomp (the seccomp layer is on, and
 * refuses fanotify_init() and the creation of namespaces) only the inotify limits, the ones a
 * command can still reach. A limit this kernel lacks (no file) is left out. Returns 0, or -errno
 * of a file that exists but cannot be read or parsed (-EBADMSG). */
int cordon_ns_limits_plan(const char *dir, bool seccomp, struct cordon_ns_limits *ret);

/* Child side: writes the planned values. Must run in the sandbox's user namespace, holding
 * CAP_SYS_RESOURCE there, before /proc/sys is made read-only: these sysctls resolve to the
 * writer's user namespace, whatever procfs mount is used. Async-signal-safe (open, write,
 * close). Returns 0, or -errno with *ret_index set to the limit that could not be written. */
int cordon_ns_limits_apply(const struct cordon_ns_limits *l, int *ret_index);

/* The pid numbers the kernel keeps for early processes (RESERVED_PIDS): once a pid namespace's
 * allocation has passed them it wraps to 300, not 1, so new pids come from [300, pid_max). */
#define CORDON_PID_RESERVED 300

/* Does the running kernel keep pid_max per pid namespace (Linux 6.14)? Decided from the kernel
 * release, never by trying: before 6.14 /proc/sys/kernel/pid_max is the host's one value, which
 * uid 0 in any user namespace may write. */
bool cordon_ns_pid_max_available(void);

/* The pid_max that bounds a pid namespace to at most @pids + CORDON_PID_RESERVED - 1 live
 * processes, of which at least @pids can always be made (the wrapped range). */
uint64_t cordon_ns_pid_max_for(uint64_t pids);

/* Child side, as PID 1 of the sandbox's pid namespace (pid_max resolves to the writer's active
 * pid namespace, whatever procfs mount is used), holding CAP_SYS_ADMIN in the namespace's user
 * namespace, before /proc/sys is made read-only. Only where cordon_ns_pid_max_available().
 * Async-signal-safe. Returns 0 or -errno. */
int cordon_ns_pid_max_apply(uint64_t pid_max);
