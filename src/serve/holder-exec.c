/* The session holder's commands (holder.h): an "exec" runs to its end with its output captured
 * (up to the output cap, the rest drained so that the command never blocks) and is answered
 * then; a process ("process_start") keeps its output as numbered records until the daemon
 * acknowledges them, and stops reading it while HOLDER_PROCESS_BUFFER_MAX bytes are
 * unacknowledged. Stdin is written from the loop, never blocking it. Nothing here logs an
 * environment value or stdin. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cordon/session.h"
#include "serve/holder.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"
#include "shared/path-util.h"

#define READ_CHUNK     65536
#define READS_PER_WAKE 16
#define UTF8_STRADDLE  4 /* bytes kept past the cap: serve_text_to_json() sees a cut sequence */
/* After a pty's process exited, how long its master is read for output still on its way (the
 * kernel moves what the slave wrote to the master in a work item of its own) before a process
 * left in the background holding the terminal is given up on. */
#define PTY_DRAIN_GRACE_USEC 250000

struct holder_rec {
        uint64_t seq;
        int stream; /* 1 stdout, 2 stderr, 0 the exit */
        char *data;
        size_t len;
};

struct holder_stream {
        struct holder_proc *p;
        int fd;
        int which; /* 1 stdout, 2 stderr */
        struct serve_loop_source *src;
        bool done, paused;
};

struct holder_proc {
        struct holder *h;
        bool process; /* process_start; else an exec */
        char id[HOLDER_PROCESS_ID_MAX];
        char *command;
        bool pty;
        struct cordon_exec *e;
        struct serve_loop_source *pidfd_src;
        bool pidfd_fired;
        struct holder_stream out[2];
        int in_fd;
        struct serve_loop_source *in_src;
        char *in_buf;
        size_t in_len, in_off;
        bool in_eof;     /* close (a pty: ^D) once the buffer is written */
        bool in_partial; /* a pty: the last byte written ended no line */
        uint64_t deadline;
        bool timed_out, exited, finished;
        uint64_t exited_at; /* holder_now_usec() when the exit was seen */
        int status;
        /* An exec: the request to answer, and the captured output. */
        uint64_t req_id, gen;
        char *cap[2];
        size_t cap_len[2];
        /* A process: its records, oldest first. */
        struct holder_rec *recs;
        size_t n_recs;
        uint64_t next_seq, exit_seq;
        size_t unacked;
};

struct holder_wait {
        struct holder_wait *next;
        uint64_t gen, req_id, after_seq, deadline;
        char id[HOLDER_PROCESS_ID_MAX];
};

static struct holder_proc *find_proc(const struct holder *h, const char *id)
{
        for (size_t i = 0; i < h->n_procs; i++)
                if (h->procs[i]->process && streq(h->procs[i]->id, id))
                        return h->procs[i];
        return NULL;
}

static void stream_close(struct holder_stream *s)
{
        struct holder *h = s->p->h;
        s->src = serve_loop_remove(h->loop, s->src);
        s->fd = safe_close(s->fd);
        s->done = true;
}

static void stdin_close(struct holder_proc *p)
{
        p->in_src = serve_loop_remove(p->h->loop, p->in_src);
        p->in_fd = safe_close(p->in_fd);
        free(p->in_buf);
        p->in_buf = NULL;
        p->in_len = p->in_off = 0;
}

static void proc_free(struct holder_proc *p)
{
        struct holder *h = p->h;
        for (int i = 0; i < 2; i++)
                if (!p->out[i].done)
                        stream_close(&p->out[i]);
        stdin_close(p);
        p->pidfd_src = serve_loop_remove(h->loop, p->pidfd_src);
        cordon_exec_free(p->e);
        for (size_t i = 0; i < p->n_recs; i++)
                free(p->recs[i].data);
        free(p->recs);
        free(p->cap[0]);
        free(p->cap[1]);
        free(p->command);
        free(p);
}

static void proc_remove(struct holder *h, struct holder_proc *p)
{
        for (size_t i = 0; i < h->n_procs; i++)
                if (h->procs[i] == p) {
                        memmove(h->procs + i, h->procs + i + 1,
                                (h->n_procs - i - 1) * sizeof(*h->procs));
                        h->n_procs--;
                        break;
                }
        proc_free(p);
}

