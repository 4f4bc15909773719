/* The egress proxy's byte relay: per direction, socket → pipe → socket with splice(2), so the
 * payload never enters user space; a read/write buffer when no pipe could be made. A side is
 * read only while its pipe has room (backpressure: a peer that does not read stops the other
 * peer's reads), and EOF on one side becomes shutdown(SHUT_WR) on the other once everything
 * before it is written (half-close). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/proxy/proxy-conn.h"
#include "shared/macro.h"

#define PUMP_ROUNDS 8 /* fill/drain rounds per event before going back to epoll */

static bool is_again(int e)
{
        return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}

int cordon_proxy_relay_start(struct proxy_conn *c)
{
        size_t want = c->p->cfg.pipe_bytes;
        struct proxy_dir *dirs[] = {&c->up, &c->down};

        c->up.src = &c->cw;
        c->up.dst = &c->uw;
        c->down.src = &c->uw;
        c->down.dst = &c->cw;
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                struct proxy_dir *d = dirs[i];
                int fds[2];
                if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
                        d->pipe_r = fds[0];
                        d->pipe_w = fds[1];
                        /* Small pipes keep a tunnel's kernel memory small; when the size is
                         * refused (pipe-user-pages-soft), the default pipe still works. */
                        (void)fcntl(d->pipe_w, F_SETPIPE_SZ, (int)want);
                        int sz = fcntl(d->pipe_w, F_GETPIPE_SZ);
                        d->cap = sz > 0 ? (size_t)sz : 4096;
                } else if (errno == EMFILE || errno == ENFILE) {
                        d->buf = malloc(want);
                        if (!d->buf)
                                return -ENOMEM;
                        d->cap = want;
                } else
                        return negative_errno();
        }
        return 0;
}

void cordon_proxy_relay_clear(struct proxy_conn *c)
{
        struct proxy_dir *dirs[] = {&c->up, &c->down};
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                struct proxy_dir *d = dirs[i];
                if (d->grown) {
                        c->p->grown_pipes--;
                        d->grown = false;
                }
                d->pipe_r = safe_close(d->pipe_r);
                d->pipe_w = safe_close(d->pipe_w);
                free(d->buf);
                d->buf = NULL;
                free(d->pre);
                d->pre = NULL;
        }
}

int cordon_proxy_dir_flush_pre(struct proxy_dir *d)
{
        while (d->pre && d->pre_off < d->pre_len) {
                ssize_t n =
                    send(d->dst->fd, d->pre + d->pre_off, d->pre_len - d->pre_off, MSG_NOSIGNAL);
                if (n < 0)
                        return is_again(errno) ? 0 : negative_errno();
                d->pre_off += (size_t)n;
                if (!d->pre_own)
                        d->bytes += (size_t)n;
        }
        free(d->pre);
        d->pre = NULL;
        d->pre_len = d->pre_off = 0;
        return 1;
}

static bool dir_can_read(const struct proxy_dir *d)
{
        return !d->eof && d->limit > 0 && d->off + d->fill < d->cap;
}

static bool dir_pending(const struct proxy_dir *d)
{
        return d->pre || d->fill > 0;
}

static struct cordon_proxy *dir_proxy(const struct proxy_dir *d)
{
        return d->src->owner ? ((struct proxy_conn *)d->src->owner)->p : NULL;
}

/* A full pipe after CORDON_PROXY_GROW_AFTER bytes: a stream, which gets a bigger pipe while the
 * proxy's budget lasts (see proxy-conn.h). A refusal (pipe-user-pages-soft) keeps the pipe. */
static void dir_maybe_grow(struct proxy_dir *d)
{
        struct cordon_proxy *p;
        if (d->grown || d->buf || d->off + d->fill < d->cap || d->bytes < CORDON_PROXY_GROW_AFTER ||
            d->cap >= CORDON_PROXY_PIPE_GROWN || !(p = dir_proxy(d)) ||
            p->grown_pipes >= CORDON_PROXY_GROWN_MAX)
                return;
        int sz = fcntl(d->pipe_w, F_SETPIPE_SZ, CORDON_PROXY_PIPE_GROWN);
        if (sz <= 0)
                return;
        d->cap = (size_t)sz;
        d->grown = true;
        p->grown_pipes++;
}

