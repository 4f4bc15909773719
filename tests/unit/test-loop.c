/* Unit tests for src/lib/loop/loop.c: a thousand io sources, timers in deadline order, sources
 * freed by a callback (itself, or one later in the same round) never dispatched again, re-arming
 * from a callback, enabling and changing events, quit, errors, and the embedding functions
 * driven from a caller's own poll(). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/loop/loop.h"

static struct cordon_loop *new_loop(void)
{
        struct cordon_loop *loop = NULL;
        cr_assert_eq(cordon_loop_new(&loop), 0);
        return loop;
}

/* An eventfd that is readable (its counter 1) until read. */
static int ready_fd(void)
{
        int fd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);
        cr_assert_geq(fd, 0);
        return fd;
}

static void drain(int fd)
{
        uint64_t v;
        (void)!read(fd, &v, sizeof(v));
}

/* ---- many sources -------------------------------------------------------------------------- */

#define MANY 1000

static unsigned hits[MANY];

static int on_many(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        cr_assert(revents & EPOLLIN);
        hits[(uintptr_t)userdata]++;
        drain(fd);
        return 0;
}

Test(loop, a_thousand_sources)
{
        struct rlimit rl;
        cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
        if (rl.rlim_cur < MANY + 64 && rl.rlim_max >= MANY + 64) {
                rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
                cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
        }
        cr_assert_geq(rl.rlim_cur, MANY + 64, "RLIMIT_NOFILE's hard limit is too low");

        struct cordon_loop *loop = new_loop();
        static int fds[MANY];
        static struct cordon_loop_io *ios[MANY];
        for (unsigned i = 0; i < MANY; i++) {
                fds[i] = ready_fd();
                cr_assert_eq(cordon_loop_add_io(loop, fds[i], EPOLLIN, on_many,
                                                (void *)(uintptr_t)i, &ios[i]),
                             0);
        }
        /* A round takes at most a batch; every source comes once. */
        unsigned rounds = 0;
        while (cordon_loop_process(loop, 0) == 1)
                rounds++;
        cr_expect_geq(rounds, MANY / CORDON_LOOP_BATCH);
        for (unsigned i = 0; i < MANY; i++)
                cr_expect_eq(hits[i], 1, "source %u dispatched %u times", i, hits[i]);

        /* Half of them ready again, and the other half freed: only the first half comes. */
        for (unsigned i = 0; i < MANY; i++) {
                uint64_t one = 1;
                cr_assert_eq(write(fds[i], &one, sizeof(one)), (ssize_t)sizeof(one));
                if (i % 2)
                        ios[i] = cordon_loop_io_free(ios[i]);
        }
        while (cordon_loop_process(loop, 0) == 1)
                ;
        for (unsigned i = 0; i < MANY; i++)
                cr_expect_eq(hits[i], i % 2 ? 1 : 2, "source %u", i);
        cordon_loop_free(loop);
        for (unsigned i = 0; i < MANY; i++)
                close(fds[i]);
}

/* ---- timers -------------------------------------------------------------------------------- */

struct order {
        int seen[8];
        unsigned n;
        bool early;
};

struct tagged {
        struct order *o;
        int id;
        uint64_t deadline;
};

static int on_tagged(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        struct tagged *g = userdata;
        if (now < g->deadline || cordon_now_usec() < g->deadline)
                g->o->early = true;
        g->o->seen[g->o->n++] = g->id;
        return 0;
}

