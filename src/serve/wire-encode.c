/* cordon-serve's answers (wire.h): errors, durations, sessions, snapshots, capabilities, exec
 * results and the request shapes, built as jansson values in serde's field order. Strings that
 * are not UTF-8 become U+FFFD as Rust's String::from_utf8_lossy makes them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/wire.h"
#include "shared/json-util.h"
#include "shared/macro.h"

static const char *const error_kinds[] = {
    [SERVE_ERR_SESSION_NOT_FOUND] = "session_not_found",
    [SERVE_ERR_UNSUPPORTED] = "unsupported",
    [SERVE_ERR_INVALID_REQUEST] = "invalid_request",
    [SERVE_ERR_LIFECYCLE] = "lifecycle",
    [SERVE_ERR_EXEC] = "exec",
    [SERVE_ERR_NETWORK_POLICY] = "network_policy",
    [SERVE_ERR_IO] = "io",
};

static const unsigned error_status[] = {
    [SERVE_ERR_SESSION_NOT_FOUND] = 404,
    [SERVE_ERR_UNSUPPORTED] = 501,
    [SERVE_ERR_INVALID_REQUEST] = 400,
    [SERVE_ERR_LIFECYCLE] = 409,
    [SERVE_ERR_EXEC] = 500,
    [SERVE_ERR_NETWORK_POLICY] = 422,
    [SERVE_ERR_IO] = 500,
};

const char *serve_error_kind_name(enum serve_error_kind kind)
{
        if ((unsigned)kind >= ELEMENTSOF(error_kinds))
                return "io";
        return error_kinds[kind];
}

unsigned serve_error_http_status(enum serve_error_kind kind)
{
        if ((unsigned)kind >= ELEMENTSOF(error_status))
                return 500;
        return error_status[kind];
}

/* The length of the well-formed UTF-8 sequence at @s (at most @len bytes available), or 0 when
 * it is ill-formed or cut short; *@ret_bad then holds the length of its maximal subpart (what
 * one U+FFFD replaces, per Unicode's "U+FFFD substitution of maximal subparts", which
 * from_utf8_lossy follows). */
static size_t utf8_valid_len(const unsigned char *s, size_t len, size_t *ret_bad)
{
        unsigned char c = s[0];
        size_t need;
        unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf)
                need = 2;
        else if (c >= 0xe0 && c <= 0xef) {
                need = 3;
                if (c == 0xe0)
                        lo = 0xa0; /* overlong */
                else if (c == 0xed)
                        hi = 0x9f; /* surrogates */
        } else if (c >= 0xf0 && c <= 0xf4) {
                need = 4;
                if (c == 0xf0)
                        lo = 0x90; /* overlong */
                else if (c == 0xf4)
                        hi = 0x8f; /* above U+10FFFF */
        } else {
                *ret_bad = 1; /* continuation byte, C0, C1, F5..FF */
                return 0;
        }
        for (size_t i = 1; i < need; i++) {
                if (i >= len || s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf)) {
                        *ret_bad = i;
                        return 0;
                }
        }
        return need;
}

/* Appends the lossy UTF-8 of @bytes[0..@len) to @out (room for 3 * @len bytes); of the input,
 * only units that end at or before @cap are taken, so a cut never splits a sequence: a unit
 * that straddles @cap is dropped whole. Returns the bytes written. */
static size_t utf8_lossy(const char *bytes, size_t len, size_t cap, char *out)
{
        const unsigned char *s = (const unsigned char *)bytes;
        size_t i = 0, o = 0;
        while (i < len) {
                size_t bad = 0, n = utf8_valid_len(s + i, len - i, &bad);
                size_t unit = n ?: bad;
                if (i >= cap || unit > cap - i)
                        break;
                if (n) {
                        memcpy(out + o, s + i, n);
                        o += n;
                } else {
                        memcpy(out + o, "\xef\xbf\xbd", 3);
                        o += 3;
                }
                i += unit;
        }
        return o;
}

/* A JSON string of @bytes made valid UTF-8 (NUL bytes kept, as a Rust String keeps them). */
static json_t *lossy_string(const char *bytes, size_t len)
{
        if (!bytes)
                return json_null();
        if (len > (SIZE_MAX - 1) / 3)
                return NULL;
        _cleanup_free_ char *buf = malloc(len * 3 + 1);
        if (!buf)
                return NULL;
        size_t n = utf8_lossy(bytes, len, len, buf);
        return json_stringn_nocheck(buf, n);
}

static json_t *text(const char *s)
{
        return lossy_string(s, s ? strlen(s) : 0);
}