/* ---- process records and long polls ---- */

static int add_record(struct holder_proc *p, int stream, const char *data, size_t len)
{
        struct holder_rec *n = realloc(p->recs, (p->n_recs + 1) * sizeof(*n));
        if (!n)
                return -ENOMEM;
        p->recs = n;
        char *d = NULL;
        if (len && !(d = malloc(len)))
                return -ENOMEM;
        if (len)
                memcpy(d, data, len);
        p->recs[p->n_recs++] = (struct holder_rec){++p->next_seq, stream, d, len};
        p->unacked += len;
        return 0;
}

/* {"records": [...], "done": bool} for records after @after_seq. */
static json_t *records_json(const struct holder_proc *p, uint64_t after_seq)
{
        _cleanup_json_ json_t *a = json_array();
        if (!a)
                return NULL;
        size_t bytes = 0;
        uint64_t last = after_seq;
        for (size_t i = 0; i < p->n_recs; i++) {
                const struct holder_rec *r = &p->recs[i];
                if (r->seq <= after_seq)
                        continue;
                if (bytes && bytes + r->len > HOLDER_OUTPUT_REPLY_MAX)
                        break;
                json_t *o;
                if (r->stream == 0)
                        o = json_pack("{s:I,s:i,s:b}", "seq", (json_int_t)r->seq, "exit_code",
                                      p->status, "timed_out", p->timed_out);
                else {
                        _cleanup_free_ char *b64 = holder_base64_encode(r->data, r->len);
                        o = b64 ? json_pack("{s:I,s:s,s:s}", "seq", (json_int_t)r->seq, "stream",
                                            r->stream == 1 ? "stdout" : "stderr", "data", b64)
                                : NULL;
                }
                if (!o || json_array_append_new(a, o) < 0)
                        return NULL;
                bytes += r->len;
                last = r->seq;
        }
        bool done = p->exit_seq && last >= p->exit_seq;
        return json_pack("{s:O,s:b}", "records", a, "done", done);
}

static bool has_records_after(const struct holder_proc *p, uint64_t after_seq)
{
        return p->n_recs && p->recs[p->n_recs - 1].seq > after_seq;
}

/* Answers the long polls of @p that now have something (or all of them, with @all). A send
 * may close the connection, which drops every wait: each is unlinked before its answer goes,
 * and the walk starts again from the head. */
static void wake_waits(struct holder *h, const struct holder_proc *p, bool all)
{
        for (struct holder_wait **w = &h->waits; *w;) {
                struct holder_wait *x = *w;
                if (!streq(x->id, p->id) || (!all && !has_records_after(p, x->after_seq))) {
                        w = &x->next;
                        continue;
                }
                *w = x->next;
                json_t *reply = holder_reply_ok(x->req_id, records_json(p, x->after_seq));
                uint64_t gen = x->gen;
                free(x);
                holder_send(h, gen, reply);
                w = &h->waits;
        }
}

/* ---- output ---- */

static void resume_streams(struct holder_proc *p);

static void deliver(struct holder_proc *p, int which, const char *buf, size_t n)
{
        struct holder *h = p->h;
        holder_session_touch(h);
        if (p->process) {
                if (add_record(p, which, buf, n) < 0)
                        log_error("out of memory: output of process %s lost", p->id);
                wake_waits(h, p, false);
                return;
        }
        size_t keep = h->output_cap + UTF8_STRADDLE, have = p->cap_len[which - 1];
        if (have >= keep)
                return; /* drained past the cap: the command never blocks on us */
        size_t take = n < keep - have ? n : keep - have;
        char *c = realloc(p->cap[which - 1], have + take);
        if (!c)
                return;
        memcpy(c + have, buf, take);
        p->cap[which - 1] = c;
        p->cap_len[which - 1] += take;
}

static void pause_stream(struct holder_stream *s)
{
        s->src = serve_loop_remove(s->p->h->loop, s->src);
        s->paused = true;
}

