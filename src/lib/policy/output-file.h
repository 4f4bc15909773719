/* Files cordon writes on the host for a run (NETWORK_LOG, the CLI's receipt): where a sandbox
 * could have planted a link or could forge them, and how they are opened without following one. */
#pragma once

#include <stdbool.h>

#include "lib/policy/policy.h"

/* Resolves @path as the kernel would, one component at a time ("." and ".." physically,
 * relative paths from @cwd, or the process's working directory when @cwd is NULL), following
 * each symlink by hand so that links inside a link's target are inspected too. Returns 1 with
 * the first symlink found in a directory @suspect says yes to (and its target) in @ret_link and
 * @ret_target; 0 when there is none or the path ends early (missing, unreadable: the caller's
 * own checks report that); -ELOOP, -ENOMEM or another -errno of readlink(). */
int cordon_path_find_link(const char *path, const char *cwd,
                          bool (*suspect)(const char *dir, const void *userdata),
                          const void *userdata, char **ret_link, char **ret_target);

/* True when some sandbox could write the directory @dir (a host realpath): it is at or below a
 * writable bind of @p, or strictly below an allowed project parent without being the home
 * directory or one of its parents (where another run's project could lie). */
bool cordon_policy_could_write_dir(const struct cordon_policy *p, const char *dir);

/* Opens @path for appending, a file cordon writes for @variable (named in messages): refused with
 * -EPERM when it lies in a writable bind of @p or its path goes through a link in a directory a
 * sandbox could write; opened beneath its directory's fd without following links (O_NOFOLLOW,
 * RESOLVE_NO_SYMLINKS), created 0600 when missing, and only a regular file (-EPERM). */
int cordon_policy_open_output_append(const struct cordon_policy *p, const char *path,
                                     const char *variable, int *ret_fd, struct cordon_diag *diag);
