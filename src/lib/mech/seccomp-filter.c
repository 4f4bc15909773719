/* The seccomp layer: the deny-list filter is built with libseccomp in the supervisor and exported
 * as a classic BPF program; the child installs that program with one prctl() just before exec.
 * Every denial answers an errno (EPERM; ENOSYS for clone3, EAFNOSUPPORT for socket families,
 * EACCES for the landlock backend's stream-only socket rules);
 * nothing is ever killed. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mech/seccomp-filter.h"
#include "shared/macro.h"

/* Linux 6.15 (open_tree() with mount attributes), newer than the build headers of Debian 12.
 * Since 5.1 new system calls have one number on every architecture but alpha. */
#ifndef __NR_open_tree_attr
#define __NR_open_tree_attr 467
#endif

#define DENY SCMP_ACT_ERRNO(EPERM)

/* Refused whatever the arguments. */
static const int denied_always[] = {
    /* Mount API, old and new: a remount, an unmount or a detached copy of a mount tree can
     * uncover what the namespace view masks, or undo read-only binds. */
    SCMP_SYS(mount),
    SCMP_SYS(umount2),
    SCMP_SYS(pivot_root),
    SCMP_SYS(fsopen),
    SCMP_SYS(fsconfig),
    SCMP_SYS(fsmount),
    SCMP_SYS(fspick),
    SCMP_SYS(move_mount),
    SCMP_SYS(open_tree),
    __NR_open_tree_attr,
    SCMP_SYS(mount_setattr),
    /* The kernel itself and the machine: code loading, reboot, swap, accounting, quotas. */
    SCMP_SYS(init_module),
    SCMP_SYS(finit_module),
    SCMP_SYS(delete_module),
    SCMP_SYS(kexec_load),
    SCMP_SYS(kexec_file_load),
    SCMP_SYS(reboot),
    SCMP_SYS(swapon),
    SCMP_SYS(swapoff),
    SCMP_SYS(acct),
    SCMP_SYS(quotactl),
    SCMP_SYS(quotactl_fd),
    /* Other processes' memory, and large kernel attack surfaces reachable without
     * privilege (eBPF, perf, userfaultfd as an exploitation aid, fanotify). */
    SCMP_SYS(bpf),
    SCMP_SYS(ptrace),
    SCMP_SYS(process_vm_readv),
    SCMP_SYS(process_vm_writev),
    SCMP_SYS(perf_event_open),
    SCMP_SYS(userfaultfd),
    SCMP_SYS(fanotify_init),
    /* File handles open an inode without walking a path, past every path-based check and
     * out of a bind mount ("shocker", 2014). */
    SCMP_SYS(open_by_handle_at),
    SCMP_SYS(name_to_handle_at),
    /* Keyrings are per user, not per namespace: the host's keys stay out of reach. */
    SCMP_SYS(keyctl),
    SCMP_SYS(add_key),
    SCMP_SYS(request_key),
    /* New namespaces would give back the capabilities cordon dropped; the kernel's mount
     * locking is the only other line against unmasking from a nested namespace. */
    SCMP_SYS(setns),
    SCMP_SYS(unshare),
    /* io_uring performs its operations (socket, connect, openat...) in the kernel, where
     * this filter never sees them. */
    SCMP_SYS(io_uring_setup),
    SCMP_SYS(io_uring_enter),
    SCMP_SYS(io_uring_register),
};

/* The io_uring calls, also in denied_always: kept apart for the filter without the deny list. */
static const int denied_io_uring[] = {
    SCMP_SYS(io_uring_setup),
    SCMP_SYS(io_uring_enter),
    SCMP_SYS(io_uring_register),
};

/* clone() with any of these creates a namespace. CLONE_NEWTIME (0x80) is not among them: in
 * clone() the low byte (CSIGNAL) is the exit signal, the kernel strips it from the flags, so a
 * time namespace can only come from clone3() (ENOSYS below), unshare() or setns() (denied). */
static const uint32_t clone_ns_flags[] = {
    CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,    CLONE_NEWUSER,
    CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP,
};

