/* A parser of /proc/net/unix: the filesystem paths of the unix sockets bound in the caller's
 * network namespace, which the lowering hides where a bind would expose them. */
#pragma once

#include <stddef.h>

/* Most distinct paths returned; a host with more is refused rather than half covered. */
#define CORDON_UNIX_SOCKETS_MAX 4096

/* Parses the text of /proc/net/unix (@len bytes, need not be NUL-terminated) into the distinct
 * absolute socket paths it names, in order of first appearance. Unnamed sockets, abstract names
 * ('@...') and relative paths (bound relative to a working directory the kernel does not print)
 * are skipped. The kernel prints a path as it is, so one containing a newline shows up cut in
 * two: its first part is returned and the rest is not a line of the table.
 * Returns 0 with a NULL-terminated list in @ret (NULL when there is none; free with strv_free),
 * -EBADMSG when the header is not the one expected, -E2BIG above CORDON_UNIX_SOCKETS_MAX paths,
 * -ENOMEM. Thread-safe. */
int cordon_proc_net_unix_parse(const char *text, size_t len, char ***ret);
