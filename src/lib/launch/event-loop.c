/* The supervisor's event loop (see event-loop.h): poll(), per-source deadlines. */
#include <errno.h>
#include <limits.h>
#include <time.h>

#include "lib/launch/event-loop.h"

uint64_t cordon_now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static unsigned total_fds(const struct cordon_loop *loop)
{
        unsigned n = 0;
        for (unsigned i = 0; i < loop->n; i++)
                n += loop->sources[i]->n_fds;
        return n;
}

int cordon_loop_add(struct cordon_loop *loop, struct cordon_loop_source *s)
{
        if (!s || !s->dispatch || (s->n_fds > 1 && !s->fill))
                return -EINVAL;
        if (loop->n >= CORDON_LOOP_SOURCES_MAX || total_fds(loop) + s->n_fds > CORDON_LOOP_FDS_MAX)
                return -ENOSPC;
        loop->sources[loop->n++] = s;
        return 0;
}

void cordon_loop_remove(struct cordon_loop *loop, struct cordon_loop_source *s)
{
        for (unsigned i = 0; i < loop->n; i++)
                if (loop->sources[i] == s) {
                        for (unsigned j = i + 1; j < loop->n; j++)
                                loop->sources[j - 1] = loop->sources[j];
                        loop->n--;
                        return;
                }
}

void cordon_loop_quit(struct cordon_loop *loop, int result)
{
        loop->quit = true;
        loop->result = result;
}

int cordon_loop_run(struct cordon_loop *loop)
{
        loop->quit = false;
        loop->result = 0;
        while (!loop->quit) {
                struct pollfd pfd[CORDON_LOOP_FDS_MAX];
                unsigned at[CORDON_LOOP_SOURCES_MAX], n = 0, count = loop->n;
                struct cordon_loop_source *src[CORDON_LOOP_SOURCES_MAX];
                uint64_t next = 0;
                for (unsigned i = 0; i < count; i++) {
                        struct cordon_loop_source *s = src[i] = loop->sources[i];
                        at[i] = n;
                        if (s->n_fds == 1 && !s->fill)
                                pfd[n] = (struct pollfd){.fd = s->fd, .events = s->events};
                        else if (s->n_fds > 0)
                                s->fill(s->userdata, pfd + n);
                        n += s->n_fds;
                        if (s->deadline && (!next || s->deadline < next))
                                next = s->deadline;
                }
                int ms = -1;
                if (next) {
                        uint64_t t = cordon_now_usec();
                        uint64_t left = next <= t ? 0 : (next - t + 999) / 1000;
                        ms = left > INT_MAX ? INT_MAX : (int)left;
                }
                int k = poll(pfd, n, ms);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                uint64_t t = next ? cordon_now_usec() : 0;
                for (unsigned i = 0; i < count && !loop->quit; i++) {
                        struct cordon_loop_source *s = src[i];
                        bool ready = s->deadline && t >= s->deadline;
                        for (unsigned j = 0; k > 0 && j < s->n_fds; j++)
                                ready |= pfd[at[i] + j].revents != 0;
                        if (!ready)
                                continue;
                        int r = s->dispatch(s->userdata, pfd + at[i]);
                        if (r < 0)
                                return r;
                }
        }
        return loop->result;
}
