/* The control channel between the supervisor and the sandbox's first process (PID 1, or the
 * landlock backend's reaper and its command until the exec; in a session, the process that
 * serves commands): one SOCK_SEQPACKET socket pair, close-on-exec, carrying typed messages. It
 * lives as long as the sandbox: its end of file means only that a side died (the child sees it
 * when the supervisor died, the supervisor when the sandbox did). That the command has exec'd
 * is a message of its own (CORDON_CONTROL_STARTED), sent once the command's own close-on-exec
 * status channel (another pair) read end of file. */
#pragma once

#include <stddef.h>
#include <stdint.h>

enum cordon_control_type {
        CORDON_CONTROL_RELEASE = 1, /* supervisor -> child: the parent steps are done, go on */
        CORDON_CONTROL_REPORT,      /* child -> supervisor: a step failed {step, err, rule} */
        CORDON_CONTROL_FD,          /* child -> supervisor: a descriptor (SCM_RIGHTS) of a kind */
        CORDON_CONTROL_STARTED,     /* inside -> supervisor: command {id} has exec'd (id 0: the
                                     * sandbox's own command, or a session is serving), with
                                     * a pidfd of it {fd} or none (-1) */
        CORDON_CONTROL_FAILED,      /* inside -> supervisor: command {id} did not start
                                     * {step, err} */
        CORDON_CONTROL_EXITED,      /* inside -> supervisor: command {id} ended, wait {status} */
        CORDON_CONTROL_EXEC,        /* supervisor -> inside: start command {id, flags}: the
                                     * payload is an exec request (control-exec.h), with up to
                                     * three descriptors {n_fds} for its fds 0..2 */
        CORDON_CONTROL_SIGNAL,      /* supervisor -> inside: {sig} to command {id}'s process
                                     * group (id 0: to every command) */
        CORDON_CONTROL_SUSPEND,     /* supervisor -> inside: stop every process of the sandbox */
        CORDON_CONTROL_RESUME,      /* supervisor -> inside: continue them */
        CORDON_CONTROL_DONE,        /* inside -> supervisor: a SUSPEND or RESUME is done {err} */
        _CORDON_CONTROL_TYPE_MAX,
};

/* What a CORDON_CONTROL_FD message carries. */
enum cordon_control_fd_kind {
        CORDON_CONTROL_FD_PTY_MASTER = 1, /* the master of the pty PID 1 made in the sandbox */
        CORDON_CONTROL_FD_PROXY_LISTENER, /* the egress proxy's listening socket, inside */
        CORDON_CONTROL_FD_SECCOMP_NOTIFY, /* landlock backend: the seccomp listener */
        CORDON_CONTROL_FD_DNS_SOCKET,     /* filtered mode: the resolver's UDP socket, inside */
        CORDON_CONTROL_FD_USERNS,         /* a session under the ns backend: its user namespace */
        CORDON_CONTROL_FD_MNTNS,          /* and its mount namespace (cordon_sandbox_attach()) */
        CORDON_CONTROL_FD_NETNS,          /* and its network namespace, when it has one */
};

/* Flags of a CORDON_CONTROL_EXEC. */
enum {
        /* fds 0..2 are one terminal's slave: the command gets a session of its own with it as
         * its controlling terminal. */
        CORDON_CONTROL_EXEC_PTY = 1u << 0,
};

/* The most a message's payload may hold (an exec request's argv, environment and cwd). */
#define CORDON_CONTROL_PAYLOAD_MAX (128u * 1024)
/* The most descriptors a message carries. */
#define CORDON_CONTROL_FDS_MAX 3

/* One message's header, as it travels (fixed size; descriptors travel beside it, a payload
 * after it). Fields a type does not use are 0 (fd, fds: -1). */
struct cordon_control_msg {
        uint32_t type;        /* enum cordon_control_type */
        int32_t step;         /* REPORT, FAILED: enum cordon_step */
        int32_t err;          /* REPORT, FAILED, DONE: a positive errno (0: none) */
        int32_t rule;         /* REPORT: the index of the rule the step failed on, or -1 */
        uint32_t kind;        /* FD: enum cordon_control_fd_kind */
        int32_t fd;           /* FD, STARTED: the descriptor (on receipt: a new one,
                               * close-on-exec, owned; STARTED: -1 for none) */
        uint32_t id;          /* STARTED, FAILED, EXITED, EXEC, SIGNAL: the command */
        int32_t pid;          /* STARTED: the command's pid as the inside sees it */
        int32_t status;       /* EXITED: its wait status */
        int32_t sig;          /* SIGNAL */
        uint32_t flags;       /* EXEC: CORDON_CONTROL_EXEC_* */
        uint32_t n_fds;       /* EXEC: how many of @fds */
        uint32_t payload_len; /* EXEC: bytes after the header */
        int32_t fds[CORDON_CONTROL_FDS_MAX]; /* EXEC: on receipt new descriptors, owned */
};

/* Creates the pair: [0] the supervisor's end, [1] the child's. Returns 0 or -errno. */
int cordon_control_pair(int ret[2]);

/* Sends @m on @sock; for CORDON_CONTROL_FD, @m->fd is passed (and stays open here). Only
 * sendmsg(): async-signal-safe, allocates nothing, for the child between clone and exec.
 * Returns 0 or -errno (-EPIPE when the other end is gone). */
int cordon_control_send(int sock, const struct cordon_control_msg *m);
/* The same with @len bytes of @payload after the header (@m->payload_len is set from @len) and,
 * for CORDON_CONTROL_EXEC, @m->n_fds descriptors of @m->fds passed. @len at most
 * CORDON_CONTROL_PAYLOAD_MAX (-EMSGSIZE). */
int cordon_control_send_payload(int sock, const struct cordon_control_msg *m, const void *payload,
                                size_t len);

/* Sends @m, which carries no descriptor and no payload, with write(): on the channel (one
 * record) or on a command's status pipe. For the inside, whose seccomp filter may refuse the
 * socket calls (SIDE_EFFECT_LEVEL process_exec) but never write(). Returns 0 or -errno. */
int cordon_control_write(int fd, const struct cordon_control_msg *m);
/* Sends a CORDON_CONTROL_REPORT with cordon_control_write() (@err may be given either sign). */
int cordon_control_report(int sock, int step, int err, int rule);

/* Receives one message into @ret (blocking unless @flags has MSG_DONTWAIT). A message with a
 * descriptor that is not a CORDON_CONTROL_FD, a truncated one, one with a payload or one of an
 * unknown type is refused (its descriptors closed). Only recvmsg() (and close() on refusal), so
 * it writes errno only on failure. Returns 1 with a message, 0 at end of file, or -errno
 * (-EBADMSG for a refused message, -EAGAIN with MSG_DONTWAIT and nothing queued). The other
 * end closed with a message unread: what it sent, then end of file (the kernel's ECONNRESET is
 * passed over). */
int cordon_control_recv(int sock, int flags, struct cordon_control_msg *ret);
/* The same, also taking a CORDON_CONTROL_EXEC: its payload into @buf (@cap bytes, at least
 * the payload's length, else -EBADMSG) and its descriptors into @ret->fds. */
int cordon_control_recv_payload(int sock, int flags, struct cordon_control_msg *ret, void *buf,
                                size_t cap);
