/* Who may use cordon-serve's socket: a peer of our uid that belongs to no cordon sandbox (its
 * pid and user namespaces are ours, its cgroup is no "cordon-" one, no ancestor is a landlock
 * backend's reaper). The decision is taken on the kernel's credentials of the connection, never
 * on anything the peer sends. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The comm the landlock backend's reaper gives itself (src/lib/launch/reaper.c). */
#define SERVE_PEER_REAPER_COMM "cordon-reaper"
/* Ancestors looked at, at most (a chain longer than this is refused). */
#define SERVE_PEER_DEPTH_MAX 4096

/* Pure parsers of /proc text, for the check and its unit tests. */

/* Whether the text of /proc/PID/cgroup ("ID:CONTROLLERS:PATH" lines) names a cgroup with a
 * path component starting "cordon-". A line that does not parse counts as one (fail closed). */
bool serve_peer_cgroup_is_cordon(const char *text);
/* The "Name:" and "PPid:" of the text of /proc/PID/status: 0, or -EBADMSG when either is
 * missing or malformed. @ret_name gets the name (cut to @n - 1 bytes). */
int serve_peer_status_parse(const char *text, char *ret_name, size_t n, pid_t *ret_ppid);

/* Checks the peer of connected unix socket @fd. Returns 1 when it may use the daemon, 0 when
 * refused (why in @why, naming the peer's pid), or -errno when the check itself failed (the
 * caller refuses too). */
int serve_peer_check(int fd, char *why, size_t n);
