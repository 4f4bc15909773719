/* The sandbox's own pseudo-terminal: creating it from the user's terminal, the child's side
 * (session, controlling terminal, standard fds), and the non-blocking relay the supervisor's
 * event loop drives between the user's terminal and the master. */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "lib/terminal/pty.h"
#include "shared/macro.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

static void buf_reset(struct cordon_pty_buf *b)
{
        b->head = b->tail = 0;
}

static size_t buf_used(const struct cordon_pty_buf *b)
{
        return b->tail - b->head;
}

static bool buf_has_room(const struct cordon_pty_buf *b)
{
        return buf_used(b) < sizeof(b->data);
}

/* Reads once from @fd into the free space of @b. Returns the read() result (0 at end of file),
 * -EAGAIN when nothing was there, -errno on failure. */
static ssize_t buf_fill(struct cordon_pty_buf *b, int fd)
{
        /* Keep the data at the front so the free space is one piece; at most 64 KiB to move, and
         * only when the writer fell behind. */
        if (b->head > 0) {
                memmove(b->data, b->data + b->head, buf_used(b));
                b->tail -= b->head;
                b->head = 0;
        }
        ssize_t n;
        do
                n = read(fd, b->data + b->tail, sizeof(b->data) - b->tail);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        b->tail += (size_t)n;
        return n;
}

/* Writes once from @b to @fd. Returns 0 or -errno (-EAGAIN when it would block). */
static int buf_flush(struct cordon_pty_buf *b, int fd)
{
        ssize_t n;
        do
                n = write(fd, b->data + b->head, buf_used(b));
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        b->head += (size_t)n;
        if (b->head == b->tail)
                buf_reset(b);
        return 0;
}

/* Room in `out` for one read and what the filter may add to it (a sequence it held back). */
static bool out_has_room(const struct cordon_pty *pty)
{
        return buf_used(&pty->out) + CORDON_TERM_FILTER_HOLD_MAX < sizeof(pty->out.data);
}

/* Reads once from the master into `out` through the filter, in place: the read lands
 * CORDON_TERM_FILTER_HOLD_MAX bytes behind the end of the data, which is what the filter may
 * write beyond what it reads (see cordon_term_filter_output()). Returns as buf_fill(). */
static ssize_t fill_out(struct cordon_pty *pty, int fd)
{
        struct cordon_pty_buf *b = &pty->out;
        if (b->head > 0) {
                memmove(b->data, b->data + b->head, buf_used(b));
                b->tail -= b->head;
                b->head = 0;
        }
        uint8_t *at = b->data + b->tail + CORDON_TERM_FILTER_HOLD_MAX;
        ssize_t n;
        do
                n = read(fd, at, sizeof(b->data) - b->tail - CORDON_TERM_FILTER_HOLD_MAX);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        b->tail += cordon_term_filter_output(&pty->filter, at, (size_t)n, b->data + b->tail);
        return n;
}

/* A private open file description of the terminal @fd, non-blocking, or -errno. The device is
 * checked to be the same one, so a /proc that is not ours cannot hand us something else. */
static int reopen_private(int fd)
{
        char path[sizeof("/proc/self/fd/") + 3 * sizeof(int)];
        struct stat a, b;

        if (fstat(fd, &a) < 0)
                return -errno;
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        _cleanup_close_ int nfd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        if (nfd < 0)
                return -errno;
        if (fstat(nfd, &b) < 0)
                return -errno;
        if (!S_ISCHR(b.st_mode) || a.st_rdev != b.st_rdev || !isatty(nfd))
                return -ENOTTY;
        return TAKE_FD(nfd);
}

static bool same_terminal(int a, int b)
{
        struct stat sa, sb;
        if (a == b)
                return true;
        return isatty(b) && fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && S_ISCHR(sa.st_mode) &&
               S_ISCHR(sb.st_mode) && sa.st_rdev == sb.st_rdev;
}

/* The slave of @master, opened without a path: TIOCGPTPEER (Linux 4.13) finds the peer of this
 * very master, where ptsname() + open() resolves a name that, in a container or with another
 * devpts instance mounted on /dev/pts, can be a different terminal. */
