/* Unit tests for src/lib/launch/control.c: the control channel's messages (release, report, an fd
 * with its kind), end of file as the lifeline, and the refusal of malformed messages. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "lib/launch/control.h"
#include "lib/launch/control-exec.h"

static int pair[2];

static void setup(void)
{
        cr_assert_eq(cordon_control_pair(pair), 0);
}

static void teardown(void)
{
        close(pair[0]);
        if (pair[1] >= 0)
                close(pair[1]);
}

TestSuite(control, .init = setup, .fini = teardown);

Test(control, pair_is_seqpacket_and_close_on_exec)
{
        int type;
        socklen_t len = sizeof(type);
        cr_assert_eq(getsockopt(pair[0], SOL_SOCKET, SO_TYPE, &type, &len), 0);
        cr_assert_eq(type, SOCK_SEQPACKET);
        cr_assert(fcntl(pair[0], F_GETFD) & FD_CLOEXEC);
        cr_assert(fcntl(pair[1], F_GETFD) & FD_CLOEXEC);
}

Test(control, release_and_report_keep_their_fields_and_boundaries)
{
        struct cordon_control_msg rel = {.type = CORDON_CONTROL_RELEASE, .fd = -1};
        cr_assert_eq(cordon_control_send(pair[0], &rel), 0);
        cr_assert_eq(cordon_control_report(pair[1], CORDON_STEP_MOUNT, -ENOENT, 7), 0);
        cr_assert_eq(cordon_control_report(pair[1], CORDON_STEP_EXEC, EACCES, -1), 0);

        struct cordon_control_msg m;
        cr_assert_eq(cordon_control_recv(pair[1], 0, &m), 1);
        cr_assert_eq(m.type, CORDON_CONTROL_RELEASE);
        cr_assert_eq(m.fd, -1);
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 1);
        cr_assert_eq(m.type, CORDON_CONTROL_REPORT);
        cr_assert_eq(m.step, CORDON_STEP_MOUNT);
        cr_assert_eq(m.err, ENOENT, "the errno travels positive whatever its sign");
        cr_assert_eq(m.rule, 7);
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 1);
        cr_assert_eq(m.step, CORDON_STEP_EXEC);
        cr_assert_eq(m.err, EACCES);
        cr_assert_eq(m.rule, -1);
        cr_assert_eq(cordon_control_recv(pair[0], MSG_DONTWAIT, &m), -EAGAIN);
}

Test(control, an_fd_arrives_usable_close_on_exec_with_its_kind)
{
        int p[2];
        cr_assert_eq(pipe(p), 0);
        struct cordon_control_msg out = {
            .type = CORDON_CONTROL_FD, .kind = CORDON_CONTROL_FD_PTY_MASTER, .fd = p[1]};
        cr_assert_eq(cordon_control_send(pair[1], &out), 0);
        close(p[1]);
        struct cordon_control_msg m;
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 1);
        cr_assert_eq(m.type, CORDON_CONTROL_FD);
        cr_assert_eq(m.kind, CORDON_CONTROL_FD_PTY_MASTER);
        cr_assert_geq(m.fd, 0);
        cr_assert(fcntl(m.fd, F_GETFD) & FD_CLOEXEC);
        cr_assert_eq(write(m.fd, "x", 1), 1);
        char c;
        cr_assert_eq(read(p[0], &c, 1), 1);
        cr_assert_eq(c, 'x');
        close(m.fd);
        close(p[0]);
}

Test(control, fd_message_without_fd_is_not_sent)
{
        struct cordon_control_msg out = {.type = CORDON_CONTROL_FD, .fd = -1};
        cr_assert_eq(cordon_control_send(pair[1], &out), -EBADF);
}

/* The lifeline: once every copy of one end is closed, the other reads end of file. */
Test(control, closed_peer_is_end_of_file)
{
        close(pair[1]);
        pair[1] = -1;
        struct cordon_control_msg m;
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 0);
        struct cordon_control_msg rel = {.type = CORDON_CONTROL_RELEASE, .fd = -1};
        cr_assert_eq(cordon_control_send(pair[0], &rel), -EPIPE);
}

