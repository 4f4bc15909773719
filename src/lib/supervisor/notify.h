/* The landlock backend's seccomp notifications, the supervisor side: one io source of the loop on
 * the listener the child sent (CORDON_CONTROL_FD_SECCOMP_NOTIFY). Each notification is answered
 * at once, never by waiting on the command:
 *  - ioctl(fd, TIOCGPTPEER, flags): when @fd (taken with pidfd_getfd) is a pty master, its peer
 *    is opened here and added to the caller (the only way to a pty's other end, since Landlock
 *    keeps every /dev/pts/N closed); anything else is refused.
 *  - creating /dev/shm/NAME (open/openat/creat with O_CREAT, link, unlink): done in the
 *    launch's private shm directory instead (notify-fs.h), so POSIX semaphores and shared
 *    memory work without reaching anyone else's.
 *  - creating an entry of the host's /tmp itself, outside every writable grant: EACCES as Landlock
 * would answer, plus one warning naming the gap and the fix, once per sandbox.
 *  - socket(AF_UNIX, SOCK_STREAM, 0) under the isolated network's socket rule
 * (cordon_seccomp_unix_notified()): always refused, with the rule's own errno, plus one warning
 * naming the gap and the fix, once per sandbox. Never "continue": nothing else would stop it.
 *  - connect() under proxied mode's stream rules (cordon_seccomp_connect_notified()): the
 *    address is read once; only 127.0.0.1 (or ::ffff:127.0.0.1) at the proxy's port is
 *    connected, by the supervisor on its copy of the caller's TCP socket (pidfd_getfd), and the
 *    result returned (EINPROGRESS for a non-blocking socket); every other address answers
 *    EACCES. Never "continue": the kernel would read the address (and the descriptor) again,
 *    after another thread could have changed them.
 *  - the command's own unix sockets, under proxied mode's stream rules before Landlock ABI 9
 *    (cordon_seccomp_unix_supervised(), notify-unix.h): bind() to a path records the socket and
 *    continues (the kernel binds it under Landlock); bind() to an abstract name is refused;
 *    listen() is made here on a unix socket only; connect() of a unix stream or seqpacket socket
 *    is made here, through the target's inode, only when the target is the socket file of a
 *    socket the command bound; a live socket of the host's, and any abstract name, answer
 *    EACCES with one warning naming the gap, once per sandbox. A unix socket's connect under
 *    the other stream rules answers EACCES.
 *  - anything else: SECCOMP_USER_NOTIF_FLAG_CONTINUE (Landlock and the filter decide).
 * What the supervisor does on the command's behalf is never wider than the grant it stands in
 * for: a decision to continue is always safe (Landlock still checks), one to act is confined to
 * a descriptor the launch made. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/mech/seccomp-filter.h"

struct cordon_notify_config {
        int shm_dirfd;               /* the private /dev/shm stand-in (O_DIRECTORY), or -1: none */
        const char *const *writable; /* host paths the command may write (for the /tmp note) */
        size_t n_writable;
        /* The filter's socket rule (seccomp_key.net): the errno and the note for a refused
         * socket(AF_UNIX). */
        enum cordon_seccomp_net socket_rule;
        /* The launch made a private TMPDIR (not under a capability policy without
         * user_temp writes): the /tmp note points to it. */
        bool tmpdir;
        /* With cordon_seccomp_connect_notified(): the egress proxy's port on the host's
         * 127.0.0.1, the only destination a connect() of the command may have. */
        uint16_t proxy_port;
        /* One line per gap met (the first time only); NULL: none. */
        void (*warn)(void *userdata, const char *message);
        void *userdata;
};

struct cordon_notify;
struct cordon_loop;

/* Takes @listener (closed on failure too). Returns 0 or -errno. */
int cordon_notify_new(int listener, const struct cordon_notify_config *cfg,
                      struct cordon_notify **ret);
/* Serves the listener on @loop (which must outlive the registration) until the free or
 * cordon_notify_detach(). Returns 0 or -errno. */
int cordon_notify_attach(struct cordon_notify *n, struct cordon_loop *loop);
void cordon_notify_detach(struct cordon_notify *n);
void cordon_notify_free(struct cordon_notify *n);

/* The pure parts of the dispatcher, exposed for the tests. */
struct stat;
/* TIOCGPTPEER's argument: the flags the supervisor's open of the peer uses (always O_NOCTTY
 * and O_CLOEXEC) and whether the caller's copy is close-on-exec. -EINVAL for anything but the
 * access mode, O_NOCTTY, O_NONBLOCK and O_CLOEXEC (or an access mode of 3). */
int cordon_notify_ptpeer_flags(uint64_t arg, int *ret_flags, bool *ret_cloexec);
/* Whether a descriptor with @st and file status flags @fl (F_GETFL; negative: unknown) is a
 * pty master: the character device 5:2 (/dev/ptmx, a devpts ptmx), not opened O_PATH. */
bool cordon_notify_is_pty_master(const struct stat *st, int fl);
/* The warning for a unix socket refused under socket rule @rule, naming the gap and the fix; a
 * static string. The landlock backend's isolated network (NO_SOCKET) refuses socket(AF_UNIX);
 * its proxied one (STREAM_INET) a connect beyond the command's own sockets. */
const char *cordon_notify_unix_note(enum cordon_seccomp_net rule);
/* The warning for a unix bind refused because CORDON_UNIX_SOCKS_MAX sockets the command bound
 * are all still open; a static string. */
const char *cordon_notify_unix_full_note(void);
/* What a notified socket() answers under @rule: the errno the rule answers without
 * notifications (cordon_seccomp_unix_notified()), EACCES for a rule that notifies none (a
 * refusal all the same: the call is never let through). */
int cordon_notify_unix_errno(enum cordon_seccomp_net rule);
/* Whether a connect() of the command to the @len bytes of @sa may be made under proxied mode:
 * AF_INET 127.0.0.1 or AF_INET6 ::ffff:127.0.0.1 at @proxy_port (nonzero), or AF_UNSPEC (which
 * only disconnects a TCP socket). Everything else is refused with EACCES. */
bool cordon_notify_connect_allowed(const void *sa, size_t len, uint16_t proxy_port);
/* The directory a create of @path (relative to @dirfd, AT_FDCWD or >= 0) by process @pid
 * happens in, as a path the supervisor can resolve (through /proc/PID/cwd or /proc/PID/fd/N
 * for a relative one), and *@ret_last the name created there. -EISDIR when @path ends in "/",
 * "." or "..", -ENOENT for "", -EBADF for another negative @dirfd, -ENAMETOOLONG. */
int cordon_notify_dir_of(pid_t pid, int dirfd, const char *path, char *buf, size_t n,
                         const char **ret_last);
