/* Unit tests for src/lib/terminal/pty.c. CI has no terminal, so each test makes one: an outer pty
 * pair whose slave plays the user's terminal and whose master the user's keyboard and screen.
 * Interactive tests fork a child that takes the inner pty (cordon_pty_child_setup()) and run the
 * relay here, in one poll() loop with the "terminal emulator" reading the outer master. Every wait
 * has a deadline and every child is reaped (killed first, in the teardown, when a test failed). The
 * fixture is in pty-fixture.h. */
#include <dirent.h>
#include <grp.h>
#include <sys/socket.h>

#include "lib/launch/control.h"
#include "pty-fixture.h"
#include "shared/fd-util.h"

TestSuite(pty, .init = setup, .fini = teardown, .timeout = 30);

/* (1) Not a terminal: no pty, nothing to poll, every call a no-op. */
Test(pty, not_a_terminal)
{
        int p[2];
        cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
        cr_assert_eq(cordon_pty_open(pty, p[0], p[1]), 0);
        opened = true;
        cr_assert_lt(pty->master, 0);
        cr_assert_lt(pty->slave, 0);
        cr_assert_lt(pty->tty, 0);

        struct pollfd fds[CORDON_PTY_POLL_MAX];
        cordon_pty_poll_fds(pty, fds);
        for (size_t i = 0; i < ELEMENTSOF(fds); i++)
                cr_assert_eq(fds[i].fd, -1);
        cr_assert_eq(cordon_pty_relay(pty, fds), 0);
        cr_assert_eq(cordon_pty_enter_raw(pty), 0);
        cr_assert_eq(cordon_pty_resize(pty), 0);
        cr_assert_eq(cordon_pty_child_setup(pty), -EBADF);
        cordon_pty_restore(pty);
        cordon_pty_close(pty);
        cordon_pty_close(pty);
        /* The caller's fds are not ours to close. */
        cr_assert_eq(fcntl(p[0], F_GETFD) >= 0 && fcntl(p[1], F_GETFD) >= 0, true);

        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        cr_assert_geq(null, 0);
        cr_assert_eq(cordon_pty_open(pty, null, null), 0);
        cr_assert_eq(cordon_pty_open(pty, -1, 1), 0);
        close(null);
        close(p[0]);
        close(p[1]);
        /* A closed fd is an error, not "no terminal". */
        cr_assert_eq(cordon_pty_open(pty, p[0], 1), -EBADF);
}

/* (2) The inner pty starts with the outer size and modes; its fds are as documented. */
Test(pty, open_copies_size_and_modes)
{
        struct termios t;
        cr_assert_eq(tcgetattr(outer_slave, &t), 0);
        t.c_cc[VERASE] = 0x08; /* something a fresh pty would not have */
        cr_assert_eq(tcsetattr(outer_slave, TCSANOW, &t), 0);

        cr_assert_eq(cordon_pty_open(pty, outer_slave, outer_slave), 1);
        opened = true;
        cr_assert_eq(pty->tty, outer_slave);

        struct winsize ws = {0};
        cr_assert_eq(ioctl(pty->master, TIOCGWINSZ, &ws), 0);
        cr_assert_eq(ws.ws_row, 33);
        cr_assert_eq(ws.ws_col, 101);

        struct termios inner;
        cr_assert_eq(tcgetattr(pty->slave, &inner), 0);
        cr_assert_eq(inner.c_cc[VERASE], 0x08);
        cr_assert_eq(inner.c_lflag, t.c_lflag);
        cr_assert_eq(inner.c_iflag, t.c_iflag);
        cr_assert_eq(inner.c_oflag, t.c_oflag);

        cr_assert(fcntl(pty->master, F_GETFL) & O_NONBLOCK);
        cr_assert(fcntl(pty->master, F_GETFD) & FD_CLOEXEC);
        cr_assert(fcntl(pty->slave, F_GETFD) & FD_CLOEXEC);
        /* Non-blocking through a description of our own; the shared one is left alone. */
        cr_assert_geq(pty->private_tty, 0);
        cr_assert(fcntl(pty->private_tty, F_GETFL) & O_NONBLOCK);
        cr_assert(fcntl(pty->private_tty, F_GETFD) & FD_CLOEXEC);
        cr_assert_eq(fcntl(outer_slave, F_GETFL) & O_NONBLOCK, 0);
        cr_assert_eq(pty->user_in, pty->private_tty);
        cr_assert_eq(pty->user_out, pty->private_tty);

        char inner_name[64];
        cr_assert_eq(ptsname_r(pty->master, inner_name, sizeof(inner_name)), 0);
        cr_assert_str_neq(inner_name, outer_name);

        /* Output elsewhere than the terminal is used as it is. */
        cordon_pty_close(pty);
        cr_assert_eq(cordon_pty_open(pty, outer_slave, STDERR_FILENO), 1);
        if (!isatty(STDERR_FILENO))
                cr_assert_eq(pty->user_out, STDERR_FILENO);
}

