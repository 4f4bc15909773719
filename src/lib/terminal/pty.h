/* A pseudo-terminal of its own for an interactive sandbox: the command gets the slave as its
 * controlling terminal and the supervisor relays bytes between the user's terminal and the master,
 * so nothing inside holds a descriptor of the user's real terminal (TIOCSTI, TIOCLINUX, ...). */
#pragma once

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <termios.h>

#include "lib/terminal/term-filter.h"

#define CORDON_PTY_BUF_SIZE (64 * 1024)

/* The entries of the pollfd array cordon_pty_poll_fds() fills and cordon_pty_relay() reads. An
 * entry with nothing to wait for has fd -1, which poll() skips. */
enum {
        CORDON_PTY_POLL_USER_IN,    /* the user's terminal, POLLIN: keyboard input */
        CORDON_PTY_POLL_MASTER_OUT, /* the master, POLLOUT: keyboard input to the inside */
        CORDON_PTY_POLL_MASTER_IN,  /* the master, POLLIN: the inside's output */
        CORDON_PTY_POLL_USER_OUT,   /* the output fd, POLLOUT: the inside's output to the user */
        CORDON_PTY_POLL_MAX,
};

/* Bytes waiting in one direction: data[head..tail). */
struct cordon_pty_buf {
        size_t head, tail;
        uint8_t data[CORDON_PTY_BUF_SIZE];
};

/* About 128 KiB because of the two buffers: embed it in a long-lived object or allocate it rather
 * than putting it on a small stack. Fields are read-only for callers. Not thread-safe. */
struct cordon_pty {
        int master;       /* owned; O_RDWR|O_NOCTTY|O_CLOEXEC|O_NONBLOCK */
        int slave;        /* owned until cordon_pty_parent_after_clone(); O_NOCTTY|O_CLOEXEC */
        int tty;          /* the user's terminal as passed in, not owned; -EBADF when none */
        int out_fd;       /* where the inside's output goes, as passed in, not owned */
        int user_in;      /* the fd keyboard input is read from (see cordon_pty_open()) */
        int user_out;     /* the fd output is written to */
        int private_tty;  /* owned: our own open file description of the user's terminal */
        bool raw;         /* the user's terminal is in raw mode and must be restored */
        bool in_eof;      /* the user's terminal hung up (read gave 0 or EIO): no more input */
        bool master_eof;  /* every holder of the slave closed it (EIO) and its output is read */
        bool master_dead; /* writing to the master failed with EIO: input is discarded */
        bool out_dead;    /* the output fd is gone (EPIPE, EIO, POLLERR): output is discarded */
        bool relayed;     /* cordon_pty_relay() ran: the user's terminal may need a reset */
        bool finished;    /* cordon_pty_finish() ran */
        /* Which of fds 0..2 cordon_pty_child_setup() leaves as they are: all false after
         * cordon_pty_open(); see cordon_pty_keep_other_std_fds(). */
        bool keep_std[3];
        struct termios saved;
        struct cordon_pty_buf in;  /* user -> master */
        struct cordon_pty_buf out; /* master -> user, filtered */
        /* What the inside writes passes it on the way to the user (see term-filter.h). */
        struct cordon_term_filter filter;
};

/* Parent side. Initialises @pty (always, so cordon_pty_close() is safe afterwards) and, when
 * @tty_fd is a terminal, creates a pty pair whose slave starts with the user's termios and window
 * size. @out_fd (usually STDOUT_FILENO, may equal @tty_fd) receives the inside's output; a
 * negative one discards it. Neither fd is taken over.
 *
 * The relay must not block the supervisor, yet setting O_NONBLOCK on @tty_fd would change an open
 * file description shared with the user's shell and every background job writing to the same
 * terminal (they would see EAGAIN). So the terminal is reopened through /proc/self/fd as a private
 * O_NONBLOCK description, used for input and, when @out_fd is the same terminal, for output. When
 * that is not possible (no /proc, a terminal owned by someone else) the fds are used as they are:
 * reads only follow POLLIN, but a write may then block until the terminal takes it. An @out_fd
 * that is not the terminal is always used as it is.
 *
 * Returns 1 when a pty was made, 0 when @tty_fd is not a terminal (or negative), -errno on
 * failure (-EBADF for a closed @tty_fd, or the errno of posix_openpt(), unlockpt(), opening the
 * slave, tcsetattr(), TIOCGWINSZ/TIOCSWINSZ). */
