/* Per-user-namespace limits (ucounts): planned from the caller's own in the supervisor, written
 * by the ns backend's child into the sandbox's user namespace. The kernel charges such a count
 * at every level from the namespace up to the initial one, each against its own maximum, so a
 * lower maximum in the sandbox's namespace caps what it can take from the user's. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mech/ns-limits.h"
#include "shared/fd-util.h"
#include "shared/kernel-util.h"
#include "shared/macro.h"

static const struct {
        const char *name;
        bool needs_seccomp_off; /* reachable only where the seccomp layer is off */
} limits[] = {
    /* What a sandbox exhausts by accident (file watchers) or on purpose, for the same user
     * outside: 128 inotify instances is the kernel's default for everyone. */
    {"max_inotify_instances", false},
    {"max_inotify_watches", false},
    /* The filter refuses fanotify_init() and every way to make a namespace: with it on, these
     * counts cannot grow inside, and each limit costs the start two /proc/sys round trips. */
    {"max_fanotify_groups", true},
    {"max_fanotify_marks", true},
    {"max_cgroup_namespaces", true},
    {"max_ipc_namespaces", true},
    {"max_mnt_namespaces", true},
    {"max_net_namespaces", true},
    {"max_pid_namespaces", true},
    {"max_time_namespaces", true},
    {"max_user_namespaces", true},
    {"max_uts_namespaces", true},
};

const char *cordon_ns_limit_name(int index)
{
        if (index < 0 || (size_t)index >= ELEMENTSOF(limits))
                return "?";
        return limits[index].name;
}

int cordon_ns_limits_plan(const char *dir, bool seccomp, struct cordon_ns_limits *ret)
{
        struct cordon_ns_limits plan = {.n = 0};
        _Static_assert(ELEMENTSOF(limits) <= CORDON_NS_LIMITS_MAX, "one slot per limit");

        if (!ret)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(limits); i++) {
                if (seccomp && limits[i].needs_seccomp_off)
                        continue;
                char path[256];
                snprintf(path, sizeof(path), "%s/%s", dir ?: "/proc/sys/user", limits[i].name);
                _cleanup_free_ char *text = NULL;
                int r = read_full_file(path, 64, &text, NULL);
                if (r == -ENOENT)
                        continue; /* not in this kernel (time namespaces: 5.6, fanotify: 5.13) */
                if (r < 0)
                        return r;
                char *end;
                errno = 0;
                unsigned long long cur = strtoull(text, &end, 10);
                if (errno || end == text || (*end && *end != '\n') || text[0] == '-')
                        return -EBADMSG;
                /* Half leaves the user the other half outside, whatever the sandbox does. */
                unsigned long long v = cur / 2 ?: 1;
                snprintf(plan.v[plan.n].value, sizeof(plan.v[plan.n].value), "%llu", v);
                plan.v[plan.n++].index = (unsigned)i;
        }
        *ret = plan;
        return 0;
}

int cordon_ns_limits_apply(const struct cordon_ns_limits *l, int *ret_index)
{
        int dir = open("/proc/sys/user", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0) {
                if (ret_index)
                        *ret_index = -1;
                return -errno;
        }
        for (unsigned i = 0; i < l->n; i++) {
                int r = write_string_file_at(dir, limits[l->v[i].index].name, l->v[i].value);
                if (r < 0) {
                        (void)close(dir);
                        if (ret_index)
                                *ret_index = (int)l->v[i].index;
                        return r;
                }
        }
        (void)close(dir);
        return 0;
}

/* Per-namespace pid_max: "pid: allow pid_max to be set per pid namespace", Linux 6.14.
 * CORDON_TEST_NO_PID_MAX (tests) takes the older kernels' path: a cgroup or RLIMIT_NPROC. */
bool cordon_ns_pid_max_available(void)
{
        static atomic_int known; /* 0: not asked yet; 1: available; -1: not */
        int k = atomic_load_explicit(&known, memory_order_relaxed);
        if (k == 0) {
                k = !secure_getenv("CORDON_TEST_NO_PID_MAX") && kernel_release_at_least(614) ? 1
                                                                                             : -1;
                atomic_store_explicit(&known, k, memory_order_relaxed);
        }
        return k > 0;
}

uint64_t cordon_ns_pid_max_for(uint64_t pids)
{
        return pids + CORDON_PID_RESERVED;
}

int cordon_ns_pid_max_apply(uint64_t pid_max)
{
        /* Decimal by hand: snprintf() is not async-signal-safe. */
        char value[24];
        size_t n = sizeof(value) - 1;
        value[n] = 0;
        do {
                value[--n] = (char)('0' + pid_max % 10);
                pid_max /= 10;
        } while (pid_max && n > 0);
        return write_string_file_at(AT_FDCWD, "/proc/sys/kernel/pid_max", value + n);
}
