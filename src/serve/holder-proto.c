/* The daemon-holder channel's framing and the helpers both ends share (see holder-proto.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/holder-proto.h"
#include "shared/fd-util.h"
#include "shared/json-util.h"
#include "shared/macro.h"

bool holder_name_valid(const char *s)
{
        if (!s || strlen(s) != HOLDER_NAME_LEN)
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
                        return false;
        return true;
}

int holder_frame_encode(const json_t *j, char **ret, size_t *ret_len)
{
        char *text = json_dumps(j, JSON_COMPACT);
        if (!text)
                return -ENOMEM;
        size_t len = strlen(text);
        if (len == 0 || len > HOLDER_FRAME_MAX) {
                free(text);
                return -EMSGSIZE;
        }
        char *buf = malloc(len + 4);
        if (!buf) {
                free(text);
                return -ENOMEM;
        }
        buf[0] = (char)(len & 0xff);
        buf[1] = (char)((len >> 8) & 0xff);
        buf[2] = (char)((len >> 16) & 0xff);
        buf[3] = (char)((len >> 24) & 0xff);
        memcpy(buf + 4, text, len);
        free(text);
        *ret = buf;
        *ret_len = len + 4;
        return 0;
}

ssize_t holder_frame_decode(const char *buf, size_t len, json_t **ret)
{
        if (len < 4)
                return 0;
        const unsigned char *u = (const unsigned char *)buf;
        size_t n = (size_t)u[0] | (size_t)u[1] << 8 | (size_t)u[2] << 16 | (size_t)u[3] << 24;
        if (n == 0 || n > HOLDER_FRAME_MAX)
                return -EMSGSIZE;
        if (len - 4 < n)
                return 0;
        json_t *j = json_loadb(buf + 4, n, JSON_REJECT_DUPLICATES, NULL);
        if (!j)
                return -EBADMSG;
        if (!json_is_object(j)) {
                json_decref(j);
                return -EBADMSG;
        }
        *ret = j;
        return (ssize_t)(n + 4);
}

static int reserve(char **buf, size_t *cap, size_t need)
{
        if (need <= *cap)
                return 0;
        size_t c = *cap ? *cap : 4096;
        while (c < need)
                c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
                return -ENOMEM;
        *buf = b;
        *cap = c;
        return 0;
}

int holder_conn_read(struct holder_conn *c)
{
        for (;;) {
                /* Never more than one whole frame and a header buffered unread. */
                if (c->in_len >= HOLDER_FRAME_MAX + 8)
                        return -EMSGSIZE;
                int r = reserve(&c->in, &c->in_cap, c->in_len + 65536);
                if (r < 0)
                        return r;
                ssize_t n = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 0;
                        return -errno;
                }
                if (n == 0)
                        return 1;
                c->in_len += (size_t)n;
        }
}

int holder_conn_next(struct holder_conn *c, json_t **ret)
{
        ssize_t n = holder_frame_decode(c->in, c->in_len, ret);
        if (n <= 0)
                return (int)n;
        memmove(c->in, c->in + n, c->in_len - (size_t)n);
        c->in_len -= (size_t)n;
        return 1;
}

int holder_conn_flush(struct holder_conn *c)
{
        while (c->out_off < c->out_len) {
                ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 1;
                        return -errno;
                }
                c->out_off += (size_t)n;
        }
        c->out_off = c->out_len = 0;
        return 0;
}

int holder_conn_send(struct holder_conn *c, const json_t *j)
{
        _cleanup_free_ char *frame = NULL;
        size_t len;
        int r = holder_frame_encode(j, &frame, &len);
        if (r < 0)
                return r;
        if (c->out_off > 0) {
                memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
                c->out_len -= c->out_off;
                c->out_off = 0;
        }
        r = reserve(&c->out, &c->out_cap, c->out_len + len);
        if (r < 0)
                return r;
        memcpy(c->out + c->out_len, frame, len);
        c->out_len += len;
        r = holder_conn_flush(c);
        return r < 0 ? r : 0;
}

void holder_conn_clear(struct holder_conn *c)
{
        free(c->in);
        free(c->out);
        safe_close(c->fd);
        *c = HOLDER_CONN_NULL;
}

int holder_stat_start_time(const char *text, uint64_t *ret)
{
        const char *p = strrchr(text, ')');
        if (!p)
                return -EBADMSG;
        p++;
        /* After the comm: field 3 (state) is the first; starttime is field 22. */
        for (int field = 3; field < 22; field++) {
                p = strchr(p + 1, ' ');
                if (!p)
                        return -EBADMSG;
        }
        p++;
        char *e;
        errno = 0;
        unsigned long long v = strtoull(p, &e, 10);
        if (errno || e == p || (*e != ' ' && *e != '\n' && *e != 0))
                return -EBADMSG;
        *ret = v;
        return 0;
}

