/* cordon-serve's output stream (see serve-stream.h). The holder frees every record a request
 * acknowledges (its after_seq), and the daemon acknowledges a batch when it asks for the next,
 * which it does once the batch is in libmicrohttpd's hands: not yet in the client's. So the
 * daemon keeps the last SERVE_REPLAY_PROCESS_MAX bytes it handed on per process (the replay),
 * and a client that reconnects with the last seq it read gets what it missed from there: more
 * than the socket buffers and libmicrohttpd's together can hold, so nothing is lost. */
#include <errno.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-body.h"
#include "serve/serve-stream.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"

#define STREAM_BLOCK (32u << 10)

/* --- the replay --- */

struct replay_rec {
        uint64_t seq;
        char *line; /* NDJSON line, with its newline */
        size_t len;
};

struct replay {
        struct session_replays *owner;
        char *pid;
        struct replay_rec *recs;
        size_t start, n, cap; /* recs[start .. n) are live */
        size_t bytes;
        struct replay *next;                /* in the owner's list, most recent first */
        struct replay *lru_prev, *lru_next; /* over every session, most recent last */
};

struct session_replays {
        struct replay *list;
        size_t n;
};

/* The daemon is single-threaded: one budget for every session's replays. */
static struct {
        struct replay *first, *last;
        size_t bytes;
} lru;

static void lru_unlink(struct replay *p)
{
        if (p->lru_prev)
                p->lru_prev->lru_next = p->lru_next;
        else if (lru.first == p)
                lru.first = p->lru_next;
        if (p->lru_next)
                p->lru_next->lru_prev = p->lru_prev;
        else if (lru.last == p)
                lru.last = p->lru_prev;
        p->lru_prev = p->lru_next = NULL;
}

static void lru_touch(struct replay *p)
{
        lru_unlink(p);
        p->lru_prev = lru.last;
        if (lru.last)
                lru.last->lru_next = p;
        else
                lru.first = p;
        lru.last = p;
}

static void replay_drop_front(struct replay *p)
{
        struct replay_rec *x = &p->recs[p->start++];
        p->bytes -= x->len;
        lru.bytes -= x->len;
        free(x->line);
}

static void replay_free(struct replay *p)
{
        struct session_replays *o = p->owner;
        for (struct replay **q = &o->list; *q; q = &(*q)->next)
                if (*q == p) {
                        *q = p->next;
                        o->n--;
                        break;
                }
        lru_unlink(p);
        while (p->start < p->n)
                replay_drop_front(p);
        free(p->recs);
        free(p->pid);
        free(p);
}

static void replays_free(void *userdata)
{
        struct session_replays *o = userdata;
        while (o->list)
                replay_free(o->list);
        free(o);
}

static struct replay *replay_find(struct serve_session *s, const char *pid, bool create)
{
        struct session_replays *o = serve_session_get_slot(s);
        if (!o) {
                if (!create || !(o = calloc(1, sizeof(*o))))
                        return NULL;
                serve_session_set_slot(s, o, replays_free);
        }
        for (struct replay *p = o->list; p; p = p->next)
                if (streq(p->pid, pid))
                        return p;
        if (!create)
                return NULL;
        struct replay *p = calloc(1, sizeof(*p));
        if (!p || !(p->pid = strdup(pid))) {
                free(p);
                return NULL;
        }
        p->owner = o;
        p->next = o->list;
        o->list = p;
        o->n++;
        /* The oldest of this session's beyond its share goes. */
        if (o->n > SERVE_REPLAY_PER_SESSION) {
                struct replay *oldest = o->list;
                while (oldest->next)
                        oldest = oldest->next;
                replay_free(oldest);
        }
        lru_touch(p);
        return p;
}