/* Sockets of any family and the calls that move data through them. sendmmsg and recvmmsg are
 * the vectored sendmsg/recvmsg: leaving them open would let an inherited socket (an unconnected
 * UDP one takes a destination per message) send and receive all the same. Metadata calls
 * (getsockopt, getsockname, shutdown...) move nothing and stay allowed. */
static const int denied_network[] = {
    SCMP_SYS(socket),   SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(accept),
    SCMP_SYS(accept4),  SCMP_SYS(bind),       SCMP_SYS(listen),  SCMP_SYS(sendto),
    SCMP_SYS(sendmsg),  SCMP_SYS(recvfrom),   SCMP_SYS(recvmsg), SCMP_SYS(sendmmsg),
    SCMP_SYS(recvmmsg),
};

/* The families an isolated network admits: the ones a network namespace confines. AF_UNIX
 * reaches paths (which the mount view and Landlock govern) and the namespace's own abstract
 * names; AF_INET, AF_INET6 and AF_NETLINK belong to the network namespace. Every other family is
 * refused: AF_VSOCK has no namespace at all (a sandbox in a VM would reach the hypervisor's
 * services, one beside VMs their guests'), and the rest are kernel attack surface an agent has
 * no use for (AF_ALG and its page-cache writes, AF_KEY, AF_PACKET, AF_BLUETOOTH, AF_TIPC...). */
static bool family_is_confined(uint32_t family, bool unix_only)
{
        if (unix_only)
                return family == AF_UNIX;
        return family == AF_UNIX || family == AF_INET || family == AF_INET6 || family == AF_NETLINK;
}

static void seccomp_releasep(scmp_filter_ctx *ctx)
{
        if (*ctx)
                seccomp_release(*ctx);
}

