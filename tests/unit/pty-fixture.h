/* Shared fixture of the pty tests (test-pty.c): an outer pty pair whose slave plays the user's
 * terminal and whose master the user's keyboard and screen, a forked child on the inner pty, and
 * the event loop that runs the relay next to the "terminal emulator". */
#pragma once

#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "lib/terminal/pty.h"
#include "shared/macro.h"

#define SCREEN_MAX (2u * 1024 * 1024)
#define BINARY_LEN (1u * 1024 * 1024)

static struct cordon_pty *pty; /* 128 KiB: on the heap */
static bool opened;
static int outer_master = -EBADF, outer_slave = -EBADF;
static char outer_name[64];
static dev_t outer_rdev;
static pid_t child = -1;
static uint8_t *screen; /* what the outer master (the user's screen) received */
static size_t screen_len;
static bool done;           /* cordon_pty_relay() returned 1 */
static bool no_keyboard;    /* the relay does not read the user's terminal */
static int screen_fd;       /* where the screen is read from: the outer master unless a test says */
static size_t screen_chunk; /* at most this much per poll round: a slow reader */

static int64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void setup(void)
{
        pty = calloc(1, sizeof(*pty));
        screen = malloc(SCREEN_MAX);
        cr_assert(pty && screen);
        opened = done = no_keyboard = false;
        screen_len = 0;
        screen_chunk = SCREEN_MAX;
        child = -1;

        outer_master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        cr_assert_geq(outer_master, 0, "posix_openpt: %m");
        cr_assert_eq(grantpt(outer_master), 0);
        cr_assert_eq(unlockpt(outer_master), 0);
        cr_assert_eq(ptsname_r(outer_master, outer_name, sizeof(outer_name)), 0);
        outer_slave = open(outer_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        cr_assert_geq(outer_slave, 0, "open %s: %m", outer_name);
        struct stat st;
        cr_assert_eq(fstat(outer_slave, &st), 0);
        outer_rdev = st.st_rdev;
        struct winsize ws = {.ws_row = 33, .ws_col = 101};
        cr_assert_eq(ioctl(outer_master, TIOCSWINSZ, &ws), 0);
        screen_fd = outer_master;
}

static void teardown(void)
{
        if (child > 0) {
                kill(child, SIGKILL);
                waitpid(child, NULL, 0);
                child = -1;
        }
        if (opened)
                cordon_pty_close(pty);
        free(pty);
        free(screen);
        outer_master = safe_close(outer_master);
        outer_slave = safe_close(outer_slave);
}

/* Opens the inner pty on the outer slave (output to @out_fd), puts the outer slave in raw mode and
 * forks. Returns 0 in the child, which is ready for child_run() (after any steps of a test's
 * own), and the child's pid in the parent. */
static pid_t open_and_fork(int out_fd)
{
        cr_assert_eq(cordon_pty_open(pty, outer_slave, out_fd), 1);
        opened = true;
        cr_assert_eq(cordon_pty_enter_raw(pty), 0);
        child = fork();
        cr_assert_geq(child, 0);
        if (child == 0) {
                /* The test's own end of the user's terminal, not cordon's to hand on. */
                close(outer_master);
                /* A runner started in the background (nohup, make from a script with &) hands
                 * SIGINT and SIGQUIT down ignored, and exec keeps that: ^C would do nothing. */
                signal(SIGINT, SIG_DFL);
                signal(SIGQUIT, SIG_DFL);
                alarm(10);
        }
        return child;
}

/* In the child: takes the inner pty and runs @fn. */
_Noreturn static void child_run(void (*fn)(const void *), const void *arg)
{
        int r = cordon_pty_child_setup(pty);
        if (r < 0)
                _exit(100 + (-r & 0x1f));
        fn(arg);
        _exit(0);
}

/* open_and_fork() with a child that takes the inner pty and runs @fn at once. */
static void start(int out_fd, void (*fn)(const void *), const void *arg)
{
        if (open_and_fork(out_fd) == 0)
                child_run(fn, arg);
        cordon_pty_parent_after_clone(pty);
        cr_assert_lt(pty->slave, 0);
}

static void run_sh(const void *script)
{
        execl("/bin/sh", "sh", "-c", (const char *)script, (char *)NULL);
        _exit(127);
}

/* Waits up to @timeout_ms for the child; kills it when it takes longer. Returns the status. */
static int reap(int timeout_ms)
{
        int64_t deadline = now_ms() + timeout_ms;
        int status = 0;
        for (;;) {
                pid_t r = waitpid(child, &status, WNOHANG);
                cr_assert_geq(r, 0);
                if (r == child)
                        break;
                if (now_ms() > deadline) {
                        kill(child, SIGKILL);
                        waitpid(child, NULL, 0);
                        child = -1;
                        cr_assert_fail("child still running after %d ms", timeout_ms);
                }
                usleep(5000);
        }
        child = -1;
        return status;
}

static void read_screen(void)
{
        for (size_t got = 0; got < screen_chunk;) {
                cr_assert_lt(screen_len, SCREEN_MAX, "screen overflow");
                size_t want = SCREEN_MAX - screen_len;
                if (want > screen_chunk - got)
                        want = screen_chunk - got;
                ssize_t n = read(screen_fd, screen + screen_len, want);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                cr_assert_gt(n, 0, "read screen: %zd %m", n);
                screen_len += (size_t)n;
                got += (size_t)n;
        }
}

static bool on_screen(const char *s)
{
        return memmem(screen, screen_len, s, strlen(s)) != NULL;
}

enum until {
        UNTIL_DONE,  /* the relay reported the inside finished */
        UNTIL_TEXT,  /* @text is on the screen */
        UNTIL_BYTES, /* @bytes have arrived on the screen */
};

/* One event loop, as the supervisor will run it: the relay's fds plus the outer master. */
static bool pump(enum until until, const char *text, size_t bytes, int timeout_ms)
{
        int64_t deadline = now_ms() + timeout_ms;
        for (;;) {
                if ((until == UNTIL_DONE && done) || (until == UNTIL_TEXT && on_screen(text)) ||
                    (until == UNTIL_BYTES && screen_len >= bytes))
                        return true;
                int64_t left = deadline - now_ms();
                if (left <= 0)
                        return false;

                struct pollfd fds[CORDON_PTY_POLL_MAX + 1];
                cordon_pty_poll_fds(pty, fds);
                if (no_keyboard)
                        fds[CORDON_PTY_POLL_USER_IN].fd = -1;
                fds[CORDON_PTY_POLL_MAX] = (struct pollfd){.fd = screen_fd, .events = POLLIN};
                int n = poll(fds, ELEMENTSOF(fds), left > 100 ? 100 : (int)left);
                cr_assert(n >= 0 || errno == EINTR, "poll: %m");
                if (n <= 0)
                        continue;
                int r = cordon_pty_relay(pty, fds);
                cr_assert_geq(r, 0, "relay: %s", strerror(-r));
                if (r == 1) {
                        /* Finished means drained too. */
                        cr_assert(pty->master_eof);
                        cr_assert(pty->out_dead || pty->out.head == pty->out.tail);
                        done = true;
                }
                if (fds[CORDON_PTY_POLL_MAX].revents & POLLIN)
                        read_screen();
        }
}

#define PUMP_TEXT(s, ms)                                                                           \
        cr_assert(pump(UNTIL_TEXT, (s), 0, (ms)), "'%s' not on the screen: '%.*s'", (s),           \
                  (int)(screen_len > 2000 ? 2000 : screen_len), (const char *)screen)
/* Only the "terminal emulator": reads the outer master, the relay does not run. */
static bool watch(const char *text, int timeout_ms)
{
        int64_t deadline = now_ms() + timeout_ms;
        while (!on_screen(text)) {
                int64_t left = deadline - now_ms();
                if (left <= 0)
                        return false;
                struct pollfd pfd = {.fd = screen_fd, .events = POLLIN};
                if (poll(&pfd, 1, (int)left) > 0)
                        read_screen();
        }
        return true;
}

#define PUMP_DONE(ms) cr_assert(pump(UNTIL_DONE, NULL, 0, (ms)), "relay did not finish")

static void type(const char *s)
{
        cr_assert_eq(write(outer_master, s, strlen(s)), (ssize_t)strlen(s));
}

/* Bytes waiting in the user terminal's input queue (all of them while it is raw). */
static int outer_input_queued(void)
{
        int n = -1;
        cr_assert_eq(ioctl(outer_slave, FIONREAD, &n), 0);
        return n;
}