/* Keeps @line (seq @seq) in @p, within the budgets. */
static void replay_add(struct replay *p, uint64_t seq, const char *line, size_t len)
{
        if (p->n > p->start && seq <= p->recs[p->n - 1].seq)
                return; /* kept already (another stream of the same process fetched it) */
        if (p->n == p->cap) {
                if (p->start > 0) {
                        memmove(p->recs, p->recs + p->start, (p->n - p->start) * sizeof(*p->recs));
                        p->n -= p->start;
                        p->start = 0;
                }
                if (p->n == p->cap) {
                        size_t cap = p->cap ? p->cap * 2 : 64;
                        struct replay_rec *r = reallocarray(p->recs, cap, sizeof(*r));
                        if (!r)
                                return; /* not kept: only a reconnect could miss it */
                        p->recs = r;
                        p->cap = cap;
                }
        }
        char *copy = malloc(len);
        if (!copy)
                return;
        memcpy(copy, line, len);
        p->recs[p->n++] = (struct replay_rec){.seq = seq, .line = copy, .len = len};
        p->bytes += len;
        lru.bytes += len;
        lru_touch(p);
        while (p->bytes > SERVE_REPLAY_PROCESS_MAX && p->n - p->start > 1)
                replay_drop_front(p);
        /* Over the daemon's budget: the least recently used go first, whole. */
        while (lru.bytes > SERVE_REPLAY_TOTAL_MAX && lru.first && lru.first != p)
                replay_free(lru.first);
}

/* --- the stream --- */

struct stream {
        unsigned refs; /* the request's and the response's */
        struct serve_request *r;
        struct serve_holders *h;
        char *session_id, *pid;
        uint64_t after; /* the last seq asked past (acknowledged at the holder) */
        uint64_t sent;  /* the last seq put in buf */
        char *buf;
        size_t len, off, cap;
        bool done, failed, answered;
        struct serve_call *call;
};

static void stream_unref(struct stream *st)
{
        if (--st->refs > 0)
                return;
        serve_call_cancel(st->call);
        free(st->session_id);
        free(st->pid);
        free(st->buf);
        free(st);
}

static int buf_append(struct stream *st, const char *s, size_t n)
{
        if (st->off > 0 && st->off == st->len)
                st->off = st->len = 0;
        if (st->len + n > st->cap) {
                size_t cap = st->cap ? st->cap : 4096;
                while (cap < st->len + n)
                        cap *= 2;
                char *b = realloc(st->buf, cap);
                if (!b)
                        return -ENOMEM;
                st->buf = b;
                st->cap = cap;
        }
        memcpy(st->buf + st->len, s, n);
        st->len += n;
        return 0;
}

/* The records of a "process_output" result: each new one goes out as a line and into the
 * replay. -EBADMSG when the result is not of that shape. */
static int take_records(struct stream *st, struct serve_session *s, const json_t *result)
{
        const json_t *records = json_object_get(result, "records");
        const json_t *done = json_object_get(result, "done");
        if (!json_is_array(records) || !json_is_boolean(done))
                return -EBADMSG;
        struct replay *p = replay_find(s, st->pid, true);
        size_t i;
        const json_t *rec;
        json_array_foreach(records, i, rec)
        {
                const json_t *seq = json_object_get(rec, "seq");
                if (!json_is_object(rec) || !json_is_integer(seq) || json_integer_value(seq) <= 0)
                        return -EBADMSG;
                uint64_t n = (uint64_t)json_integer_value(seq);
                if (n > st->after)
                        st->after = n;
                _cleanup_free_ char *line = json_dumps(rec, JSON_COMPACT);
                if (!line)
                        return -ENOMEM;
                size_t len = strlen(line);
                line[len] = '\n'; /* over the NUL: the length says where it ends */
                if (p)
                        replay_add(p, n, line, len + 1);
                if (n <= st->sent)
                        continue; /* given already, from the replay */
                if (buf_append(st, line, len + 1) < 0)
                        return -ENOMEM;
                st->sent = n;
        }
        if (json_is_true(done))
                st->done = true;
        return 0;
}

static void fetch(struct stream *st, unsigned wait_ms);

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
        struct stream *st = cls;
        if (st->off < st->len) {
                size_t n = st->len - st->off < max ? st->len - st->off : max;
                memcpy(buf, st->buf + st->off, n);
                st->off += n;
                return (ssize_t)n;
        }
        if (st->failed || !st->r)
                return MHD_CONTENT_READER_END_WITH_ERROR;
        if (st->done)
                return MHD_CONTENT_READER_END_OF_STREAM;
        if (!st->call)
                fetch(st, SERVE_STREAM_WAIT_MS);
        if (st->failed)
                return MHD_CONTENT_READER_END_WITH_ERROR;
        /* Nothing to send until the holder answers: out of the loop until then. */
        serve_request_suspend(st->r);
        return 0;
}

static void reader_free(void *cls)
{
        stream_unref(cls);
}

