/* What landlock.c shares with landlock-host.c, the landlock backend's planning: the rights the
 * plan hands out, the standard devices, and adding a rule. */
#pragma once

#include <linux/landlock.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "lib/policy/access-kinds.h"
#include "lib/policy/policy.h"
#include "lib/mech/landlock.h"

struct cordon_policy;

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif

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

/* The rights a bind of kind @a grants at its path; 0 for a kind that is not a bind. */
static inline uint64_t cordon_landlock_bind_access(enum cordon_access a)
{
        const struct cordon_access_traits *t = cordon_access_traits(a);
        switch (t ? t->bind : CORDON_BIND_NONE) {
        case CORDON_BIND_READ:
                return FS_READ;
        case CORDON_BIND_WRITE:
                return FS_READ | FS_WRITE;
        case CORDON_BIND_DEVICE:
                return FS_DEVICE;
        default:
                return 0;
        }
}

/* The rights a bind rule @access with @flags grants: its kind's, and removal where
 * CORDON_FS_REMOVE asks for it on a read-only bind. */
static inline uint64_t cordon_landlock_rule_access(enum cordon_access access, unsigned flags)
{
        uint64_t a = cordon_landlock_bind_access(access);
        if (access == CORDON_ACCESS_RO && (flags & CORDON_FS_REMOVE))
                a |= ACC(REMOVE_FILE) | ACC(REMOVE_DIR);
        return a;
}

struct dev_entry {
        const char *name;
        uint64_t access;
        bool host; /* also granted by the landlock backend on the host's /dev */
};

/* The minimal /dev of ns-mount.c. Device ioctls are handled but granted only to terminals, which
 * need them (TIOCSTI is refused by seccomp). The host's pts and shm are shared with the user's
 * other terminals and processes, so the landlock backend leaves them out; its /dev/ptmx only
 * makes new ptys (their other ends come from the supervisor, see launch/notify.c). */
extern const struct dev_entry cordon_landlock_dev_entries[];
extern const size_t cordon_landlock_n_dev_entries;

/* Appends a rule to @plan, taking @path (NULL: -ENOMEM); @st is what planning saw there, or
 * NULL. Returns 0 or -ENOMEM. */
int cordon_landlock_push(struct cordon_landlock_plan *plan, char *path, uint64_t access,
                         bool optional, int fs_rule, const struct stat *st);

/* The landlock backend's rules for @p, appended to @plan (see cordon_landlock_plan_build()). */
int cordon_landlock_build_host(const struct cordon_policy *p, struct cordon_landlock_plan *plan);