/* (3) Raw mode on the outer terminal, and back to the exact saved termios. */
Test(pty, raw_and_restore)
{
        struct termios before, raw, after;
        memset(&before, 0, sizeof(before));
        memset(&raw, 0, sizeof(raw));
        memset(&after, 0, sizeof(after));
        cr_assert_eq(tcgetattr(outer_slave, &before), 0);
        cr_assert(before.c_lflag & ICANON);

        cr_assert_eq(cordon_pty_open(pty, outer_slave, outer_slave), 1);
        opened = true;
        cr_assert_eq(cordon_pty_enter_raw(pty), 0);
        cr_assert(pty->raw);
        cr_assert_eq(cordon_pty_enter_raw(pty), 0);
        cr_assert_eq(tcgetattr(outer_slave, &raw), 0);
        cr_assert_eq(raw.c_lflag & (ICANON | ECHO | ISIG | IEXTEN), 0);
        cr_assert_eq(raw.c_oflag & OPOST, 0);
        cr_assert_eq(raw.c_iflag & (ICRNL | IXON), 0);
        cr_assert_eq(raw.c_cc[VMIN], 1);
        cr_assert_eq(raw.c_cc[VTIME], 0);

        cordon_pty_restore(pty);
        cr_assert_not(pty->raw);
        cr_assert_eq(tcgetattr(outer_slave, &after), 0);
        cr_assert_eq(memcmp(&before, &after, sizeof(before)), 0);

        /* Again, and through close: nothing changes any more. */
        cordon_pty_restore(pty);
        cr_assert_eq(cordon_pty_enter_raw(pty), 0);
        cordon_pty_close(pty);
        memset(&after, 0, sizeof(after));
        cr_assert_eq(tcgetattr(outer_slave, &after), 0);
        cr_assert_eq(memcmp(&before, &after, sizeof(before)), 0);
        cordon_pty_close(pty);
}

/* (4) An interactive shell: size and terminal of its own, input, output, finish, all drained. */
Test(pty, interactive_shell)
{
        start(outer_slave, run_sh, "stty size; tty; echo hello; read x; echo got:$x");
        PUMP_TEXT("hello\r\n", 5000);
        type("abc\r");
        PUMP_TEXT("got:abc\r\n", 5000);
        PUMP_DONE(5000);
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);

        cr_assert(on_screen("33 101\r\n"));
        /* The inner pty adds the CR; the outer, raw, must not add another. */
        cr_assert_not(on_screen("\r\r\n"));
        const uint8_t *p = memmem(screen, screen_len, "/dev/pts/", 9);
        cr_assert_not_null(p);
        const uint8_t *e = memchr(p, '\r', screen_len - (size_t)(p - screen));
        cr_assert_not_null(e);
        char name[64];
        cr_assert_lt((size_t)(e - p), sizeof(name));
        memcpy(name, p, (size_t)(e - p));
        name[e - p] = 0;
        cr_assert_str_neq(name, outer_name);
        cr_assert(pty->master_eof);
        cr_assert_eq(pty->out.tail - pty->out.head, 0);

        /* Typed after the inside finished: left for the user's shell, not eaten. */
        type("ls\r");
        cr_assert_not(pump(UNTIL_TEXT, "never", 0, 200));
        cr_assert_eq(outer_input_queued(), 3);
}

/* After the command exited, what it wrote is still in the master; drain delivers all of it. */
Test(pty, drain_after_exit)
{
        start(outer_slave, run_sh,
              "i=0; while [ $i -lt 200 ]; do echo line$i; i=$((i+1)); done; echo end");
        /* No relaying while it runs: everything waits in the inner pty. */
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
        cr_assert_eq(cordon_pty_drain(pty, 5000), 1);
        cr_assert(pty->master_eof);
        cr_assert_eq(pty->out.tail - pty->out.head, 0);
        cr_assert(watch("line199\r\nend\r\n", 2000), "%.*s", (int)screen_len, (const char *)screen);
        cr_assert(on_screen("line0\r\nline1\r\n"));
        /* Drained already: at once. */
        cr_assert_eq(cordon_pty_drain(pty, 0), 1);
}