static void answer_stream(struct stream *st)
{
        struct MHD_Response *resp = MHD_create_response_from_callback(
            MHD_SIZE_UNKNOWN, STREAM_BLOCK, reader, st, reader_free);
        if (!resp) {
                struct serve_error e;
                serve_error_set(&e, SERVE_ERR_IO, "out of memory");
                serve_request_fail(st->r, &e);
                return;
        }
        st->refs++;
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/x-ndjson");
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
        st->answered = true;
        serve_request_answer_response(st->r, MHD_HTTP_OK, resp);
}

static void on_output(const struct serve_reply *reply, void *userdata)
{
        struct stream *st = userdata;
        st->call = NULL;
        struct serve_session *s = serve_session_find(st->h, st->session_id);
        struct serve_error e;
        if (!reply->ok) {
                if (!st->answered)
                        serve_request_answer(st->r, reply->status ?: 500,
                                             json_incref(reply->error));
                st->failed = true;
        } else if (!s || take_records(st, s, reply->result) < 0) {
                serve_error_set(&e, SERVE_ERR_IO,
                                "the session's holder answered the output request with "
                                "something else");
                if (!st->answered)
                        serve_request_fail(st->r, &e);
                st->failed = true;
        } else if (!st->answered) {
                answer_stream(st);
                return;
        }
        serve_request_resume(st->r);
}

static void fetch(struct stream *st, unsigned wait_ms)
{
        struct serve_session *s = serve_session_find(st->h, st->session_id);
        struct serve_error e;
        if (!s) {
                serve_error_set(&e, SERVE_ERR_SESSION_NOT_FOUND,
                                "sandbox session `%s` was not found", st->session_id);
        } else {
                json_t *args = json_pack("{s:s, s:I, s:i}", "process_id", st->pid, "after_seq",
                                         (json_int_t)st->after, "wait_ms", (int)wait_ms);
                if (args && serve_session_call(s, "process_output", args, on_output, st, &st->call,
                                               &e) >= 0)
                        return;
                if (!args)
                        serve_error_set(&e, SERVE_ERR_IO, "out of memory");
        }
        if (!st->answered)
                serve_request_fail(st->r, &e);
        st->failed = true;
}

static void stream_detach(struct serve_request *r)
{
        struct stream *st = r->state;
        serve_call_cancel(st->call);
        st->call = NULL;
        st->r = NULL;
        r->state = NULL;
        stream_unref(st);
}

static void fail_io(struct serve_request *r, const char *msg)
{
        struct serve_error e;
        serve_error_set(&e, SERVE_ERR_IO, "%s", msg);
        serve_request_fail(r, &e);
}

void serve_stream_output(struct serve_request *r, struct serve_session *s)
{
        struct serve_error e;
        uint64_t after = 0;
        _cleanup_free_ char *q = NULL;
        int k = serve_request_query(r, "after_seq", &q);
        if (k == -ENOMEM) {
                fail_io(r, "out of memory");
                return;
        }
        if (k == -EINVAL) {
                serve_error_set(&e, SERVE_ERR_INVALID_REQUEST,
                                "after_seq: malformed percent-encoding");
                serve_request_fail(r, &e);
                return;
        }
        if (k >= 0 && serve_after_seq_parse(q, &after, &e) < 0) {
                serve_request_fail(r, &e);
                return;
        }
        struct stream *st = calloc(1, sizeof(*st));
        char *id = strdup(r->params[0]), *pid = strdup(r->params[1]);
        if (!st || !id || !pid) {
                free(st);
                free(id);
                free(pid);
                fail_io(r, "out of memory");
                return;
        }
        *st = (struct stream){.refs = 1,
                              .r = r,
                              .h = r->ctx->holders,
                              .session_id = id,
                              .pid = pid,
                              .after = after,
                              .sent = after};
        r->state = st;
        r->state_free = stream_detach;
        /* What the replay holds past after_seq first; the holder is asked past its end. */
        struct replay *p = replay_find(s, st->pid, false);
        for (size_t i = p ? p->start : 0; p && i < p->n; i++)
                if (p->recs[i].seq > st->sent) {
                        if (buf_append(st, p->recs[i].line, p->recs[i].len) < 0)
                                break;
                        st->sent = st->after = p->recs[i].seq;
                }
        /* The first request does not wait: an unknown process is an error with its status
         * before any header goes out. */
        fetch(st, 0);
}