Test(loop, timers_run_in_deadline_order_never_early)
{
        struct cordon_loop *loop = new_loop();
        struct order o = {0};
        uint64_t base = cordon_now_usec() + 30000;
        /* Ids in the order they must run: 3 and 4 share a deadline, 3 armed first. */
        const uint64_t offs[] = {
            [0] = 0, [1] = 5000, [2] = 10000, [3] = 15000, [4] = 15000, [5] = 20000};
        const int arm_order[] = {5, 2, 3, 0, 4, 1};
        struct tagged g[6];
        struct cordon_loop_timer *t[6];
        for (size_t k = 0; k < 6; k++) {
                int id = arm_order[k];
                g[id] = (struct tagged){.o = &o, .id = id, .deadline = base + offs[id]};
                cr_assert_eq(cordon_loop_add_timer(loop, g[id].deadline, on_tagged, &g[id], &t[id]),
                             0);
        }
        uint64_t left = cordon_loop_get_timeout(loop);
        cr_expect(left <= 30000, "the first timer is %llu usec away", (unsigned long long)left);
        while (o.n < 6)
                cr_assert_geq(cordon_loop_process(loop, CORDON_LOOP_NEVER), 0);
        for (int i = 0; i < 6; i++)
                cr_expect_eq(o.seen[i], i, "position %d ran timer %d", i, o.seen[i]);
        cr_expect_not(o.early, "a timer ran before its deadline");
        cr_expect_eq(cordon_loop_get_timeout(loop), CORDON_LOOP_NEVER, "all disarmed once run");
        for (int i = 0; i < 6; i++)
                cr_expect_eq(cordon_loop_timer_get(t[i]), CORDON_LOOP_NEVER);
        cordon_loop_free(loop); /* frees the timers too */
}

/* ---- removal during dispatch --------------------------------------------------------------- */

struct pair {
        struct cordon_loop_io *io[2];
        int fd[2];
        unsigned calls[2];
};

static int frees_itself(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)revents;
        (void)fd;
        struct pair *p = userdata;
        p->calls[0]++;
        /* Still readable: without the removal it would come again. */
        cr_assert_null(cordon_loop_io_free(io));
        p->io[0] = NULL;
        return 0;
}

Test(loop, a_source_freeing_itself_is_not_dispatched_again)
{
        struct cordon_loop *loop = new_loop();
        struct pair p = {.fd = {ready_fd(), -1}};
        cr_assert_eq(cordon_loop_add_io(loop, p.fd[0], EPOLLIN, frees_itself, &p, &p.io[0]), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect_eq(cordon_loop_process(loop, 0), 0);
        cr_expect_eq(p.calls[0], 1);
        cordon_loop_free(loop);
        close(p.fd[0]);
}

/* Each of two sources ready in the same round frees the other and closes its descriptor (as
 * the proxy ends a connection): whichever comes first, the other never runs. */
static int frees_other(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)revents;
        drain(fd);
        struct pair *p = userdata;
        int me = io == p->io[0] ? 0 : 1;
        cr_assert(io == p->io[me], "a freed source was dispatched");
        p->calls[me]++;
        p->io[!me] = cordon_loop_io_free(p->io[!me]);
        if (p->fd[!me] >= 0) {
                close(p->fd[!me]);
                p->fd[!me] = -1;
        }
        return 0;
}

Test(loop, a_source_freed_by_another_in_the_same_round_is_not_dispatched)
{
        for (int round = 0; round < 20; round++) {
                struct cordon_loop *loop = new_loop();
                struct pair p = {.fd = {ready_fd(), ready_fd()}};
                for (int i = 0; i < 2; i++)
                        cr_assert_eq(
                            cordon_loop_add_io(loop, p.fd[i], EPOLLIN, frees_other, &p, &p.io[i]),
                            0);
                /* Both are ready: one round fetches both events. */
                struct pollfd pfd = {.fd = cordon_loop_get_fd(loop), .events = POLLIN};
                cr_assert_eq(poll(&pfd, 1, 0), 1);
                cr_expect_eq(cordon_loop_process(loop, 0), 1);
                cr_expect_eq(cordon_loop_process(loop, 0), 0);
                cr_expect_eq(p.calls[0] + p.calls[1], 1, "calls: %u and %u", p.calls[0],
                             p.calls[1]);
                cordon_loop_free(loop);
                for (int i = 0; i < 2; i++)
                        if (p.fd[i] >= 0)
                                close(p.fd[i]);
        }
}