/* A holder of the slave that does not go away: drain gives up at its deadline. */
Test(pty, drain_times_out)
{
        start(outer_slave, run_sh, "exec sleep 3");
        int64_t t0 = now_ms();
        cr_assert_eq(cordon_pty_drain(pty, 200), 0);
        int64_t took = now_ms() - t0;
        cr_assert(took >= 150 && took < 2000, "took %lld ms", (long long)took);
        kill(child, SIGKILL);
        reap(2000);
        cr_assert_eq(cordon_pty_drain(pty, 2000), 1);
}

static void wait_winch(const void *arg)
{
        (void)arg;
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGWINCH);
        sigprocmask(SIG_BLOCK, &set, NULL);
        dprintf(1, "ready\n");
        struct timespec ts = {.tv_sec = 5};
        if (sigtimedwait(&set, NULL, &ts) != SIGWINCH) {
                dprintf(1, "no-winch\n");
                _exit(1);
        }
        struct winsize ws;
        if (ioctl(0, TIOCGWINSZ, &ws) < 0)
                _exit(2);
        dprintf(1, "winch %d %d\n", ws.ws_row, ws.ws_col);
}

/* (5) A resize of the user's terminal reaches the inside, with SIGWINCH. */
Test(pty, resize)
{
        start(outer_slave, wait_winch, NULL);
        PUMP_TEXT("ready\r\n", 5000);
        struct winsize ws = {.ws_row = 40, .ws_col = 120};
        cr_assert_eq(ioctl(outer_master, TIOCSWINSZ, &ws), 0);
        cr_assert_eq(cordon_pty_resize(pty), 0);
        memset(&ws, 0, sizeof(ws));
        cr_assert_eq(ioctl(pty->master, TIOCGWINSZ, &ws), 0);
        cr_assert_eq(ws.ws_row, 40);
        cr_assert_eq(ws.ws_col, 120);
        PUMP_TEXT("winch 40 120\r\n", 5000);
        PUMP_DONE(5000);
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

/* Whether a child of @parent runs @comm (after its exec: dash forks with SIGINT caught, and a
 * SIGINT caught between fork and exec would be lost, leaving the sleep to run out). */
static bool child_runs(pid_t parent, const char *comm)
{
        DIR *d = opendir("/proc");
        cr_assert_not_null(d);
        bool found = false;
        struct dirent *de;
        while (!found && (de = readdir(d))) {
                char path[300], buf[256];
                if (de->d_name[0] < '1' || de->d_name[0] > '9')
                        continue;
                snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                ssize_t n = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (n <= 0)
                        continue;
                buf[n] = 0;
                /* pid (comm) state ppid ... */
                char *open_ = strchr(buf, '('), *close_ = strrchr(buf, ')');
                int ppid;
                if (!open_ || !close_ || sscanf(close_ + 1, " %*c %d", &ppid) != 1)
                        continue;
                *close_ = 0;
                found = ppid == parent && streq(open_ + 1, comm);
        }
        closedir(d);
        return found;
}

/* (6) ^C is a byte to the outer (raw) terminal; the inner line discipline turns it into SIGINT
 * for the inner foreground process group. */
Test(pty, ctrl_c)
{
        start(outer_slave, run_sh, "echo ready; sleep 5; echo survived");
        PUMP_TEXT("ready\r\n", 5000);
        int64_t deadline = now_ms() + 5000;
        while (!child_runs(child, "sleep")) {
                cr_assert_lt(now_ms(), deadline, "sleep did not start");
                usleep(2000);
        }
        int64_t t0 = now_ms();
        type("\x03");
        /* Generous bounds: CI runs this next to parallel builds; "sleep 5" is the limit. */
        PUMP_DONE(4500);
        int status = reap(4500 - (int)(now_ms() - t0));
        cr_assert(now_ms() - t0 < 4500);
        cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "status %#x", status);
        cr_assert_not(on_screen("survived"));
}

static uint8_t pattern(size_t i)
{
        return (uint8_t)(i * 7 + (i >> 12));
}

