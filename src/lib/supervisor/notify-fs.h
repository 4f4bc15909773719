/* The paths the landlock backend's notifications stand in for (see notify.h): the private
 * directory that replaces /dev/shm for one launch, and the test for a create under the host's
 * /tmp that no grant covers. Pure functions of their arguments and the descriptors given; the
 * supervisor's dispatcher (notify.c) reads the caller's memory and answers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Creates the launch's shm directory: a fresh directory of mode 0700 under /dev/shm (a tmpfs,
 * so mapped files behave as shm_open()'s), named cordon-shm-XXXXXX. Returns 0 with *@ret_path
 * (owned) and *@ret_fd (O_DIRECTORY, close-on-exec), or -errno: -ENOTSUP when /dev/shm is
 * missing or not a tmpfs (the caller goes without), -EBUSY when what it opened is not the
 * directory it just made (ours, 0700, empty, on that tmpfs). */
int cordon_shm_dir_create(char **ret_path, int *ret_fd);
/* Removes everything in it and itself, never following a symlink nor leaving its file system;
 * @path is removed only while it still is @dirfd's directory (same device and inode) and has
 * the name cordon_shm_dir_create() gives. @dirfd stays open (the caller closes it); with -1,
 * @path is opened without following a link and emptied only when it is ours and 0700.
 * Harmless with NULL/-1. */
void cordon_shm_dir_remove(int dirfd, const char *path);

/* The name in the private directory that @path (as the command gave it) stands for: 1 with
 * *@ret_name pointing into @path when it is "/dev/shm/NAME" with NAME one component (not "."
 * or ".."), 0 when @path is anything else (the caller continues), -ENAMETOOLONG past NAME_MAX. */
int cordon_shm_name(const char *path, const char **ret_name);
/* On the command's behalf, in @dirfd: open with @flags (O_CREAT and the access mode, O_EXCL,
 * O_TRUNC, O_NONBLOCK, O_CLOEXEC are kept, and O_APPEND, O_NOCTTY, O_LARGEFILE, which change
 * nothing for a regular file; O_NOFOLLOW always added; the rest, O_PATH, O_DIRECTORY and
 * O_TMPFILE among them, and the access mode O_ACCMODE refused with -EINVAL) and @mode & 0777,
 * link @oldname to @newname, unlink @name. Names must be single components (-EINVAL).
 * Return the descriptor / 0, or -errno. The descriptor is always close-on-exec in the caller
 * (the caller passes @flags' O_CLOEXEC on when it adds it to the command), and a regular file:
 * anything else (a FIFO, a device planted in the directory) is closed and refused with
 * -EACCES, without the open ever blocking. Without O_CREAT it opens a name made earlier in the
 * directory (another process's shm_open()/sem_open() of it): -ENOENT when there is none, never
 * a look elsewhere. */
int cordon_shm_open(int dirfd, const char *name, int flags, mode_t mode);
int cordon_shm_link(int dirfd, const char *oldname, const char *newname);
int cordon_shm_unlink(int dirfd, const char *name);

/* Whether creating @abs_path (absolute, as the command resolved it: its directory's realpath
 * joined with the last component) falls under the host's /tmp and outside every one of
 * @writable (realpaths): true means Landlock will refuse it and the note applies. */
bool cordon_tmp_gap(const char *abs_path, const char *const *writable, size_t n_writable);