struct timer_pair {
        struct cordon_loop_timer *t[2];
        unsigned calls[2];
};

static int timer_frees_other(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)now;
        struct timer_pair *p = userdata;
        int me = t == p->t[0] ? 0 : 1;
        p->calls[me]++;
        p->t[!me] = cordon_loop_timer_free(p->t[!me]);
        return 0;
}

static int io_frees_timer(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)revents;
        drain(fd);
        struct timer_pair *p = userdata;
        p->t[1] = cordon_loop_timer_free(p->t[1]);
        return 0;
}

Test(loop, a_timer_freed_in_the_round_it_is_due_does_not_run)
{
        struct cordon_loop *loop = new_loop();
        struct timer_pair p = {0};
        /* Both due now: the first (armed first) frees the second. */
        cr_assert_eq(cordon_loop_add_timer(loop, 0, timer_frees_other, &p, &p.t[0]), 0);
        cr_assert_eq(cordon_loop_add_timer(loop, 0, timer_frees_other, &p, &p.t[1]), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect_eq(cordon_loop_process(loop, 0), 0);
        cr_expect_eq(p.calls[0], 1);
        cr_expect_eq(p.calls[1], 0);
        cr_expect_eq(cordon_loop_get_timeout(loop), CORDON_LOOP_NEVER);
        p.t[0] = cordon_loop_timer_free(p.t[0]);

        /* An io source frees a timer that is due in the same round. */
        struct timer_pair q = {0};
        int fd = ready_fd();
        struct cordon_loop_io *io;
        cr_assert_eq(cordon_loop_add_io(loop, fd, EPOLLIN, io_frees_timer, &q, &io), 0);
        cr_assert_eq(cordon_loop_add_timer(loop, 0, timer_frees_other, &q, &q.t[1]), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect_eq(q.calls[1], 0, "the freed timer ran");
        cordon_loop_io_free(io);
        close(fd);
        cordon_loop_free(loop);
}

/* ---- re-arming ----------------------------------------------------------------------------- */

struct rearm {
        unsigned timer_calls, io_calls;
        unsigned limit;
};

static int rearms(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        struct rearm *r = userdata;
        r->timer_calls++;
        /* Due again at once: it runs again in the next round, not in this one. */
        if (r->timer_calls < r->limit)
                cordon_loop_timer_set(t, now);
        return 0;
}

static int counts(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)fd;
        (void)revents;
        ((struct rearm *)userdata)->io_calls++;
        return 0;
}

Test(loop, a_timer_re_armed_from_its_callback_runs_once_a_round)
{
        struct cordon_loop *loop = new_loop();
        struct rearm r = {.limit = 5};
        struct cordon_loop_timer *t;
        struct cordon_loop_io *io;
        int fd = ready_fd(); /* never read: ready every round */
        cr_assert_eq(cordon_loop_add_timer(loop, 0, rearms, &r, &t), 0);
        cr_assert_eq(cordon_loop_add_io(loop, fd, EPOLLIN, counts, &r, &io), 0);
        for (unsigned i = 1; i <= 5; i++) {
                cr_assert_eq(cordon_loop_process(loop, 0), 1);
                cr_expect_eq(r.timer_calls, i);
                cr_expect_eq(r.io_calls, i, "the io source starved");
        }
        cr_expect_eq(cordon_loop_get_timeout(loop), CORDON_LOOP_NEVER);
        /* Later, from outside a callback: re-armed into the future, then moved earlier. */
        cordon_loop_timer_set(t, cordon_now_usec() + 10000000);
        cr_expect_gt(cordon_loop_get_timeout(loop), 9000000);
        cordon_loop_timer_set(t, cordon_now_usec() + 20000);
        cr_expect_leq(cordon_loop_get_timeout(loop), 20000);
        cordon_loop_io_set_enabled(io, false);
        cr_expect_eq(cordon_loop_process(loop, CORDON_LOOP_NEVER), 1);
        cr_expect_eq(r.timer_calls, 6);
        cr_expect_eq(r.io_calls, 5);
        cordon_loop_free(loop);
        close(fd);
}

/* ---- enabling and events ------------------------------------------------------------------- */

static int records(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)fd;
        *(uint32_t *)userdata |= revents;
        return 0;
}