int cordon_pty_open(struct cordon_pty *pty, int tty_fd, int out_fd);

/* Parent side, after cordon_pty_open(): @on relays the inside's output byte for byte instead
 * of through the escape-sequence filter (which is on after cordon_pty_open()): the clipboard,
 * the title, queries and their answers then pass. The modes are still reset at the end. */
void cordon_pty_set_passthrough(struct cordon_pty *pty, bool on);

/* Parent side, after cordon_pty_open(): marks those of the caller's fds 1 and 2 that are not the
 * user's terminal (a pipe, a file) to be kept by cordon_pty_child_setup(), so that
 * `cordon run cmd | tee log` still hands the command the pipe, byte for byte, rather than the
 * pty with its \n -> \r\n. Fd 0 and the terminal itself are always replaced by the slave. */
void cordon_pty_keep_other_std_fds(struct cordon_pty *pty);

/* Parent side: puts the user's terminal in raw mode (cfmakeraw() in full: the inner pty does the
 * output processing, so the outer must not add a second CR, and ^C, ^Z, ^\ must reach the inner
 * line discipline as bytes). Idempotent. Returns 0, or -errno of tcsetattr(). Like any tcsetattr()
 * from a background process group it stops the caller with SIGTTOU unless that is ignored. */
int cordon_pty_enter_raw(struct cordon_pty *pty);

/* Parent side: restores the termios saved by cordon_pty_open() when raw mode is on. Uses TCSANOW:
 * output processing is applied when bytes are written, not when they are sent, so nothing
 * already relayed is reinterpreted; TCSADRAIN/TCSAFLUSH would wait for the terminal to take all
 * output, which blocks forever on a stalled terminal, and TCSAFLUSH would also throw away what
 * the user typed ahead for their shell. SIGTTOU is blocked around the call so a supervisor moved
 * to the background can still give the terminal back. Idempotent; async-signal-safe (sigprocmask,
 * tcsetattr), so it may be called from a fatal-signal handler. */
void cordon_pty_restore(struct cordon_pty *pty);

/* Child side, between clone and exec: async-signal-safe, no allocation, @pty only read (the
 * child may share the supervisor's memory). Starts a new session unless the caller already leads
 * one, makes the slave the controlling terminal, puts it on fds 0, 1 and 2 (except those marked in
 * keep_std), and closes every other fd @pty names (the master, the slave's original fd, the user's
 * terminal and our reopened description of it), so nothing inside holds the user's terminal. Call
 * it before anything that closes unknown fds, and in the process whose process group should be the
 * terminal's foreground group (the one ^C signals). Returns 0 or -errno (-EBADF without a slave;
 * setsid(), TIOCSCTTY, dup2(), fcntl() errors). */
int cordon_pty_child_setup(const struct cordon_pty *pty);

/* Child side, in the process that set up the sandbox's own devpts (the ns backend's PID 1,
 * after its mounts): makes a pty pair there from @ptmx (e.g. "/dev/pts/ptmx") with the modes and
 * size of @pty's slave, and puts its slave in place of @pty's (whose slave and master fds are
 * closed), so that the command's terminal has a name inside the sandbox that tty(1) and
 * ttyname(3) find. Returns the new master (close-on-exec) for the supervisor, who adopts it with
 * cordon_pty_adopt_master(); -errno with @pty unchanged. */
