/* Programs the supervisor runs outside the sandbox (pasta for NETWORK_FILTER_HELPER, Lmod's init
 * for SANDBOX_MODULES): opened so that only root could have chosen what runs, whoever named the
 * path. A file a sandbox wrote is never root's when the caller is not root, and every directory
 * on the way being root's and writable by nobody else means nobody but root can swap it. */
#pragma once

#include "cordon/cordon.h"

/* Opens @path (absolute) one component at a time from "/", never following a symlink that is
 * not root's, and checks on each fd: every directory owned by root and writable by nobody else
 * (or root's and sticky, as /tmp: nobody can rename or replace an entry they do not own), the
 * file regular, owned by root and not writable by group or others. Symlinks root owns are
 * followed (/usr/bin/pasta -> passt), at most 40.
 *
 * Returns 0 with *@ret_fd an O_PATH|O_CLOEXEC descriptor of the file (execute it with
 * execveat(fd, "", ..., AT_EMPTY_PATH), read it through /dev/fd), or -EINVAL (not absolute, or
 * '.'/'..' in it), -ENOENT (missing), -EPERM (an owner or mode above; ELOOP: too many links),
 * -errno, with @diag naming @variable and @path. Thread-safe. */
int cordon_host_program_open(const char *path, const char *variable, int *ret_fd,
                             struct cordon_diag *diag);
