/* The session holder's socket (holder.h): the daemon's connection, checked peer by peer as the
 * daemon checks its own (a sandboxed process is closed unanswered), one at a time (a new one
 * replaces the old: a restarted daemon re-adopts), and the dispatch of its requests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/holder.h"
#include "serve/serve-peer.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"

static void conn_close(struct holder *h)
{
        if (h->conn.fd < 0)
                return;
        h->conn_source = serve_loop_remove(h->loop, h->conn_source);
        holder_conn_clear(&h->conn);
        h->conn_out_watch = false;
        /* Its long polls go with it; an exec still running is answered to nobody. */
        holder_exec_conn_gone(h);
        h->conn_gen++;
}

static void watch_out(struct holder *h, bool on)
{
        if (h->conn_out_watch == on || !h->conn_source)
                return;
        if (serve_loop_modify(h->loop, h->conn_source, EPOLLIN | (on ? EPOLLOUT : 0)) >= 0)
                h->conn_out_watch = on;
}

void holder_send(struct holder *h, uint64_t gen, json_t *reply)
{
        _cleanup_json_ json_t *j = reply;
        if (gen != h->conn_gen || h->conn.fd < 0)
                return; /* for a connection that is gone */
        if (!j) {
                log_error("out of memory: a reply is lost; closing the connection");
                conn_close(h);
                return;
        }
        int r = holder_conn_send(&h->conn, j);
        if (r < 0) {
                log_warning("the daemon's connection: %s", strerror(-r));
                conn_close(h);
                return;
        }
        watch_out(h, h->conn.out_len > h->conn.out_off);
}

static void reply_error(struct holder *h, uint64_t id, const struct serve_error *err)
{
        holder_send(h, h->conn_gen, holder_reply_error(id, err));
}

/* One request: answered now, later (an exec, a long poll), or with an error. */
static void dispatch(struct holder *h, json_t *j)
{
        struct serve_error err = {.kind = SERVE_ERR_IO};
        snprintf(err.message, sizeof(err.message), "out of memory");
        _cleanup_(holder_request_clear) struct holder_request rq = {0};
        int r = holder_request_parse(j, &rq, &err);
        if (r == -EBADMSG) {
                log_warning("a request without a usable id: closing the connection");
                conn_close(h);
                return;
        }
        if (r < 0) {
                reply_error(h, rq.id, &err);
                return;
        }
        json_t *result = NULL;
        uint64_t bytes = 0;
        switch (rq.op) {
        case HOLDER_OP_SESSION:
                result = holder_session_view(h);
                break;
        case HOLDER_OP_EXEC:
        case HOLDER_OP_PROCESS_START:
                r = holder_exec_start(h, rq.id, &rq.exec, rq.op == HOLDER_OP_PROCESS_START, &err);
                if (r < 0)
                        reply_error(h, rq.id, &err);
                return; /* answered when it ends (exec) or once started (process) */
        case HOLDER_OP_PROCESS_OUTPUT:
        case HOLDER_OP_PROCESS_STDIN:
        case HOLDER_OP_PROCESS_SIGNAL:
        case HOLDER_OP_PROCESS_RESIZE:
                r = holder_process_op(h, &rq, &result, &err);
                if (r > 0)
                        return; /* a long poll */
                break;
        case HOLDER_OP_PROCESS_LIST:
                result = holder_process_list(h);
                break;
        case HOLDER_OP_MOUNT:
                if ((r = holder_session_mount(h, &rq.mount, &err)) >= 0)
                        result = holder_session_view(h);
                break;
        case HOLDER_OP_NETWORK_POLICY:
                if ((r = holder_session_network(h, &rq.policy, &err)) >= 0)
                        result = holder_session_view(h);
                break;
        case HOLDER_OP_SNAPSHOT:
                if ((r = holder_session_snapshot(h, rq.path, &bytes, &err)) >= 0)
                        result = json_pack("{s:I}", "bytes", (json_int_t)bytes);
                break;
        case HOLDER_OP_SUSPEND:
                if ((r = holder_session_suspend(h, &err)) >= 0)
                        result = holder_session_view(h);
                break;
        case HOLDER_OP_RESUME:
                if ((r = holder_session_resume(h, &err)) >= 0)
                        result = holder_session_view(h);
                break;
        case HOLDER_OP_TERMINATE:
                h->quit = true;
                serve_loop_quit(h->loop);
                result = json_object();
                break;
        default:
                r = serve_error_set(&err, SERVE_ERR_INVALID_REQUEST, "op: unknown operation");
                break;
        }
        if (r < 0 || !result) {
                json_decref(result);
                reply_error(h, rq.id, &err);
                return;
        }
        holder_send(h, h->conn_gen, holder_reply_ok(rq.id, result));
}