static int open_slave(int master)
{
        int fd = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (fd >= 0)
                return fd;
        if (errno != EINVAL && errno != ENOTTY)
                return -errno;

        char name[PATH_MAX];
        int r = ptsname_r(master, name, sizeof(name));
        if (r != 0)
                return -r;
        fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

int cordon_pty_open(struct cordon_pty *pty, int tty_fd, int out_fd)
{
        /* The buffers are left as they are: only their indexes matter. */
        pty->master = pty->slave = pty->private_tty = -EBADF;
        pty->tty = pty->user_in = pty->user_out = -EBADF;
        pty->out_fd = out_fd;
        pty->raw = pty->in_eof = pty->master_eof = pty->master_dead = pty->out_dead = false;
        pty->relayed = pty->finished = false;
        cordon_term_filter_init(&pty->filter, false);
        pty->keep_std[0] = pty->keep_std[1] = pty->keep_std[2] = false;
        buf_reset(&pty->in);
        buf_reset(&pty->out);

        if (tty_fd < 0)
                return 0;
        struct termios saved;
        if (tcgetattr(tty_fd, &saved) < 0)
                return errno == ENOTTY || errno == EINVAL ? 0 : -errno;

        struct winsize ws;
        if (ioctl(tty_fd, TIOCGWINSZ, &ws) < 0)
                return -errno;

        _cleanup_close_ int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        if (master < 0)
                return -errno;
        /* A no-op with devpts (the kernel sets the owner), kept for other setups. */
        if (grantpt(master) < 0 || unlockpt(master) < 0)
                return -errno;
        _cleanup_close_ int slave = open_slave(master);
        if (slave < 0)
                return slave;
        /* The inside starts like the outside: same modes, same control characters, same size. */
        if (tcsetattr(slave, TCSANOW, &saved) < 0)
                return -errno;
        if (ioctl(master, TIOCSWINSZ, &ws) < 0)
                return -errno;

        int priv = reopen_private(tty_fd);
        pty->private_tty = priv >= 0 ? priv : -EBADF;
        pty->user_in = priv >= 0 ? priv : tty_fd;
        pty->user_out = priv >= 0 && out_fd >= 0 && same_terminal(tty_fd, out_fd) ? priv : out_fd;
        if (out_fd < 0)
                pty->out_dead = true;

        pty->saved = saved;
        pty->tty = tty_fd;
        pty->master = TAKE_FD(master);
        pty->slave = TAKE_FD(slave);
        return 1;
}

void cordon_pty_set_passthrough(struct cordon_pty *pty, bool on)
{
        pty->filter.passthrough = on;
}

void cordon_pty_keep_other_std_fds(struct cordon_pty *pty)
{
        for (int fd = 1; fd <= 2; fd++)
                pty->keep_std[fd] = pty->tty >= 0 && fd != pty->tty && fcntl(fd, F_GETFD) >= 0 &&
                                    !same_terminal(pty->tty, fd);
}

static int tcsetattr_retry(int fd, const struct termios *t)
{
        int r;
        do
                r = tcsetattr(fd, TCSANOW, t);
        while (r < 0 && errno == EINTR);
        return r < 0 ? -errno : 0;
}

int cordon_pty_enter_raw(struct cordon_pty *pty)
{
        if (pty->tty < 0 || pty->raw)
                return 0;
        struct termios t = pty->saved;
        /* All of it, OPOST included: the inner pty already turned \n into \r\n. */
        cfmakeraw(&t);
        t.c_cc[VMIN] = 1;
        t.c_cc[VTIME] = 0;
        int r = tcsetattr_retry(pty->tty, &t);
        if (r < 0)
                return r;
        pty->raw = true;
        return 0;
}

void cordon_pty_restore(struct cordon_pty *pty)
{
        if (pty->tty < 0 || !pty->raw)
                return;
        int saved_errno = errno;
        sigset_t ttou, old;
        sigemptyset(&ttou);
        sigaddset(&ttou, SIGTTOU);
        sigprocmask(SIG_BLOCK, &ttou, &old);
        /* Best effort: a terminal that is gone needs no restoring. */
        (void)tcsetattr_retry(pty->tty, &pty->saved);
        sigprocmask(SIG_SETMASK, &old, NULL);
        pty->raw = false;
        errno = saved_errno;
}

int cordon_pty_child_setup(const struct cordon_pty *pty)
{
        int slave = pty->slave;
        const int others[] = {pty->master, pty->private_tty, pty->tty, pty->out_fd};

        if (slave < 0)
                return -EBADF;
        /* TIOCSCTTY needs a session leader without a controlling terminal. */
        if (getsid(0) != getpid() && setsid() < 0)
                return -errno;
        if (ioctl(slave, TIOCSCTTY, 0) < 0)
                return -errno;
        /* Before the dup2()s, so none of these can survive on a descriptor above 2: the user's
         * terminal in particular must not be reachable from inside. Those among 0..2 are
         * replaced right below. */
        for (size_t i = 0; i < ELEMENTSOF(others); i++)
                if (others[i] >= 0 && others[i] != slave &&
                    !(others[i] <= 2 && pty->keep_std[others[i]]))
                        close(others[i]);
        for (int fd = 0; fd <= 2; fd++) {
                /* dup2() onto itself keeps FD_CLOEXEC, which exec would then close. */
                if (pty->keep_std[fd] && fd != slave)
                        continue;
                if (fd == slave) {
                        if (fcntl(fd, F_SETFD, 0) < 0)
                                return -errno;
                } else if (dup2(slave, fd) < 0)
                        return -errno;
        }
        if (slave > 2)
                close(slave);
        return 0;
}

int cordon_pty_open_like(int like, const char *ptmx, int *ret_slave)
{
        struct termios t;
        struct winsize ws;

        if (tcgetattr(like, &t) < 0 || ioctl(like, TIOCGWINSZ, &ws) < 0)
                return -errno;
        _cleanup_close_ int master = open(ptmx, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (master < 0)
                return -errno;
        if (unlockpt(master) < 0)
                return -errno;
        _cleanup_close_ int slave = open_slave(master);
        if (slave < 0)
                return slave;
        if (tcsetattr(slave, TCSANOW, &t) < 0 || ioctl(master, TIOCSWINSZ, &ws) < 0)
                return -errno;
        *ret_slave = TAKE_FD(slave);
        return TAKE_FD(master);
}

int cordon_pty_move_inside(struct cordon_pty *pty, const char *ptmx)
{
        if (pty->slave < 0)
                return -EBADF;
        int slave = -EBADF;
        int master = cordon_pty_open_like(pty->slave, ptmx, &slave);
        if (master < 0)
                return master;
        safe_close(pty->slave);
        safe_close(pty->master);
        pty->slave = slave;
        pty->master = -EBADF;
        return master;
}

int cordon_pty_adopt_master(struct cordon_pty *pty, int master)
{
        int r = 0;
        int fl = fcntl(master, F_GETFL);
        if (fl < 0 || fcntl(master, F_SETFL, fl | O_NONBLOCK) < 0)
                r = -errno;
        else if (!isatty(master))
                r = -ENOTTY;
        if (r < 0) {
                safe_close(master);
                return r;
        }
        safe_close(pty->master);
        pty->master = master;
        return 0;
}

void cordon_pty_parent_after_clone(struct cordon_pty *pty)
{
        pty->slave = safe_close(pty->slave);
}

static void set_fd(struct pollfd *p, int fd, bool on, short events)
{
        *p = (struct pollfd){.fd = on ? fd : -1, .events = on ? events : 0};
}

void cordon_pty_poll_fds(const struct cordon_pty *pty, struct pollfd fds[CORDON_PTY_POLL_MAX])
{
        bool live = pty->master >= 0;
        /* Once the inside cannot take input any more, what the user types is left for the
         * shell they return to rather than eaten. */
        set_fd(&fds[CORDON_PTY_POLL_USER_IN], pty->user_in,
               live && !pty->in_eof && !pty->master_eof && !pty->master_dead && pty->user_in >= 0 &&
                   buf_has_room(&pty->in),
               POLLIN);
        set_fd(&fds[CORDON_PTY_POLL_MASTER_OUT], pty->master,
               live && !pty->master_dead && buf_used(&pty->in) > 0, POLLOUT);
        set_fd(&fds[CORDON_PTY_POLL_MASTER_IN], pty->master,
               live && !pty->master_eof && out_has_room(pty), POLLIN);
        set_fd(&fds[CORDON_PTY_POLL_USER_OUT], pty->user_out,
               live && !pty->out_dead && buf_used(&pty->out) > 0, POLLOUT);
}

static bool finished(const struct cordon_pty *pty)
{
        return pty->master_eof && (pty->out_dead || buf_used(&pty->out) == 0);
}

int cordon_pty_relay(struct cordon_pty *pty, const struct pollfd fds[CORDON_PTY_POLL_MAX])
{
        const struct pollfd *f;
        ssize_t n;
        int r;

        if (pty->master < 0)
                return 0;
        pty->relayed = true;
        for (size_t i = 0; i < CORDON_PTY_POLL_MAX; i++)
                if (fds[i].fd >= 0 && (fds[i].revents & POLLNVAL))
                        return -EBADF;

        /* Keyboard input. A hung-up terminal reads 0 (or EIO); stop reading it, the inside
         * decides on its own what to do without input. */
        f = &fds[CORDON_PTY_POLL_USER_IN];
        if (f->fd >= 0 && (f->revents & (POLLIN | POLLHUP | POLLERR))) {
                n = buf_fill(&pty->in, f->fd);
                if (n == 0 || n == -EIO)
                        pty->in_eof = true;
                else if (n < 0 && n != -EAGAIN)
                        return (int)n;
                else if (n > 0) /* answers to the queries the filter let through */
                        cordon_term_filter_input(&pty->filter, pty->in.data + pty->in.tail - n,
                                                 (size_t)n);
        }

        /* EIO: no slave holder is left to read it. */
        f = &fds[CORDON_PTY_POLL_MASTER_OUT];
        if (f->fd >= 0 && (f->revents & (POLLOUT | POLLHUP | POLLERR))) {
                r = buf_flush(&pty->in, f->fd);
                if (r == -EIO) {
                        pty->master_dead = true;
                        buf_reset(&pty->in);
                } else if (r < 0 && r != -EAGAIN)
                        return r;
        }

        /* The inside's output. Linux reads out what the slave wrote before it reports EIO for
         * the last close, so everything reaches the user. */
        f = &fds[CORDON_PTY_POLL_MASTER_IN];
        if (f->fd >= 0 && (f->revents & (POLLIN | POLLHUP | POLLERR))) {
                n = fill_out(pty, f->fd);
                if (n == 0 || n == -EIO)
                        pty->master_eof = true;
                else if (n < 0 && n != -EAGAIN)
                        return (int)n;
        }

        /* POLLERR on the output (a pipe without reader, a hung-up terminal) is taken as gone
         * without writing, which spares a SIGPIPE in the common case. */
        f = &fds[CORDON_PTY_POLL_USER_OUT];
        if (f->fd >= 0 && (f->revents & POLLERR)) {
                pty->out_dead = true;
                buf_reset(&pty->out);
        } else if (f->fd >= 0 && (f->revents & (POLLOUT | POLLHUP))) {
                r = buf_flush(&pty->out, f->fd);
                if (r == -EIO || r == -EPIPE) {
                        pty->out_dead = true;
                        buf_reset(&pty->out);
                } else if (r < 0 && r != -EAGAIN)
                        return r;
        }
        /* Output that has nowhere to go is read and dropped so the inside never blocks on it. */
        if (pty->out_dead)
                buf_reset(&pty->out);

        return finished(pty) ? 1 : 0;
}

static int64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int cordon_pty_drain(struct cordon_pty *pty, int timeout_ms)
{
        int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);

        if (pty->master < 0)
                return 1;
        for (;;) {
                struct pollfd fds[CORDON_PTY_POLL_MAX];
                int r;

                if (finished(pty))
                        return 1;
                cordon_pty_poll_fds(pty, fds);
                /* The command is gone: no more keyboard input, and none still queued for it. */
                fds[CORDON_PTY_POLL_USER_IN].fd = -1;
                fds[CORDON_PTY_POLL_MASTER_OUT].fd = -1;

                int64_t left = deadline - now_ms();
                if (left <= 0)
                        return 0;
                r = poll(fds, CORDON_PTY_POLL_MAX, left > INT_MAX ? INT_MAX : (int)left);
                if (r < 0 && errno != EINTR)
                        return -errno;
                if (r <= 0)
                        continue;
                r = cordon_pty_relay(pty, fds);
                if (r != 0)
                        return r;
        }
}

/* Writes all of @p to @fd (which may be non-blocking) by @deadline. */
static int write_all(int fd, const uint8_t *p, size_t n, int64_t deadline)
{
        while (n > 0) {
                ssize_t k = write(fd, p, n);
                if (k > 0) {
                        p += k;
                        n -= (size_t)k;
                        continue;
                }
                if (k < 0 && errno != EINTR && errno != EAGAIN)
                        return -errno;
                int64_t left = deadline - now_ms();
                if (left <= 0)
                        return -ETIMEDOUT;
                struct pollfd pfd = {.fd = fd, .events = POLLOUT};
                if (poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left) < 0 && errno != EINTR)
                        return -errno;
        }
        return 0;
}

