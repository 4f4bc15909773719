/* User namespace: the caller's uid and gid mapped to themselves. */
#pragma once

#include <sys/types.h>

/* Child side: writes this process's setgroups/uid_map/gid_map. Called right after clone(),
 * before anything that creates files. Returns 0 or -errno. */
int cordon_ns_user_write_maps(uid_t uid, gid_t gid);
/* True when an unprivileged user namespace can be created here (probes with a forked child). */
int cordon_ns_user_probe(void);
