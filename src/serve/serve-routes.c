/* cordon-serve's routes (see serve-routes.h). Each handler checks what it can here (the body's
 * shape, the session's id, the store), then forwards to the session's holder, which parses the
 * body again and answers; its answer, or its error with the kind's status, is the client's. */
#include <errno.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "serve/serve-body.h"
#include "serve/serve-holders.h"
#include "serve/serve-routes.h"
#include "serve/serve-store.h"
#include "serve/serve-stream.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"

_printf_(3, 4) static void fail(struct serve_request *r, enum serve_error_kind kind,
                                const char *fmt, ...)
{
        struct serve_error e;
        char msg[sizeof(e.message)];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        serve_error_set(&e, kind, "%s", msg);
        serve_request_fail(r, &e);
}

static void fail_unsupported(struct serve_request *r, const char *backend, const char *operation,
                             const char *why)
{
        struct serve_error e;
        serve_error_set(&e, SERVE_ERR_UNSUPPORTED, "backend `%s` does not support %s: %s", backend,
                        operation, why);
        e.backend = backend;
        e.operation = operation;
        serve_request_fail(r, &e);
}

static bool is_blank(const char *s)
{
        for (; *s; s++)
                if (!strchr(" \t\r\n\v\f", *s))
                        return false;
        return true;
}

/* The session of the path's {id}, or NULL with @r answered (invalid_request for a blank id,
 * session_not_found for one the table does not hold). */
static struct serve_session *session_of(struct serve_request *r)
{
        const char *id = r->params[0];
        if (is_blank(id)) {
                fail(r, SERVE_ERR_INVALID_REQUEST, "session id cannot be empty");
                return NULL;
        }
        struct serve_session *s = serve_session_find(r->ctx->holders, id);
        if (!s)
                fail(r, SERVE_ERR_SESSION_NOT_FOUND, "sandbox session `%s` was not found", id);
        return s;
}

/* The holder's answer is the client's: its result with @r->ok_status, or its error. */
static void on_reply(const struct serve_reply *reply, void *userdata)
{
        struct serve_request *r = userdata;
        r->call = NULL;
        if (reply->ok)
                serve_request_answer(r, r->ok_status ?: MHD_HTTP_OK, json_incref(reply->result));
        else if (reply->error)
                serve_request_answer(r, reply->status, json_incref(reply->error));
        else
                fail(r, SERVE_ERR_IO, "out of memory");
}

static void forward_with(struct serve_request *r, struct serve_session *s, const char *op,
                         json_t *args, serve_reply_fn fn)
{
        struct serve_error e;
        if (serve_session_call(s, op, args, fn, r, &r->call, &e) < 0)
                serve_request_fail(r, &e);
}

static void forward(struct serve_request *r, struct serve_session *s, const char *op, json_t *args)
{
        forward_with(r, s, op, args, on_reply);
}

/* The session of the path, and the body's check for the routes that take none. */
static struct serve_session *session_no_body(struct serve_request *r)
{
        struct serve_error e;
        if (serve_empty_body_check(r->body, r->len, &e) < 0) {
                serve_request_fail(r, &e);
                return NULL;
        }
        return session_of(r);
}

/* --- capabilities, sessions --- */

static void get_capabilities(struct serve_request *r)
{
        serve_request_answer(r, MHD_HTTP_OK, serve_capabilities_to_json(&r->ctx->caps));
}

static void post_sessions(struct serve_request *r)
{
        struct serve_error e;
        _cleanup_(serve_spec_clear) struct serve_spec spec = {0};
        if (serve_spec_parse(r->body, r->len, &spec, &e) < 0) {
                serve_request_fail(r, &e);
                return;
        }
        if (!r->ctx->caps.local_process_sandbox) {
                fail_unsupported(r, "cordon", "provision",
                                 "no sandbox backend can start a session on this host "
                                 "(see cordon doctor)");
                return;
        }
        _cleanup_free_ char *archive = NULL;
        if (spec.from_snapshot) {
                const struct serve_snapshot_record *snap =
                    serve_store_snapshot_find(r->ctx->store, spec.from_snapshot);
                if (!snap) {
                        fail(r, SERVE_ERR_INVALID_REQUEST, "from_snapshot: no snapshot `%s`",
                             spec.from_snapshot);
                        return;
                }
                archive = serve_store_snapshot_archive(r->ctx->store, snap->id);
                if (!archive) {
                        fail(r, SERVE_ERR_IO, "out of memory");
                        return;
                }
                free(spec.from_snapshot);
                spec.from_snapshot = NULL; /* the holder gets the archive, not the id */
        }
        if (!spec.session_id) {
                char id[37];
                int k = serve_store_mint_session_id(id);
                if (k < 0) {
                        fail(r, SERVE_ERR_IO, "cannot mint a session id: %s", strerror(-k));
                        return;
                }
                if (!(spec.session_id = strdup(id))) {
                        fail(r, SERVE_ERR_IO, "out of memory");
                        return;
                }
        } else if (serve_session_find(r->ctx->holders, spec.session_id)) {
                fail(r, SERVE_ERR_LIFECYCLE, "sandbox session `%s` already exists",
                     spec.session_id);
                return;
        }
        r->ok_status = MHD_HTTP_CREATED;
        if (serve_holders_start(r->ctx->holders, &spec, archive, on_reply, r, &r->call, &e) < 0)
                serve_request_fail(r, &e);
}

