/* Unit tests for src/lib/supervisor/notify.c: the pure parts of the dispatcher (TIOCGPTPEER's
 * flags, what counts as a pty master, where a create happens, the unix-socket note), and the
 * source serving a real listener in a forked child: TIOCGPTPEER answered on a caller's behalf,
 * a flood of refused unix sockets answered with the rule's errno and noted once. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <linux/netlink.h>
#include <linux/unix_diag.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/launch/control.h"
#include "lib/supervisor/notify-unix.h"
#include "lib/supervisor/notify.h"
#include "lib/loop/loop.h"
#include "lib/mech/unix-diag.h"
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
};

static int reap(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        struct reap_ctx *c = userdata;
        if (waitpid(c->caller, &c->status, WNOHANG) == c->caller)
                cordon_loop_quit(c->loop, 0);
        else
                cordon_loop_timer_set(t, now + 1000);
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

/* What the caller does under the filter: @how as served_key() says, or the shm opens below. */
static int caller_shm(void);

/* Nonzero: the caller runs caller_connect() against a listener on 127.0.0.1 at this port, which
 * the server passes as the proxy's. */
static uint16_t connect_port;

static int connect_in(int s, const char *ip, uint16_t port)
{
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
        inet_pton(AF_INET, ip, &a.sin_addr);
        return connect(s, (struct sockaddr *)&a, sizeof(a)) < 0 ? errno : 0;
}

/* proxied mode's connect() rule: 0 when every step answered as it should, else the step. */
static int caller_connect(uint16_t port)
{
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0 || connect_in(s, "127.0.0.1", port) != 0)
                return 1; /* the proxy, blocking: connected */
        if (fcntl(s, F_GETFL) & O_NONBLOCK)
                return 2; /* the socket's flags put back */
        s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int e = connect_in(s, "127.0.0.1", port);
        if (e != 0 && e != EINPROGRESS)
                return 3; /* non-blocking: in progress (or done) */
        s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect_in(s, "127.0.0.2", port) != EACCES)
                return 4; /* another address at the proxy's port */
        if (connect_in(s, "127.0.0.1", (uint16_t)(port + 1)) != EACCES)
                return 5; /* the proxy's address at another port */
        int sv[2];
        struct sockaddr_un un = {.sun_family = AF_UNIX, .sun_path = "/nonexistent"};
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
            (connect(sv[0], (struct sockaddr *)&un, sizeof(un)) == 0 || errno != ENOENT))
                return 6; /* a unix socket: the command's own sockets' rule (nothing there) */
        int s6 = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s6 >= 0) {
                struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
                inet_pton(AF_INET6, "::ffff:127.0.0.1", &a6.sin6_addr);
                if (connect(s6, (struct sockaddr *)&a6, sizeof(a6)) < 0)
                        return 7; /* the v4-mapped proxy on an IPv6 socket */
        }
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (connect_in(null, "127.0.0.1", port) != ENOTSOCK)
                return 8;
        s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect(s, NULL, sizeof(struct sockaddr_in)) == 0 || errno != EFAULT)
                return 9;
        return 0;
}

/* Nonempty: the caller runs caller_unix_own() in this directory, where the test put host.sock
 * (a listener of this process's, outside the filter, as a host service's) and notsock (a file);
 * unix_host_abstract names a host listener's abstract name. */
static char unix_dir[256];
static char unix_host_abstract[64];

static int un_addr(struct sockaddr_un *un, const char *path, bool abstract)
{
        *un = (struct sockaddr_un){.sun_family = AF_UNIX};
        size_t l = strlen(path);
        if (l + 1 >= sizeof(un->sun_path))
                return -1;
        memcpy(un->sun_path + (abstract ? 1 : 0), path, l);
        return (int)(offsetof(struct sockaddr_un, sun_path) + l + 1);
}

/* connect() of a fresh unix socket of @type to @path (abstract: its name): 0 or the errno; with
 * @read, what the server sends must be "HOST" or "OWN". */
static int connect_unix(int type, const char *path, bool abstract)
{
        int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
        if (s < 0)
                return 1000 + errno;
        struct sockaddr_un un;
        int l = un_addr(&un, path, abstract);
        int r = connect(s, (struct sockaddr *)&un, (socklen_t)l) < 0 ? errno : 0;
        close(s);
        return r;
}

