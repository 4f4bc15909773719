/* Unit tests for src/lib/launch/notify.c: the pure parts of the dispatcher (TIOCGPTPEER's
 * flags, what counts as a pty master, where a create happens, the unix-socket note), and the
 * source serving a real listener in a forked child: TIOCGPTPEER answered on a caller's behalf,
 * a flood of refused unix sockets answered with the rule's errno and noted once. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/launch/control.h"
#include "lib/launch/notify.h"
#include "lib/mech/seccomp-notify.h"
#include "shared/macro.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

Test(notify, ptpeer_flags)
{
        int f;
        bool cloexec;
        cr_assert_eq(cordon_notify_ptpeer_flags(O_RDWR | O_NOCTTY, &f, &cloexec), 0);
        cr_expect_eq(f, O_RDWR | O_NOCTTY | O_CLOEXEC);
        cr_expect(!cloexec);
        /* Without O_NOCTTY the supervisor still opens with it; O_CLOEXEC is the caller's. */
        cr_assert_eq(cordon_notify_ptpeer_flags(O_RDWR | O_CLOEXEC | O_NONBLOCK, &f, &cloexec), 0);
        cr_expect_eq(f, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        cr_expect(cloexec);
        /* The kernel reads an int: the high half does not count. */
        cr_assert_eq(cordon_notify_ptpeer_flags(UINT64_C(1) << 40 | O_RDONLY, &f, &cloexec), 0);
        cr_expect_eq(f, O_RDONLY | O_NOCTTY | O_CLOEXEC);
        /* Anything an open with the supervisor's rights should not be asked for. */
        const int bad[] = {O_CREAT,     O_TRUNC,   O_APPEND,  O_PATH,
                           O_DIRECTORY, O_TMPFILE, O_ACCMODE, O_RDWR | O_NOFOLLOW};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                cr_expect_eq(cordon_notify_ptpeer_flags((unsigned)bad[i], &f, &cloexec), -EINVAL,
                             "flags %#x", bad[i]);
}

Test(notify, pty_master)
{
        struct stat st = {.st_mode = S_IFCHR | 0666, .st_rdev = makedev(5, 2)};
        cr_expect(cordon_notify_is_pty_master(&st, O_RDWR));
        cr_expect(!cordon_notify_is_pty_master(&st, O_PATH), "an O_PATH descriptor of ptmx");
        cr_expect(!cordon_notify_is_pty_master(&st, -1));
        st.st_rdev = makedev(5, 0); /* /dev/tty */
        cr_expect(!cordon_notify_is_pty_master(&st, O_RDWR));
        st.st_rdev = makedev(136, 3); /* /dev/pts/3 */
        cr_expect(!cordon_notify_is_pty_master(&st, O_RDWR));
        st.st_rdev = makedev(1, 3); /* /dev/null */
        cr_expect(!cordon_notify_is_pty_master(&st, O_RDWR));
        st = (struct stat){.st_mode = S_IFBLK | 0600, .st_rdev = makedev(5, 2)};
        cr_expect(!cordon_notify_is_pty_master(&st, O_RDWR), "a block device 5:2");
        st = (struct stat){.st_mode = S_IFREG | 0600};
        cr_expect(!cordon_notify_is_pty_master(&st, O_RDWR));

        /* The real thing. */
        int m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
        cr_assert_geq(m, 0);
        cr_assert_eq(fstat(m, &st), 0);
        cr_expect(cordon_notify_is_pty_master(&st, fcntl(m, F_GETFL)));
        close(m);
}