static void write_binary(const void *arg)
{
        (void)arg;
        struct termios t;
        if (tcgetattr(1, &t) < 0)
                _exit(2);
        cfmakeraw(&t);
        if (tcsetattr(1, TCSANOW, &t) < 0)
                _exit(3);
        uint8_t buf[4096];
        for (size_t off = 0; off < BINARY_LEN; off += sizeof(buf)) {
                for (size_t i = 0; i < sizeof(buf); i++)
                        buf[i] = pattern(off + i);
                for (size_t done_ = 0; done_ < sizeof(buf);) {
                        ssize_t n = write(1, buf + done_, sizeof(buf) - done_);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0)
                                _exit(4);
                        done_ += (size_t)n;
                }
        }
}

static void check_binary(size_t len)
{
        cr_assert_eq(screen_len, len);
        bool seen[256] = {false};
        for (size_t i = 0; i < len; i++) {
                cr_assert_eq(screen[i], pattern(i), "byte %zu: %#x, not %#x", i, screen[i],
                             pattern(i));
                seen[screen[i]] = true;
        }
        for (size_t v = 0; v < 256; v++)
                cr_assert(seen[v], "byte value %zu never sent", v);
}

/* (7) 1 MiB of every byte value arrives unchanged (both ptys raw), through full buffers. */
Test(pty, binary_transparency)
{
        start(outer_slave, write_binary, NULL);
        /* Byte for byte is what --terminal-passthrough gives: the escape sequences in the
         * pattern would be filtered otherwise (test-term-filter.c tests the filter). */
        cordon_pty_set_passthrough(pty, true);
        PUMP_DONE(20000);
        cr_assert(pump(UNTIL_BYTES, NULL, BINARY_LEN, 5000), "only %zu bytes", screen_len);
        /* Nothing more may follow. */
        struct pollfd pfd = {.fd = outer_master, .events = POLLIN};
        if (poll(&pfd, 1, 100) > 0)
                read_screen();
        check_binary(BINARY_LEN);
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

/* The same into a small pipe read 1000 bytes at a time: partial writes, a full buffer, data
 * moved to the front of it. */
Test(pty, binary_slow_reader)
{
        int p[2];
        cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        cr_assert_eq(fcntl(p[1], F_SETPIPE_SZ, 4096), 4096);
        screen_fd = p[0];
        screen_chunk = 1000;
        start(p[1], write_binary, NULL);
        cordon_pty_set_passthrough(pty, true);
        PUMP_DONE(60000);
        cr_assert(pump(UNTIL_BYTES, NULL, BINARY_LEN, 5000), "only %zu bytes", screen_len);
        check_binary(BINARY_LEN);
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
        close(p[0]);
        close(p[1]);
}

static void inject(const void *arg)
{
        (void)arg;
        const char *s = "INJ\n";
        int err = 0;
        for (const char *c = s; *c; c++)
                if (ioctl(0, TIOCSTI, c) < 0) {
                        err = errno;
                        break;
                }
        if (err == 0) {
                /* It went into the inner pty's input: read it back. */
                char buf[16];
                ssize_t n = read(0, buf, sizeof(buf));
                dprintf(1, "inner-got:%.*s", n > 0 ? (int)n : 0, buf);
        } else
                dprintf(1, "tiocsti-refused:%d\n", err);
        /* 0, 1 and 2 are the inner terminal, and it is the controlling one. */
        struct stat st0, st1, st2;
        if (fstat(0, &st0) == 0 && fstat(1, &st1) == 0 && fstat(2, &st2) == 0 && isatty(0) &&
            st0.st_rdev == st1.st_rdev && st1.st_rdev == st2.st_rdev && st0.st_rdev != outer_rdev &&
            tcgetsid(0) == getsid(0) && tcgetpgrp(0) == getpgrp())
                dprintf(2, "stdfds-ok\n");
        /* No fd inside may be the user's terminal. */
        for (int fd = 0; fd < 1024; fd++) {
                struct stat st;
                if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == outer_rdev)
                        dprintf(1, "LEAK fd %d\n", fd);
        }
        dprintf(1, "scan-done\n");
}

/* (8) TIOCSTI from inside lands in the inner pty (or is refused), never in the user's terminal;
 * nothing inside holds a descriptor of the user's terminal. */