/* GET /v1/sessions: every ready session's view, asked of each holder at once. */
struct list_state {
        struct serve_request *r;
        size_t n, pending;
        struct list_item {
                struct list_state *st;
                json_t *view;
                struct serve_call *call;
        } * items;
};

static void list_finish(struct list_state *st)
{
        json_t *a = json_array();
        for (size_t i = 0; a && i < st->n; i++)
                if (st->items[i].view && json_array_append(a, st->items[i].view) < 0) {
                        json_decref(a);
                        a = NULL;
                }
        if (a)
                serve_request_answer(st->r, MHD_HTTP_OK, a);
        else
                fail(st->r, SERVE_ERR_IO, "out of memory");
}

static void on_list_reply(const struct serve_reply *reply, void *userdata)
{
        struct list_item *it = userdata;
        it->call = NULL;
        /* A session that cannot answer (its holder gone meanwhile) is not listed. */
        if (reply->ok)
                it->view = json_incref(reply->result);
        if (--it->st->pending == 0)
                list_finish(it->st);
}

static void list_free(struct serve_request *r)
{
        struct list_state *st = r->state;
        for (size_t i = 0; i < st->n; i++) {
                serve_call_cancel(st->items[i].call);
                json_decref(st->items[i].view);
        }
        free(st->items);
        free(st);
        r->state = NULL;
}

static void get_sessions(struct serve_request *r)
{
        struct serve_holders *h = r->ctx->holders;
        struct list_state *st = calloc(1, sizeof(*st));
        size_t n = serve_holders_count(h);
        if (!st || !(st->items = calloc(n ?: 1, sizeof(*st->items)))) {
                free(st);
                fail(r, SERVE_ERR_IO, "out of memory");
                return;
        }
        st->r = r;
        r->state = st;
        r->state_free = list_free;
        st->pending = 1; /* held until every call is made */
        for (struct serve_session *s = serve_holders_first(h); s && st->n < n;
             s = serve_session_next(s)) {
                if (!serve_session_ready(s))
                        continue;
                struct list_item *it = &st->items[st->n++];
                it->st = st;
                struct serve_error e;
                st->pending++;
                if (serve_session_call(s, "session", NULL, on_list_reply, it, &it->call, &e) < 0)
                        st->pending--;
        }
        if (--st->pending == 0)
                list_finish(st);
}

static void get_session(struct serve_request *r)
{
        struct serve_session *s = session_of(r);
        if (s)
                forward(r, s, "session", NULL);
}

static void on_terminated(const struct serve_reply *reply, void *userdata)
{
        struct serve_request *r = userdata;
        r->call = NULL;
        if (!reply->ok) {
                on_reply(reply, userdata);
                return;
        }
        struct serve_session *s = serve_session_find(r->ctx->holders, r->params[0]);
        if (s)
                serve_session_forget(s);
        serve_request_answer(r, MHD_HTTP_NO_CONTENT, NULL);
}

static void delete_session(struct serve_request *r)
{
        struct serve_session *s = session_no_body(r);
        if (s)
                forward_with(r, s, "terminate", NULL, on_terminated);
}

/* --- exec, mounts, network --- */

/* The ExecRequest of the body as the holder's "request" argument. */
static json_t *exec_args(struct serve_request *r, bool pty)
{
        struct serve_error e;
        _cleanup_(serve_exec_request_clear) struct serve_exec_request req = {0};
        if (serve_exec_request_parse(r->body, r->len, pty, &req, &e) < 0) {
                serve_request_fail(r, &e);
                return NULL;
        }
        json_t *args = json_pack("{s:o}", "request", serve_exec_request_to_json(&req));
        if (!args)
                fail(r, SERVE_ERR_IO, "out of memory");
        return args;
}

