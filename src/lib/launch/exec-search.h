/* execvp() for the child between clone and exec. */
#pragma once

/* Executes @file as execvp() would, but with the PATH of @envp rather than of the caller (the
 * landlock backend's child shares the supervisor's memory, and so its environ, until it execs);
 * a file without a #! line runs under /bin/sh. Allocates nothing; async-signal-safe. Returns
 * only on failure, with errno set (ENOENT: not found anywhere). */
void cordon_exec_search(const char *file, char *const *argv, char *const *envp);
