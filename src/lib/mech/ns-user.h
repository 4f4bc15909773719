/* User namespace: the caller's uid and gid mapped to themselves. */
#pragma once

#include <sys/types.h>

/* Child side: writes this process's setgroups/uid_map/gid_map. Called right after clone(),
 * before anything that creates files. Returns 0 or -errno. */
int cordon_ns_user_write_maps(uid_t uid, gid_t gid);
/* Probes with a forked child whether a user namespace with our own id mapped can be created
 * here. Returns 0 when it can, -EPERM (or the clone errno) when not. */
int cordon_ns_user_probe(void);
