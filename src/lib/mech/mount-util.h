/* Thin wrappers around the fd-based mount API and openat2, plus fd-relative path creation. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* openat2() beneath @dirfd refusing symlinks anywhere in @path; O_PATH|O_CLOEXEC added. */
int cordon_open_beneath(int dirfd, const char *path, int flags);
/* Opens a host path as O_PATH without following symlinks in any component. */
int cordon_open_host_path(const char *path);
/* Detached recursive clone of the mount tree at @fd with @attr_set applied recursively. */
int cordon_clone_tree(int fd, unsigned long long attr_set, bool recursive);
/* Attaches detached tree @from on the object @to_fd refers to. */
int cordon_move_mount_fd(int from, int to_fd);
/* Returns an O_PATH fd of directory @rel beneath @rootfd, creating missing components with
 * mode 0755 and never following symlinks. */
int cordon_mkdir_p_beneath(int rootfd, const char *rel);
/* Returns an O_PATH fd of @rel beneath @rootfd: an existing object, or a new empty directory
 * (@dir) or regular file created there. Parents are created as directories. */
int cordon_make_mountpoint(int rootfd, const char *rel, bool dir);
/* mount(2) on the object that O_PATH fd @fd refers to. */
int cordon_mount_on_fd(const char *source, int fd, const char *fstype, unsigned long flags,
                       const char *data);
