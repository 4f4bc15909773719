/* File-descriptor helpers that touch the OS but carry no sandbox meaning. */
#pragma once

#include <stddef.h>
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
/* Closes every fd >= 3 except those listed in @keep (n entries). */
int close_all_fds_except(const int *keep, size_t n);
