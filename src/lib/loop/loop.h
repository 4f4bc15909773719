/* cordon's event loop: an epoll set of io sources (a descriptor and the events wanted) and a
 * heap of timers (CLOCK_MONOTONIC deadlines), dispatched in rounds. One loop serves a sandbox:
 * its supervisor (pidfd, signalfd, pty relay, wall time), the egress proxy's sockets and timers,
 * the filtered mode's resolver, the seccomp notifications, pasta's end.
 *
 * Embeddable: cordon_loop_get_fd() is the epoll fd, readable when an io source is ready;
 * cordon_loop_get_timeout() says how long until the next timer. A caller with a loop of its own
 * polls the one for POLLIN with the other as its timeout and calls cordon_loop_process(loop, 0)
 * when either fires. Timers live in the epoll_wait() timeout rather than in a timerfd: the
 * supervisor, the resolver and the proxy re-arm theirs on nearly every event, which is a heap
 * operation here and would be a timerfd_settime() there, and an embedding caller needs the
 * timeout anyway (a timerfd would still have to be set from the earliest deadline).
 *
 * Sources are the loop's: made by cordon_loop_add_*(), freed by cordon_loop_*_free(). A source
 * freed, disabled or changed by a callback is never dispatched afterwards, even for an event
 * fetched in the same round (its memory is kept until the round ends). Level-triggered only.
 * Not thread-safe: one thread drives a loop, and callbacks run on it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>

/* A timer's deadline when it is not armed; cordon_loop_get_timeout() when no timer is. */
#define CORDON_LOOP_NEVER UINT64_MAX

/* How many io events one round fetches; the rest come in the next rounds. */
#define CORDON_LOOP_BATCH 64

struct cordon_loop;
struct cordon_loop_io;
struct cordon_loop_timer;

/* Called with the epoll events that happened on @fd (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP, ...;
 * limited to what the source wants plus EPOLLERR and EPOLLHUP). A negative return ends the
 * round: cordon_loop_process() returns it. */
typedef int (*cordon_loop_io_fn)(struct cordon_loop_io *io, int fd, uint32_t revents,
                                 void *userdata);
/* Called once the deadline has passed (the timer is disarmed first; it may re-arm itself).
 * @now is the round's time. A negative return ends the round as above. */
typedef int (*cordon_loop_timer_fn)(struct cordon_loop_timer *t, uint64_t now, void *userdata);

/* CLOCK_MONOTONIC in microseconds. */
uint64_t cordon_now_usec(void);

/* Returns 0 or -errno of epoll_create1() / -ENOMEM. */
int cordon_loop_new(struct cordon_loop **ret);
/* Frees @loop with every source still on it (pointers to those are invalid afterwards: free
 * your own sources first). Not from a callback. Accepts NULL; returns NULL. */
struct cordon_loop *cordon_loop_free(struct cordon_loop *loop);

/* An io source on @fd (not owned: free the source before closing it), wanting @events
 * (EPOLLIN, EPOLLOUT, EPOLLPRI, EPOLLRDHUP; 0 is allowed). Enabled. A source wanting nothing, or
 * disabled, is out of the epoll set, so that a hang-up nobody waits for cannot wake the loop.
 * Returns 0; -EBADF for a negative fd; -EINVAL for an unknown event bit (EPOLLET, EPOLLONESHOT);
 * -ENOMEM; -errno of epoll_ctl() (-EPERM: a regular file). */
int cordon_loop_add_io(struct cordon_loop *loop, int fd, uint32_t events, cordon_loop_io_fn fn,
                       void *userdata, struct cordon_loop_io **ret);
/* Changes what @io wants (no system call when nothing changes). Returns 0, -EINVAL, -errno. */
int cordon_loop_io_set_events(struct cordon_loop_io *io, uint32_t events);
int cordon_loop_io_set_enabled(struct cordon_loop_io *io, bool enabled);
uint32_t cordon_loop_io_get_events(const struct cordon_loop_io *io);
bool cordon_loop_io_is_enabled(const struct cordon_loop_io *io);
int cordon_loop_io_get_fd(const struct cordon_loop_io *io);
/* Removes @io; freed at once, or once the current round is over. Accepts NULL; returns NULL. */
struct cordon_loop_io *cordon_loop_io_free(struct cordon_loop_io *io);

/* A timer due at @usec (CLOCK_MONOTONIC microseconds; 0 or any past time: the next round;
 * CORDON_LOOP_NEVER: not armed). Returns 0 or -ENOMEM. */
int cordon_loop_add_timer(struct cordon_loop *loop, uint64_t usec, cordon_loop_timer_fn fn,
                          void *userdata, struct cordon_loop_timer **ret);
/* Re-arms @t for @usec (CORDON_LOOP_NEVER: disarms it). Never fails. Timers due at the same
 * microsecond run in the order they were armed. A timer armed by a timer callback for a time
 * already past runs in the next round, so that a timer re-arming itself cannot starve the
 * rest. */
void cordon_loop_timer_set(struct cordon_loop_timer *t, uint64_t usec);
uint64_t cordon_loop_timer_get(const struct cordon_loop_timer *t);
/* Removes @t; freed at once, or once the current round is over. Accepts NULL; returns NULL. */
struct cordon_loop_timer *cordon_loop_timer_free(struct cordon_loop_timer *t);

/* The epoll fd (owned by @loop): readable while an io source is ready. */
int cordon_loop_get_fd(const struct cordon_loop *loop);
/* Microseconds until the next timer: 0 when one is due, CORDON_LOOP_NEVER when none is armed. */
uint64_t cordon_loop_get_timeout(const struct cordon_loop *loop);
/* The time of the current round inside a callback (so that the deadlines set in one round agree),
 * else the time now. */
uint64_t cordon_loop_now(const struct cordon_loop *loop);

/* One round: waits at most @timeout_usec (0: not at all; CORDON_LOOP_NEVER: until something is
 * ready; shortened to the next timer), then dispatches the io sources that are ready (at most
 * CORDON_LOOP_BATCH) and the timers that are due. Stops early after cordon_loop_quit(); what is
 * left is dispatched by a later round. Returns 1 when something was dispatched, 0 when nothing
 * was (EINTR included), a callback's negative return, -errno of epoll_wait(), or -EBUSY when
 * called from a callback. */
int cordon_loop_process(struct cordon_loop *loop, uint64_t timeout_usec);
/* Rounds until a callback calls cordon_loop_quit(). Returns the result given to it, a
 * callback's negative return, or -errno as cordon_loop_process(). */
int cordon_loop_run(struct cordon_loop *loop);
/* Ends cordon_loop_run() with @result once the current callback returns. */
void cordon_loop_quit(struct cordon_loop *loop, int result);