/* Reads and drops the user's input until the answers the filter awaits are in, or @deadline. */
static int await_answers(struct cordon_pty *pty, int64_t deadline)
{
        while (cordon_term_filter_awaits_answer(&pty->filter) && pty->user_in >= 0 &&
               !pty->in_eof) {
                int64_t left = deadline - now_ms();
                if (left <= 0)
                        return -ETIMEDOUT;
                struct pollfd pfd = {.fd = pty->user_in, .events = POLLIN};
                int r = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
                if (r < 0 && errno != EINTR)
                        return -errno;
                if (r <= 0)
                        continue;
                uint8_t buf[512];
                ssize_t n = read(pty->user_in, buf, sizeof(buf));
                if (n == 0 || (n < 0 && errno == EIO))
                        pty->in_eof = true;
                else if (n > 0)
                        cordon_term_filter_input(&pty->filter, buf, (size_t)n);
                else if (errno != EINTR && errno != EAGAIN)
                        return -errno;
        }
        return 0;
}

int cordon_pty_finish(struct cordon_pty *pty, int timeout_ms)
{
        int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
        uint8_t reset[CORDON_TERM_FILTER_FINISH_MAX];
        int r = 0;

        if (pty->finished || pty->tty < 0 || !pty->relayed)
                return 0;
        pty->finished = true;
        size_t n = cordon_term_filter_finish(&pty->filter, reset);
        /* Never into a pipe or a file: they get the inside's bytes as written. */
        if (n > 0 && pty->user_out >= 0 && !pty->out_dead && isatty(pty->user_out))
                r = write_all(pty->user_out, reset, n, deadline);
        int k = await_answers(pty, deadline);
        if (r == 0 && k != -ETIMEDOUT)
                r = k;

        /* The command is gone: what was typed since, and an answer that came late, is not for
         * the user's shell. Without this, the shell would read a reply to a query sent just
         * before the end as typed input. */
        int saved_errno = errno;
        sigset_t ttou, old;
        sigemptyset(&ttou);
        sigaddset(&ttou, SIGTTOU);
        sigprocmask(SIG_BLOCK, &ttou, &old);
        (void)tcflush(pty->tty, TCIFLUSH);
        sigprocmask(SIG_SETMASK, &old, NULL);
        errno = saved_errno;
        return r == -ETIMEDOUT ? 0 : r;
}

int cordon_pty_resize(struct cordon_pty *pty)
{
        struct winsize ws;

        if (pty->tty < 0 || pty->master < 0)
                return 0;
        if (ioctl(pty->tty, TIOCGWINSZ, &ws) < 0)
                return -errno;
        if (ioctl(pty->master, TIOCSWINSZ, &ws) < 0)
                return -errno;
        return 0;
}

void cordon_pty_close(struct cordon_pty *pty)
{
        /* A short wait: this also runs on error paths, where the terminal may be gone. */
        (void)cordon_pty_finish(pty, 200);
        cordon_pty_restore(pty);
        pty->master = safe_close(pty->master);
        pty->slave = safe_close(pty->slave);
        pty->private_tty = safe_close(pty->private_tty);
        pty->user_in = pty->user_out = -EBADF;
        pty->tty = -EBADF;
}