/* Takes what @d's source has, up to the room left. Returns bytes taken, 0, -errno. */
static ssize_t dir_fill(struct proxy_dir *d)
{
        if (!dir_can_read(d))
                return 0;
        size_t want = d->cap - d->off - d->fill;
        if (d->limit < want)
                want = (size_t)d->limit;
        ssize_t n;
        if (d->buf)
                n = recv(d->src->fd, d->buf + d->off + d->fill, want, 0);
        else
                n = splice(d->src->fd, NULL, d->pipe_w, NULL, want,
                           SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
        if (n < 0)
                return is_again(errno) ? 0 : negative_errno();
        if (n == 0) {
                d->eof = true;
                return 0;
        }
        d->fill += (size_t)n;
        if (d->limit != UINT64_MAX)
                d->limit -= (uint64_t)n;
        dir_maybe_grow(d);
        return n;
}

/* Writes what @d holds to its destination; shuts the destination down for writing after the
 * source's EOF. Returns bytes written, 0, -errno. */
static ssize_t dir_drain(struct proxy_dir *d)
{
        uint64_t before = d->bytes;
        int r = cordon_proxy_dir_flush_pre(d);
        if (r <= 0)
                return r < 0 ? r : (ssize_t)(d->bytes - before);
        while (d->fill > 0) {
                ssize_t n;
                if (d->buf)
                        n = send(d->dst->fd, d->buf + d->off, d->fill, MSG_NOSIGNAL);
                else
                        n = splice(d->pipe_r, NULL, d->dst->fd, NULL, d->fill,
                                   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
                if (n < 0) {
                        if (is_again(errno))
                                break;
                        return negative_errno();
                }
                d->fill -= (size_t)n;
                d->bytes += (size_t)n;
                d->off = d->buf && d->fill > 0 ? d->off + (size_t)n : 0;
        }
        if (d->eof && d->fill == 0 && !d->shut) {
                /* Half-close: the source is done, so is the destination's input. ENOTCONN:
                 * the peer went away already; the other direction will see it. */
                if (shutdown(d->dst->fd, SHUT_WR) < 0 && errno != ENOTCONN)
                        return negative_errno();
                d->shut = true;
        }
        return (ssize_t)(d->bytes - before);
}

static int pump(struct proxy_conn *c, struct proxy_dir *d)
{
        for (unsigned round = 0; round < PUMP_ROUNDS; round++) {
                ssize_t in = dir_fill(d);
                if (in < 0)
                        return (int)in;
                uint64_t before = d->bytes;
                ssize_t out = dir_drain(d);
                if (out < 0)
                        return (int)out;
                uint64_t moved = d->bytes - before;
                if (d == &c->up)
                        c->p->stats.bytes_up += moved;
                else
                        c->p->stats.bytes_down += moved;
                if (in > 0 || moved > 0)
                        c->last_activity = cordon_proxy_now(c->p);
                if (in <= 0 || moved == 0)
                        break;
        }
        return 0;
}

/* splice(2) into a socket whose peer has gone raises SIGPIPE, and splice has no MSG_NOSIGNAL:
 * the signal is blocked in this thread while the relay moves bytes and one it raised is taken
 * back (one that was pending before is left for its owner). The process's disposition is not
 * touched, so a library caller keeps its own. */
struct pipe_guard {
        sigset_t set, old;
        bool was_pending;
};

static void guard_begin(struct pipe_guard *g)
{
        sigset_t pending;
        sigemptyset(&g->set);
        sigaddset(&g->set, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &g->set, &g->old);
        g->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
}

static void guard_end(struct pipe_guard *g)
{
        sigset_t pending;
        if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
                const struct timespec zero = {0};
                while (sigtimedwait(&g->set, NULL, &zero) == SIGPIPE)
                        ;
        }
        pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

static int pump_both(struct proxy_conn *c, struct cordon_proxy_watch *w, uint32_t events)
{
        struct proxy_dir *reading = w == &c->cw ? &c->up : &c->down;
        struct proxy_dir *writing = w == &c->cw ? &c->down : &c->up;
        int r = 0;
        if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
                r = pump(c, reading);
        if (r >= 0 && (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)))
                r = pump(c, writing);
        return r;
}

int cordon_proxy_relay_event(struct proxy_conn *c, struct cordon_proxy_watch *w, uint32_t events)
{
        struct pipe_guard g;
        guard_begin(&g);
        int r = pump_both(c, w, events);
        guard_end(&g);
        if (r < 0)
                return r;
        if (events & EPOLLERR) {
                int err = 0;
                socklen_t len = sizeof(err);
                if (getsockopt(w->fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err)
                        return -err;
        }

        bool down_done = c->down.eof && !dir_pending(&c->down) && c->down.shut;
        /* HTTP forward: the origin's response is all the client gets. */
        if (c->proto == PROXY_PROTO_HTTP)
                return down_done;
        return c->up.shut && down_done;
}

void cordon_proxy_relay_interest(const struct proxy_conn *c, uint32_t *ret_client,
                                 uint32_t *ret_upstream)
{
        *ret_client = (dir_can_read(&c->up) ? EPOLLIN | EPOLLRDHUP : 0) |
                      (dir_pending(&c->down) ? EPOLLOUT : 0);
        *ret_upstream = (dir_can_read(&c->down) ? EPOLLIN | EPOLLRDHUP : 0) |
                        (dir_pending(&c->up) ? EPOLLOUT : 0);
}