/* The command's own unix sockets: 0 when every step answered as it should, else the step. */
static int caller_unix_own(void)
{
        if (chdir(unix_dir) < 0)
                return 99;
        /* 1-5: a server of its own, by absolute and relative path, blocking and not. */
        int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un un;
        char own[PATH_MAX];
        snprintf(own, sizeof(own), "%s/own.sock", unix_dir);
        int len = un_addr(&un, own, false);
        if (l < 0 || bind(l, (struct sockaddr *)&un, (socklen_t)len) < 0 || listen(l, 4) < 0)
                return 1;
        int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c < 0 || connect(c, (struct sockaddr *)&un, (socklen_t)len) < 0)
                return 2;
        int a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
        char buf[8] = {0};
        if (a < 0 || write(c, "ping", 4) != 4 || read(a, buf, sizeof(buf)) != 4 ||
            memcmp(buf, "ping", 4) != 0)
                return 3;
        if (fcntl(c, F_GETFL) & O_NONBLOCK)
                return 4; /* the flags put back */
        close(a);
        close(c);
        c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        len = un_addr(&un, "own.sock", false);
        if (c < 0 || connect(c, (struct sockaddr *)&un, (socklen_t)len) < 0 ||
            !(fcntl(c, F_GETFL) & O_NONBLOCK))
                return 5;
        close(c);
        /* 6-7: seqpacket too. */
        int q = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        len = un_addr(&un, "own.seq", false);
        if (q < 0 || bind(q, (struct sockaddr *)&un, (socklen_t)len) < 0 || listen(q, 4) < 0)
                return 6;
        if (connect_unix(SOCK_SEQPACKET, "own.seq", false) != 0)
                return 7;
        /* 8-12: the host's socket, by its path, relative, through a symlink, a hard link. */
        char host[PATH_MAX];
        snprintf(host, sizeof(host), "%s/host.sock", unix_dir);
        if (connect_unix(SOCK_STREAM, host, false) != EACCES)
                return 8;
        if (connect_unix(SOCK_STREAM, "host.sock", false) != EACCES)
                return 9;
        if (symlink("host.sock", "sym.sock") < 0 ||
            connect_unix(SOCK_STREAM, "sym.sock", false) != EACCES)
                return 10;
        if (link("host.sock", "hard.sock") < 0 ||
            connect_unix(SOCK_STREAM, "hard.sock", false) != EACCES)
                return 11;
        if (connect_unix(SOCK_SEQPACKET, host, false) != EACCES)
                return 12;
        /* 13-14: abstract names, a host listener's and a bind of one. */
        if (connect_unix(SOCK_STREAM, unix_host_abstract, true) != EACCES)
                return 13;
        int ab = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        len = un_addr(&un, "cordon-unit-abstract", true);
        if (ab < 0 || bind(ab, (struct sockaddr *)&un, (socklen_t)len) == 0 || errno != EACCES)
                return 14;
        /* 15: autobind (a random abstract name) is no squatting: made. */
        struct sockaddr_un auto_un = {.sun_family = AF_UNIX};
        if (bind(ab, (struct sockaddr *)&auto_un, offsetof(struct sockaddr_un, sun_path)) < 0)
                return 15;
        /* 16-19: what the kernel answers itself: no such file, not a socket, a stale socket
         * file, a bad length. */
        if (connect_unix(SOCK_STREAM, "nonexistent", false) != ENOENT)
                return 16;
        if (connect_unix(SOCK_STREAM, "notsock", false) != ECONNREFUSED)
                return 17;
        int st = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        len = un_addr(&un, "stale.sock", false);
        if (st < 0 || bind(st, (struct sockaddr *)&un, (socklen_t)len) < 0)
                return 18;
        close(st);
        if (connect_unix(SOCK_STREAM, "stale.sock", false) != ECONNREFUSED)
                return 19;
        c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect(c, (struct sockaddr *)&un, offsetof(struct sockaddr_un, sun_path)) == 0 ||
            errno != EINVAL)
                return 20;
        /* 21: a socket closed is forgotten: its file is stale, not its own (the server of
         * step 1 closed: connecting now is refused by the kernel, not taken by a copy). */
        close(l);
        if (connect_unix(SOCK_STREAM, own, false) != ECONNREFUSED)
                return 21;
        /* 22-24: listen() on a TCP socket stays refused, on an unbound unix one the kernel's
         * EINVAL; datagrams stay refused. */
        int t = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (t < 0 || listen(t, 1) == 0 || errno != EACCES)
                return 22;
        int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (u < 0 || listen(u, 1) == 0 || errno != EINVAL)
                return 23;
        if (socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0) >= 0 || errno != EACCES)
                return 24;
        return 0;
}