/* Reads what @s has: until EAGAIN, the end, the backpressure, or READS_PER_WAKE reads. */
static void stream_read(struct holder_stream *s)
{
        struct holder_proc *p = s->p;
        char buf[READ_CHUNK];
        for (int i = 0; i < READS_PER_WAKE && !s->done; i++) {
                if (p->process && p->unacked >= HOLDER_PROCESS_BUFFER_MAX) {
                        pause_stream(s);
                        return;
                }
                size_t want = sizeof(buf);
                if (p->process && HOLDER_PROCESS_BUFFER_MAX - p->unacked < want)
                        want = HOLDER_PROCESS_BUFFER_MAX - p->unacked;
                ssize_t n = read(s->fd, buf, want);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN) {
                        /* After the exit what is not there yet is a background child's: a
                         * pipe's writes are there once made, a pty's end of file (EIO) is
                         * waited for a while, since output may still be on its way. */
                        if (p->exited &&
                            (!p->pty || holder_now_usec() - p->exited_at >= PTY_DRAIN_GRACE_USEC))
                                stream_close(s);
                        return;
                }
                if (n <= 0) { /* the end (a pty: EIO once the last slave is closed) */
                        stream_close(s);
                        return;
                }
                deliver(p, s->which, buf, (size_t)n);
        }
}

static int on_output(int fd, uint32_t events, void *userdata)
{
        (void)fd;
        (void)events;
        stream_read(userdata);
        return 0;
}

static void resume_streams(struct holder_proc *p)
{
        for (int i = 0; i < 2; i++) {
                struct holder_stream *s = &p->out[i];
                if (!s->paused || s->done || p->unacked >= HOLDER_PROCESS_BUFFER_MAX)
                        continue;
                s->paused = false;
                if (serve_loop_add(p->h->loop, s->fd, EPOLLIN, on_output, s, &s->src) < 0)
                        stream_close(s);
        }
}

/* ---- stdin ---- */

