/* cordon-serve's event loop (see serve-loop.h): epoll_wait(), then the callback of each ready
 * descriptor, then the tick. A removed source is unlinked at once and freed only after the
 * dispatch of the current wait, so that an event already returned for it is skipped, never
 * delivered to freed memory. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "serve/serve-loop.h"
#include "shared/macro.h"

#define EVENTS_PER_WAIT 64

struct serve_loop_source {
        int fd;
        bool dead;
        serve_loop_fn fn;
        void *userdata;
        struct serve_loop_source *next; /* in live or dead */
};

struct serve_loop {
        int epfd;
        bool quit;
        struct serve_loop_source *live, *dead;
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

static void free_list(struct serve_loop_source *s)
{
        while (s) {
                struct serve_loop_source *next = s->next;
                free(s);
                s = next;
        }
}

struct serve_loop *serve_loop_free(struct serve_loop *l)
{
        if (l) {
                safe_close(l->epfd);
                free_list(l->live);
                free_list(l->dead);
                free(l);
        }
        return NULL;
}

int serve_loop_add(struct serve_loop *l, int fd, uint32_t events, serve_loop_fn fn, void *userdata,
                   struct serve_loop_source **ret)
{
        if (l->n_sources >= SERVE_LOOP_SOURCES_MAX)
                return -E2BIG;
        struct serve_loop_source *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        *s = (struct serve_loop_source){.fd = fd, .fn = fn, .userdata = userdata};
        struct epoll_event ev = {.events = events, .data.ptr = s};
        if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
                int r = -errno;
                free(s);
                return r;
        }
        s->next = l->live;
        l->live = s;
        l->n_sources++;
        if (ret)
                *ret = s;
        return 0;
}

int serve_loop_modify(struct serve_loop *l, struct serve_loop_source *s, uint32_t events)
{
        struct epoll_event ev = {.events = events, .data.ptr = s};
        return epoll_ctl(l->epfd, EPOLL_CTL_MOD, s->fd, &ev) < 0 ? -errno : 0;
}

struct serve_loop_source *serve_loop_remove(struct serve_loop *l, struct serve_loop_source *s)
{
        if (!s || s->dead)
                return NULL;
        (void)epoll_ctl(l->epfd, EPOLL_CTL_DEL, s->fd, NULL);
        for (struct serve_loop_source **p = &l->live; *p; p = &(*p)->next)
                if (*p == s) {
                        *p = s->next;
                        break;
                }
        s->dead = true;
        s->next = l->dead;
        l->dead = s;
        l->n_sources--;
        return NULL;
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
                struct epoll_event evs[EVENTS_PER_WAIT];
                int n = epoll_wait(l->epfd, evs, ELEMENTSOF(evs), (int)ms);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                int r = 0;
                for (int i = 0; i < n && !l->quit && r >= 0; i++) {
                        struct serve_loop_source *s = evs[i].data.ptr;
                        if (!s->dead)
                                r = s->fn(s->fd, evs[i].events, s->userdata);
                }
                free_list(l->dead);
                l->dead = NULL;
                if (r < 0)
                        return r;
                if (l->tick && !l->quit) {
                        r = l->tick(l->tick_userdata);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}