/* The caller installs the notify program of @key and sends the listener over @sock (as the
 * launch's child does), then asks; this process, unfiltered like the supervisor, serves it with
 * @shm_dirfd as the private /dev/shm stand-in (-1: none). @how >= 0: caller_ptpeer(@how);
 * INT_MIN: caller_shm(); else caller_unix_flood(-@how). */
static int served_full(const struct cordon_seccomp_key *key, int shm_dirfd, int how,
                       struct warnings *w)
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
                if (connect_port)
                        _exit(caller_connect(connect_port));
                if (unix_dir[0])
                        _exit(caller_unix_own());
                if (how == INT_MIN)
                        _exit(caller_shm());
                _exit(how >= 0 ? caller_ptpeer(how) : caller_unix_flood(-how));
        }
        close(sv[1]);
        struct cordon_control_msg m;
        cr_assert_eq(cordon_control_recv(sv[0], 0, &m), 1);
        cr_assert_eq(m.kind, CORDON_CONTROL_FD_SECCOMP_NOTIFY);
        close(sv[0]);
        struct cordon_notify *n = NULL;
        const struct cordon_notify_config cfg = {.shm_dirfd = shm_dirfd,
                                                 .socket_rule = key->net,
                                                 .proxy_port = connect_port,
                                                 .warn = w ? count_warning : NULL,
                                                 .userdata = w};
        cr_assert_eq(cordon_notify_new(m.fd, &cfg, &n), 0);
        struct cordon_loop *loop = NULL;
        cr_assert_eq(cordon_loop_new(&loop), 0);
        cr_assert_eq(cordon_notify_attach(n, loop), 0);
        struct cordon_loop_timer *reap_timer;
        struct reap_ctx c = {caller, -1, loop};
        cr_assert_eq(cordon_loop_add_timer(loop, cordon_now_usec() + 1000, reap, &c, &reap_timer),
                     0);
        cr_assert_eq(cordon_loop_run(loop), 0);
        cordon_loop_timer_free(reap_timer);
        cordon_notify_detach(n);
        cordon_notify_free(n);
        cordon_loop_free(loop);
        cr_assert(WIFEXITED(c.status));
        return WEXITSTATUS(c.status);
}

static int served_key(const struct cordon_seccomp_key *key, int how, struct warnings *w)
{
        return served_full(key, -1, how, w);
}

static int served(int how)
{
        return served_key(&(struct cordon_seccomp_key){.notify = true}, how, NULL);
}

Test(notify, unix_note)
{
        /* Each rule's note names the gap and the ns backend, on one line; isolated's names
         * network mode open too (the command's own unix sockets), the others never (no mode of
         * the landlock backend reaches the host's). */
        static const enum cordon_seccomp_net rules[] = {CORDON_SECCOMP_NET_NO_SOCKET,
                                                        CORDON_SECCOMP_NET_STREAM_INET,
                                                        CORDON_SECCOMP_NET_OPEN_UNIX};
        for (size_t i = 0; i < ELEMENTSOF(rules); i++) {
                const char *m = cordon_notify_unix_note(rules[i]);
                cr_assert_not_null(m);
                cr_expect(strstr(m, "a unix socket was refused") == m, "%s", m);
                cr_expect(strstr(m, "the ns backend") != NULL, "%s", m);
                cr_expect((strstr(m, "network mode open") != NULL) ==
                              (rules[i] == CORDON_SECCOMP_NET_NO_SOCKET),
                          "%s", m);
                cr_expect(strstr(m, "AppArmor profile") != NULL, "%s", m);
                cr_expect(strchr(m, '\n') == NULL, "%s", m);
        }
        cr_expect(strstr(cordon_notify_unix_note(CORDON_SECCOMP_NET_OPEN_UNIX), "munge") != NULL);
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
        } rules[] = {{CORDON_SECCOMP_NET_NO_SOCKET, EPERM}};
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