int holder_proc_start_time(pid_t pid, uint64_t *ret)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r = read_full_file(path, 4096, &text, &len);
        if (r == -ENOENT)
                return -ESRCH;
        if (r < 0)
                return r;
        return holder_stat_start_time(text, ret);
}

/* ---- Helpers added by the holder (see holder-proto.h). ---- */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *holder_base64_encode(const void *data, size_t len)
{
        const unsigned char *u = data;
        if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
                return NULL;
        char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
        if (!out)
                return NULL;
        size_t i = 0;
        for (; i + 3 <= len; i += 3) {
                uint32_t v = (uint32_t)u[i] << 16 | (uint32_t)u[i + 1] << 8 | u[i + 2];
                *o++ = b64_alphabet[v >> 18];
                *o++ = b64_alphabet[(v >> 12) & 63];
                *o++ = b64_alphabet[(v >> 6) & 63];
                *o++ = b64_alphabet[v & 63];
        }
        if (i < len) {
                uint32_t v = (uint32_t)u[i] << 16 | (i + 1 < len ? (uint32_t)u[i + 1] << 8 : 0);
                *o++ = b64_alphabet[v >> 18];
                *o++ = b64_alphabet[(v >> 12) & 63];
                *o++ = i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=';
                *o++ = '=';
        }
        *o = 0;
        return out;
}

static int b64_value(char c)
{
        const char *p = c ? strchr(b64_alphabet, c) : NULL;
        return p ? (int)(p - b64_alphabet) : -1;
}

int holder_base64_decode(const char *text, size_t len, char **ret, size_t *ret_len)
{
        if (len % 4)
                return -EINVAL;
        size_t pad = 0;
        if (len >= 4 && text[len - 1] == '=')
                pad = text[len - 2] == '=' ? 2 : 1;
        char *out = malloc(len / 4 * 3 + 1);
        if (!out)
                return -ENOMEM;
        size_t n = 0;
        for (size_t i = 0; i < len; i += 4) {
                bool last = i + 4 == len;
                int v[4];
                for (size_t k = 0; k < 4; k++) {
                        bool padded = last && k >= 4 - pad;
                        v[k] = padded ? 0 : b64_value(text[i + k]);
                        if (v[k] < 0) {
                                free(out);
                                return -EINVAL;
                        }
                }
                uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
                             (uint32_t)v[3];
                /* The bits under the padding must be zero: one text per byte string. */
                if ((last && pad == 2 && (w & 0xffff)) || (last && pad == 1 && (w & 0xff))) {
                        free(out);
                        return -EINVAL;
                }
                out[n++] = (char)(w >> 16);
                if (!(last && pad == 2))
                        out[n++] = (char)((w >> 8) & 0xff);
                if (!(last && pad >= 1))
                        out[n++] = (char)(w & 0xff);
        }
        out[n] = 0;
        *ret = out;
        *ret_len = n;
        return 0;
}

static const char *const op_names[_HOLDER_OP_MAX] = {
    [HOLDER_OP_SESSION] = "session",
    [HOLDER_OP_EXEC] = "exec",
    [HOLDER_OP_PROCESS_START] = "process_start",
    [HOLDER_OP_PROCESS_OUTPUT] = "process_output",
    [HOLDER_OP_PROCESS_STDIN] = "process_stdin",
    [HOLDER_OP_PROCESS_SIGNAL] = "process_signal",
    [HOLDER_OP_PROCESS_RESIZE] = "process_resize",
    [HOLDER_OP_PROCESS_LIST] = "process_list",
    [HOLDER_OP_MOUNT] = "mount",
    [HOLDER_OP_NETWORK_POLICY] = "network_policy",
    [HOLDER_OP_SNAPSHOT] = "snapshot",
    [HOLDER_OP_SUSPEND] = "suspend",
    [HOLDER_OP_RESUME] = "resume",
    [HOLDER_OP_TERMINATE] = "terminate",
};

const char *holder_op_name(enum holder_op op)
{
        return (unsigned)op < _HOLDER_OP_MAX ? op_names[op] : NULL;
}