static void post_exec(struct serve_request *r)
{
        struct serve_session *s = session_of(r);
        json_t *args = s ? exec_args(r, false) : NULL;
        if (args)
                forward(r, s, "exec", args);
}

static void post_mount(struct serve_request *r)
{
        struct serve_error e;
        _cleanup_(serve_mount_clear) struct serve_mount m = {0};
        struct serve_session *s = session_of(r);
        if (!s)
                return;
        if (serve_mount_parse(r->body, r->len, &m, &e) < 0) {
                serve_request_fail(r, &e);
                return;
        }
        json_t *args = json_pack("{s:o}", "mount", serve_mount_to_json(&m));
        if (!args) {
                fail(r, SERVE_ERR_IO, "out of memory");
                return;
        }
        forward(r, s, "mount", args);
}

static void put_network_policy(struct serve_request *r)
{
        struct serve_error e;
        _cleanup_(serve_network_policy_clear) struct serve_network_policy p = {0};
        struct serve_session *s = session_of(r);
        if (!s)
                return;
        if (serve_network_policy_parse(r->body, r->len, &p, &e) < 0) {
                serve_request_fail(r, &e);
                return;
        }
        json_t *args = json_pack("{s:o}", "policy", serve_network_policy_to_json(&p));
        if (!args) {
                fail(r, SERVE_ERR_IO, "out of memory");
                return;
        }
        forward(r, s, "network_policy", args);
}

static void post_lifecycle(struct serve_request *r, const char *op)
{
        struct serve_session *s = session_no_body(r);
        if (!s)
                return;
        if (!r->ctx->caps.resume) {
                fail_unsupported(r, serve_session_backend(s), op,
                                 "this host cannot suspend a session");
                return;
        }
        forward(r, s, op, NULL);
}

static void post_suspend(struct serve_request *r)
{
        post_lifecycle(r, "suspend");
}

static void post_resume(struct serve_request *r)
{
        post_lifecycle(r, "resume");
}

/* --- snapshots --- */

struct snap_state {
        struct serve_snapshot_record rec;
};

static void snap_free(struct serve_request *r)
{
        struct snap_state *st = r->state;
        serve_snapshot_record_clear(&st->rec);
        free(st);
        r->state = NULL;
}