Test(loop, disabled_and_changed_sources)
{
        struct cordon_loop *loop = new_loop();
        int p[2];
        cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        uint32_t got = 0;
        struct cordon_loop_io *io;
        /* The write end wants nothing yet. */
        cr_assert_eq(cordon_loop_add_io(loop, p[1], 0, records, &got, &io), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 0);
        cr_assert_eq(cordon_loop_io_set_events(io, EPOLLOUT), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect_eq(got, EPOLLOUT);
        cr_assert_eq(cordon_loop_io_set_enabled(io, false), 0);
        cr_expect_not(cordon_loop_io_is_enabled(io));
        got = 0;
        cr_expect_eq(cordon_loop_process(loop, 0), 0);
        cr_assert_eq(cordon_loop_io_set_enabled(io, true), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect_eq(got, EPOLLOUT);
        /* The read end closed: the write end has an error, delivered though not asked for. */
        close(p[0]);
        got = 0;
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect(got & EPOLLERR);
        /* Not even a hang-up wakes a source that wants nothing. */
        cr_assert_eq(cordon_loop_io_set_events(io, 0), 0);
        cr_expect_eq(cordon_loop_io_get_events(io), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 0);

        /* Its descriptor closed (the epoll set forgets it) and the number reused: changing the
         * source reaches the new file. */
        cr_assert_eq(cordon_loop_io_set_events(io, EPOLLOUT), 0);
        close(p[1]);
        int fresh = ready_fd();
        cr_assert_eq(dup3(fresh, p[1], O_CLOEXEC), p[1]);
        close(fresh);
        got = 0;
        cr_assert_eq(cordon_loop_io_set_events(io, EPOLLIN), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect_eq(got, EPOLLIN);
        cordon_loop_io_free(io);
        close(p[1]);
        cordon_loop_free(loop);
}

/* ---- quit and errors ----------------------------------------------------------------------- */

static struct cordon_loop *quit_loop;

static int quits_with(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)revents;
        drain(fd);
        (*(unsigned *)userdata)++;
        cordon_loop_quit(quit_loop, 42);
        return 0;
}

static int timer_quits(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        cordon_loop_quit(userdata, 7);
        return 0;
}

Test(loop, quit_ends_run_and_the_round)
{
        struct cordon_loop *loop = quit_loop = new_loop();
        struct cordon_loop_timer *t;
        cr_assert_eq(cordon_loop_add_timer(loop, cordon_now_usec() + 10000, timer_quits, loop, &t),
                     0);
        cr_expect_eq(cordon_loop_run(loop), 7);
        cordon_loop_timer_free(t);

        /* Two sources ready: the first quits, the second waits for the next round. */
        unsigned calls = 0;
        int fds[2] = {ready_fd(), ready_fd()};
        struct cordon_loop_io *ios[2];
        for (int i = 0; i < 2; i++)
                cr_assert_eq(cordon_loop_add_io(loop, fds[i], EPOLLIN, quits_with, &calls, &ios[i]),
                             0);
        cr_expect_eq(cordon_loop_run(loop), 42);
        cr_expect_eq(calls, 1);
        cr_expect_eq(cordon_loop_run(loop), 42);
        cr_expect_eq(calls, 2);
        for (int i = 0; i < 2; i++) {
                cordon_loop_io_free(ios[i]);
                close(fds[i]);
        }
        cordon_loop_free(loop);
}

static int fails(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)fd;
        (void)revents;
        (void)userdata;
        return -EIO;
}

static int nested_result;

static int nests(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        nested_result = cordon_loop_process(userdata, 0);
        return 0;
}

Test(loop, errors)
{
        struct cordon_loop *loop = new_loop();
        struct cordon_loop_io *io = NULL;
        int fd = ready_fd();
        cr_expect_eq(cordon_loop_add_io(loop, -1, EPOLLIN, fails, NULL, &io), -EBADF);
        cr_expect_eq(cordon_loop_add_io(loop, fd, EPOLLIN | EPOLLET, fails, NULL, &io), -EINVAL);
        cr_expect_eq(cordon_loop_add_io(loop, fd, EPOLLIN | EPOLLONESHOT, fails, NULL, &io),
                     -EINVAL);
        /* epoll takes no regular file. */
        int file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(file, 0);
        cr_expect_eq(cordon_loop_add_io(loop, file, EPOLLIN, fails, NULL, &io), -EPERM);
        close(file);
        /* The same descriptor twice. */
        cr_assert_eq(cordon_loop_add_io(loop, fd, EPOLLIN, fails, NULL, &io), 0);
        struct cordon_loop_io *twice = NULL;
        cr_expect_eq(cordon_loop_add_io(loop, fd, EPOLLIN, fails, NULL, &twice), -EEXIST);
        /* A callback's error ends the round and comes back from process() and run(). */
        cr_expect_eq(cordon_loop_process(loop, 0), -EIO);
        cr_expect_eq(cordon_loop_run(loop), -EIO);
        cordon_loop_io_free(io);
        /* process() from a callback. */
        struct cordon_loop_timer *t;
        cr_assert_eq(cordon_loop_add_timer(loop, 0, nests, loop, &t), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect_eq(nested_result, -EBUSY);
        cordon_loop_free(loop);
        close(fd);
}

/* ---- embedding ----------------------------------------------------------------------------- */

static int counts_timer(struct cordon_loop_timer *t, uint64_t now, void *userdata)
{
        (void)t;
        (void)now;
        (*(unsigned *)userdata)++;
        return 0;
}

/* What a caller with a poll() loop of its own does: poll the loop's fd with its timeout, then
 * process without blocking. */
Test(loop, driven_from_a_callers_poll)
{
        struct cordon_loop *loop = new_loop();
        unsigned timer_calls = 0;
        uint32_t got = 0;
        struct cordon_loop_timer *t;
        cr_assert_eq(
            cordon_loop_add_timer(loop, cordon_now_usec() + 200000, counts_timer, &timer_calls, &t),
            0);
        int p[2];
        cr_assert_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        struct cordon_loop_io *io;
        cr_assert_eq(cordon_loop_add_io(loop, p[0], EPOLLIN, records, &got, &io), 0);

        struct pollfd pfd = {.fd = cordon_loop_get_fd(loop), .events = POLLIN};
        /* Nothing ready: the fd is quiet until the timeout, which the timer gives. */
        cr_expect_eq(poll(&pfd, 1, 0), 0);
        uint64_t left = cordon_loop_get_timeout(loop);
        cr_assert(left > 0 && left <= 200000);
        uint64_t t0 = cordon_now_usec();
        cr_expect_eq(poll(&pfd, 1, (int)((left + 999) / 1000)), 0);
        cr_expect_eq(cordon_loop_get_timeout(loop), 0);
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect_eq(timer_calls, 1);
        cr_expect_geq(cordon_now_usec() - t0, left);

        /* A byte in the pipe: the fd is readable at once. */
        cr_assert_eq(write(p[1], "x", 1), 1);
        cr_expect_eq(cordon_loop_get_timeout(loop), CORDON_LOOP_NEVER);
        cr_expect_eq(poll(&pfd, 1, 1000), 1);
        cr_expect(pfd.revents & POLLIN);
        cr_expect_eq(cordon_loop_process(loop, 0), 1);
        cr_expect_eq(got, EPOLLIN);
        cordon_loop_io_free(io);
        cordon_loop_timer_free(t);
        cordon_loop_free(loop);
        close(p[0]);
        close(p[1]);
}
