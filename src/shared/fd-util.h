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
/* Opens @path relative to @dirfd with O_CLOEXEC|O_NOCTTY, writes @s and closes. */
int write_string_file_at(int dirfd, const char *path, const char *s);
/* Closes every fd >= 3 except those listed in @keep (n entries). */
int close_all_fds_except(const int *keep, size_t n);
/* Sends @fd over the unix socket @sock (SCM_RIGHTS) with one byte of data. Returns 0 or -errno. */
int send_fd(int sock, int fd);
/* Receives a descriptor sent by send_fd() on @sock, close-on-exec, with recvmsg() @flags
 * (MSG_DONTWAIT: -EAGAIN when nothing is queued). Returns the fd or -errno (-EBADMSG when a
 * message came without one). */
int recv_fd(int sock, int flags);
