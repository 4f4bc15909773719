/* The supervisor's event loop: poll() over the descriptors of registered sources, with one
 * optional deadline per source. The supervisor registers the sandbox's pidfd, a signalfd, the
 * pty relay and the wall time limit; later users (a proxy's socket, a session's exec socket)
 * register their own sources the same way. Not thread-safe: one loop per sandbox, run by one
 * thread at a time. */
#pragma once

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#define CORDON_LOOP_SOURCES_MAX 16
#define CORDON_LOOP_FDS_MAX     32

struct cordon_loop_source {
        /* How many pollfd entries the source has (0: a pure timer). With one, @fd and
         * @events are used; with more (or to change them before each poll), @fill sets them. */
        unsigned n_fds;
        int fd;
        short events;
        void (*fill)(void *userdata, struct pollfd *fds);
        /* CLOCK_MONOTONIC microseconds; 0: none. Dispatched (fds with revents 0) once reached;
         * the dispatcher moves or clears it. */
        uint64_t deadline;
        /* Called when one of the fds has revents or the deadline has passed. A negative return
         * ends the loop with that error. */
        int (*dispatch)(void *userdata, const struct pollfd *fds);
        void *userdata;
};

struct cordon_loop {
        struct cordon_loop_source *sources[CORDON_LOOP_SOURCES_MAX]; /* not owned */
        unsigned n;
        bool quit;
        int result;
};

uint64_t cordon_now_usec(void);

/* Registers @s (which must stay valid until removed or the loop is done). Returns 0, -ENOSPC
 * when the loop is full (sources or fds), -EINVAL. */
int cordon_loop_add(struct cordon_loop *loop, struct cordon_loop_source *s);
/* Unregisters @s; a no-op when it is not registered. */
void cordon_loop_remove(struct cordon_loop *loop, struct cordon_loop_source *s);
/* Ends cordon_loop_run() once the current dispatch returns, with @result. */
void cordon_loop_quit(struct cordon_loop *loop, int result);
/* Polls and dispatches until a source quits the loop or fails. Returns the result given to
 * cordon_loop_quit(), a dispatcher's error, or -errno of poll(). */
int cordon_loop_run(struct cordon_loop *loop);