Test(notify, connect_allowed)
{
        const uint16_t port = 31337;
        struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(port)};
        in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        cr_expect(cordon_notify_connect_allowed(&in, sizeof(in), port));
        cr_expect(!cordon_notify_connect_allowed(&in, sizeof(in) - 1, port), "short");
        cr_expect(!cordon_notify_connect_allowed(&in, sizeof(in), port + 1), "another port");
        cr_expect(!cordon_notify_connect_allowed(&in, sizeof(in), 0), "no proxy");
        in.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
        cr_expect(!cordon_notify_connect_allowed(&in, sizeof(in), port), "127.0.0.2");
        inet_pton(AF_INET, "192.0.2.1", &in.sin_addr);
        cr_expect(!cordon_notify_connect_allowed(&in, sizeof(in), port), "a test network");

        struct sockaddr_in6 in6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
        inet_pton(AF_INET6, "::ffff:127.0.0.1", &in6.sin6_addr);
        cr_expect(cordon_notify_connect_allowed(&in6, sizeof(in6), port));
        cr_expect(cordon_notify_connect_allowed(&in6, 24, port), "RFC 2133 length");
        cr_expect(!cordon_notify_connect_allowed(&in6, 23, port));
        inet_pton(AF_INET6, "::1", &in6.sin6_addr);
        cr_expect(!cordon_notify_connect_allowed(&in6, sizeof(in6), port), "::1: no proxy there");
        inet_pton(AF_INET6, "::ffff:127.0.0.2", &in6.sin6_addr);
        cr_expect(!cordon_notify_connect_allowed(&in6, sizeof(in6), port));
        inet_pton(AF_INET6, "64:ff9b::7f00:1", &in6.sin6_addr);
        cr_expect(!cordon_notify_connect_allowed(&in6, sizeof(in6), port), "NAT64 of 127.0.0.1");

        struct sockaddr_un un = {.sun_family = AF_UNIX, .sun_path = "/run/x"};
        cr_expect(!cordon_notify_connect_allowed(&un, sizeof(un), port));
        struct sockaddr unspec = {.sa_family = AF_UNSPEC};
        cr_expect(cordon_notify_connect_allowed(&unspec, sizeof(unspec), port), "disconnect");
        cr_expect(!cordon_notify_connect_allowed(&unspec, 1, port));
        cr_expect(!cordon_notify_connect_allowed(NULL, 0, port));
}

Test(notify, connect_to_the_proxy_only)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t al = sizeof(a);
        cr_assert_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
        cr_assert_eq(listen(l, 16), 0);
        cr_assert_eq(getsockname(l, (struct sockaddr *)&a, &al), 0);
        connect_port = ntohs(a.sin_port);
        const struct cordon_seccomp_key k = {.net = CORDON_SECCOMP_NET_STREAM_INET, .notify = true};
        int r = served_key(&k, 0, NULL);
        connect_port = 0;
        close(l);
        cr_expect_eq(r, 0, "step %d of caller_connect() answered wrongly", r);
}

static void unix_host_server(const char *path, bool abstract, int *ret_fd)
{
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        cr_assert_geq(s, 0);
        struct sockaddr_un un;
        int l = un_addr(&un, path, abstract);
        cr_assert_geq(l, 0);
        cr_assert_eq(bind(s, (struct sockaddr *)&un, (socklen_t)l), 0, "%s: %m", path);
        cr_assert_eq(listen(s, 16), 0);
        *ret_fd = s;
}

