/* The seccomp layer: a deny-list filter built with libseccomp in the supervisor and installed
 * by the child with one prctl() just before exec. Denials answer an errno; nothing is killed. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>

struct cordon_seccomp_opts {
        /* side_effect_level below `network`: socket, socketpair, connect, accept, accept4, bind,
         * listen, sendto, sendmsg, recvfrom, recvmsg fail with EPERM. */
        bool deny_network;
        /* The landlock backend in isolated mode (no network namespace to do the job): socket()
         * fails with EPERM for every address family, and so do the io_uring calls, whose
         * IORING_OP_SOCKET would make one past the filter; socketpair() keeps working. */
        bool deny_socket_create;
        /* The network is isolated: socket() answers EAFNOSUPPORT for every family but AF_UNIX,
         * AF_INET, AF_INET6 and AF_NETLINK (the ones a network namespace confines), and
         * socketpair() for every family but AF_UNIX. AF_VSOCK, for one, has no namespace. */
        bool restrict_socket_families;
        /* Leave out the always-denied list (the unrestricted profile): only the socket rules
         * above, and the refusal of foreign ABIs that keeps them from being walked around. */
        bool network_rules_only;
};

/* A compiled filter program, owned by the holder. */
struct cordon_bpf {
        struct sock_filter *insns;
        unsigned short len;
};

/* Parent side. The filter for the native architecture as a BPF program. The programs are
 * compiled with libseccomp when cordon is built (seccomp-gen, seccomp-table.c), so a launch only
 * copies one; cordon_seccomp_compile() does the libseccomp work itself (the generator and the
 * tests use it). Both return 0, -ENOMEM, or the -errno libseccomp reported. On success the
 * caller owns @ret and releases it with cordon_bpf_clear(). Safe in a multi-threaded process. */
int cordon_seccomp_build(const struct cordon_seccomp_opts *o, struct cordon_bpf *ret);
int cordon_seccomp_compile(const struct cordon_seccomp_opts *o, struct cordon_bpf *ret);
/* The index of @o among the generated programs (0..CORDON_SECCOMP_VARIANTS-1). */
#define CORDON_SECCOMP_VARIANTS 16
static inline unsigned cordon_seccomp_variant(const struct cordon_seccomp_opts *o)
{
        if (!o)
                return 0;
        return (o->deny_network ? 1u : 0) | (o->deny_socket_create ? 2u : 0) |
               (o->network_rules_only ? 4u : 0) | (o->restrict_socket_families ? 8u : 0);
}
void cordon_bpf_clear(struct cordon_bpf *b);

/* Child side. Installs @b for the calling thread. No-new-privs must already be set (otherwise
 * -EACCES from the kernel). Async-signal-safe: no allocation. Returns 0 or -errno. */
int cordon_seccomp_install(const struct cordon_bpf *b);

/* Whether this kernel can install seccomp filters at all. */
bool cordon_seccomp_available(void);