Test(pty, tiocsti_stays_inside)
{
        /* Keyboard input stays queued in the outer slave so an injection there would show. The
         * outer is raw (start()), so FIONREAD counts bytes, not completed lines. */
        no_keyboard = true;
        start(outer_slave, inject, NULL);
        PUMP_TEXT("scan-done\r\n", 5000);
        PUMP_DONE(5000);
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
        cr_assert(on_screen("inner-got:INJ") || on_screen("tiocsti-refused:"), "%.*s",
                  (int)screen_len, (const char *)screen);
        cr_log_info("TIOCSTI inside: %s",
                    on_screen("inner-got:INJ") ? "went into the inner pty" : "refused");
        cr_assert(on_screen("stdfds-ok\r\n"));
        cr_assert_not(on_screen("LEAK"), "%.*s", (int)screen_len, (const char *)screen);
        cr_assert_eq(outer_input_queued(), 0);

        /* Control: input that does reach the outer slave is counted. */
        type("k");
        struct pollfd pfd = {.fd = outer_slave, .events = POLLIN};
        cr_assert_eq(poll(&pfd, 1, 2000), 1);
        cr_assert_eq(outer_input_queued(), 1);
        cr_assert_eq(tcflush(outer_slave, TCIFLUSH), 0);
        cr_assert_eq(outer_input_queued(), 0);

        /* Control: TIOCSTI by a process whose terminal the outer slave is does land there. */
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                alarm(5);
                if (setsid() < 0 || ioctl(outer_slave, TIOCSCTTY, 0) < 0)
                        _exit(100);
                _exit(ioctl(outer_slave, TIOCSTI, "Z") < 0 ? errno : 0);
        }
        child = pid;
        status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) != 100, "status %#x", status);
        if (WEXITSTATUS(status) != 0) {
                cr_log_warn("control TIOCSTI refused (errno %d, dev.tty.legacy_tiocsti=0?)",
                            WEXITSTATUS(status));
                return;
        }
        cr_assert_eq(outer_input_queued(), 1);
}

/* The slave on fd 0..2 (the supervisor started with that std fd closed): dup2() onto itself keeps
 * FD_CLOEXEC, so child_setup has to clear it or exec closes the command's stdout. */