int cordon_pty_move_inside(struct cordon_pty *pty, const char *ptmx);
/* The same for one terminal fd: a new pair from @ptmx with the modes and size of the terminal
 * @like. Returns its master and puts its slave in @ret_slave (both close-on-exec), or -errno. */
int cordon_pty_open_like(int like, const char *ptmx, int *ret_slave);

/* Parent side: relays through @master (taken over, made non-blocking) instead of the master
 * cordon_pty_open() made, which is closed. Returns 0 or -errno (then @master is closed and the
 * old one kept). */
int cordon_pty_adopt_master(struct cordon_pty *pty, int master);

/* Parent side after clone: closes the slave, so the master reports EIO once the last holder
 * inside has closed it. */
void cordon_pty_parent_after_clone(struct cordon_pty *pty);

/* Fills @fds (CORDON_PTY_POLL_MAX entries, see the enum) with what the relay waits for given the
 * buffers: the user's input while `in` has room, the master for writing while `in` has data, the
 * master for reading while `out` has room for a read and what the filter may add to it, the output
 * fd while `out` has data. The caller polls them together with its own fds and passes the result to
 * cordon_pty_relay(). */
void cordon_pty_poll_fds(const struct cordon_pty *pty, struct pollfd fds[CORDON_PTY_POLL_MAX]);

/* Moves bytes for the entries of @fds that poll() reported ready, at most one read or write per
 * entry. Never blocks on the master; see cordon_pty_open() for the user's fds. A hangup of the
 * user's terminal ends input (in_eof); EIO or EPIPE on the output fd, or POLLERR on it, ends
 * output (out_dead) and discards it, so the inside is never stuck on a full pty. The caller
 * should ignore SIGPIPE if the output fd may be a pipe. Returns 1 when the inside is finished (the
 * master gave EOF or EIO: every slave holder closed it) and all its output is written or
 * discarded, 0 otherwise, -errno on an unexpected read or write error (-EBADF on POLLNVAL). */
int cordon_pty_relay(struct cordon_pty *pty, const struct pollfd fds[CORDON_PTY_POLL_MAX]);

/* After the command exited: relays what is still queued in the master to the output until every
 * holder of the slave has closed it and all is written (no more keyboard input is read). A
 * process that still holds the slave (a background job without a PID namespace) or an output fd
 * nobody reads would keep it waiting, so it gives up after @timeout_ms. Returns 1 when drained,
 * 0 on timeout, -errno as cordon_pty_relay() or poll(). */
int cordon_pty_drain(struct cordon_pty *pty, int timeout_ms);

/* After the command ended and cordon_pty_drain(): leaves the user's terminal as the inside
 * found it. Writes what turns off the modes the inside turned on (alternate screen, hidden
 * cursor, mouse reporting, bracketed paste, ...; see cordon_term_filter_finish()) when the output
 * is a terminal; waits for the answers to the queries the filter let through, so that none is
 * left for the user's shell to read as typed input; then discards the input that arrived after
 * the command ended (tcflush(TCIFLUSH), with SIGTTOU blocked). Gives up waiting after
 * @timeout_ms. Does nothing when the relay never ran; once only (cordon_pty_close() calls it
 * with a short timeout if nobody did). Returns 0, or -errno of a failed write or poll(). */
int cordon_pty_finish(struct cordon_pty *pty, int timeout_ms);

/* How long cordon_pty_finish() may wait for the user's terminal. */
#define CORDON_PTY_FINISH_MSEC 2000

/* On SIGWINCH (called from the event loop, not the handler): copies the user's window size to the
 * pty; the kernel then signals the inner foreground process group when the size changed. Returns
 * 0, or -errno of TIOCGWINSZ/TIOCSWINSZ; 0 without a pty. */
int cordon_pty_resize(struct cordon_pty *pty);

/* Finishes (see cordon_pty_finish()), restores the user's terminal and closes the fds @pty
 * owns; idempotent. Only valid after
 * cordon_pty_open() has initialised @pty. Usable as a cleanup attribute. */
void cordon_pty_close(struct cordon_pty *pty);
