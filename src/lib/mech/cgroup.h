/* Library-internal cgroup helpers for res-limits.c: parsing /proc/self/cgroup and mountinfo
 * (pure, in res-limits-parse.c) and the operations on cgroupfs directories (cgroup.c), shared by
 * v1 and v2. All return 0 or -errno and never print. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- pure (res-limits-parse.c) ---- */

/* True when @name is one of the tokens of @list, separated by spaces, commas or newlines
 * ("cpu memory pids\n", "rw,memory"). */
bool cordon_cgroup_list_has(const char *list, const char *name);

/* The caller's cgroup in one hierarchy from the text of /proc/self/cgroup: the "0::" line for
 * v2 (@controller NULL), else the line whose controller list holds @controller. Copies the path
 * into @ret. Returns 0, -ENOENT (no such line), -EINVAL (malformed), -ENAMETOOLONG. */
int cordon_cgroup_parse_self(const char *text, const char *controller, char *ret, size_t n);

/* The first mount of the cgroup2 filesystem (@controller NULL) or of a v1 cgroup filesystem
 * whose super options name @controller, from the text of /proc/self/mountinfo: the mount
 * point into @ret_mnt and the root of the mount inside the hierarchy into @ret_root, both with
 * mountinfo's octal escapes decoded. Returns 0, -ENOENT, -ENAMETOOLONG. */
int cordon_mountinfo_find_cgroup(const char *text, const char *controller, char *ret_mnt,
                                 size_t n_mnt, char *ret_root, size_t n_root);

/* The directory of cgroup @path (as /proc/self/cgroup shows it) in a hierarchy mounted at @mnt
 * with mount root @root: @mnt + the part of @path below @root. Returns 0, -ENOENT when @path is
 * not below @root (not visible through that mount), -ENAMETOOLONG. */
int cordon_cgroup_dir_of(const char *mnt, const char *root, const char *path, char *ret, size_t n);

/* ---- cgroupfs operations (cgroup.c) ---- */

/* Reads @dir/@file (at most 1 MiB) into a new NUL-terminated string. */
int cordon_cgroup_read(const char *dir, const char *file, char **ret);
/* Writes @value to @dir/@file in one write(); @create: create a missing file (fake trees). */
int cordon_cgroup_write(const char *dir, const char *file, const char *value, bool create);
/* The unsigned number after "@key " in a flat-keyed file such as memory.events; @key NULL: the
 * file holds just a number (memory.failcnt). -ENOENT when the key is missing. */
int cordon_cgroup_read_key(const char *dir, const char *file, const char *key,
                           unsigned long long *ret);
/* True when @dir/cgroup.procs lists at least one process. */
bool cordon_cgroup_has_procs(const char *dir);
/* Creates a new directory "cordon-<pid>-<n>" in @parent (n counts per process) and returns its
 * path. A leftover of the same name, necessarily from an earlier process with our pid, is
 * removed first if empty. */
int cordon_cgroup_make_leaf(const char *parent, char *ret, size_t n);
/* SIGKILLs every process listed in @dir and its sub-cgroups until none is listed. */
int cordon_cgroup_kill_tree(const char *dir);
/* Removes @dir after its sub-cgroups, retrying rmdir() on EBUSY for about 200 ms. */
int cordon_cgroup_remove_tree(const char *dir);
