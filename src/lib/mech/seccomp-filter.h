/* The seccomp layer: a deny-list filter built with libseccomp in the supervisor and installed
 * by the child with one prctl() just before exec. Denials answer an errno; nothing is killed. */
#pragma once

#include <errno.h>
#include <linux/filter.h>
#include <stdbool.h>

/* A program is chosen by two small keys: how much of the deny list it carries, and which socket
 * rule. Every pair is compiled at build time (seccomp-gen), so both enums stay small. */
enum cordon_seccomp_tier {
        /* The always-denied list (mount API, kernel modules, ptrace, io_uring, namespace flags
         * of clone, personality, TIOCSTI...) and the socket rule. */
        CORDON_SECCOMP_TIER_FULL,
        /* The unrestricted profile: only the socket rule, and the refusal of foreign ABIs that
         * keeps it from being walked around. */
        CORDON_SECCOMP_TIER_NET_ONLY,
        _CORDON_SECCOMP_TIER_MAX,
};

/* The socket rules, in order of strictness: each refuses at least what the one before refuses,
 * so two wants combine with cordon_seccomp_net_stricter(). OPEN_UNIX is the exception (FAMILIES
 * admits the AF_UNIX it refuses): only the landlock backend's open mode takes it, where nothing
 * but NONE is combined with it. */
enum cordon_seccomp_net {
        CORDON_SECCOMP_NET_ANY, /* no socket rule */
        /* The landlock backend's open network before Landlock ABI 9 (no network namespace, and
         * Landlock does not keep a unix socket's connect() from the host's by path): every
         * family but AF_UNIX as under ANY; socket(AF_UNIX) answers EACCES, and socketpair()
         * AF_UNIX admits SOCK_STREAM and SOCK_SEQPACKET only. With the notify bit the supervisor
         * keeps the command's unix sockets to its own instead (cordon_seccomp_unix_supervised():
         * socket() admits AF_UNIX of SOCK_STREAM and SOCK_SEQPACKET), and makes every other
         * connect() and listen() on the command's copy of its socket, to any destination
         * (cordon_seccomp_connect_notified()). The host's services (ssh-agent, the session bus,
         * Docker, munge) stay out of reach, as the ns backend's mount view hides them. */
        CORDON_SECCOMP_NET_OPEN_UNIX,
        /* The network is isolated by a network namespace: socket() answers EAFNOSUPPORT for
         * every family but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK (the ones a network
         * namespace confines), and socketpair() for every family but AF_UNIX. AF_VSOCK, for
         * one, has no namespace. */
        CORDON_SECCOMP_NET_FAMILIES,
        /* The landlock backend's proxied mode: socket() admits SOCK_STREAM (protocol 0 or
         * IPPROTO_TCP) of AF_INET, AF_INET6 and AF_UNIX only (Landlock's TCP rule leaves the
         * proxy's port, and LANDLOCK_ACCESS_FS_RESOLVE_UNIX keeps host sockets out);
         * socketpair() AF_UNIX of SOCK_STREAM and SOCK_SEQPACKET only; listen() and sends with
         * MSG_FASTOPEN are refused (both walk past Landlock's TCP rule). Refusals answer
         * EACCES; io_uring is refused too. */
        CORDON_SECCOMP_NET_STREAM_UNIX,
        /* The same without AF_UNIX in socket(), for a kernel whose Landlock cannot keep a
         * connect() from reaching a host Unix socket by its path. With the notify bit the
         * supervisor keeps them out instead (cordon_seccomp_unix_supervised()): socket() admits
         * AF_UNIX of SOCK_STREAM and SOCK_SEQPACKET, and bind(), listen() and connect() go to
         * the supervisor. */
        CORDON_SECCOMP_NET_STREAM_INET,
        /* The landlock backend isolates the network (no network namespace to do the job):
         * socket() fails with EPERM for every address family, and so do the io_uring calls,
         * whose IORING_OP_SOCKET would make one past the filter; socketpair() as for the
         * stream rules (no TCP socket to listen() on or send MSG_FASTOPEN with). */
        CORDON_SECCOMP_NET_NO_SOCKET,
        /* side_effect_level below `network`: socket, socketpair, connect, accept, accept4, bind,
         * listen, sendto, sendmsg, recvfrom, recvmsg, sendmmsg, recvmmsg fail with EPERM. */
        CORDON_SECCOMP_NET_NONE,
        _CORDON_SECCOMP_NET_MAX,
};

struct cordon_seccomp_key {
        enum cordon_seccomp_tier tier;
        enum cordon_seccomp_net net;
        /* The landlock backend's user notifications (seccomp-notify.h): the calls the
         * supervisor answers on the command's behalf (a pty's peer, the private /dev/shm) or
         * explains (a create under the host's /tmp). */
        bool notify;
};

static inline enum cordon_seccomp_net cordon_seccomp_net_stricter(enum cordon_seccomp_net a,
                                                                  enum cordon_seccomp_net b)
{
        return a > b ? a : b;
}