bool holder_process_id_valid(const char *s)
{
        if (!s || s[0] != 'p' || s[1] < '1' || s[1] > '9')
                return false;
        size_t n = strlen(s);
        if (n >= HOLDER_PROCESS_ID_MAX || n > 21)
                return false;
        for (size_t i = 1; i < n; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

/* The arguments each op takes besides "id" and "op". */
static const char *const op_fields[_HOLDER_OP_MAX][5] = {
    [HOLDER_OP_EXEC] = {"request"},
    [HOLDER_OP_PROCESS_START] = {"request"},
    [HOLDER_OP_PROCESS_OUTPUT] = {"process_id", "after_seq", "wait_ms"},
    [HOLDER_OP_PROCESS_STDIN] = {"process_id", "data", "eof"},
    [HOLDER_OP_PROCESS_SIGNAL] = {"process_id", "signal"},
    [HOLDER_OP_PROCESS_RESIZE] = {"process_id", "rows", "cols"},
    [HOLDER_OP_MOUNT] = {"mount"},
    [HOLDER_OP_NETWORK_POLICY] = {"policy"},
    [HOLDER_OP_SNAPSHOT] = {"path"},
};

#define bad(err, fmt, key) serve_error_set(err, SERVE_ERR_INVALID_REQUEST, fmt, key)

/* An integer argument in [min, max]. */
static int get_uint(json_t *j, const char *key, uint64_t min, uint64_t max, uint64_t *ret,
                    struct serve_error *err)
{
        json_t *v = json_object_get(j, key);
        if (!v)
                return bad(err, "%s: missing", key);
        if (!json_is_integer(v))
                return bad(err, "%s: must be an integer", key);
        json_int_t n = json_integer_value(v);
        if (n < 0 || (uint64_t)n < min || (uint64_t)n > max)
                return serve_error_set(err, SERVE_ERR_INVALID_REQUEST,
                                       "%s: must be between %llu and %llu", key,
                                       (unsigned long long)min, (unsigned long long)max);
        *ret = (uint64_t)n;
        return 0;
}

/* A nested body (an object), parsed by one of wire.h's parsers from its text. */
static int nested_text(json_t *j, const char *key, char **ret, struct serve_error *err)
{
        json_t *v = json_object_get(j, key);
        if (!v)
                return bad(err, "%s: missing", key);
        if (!json_is_object(v))
                return bad(err, "%s: must be an object", key);
        *ret = json_dumps(v, JSON_COMPACT);
        return *ret ? 0 : -ENOMEM;
}

/* "KEY: " before a nested parser's message (its key path). */
static void prefix_message(struct serve_error *err, const char *key)
{
        char m[sizeof(err->message) + 32];
        snprintf(m, sizeof(m), "%s.%s", key, err->message);
        snprintf(err->message, sizeof(err->message), "%.*s", (int)sizeof(err->message) - 1, m);
}

int holder_request_parse(json_t *j, struct holder_request *ret, struct serve_error *err)
{
        *ret = (struct holder_request){};
        json_t *idv = json_object_get(j, "id");
        if (!json_is_integer(idv) || json_integer_value(idv) <= 0)
                return -EBADMSG;
        ret->id = (uint64_t)json_integer_value(idv);

        json_t *opv = json_object_get(j, "op");
        const char *op = json_string_value(opv);
        if (!op)
                return bad(err, "%s: missing, or not a string", "op");
        size_t i = 0;
        while (i < _HOLDER_OP_MAX && !streq(op_names[i], op))
                i++;
        if (i == _HOLDER_OP_MAX || strlen(op) != json_string_length(opv))
                return serve_error_set(err, SERVE_ERR_INVALID_REQUEST, "op: unknown operation");
        ret->op = (enum holder_op)i;

        const char *key;
        json_t *v;
        json_object_foreach(j, key, v)
        {
                if (streq(key, "id") || streq(key, "op"))
                        continue;
                bool known = false;
                for (size_t k = 0; k < ELEMENTSOF(op_fields[0]) && op_fields[i][k]; k++)
                        known = known || streq(op_fields[i][k], key);
                if (!known)
                        return serve_error_set(err, SERVE_ERR_INVALID_REQUEST,
                                               "%.64s: unknown field", key);
        }

        int r;
        uint64_t n;
        _cleanup_free_ char *text = NULL;
        switch (ret->op) {
        case HOLDER_OP_EXEC:
        case HOLDER_OP_PROCESS_START:
                if ((r = nested_text(j, "request", &text, err)) < 0)
                        return r;
                r = serve_exec_request_parse(text, strlen(text), ret->op == HOLDER_OP_PROCESS_START,
                                             &ret->exec, err);
                if (r == -EINVAL)
                        prefix_message(err, "request");
                return r;
        case HOLDER_OP_MOUNT:
                if ((r = nested_text(j, "mount", &text, err)) < 0)
                        return r;
                r = serve_mount_parse(text, strlen(text), &ret->mount, err);
                if (r == -EINVAL)
                        prefix_message(err, "mount");
                return r;
        case HOLDER_OP_NETWORK_POLICY:
                if ((r = nested_text(j, "policy", &text, err)) < 0)
                        return r;
                r = serve_network_policy_parse(text, strlen(text), &ret->policy, err);
                if (r == -EINVAL)
                        prefix_message(err, "policy");
                return r;
        case HOLDER_OP_SNAPSHOT: {
                json_t *p = json_object_get(j, "path");
                const char *s = json_string_value(p);
                if (!s)
                        return bad(err, "%s: missing, or not a string", "path");
                if (s[0] != '/' || strlen(s) != json_string_length(p) || strlen(s) >= 4096)
                        return bad(err, "%s: must be an absolute path", "path");
                ret->path = strdup(s);
                return ret->path ? 0 : -ENOMEM;
        }
        case HOLDER_OP_PROCESS_OUTPUT:
        case HOLDER_OP_PROCESS_STDIN:
        case HOLDER_OP_PROCESS_SIGNAL:
        case HOLDER_OP_PROCESS_RESIZE: {
                json_t *p = json_object_get(j, "process_id");
                const char *s = json_string_value(p);
                if (!s || strlen(s) != json_string_length(p) || !holder_process_id_valid(s))
                        return bad(err, "%s: missing, or not a process id", "process_id");
                strcpy(ret->process_id, s);
                break;
        }
        default:
                return 0;
        }

        switch (ret->op) {
        case HOLDER_OP_PROCESS_OUTPUT:
                if ((r = get_uint(j, "after_seq", 0, INT64_MAX, &ret->after_seq, err)) < 0 ||
                    (r = get_uint(j, "wait_ms", 0, HOLDER_WAIT_MS_MAX, &n, err)) < 0)
                        return r;
                ret->wait_ms = (unsigned)n;
                return 0;
        case HOLDER_OP_PROCESS_STDIN: {
                json_t *d = json_object_get(j, "data"), *e = json_object_get(j, "eof");
                if (!json_is_string(d))
                        return bad(err, "%s: missing, or not a string", "data");
                if (!json_is_boolean(e))
                        return bad(err, "%s: missing, or not a boolean", "eof");
                ret->eof = json_is_true(e);
                if (json_string_length(d) > (HOLDER_STDIN_MAX + 2) / 3 * 4)
                        return serve_error_set(err, SERVE_ERR_INVALID_REQUEST,
                                               "data: more than %u bytes", HOLDER_STDIN_MAX);
                r = holder_base64_decode(json_string_value(d), json_string_length(d), &ret->data,
                                         &ret->data_len);
                if (r == -EINVAL)
                        return bad(err, "%s: not base64", "data");
                return r;
        }
        case HOLDER_OP_PROCESS_SIGNAL:
                if ((r = get_uint(j, "signal", 1, 64, &n, err)) < 0)
                        return r;
                ret->signal = (int)n;
                return 0;
        case HOLDER_OP_PROCESS_RESIZE:
                if ((r = get_uint(j, "rows", 1, 65535, &n, err)) < 0)
                        return r;
                ret->rows = (unsigned)n;
                if ((r = get_uint(j, "cols", 1, 65535, &n, err)) < 0)
                        return r;
                ret->cols = (unsigned)n;
                return 0;
        default:
                return 0;
        }
}

void holder_request_clear(struct holder_request *r)
{
        serve_exec_request_clear(&r->exec);
        serve_mount_clear(&r->mount);
        serve_network_policy_clear(&r->policy);
        free(r->data);
        free(r->path);
        r->data = r->path = NULL;
}

json_t *holder_reply_ok(uint64_t id, json_t *result)
{
        if (!result)
                return NULL;
        return json_pack("{s:I,s:b,s:o}", "id", (json_int_t)id, "ok", 1, "result", result);
}

json_t *holder_reply_error(uint64_t id, const struct serve_error *err)
{
        _cleanup_json_ json_t *e = serve_error_to_json(err);
        json_t *inner = e ? json_object_get(e, "error") : NULL;
        if (!inner)
                return NULL;
        return json_pack("{s:I,s:b,s:O}", "id", (json_int_t)id, "ok", 0, "error", inner);
}