/* Listening sockets that took a connection: each one that did is an escape. */
static int accepted(int fd)
{
        int n = 0;
        for (int c; (c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0; n++)
                close(c);
        return n;
}

Test(notify, unix_own_sockets_only)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        char dir[] = "/tmp/cordon-test-notify-unix-XXXXXX";
        cr_assert_not_null(mkdtemp(dir));
        snprintf(unix_dir, sizeof(unix_dir), "%s", dir);
        snprintf(unix_host_abstract, sizeof(unix_host_abstract), "cordon-unit-host-%d",
                 (int)getpid());
        char host[PATH_MAX], notsock[PATH_MAX];
        snprintf(host, sizeof(host), "%s/host.sock", dir);
        snprintf(notsock, sizeof(notsock), "%s/notsock", dir);
        int hs, ha;
        unix_host_server(host, false, &hs);
        unix_host_server(unix_host_abstract, true, &ha);
        int f = open(notsock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        cr_assert_geq(f, 0);
        close(f);
        (void)fcntl(hs, F_SETFL, O_NONBLOCK);
        (void)fcntl(ha, F_SETFL, O_NONBLOCK);

        struct warnings w = {0};
        const struct cordon_seccomp_key k = {.net = CORDON_SECCOMP_NET_STREAM_INET, .notify = true};
        int r = served_key(&k, 0, &w);
        unix_dir[0] = 0;
        const int host_conns = accepted(hs) + accepted(ha);
        close(hs);
        close(ha);
        static const char *const names[] = {"host.sock", "notsock",   "own.sock",  "own.seq",
                                            "sym.sock",  "hard.sock", "stale.sock"};
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                char p[PATH_MAX];
                snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
                (void)unlink(p);
        }
        rmdir(dir);
        cr_expect_eq(r, 0, "step %d of caller_unix_own() answered wrongly", r);
        cr_expect_eq(host_conns, 0, "the host's listeners took %d connections", host_conns);
        cr_expect_eq(w.n, 1, "%u warnings for the refusals", w.n);
        cr_expect_str_eq(w.last, cordon_notify_unix_note(CORDON_SECCOMP_NET_STREAM_INET));
}

Test(notify, unix_addr_parse)
{
        char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
        const size_t off = offsetof(struct sockaddr_un, sun_path);
        struct sockaddr_un un = {.sun_family = AF_UNIX, .sun_path = "/run/x.sock"};
        cr_expect_eq(cordon_unix_addr_parse(&un, sizeof(un), path, sizeof(path)),
                     CORDON_UNIX_ADDR_PATH);
        cr_expect_str_eq(path, "/run/x.sock");
        /* Cut at the length, as the kernel reads it, without a NUL. */
        cr_expect_eq(cordon_unix_addr_parse(&un, off + 4, path, sizeof(path)),
                     CORDON_UNIX_ADDR_PATH);
        cr_expect_str_eq(path, "/run");
        /* A full sun_path without a NUL is a 108-byte path. */
        memset(un.sun_path, 'a', sizeof(un.sun_path));
        cr_expect_eq(cordon_unix_addr_parse(&un, sizeof(un), path, sizeof(path)),
                     CORDON_UNIX_ADDR_PATH);
        cr_expect_eq(strlen(path), sizeof(un.sun_path));
        cr_expect_eq(cordon_unix_addr_parse(&un, sizeof(un), path, sizeof(un.sun_path)),
                     -ENAMETOOLONG, "no room for the NUL");
        /* Abstract, whatever follows; unnamed (autobind) is the family alone. */
        un.sun_path[0] = 0;
        cr_expect_eq(cordon_unix_addr_parse(&un, off + 1, path, sizeof(path)),
                     CORDON_UNIX_ADDR_ABSTRACT);
        cr_expect_eq(cordon_unix_addr_parse(&un, sizeof(un), path, sizeof(path)),
                     CORDON_UNIX_ADDR_ABSTRACT);
        cr_expect_eq(cordon_unix_addr_parse(&un, off, path, sizeof(path)),
                     CORDON_UNIX_ADDR_UNNAMED);
        /* What the kernel refuses with EINVAL. */
        cr_expect_eq(cordon_unix_addr_parse(&un, off - 1, path, sizeof(path)), -EINVAL);
        cr_expect_eq(cordon_unix_addr_parse(&un, sizeof(un) + 1, path, sizeof(path)), -EINVAL);
        cr_expect_eq(cordon_unix_addr_parse(NULL, sizeof(un), path, sizeof(path)), -EINVAL);
        struct sockaddr_un in = {.sun_family = AF_INET, .sun_path = "/run/x"};
        cr_expect_eq(cordon_unix_addr_parse(&in, sizeof(in), path, sizeof(path)), -EINVAL);
}