/* The peer sent a report, was sent a release it never read, and closed: the report still
 * arrives, then end of file (the kernel's ECONNRESET, which comes first, is passed over), as
 * when the filtered mode's child went on without the second release. */
Test(control, peer_closed_with_a_message_unread_is_end_of_file)
{
        struct cordon_control_msg rep = {
            .type = CORDON_CONTROL_REPORT, .step = 3, .err = 5, .fd = -1};
        struct cordon_control_msg rel = {.type = CORDON_CONTROL_RELEASE, .fd = -1};
        cr_assert_eq(cordon_control_send(pair[1], &rep), 0);
        cr_assert_eq(cordon_control_send(pair[0], &rel), 0);
        close(pair[1]);
        pair[1] = -1;
        struct cordon_control_msg m;
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 1);
        cr_expect_eq(m.type, CORDON_CONTROL_REPORT);
        cr_expect_eq(m.step, 3);
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 0);
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 0);
}

Test(control, malformed_messages_are_refused)
{
        struct cordon_control_msg m;
        /* Too short. */
        cr_assert_eq(send(pair[1], "abc", 3, 0), 3);
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), -EBADMSG);
        /* An unknown type. */
        struct cordon_control_msg bad = {.type = 99, .fd = -1};
        cr_assert_eq(send(pair[1], &bad, sizeof(bad), 0), (ssize_t)sizeof(bad));
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), -EBADMSG);
        /* A descriptor riding on a report: refused, and not left open. */
        int p[2];
        cr_assert_eq(pipe(p), 0);
        struct cordon_control_msg rep = {.type = CORDON_CONTROL_REPORT, .fd = -1};
        char buf[CMSG_SPACE(sizeof(int))] = {0};
        struct iovec iov = {.iov_base = &rep, .iov_len = sizeof(rep)};
        struct msghdr mh = {
            .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof(buf)};
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &p[0], sizeof(int));
        cr_assert_eq(sendmsg(pair[1], &mh, 0), (ssize_t)sizeof(rep));
        close(p[0]);
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), -EBADMSG);
        /* Its copy was closed: the pipe's read side is gone, so writing fails. */
        signal(SIGPIPE, SIG_IGN);
        cr_assert_eq(write(p[1], "x", 1), -1);
        cr_assert_eq(errno, EPIPE);
        close(p[1]);
        /* The channel still works afterwards. */
        cr_assert_eq(cordon_control_report(pair[1], CORDON_STEP_FORK, EAGAIN, -1), 0);
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 1);
        cr_assert_eq(m.step, CORDON_STEP_FORK);
}

/* A session's request: header, payload and three descriptors arrive together; the plain
 * receive (the supervisor's side, which never takes a payload) refuses it and closes them. */
Test(control, exec_carries_payload_and_three_fds)
{
        int p[2];
        cr_assert_eq(pipe(p), 0);
        struct cordon_control_msg out = {.type = CORDON_CONTROL_EXEC,
                                         .id = 9,
                                         .flags = CORDON_CONTROL_EXEC_PTY,
                                         .n_fds = 3,
                                         .fds = {p[0], p[1], p[1]},
                                         .fd = -1};
        cr_assert_eq(cordon_control_send_payload(pair[0], &out, "abc", 3), 0);
        char buf[16];
        struct cordon_control_msg m;
        cr_assert_eq(cordon_control_recv_payload(pair[1], 0, &m, buf, sizeof(buf)), 1);
        cr_assert_eq(m.type, CORDON_CONTROL_EXEC);
        cr_assert_eq(m.id, 9);
        cr_assert_eq(m.flags, CORDON_CONTROL_EXEC_PTY);
        cr_assert_eq(m.payload_len, 3);
        cr_assert_eq(memcmp(buf, "abc", 3), 0);
        cr_assert_eq(m.n_fds, 3);
        for (int i = 0; i < 3; i++) {
                cr_assert_geq(m.fds[i], 0);
                cr_assert(fcntl(m.fds[i], F_GETFD) & FD_CLOEXEC);
                close(m.fds[i]);
        }
        /* The same on the plain receive: refused. */
        cr_assert_eq(cordon_control_send_payload(pair[0], &out, "abc", 3), 0);
        cr_assert_eq(cordon_control_recv(pair[1], 0, &m), -EBADMSG);
        close(p[0]);
        close(p[1]);
        /* A payload that does not fit the buffer is refused, not cut. */
        out.n_fds = 0;
        cr_assert_eq(cordon_control_send_payload(pair[0], &out, "0123456789abcdefXYZ", 19), 0);
        cr_assert_eq(cordon_control_recv_payload(pair[1], 0, &m, buf, sizeof(buf)), -EBADMSG);
        /* Over the limit: not sent. */
        static char big[CORDON_CONTROL_PAYLOAD_MAX + 1];
        cr_assert_eq(cordon_control_send_payload(pair[0], &out, big, sizeof(big)), -EMSGSIZE);
}