static int deny_all(scmp_filter_ctx ctx, const int *nrs, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                int r = seccomp_rule_add_exact(ctx, DENY, nrs[i], 0);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Masked comparisons only ever look at the low 32 bits here: the kernel reads the flags of
 * clone(), the persona of personality() and the request of ioctl() as 32-bit values, so a
 * 64-bit comparison could be dodged with garbage in the high half (CVE-2019-10063 in flatpak:
 * TIOCSTI | 1 << 32). */
static int deny_masked(scmp_filter_ctx ctx, int nr, unsigned arg, uint32_t mask, uint32_t value)
{
        struct scmp_arg_cmp cmp = {
            .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask, .datum_b = value};
        return seccomp_rule_add_exact_array(ctx, DENY, nr, 1, &cmp);
}

/* @nr (socket or socketpair) answers EAFNOSUPPORT, as for a family the kernel was built
 * without, unless its first argument is an admitted family. The kernel reads that argument as an
 * int: the families below the highest admitted one are compared on the low 32 bits, the rest is
 * one comparison ">= highest + 1" on all 64 bits. A value with anything in the high half (or a
 * negative one) is that large, so garbage there can only turn an admitted family into a refusal,
 * never let a refused one through (the CVE-2019-10063 class, see deny_masked()). */
static int refuse_families(scmp_filter_ctx ctx, int nr, bool unix_only)
{
        const uint32_t highest = unix_only ? AF_UNIX : AF_NETLINK;
        const uint32_t action = SCMP_ACT_ERRNO(EAFNOSUPPORT);
        int r;

        for (uint32_t f = 0; f < highest; f++) {
                if (family_is_confined(f, unix_only))
                        continue;
                struct scmp_arg_cmp eq = {
                    .arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = UINT32_MAX, .datum_b = f};
                if ((r = seccomp_rule_add_exact_array(ctx, action, nr, 1, &eq)) < 0)
                        return r;
        }
        struct scmp_arg_cmp above = {.arg = 0, .op = SCMP_CMP_GE, .datum_a = highest + 1};
        return seccomp_rule_add_exact_array(ctx, action, nr, 1, &above);
}

/* The landlock backend's socket rules answer EACCES, as Landlock does for the TCP ports it
 * refuses in the same mode: one answer for "the sandbox does not allow this". */
#define DENY_STREAM SCMP_ACT_ERRNO(EACCES)

/* The bits of a socket type that say the type (SOCK_TYPE_MASK in the kernel; the others are
 * SOCK_NONBLOCK and SOCK_CLOEXEC or refused with EINVAL). */
#define SOCK_TYPE_BITS UINT32_C(0xf)

/* @nr answers @action when the type in argument @arg, flags masked off, is none of @admitted
 * (bit i: type i), and (when @family >= 0) argument 0 is @family on its low 32 bits. Only the
 * low four bits are compared (the kernel reads an int, and answers EINVAL itself for anything
 * above them but SOCK_NONBLOCK and SOCK_CLOEXEC, before it makes a socket): a type is refused
 * when it has a bit set that no admitted type has, or lacks a bit that every admitted type
 * has. That is exact when the admitted types are every combination of the bits in which they
 * differ, as {SOCK_STREAM} and {SOCK_STREAM 1, SOCK_SEQPACKET 5} are. */
static int refuse_types(scmp_filter_ctx ctx, uint32_t action, int nr, int family, unsigned arg,
                        uint32_t admitted)
{
        uint32_t any = 0, all = SOCK_TYPE_BITS;
        for (unsigned t = 0; t <= SOCK_TYPE_BITS; t++)
                if (admitted & (UINT32_C(1) << t)) {
                        any |= t;
                        all &= t;
                }
        struct scmp_arg_cmp cmp[2];
        unsigned n = 0;
        if (family >= 0)
                cmp[n++] = (struct scmp_arg_cmp){.arg = 0,
                                                 .op = SCMP_CMP_MASKED_EQ,
                                                 .datum_a = UINT32_MAX,
                                                 .datum_b = (uint32_t)family};
        for (uint32_t bit = 1; bit & SOCK_TYPE_BITS; bit <<= 1) {
                /* A bit set that no admitted type has; a bit clear that all of them have. */
                uint32_t value;
                if (!(any & bit))
                        value = bit;
                else if (all & bit)
                        value = 0;
                else
                        continue;
                cmp[n] = (struct scmp_arg_cmp){
                    .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = bit, .datum_b = value};
                int r = seccomp_rule_add_exact_array(ctx, action, nr, n + 1, cmp);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* libseccomp accepts SCMP_ACT_NOTIFY only where it believes the running kernel has it; the
 * programs are compiled at build time, for the kernel that will load them (the launch checks
 * cordon_seccomp_notify_available() before choosing such a program). */
static int notify_api(void)
{
        return seccomp_api_get() < 5 ? seccomp_api_set(5) : 0;
}

/* socket(AF_UNIX) under a rule that refuses it, when the refusal is explained
 * (cordon_seccomp_unix_notified()): socket(AF_UNIX, SOCK_STREAM, 0) of a blocking socket goes to
 * the supervisor, which answers @refuse's errno and prints the one line; every other
 * socket(AF_UNIX, ...) answers @refuse here, as without notifications. The rules are disjoint
 * from the notified one (the family on all 64 bits, the type without SOCK_NONBLOCK, protocol 0),
 * since libseccomp promises no precedence between overlapping rules of different actions; the
 * caller refuses every other family and leaves AF_UNIX on all 64 bits to these rules.
 * Only these calls, because the line is for what the user will miss: tmux, ssh and ssh-add,
 * libdbus, GLib and Python ask for a blocking stream. Non-blocking ones are refused without it:
 * the C library's probe for nscd makes one on every user lookup (ls -l, id, git), and so do
 * systemd's NSS modules, which would print the line in nearly every run; so do Go and libuv
 * programs. Datagrams (syslog()) too: a lost log line is nothing to warn about. */
static int notify_unix_streams(scmp_filter_ctx ctx, uint32_t refuse)
{
        const int nr = SCMP_SYS(socket);
        const struct scmp_arg_cmp is_unix = {.arg = 0, .op = SCMP_CMP_EQ, .datum_a = AF_UNIX};
        int r;

        if ((r = notify_api()) < 0)
                return r;
        const struct scmp_arg_cmp notified[] = {
            is_unix,
            {.arg = 1,
             .op = SCMP_CMP_MASKED_EQ,
             .datum_a = SOCK_TYPE_BITS | SOCK_NONBLOCK,
             .datum_b = SOCK_STREAM},
            {.arg = 2, .op = SCMP_CMP_EQ, .datum_a = 0},
        };
        if ((r = seccomp_rule_add_exact_array(ctx, SCMP_ACT_NOTIFY, nr, ELEMENTSOF(notified),
                                              notified)) < 0)
                return r;
        const struct scmp_arg_cmp nonblocking[] = {
            is_unix,
            {.arg = 1,
             .op = SCMP_CMP_MASKED_EQ,
             .datum_a = SOCK_NONBLOCK,
             .datum_b = SOCK_NONBLOCK},
        };
        const struct scmp_arg_cmp protocol[] = {is_unix,
                                                {.arg = 2, .op = SCMP_CMP_NE, .datum_a = 0}};
        if ((r = seccomp_rule_add_exact_array(ctx, refuse, nr, 2, nonblocking)) < 0 ||
            (r = seccomp_rule_add_exact_array(ctx, refuse, nr, 2, protocol)) < 0)
                return r;
        /* Every type but SOCK_STREAM (the family compared on the low half: what the caller
         * refuses anyway). */
        return refuse_types(ctx, refuse, nr, AF_UNIX, 1, UINT32_C(1) << SOCK_STREAM);
}

/* The landlock backend's proxied mode: socket() makes a TCP stream of AF_INET or AF_INET6, and
 * of AF_UNIX a stream (@unix_types 1 << SOCK_STREAM: Landlock keeps the host's sockets out by
 * path) or a stream or seqpacket (the supervisor keeps them out:
 * cordon_seccomp_unix_supervised()); 0: no AF_UNIX. Everything else answers EACCES. Landlock's
 * TCP rule is what confines the TCP streams: a UDP socket, a raw one, an SCTP or MPTCP stream
 * (protocols Landlock's TCP hooks do not look at; SOCK_SEQPACKET of AF_INET is SCTP), a netlink,
 * packet or vsock one would pass beside it. Unix datagrams stay refused: a sendto() names its
 * destination in each call, past anything that checks a connect(). The family is compared as in
 * refuse_families(); the type as refuse_types() says, for each admitted family on its own; the
 * protocol must be 0 or IPPROTO_TCP, on all 64 bits (anything in the high half is a refusal,
 * never a way past). */
static int refuse_non_stream(scmp_filter_ctx ctx, uint32_t unix_types)
{
        const int nr = SCMP_SYS(socket);
        const uint32_t tcp = UINT32_C(1) << SOCK_STREAM;
        int r;
        /* AF_UNIX on the low half with garbage above is refused by the comparison ">= AF_INET6 +
         * 1" below. */
        for (uint32_t f = 0; f < AF_INET6; f++) {
                if (f == AF_INET || (unix_types && f == AF_UNIX))
                        continue;
                struct scmp_arg_cmp eq = {
                    .arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = UINT32_MAX, .datum_b = f};
                if ((r = seccomp_rule_add_exact_array(ctx, DENY_STREAM, nr, 1, &eq)) < 0)
                        return r;
        }
        struct scmp_arg_cmp above = {.arg = 0, .op = SCMP_CMP_GE, .datum_a = AF_INET6 + 1};
        if ((r = seccomp_rule_add_exact_array(ctx, DENY_STREAM, nr, 1, &above)) < 0)
                return r;
        if (unix_types == tcp || !unix_types) {
                /* One type for every family left. */
                if ((r = refuse_types(ctx, DENY_STREAM, nr, -1, 1, tcp)) < 0)
                        return r;
        } else if ((r = refuse_types(ctx, DENY_STREAM, nr, AF_INET, 1, tcp)) < 0 ||
                   (r = refuse_types(ctx, DENY_STREAM, nr, AF_INET6, 1, tcp)) < 0 ||
                   (r = refuse_types(ctx, DENY_STREAM, nr, AF_UNIX, 1, unix_types)) < 0)
                return r;
        struct scmp_arg_cmp proto = {.arg = 2, .op = SCMP_CMP_GT, .datum_a = IPPROTO_TCP};
        if ((r = seccomp_rule_add_exact_array(ctx, DENY_STREAM, nr, 1, &proto)) < 0)
                return r;
        for (uint64_t p = 1; p < IPPROTO_TCP; p++) {
                struct scmp_arg_cmp eq = {.arg = 2, .op = SCMP_CMP_EQ, .datum_a = p};
                if ((r = seccomp_rule_add_exact_array(ctx, DENY_STREAM, nr, 1, &eq)) < 0)
                        return r;
        }
        return 0;
}

/* socketpair(AF_UNIX) of a type other than SOCK_STREAM and SOCK_SEQPACKET answers EACCES
 * under every socket rule of the landlock backend: one end of a SOCK_DGRAM pair can sendto()
 * any pathname datagram socket of the host (/dev/log, journald, systemd's notify socket), which
 * Landlock before LANDLOCK_ACCESS_FS_RESOLVE_UNIX does not govern; a connected stream or
 * seqpacket end cannot be pointed anywhere else. */
static int refuse_datagram_pairs(scmp_filter_ctx ctx)
{
        return refuse_types(ctx, DENY_STREAM, SCMP_SYS(socketpair), AF_UNIX, 1,
                            UINT32_C(1) << SOCK_STREAM | UINT32_C(1) << SOCK_SEQPACKET);
}

/* What the stream rules refuse besides socket() and datagram pairs (EACCES), the two ways a
 * TCP socket gets past Landlock's TCP rule:
 *  - listen(): on a TCP socket never bound it binds a port of its own (inet_autobind), on every
 *    address, past Landlock's bind rule, which only sees bind(). With @listen_notified (the
 *    supervisor's unix sockets) it goes to the supervisor instead, which makes it on a unix
 *    socket only (add_notify_rules()).
 *  - sendto(), sendmsg(), sendmmsg() with MSG_FASTOPEN: TCP Fast Open connects inside the send,
 *    past the connect hook Landlock's TCP rule sits on (checked on Linux 6.18: the SYN goes to
 *    any port). The flags are an int to the kernel: the bit is compared on the low half.
 * Under NO_SOCKET the command makes no TCP socket, so it needs neither. */
static int refuse_tcp_escapes(scmp_filter_ctx ctx, bool listen_notified)
{
        int r;
        if (!listen_notified &&
            (r = seccomp_rule_add_exact(ctx, DENY_STREAM, SCMP_SYS(listen), 0)) < 0)
                return r;
        static const struct {
                int nr;
                unsigned flags_arg;
        } sends[] = {{SCMP_SYS(sendto), 3}, {SCMP_SYS(sendmsg), 2}, {SCMP_SYS(sendmmsg), 3}};
        for (size_t i = 0; i < ELEMENTSOF(sends); i++) {
                struct scmp_arg_cmp fo = {.arg = sends[i].flags_arg,
                                          .op = SCMP_CMP_MASKED_EQ,
                                          .datum_a = MSG_FASTOPEN,
                                          .datum_b = MSG_FASTOPEN};
                if ((r = seccomp_rule_add_exact_array(ctx, DENY_STREAM, sends[i].nr, 1, &fo)) < 0)
                        return r;
        }
        return 0;
}

static int add_deny_list(scmp_filter_ctx ctx)
{
        int r;

        if ((r = deny_all(ctx, denied_always, ELEMENTSOF(denied_always))) < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(clone_ns_flags); i++) {
                uint32_t f = clone_ns_flags[i];
                if ((r = deny_masked(ctx, SCMP_SYS(clone), 0, f, f)) < 0)
                        return r;
        }
        /* ENOSYS, not EPERM: libc (pthread_create, posix_spawn) then falls back to clone(), whose
         * flags sit in a register the filter can read; clone3() passes them in memory. */
        if ((r = seccomp_rule_add_exact(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0)) < 0)
                return r;
        /* personality(): only PER_LINUX (0) and the query 0xffffffff. Other personas turn off
         * ASLR (ADDR_NO_RANDOMIZE) or make PROT_READ imply PROT_EXEC (READ_IMPLIES_EXEC).
         * libseccomp compares an argument once per rule, so "neither all zeros nor all ones" is
         * spelled as a union: any other 32-bit value has some bit i set whose cyclic neighbour
         * i+1 is clear, and each of the 32 rules matches one such pair. */
        for (unsigned i = 0; i < 32; i++) {
                uint32_t bit = UINT32_C(1) << i, next = UINT32_C(1) << ((i + 1) % 32);
                if ((r = deny_masked(ctx, SCMP_SYS(personality), 0, bit | next, bit)) < 0)
                        return r;
        }
        /* Pushing input into a terminal (TIOCSTI) or pasting a console selection (TIOCLINUX
         * subcode TIOCL_PASTESEL) makes the shell that owns the terminal run it after exit.
         * Changing its line discipline (TIOCSETD: N_HDLC, N_PPP...) leaves the terminal the
         * command shares under --no-pty unusable after exit, and loads rarely used kernel code. */
        if ((r = deny_masked(ctx, SCMP_SYS(ioctl), 1, UINT32_MAX, TIOCSTI)) < 0 ||
            (r = deny_masked(ctx, SCMP_SYS(ioctl), 1, UINT32_MAX, TIOCLINUX)) < 0 ||
            (r = deny_masked(ctx, SCMP_SYS(ioctl), 1, UINT32_MAX, TIOCSETD)) < 0)
                return r;
        return 0;
}

static int add_rules(scmp_filter_ctx ctx, const struct cordon_seccomp_key *k)
{
        const enum cordon_seccomp_tier tier = k->tier;
        const enum cordon_seccomp_net net = k->net;
        const bool notify_unix = cordon_seccomp_unix_notified(k) != 0;
        int r;

        if (tier == CORDON_SECCOMP_TIER_FULL && (r = add_deny_list(ctx)) < 0)
                return r;
        switch (net) {
        case CORDON_SECCOMP_NET_ANY:
                return 0;
        case CORDON_SECCOMP_NET_OPEN_UNIX:
                /* AF_UNIX only (the family on its low half, as the kernel reads it): stream and
                 * seqpacket for the supervisor to keep to the command's own, or none where
                 * nothing checks their connect(). */
                if (cordon_seccomp_unix_supervised(k))
                        r = refuse_types(ctx, DENY_STREAM, SCMP_SYS(socket), AF_UNIX, 1,
                                         UINT32_C(1) << SOCK_STREAM | UINT32_C(1)
                                                                          << SOCK_SEQPACKET);
                else {
                        struct scmp_arg_cmp is_unix = {.arg = 0,
                                                       .op = SCMP_CMP_MASKED_EQ,
                                                       .datum_a = UINT32_MAX,
                                                       .datum_b = AF_UNIX};
                        r = seccomp_rule_add_exact_array(ctx, DENY_STREAM, SCMP_SYS(socket), 1,
                                                         &is_unix);
                }
                if (r >= 0)
                        r = refuse_datagram_pairs(ctx);
                /* IORING_OP_CONNECT would connect past the supervisor. */
                if (r >= 0 && tier == CORDON_SECCOMP_TIER_NET_ONLY)
                        r = deny_all(ctx, denied_io_uring, ELEMENTSOF(denied_io_uring));
                break;
        case CORDON_SECCOMP_NET_NONE:
                /* Every call refused whatever its family gets no family rules on top; io_uring
                 * (IORING_OP_SOCKET, _CONNECT, _SEND...) goes with them, as for NO_SOCKET. */
                r = deny_all(ctx, denied_network, ELEMENTSOF(denied_network));
                if (r >= 0 && tier == CORDON_SECCOMP_TIER_NET_ONLY)
                        r = deny_all(ctx, denied_io_uring, ELEMENTSOF(denied_io_uring));
                return r;
        case CORDON_SECCOMP_NET_STREAM_UNIX:
        case CORDON_SECCOMP_NET_STREAM_INET: {
                const bool supervised = cordon_seccomp_unix_supervised(k);
                uint32_t unix_types = 0;
                if (net == CORDON_SECCOMP_NET_STREAM_UNIX)
                        unix_types = UINT32_C(1) << SOCK_STREAM;
                else if (supervised)
                        unix_types = UINT32_C(1) << SOCK_STREAM | UINT32_C(1) << SOCK_SEQPACKET;
                r = refuse_non_stream(ctx, unix_types);
                if (r >= 0)
                        r = refuse_datagram_pairs(ctx);
                if (r >= 0)
                        r = refuse_tcp_escapes(ctx, supervised);
                if (r >= 0 && tier == CORDON_SECCOMP_TIER_NET_ONLY)
                        r = deny_all(ctx, denied_io_uring, ELEMENTSOF(denied_io_uring));
                break;
        }
        case CORDON_SECCOMP_NET_NO_SOCKET:
                /* io_uring goes with socket(): IORING_OP_SOCKET makes a socket inside the kernel,
                 * where this filter never looks, and the filter without the deny list (the
                 * unrestricted profile) would leave it open. */
                if (notify_unix) {
                        /* Every family but AF_UNIX (on all 64 bits) here, AF_UNIX there. */
                        struct scmp_arg_cmp other = {
                            .arg = 0, .op = SCMP_CMP_NE, .datum_a = AF_UNIX};
                        r = seccomp_rule_add_exact_array(ctx, DENY, SCMP_SYS(socket), 1, &other);
                        if (r >= 0)
                                r = notify_unix_streams(ctx, DENY);
                } else
                        r = seccomp_rule_add_exact(ctx, DENY, SCMP_SYS(socket), 0);
                if (r >= 0)
                        r = refuse_datagram_pairs(ctx);
                if (r >= 0 && tier == CORDON_SECCOMP_TIER_NET_ONLY)
                        r = deny_all(ctx, denied_io_uring, ELEMENTSOF(denied_io_uring));
                break;
        case CORDON_SECCOMP_NET_FAMILIES:
                r = refuse_families(ctx, SCMP_SYS(socket), false);
                /* The same for the families: IORING_OP_SOCKET takes any of them. */
                if (r >= 0 && tier == CORDON_SECCOMP_TIER_NET_ONLY)
                        r = deny_all(ctx, denied_io_uring, ELEMENTSOF(denied_io_uring));
                break;
        default:
                return -EINVAL;
        }
        if (r < 0)
                return r;
        return refuse_families(ctx, SCMP_SYS(socketpair), true);
}

/* The landlock backend's notifications (launch/notify.c): the calls the supervisor answers on
 * the command's behalf or explains (the refused unix socket has its rule with the socket rules,
 * notify_unix_streams()). The deny rules above never overlap them (TIOCGPTPEER is
 * none of the refused ioctls; the file calls have no deny rule), so no precedence question
 * arises inside the filter; across filters the kernel takes the stricter action, and an errno
 * beats a notification. A call that dodges a rule (flags in a register the rule does not read,
 * openat2's flags in memory) just runs as it would without it: Landlock still decides. */
static const int notified_always[] = {
    SCMP_SYS(creat),  SCMP_SYS(mkdir),  SCMP_SYS(mkdirat),  SCMP_SYS(link),
    SCMP_SYS(linkat), SCMP_SYS(unlink), SCMP_SYS(unlinkat),
};

static int notify_masked(scmp_filter_ctx ctx, int nr, unsigned arg, uint32_t mask, uint32_t value)
{
        /* Low 32 bits, as the kernel reads the flags and the request (see deny_masked()). */
        struct scmp_arg_cmp cmp = {
            .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask, .datum_b = value};
        return seccomp_rule_add_exact_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &cmp);
}

static int add_notify_rules(scmp_filter_ctx ctx, const struct cordon_seccomp_key *k)
{
        int r;

        if ((r = notify_api()) < 0)
                return r;
        /* A pty's other end, which Landlock keeps closed by name (/dev/pts/N). */
        if ((r = notify_masked(ctx, SCMP_SYS(ioctl), 1, UINT32_MAX, TIOCGPTPEER)) < 0)
                return r;
        /* Creating files: /dev/shm/NAME for the private shm directory, /tmp for the note. */
        if ((r = notify_masked(ctx, SCMP_SYS(open), 1, O_CREAT, O_CREAT)) < 0 ||
            (r = notify_masked(ctx, SCMP_SYS(openat), 2, O_CREAT, O_CREAT)) < 0)
                return r;
        /* Opening an existing /dev/shm/NAME: glibc's shm_open() and sem_open() always pass
         * O_NOFOLLOW, so an open with O_NOFOLLOW and without O_CREAT reaches the supervisor,
         * which serves the name from the private directory (another process's sem_open() of
         * a Pool's lock, SharedMemory(name=...)). Not with O_DIRECTORY: fts (rm -r, find, du)
         * opens every directory it walks with O_NOFOLLOW|O_DIRECTORY, and a /dev/shm name is
         * never a directory. O_CREAT is in the mask with value 0, so this rule and the one
         * above are disjoint. openat2 is notified by neither: its flags are in memory, and
         * without the supervisor Landlock refuses /dev/shm as before. */
        const uint32_t nofollow_mask = O_CREAT | O_NOFOLLOW | O_DIRECTORY;
        if ((r = notify_masked(ctx, SCMP_SYS(open), 1, nofollow_mask, O_NOFOLLOW)) < 0 ||
            (r = notify_masked(ctx, SCMP_SYS(openat), 2, nofollow_mask, O_NOFOLLOW)) < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(notified_always); i++)
                if ((r = seccomp_rule_add_exact(ctx, SCMP_ACT_NOTIFY, notified_always[i], 0)) < 0)
                        return r;
        /* Proxied and open modes without a network namespace: every connect(), whatever the
         * socket (the filter sees a descriptor number, not what it is). Their socket rules
         * refuse nothing of connect(), bind() or listen(), so the rules stay disjoint. */
        if (cordon_seccomp_connect_notified(k) &&
            (r = seccomp_rule_add_exact(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0)) < 0)
                return r;
        /* The command's own unix sockets: bind() to record which socket is the command's (the
         * kernel then binds it, under Landlock's rule for making a socket file), listen() to
         * make it on a unix socket only (refuse_tcp_escapes() leaves it out). */
        if (cordon_seccomp_unix_supervised(k) &&
            ((r = seccomp_rule_add_exact(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(bind), 0)) < 0 ||
             (r = seccomp_rule_add_exact(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(listen), 0)) < 0))
                return r;
        return 0;
}

/* libseccomp 2.5 has no export into memory: the program goes through a memfd. */
int cordon_seccomp_export(void *ctx, struct cordon_bpf *ret)
{
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ struct sock_filter *insns = NULL;
        struct stat st;
        int r;

        fd = memfd_create("cordon-seccomp", MFD_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if ((r = seccomp_export_bpf(ctx, fd)) < 0)
                return r;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0)
                return -EIO;
        size_t n = (size_t)st.st_size / sizeof(struct sock_filter);
        if (n > BPF_MAXINSNS)
                return -E2BIG;

        insns = malloc((size_t)st.st_size);
        if (!insns)
                return -ENOMEM;
        for (size_t done = 0; done < (size_t)st.st_size;) {
                ssize_t k = pread(fd, (char *)insns + done, (size_t)st.st_size - done, (off_t)done);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        return -EIO;
                done += (size_t)k;
        }
        *ret = (struct cordon_bpf){.insns = TAKE_PTR(insns), .len = (unsigned short)n};
        return 0;
}

int cordon_seccomp_compile(const struct cordon_seccomp_key *k, struct cordon_bpf *ret)
{
        _cleanup_(seccomp_releasep) scmp_filter_ctx ctx = NULL;
        struct cordon_seccomp_key key = k ? *k : (struct cordon_seccomp_key){0};
        int r;

        if (!ret || cordon_seccomp_program(&key) < 0)
                return -EINVAL;
        ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx)
                return -ENOMEM;
        /* Real errnos from libseccomp instead of its catch-all -ECANCELED. */
        if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1)) < 0)
                return r;
        /* Foreign ABIs answer EPERM to every call: i386 through int 0x80 (arch AUDIT_ARCH_I386)
         * and x32 (arch AUDIT_ARCH_X86_64, numbers with __X32_SYSCALL_BIT, which libseccomp
         * checks in every x86_64 filter that has no x32 arch). The filter only knows the
         * native numbers, so another ABI would walk around every rule. libseccomp's default
         * here is to kill the thread; an errno keeps "never kill". */
        if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, DENY)) < 0)
                return r;
        /* A binary tree of syscall numbers instead of a linear scan: every system call the
         * command makes runs the filter, so its depth is paid over and over. */
        if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0)
                return r;
        if ((r = add_rules(ctx, &key)) < 0)
                return r;
        if (key.notify && (r = add_notify_rules(ctx, &key)) < 0)
                return r;
        return cordon_seccomp_export(ctx, ret);
}
