/* cordon-serve's event loop: one epoll set, a callback per descriptor, and a timeout asked of the
 * caller before each wait. Single-threaded; nothing here knows HTTP. Used by the daemon and by
 * each session's holder. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct serve_loop;
struct serve_loop_source;

/* Called with the epoll events of its descriptor; a negative return ends serve_loop_run() with
 * that value. */
typedef int (*serve_loop_fn)(int fd, uint32_t events, void *userdata);
/* Asked before each wait: milliseconds until the caller needs a turn (-1: no limit). */
typedef int64_t (*serve_loop_timeout_fn)(void *userdata);
/* Called after each wait, whatever woke it (the timers of libmicrohttpd). */
typedef int (*serve_loop_tick_fn)(void *userdata);

/* 0, or -errno. The loop holds at most SERVE_LOOP_SOURCES_MAX descriptors. */
#define SERVE_LOOP_SOURCES_MAX 65536
int serve_loop_new(struct serve_loop **ret);
/* Frees the loop and every source still in it (their descriptors stay the callers'). */
struct serve_loop *serve_loop_free(struct serve_loop *l);
/* Watches @fd (not owned) for @events (EPOLLIN...). 0 (with the source's handle in *@ret when
 * @ret is not NULL), -E2BIG when full, -errno. */
int serve_loop_add(struct serve_loop *l, int fd, uint32_t events, serve_loop_fn fn, void *userdata,
                   struct serve_loop_source **ret);
/* Changes the events watched for @s. 0 or -errno. */
int serve_loop_modify(struct serve_loop *l, struct serve_loop_source *s, uint32_t events);
/* Stops watching @s (before its descriptor is closed): its callback is not called again, not even
 * for events of the wait that is being dispatched. Accepts NULL; returns NULL. */
struct serve_loop_source *serve_loop_remove(struct serve_loop *l, struct serve_loop_source *s);
void serve_loop_set_tick(struct serve_loop *l, serve_loop_timeout_fn timeout,
                         serve_loop_tick_fn tick, void *userdata);
/* Runs until serve_loop_quit() or a callback's failure: 0 after a quit, or the -errno. */
int serve_loop_run(struct serve_loop *l);
void serve_loop_quit(struct serve_loop *l);