/* The landlock backend's socket rule that refuses AF_UNIX in socket() with the notify bit
 * (NO_SOCKET: the isolated network) hands a blocking socket(AF_UNIX, SOCK_STREAM, 0) to the
 * supervisor, so that the refusal comes with one line naming the gap (launch/notify.h). The
 * supervisor answers with the errno returned here, the one the rule answers without
 * notifications; 0: @k notifies no socket() at all. The filter (seccomp-filter.c) and the
 * supervisor both ask this function, so the two cannot disagree. */
static inline int cordon_seccomp_unix_notified(const struct cordon_seccomp_key *k)
{
        if (!k || !k->notify)
                return 0;
        return k->net == CORDON_SECCOMP_NET_NO_SOCKET ? EPERM : 0;
}

/* The landlock backend's proxied and open modes on a kernel whose Landlock cannot keep a unix
 * socket from the host's by its path (STREAM_INET, OPEN_UNIX), with the notify bit: the command
 * may make unix stream
 * and seqpacket sockets, and the supervisor lets them reach only sockets the command bound
 * itself (launch/notify-unix.h). socket(AF_UNIX, SOCK_STREAM or SOCK_SEQPACKET) is admitted;
 * bind() and listen() are handed to the supervisor, connect() too
 * (cordon_seccomp_connect_notified()). The filter and the supervisor both ask this function. */
static inline bool cordon_seccomp_unix_supervised(const struct cordon_seccomp_key *k)
{
        return k && k->notify &&
               (k->net == CORDON_SECCOMP_NET_STREAM_INET || k->net == CORDON_SECCOMP_NET_OPEN_UNIX);
}

/* The landlock backend's proxied mode hands every connect() to the supervisor when @k has the
 * notify bit (the stream rules: the command's sockets are TCP streams, and AF_UNIX ones under
 * STREAM_UNIX or inherited). Landlock's TCP rule sees the port only, so the supervisor checks
 * the address and connects its own copy of the socket (launch/notify.h). Its open mode
 * (OPEN_UNIX) too: the filter cannot tell a unix socket's connect() from another's, and the
 * supervisor makes the others to any destination. The filter and the supervisor both ask this
 * function. */
static inline bool cordon_seccomp_connect_notified(const struct cordon_seccomp_key *k)
{
        return k && k->notify &&
               (k->net == CORDON_SECCOMP_NET_STREAM_UNIX ||
                k->net == CORDON_SECCOMP_NET_STREAM_INET || k->net == CORDON_SECCOMP_NET_OPEN_UNIX);
}

/* A compiled filter program, owned by the holder. */
struct cordon_bpf {
        struct sock_filter *insns;
        unsigned short len;
};

/* Parent side. The filter for the native architecture as a BPF program. The programs are
 * compiled with libseccomp when cordon is built (seccomp-gen, seccomp-table.c), so a launch only
 * copies one; cordon_seccomp_compile() does the libseccomp work itself (the generator and the
 * tests use it). Both return 0, -ENOMEM, or the -errno libseccomp reported; -EINVAL for a key out
 * of range (@k NULL stands for {TIER_FULL, NET_ANY}). On success the caller owns @ret and
 * releases it with cordon_bpf_clear(). Safe in a multi-threaded process. */
int cordon_seccomp_build(const struct cordon_seccomp_key *k, struct cordon_bpf *ret);
int cordon_seccomp_compile(const struct cordon_seccomp_key *k, struct cordon_bpf *ret);
/* The generated programs: one per key, at the index cordon_seccomp_program() gives. */
#define CORDON_SECCOMP_PROGRAMS ((unsigned)_CORDON_SECCOMP_TIER_MAX * _CORDON_SECCOMP_NET_MAX * 2)
/* The index of @k among the generated programs, or -EINVAL for a key out of range. */
static inline int cordon_seccomp_program(const struct cordon_seccomp_key *k)
{
        if (!k)
                return 0;
        if ((unsigned)k->tier >= _CORDON_SECCOMP_TIER_MAX ||
            (unsigned)k->net >= _CORDON_SECCOMP_NET_MAX)
                return -EINVAL;
        return (int)(((unsigned)k->tier * _CORDON_SECCOMP_NET_MAX + (unsigned)k->net) * 2 +
                     (k->notify ? 1u : 0u));
}
/* The key of program @index, the inverse of cordon_seccomp_program(). */
static inline struct cordon_seccomp_key cordon_seccomp_program_key(unsigned index)
{
        return (struct cordon_seccomp_key){
            .tier = (enum cordon_seccomp_tier)(index / 2 / _CORDON_SECCOMP_NET_MAX),
            .net = (enum cordon_seccomp_net)(index / 2 % _CORDON_SECCOMP_NET_MAX),
            .notify = index % 2 == 1,
        };
}
void cordon_bpf_clear(struct cordon_bpf *b);
/* The program of libseccomp's context @ctx (a scmp_filter_ctx) into @ret, which the caller
 * then owns as above: 0, -ENOMEM, -E2BIG, or the -errno libseccomp reported. */
int cordon_seccomp_export(void *ctx, struct cordon_bpf *ret);

/* Child side. Installs @b for the calling thread. No-new-privs must already be set (otherwise
 * -EACCES from the kernel). Async-signal-safe: no allocation. Returns 0 or -errno. */
int cordon_seccomp_install(const struct cordon_bpf *b);

/* Whether this kernel can install seccomp filters at all; asked once per process. */
bool cordon_seccomp_available(void);
