/* cordon's event loop (see loop.h): epoll for the io sources, a binary heap ordered by (deadline,
 * arming order) for the timers, and a list of sources freed during a round, released when the
 * round is over so that an event fetched for them in the same batch finds them marked dead. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "lib/loop/loop.h"
#include "shared/macro.h"

#define IO_EVENTS (EPOLLIN | EPOLLOUT | EPOLLPRI | EPOLLRDHUP)

struct cordon_loop_io {
        struct cordon_loop *loop;
        struct cordon_loop_io *prev, *next; /* every live io; the dead ones through @next */
        int fd;
        uint32_t events;
        uint32_t registered; /* the events in the epoll set; 0: not in it */
        bool enabled;
        bool dead;
        cordon_loop_io_fn fn;
        void *userdata;
};

struct cordon_loop_timer {
        struct cordon_loop *loop;
        struct cordon_loop_timer *prev, *next; /* as for the io sources */
        uint64_t deadline;                     /* CORDON_LOOP_NEVER: not armed */
        uint64_t seq;                          /* when it was armed, for ties and re-arms */
        size_t idx;                            /* in the heap while armed */
        bool dead;
        cordon_loop_timer_fn fn;
        void *userdata;
};

struct cordon_loop {
        int epfd;
        struct cordon_loop_io *ios, *dead_ios;
        struct cordon_loop_timer *timers, *dead_timers;
        /* The armed timers; room for every live one, so that arming never allocates. */
        struct cordon_loop_timer **heap;
        size_t n_heap, cap_heap, n_timers;
        uint64_t seq;
        uint64_t now; /* the round's time while dispatching */
        bool dispatching;
        bool quit;
        int result;
};

uint64_t cordon_now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int cordon_loop_new(struct cordon_loop **ret)
{
        struct cordon_loop *loop = calloc(1, sizeof(*loop));
        if (!loop)
                return -ENOMEM;
        loop->epfd = epoll_create1(EPOLL_CLOEXEC);
        if (loop->epfd < 0) {
                int r = negative_errno();
                free(loop);
                return r;
        }
        *ret = loop;
        return 0;
}

/* ---- io sources ---------------------------------------------------------------------------- */

/* Puts @io into the epoll set with what it wants, or takes it out. */
static int io_update(struct cordon_loop_io *io)
{
        uint32_t want = io->enabled && !io->dead ? io->events : 0;
        if (want == io->registered)
                return 0;
        if (!want) {
                /* Errors are of no interest: a descriptor closed under the source is gone from
                 * the set already (unless a copy of it lives on, see loop.h). */
                (void)epoll_ctl(io->loop->epfd, EPOLL_CTL_DEL, io->fd, NULL);
                io->registered = 0;
                return 0;
        }
        struct epoll_event ev = {.events = want, .data.ptr = io};
        if (io->registered) {
                if (epoll_ctl(io->loop->epfd, EPOLL_CTL_MOD, io->fd, &ev) == 0) {
                        io->registered = want;
                        return 0;
                }
                /* ENOENT: the descriptor was closed and its number reused; the new file is
                 * added as for a new source. */
                if (errno != ENOENT)
                        return negative_errno();
                io->registered = 0;
        }
        if (epoll_ctl(io->loop->epfd, EPOLL_CTL_ADD, io->fd, &ev) < 0)
                return negative_errno();
        io->registered = want;
        return 0;
}

int cordon_loop_add_io(struct cordon_loop *loop, int fd, uint32_t events, cordon_loop_io_fn fn,
                       void *userdata, struct cordon_loop_io **ret)
{
        if (!loop || !fn || !ret)
                return -EINVAL;
        if (fd < 0)
                return -EBADF;
        if (events & ~(uint32_t)IO_EVENTS)
                return -EINVAL;
        struct cordon_loop_io *io = calloc(1, sizeof(*io));
        if (!io)
                return -ENOMEM;
        *io = (struct cordon_loop_io){.loop = loop,
                                      .fd = fd,
                                      .events = events,
                                      .enabled = true,
                                      .fn = fn,
                                      .userdata = userdata};
        int r = io_update(io);
        if (r < 0) {
                free(io);
                return r;
        }
        io->next = loop->ios;
        if (loop->ios)
                loop->ios->prev = io;
        loop->ios = io;
        *ret = io;
        return 0;
}

int cordon_loop_io_set_events(struct cordon_loop_io *io, uint32_t events)
{
        if (!io || io->dead || (events & ~(uint32_t)IO_EVENTS))
                return -EINVAL;
        io->events = events;
        return io_update(io);
}