static int add_meta(struct serve_snapshot_record *rec, const char *key, const char *value)
{
        struct serve_label *l = reallocarray(rec->metadata, rec->n_metadata + 1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        rec->metadata = l;
        l[rec->n_metadata] = (struct serve_label){strdup(key), strdup(value)};
        rec->n_metadata++;
        return l[rec->n_metadata - 1].key && l[rec->n_metadata - 1].value ? 0 : -ENOMEM;
}

static void on_snapshot(const struct serve_reply *reply, void *userdata)
{
        struct serve_request *r = userdata;
        struct snap_state *st = r->state;
        struct serve_store *store = r->ctx->store;
        r->call = NULL;
        char id[sizeof(st->rec.id)];
        memcpy(id, st->rec.id, sizeof(id));
        if (!reply->ok) {
                /* The holder leaves no partial file; none is left here either. */
                serve_store_snapshot_discard(store, id);
                on_reply(reply, userdata);
                return;
        }
        _cleanup_free_ char *archive = serve_store_snapshot_archive(store, id);
        char created[32], size[32], err[256] = "out of memory";
        time_t now = time(NULL);
        struct tm tm;
        strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
        st->rec.created = (int64_t)now;
        struct stat sb;
        int k = archive ? 0 : -ENOMEM;
        if (k >= 0 && stat(archive, &sb) < 0) {
                k = -errno;
                snprintf(err, sizeof(err), "the archive is missing: %s", strerror(-k));
        }
        if (k >= 0) {
                snprintf(size, sizeof(size), "%llu", (unsigned long long)sb.st_size);
                k = add_meta(&st->rec, "archive", archive);
        }
        if (k >= 0)
                k = add_meta(&st->rec, "created", created);
        if (k >= 0)
                k = add_meta(&st->rec, "size", size);
        if (k >= 0)
                k = serve_store_snapshot_commit(store, &st->rec, err, sizeof(err));
        const struct serve_snapshot_record *kept =
            k >= 0 ? serve_store_snapshot_find(store, id) : NULL;
        if (!kept) {
                serve_store_snapshot_discard(store, id);
                fail(r, SERVE_ERR_IO, "the snapshot cannot be kept: %s", err);
                return;
        }
        log_info("session %s: snapshot %s (%llu bytes)", kept->session_id, kept->id,
                 (unsigned long long)kept->size);
        serve_request_answer(r, MHD_HTTP_OK, serve_snapshot_record_view(kept));
}

static void post_snapshot(struct serve_request *r)
{
        struct serve_session *s = session_no_body(r);
        if (!s)
                return;
        if (!r->ctx->caps.snapshot) {
                fail_unsupported(r, serve_session_backend(s), "snapshot",
                                 "snapshots need libarchive and nettle on this host");
                return;
        }
        struct snap_state *st = calloc(1, sizeof(*st));
        if (!st) {
                fail(r, SERVE_ERR_IO, "out of memory");
                return;
        }
        r->state = st;
        r->state_free = snap_free;
        int k = serve_store_mint_name(st->rec.id);
        st->rec.session_id = strdup(serve_session_id(s));
        st->rec.backend = strdup(serve_session_backend(s));
        _cleanup_free_ char *archive = serve_store_snapshot_archive(r->ctx->store, st->rec.id);
        if (k < 0 || !st->rec.session_id || !st->rec.backend || !archive) {
                fail(r, SERVE_ERR_IO, "cannot mint the snapshot's id");
                return;
        }
        json_t *args = json_pack("{s:s}", "path", archive);
        if (!args) {
                fail(r, SERVE_ERR_IO, "out of memory");
                return;
        }
        forward_with(r, s, "snapshot", args, on_snapshot);
}

static void get_snapshots(struct serve_request *r)
{
        const struct serve_store *store = r->ctx->store;
        json_t *a = json_array();
        for (size_t i = 0; a && i < store->n_snapshots; i++)
                if (json_array_append_new(a, serve_snapshot_record_view(&store->snapshots[i])) <
                    0) {
                        json_decref(a);
                        a = NULL;
                }
        if (!a) {
                fail(r, SERVE_ERR_IO, "out of memory");
                return;
        }
        serve_request_answer(r, MHD_HTTP_OK, a);
}

static void delete_snapshot(struct serve_request *r)
{
        struct serve_error e;
        if (serve_empty_body_check(r->body, r->len, &e) < 0) {
                serve_request_fail(r, &e);
                return;
        }
        const char *id = r->params[0];
        if (!serve_store_snapshot_find(r->ctx->store, id)) {
                /* No kind of the contract names a snapshot; the status says "not found". */
                serve_error_set(&e, SERVE_ERR_INVALID_REQUEST, "no snapshot `%s`", id);
                serve_request_answer(r, MHD_HTTP_NOT_FOUND, serve_error_to_json(&e));
                return;
        }
        int k = serve_store_snapshot_remove(r->ctx->store, id);
        if (k < 0) {
                fail(r, SERVE_ERR_IO, "cannot remove snapshot `%s`: %s", id, strerror(-k));
                return;
        }
        log_info("snapshot %s: removed", id);
        serve_request_answer(r, MHD_HTTP_NO_CONTENT, NULL);
}

/* --- processes --- */

static void post_process(struct serve_request *r)
{
        struct serve_session *s = session_of(r);
        json_t *args = s ? exec_args(r, true) : NULL;
        if (args)
                forward(r, s, "process_start", args);
}

static void get_processes(struct serve_request *r)
{
        struct serve_session *s = session_of(r);
        if (s)
                forward(r, s, "process_list", NULL);
}

/* The session, with the path's process id checked. */
static struct serve_session *process_of(struct serve_request *r)
{
        struct serve_session *s = session_of(r);
        if (s && strlen(r->params[1]) > SERVE_ID_MAX) {
                fail(r, SERVE_ERR_INVALID_REQUEST, "process id over %d bytes", SERVE_ID_MAX);
                return NULL;
        }
        return s;
}

static void get_output(struct serve_request *r)
{
        struct serve_session *s = process_of(r);
        if (s)
                serve_stream_output(r, s);
}

/* Forwards @op with @args (stolen) plus the path's process id. */
static void forward_process(struct serve_request *r, struct serve_session *s, const char *op,
                            json_t *args)
{
        if (!args || json_object_set_new(args, "process_id", json_string(r->params[1])) < 0) {
                json_decref(args);
                fail(r, SERVE_ERR_IO, "out of memory");
                return;
        }
        forward(r, s, op, args);
}

static void post_stdin(struct serve_request *r)
{
        struct serve_error e;
        json_t *args = NULL;
        struct serve_session *s = process_of(r);
        if (!s)
                return;
        if (serve_stdin_parse(r->body, r->len, &args, &e) < 0) {
                serve_request_fail(r, &e);
                return;
        }
        forward_process(r, s, "process_stdin", args);
}

static void post_signal(struct serve_request *r)
{
        struct serve_error e;
        int sig;
        struct serve_session *s = process_of(r);
        if (!s)
                return;
        if (serve_signal_parse(r->body, r->len, &sig, &e) < 0) {
                serve_request_fail(r, &e);
                return;
        }
        forward_process(r, s, "process_signal", json_pack("{s:i}", "signal", sig));
}

static void post_resize(struct serve_request *r)
{
        struct serve_error e;
        unsigned rows, cols;
        struct serve_session *s = process_of(r);
        if (!s)
                return;
        if (serve_resize_parse(r->body, r->len, &rows, &cols, &e) < 0) {
                serve_request_fail(r, &e);
                return;
        }
        forward_process(r, s, "process_resize",
                        json_pack("{s:i, s:i}", "rows", (int)rows, "cols", (int)cols));
}

/* --- the table --- */

static const struct serve_route routes[] = {
    {"GET", "/v1/capabilities", get_capabilities},
    {"POST", "/v1/sessions", post_sessions},
    {"GET", "/v1/sessions", get_sessions},
    {"GET", "/v1/sessions/{id}", get_session},
    {"DELETE", "/v1/sessions/{id}", delete_session},
    {"POST", "/v1/sessions/{id}/exec", post_exec},
    {"POST", "/v1/sessions/{id}/mounts", post_mount},
    {"PUT", "/v1/sessions/{id}/network-policy", put_network_policy},
    {"POST", "/v1/sessions/{id}/snapshot", post_snapshot},
    {"POST", "/v1/sessions/{id}/suspend", post_suspend},
    {"POST", "/v1/sessions/{id}/resume", post_resume},
    {"POST", "/v1/sessions/{id}/processes", post_process},
    {"GET", "/v1/sessions/{id}/processes", get_processes},
    {"GET", "/v1/sessions/{id}/processes/{pid}/output", get_output},
    {"POST", "/v1/sessions/{id}/processes/{pid}/stdin", post_stdin},
    {"POST", "/v1/sessions/{id}/processes/{pid}/signal", post_signal},
    {"POST", "/v1/sessions/{id}/processes/{pid}/resize", post_resize},
    {"GET", "/v1/snapshots", get_snapshots},
    {"DELETE", "/v1/snapshots/{id}", delete_snapshot},
};

/* Whether raw @path has @pattern's shape; with @params, its parameters decoded into them. */
static int match(const char *pattern, const char *path, char *params[SERVE_PARAMS_MAX])
{
        if (path[0] != '/')
                return 0;
        const char *p = pattern + 1, *q = path + 1;
        size_t k = 0;
        for (;;) {
                const char *pe = strchrnul(p, '/'), *qe = strchrnul(q, '/');
                if (*p == '{') {
                        if (qe == q)
                                return 0;
                        if (params) {
                                int r = serve_percent_decode(q, (size_t)(qe - q), &params[k]);
                                if (r < 0)
                                        return r;
                        }
                        k++;
                } else if (pe - p != qe - q || memcmp(p, q, (size_t)(pe - p)) != 0)
                        return 0;
                if (!*pe || !*qe)
                        return !*pe && !*qe;
                p = pe + 1;
                q = qe + 1;
        }
}

int serve_route_match(const char *method, const char *path, const struct serve_route **ret,
                      char *params[SERVE_PARAMS_MAX], bool *path_known, char *allow, size_t n)
{
        const struct serve_route *found = NULL;
        *path_known = false;
        allow[0] = 0;
        for (size_t i = 0; i < ELEMENTSOF(routes); i++) {
                if (match(routes[i].pattern, path, NULL) <= 0)
                        continue;
                *path_known = true;
                size_t l = strlen(allow);
                snprintf(allow + l, n - l, "%s%s", l ? ", " : "", routes[i].method);
                if (streq(routes[i].method, method))
                        found = &routes[i];
        }
        if (!found)
                return 0;
        int r = match(found->pattern, path, params);
        if (r <= 0) {
                for (size_t i = 0; i < SERVE_PARAMS_MAX; i++) {
                        free(params[i]);
                        params[i] = NULL;
                }
                return r < 0 ? r : 0;
        }
        *ret = found;
        return 1;
}