Test(notify, unix_target_path)
{
        char buf[PATH_MAX];
        cr_expect_eq(cordon_unix_target_path(42, "/run/x.sock", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/run/x.sock");
        cr_expect_eq(cordon_unix_target_path(42, "x.sock", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/proc/42/cwd/x.sock");
        cr_expect_eq(cordon_unix_target_path(42, "../d/x", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/proc/42/cwd/../d/x");
        /* The caller's own /proc entries, not the supervisor's. */
        cr_expect_eq(cordon_unix_target_path(42, "/proc/self/fd/3", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/proc/42/fd/3");
        cr_expect_eq(cordon_unix_target_path(42, "/proc/thread-self/cwd/x", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/proc/42/cwd/x");
        cr_expect_eq(cordon_unix_target_path(42, "/dev/fd/7", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/proc/42/fd/7");
        cr_expect_eq(cordon_unix_target_path(42, "/proc/selfish", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/proc/selfish");
        cr_expect_eq(cordon_unix_target_path(42, "/dev/fdx", buf, sizeof(buf)), 0);
        cr_expect_str_eq(buf, "/dev/fdx");
        cr_expect_eq(cordon_unix_target_path(42, "", buf, sizeof(buf)), -ENOENT);
        cr_expect_eq(cordon_unix_target_path(42, "x.sock", buf, 12), -ENAMETOOLONG);
}

Test(notify, unix_born_after)
{
        const struct timespec since = {.tv_sec = 1000, .tv_nsec = 500000000};
        cr_expect(cordon_unix_born_after(1000, &since), "the same second: granularity");
        cr_expect(cordon_unix_born_after(1001, &since));
        cr_expect(!cordon_unix_born_after(999, &since), "a file from before the bind");
        cr_expect(!cordon_unix_born_after(1001, NULL));
}

Test(notify, unix_mount_dev)
{
        /* btrfs: stat() names the subvolume's device, the mount table the super block's. */
        static const char mi[] =
            "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
            "30 1 0:35 /@home /home rw,relatime shared:1 - btrfs /dev/vda2 rw,subvol=/@home\n"
            "312 30 254:0 / /home/u/proj rw - ext4 /dev/vda rw\n";
        dev_t d;
        cr_expect_eq(cordon_unix_mount_dev(mi, 30, &d), 0);
        cr_expect_eq(d, makedev(0, 35));
        cr_expect_eq(cordon_unix_mount_dev(mi, 312, &d), 0);
        cr_expect_eq(d, makedev(254, 0));
        cr_expect_eq(cordon_unix_mount_dev(mi, 22, &d), 0);
        cr_expect_eq(d, makedev(0, 21));
        cr_expect_eq(cordon_unix_mount_dev(mi, 3, &d), -ENOENT, "a prefix of 30 or 312");
        cr_expect_eq(cordon_unix_mount_dev("", 30, &d), -ENOENT);
        cr_expect_eq(cordon_unix_mount_dev("garbage\n30 x\n", 30, &d), -ENOENT);
}

Test(notify, unix_diag_parse_and_query)
{
        /* A message as the kernel writes it: the header, a name, the vfs attribute. */
        unsigned char buf[128] = {0};
        struct unix_diag_msg m = {
            .udiag_family = AF_UNIX, .udiag_ino = 77, .udiag_cookie = {0x11, 0x22}};
        memcpy(buf, &m, sizeof(m));
        size_t at = NLMSG_ALIGN(sizeof(m));
        struct nlattr a = {.nla_len = NLA_HDRLEN + 6, .nla_type = UNIX_DIAG_NAME};
        memcpy(buf + at, &a, sizeof(a));
        memcpy(buf + at + NLA_HDRLEN, "/x.so", 6);
        at += NLA_ALIGN(a.nla_len);
        struct unix_diag_vfs v = {.udiag_vfs_ino = 1234, .udiag_vfs_dev = 254u << 20 | 3};
        a = (struct nlattr){.nla_len = NLA_HDRLEN + sizeof(v), .nla_type = UNIX_DIAG_VFS};
        memcpy(buf + at, &a, sizeof(a));
        memcpy(buf + at + NLA_HDRLEN, &v, sizeof(v));
        at += NLA_ALIGN(a.nla_len);
        struct cordon_unix_diag d;
        cr_assert_eq(cordon_unix_diag_parse(buf, at, &d), 0);
        cr_expect_eq(d.ino, 77);
        cr_expect_eq(d.cookie, UINT64_C(0x22) << 32 | 0x11);
        cr_expect(d.named);
        cr_expect(d.has_vfs);
        cr_expect_eq(d.vfs_dev, makedev(254, 3));
        cr_expect_eq(d.vfs_ino, 1234);
        cr_expect_eq(cordon_unix_diag_parse(buf, sizeof(m) - 1, &d), -EBADMSG, "cut short");
        buf[0] = AF_INET;
        cr_expect_eq(cordon_unix_diag_parse(buf, at, &d), -EBADMSG, "not a unix socket's");

        /* The kernel itself: a socket bound here, its file, its cookie. */
        char dir[] = "/tmp/cordon-test-diag-XXXXXX";
        cr_assert_not_null(mkdtemp(dir));
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/s", dir);
        int s;
        unix_host_server(path, false, &s);
        struct stat sst, fst;
        cr_assert_eq(fstat(s, &sst), 0);
        cr_assert_eq(stat(path, &fst), 0);
        int nl = cordon_unix_diag_open();
        cr_assert_geq(nl, 0);
        cr_assert_eq(cordon_unix_diag_get(nl, (uint32_t)sst.st_ino, CORDON_UNIX_DIAG_NOCOOKIE, &d),
                     0);
        cr_expect(d.named && d.has_vfs);
        cr_expect_eq(d.vfs_dev, fst.st_dev);
        cr_expect_eq(d.vfs_ino, (uint32_t)fst.st_ino);
        struct cordon_unix_diag again;
        cr_expect_eq(cordon_unix_diag_get(nl, (uint32_t)sst.st_ino, d.cookie, &again), 0);
        cr_expect_eq(cordon_unix_diag_get(nl, (uint32_t)sst.st_ino, d.cookie + 1, &again), -ESTALE);
        cr_expect_eq(cordon_unix_diag_bound_at(nl, &fst.st_dev, 1, (uint32_t)fst.st_ino), 1);
        const dev_t two[] = {makedev(0, 1), fst.st_dev};
        cr_expect_eq(cordon_unix_diag_bound_at(nl, two, 2, (uint32_t)fst.st_ino), 1);
        cr_expect_eq(cordon_unix_diag_bound_at(nl, two, 1, (uint32_t)fst.st_ino), 0);
        close(s);
        cr_expect_eq(cordon_unix_diag_get(nl, (uint32_t)sst.st_ino, d.cookie, &again), -ENOENT);
        cr_expect_eq(cordon_unix_diag_bound_at(nl, &fst.st_dev, 1, (uint32_t)fst.st_ino), 0);
        close(nl);
        unlink(path);
        rmdir(dir);
}

Test(notify, tiocgptpeer_on_behalf)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        cr_expect_eq(served(0), 0, "the peer of a master, close-on-exec, connected to it");
        cr_expect_eq(served(1), ENOTTY, "TIOCGPTPEER on /dev/null: ENOTTY");
}

/* Opening an existing /dev/shm name without O_CREAT, as shm_open() and sem_open() do (with
 * O_NOFOLLOW): served from the private directory only. The names and what the caller should see,
 * set before the fork. */
static char shm_private[64], shm_host[64], shm_link[64], other_file[PATH_MAX];
static bool shm_stand_in;

static int read_is(int fd, const char *want)
{
        char buf[32] = {0};
        ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);
        return k == (ssize_t)strlen(want) && memcmp(buf, want, (size_t)k) == 0;
}

/* 0 when every open answered as expected, else the number of the first that did not (with the
 * private directory or, !shm_stand_in, without one: then every open runs as made). */
static int caller_shm(void)
{
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/dev/shm/%s", shm_host);
        int fd = openat(AT_FDCWD, path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (!shm_stand_in)
                /* PRIVATE_IPC=false: the host's object, as without notifications. */
                return fd >= 0 && read_is(fd, "HOST") ? 0 : 1;
        /* A name only the host has: ENOENT, never the host's object. */
        if (fd >= 0 || errno != ENOENT)
                return 2;
        snprintf(path, sizeof(path), "/dev/shm/%s", shm_private);
        fd = openat(AT_FDCWD, path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || !read_is(fd, "PRIVATE") || !(fcntl(fd, F_GETFD) & FD_CLOEXEC))
                return 3;
        if (write(fd, "private", 7) != 7)
                return 4;
        close(fd);
        /* open(2), no O_CLOEXEC: the caller's descriptor is inheritable, as asked. */
        fd = (int)syscall(SYS_open, path, O_RDONLY | O_NOFOLLOW);
        if (fd < 0 || !read_is(fd, "private") || (fcntl(fd, F_GETFD) & FD_CLOEXEC))
                return 5;
        close(fd);
        /* The access mode is the caller's: read-only stays read-only. */
        fd = openat(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || write(fd, "x", 1) != -1 || errno != EBADF)
                return 6;
        close(fd);
        /* A symlink in the private directory is never followed. */
        snprintf(path, sizeof(path), "/dev/shm/%s", shm_link);
        if (openat(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) >= 0 || errno != ELOOP)
                return 7;
        /* What a regular file cannot be: refused as on create. */
        snprintf(path, sizeof(path), "/dev/shm/%s", shm_private);
        if (openat(AT_FDCWD, path, O_PATH | O_NOFOLLOW | O_CLOEXEC) >= 0 || errno != EINVAL)
                return 8;
        /* Not a /dev/shm name: runs as made (here without Landlock, so it opens). */
        fd = openat(AT_FDCWD, other_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || !read_is(fd, "OTHER"))
                return 9;
        close(fd);
        /* A directory with O_NOFOLLOW (fts) is not notified: the host's /dev/shm itself. */
        fd = openat(AT_FDCWD, "/dev/shm", O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return 10;
        close(fd);
        /* Without O_NOFOLLOW nothing is notified: the host's file (Landlock keeps it closed in a
         * launch). */
        snprintf(path, sizeof(path), "/dev/shm/%s", shm_host);
        fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || !read_is(fd, "HOST"))
                return 11;
        close(fd);
        return 0;
}

static void write_at(int dirfd, const char *name, const char *text)
{
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        cr_assert_geq(fd, 0, "%s: %m", name);
        cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
}

Test(notify, shm_open_existing_name)
{
        if (!cordon_seccomp_notify_available())
                cr_skip_test("no seccomp user notifications with ADDFD_FLAG_SEND here");
        if (access("/dev/shm", W_OK) < 0)
                cr_skip_test("no writable /dev/shm here");
        char dir[] = "/tmp/cordon-test-notify-XXXXXX";
        cr_assert_not_null(mkdtemp(dir));
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(dirfd, 0);
        snprintf(shm_private, sizeof(shm_private), "cordon-unit-priv-%d", (int)getpid());
        snprintf(shm_host, sizeof(shm_host), "cordon-unit-host-%d", (int)getpid());
        snprintf(shm_link, sizeof(shm_link), "cordon-unit-link-%d", (int)getpid());
        snprintf(other_file, sizeof(other_file), "%s/other", dir);
        write_at(dirfd, shm_private, "PRIVATE");
        write_at(dirfd, "other", "OTHER");
        cr_assert_eq(symlinkat(other_file, dirfd, shm_link), 0);
        char host[PATH_MAX];
        snprintf(host, sizeof(host), "/dev/shm/%s", shm_host);
        write_at(AT_FDCWD, host, "HOST");

        const struct cordon_seccomp_key k = {.notify = true};
        shm_stand_in = true;
        int with = served_full(&k, dirfd, INT_MIN, NULL);
        shm_stand_in = false;
        int without = served_full(&k, -1, INT_MIN, NULL);

        unlink(host);
        unlinkat(dirfd, shm_private, 0);
        unlinkat(dirfd, shm_link, 0);
        unlinkat(dirfd, "other", 0);
        close(dirfd);
        rmdir(dir);
        cr_expect_eq(with, 0, "with the private directory: step %d answered otherwise", with);
        cr_expect_eq(without, 0, "without one: step %d answered otherwise", without);
}