json_t *serve_text_to_json(const char *bytes, size_t len, size_t cap)
{
        if (!bytes)
                len = 0;
        size_t take = len < cap ? len : cap;
        bool truncated = len > cap;
        size_t marker = truncated ? strlen(SERVE_TRUNCATED_MARKER) : 0;
        if (take > (SIZE_MAX - 1 - marker) / 3)
                return NULL;
        _cleanup_free_ char *buf = malloc(take * 3 + marker + 1);
        if (!buf)
                return NULL;
        /* The whole input is looked at so that a sequence straddling the cap is recognised as
         * one unit and dropped, not cut into a replacement character. */
        size_t n = bytes ? utf8_lossy(bytes, len, take, buf) : 0;
        if (truncated) {
                memcpy(buf + n, SERVE_TRUNCATED_MARKER, marker);
                n += marker;
        }
        return json_stringn_nocheck(buf, n);
}

int serve_error_set(struct serve_error *err, enum serve_error_kind kind, const char *fmt, ...)
{
        if (!err)
                return -EINVAL;
        *err = (struct serve_error){.kind = kind};
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* Builds an object from (key, value) pairs ending with a NULL key; NULL if any value is NULL
 * (every value is consumed either way). */
static json_t *object_of(const char *key, ...)
{
        json_t *o = json_object();
        bool ok = o != NULL;
        va_list ap;
        va_start(ap, key);
        for (const char *k = key; k; k = va_arg(ap, const char *)) {
                json_t *v = va_arg(ap, json_t *);
                if (!v || !ok) {
                        json_decref(v);
                        ok = false;
                } else if (json_object_set_new_nocheck(o, k, v) < 0) /* @v is consumed */
                        ok = false;
        }
        va_end(ap);
        if (!ok) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *serve_error_to_json(const struct serve_error *err)
{
        json_t *e;
        size_t n = strnlen(err->message, sizeof(err->message));
        if (err->kind == SERVE_ERR_UNSUPPORTED)
                e = object_of("kind", json_string(serve_error_kind_name(err->kind)), "message",
                              lossy_string(err->message, n), "backend", text(err->backend),
                              "operation", text(err->operation), NULL);
        else
                e = object_of("kind", json_string(serve_error_kind_name(err->kind)), "message",
                              lossy_string(err->message, n), NULL);
        return object_of("error", e, NULL);
}

uint64_t serve_duration_usec(const struct serve_duration *d)
{
        if (!d->set)
                return 0;
        if (d->secs > (UINT64_MAX - d->nanos / 1000) / 1000000)
                return UINT64_MAX;
        return d->secs * 1000000 + d->nanos / 1000;
}

json_t *serve_duration_to_json(const struct serve_duration *d)
{
        if (!d->set)
                return json_null();
        /* JSON integers here are signed 64-bit: the reader never yields more, a caller's
         * larger value is written as the largest. */
        json_int_t secs = d->secs > INT64_MAX ? INT64_MAX : (json_int_t)d->secs;
        return object_of("secs", json_integer(secs), "nanos", json_integer(d->nanos), NULL);
}

static const char *access_name(enum serve_access a)
{
        return a == SERVE_READ_WRITE ? "read_write" : "read_only";
}

const char *serve_state_name(enum serve_state s)
{
        switch (s) {
        case SERVE_PROVISIONED:
                return "provisioned";
        case SERVE_RUNNING:
                return "running";
        case SERVE_SUSPENDED:
                return "suspended";
        case SERVE_TERMINATED:
                break;
        }
        return "terminated";
}

/* A BTreeMap<String,String>: keys in byte order, a repeated key's last value wins (as inserting
 * into a BTreeMap does). */
static json_t *sorted_map(const struct serve_label *l, size_t n)
{
        _cleanup_free_ const struct serve_label **order = calloc(n ?: 1, sizeof(*order));
        if (!order)
                return NULL;
        for (size_t i = 0; i < n; i++)
                order[i] = &l[i];
        /* Insertion sort by key, stable so that equal keys keep their order (n is small). */
        for (size_t i = 1; i < n; i++) {
                const struct serve_label *x = order[i];
                size_t k = i;
                while (k > 0 && strcmp(strempty(order[k - 1]->key), strempty(x->key)) > 0) {
                        order[k] = order[k - 1];
                        k--;
                }
                order[k] = x;
        }
        json_t *o = json_object();
        if (!o)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                json_t *k = text(strempty(order[i]->key)), *v = text(strempty(order[i]->value));
                int r = k && v ? json_object_set_new(o, json_string_value(k), v) : -1;
                if (r < 0 && k && v)
                        v = NULL; /* consumed by the failed set */
                json_decref(k);
                if (r < 0) {
                        json_decref(v);
                        json_decref(o);
                        return NULL;
                }
        }
        return o;
}

json_t *serve_session_to_json(const struct serve_session_view *v)
{
        json_t *mounts = json_array();
        for (size_t i = 0; mounts && i < v->n_mounts; i++) {
                const struct serve_resolved_mount *m = &v->mounts[i];
                json_t *jm = object_of("target", text(strempty(m->target)), "access",
                                       json_string(access_name(m->access)), "host_path",
                                       json_string_or_null(m->host_path), NULL);
                if (!jm || json_array_append_new(mounts, jm) < 0) {
                        json_decref(mounts);
                        mounts = NULL;
                }
        }
        return object_of("id", text(strempty(v->id)), "backend", text(strempty(v->backend)),
                         "state", json_string(serve_state_name(v->state)), "mounts", mounts,
                         "metadata", sorted_map(v->metadata, v->n_metadata), NULL);
}

json_t *serve_capabilities_to_json(const struct serve_capabilities *c)
{
        return object_of("local_process_sandbox", json_boolean(c->local_process_sandbox),
                         "network_policy", json_boolean(c->network_policy), "snapshot",
                         json_boolean(c->snapshot), "resume", json_boolean(c->resume),
                         "suspend_on_idle", json_boolean(c->suspend_on_idle), NULL);
}

json_t *serve_snapshot_to_json(const struct serve_snapshot_view *v)
{
        return object_of("session_id", text(strempty(v->session_id)), "backend",
                         text(strempty(v->backend)), "snapshot_id", text(strempty(v->snapshot_id)),
                         "metadata", sorted_map(v->metadata, v->n_metadata), NULL);
}

json_t *serve_exec_result_to_json(const char *out, size_t out_len, const char *err, size_t err_len,
                                  size_t cap, int exit_code, bool timed_out)
{
        return object_of("stdout", serve_text_to_json(out, out_len, cap), "stderr",
                         serve_text_to_json(err, err_len, cap), "exit_code",
                         json_integer(exit_code), "timed_out", json_boolean(timed_out), NULL);
}

json_t *serve_mount_to_json(const struct serve_mount *m)
{
        return object_of("source", text(strempty(m->source)), "target", text(strempty(m->target)),
                         "access", json_string(access_name(m->access)), NULL);
}

json_t *serve_network_policy_to_json(const struct serve_network_policy *p)
{
        if (!p->limited)
                return object_of("mode", json_string("unrestricted"), NULL);
        json_t *hosts = json_array();
        for (size_t i = 0; hosts && i < p->n_hosts; i++)
                if (json_array_append_new(hosts, text(p->allowed_hosts[i])) < 0) {
                        json_decref(hosts);
                        hosts = NULL;
                }
        return object_of("mode", json_string("limited"), "allowed_hosts", hosts, NULL);
}

static json_t *limits_to_json(const struct serve_limits *l)
{
        return object_of("wall_time", serve_duration_to_json(&l->wall_time), "cpu_count",
                         l->has_cpu_count ? json_integer(l->cpu_count) : json_null(), "memory_mb",
                         l->has_memory_mb ? json_integer(l->memory_mb) : json_null(),
                         "idle_timeout", serve_duration_to_json(&l->idle_timeout), NULL);
}

json_t *serve_spec_to_json(const struct serve_spec *s)
{
        json_t *mounts = json_array();
        for (size_t i = 0; mounts && i < s->n_mounts; i++)
                if (json_array_append_new(mounts, serve_mount_to_json(&s->mounts[i])) < 0) {
                        json_decref(mounts);
                        mounts = NULL;
                }
        json_t *o = object_of("session_id", text(s->session_id), "labels",
                              sorted_map(s->labels, s->n_labels), "network_policy",
                              serve_network_policy_to_json(&s->network), "mounts", mounts, "limits",
                              limits_to_json(&s->limits), NULL);
        if (o && s->from_snapshot &&
            json_object_set_new(o, "from_snapshot", text(s->from_snapshot)) < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *serve_exec_request_to_json(const struct serve_exec_request *r)
{
        json_t *args = json_array(), *env = json_object();
        for (size_t i = 0; args && i < r->n_args; i++)
                if (json_array_append_new(args, text(r->args[i])) < 0) {
                        json_decref(args);
                        args = NULL;
                }
        for (size_t i = 0; env && i < r->n_env; i++) {
                const char *eq = strchr(r->env[i], '=');
                _cleanup_free_ char *name = eq ? strndup(r->env[i], eq - r->env[i]) : NULL;
                if (!name || json_object_set_new(env, name, text(eq + 1)) < 0) {
                        json_decref(env);
                        env = NULL;
                }
        }
        json_t *o =
            object_of("command", text(strempty(r->command)), "args", args, "cwd", text(r->cwd),
                      "env", env, "stdin", lossy_string(r->stdin_data, r->stdin_len), "timeout",
                      serve_duration_to_json(&r->timeout), NULL);
        if (o && r->pty && json_object_set_new(o, "pty", json_true()) < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

char *serve_json_dump(json_t *j)
{
        if (!j)
                return NULL;
        char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
        json_decref(j);
        return s;
}
