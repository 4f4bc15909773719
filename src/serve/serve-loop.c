/* cordon-serve's event loop (see serve-loop.h): epoll_wait(), then the callback of each ready
 * descriptor, then the tick. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "serve/serve-loop.h"
#include "shared/macro.h"

struct serve_loop_source {
        int fd;
        serve_loop_fn fn;
        void *userdata;
};

struct serve_loop {
        int epfd;
        bool quit;
        struct serve_loop_source sources[SERVE_LOOP_SOURCES_MAX];
        size_t n_sources;
        serve_loop_timeout_fn timeout;
        serve_loop_tick_fn tick;
        void *tick_userdata;
};

int serve_loop_new(struct serve_loop **ret)
{
        struct serve_loop *l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->epfd = epoll_create1(EPOLL_CLOEXEC);
        if (l->epfd < 0) {
                int r = -errno;
                free(l);
                return r;
        }
        *ret = l;
        return 0;
}

struct serve_loop *serve_loop_free(struct serve_loop *l)
{
        if (l) {
                safe_close(l->epfd);
                free(l);
        }
        return NULL;
}

int serve_loop_add(struct serve_loop *l, int fd, uint32_t events, serve_loop_fn fn, void *userdata)
{
        if (l->n_sources >= ELEMENTSOF(l->sources))
                return -E2BIG;
        struct serve_loop_source *s = &l->sources[l->n_sources];
        *s = (struct serve_loop_source){.fd = fd, .fn = fn, .userdata = userdata};
        struct epoll_event ev = {.events = events, .data.ptr = s};
        if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
                return -errno;
        l->n_sources++;
        return 0;
}

void serve_loop_set_tick(struct serve_loop *l, serve_loop_timeout_fn timeout,
                         serve_loop_tick_fn tick, void *userdata)
{
        l->timeout = timeout;
        l->tick = tick;
        l->tick_userdata = userdata;
}

void serve_loop_quit(struct serve_loop *l)
{
        l->quit = true;
}

int serve_loop_run(struct serve_loop *l)
{
        while (!l->quit) {
                int64_t ms = l->timeout ? l->timeout(l->tick_userdata) : -1;
                if (ms > 60000 || ms < 0)
                        ms = 60000; /* a bounded wait: nothing is lost by waking */
                struct epoll_event evs[SERVE_LOOP_SOURCES_MAX];
                int n = epoll_wait(l->epfd, evs, ELEMENTSOF(evs), (int)ms);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                for (int i = 0; i < n && !l->quit; i++) {
                        struct serve_loop_source *s = evs[i].data.ptr;
                        int r = s->fn(s->fd, evs[i].events, s->userdata);
                        if (r < 0)
                                return r;
                }
                if (l->tick && !l->quit) {
                        int r = l->tick(l->tick_userdata);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}