int cordon_loop_io_set_enabled(struct cordon_loop_io *io, bool enabled)
{
        if (!io || io->dead)
                return -EINVAL;
        io->enabled = enabled;
        return io_update(io);
}

uint32_t cordon_loop_io_get_events(const struct cordon_loop_io *io)
{
        return io->events;
}

bool cordon_loop_io_is_enabled(const struct cordon_loop_io *io)
{
        return io->enabled;
}

int cordon_loop_io_get_fd(const struct cordon_loop_io *io)
{
        return io->fd;
}

struct cordon_loop_io *cordon_loop_io_free(struct cordon_loop_io *io)
{
        if (!io || io->dead)
                return NULL;
        struct cordon_loop *loop = io->loop;
        io->dead = true;
        (void)io_update(io);
        if (io->prev)
                io->prev->next = io->next;
        else
                loop->ios = io->next;
        if (io->next)
                io->next->prev = io->prev;
        if (loop->dispatching) {
                io->prev = NULL;
                io->next = loop->dead_ios;
                loop->dead_ios = io;
        } else
                free(io);
        return NULL;
}

/* ---- timers -------------------------------------------------------------------------------- */

static bool timer_before(const struct cordon_loop_timer *a, const struct cordon_loop_timer *b)
{
        return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

static void heap_put(struct cordon_loop *loop, size_t i, struct cordon_loop_timer *t)
{
        loop->heap[i] = t;
        t->idx = i;
}

static void heap_up(struct cordon_loop *loop, size_t i)
{
        struct cordon_loop_timer *t = loop->heap[i];
        while (i > 0) {
                size_t parent = (i - 1) / 2;
                if (!timer_before(t, loop->heap[parent]))
                        break;
                heap_put(loop, i, loop->heap[parent]);
                i = parent;
        }
        heap_put(loop, i, t);
}

static void heap_down(struct cordon_loop *loop, size_t i)
{
        struct cordon_loop_timer *t = loop->heap[i];
        for (;;) {
                size_t child = 2 * i + 1;
                if (child >= loop->n_heap)
                        break;
                if (child + 1 < loop->n_heap &&
                    timer_before(loop->heap[child + 1], loop->heap[child]))
                        child++;
                if (!timer_before(loop->heap[child], t))
                        break;
                heap_put(loop, i, loop->heap[child]);
                i = child;
        }
        heap_put(loop, i, t);
}

static void heap_remove(struct cordon_loop *loop, struct cordon_loop_timer *t)
{
        size_t i = t->idx;
        struct cordon_loop_timer *last = loop->heap[--loop->n_heap];
        t->deadline = CORDON_LOOP_NEVER;
        if (i == loop->n_heap)
                return;
        heap_put(loop, i, last);
        heap_up(loop, i);
        heap_down(loop, last->idx);
}

int cordon_loop_add_timer(struct cordon_loop *loop, uint64_t usec, cordon_loop_timer_fn fn,
                          void *userdata, struct cordon_loop_timer **ret)
{
        if (!loop || !fn || !ret)
                return -EINVAL;
        if (loop->n_timers + 1 > loop->cap_heap) {
                size_t cap = loop->cap_heap ? loop->cap_heap * 2 : 16;
                struct cordon_loop_timer **h = reallocarray(loop->heap, cap, sizeof(*h));
                if (!h)
                        return -ENOMEM;
                loop->heap = h;
                loop->cap_heap = cap;
        }
        struct cordon_loop_timer *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        *t = (struct cordon_loop_timer){
            .loop = loop, .deadline = CORDON_LOOP_NEVER, .fn = fn, .userdata = userdata};
        loop->n_timers++;
        t->next = loop->timers;
        if (loop->timers)
                loop->timers->prev = t;
        loop->timers = t;
        cordon_loop_timer_set(t, usec);
        *ret = t;
        return 0;
}

void cordon_loop_timer_set(struct cordon_loop_timer *t, uint64_t usec)
{
        if (!t || t->dead)
                return;
        struct cordon_loop *loop = t->loop;
        if (t->deadline != CORDON_LOOP_NEVER)
                heap_remove(loop, t);
        if (usec == CORDON_LOOP_NEVER)
                return;
        t->deadline = usec;
        t->seq = ++loop->seq;
        heap_put(loop, loop->n_heap++, t);
        heap_up(loop, t->idx);
}

uint64_t cordon_loop_timer_get(const struct cordon_loop_timer *t)
{
        return t->deadline;
}

struct cordon_loop_timer *cordon_loop_timer_free(struct cordon_loop_timer *t)
{
        if (!t || t->dead)
                return NULL;
        struct cordon_loop *loop = t->loop;
        cordon_loop_timer_set(t, CORDON_LOOP_NEVER);
        t->dead = true;
        loop->n_timers--;
        if (t->prev)
                t->prev->next = t->next;
        else
                loop->timers = t->next;
        if (t->next)
                t->next->prev = t->prev;
        if (loop->dispatching) {
                t->prev = NULL;
                t->next = loop->dead_timers;
                loop->dead_timers = t;
        } else
                free(t);
        return NULL;
}

/* ---- the loop ------------------------------------------------------------------------------ */

int cordon_loop_get_fd(const struct cordon_loop *loop)
{
        return loop->epfd;
}

uint64_t cordon_loop_get_timeout(const struct cordon_loop *loop)
{
        if (loop->n_heap == 0)
                return CORDON_LOOP_NEVER;
        uint64_t d = loop->heap[0]->deadline, now = cordon_now_usec();
        return d <= now ? 0 : d - now;
}

uint64_t cordon_loop_now(const struct cordon_loop *loop)
{
        return loop->dispatching ? loop->now : cordon_now_usec();
}

static void release_dead(struct cordon_loop *loop)
{
        while (loop->dead_ios) {
                struct cordon_loop_io *io = loop->dead_ios;
                loop->dead_ios = io->next;
                free(io);
        }
        while (loop->dead_timers) {
                struct cordon_loop_timer *t = loop->dead_timers;
                loop->dead_timers = t->next;
                free(t);
        }
}

static int dispatch(struct cordon_loop *loop, const struct epoll_event *ev, int n, bool *ret_any)
{
        for (int i = 0; i < n && !loop->quit; i++) {
                struct cordon_loop_io *io = ev[i].data.ptr;
                /* Freed, disabled or changed by an earlier callback of this round: the event
                 * is stale, and what is still wanted shows again in the next round. */
                uint32_t revents = ev[i].events & (io->registered | EPOLLERR | EPOLLHUP);
                if (io->dead || !io->registered || !revents)
                        continue;
                *ret_any = true;
                int r = io->fn(io, io->fd, revents, io->userdata);
                if (r < 0)
                        return r;
        }
        /* Timers armed by the timers of this round wait for the next (see loop.h). */
        uint64_t last = loop->seq;
        while (!loop->quit && loop->n_heap > 0) {
                struct cordon_loop_timer *t = loop->heap[0];
                if (t->deadline > loop->now || t->seq > last)
                        break;
                heap_remove(loop, t);
                *ret_any = true;
                int r = t->fn(t, loop->now, t->userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

int cordon_loop_process(struct cordon_loop *loop, uint64_t timeout_usec)
{
        if (!loop)
                return -EINVAL;
        if (loop->dispatching)
                return -EBUSY;
        uint64_t wait = cordon_loop_get_timeout(loop);
        if (timeout_usec < wait)
                wait = timeout_usec;
        int ms = -1;
        if (wait != CORDON_LOOP_NEVER) {
                /* Rounded up: a timer is never dispatched early. */
                uint64_t m = (wait + 999) / 1000;
                ms = m > INT_MAX ? INT_MAX : (int)m;
        }
        struct epoll_event ev[CORDON_LOOP_BATCH];
        int n = epoll_wait(loop->epfd, ev, CORDON_LOOP_BATCH, ms);
        if (n < 0) {
                if (errno != EINTR)
                        return negative_errno();
                n = 0;
        }
        loop->now = cordon_now_usec();
        loop->quit = false;
        loop->dispatching = true;
        bool any = false;
        int r = dispatch(loop, ev, n, &any);
        loop->dispatching = false;
        release_dead(loop);
        return r < 0 ? r : any;
}

int cordon_loop_run(struct cordon_loop *loop)
{
        if (!loop)
                return -EINVAL;
        loop->quit = false;
        loop->result = 0;
        while (!loop->quit) {
                int r = cordon_loop_process(loop, CORDON_LOOP_NEVER);
                if (r < 0)
                        return r;
        }
        return loop->result;
}

void cordon_loop_quit(struct cordon_loop *loop, int result)
{
        loop->quit = true;
        loop->result = result;
}

struct cordon_loop *cordon_loop_free(struct cordon_loop *loop)
{
        if (!loop)
                return NULL;
        while (loop->ios)
                cordon_loop_io_free(loop->ios);
        while (loop->timers)
                cordon_loop_timer_free(loop->timers);
        release_dead(loop);
        free(loop->heap);
        safe_close(loop->epfd);
        free(loop);
        return NULL;
}
