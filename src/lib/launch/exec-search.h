/* execvp() for the child between clone and exec, and where a command that was not found is on
 * the host, for the supervisor's message. */
#pragma once

#include <stddef.h>

/* Executes @file as execvp() would, but with the PATH of @envp rather than of the caller (the
 * landlock backend's child shares the supervisor's memory, and so its environ, until it execs);
 * a file without a #! line runs under /bin/sh. Allocates nothing; async-signal-safe. Returns
 * only on failure, with errno set (ENOENT: not found anywhere). */
void cordon_exec_search(const char *file, char *const *argv, char *const *envp);

/* Supervisor side, for the message of a command that could not be executed (these allocate:
 * never between clone and exec). */

/* The file the command @file would be on the host: @file itself when it holds a '/' (absolute
 * only), else the first executable regular file of that name in an absolute directory of PATH
 * value @path (relative entries name the sandbox's working directory and are skipped). 0 with
 * the path in *@ret (free()), -ENOENT when there is none, or -ENOMEM. */
int cordon_exec_find_host(const char *file, const char *path, char **ret);

/* The interpreter of the "#!" line at the start of @buf (@n bytes), and its one argument if it
 * has one (the kernel passes the rest of the line as one argument). 0 with *@ret_interp and
 * *@ret_arg (NULL without one; free() both), -ENOEXEC when @buf does not start with "#!" or the
 * line has no interpreter or no end within @n bytes, or -ENOMEM. */
int cordon_exec_parse_shebang(const char *buf, size_t n, char **ret_interp, char **ret_arg);

/* cordon_exec_parse_shebang() of the start of regular file @path on the host: -errno when it
 * cannot be opened or is not a regular file. */
int cordon_exec_read_shebang(const char *path, char **ret_interp, char **ret_arg);