Test(pty, slave_on_a_standard_fd)
{
        if (open_and_fork(outer_slave) == 0) {
                if (dup3(pty->slave, 1, O_CLOEXEC) < 0)
                        _exit(99);
                close(pty->slave);
                pty->slave = 1;
                child_run(run_sh, "echo out-ok; tty");
        }
        cordon_pty_parent_after_clone(pty);
        PUMP_TEXT("out-ok\r\n/dev/pts/", 5000);
        PUMP_DONE(5000);
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

/* Output to a pipe rather than the terminal, and output with nobody left to read it. */
Test(pty, output_to_pipe)
{
        int p[2];
        cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        start(p[1], run_sh, "echo piped");
        PUMP_DONE(5000);
        cr_assert_eq(reap(5000), 0);
        char buf[64] = {0};
        cr_assert_eq(read(p[0], buf, sizeof(buf) - 1), 7);
        cr_assert_str_eq(buf, "piped\r\n");
        cr_assert_eq(screen_len, 0);
        cordon_pty_close(pty);
        done = false;

        /* The reader is gone: the output is dropped, no SIGPIPE, and the relay still finishes. */
        close(p[0]);
        start(p[1], run_sh, "i=0; while [ $i -lt 2000 ]; do echo lost$i; i=$((i+1)); done");
        PUMP_DONE(5000);
        cr_assert(pty->out_dead);
        cr_assert_eq(reap(5000), 0);
        close(p[1]);
}

/* An output fd that takes nothing: the relay holds the output back (and so the inside), and
 * reports the inside finished only once all of it is written. */
Test(pty, finish_waits_for_output)
{
        int p[2];
        cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        cr_assert_eq(fcntl(p[1], F_SETPIPE_SZ, 4096), 4096);
        static char fill[4096];
        cr_assert_eq(write(p[1], fill, sizeof(fill)), (ssize_t)sizeof(fill));

        start(p[1], run_sh, "echo one; echo two");
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
        /* The inside is gone, the output is not written yet: not finished. */
        int64_t deadline = now_ms() + 2000;
        while (!pty->master_eof) {
                cr_assert_lt(now_ms(), deadline);
                cr_assert_not(pump(UNTIL_DONE, NULL, 0, 50));
        }
        cr_assert_gt(pty->out.tail - pty->out.head, 0);
        cr_assert_not(pump(UNTIL_DONE, NULL, 0, 100));

        char buf[sizeof(fill) + 64];
        cr_assert_eq(read(p[0], buf, sizeof(buf)), (ssize_t)sizeof(fill));
        PUMP_DONE(2000);
        ssize_t n = read(p[0], buf, sizeof(buf));
        cr_assert_eq(n, 10, "read %zd", n);
        cr_assert_eq(memcmp(buf, "one\r\ntwo\r\n", 10), 0);
        close(p[0]);
        close(p[1]);
}

/* A write that fails with EPIPE (SIGPIPE ignored, as documented) ends output without an error. */
Test(pty, output_epipe)
{
        int p[2];
        cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        struct sigaction ign = {.sa_handler = SIG_IGN}, old;
        cr_assert_eq(sigaction(SIGPIPE, &ign, &old), 0);
        cr_assert_eq(cordon_pty_open(pty, outer_slave, p[1]), 1);
        opened = true;
        close(p[0]);
        /* The slave is still ours: play the inside. */
        cr_assert_eq(write(pty->slave, "abc", 3), 3);
        struct pollfd fds[CORDON_PTY_POLL_MAX];
        cordon_pty_poll_fds(pty, fds);
        cr_assert_eq(fds[CORDON_PTY_POLL_USER_OUT].fd, -1);
        cr_assert_eq(fds[CORDON_PTY_POLL_MASTER_IN].fd, pty->master);
        cr_assert_eq(poll(&fds[CORDON_PTY_POLL_MASTER_IN], 1, 2000), 1);
        cr_assert_eq(cordon_pty_relay(pty, fds), 0);
        cr_assert_eq(pty->out.tail - pty->out.head, 3);

        /* As if poll() had said POLLOUT only. */
        cordon_pty_poll_fds(pty, fds);
        cr_assert_eq(fds[CORDON_PTY_POLL_USER_OUT].fd, p[1]);
        for (size_t i = 0; i < ELEMENTSOF(fds); i++)
                fds[i].revents = 0;
        fds[CORDON_PTY_POLL_USER_OUT].revents = POLLOUT;
        cr_assert_eq(cordon_pty_relay(pty, fds), 0);
        cr_assert(pty->out_dead);
        cr_assert_eq(pty->out.tail - pty->out.head, 0);
        cordon_pty_poll_fds(pty, fds);
        cr_assert_eq(fds[CORDON_PTY_POLL_USER_OUT].fd, -1);

        /* The inside closes: finished, with its output dropped. */
        cordon_pty_parent_after_clone(pty);
        cordon_pty_poll_fds(pty, fds);
        cr_assert_eq(poll(&fds[CORDON_PTY_POLL_MASTER_IN], 1, 2000), 1);
        cr_assert_eq(cordon_pty_relay(pty, fds), 1);
        cr_assert_eq(sigaction(SIGPIPE, &old, NULL), 0);
        close(p[1]);
}

/* The supervisor's side of the fallback test, in a process of its own: no Criterion asserts. */
static int fallback_supervisor(void)
{
        if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
                               setresuid(65534, 65534, 65534) < 0))
                return 10;
        if (cordon_pty_open(pty, outer_slave, outer_slave) != 1)
                return 11;
        /* The reopen was refused: the caller's fds, as they are. */
        if (pty->private_tty >= 0 || pty->user_in != outer_slave || pty->user_out != outer_slave)
                return 12;
        if (fcntl(outer_slave, F_GETFL) & O_NONBLOCK)
                return 13;
        if (cordon_pty_enter_raw(pty) < 0)
                return 14;
        pid_t pid = fork();
        if (pid < 0)
                return 15;
        if (pid == 0) {
                close(outer_master);
                if (cordon_pty_child_setup(pty) < 0)
                        _exit(127);
                run_sh("echo fallback; read x; echo got:$x");
        }
        cordon_pty_parent_after_clone(pty);
        int64_t deadline = now_ms() + 8000;
        int r = 0;
        while (r == 0 && now_ms() < deadline) {
                struct pollfd fds[CORDON_PTY_POLL_MAX];
                cordon_pty_poll_fds(pty, fds);
                if (poll(fds, CORDON_PTY_POLL_MAX, 100) > 0)
                        r = cordon_pty_relay(pty, fds);
        }
        int status;
        if (r != 1)
                kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        cordon_pty_close(pty);
        if (r != 1)
                return 16;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 17;
}