/* Messages from the inside are hostile: a payload on a type without one, descriptors a type
 * does not bring, and an EXEC whose n_fds lies are refused with their descriptors closed. */
Test(control, lies_about_payload_and_fds_are_refused)
{
        struct cordon_control_msg m;
        struct cordon_control_msg ex = {.type = CORDON_CONTROL_EXITED, .id = 1, .fd = -1};
        cr_assert_eq(cordon_control_send_payload(pair[1], &ex, "x", 1), 0);
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), -EBADMSG);
        /* payload_len that does not match what came. */
        struct cordon_control_msg hdr = {.type = CORDON_CONTROL_EXITED, .payload_len = 5, .fd = -1};
        cr_assert_eq(send(pair[1], &hdr, sizeof(hdr), 0), (ssize_t)sizeof(hdr));
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), -EBADMSG);
        /* An EXEC claiming two descriptors and bringing one. */
        int p[2];
        cr_assert_eq(pipe(p), 0);
        struct cordon_control_msg out = {
            .type = CORDON_CONTROL_EXEC, .n_fds = 1, .fds = {p[0], -1, -1}, .fd = -1};
        cr_assert_eq(cordon_control_send(pair[0], &out), 0);
        char buf[8];
        /* rewrite: sent with n_fds 1; a receiver of a forged header would see 2 */
        cr_assert_eq(cordon_control_recv_payload(pair[1], 0, &m, buf, sizeof(buf)), 1);
        cr_assert_eq(m.n_fds, 1);
        close(m.fds[0]);
        char rec[sizeof(struct cordon_control_msg)];
        struct cordon_control_msg forged = out;
        forged.n_fds = 2;
        memcpy(rec, &forged, sizeof(rec));
        char cbuf[CMSG_SPACE(sizeof(int))] = {0};
        struct iovec iov = {.iov_base = rec, .iov_len = sizeof(rec)};
        struct msghdr mh = {
            .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &p[0], sizeof(int));
        cr_assert_eq(sendmsg(pair[0], &mh, 0), (ssize_t)sizeof(rec));
        close(p[0]);
        cr_assert_eq(cordon_control_recv_payload(pair[1], 0, &m, buf, sizeof(buf)), -EBADMSG);
        signal(SIGPIPE, SIG_IGN);
        cr_assert_eq(write(p[1], "x", 1), -1, "the refused message's descriptor was closed");
        cr_assert_eq(errno, EPIPE);
        close(p[1]);
}

/* STARTED may bring a pidfd of the command, or nothing. */
Test(control, started_with_or_without_a_descriptor)
{
        int p[2];
        cr_assert_eq(pipe(p), 0);
        struct cordon_control_msg out = {
            .type = CORDON_CONTROL_STARTED, .id = 4, .pid = 12, .fd = p[0]};
        cr_assert_eq(cordon_control_send(pair[1], &out), 0);
        out.fd = -1;
        cr_assert_eq(cordon_control_send(pair[1], &out), 0);
        struct cordon_control_msg m;
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 1);
        cr_assert_eq(m.type, CORDON_CONTROL_STARTED);
        cr_assert_eq(m.pid, 12);
        cr_assert_geq(m.fd, 0);
        close(m.fd);
        cr_assert_eq(cordon_control_recv(pair[0], 0, &m), 1);
        cr_assert_eq(m.fd, -1);
        close(p[0]);
        close(p[1]);
}