static int on_conn(int fd, uint32_t events, void *userdata)
{
        struct holder *h = userdata;
        (void)fd;
        uint64_t gen = h->conn_gen;
        if (events & EPOLLOUT) {
                int r = holder_conn_flush(&h->conn);
                if (r < 0) {
                        conn_close(h);
                        return 0;
                }
                watch_out(h, r > 0);
        }
        if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                return 0;
        int hup = holder_conn_read(&h->conn);
        for (;;) {
                json_t *j = NULL;
                int r = hup < 0 ? hup : holder_conn_next(&h->conn, &j);
                if (r < 0) {
                        log_warning("the daemon's connection: %s; closing it",
                                    r == -EMSGSIZE  ? "a frame over the limit"
                                    : r == -EBADMSG ? "a frame that is not a JSON object"
                                                    : strerror(-r));
                        conn_close(h);
                        return 0;
                }
                if (r == 0)
                        break;
                dispatch(h, j);
                json_decref(j);
                if (gen != h->conn_gen || h->quit)
                        return 0; /* closed, replaced, or terminating */
        }
        if (hup > 0)
                conn_close(h);
        return 0;
}

static int on_accept(int fd, uint32_t events, void *userdata)
{
        struct holder *h = userdata;
        (void)events;
        for (;;) {
                _cleanup_close_ int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (c < 0)
                        return errno == EAGAIN || errno == EINTR || errno == ECONNABORTED
                                   ? 0
                                   : log_error_errno(-errno, "accept: %m");
                char why[512] = "";
                int r = serve_peer_check(c, why, sizeof(why));
                if (r <= 0) {
                        /* Closed without a word: a sandboxed process learns nothing. */
                        log_warning("refused a connection: %s",
                                    *why ? why : strerror(r < 0 ? -r : EPERM));
                        continue;
                }
                if (h->conn.fd >= 0)
                        log_info("a new connection replaces the daemon's earlier one");
                conn_close(h);
                h->conn = HOLDER_CONN_NULL;
                h->conn.fd = TAKE_FD(c);
                r = serve_loop_add(h->loop, h->conn.fd, EPOLLIN, on_conn, h, &h->conn_source);
                if (r < 0) {
                        holder_conn_clear(&h->conn);
                        log_error("cannot watch the connection: %s", strerror(-r));
                }
        }
}

int holder_ops_listen(struct holder *h, struct serve_error *err)
{
        char why[512] = "";
        int r = serve_socket_listen(h->socket_path, &h->listen, why, sizeof(why));
        if (r < 0)
                return serve_error_set(err, SERVE_ERR_IO, "%s", *why ? why : strerror(-r));
        r = serve_loop_add(h->loop, h->listen.fd, EPOLLIN, on_accept, h, &h->listen_source);
        if (r < 0)
                return serve_error_set(err, SERVE_ERR_IO, "cannot watch the socket: %s",
                                       strerror(-r));
        return 0;
}

void holder_ops_close(struct holder *h)
{
        /* A reply still queued (terminate's) gets a moment to go out. */
        for (int i = 0; i < 100 && h->conn.fd >= 0 && holder_conn_flush(&h->conn) > 0; i++)
                usleep(10000);
        conn_close(h);
        h->listen_source = serve_loop_remove(h->loop, h->listen_source);
        _cleanup_free_ char *lock = NULL;
        if (h->listen.path && asprintf(&lock, "%s.lock", h->listen.path) < 0)
                lock = NULL;
        serve_socket_close(&h->listen);
        /* Nobody listens at this name again (it is the session's): its lock file goes too. */
        if (lock)
                (void)unlink(lock);
}