static int on_stdin(int fd, uint32_t events, void *userdata)
{
        struct holder_proc *p = userdata;
        (void)events;
        while (p->in_off < p->in_len) {
                ssize_t n = write(fd, p->in_buf + p->in_off, p->in_len - p->in_off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return 0;
                if (n < 0) { /* EPIPE: the command closed its stdin */
                        stdin_close(p);
                        return 0;
                }
                if (n > 0) {
                        char last = p->in_buf[p->in_off + (size_t)n - 1];
                        p->in_partial = last != '\n' && last != '\r';
                }
                p->in_off += (size_t)n;
        }
        p->in_off = p->in_len = 0;
        if (p->in_eof && p->pty) {
                /* A terminal's end of input is its EOF character at the start of a line: after
                 * a partial line the first one only hands that line over, so in canonical mode
                 * it goes twice (the terminal's own character, ^D unless stty changed it). */
                struct termios t;
                char eof[2] = {'\x04', '\x04'};
                bool canon = true;
                if (tcgetattr(fd, &t) == 0) {
                        eof[0] = eof[1] = (char)t.c_cc[VEOF];
                        canon = t.c_lflag & ICANON;
                }
                ssize_t k = write(fd, eof, canon && p->in_partial ? 2 : 1);
                (void)k;
                p->in_partial = false;
                p->in_eof = false;
        } else if (p->in_eof) {
                stdin_close(p);
                return 0;
        }
        p->in_src = serve_loop_remove(p->h->loop, p->in_src);
        return 0;
}

static int queue_stdin(struct holder_proc *p, const char *data, size_t len, bool eof,
                       struct serve_error *err)
{
        if (p->in_fd < 0)
                return serve_error_set(err, SERVE_ERR_LIFECYCLE, "process %s: its input is closed",
                                       p->id);
        if (p->in_len - p->in_off + len > HOLDER_STDIN_MAX)
                return serve_error_set(err, SERVE_ERR_LIFECYCLE,
                                       "process %s has not read %zu bytes of earlier input yet",
                                       p->id, p->in_len - p->in_off);
        if (p->in_off) {
                memmove(p->in_buf, p->in_buf + p->in_off, p->in_len - p->in_off);
                p->in_len -= p->in_off;
                p->in_off = 0;
        }
        char *b = realloc(p->in_buf, p->in_len + len + 1);
        if (!b)
                return -ENOMEM;
        if (len) /* an end of input alone comes with no data (NULL) */
                memcpy(b + p->in_len, data, len);
        p->in_buf = b;
        p->in_len += len;
        p->in_eof = p->in_eof || eof;
        if (!p->in_src &&
            serve_loop_add(p->h->loop, p->in_fd, EPOLLOUT, on_stdin, p, &p->in_src) < 0)
                return serve_error_set(err, SERVE_ERR_IO, "process %s: cannot write its input",
                                       p->id);
        return 0;
}

/* ---- the start ---- */

static int on_pidfd(int fd, uint32_t events, void *userdata)
{
        struct holder_proc *p = userdata;
        (void)fd;
        (void)events;
        /* Readable from the exit on: the status comes over the control channel next. */
        p->pidfd_fired = true;
        p->pidfd_src = serve_loop_remove(p->h->loop, p->pidfd_src);
        return 0;
}

static int pipe_pair(int fds[2])
{
        return pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0 ? -errno : 0;
}

static int exec_error(struct serve_error *err, int r, const struct cordon_diag *d, const char *cmd)
{
        enum serve_error_kind k =
            r == -EINVAL || r == -E2BIG ? SERVE_ERR_INVALID_REQUEST : SERVE_ERR_EXEC;
        return holder_error_from_errno(err, r, d, k, cmd);
}

int holder_exec_start(struct holder *h, uint64_t req_id, const struct serve_exec_request *rq,
                      bool process, struct serve_error *err)
{
        if (h->n_procs >= HOLDER_PROCESSES_MAX)
                return serve_error_set(err, SERVE_ERR_LIFECYCLE,
                                       "the session has %u commands already", HOLDER_PROCESSES_MAX);
        int r = holder_session_resume(h, err);
        if (r < 0)
                return r;
        _cleanup_free_ char **argv = calloc(rq->n_args + 2, sizeof(char *));
        _cleanup_free_ char *cwd = NULL;
        if (!argv)
                return -ENOMEM;
        argv[0] = rq->command;
        for (size_t i = 0; i < rq->n_args; i++)
                argv[i + 1] = rq->args[i];
        if (rq->cwd && rq->cwd[0] != '/' && !(cwd = path_join(h->root, rq->cwd)))
                return -ENOMEM;

        struct holder_proc *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        *p = (struct holder_proc){.h = h,
                                  .process = process,
                                  .pty = rq->pty,
                                  .in_fd = -EBADF,
                                  .req_id = req_id,
                                  .gen = h->conn_gen};
        for (int i = 0; i < 2; i++)
                p->out[i] = (struct holder_stream){.p = p, .fd = -EBADF, .which = i + 1};
        if (!(p->command = strdup(rq->command))) {
                free(p);
                return -ENOMEM;
        }

        int in[2] = {-EBADF, -EBADF}, o[2] = {-EBADF, -EBADF}, e[2] = {-EBADF, -EBADF};
        struct cordon_exec_options eo = {
            .argv = argv,
            .env = rq->env,
            .cwd = cwd ? cwd : rq->cwd,
            .flags = rq->pty ? CORDON_EXEC_PTY : CORDON_EXEC_STDIO,
        };
        if (!rq->pty) {
                /* Stdin: a pipe when there is something to write (a process may get input later),
                 * else /dev/null. */
                if (process || rq->stdin_data)
                        r = pipe_pair(in);
                else if ((in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
                        r = -errno;
                if (r >= 0 && (r = pipe_pair(o)) >= 0)
                        r = pipe_pair(e);
                if (r < 0) {
                        safe_close(in[0]);
                        safe_close(in[1]);
                        safe_close(o[0]);
                        safe_close(o[1]);
                        proc_free(p);
                        return serve_error_set(err, SERVE_ERR_IO, "cannot make pipes: %s",
                                               strerror(-r));
                }
                /* The command's ends block, as a command expects. */
                (void)fcntl(in[0], F_SETFL, 0);
                (void)fcntl(o[1], F_SETFL, 0);
                (void)fcntl(e[1], F_SETFL, 0);
                eo.stdio[0] = in[0];
                eo.stdio[1] = o[1];
                eo.stdio[2] = e[1];
        }
        struct cordon_diag diag = {0};
        r = cordon_sandbox_exec(h->sb, &eo, &p->e, &diag);
        safe_close(in[0]);
        safe_close(o[1]);
        safe_close(e[1]);
        if (r < 0) {
                safe_close(in[1]);
                safe_close(o[0]);
                safe_close(e[0]);
                proc_free(p);
                return exec_error(err, r, &diag, rq->command);
        }
        if (rq->pty) {
                /* Our own descriptors of the master: one read, one written. */
                int m = cordon_exec_pty_fd(p->e);
                o[0] = m >= 0 ? fcntl(m, F_DUPFD_CLOEXEC, 3) : -EBADF;
                in[1] = m >= 0 ? fcntl(m, F_DUPFD_CLOEXEC, 3) : -EBADF;
                if (o[0] >= 0)
                        (void)fcntl(o[0], F_SETFL, fcntl(o[0], F_GETFL) | O_NONBLOCK);
        }
        p->out[0].fd = o[0];
        p->out[1].fd = e[0];
        p->in_fd = in[1];
        for (int i = 0; i < 2; i++)
                if (p->out[i].fd < 0 || serve_loop_add(h->loop, p->out[i].fd, EPOLLIN, on_output,
                                                       &p->out[i], &p->out[i].src) < 0)
                        stream_close(&p->out[i]);
        int pidfd = cordon_exec_pidfd(p->e);
        if (pidfd < 0 || serve_loop_add(h->loop, pidfd, EPOLLIN, on_pidfd, p, &p->pidfd_src) < 0)
                p->pidfd_src = NULL; /* polled on each turn of the sandbox instead */
        uint64_t t = rq->timeout.set ? serve_duration_usec(&rq->timeout) : h->wall_usec;
        if (t)
                p->deadline = holder_now_usec() + t;
        if (process)
                snprintf(p->id, sizeof(p->id), "p%llu", (unsigned long long)++h->next_process);

        struct holder_proc **n = realloc(h->procs, (h->n_procs + 1) * sizeof(*n));
        if (!n) {
                proc_free(p);
                return -ENOMEM;
        }
        h->procs = n;
        h->procs[h->n_procs++] = p;
        /* Names and sizes only: never a value of the environment, never stdin. */
        log_info("%s%s started: %zu arguments, %zu variables, %zu bytes of stdin%s",
                 process ? "process " : "exec", p->id, rq->n_args, rq->n_env, rq->stdin_len,
                 rq->pty ? ", a pty" : "");
        for (char *const *d = cordon_exec_env_dropped(p->e); d && *d; d++)
                log_info("the sandbox's rules leave out variable %s", *d);
        if (rq->stdin_data && !rq->pty &&
            (r = queue_stdin(p, rq->stdin_data, rq->stdin_len, true, err)) < 0)
                log_warning("stdin of %s: %s", rq->command, err->message);
        else if (!process && !rq->stdin_data)
                stdin_close(p);
        holder_session_touch(h);
        if (process)
                holder_send(h, h->conn_gen,
                            holder_reply_ok(req_id, json_pack("{s:s}", "process_id", p->id)));
        return 0;
}

/* ---- the ends ---- */

static void finish(struct holder *h, struct holder_proc *p)
{
        p->finished = true;
        stdin_close(p);
        if (!p->process) {
                holder_send(h, p->gen,
                            holder_reply_ok(p->req_id,
                                            serve_exec_result_to_json(
                                                p->cap[0], p->cap_len[0], p->cap[1], p->cap_len[1],
                                                h->output_cap, p->status, p->timed_out)));
                proc_remove(h, p);
                return;
        }
        if (add_record(p, 0, NULL, 0) < 0)
                log_error("out of memory: the end of process %s lost", p->id);
        else
                p->exit_seq = p->next_seq;
        /* The handle's pty and pidfd go; the records stay until acknowledged. */
        p->pidfd_src = serve_loop_remove(h->loop, p->pidfd_src);
        p->e = cordon_exec_free(p->e);
        wake_waits(h, p, false);
}

/* Whether @p has ended, then drains its output and finishes it. */
static void check_proc(struct holder *h, struct holder_proc *p, bool sandbox_turn)
{
        if (p->finished)
                return;
        if (!p->exited && (p->pidfd_fired || (!p->pidfd_src && sandbox_turn))) {
                int r = cordon_exec_poll(p->e);
                if (r != 0) {
                        int st = 255;
                        if (r > 0)
                                (void)cordon_exec_wait(p->e, &st);
                        p->exited = true;
                        p->exited_at = holder_now_usec();
                        p->status = st;
                }
        }
        if (!p->exited)
                return;
        for (int i = 0; i < 2; i++)
                if (!p->out[i].done && !p->out[i].paused)
                        stream_read(&p->out[i]);
        if (p->out[0].done && p->out[1].done)
                finish(h, p);
}

void holder_exec_tick(struct holder *h)
{
        uint64_t now = holder_now_usec();
        for (size_t i = 0; i < h->n_procs; i++) {
                struct holder_proc *p = h->procs[i];
                if (!p->exited && p->deadline && now >= p->deadline && !p->timed_out) {
                        p->timed_out = true;
                        (void)cordon_exec_kill(p->e, SIGKILL);
                }
        }
        /* finish() may remove a proc: walk a snapshot of the count backwards. */
        for (size_t i = h->n_procs; i > 0; i--)
                if (i <= h->n_procs)
                        check_proc(h, h->procs[i - 1], h->sb_turned);
        h->sb_turned = false;
        for (struct holder_wait **w = &h->waits; *w;) {
                struct holder_wait *x = *w;
                if (x->deadline > now) {
                        w = &x->next;
                        continue;
                }
                *w = x->next;
                const struct holder_proc *p = find_proc(h, x->id);
                json_t *reply =
                    p ? holder_reply_ok(x->req_id, records_json(p, x->after_seq))
                      : holder_reply_ok(x->req_id, json_pack("{s:[],s:b}", "records", "done", 1));
                uint64_t gen = x->gen;
                free(x);
                holder_send(h, gen, reply); /* may drop the other waits: start again */
                w = &h->waits;
        }
}

int64_t holder_exec_timeout(const struct holder *h)
{
        uint64_t next = UINT64_MAX, now = holder_now_usec();
        for (size_t i = 0; i < h->n_procs; i++)
                if (!h->procs[i]->exited && h->procs[i]->deadline && !h->procs[i]->timed_out &&
                    h->procs[i]->deadline < next)
                        next = h->procs[i]->deadline;
        for (const struct holder_wait *w = h->waits; w; w = w->next)
                if (w->deadline < next)
                        next = w->deadline;
        /* A process that exited with a stream still to drain, or no pidfd: look again soon. */
        for (size_t i = 0; i < h->n_procs; i++) {
                const struct holder_proc *p = h->procs[i];
                bool drain = false;
                for (int k = 0; k < 2; k++)
                        drain = drain || (!p->out[k].done && !p->out[k].paused);
                if (!p->finished && ((p->pidfd_fired && !p->exited) || (p->exited && drain)))
                        next = now + 10000 < next ? now + 10000 : next;
        }
        if (next == UINT64_MAX)
                return -1;
        return next <= now ? 0 : (int64_t)(next - now);
}

bool holder_exec_busy(const struct holder *h)
{
        if (h->waits)
                return true;
        for (size_t i = 0; i < h->n_procs; i++)
                if (!h->procs[i]->process && !h->procs[i]->finished)
                        return true;
        return false;
}

void holder_exec_conn_gone(struct holder *h)
{
        while (h->waits) {
                struct holder_wait *x = h->waits;
                h->waits = x->next;
                free(x);
        }
}

void holder_exec_free_all(struct holder *h)
{
        holder_exec_conn_gone(h);
        while (h->n_procs)
                proc_remove(h, h->procs[h->n_procs - 1]);
        free(h->procs);
        h->procs = NULL;
}

/* ---- the process ops ---- */

json_t *holder_process_list(const struct holder *h)
{
        _cleanup_json_ json_t *a = json_array();
        if (!a)
                return NULL;
        for (size_t i = 0; i < h->n_procs; i++) {
                const struct holder_proc *p = h->procs[i];
                if (!p->process)
                        continue;
                json_t *o = json_pack("{s:s,s:s,s:b,s:b,s:o}", "process_id", p->id, "command",
                                      p->command, "pty", p->pty, "running", !p->exited, "exit_code",
                                      p->exited ? json_integer(p->status) : json_null());
                if (!o || json_array_append_new(a, o) < 0)
                        return NULL;
        }
        return TAKE_PTR(a);
}

/* Drops the records up to @after_seq; a finished process whose end was read goes. */
static bool acknowledge(struct holder *h, struct holder_proc *p, uint64_t after_seq)
{
        size_t k = 0;
        while (k < p->n_recs && p->recs[k].seq <= after_seq) {
                p->unacked -= p->recs[k].len;
                free(p->recs[k].data);
                k++;
        }
        /* Nothing kept yet: recs may be NULL, which memmove may not be given even for 0. */
        if (k > 0 && k < p->n_recs)
                memmove(p->recs, p->recs + k, (p->n_recs - k) * sizeof(*p->recs));
        p->n_recs -= k;
        if (p->finished && p->exit_seq && after_seq >= p->exit_seq) {
                proc_remove(h, p);
                return true;
        }
        resume_streams(p);
        return false;
}

int holder_process_op(struct holder *h, const struct holder_request *rq, json_t **ret,
                      struct serve_error *err)
{
        struct holder_proc *p = find_proc(h, rq->process_id);
        if (!p)
                return serve_error_set(err, SERVE_ERR_INVALID_REQUEST, "no process '%s'",
                                       rq->process_id);
        int r = holder_session_resume(h, err);
        if (r < 0)
                return r;
        switch (rq->op) {
        case HOLDER_OP_PROCESS_OUTPUT: {
                if (rq->after_seq > p->next_seq)
                        return serve_error_set(err, SERVE_ERR_INVALID_REQUEST,
                                               "after_seq %llu: process %s has only %llu records",
                                               (unsigned long long)rq->after_seq, p->id,
                                               (unsigned long long)p->next_seq);
                bool done_before = p->exit_seq && rq->after_seq >= p->exit_seq;
                if (acknowledge(h, p, rq->after_seq) || done_before) {
                        *ret = json_pack("{s:[],s:b}", "records", "done", 1);
                        return *ret ? 0 : -ENOMEM;
                }
                if (!has_records_after(p, rq->after_seq) && rq->wait_ms > 0) {
                        struct holder_wait *w = calloc(1, sizeof(*w));
                        if (!w)
                                return -ENOMEM;
                        *w = (struct holder_wait){.next = h->waits,
                                                  .gen = h->conn_gen,
                                                  .req_id = rq->id,
                                                  .after_seq = rq->after_seq,
                                                  .deadline = holder_now_usec() +
                                                              (uint64_t)rq->wait_ms * 1000};
                        strcpy(w->id, p->id);
                        h->waits = w;
                        return 1;
                }
                *ret = records_json(p, rq->after_seq);
                return *ret ? 0 : -ENOMEM;
        }
        case HOLDER_OP_PROCESS_STDIN:
                if (p->exited)
                        return serve_error_set(err, SERVE_ERR_LIFECYCLE, "process %s has ended",
                                               p->id);
                if ((r = queue_stdin(p, rq->data, rq->data_len, rq->eof, err)) < 0)
                        return r;
                log_info("process %s: %zu bytes of stdin%s", p->id, rq->data_len,
                         rq->eof ? ", then its end" : "");
                break;
        case HOLDER_OP_PROCESS_SIGNAL:
                r = p->exited ? -ESRCH : cordon_exec_kill(p->e, rq->signal);
                if (r == -ESRCH)
                        return serve_error_set(err, SERVE_ERR_LIFECYCLE, "process %s has ended",
                                               p->id);
                if (r < 0)
                        return holder_error_from_errno(err, r, NULL, SERVE_ERR_EXEC, p->id);
                break;
        case HOLDER_OP_PROCESS_RESIZE: {
                if (!p->pty)
                        return serve_error_set(err, SERVE_ERR_LIFECYCLE,
                                               "process %s has no terminal", p->id);
                if (p->exited || !p->e)
                        return serve_error_set(err, SERVE_ERR_LIFECYCLE, "process %s has ended",
                                               p->id);
                struct winsize ws = {.ws_row = (unsigned short)rq->rows,
                                     .ws_col = (unsigned short)rq->cols};
                if (ioctl(cordon_exec_pty_fd(p->e), TIOCSWINSZ, &ws) < 0)
                        return serve_error_set(err, SERVE_ERR_IO, "process %s: resize: %m", p->id);
                break;
        }
        default:
                return serve_error_set(err, SERVE_ERR_INVALID_REQUEST, "not a process op");
        }
        *ret = json_object();
        return *ret ? 0 : -ENOMEM;
}