Test(notify, dir_of)
{
        char buf[256];
        const char *last;
        cr_assert_eq(cordon_notify_dir_of(42, AT_FDCWD, "/tmp/a/b", buf, sizeof(buf), &last), 0);
        cr_expect_str_eq(buf, "/tmp/a");
        cr_expect_str_eq(last, "b");
        cr_assert_eq(cordon_notify_dir_of(42, AT_FDCWD, "/x", buf, sizeof(buf), &last), 0);
        cr_expect_str_eq(buf, "/");
        cr_expect_str_eq(last, "x");
        /* The dirfd does not count for an absolute path. */
        cr_assert_eq(cordon_notify_dir_of(42, 7, "/tmp/x", buf, sizeof(buf), &last), 0);
        cr_expect_str_eq(buf, "/tmp");
        cr_assert_eq(cordon_notify_dir_of(42, AT_FDCWD, "x", buf, sizeof(buf), &last), 0);
        cr_expect_str_eq(buf, "/proc/42/cwd");
        cr_expect_str_eq(last, "x");
        cr_assert_eq(cordon_notify_dir_of(42, AT_FDCWD, "d/e/x", buf, sizeof(buf), &last), 0);
        cr_expect_str_eq(buf, "/proc/42/cwd/d/e");
        cr_assert_eq(cordon_notify_dir_of(42, 5, "d/x", buf, sizeof(buf), &last), 0);
        cr_expect_str_eq(buf, "/proc/42/fd/5/d");
        cr_assert_eq(cordon_notify_dir_of(42, 5, "x", buf, sizeof(buf), &last), 0);
        cr_expect_str_eq(buf, "/proc/42/fd/5");
        cr_expect_eq(cordon_notify_dir_of(42, -5, "x", buf, sizeof(buf), &last), -EBADF);
        cr_expect_eq(cordon_notify_dir_of(42, AT_FDCWD, "", buf, sizeof(buf), &last), -ENOENT);
        cr_expect_eq(cordon_notify_dir_of(42, AT_FDCWD, "d/", buf, sizeof(buf), &last), -EISDIR);
        cr_expect_eq(cordon_notify_dir_of(42, AT_FDCWD, "..", buf, sizeof(buf), &last), -EISDIR);
        cr_expect_eq(cordon_notify_dir_of(42, AT_FDCWD, "/tmp/.", buf, sizeof(buf), &last),
                     -EISDIR);
        cr_expect_eq(cordon_notify_dir_of(42, AT_FDCWD, "/a/b/c", buf, 4, &last), -ENAMETOOLONG);
}

/* The source on a real listener: a child installs the notify program, forks a caller that opens
 * a pty master and asks for its peer, and serves the listener with cordon_notify on a loop of
 * its own. The caller reports what it got as its exit status: 0 when the peer is the master's
 * other end (a byte written to the master arrives), else the errno. */
static int caller_ptpeer(int how)
{
        int m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
        int zero = 0;
        if (m < 0 || ioctl(m, TIOCSPTLCK, &zero) < 0)
                return 100;
        int target = how == 0 ? m : open("/dev/null", O_RDWR | O_CLOEXEC);
        int peer = ioctl(target, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (peer < 0)
                return errno;
        int fl = fcntl(peer, F_GETFD);
        if (!(fl & FD_CLOEXEC))
                return 101;
        if (write(m, "x\n", 2) != 2)
                return 102;
        char c;
        return read(peer, &c, 1) == 1 && c == 'x' ? 0 : 103;
}

struct reap_ctx {
        pid_t caller;
        int status;
        struct cordon_loop *loop;
        struct cordon_loop_source *src;
};

static int reap(void *userdata, const struct pollfd *fds)
{
        (void)fds;
        struct reap_ctx *c = userdata;
        if (waitpid(c->caller, &c->status, WNOHANG) == c->caller)
                cordon_loop_quit(c->loop, 0);
        else
                c->src->deadline = cordon_now_usec() + 1000;
        return 0;
}

/* The warnings the notify source gave: how many, and the last. */
struct warnings {
        unsigned n;
        char last[512];
};

static void count_warning(void *userdata, const char *message)
{
        struct warnings *w = userdata;
        w->n++;
        snprintf(w->last, sizeof(w->last), "%s", message);
}

/* A flood of socket(AF_UNIX, SOCK_STREAM, 0): each must fail with the rule's errno (never a
 * socket); the exit status is that errno, or 110 when the answers differ, 111 on a socket. */
#define FLOOD 200
static int caller_unix_flood(int want)
{
        for (int i = 0; i < FLOOD; i++) {
                int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (fd >= 0)
                        return 111;
                if (errno != want)
                        return errno ? errno : 110;
        }
        /* The non-blocking one is refused by the filter itself, with the same errno. */
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd >= 0)
                return 111;
        return errno == want ? want : 112;
}

/* The caller installs the notify program of @key and sends the listener over @sock (as the
 * launch's child does), then asks; this process, unfiltered like the supervisor, serves it. */