/* The user's terminal cannot be reopened (here: its node is mode 0 and we are not root): the
 * relay works on the caller's blocking fds, reading only after POLLIN. */
Test(pty, blocking_fallback)
{
        cr_assert_eq(chmod(outer_name, 0), 0);
        child = fork();
        cr_assert_geq(child, 0);
        if (child == 0) {
                alarm(10);
                _exit(fallback_supervisor());
        }
        cr_assert(watch("fallback\r\n", 5000), "%.*s", (int)screen_len, (const char *)screen);
        type("zz\r");
        cr_assert(watch("got:zz\r\n", 5000), "%.*s", (int)screen_len, (const char *)screen);
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

/* A command whose stdout is a pipe keeps the pipe: only fds that are the user's terminal (and
 * fd 0) get the slave, so `cordon run cmd | tee log` passes the bytes as written (no \r\n). */
Test(pty, keeps_std_fds_that_are_not_the_terminal)
{
        int p[2];
        cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
        if (open_and_fork(outer_slave) == 0) {
                /* The supervisor's own std fds: 0 and 2 the terminal, 1 a pipe. */
                if (dup2(outer_slave, 0) < 0 || dup2(p[1], 1) < 0 || dup2(outer_slave, 2) < 0)
                        _exit(99);
                cordon_pty_keep_other_std_fds(pty);
                if (pty->keep_std[0] || !pty->keep_std[1] || pty->keep_std[2])
                        _exit(98);
                child_run(run_sh, "printf 'a\\nb\\n'; test -t 0 && echo in-tty >&2; test -t 1 || "
                                  "echo out-pipe >&2");
        }
        close(p[1]);
        cordon_pty_parent_after_clone(pty);
        PUMP_TEXT("in-tty\r\nout-pipe\r\n", 5000);
        PUMP_DONE(5000);
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
        char buf[16] = {0};
        cr_assert_eq(read(p[0], buf, sizeof(buf) - 1), 4);
        cr_assert_str_eq(buf, "a\nb\n");
        close(p[0]);

        /* The control: without the marks, fd 1 is the pty and the bytes come back as \r\n. */
        cordon_pty_close(pty);
        cr_assert_eq(cordon_pty_open(pty, outer_slave, outer_slave), 1);
        cr_assert_not(pty->keep_std[1]);
}

/* The ns backend's move: the child makes a new pair from a ptmx (here the host's), takes its
 * slave and sends the master over the control channel; the parent adopts it, and the relay carries
 * on through the new pair. The control: the old slave, still open in the parent's copy of the fds
 * until adopt, is no longer the command's terminal. */
Test(pty, move_inside_and_adopt)
{
        int sv[2];
        cr_assert_eq(cordon_control_pair(sv), 0);
        if (open_and_fork(outer_slave) == 0) {
                close(sv[0]);
                struct stat old_slave;
                if (fstat(pty->slave, &old_slave) < 0)
                        _exit(89);
                int m = cordon_pty_move_inside(pty, "/dev/ptmx");
                if (m < 0)
                        _exit(90);
                struct cordon_control_msg msg = {
                    .type = CORDON_CONTROL_FD, .kind = CORDON_CONTROL_FD_PTY_MASTER, .fd = m};
                if (cordon_control_send(sv[1], &msg) < 0)
                        _exit(91);
                close(m);
                close(sv[1]);
                struct stat st;
                if (fstat(pty->slave, &st) < 0 || st.st_rdev == old_slave.st_rdev)
                        _exit(92);
                child_run(run_sh, "stty size; echo moved-ok");
        }
        close(sv[1]);
        cordon_pty_parent_after_clone(pty);
        struct cordon_control_msg msg;
        int r = cordon_control_recv(sv[0], 0, &msg);
        cr_assert_eq(r, 1, "cordon_control_recv: %s", strerror(-r));
        cr_assert_eq(msg.type, CORDON_CONTROL_FD);
        int m = msg.fd;
        cr_assert_geq(m, 0, "no descriptor came");
        cr_assert_eq(cordon_pty_adopt_master(pty, m), 0);
        cr_assert_eq(pty->master, m);
        PUMP_TEXT("33 101\r\nmoved-ok\r\n", 5000);
        PUMP_DONE(5000);
        int status = reap(5000);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
        close(sv[0]);
}
