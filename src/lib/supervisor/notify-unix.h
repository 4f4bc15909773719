/* The command's own unix sockets under the landlock backend's proxied network, on a kernel whose
 * Landlock cannot keep a connect() from the host's sockets by path (before ABI 9; the filter's
 * side is cordon_seccomp_unix_supervised()). The supervisor (notify.c) records each unix socket
 * the command binds to a path, and connects a socket of the command's only to the socket file of
 * one of those, found by its inode: a host socket (ssh-agent, the session bus, Docker) is never
 * reached, by its own path nor through a link, a symlink or a relative path to it.
 *
 * What is recorded is the socket, not a path: its inode number (sockfs) and the kernel's cookie
 * for it (sock_diag), which no other socket is ever given, so a number reused after the socket
 * is gone matches nothing; no copy of the socket is kept (a listener held open here would take
 * connections after the command closed it). At connect time the kernel tells, for each recorded
 * socket still alive, the device and inode of the socket file it is bound to (NETLINK_SOCK_DIAG,
 * UDIAG_SHOW_VFS), which must be the target's (the device as the super block's, which stat()
 * reports otherwise on btrfs); dead entries are dropped then.
 * The kernel reports only the low 32 bits of that inode number, and inode numbers can repeat on
 * a file system whose counter wraps (tmpfs with 32-bit numbers): the target must also have been
 * born (statx btime) no earlier than the second the supervisor saw the bind, which a socket file
 * of the host made before it cannot be. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* How many sockets the command may have bound at once (still open); a bind beyond is refused. */
#define CORDON_UNIX_SOCKS_MAX 1024

struct cordon_unix_socks;

int cordon_unix_socks_new(struct cordon_unix_socks **ret);
void cordon_unix_socks_free(struct cordon_unix_socks *s);
/* Records @sock, the supervisor's copy of a unix socket the command is binding to a path, before
 * the kernel binds it. 1: recorded (or already); 0: not, since it has an address already (the
 * bind will fail); -ENOSPC: CORDON_UNIX_SOCKS_MAX sockets recorded are all still open; -errno. */
int cordon_unix_socks_add(struct cordon_unix_socks *s, int sock);
/* Whether @fd (an O_PATH descriptor of a socket file) is the file a recorded socket is bound to:
 * 1 when it is; 0 when not, and then *@ret_live (may be NULL) says whether some socket (of the
 * host, then) is bound to it; -errno when that cannot be told (the caller refuses). */
int cordon_unix_socks_owns(struct cordon_unix_socks *s, int fd, bool *ret_live);
/* How many are recorded (dead ones included until they are met). */
size_t cordon_unix_socks_count(const struct cordon_unix_socks *s);

/* The pure parts, exposed for the tests. */
enum cordon_unix_addr {
        CORDON_UNIX_ADDR_UNNAMED,  /* only sun_family: bind()'s autobind */
        CORDON_UNIX_ADDR_ABSTRACT, /* sun_path[0] == 0 */
        CORDON_UNIX_ADDR_PATH,
};
/* What the kernel makes of the @len bytes at @sa given to bind() or connect() of a unix socket:
 * the kind, and for a path the path itself in @path (@n bytes, NUL-terminated: sun_path up to
 * its first NUL or @len, as the kernel reads it). -EINVAL as the kernel answers (a length out of
 * range, a family other than AF_UNIX). */
int cordon_unix_addr_parse(const void *sa, size_t len, char *path, size_t n);
/* The path the supervisor opens for @path as process @pid resolves it: an absolute one as it is
 * (the landlock backend shares the host's mount view) but for "/proc/self", "/proc/thread-self"
 * and "/dev/fd", which are @pid's own; a relative one under /proc/PID/cwd. -ENOENT for "",
 * -ENAMETOOLONG. */
int cordon_unix_target_path(pid_t pid, const char *path, char *buf, size_t n);
/* Whether a socket file born at @btime_sec (statx) can be the one a socket bound after @since
 * made: born in that second or later (file systems keep their own granularity). */
bool cordon_unix_born_after(int64_t btime_sec, const struct timespec *since);
/* The device of the super block of mount @mnt_id in @mountinfo (the text of
 * /proc/self/mountinfo: its third field), which the socket diagnostics name; stat() names
 * another on btrfs (one per subvolume). 0, or -ENOENT when no line has that mount id. */
int cordon_unix_mount_dev(const char *mountinfo, uint64_t mnt_id, dev_t *ret);