static int served_key(const struct cordon_seccomp_key *key, int how, struct warnings *w)
{
        int sv[2];
        cr_assert_eq(cordon_control_pair(sv), 0);
        pid_t caller = fork();
        cr_assert_geq(caller, 0);
        if (caller == 0) {
                close(sv[0]);
                struct cordon_bpf b = {.insns = NULL};
                if (cordon_seccomp_build(key, &b) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                        _exit(200);
                int listener = cordon_seccomp_install_listener(&b);
                if (listener < 0)
                        _exit(201);
                struct cordon_control_msg msg = {.type = CORDON_CONTROL_FD,
                                                 .kind = CORDON_CONTROL_FD_SECCOMP_NOTIFY,
                                                 .fd = listener};
                if (cordon_control_send(sv[1], &msg) < 0)
                        _exit(202);
                close(listener);
                _exit(how >= 0 ? caller_ptpeer(how) : caller_unix_flood(-how));
        }
        close(sv[1]);
        struct cordon_control_msg m;
        cr_assert_eq(cordon_control_recv(sv[0], 0, &m), 1);
        cr_assert_eq(m.kind, CORDON_CONTROL_FD_SECCOMP_NOTIFY);
        close(sv[0]);
        struct cordon_notify *n = NULL;
        const struct cordon_notify_config cfg = {.shm_dirfd = -1,
                                                 .socket_rule = key->net,
                                                 .warn = w ? count_warning : NULL,
                                                 .userdata = w};
        cr_assert_eq(cordon_notify_new(m.fd, &cfg, &n), 0);
        struct cordon_loop loop = {.n = 0};
        cr_assert_eq(cordon_notify_attach(n, &loop), 0);
        struct cordon_loop_source reap_src;
        struct reap_ctx c = {caller, -1, &loop, &reap_src};
        reap_src = (struct cordon_loop_source){
            .deadline = cordon_now_usec() + 1000, .dispatch = reap, .userdata = &c};
        cr_assert_eq(cordon_loop_add(&loop, &reap_src), 0);
        cr_assert_eq(cordon_loop_run(&loop), 0);
        cordon_notify_detach(n, &loop);
        cordon_notify_free(n);
        cr_assert(WIFEXITED(c.status));
        return WEXITSTATUS(c.status);
}

static int served(int how)
{
        return served_key(&(struct cordon_seccomp_key){.notify = true}, how, NULL);
}

Test(notify, unix_note)
{
        /* Each rule's note names the gap and both fixes, on one line. */
        static const enum cordon_seccomp_net rules[] = {CORDON_SECCOMP_NET_NO_SOCKET,
                                                        CORDON_SECCOMP_NET_STREAM_INET};
        for (size_t i = 0; i < ELEMENTSOF(rules); i++) {
                const char *m = cordon_notify_unix_note(rules[i]);
                cr_assert_not_null(m);
                cr_expect(strstr(m, "a unix socket was refused") == m, "%s", m);
                cr_expect(strstr(m, "use the ns backend") != NULL, "%s", m);
                cr_expect(strstr(m, "network mode open") != NULL, "%s", m);
                cr_expect(strstr(m, "AppArmor profile") != NULL, "%s", m);
                cr_expect(strchr(m, '\n') == NULL, "%s", m);
        }
        cr_expect(strstr(cordon_notify_unix_note(CORDON_SECCOMP_NET_NO_SOCKET),
                         "no network namespace") != NULL);
        cr_expect(strstr(cordon_notify_unix_note(CORDON_SECCOMP_NET_STREAM_INET), "ABI 9") != NULL);
        /* The errno is the rule's; a rule that notifies none still refuses. */
        cr_expect_eq(cordon_notify_unix_errno(CORDON_SECCOMP_NET_NO_SOCKET), EPERM);
        cr_expect_eq(cordon_notify_unix_errno(CORDON_SECCOMP_NET_STREAM_INET), EACCES);
        cr_expect_eq(cordon_notify_unix_errno(CORDON_SECCOMP_NET_FAMILIES), EACCES);
        cr_expect_eq(cordon_notify_unix_errno(CORDON_SECCOMP_NET_ANY), EACCES);
}

Test(notify, unix_socket_refused_once_noted)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        static const struct {
                enum cordon_seccomp_net net;
                int want;
        } rules[] = {{CORDON_SECCOMP_NET_NO_SOCKET, EPERM},
                     {CORDON_SECCOMP_NET_STREAM_INET, EACCES}};
        for (size_t i = 0; i < ELEMENTSOF(rules); i++) {
                struct warnings w = {0};
                const struct cordon_seccomp_key k = {.net = rules[i].net, .notify = true};
                cr_expect_eq(served_key(&k, -rules[i].want, &w), rules[i].want,
                             "net %d: every socket(AF_UNIX) refused with %d", rules[i].net,
                             rules[i].want);
                cr_expect_eq(w.n, 1, "net %d: %u warnings for %d refusals", rules[i].net, w.n,
                             FLOOD);
                cr_expect_str_eq(w.last, cordon_notify_unix_note(rules[i].net));
        }
}

Test(notify, tiocgptpeer_on_behalf)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        cr_expect_eq(served(0), 0, "the peer of a master, close-on-exec, connected to it");
        cr_expect_eq(served(1), ENOTTY, "TIOCGPTPEER on /dev/null: ENOTTY");
}
