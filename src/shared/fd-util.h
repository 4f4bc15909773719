/* File-descriptor helpers that touch the OS but carry no sandbox meaning. */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Writes all of @buf to @fd, retrying on EINTR and short writes. Returns 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);
/* Reads a whole file of at most @max bytes into a NUL-terminated buffer.
 * Returns -EFBIG when larger. */
int read_full_file(const char *path, size_t max, char **ret, size_t *ret_len);
/* The same from an open file descriptor (a pipe, standard input), which stays open. */
int read_full_fd(int fd, size_t max, char **ret, size_t *ret_len);
/* read_full_file(), or read_full_fd() of standard input for @path "-". */
int read_full_file_or_stdin(const char *path, size_t max, char **ret, size_t *ret_len);
/* Opens @path relative to @dirfd with O_CLOEXEC|O_NOCTTY, writes @s and closes. */
int write_string_file_at(int dirfd, const char *path, const char *s);
/* The entry names of @d (without "." and ".."), sorted by strcmp() so that what is built from
 * them is reproducible, as a NULL-terminated array (free with strv_free()) and its length in
 * @ret_n (may be NULL). Returns 0, -E2BIG when there are more than @max, or -errno. */
int dir_read_names(DIR *d, size_t max, char ***ret, size_t *ret_n);
/* Closes every fd >= 3 except those listed in @keep (n entries). */
int close_all_fds_except(const int *keep, size_t n);
/* Marks every fd >= 3 close-on-exec (close_range(2)'s CLOSE_RANGE_CLOEXEC, Linux 5.11): what
 * close_all_fds_except() does to a command, done at its exec, while the caller still has them.
 * Returns 0 or -errno. */
int fds_cloexec_above_stdio(void);
/* Sends one byte @tag with descriptor @fd (none when negative) on socket @sock (SCM_RIGHTS).
 * Returns 0 or -errno. */
int fd_send(int sock, char tag, int fd);
/* Receives what fd_send() sent: the descriptor (close-on-exec; the caller's), or -ENOENT when
 * the message came without one (its tag in *@ret_tag, may be NULL), -EPIPE at end of file,
 * -EBADMSG, -errno. */
int fd_recv(int sock, char *ret_tag);

/* Descriptors 0, 1 and 2 that were closed, held on /dev/null (close-on-exec) while a library
 * call opens descriptors of its own, so that none of those lands there and is taken for
 * standard input or output (or closed by someone who means stdio); closed again afterwards.
 * @ref is a copy above 2 that tells the placeholders from whatever the caller put there since. */
struct stdio_guard {
        unsigned filled; /* bit n: descriptor n is a placeholder */
        int ref;
};
/* Fills the closed ones of 0..2. Returns 0 or -errno (/dev/null cannot be opened). */
int stdio_guard_fill(struct stdio_guard *g);
/* Closes the placeholders still in place, and @g's copy. Safe on a zeroed or released guard. */
void stdio_guard_release(struct stdio_guard *g);
/* For a program's start: opens /dev/null onto each of 0, 1 and 2 that is closed, inherited (no
 * close-on-exec), so that nothing the program or its children open later becomes their standard
 * input or output. Returns 0 or -errno. */
int stdio_open_missing(void);

/* Removes directory @path and everything below it by a physical walk on one filesystem: a
 * symbolic link or mount point found there is removed (or left), never followed; a directory
 * made unwritable is opened up first. Any depth: the walk works on descriptors, and a chain
 * deeper than it holds (or longer than PATH_MAX) is moved up and removed in a later pass. Best
 * effort (what stays, stays); one rmdir() when the directory is empty. */
void remove_tree_physical(const char *path);

/* Reads regular file @path below @dirfd (AT_FDCWD: from the working directory), opened with
 * openat2() with O_NOFOLLOW and @resolve (RESOLVE_*), non-blocking so that a FIFO put there
 * never stalls the reader: at most @max bytes, NUL-terminated. Its stat in *@ret_st when not
 * NULL. 0, or -errno: -EINVAL when it is not a regular file, -EFBIG when larger than @max. */
int read_regular_file_at(int dirfd, const char *path, uint64_t resolve, size_t max,
                         struct stat *ret_st, char **ret, size_t *ret_len);

/* Flags of dir_open_owned(). */
enum {
        DIR_OPEN_NOFOLLOW = 1 << 0, /* @name is not followed when it is a symbolic link */
        DIR_OPEN_CREATE = 1 << 1,   /* made 0700 when missing */
        DIR_OPEN_PRIVATE = 1 << 2,  /* it must give group and others no access */
};

/* Opens directory @name below @dirfd (AT_FDCWD: @name is a path), close-on-exec, which must
 * belong to the effective uid. Returns the descriptor, or -errno with what failed in @err (@n
 * bytes), naming the directory @shown: a symbolic link refused under DIR_OPEN_NOFOLLOW is
 * -ELOOP, another owner or (DIR_OPEN_PRIVATE) a mode open to others -EPERM. */
int dir_open_owned(int dirfd, const char *name, unsigned flags, const char *shown, char *err,
                   size_t n);
