/* The control channel between the supervisor and the sandbox's first process (PID 1, or the
 * landlock backend's reaper and its command until the exec): one SOCK_SEQPACKET socket pair,
 * close-on-exec, carrying typed messages. Its end of file is the lifeline: the child sees it when
 * the supervisor died, the supervisor when the command has executed (every copy of the child's
 * end is closed on exec) or the child died. */
#pragma once

#include <stdint.h>

enum cordon_control_type {
        CORDON_CONTROL_RELEASE = 1, /* supervisor -> child: the parent steps are done, go on */
        CORDON_CONTROL_REPORT,      /* child -> supervisor: a step failed {step, err, rule} */
        CORDON_CONTROL_FD,          /* child -> supervisor: a descriptor (SCM_RIGHTS) of a kind */
};

/* What a CORDON_CONTROL_FD message carries. */
enum cordon_control_fd_kind {
        CORDON_CONTROL_FD_PTY_MASTER = 1, /* the master of the pty PID 1 made in the sandbox */
        CORDON_CONTROL_FD_PROXY_LISTENER, /* the egress proxy's listening socket, inside */
        CORDON_CONTROL_FD_SECCOMP_NOTIFY, /* landlock backend: the seccomp listener */
        CORDON_CONTROL_FD_DNS_SOCKET,     /* filtered mode: the resolver's UDP socket, inside */
};

/* One message, as it travels (fixed size; the descriptor travels beside it). */
struct cordon_control_msg {
        uint32_t type; /* enum cordon_control_type */
        int32_t step;  /* REPORT: enum cordon_step */
        int32_t err;   /* REPORT: a positive errno */
        int32_t rule;  /* REPORT: the index of the rule the step failed on, or -1 */
        uint32_t kind; /* FD: enum cordon_control_fd_kind */
        int32_t fd;    /* FD: the descriptor (on receipt: a new one, close-on-exec, owned) */
};

/* Creates the pair: [0] the supervisor's end, [1] the child's. Returns 0 or -errno. */
int cordon_control_pair(int ret[2]);

/* Sends @m on @sock; for CORDON_CONTROL_FD, @m->fd is passed (and stays open here). Only
 * sendmsg(): async-signal-safe, allocates nothing, for the child between clone and exec.
 * Returns 0 or -errno (-EPIPE when the other end is gone). */
int cordon_control_send(int sock, const struct cordon_control_msg *m);

/* Sends a CORDON_CONTROL_REPORT (@err may be given either sign). */
int cordon_control_report(int sock, int step, int err, int rule);

/* Receives one message into @ret (blocking unless @flags has MSG_DONTWAIT). A message with a
 * descriptor that is not a CORDON_CONTROL_FD, a truncated one or one of an unknown type is
 * refused (its descriptor closed). Only recvmsg() (and close() on refusal), so it writes errno
 * only on failure. Returns 1 with a message, 0 at end of file, or -errno (-EBADMSG for a
 * refused message, -EAGAIN with MSG_DONTWAIT and nothing queued). The other end closed with a
 * message unread: what it sent, then end of file (the kernel's ECONNRESET is passed over). */
int cordon_control_recv(int sock, int flags, struct cordon_control_msg *ret);
