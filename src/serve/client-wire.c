/* cordon-session's decoding of cordon-serve's answers (client-wire.h): errors, output records,
 * session tables, path escaping, terminal-safe text. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/client-wire.h"
#include "serve/holder-proto.h"
#include "shared/json-util.h"
#include "shared/macro.h"

int client_exit_status(int64_t exit_code, bool timed_out)
{
        if (timed_out)
                return 124;
        if (exit_code < 0 || exit_code > 255)
                return 255;
        return (int)exit_code;
}

/* The length of the well-formed UTF-8 sequence at @s (@len bytes available), 0 when ill-formed. */
static size_t utf8_len(const unsigned char *s, size_t len)
{
        unsigned char c = s[0], lo = 0x80, hi = 0xbf;
        size_t need;
        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf)
                need = 2;
        else if (c >= 0xe0 && c <= 0xef) {
                need = 3;
                lo = c == 0xe0 ? 0xa0 : 0x80; /* overlong */
                hi = c == 0xed ? 0x9f : 0xbf; /* surrogates */
        } else if (c >= 0xf0 && c <= 0xf4) {
                need = 4;
                lo = c == 0xf0 ? 0x90 : 0x80; /* overlong */
                hi = c == 0xf4 ? 0x8f : 0xbf; /* above U+10FFFF */
        } else
                return 0;
        if (len < need || s[1] < lo || s[1] > hi)
                return 0;
        for (size_t i = 2; i < need; i++)
                if (s[i] < 0x80 || s[i] > 0xbf)
                        return 0;
        return need;
}

bool client_utf8_valid(const char *s, size_t len)
{
        const unsigned char *u = (const unsigned char *)s;
        for (size_t i = 0; i < len;) {
                size_t n = utf8_len(u + i, len - i);
                if (n == 0)
                        return false;
                i += n;
        }
        return true;
}

void client_text_safe(const char *in, size_t len, size_t max, char *out)
{
        const unsigned char *u = (const unsigned char *)in;
        size_t o = 0, take = len < max ? len : max;
        for (size_t i = 0; i < take;) {
                size_t n = utf8_len(u + i, take - i);
                /* C0 and DEL, and C1 (U+0080..U+009F, C2 80..C2 9F): a terminal acts on them. */
                if (n == 0 || (n == 1 && (u[i] < 0x20 || u[i] == 0x7f)) ||
                    (n == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0)) {
                        out[o++] = '?';
                        i += n ? n : 1;
                        continue;
                }
                memcpy(out + o, u + i, n);
                o += n;
                i += n;
        }
        if (len > max) {
                memcpy(out + o, "...", 3);
                o += 3;
        }
        out[o] = 0;
}

void client_error_line(unsigned status, const char *body, size_t len, char *buf, size_t size)
{
        char kind[4 * 64 + 4], msg[4 * CLIENT_TEXT_MAX + 4], extra[2 * (4 * 64 + 4) + 64] = "";
        _cleanup_json_ json_t *j = body && len ? json_loadb(body, len, 0, NULL) : NULL;
        json_t *e = json_object_get(j, "error");
        json_t *k = json_object_get(e, "kind"), *m = json_object_get(e, "message");
        if (json_is_string(k) && json_is_string(m)) {
                client_text_safe(json_string_value(k), json_string_length(k), 64, kind);
                client_text_safe(json_string_value(m), json_string_length(m), CLIENT_TEXT_MAX, msg);
                json_t *b = json_object_get(e, "backend"), *op = json_object_get(e, "operation");
                if (json_is_string(b) && json_is_string(op)) {
                        char sb[4 * 64 + 4], sop[4 * 64 + 4];
                        client_text_safe(json_string_value(b), json_string_length(b), 64, sb);
                        client_text_safe(json_string_value(op), json_string_length(op), 64, sop);
                        snprintf(extra, sizeof(extra), " (backend %s, operation %s)", sb, sop);
                }
                snprintf(buf, size, "%s: %s%s", kind, msg, extra);
                return;
        }
        /* Not the contract's error: the status and what the body starts with. */
        size_t n = body ? len : 0;
        while (n > 0 && (body[n - 1] == '\n' || body[n - 1] == '\r'))
                n--;
        client_text_safe(body ? body : "", n, 200, msg);
        snprintf(buf, size, "HTTP %u%s%s", status, *msg ? ": " : "", msg);
}

char *client_path_escape(const char *s)
{
        static const char hex[] = "0123456789ABCDEF";
        size_t n = strlen(s);
        if (n > (SIZE_MAX - 1) / 3)
                return NULL;
        char *out = malloc(3 * n + 1), *o = out;
        if (!out)
                return NULL;
        for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
                if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                    (*c >= '0' && *c <= '9') || strchr("-._~", *c))
                        *o++ = (char)*c;
                else {
                        *o++ = '%';
                        *o++ = hex[*c >> 4];
                        *o++ = hex[*c & 15];
                }
        }
        *o = 0;
        return out;
}

int client_lines_feed(struct client_lines *l, const char *data, size_t n,
                      int (*line)(const char *s, size_t len, void *userdata), void *userdata)
{
        while (n > 0) {
                const char *nl = memchr(data, '\n', n);
                size_t take = nl ? (size_t)(nl - data) : n;
                if (take > CLIENT_LINE_MAX - l->len)
                        return -EMSGSIZE;
                if (l->len + take + 1 > l->cap) {
                        size_t cap = l->cap ? l->cap : 4096;
                        while (cap < l->len + take + 1)
                                cap *= 2;
                        char *b = realloc(l->buf, cap);
                        if (!b)
                                return -ENOMEM;
                        l->buf = b;
                        l->cap = cap;
                }
                memcpy(l->buf + l->len, data, take);
                l->len += take;
                l->buf[l->len] = 0;
                data += take;
                n -= take;
                if (!nl)
                        break;
                data++;
                n--;
                size_t len = l->len;
                l->len = 0;
                if (len > 0 && l->buf[len - 1] == '\r')
                        l->buf[--len] = 0;
                if (len == 0)
                        continue;
                int r = line(l->buf, len, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

void client_lines_clear(struct client_lines *l)
{
        free(l->buf);
        *l = (struct client_lines){};
}

/* A JSON integer in [lo, hi] at @key of @o. */
static bool get_int(const json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *ret)
{
        json_t *v = json_object_get(o, key);
        if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
                return false;
        *ret = json_integer_value(v);
        return true;
}

int client_record_parse(const char *line, size_t len, struct client_record *ret)
{
        *ret = (struct client_record){};
        _cleanup_json_ json_t *j = json_loadb(line, len, 0, NULL);
        if (!json_is_object(j))
                return -EBADMSG;
        if (json_object_get(j, "error")) {
                ret->kind = CLIENT_RECORD_ERROR;
                client_error_line(200, line, len, ret->error, sizeof(ret->error));
                return 0;
        }
        int64_t seq;
        if (!get_int(j, "seq", 1, INT64_MAX, &seq))
                return -EBADMSG;
        ret->seq = (uint64_t)seq;
        json_t *exit_code = json_object_get(j, "exit_code");
        if (exit_code) {
                json_t *t = json_object_get(j, "timed_out");
                if (!get_int(j, "exit_code", INT32_MIN, INT32_MAX, &ret->exit_code) ||
                    (t && !json_is_boolean(t)))
                        return -EBADMSG;
                ret->kind = CLIENT_RECORD_EXIT;
                ret->timed_out = json_is_true(t);
                return 0;
        }
        json_t *stream = json_object_get(j, "stream"), *data = json_object_get(j, "data");
        if (!json_is_string(stream) || !json_is_string(data))
                return -EBADMSG;
        if (streq(json_string_value(stream), "stderr"))
                ret->to_stderr = true;
        else if (!streq(json_string_value(stream), "stdout"))
                return -EBADMSG;
        int r = holder_base64_decode(json_string_value(data), json_string_length(data), &ret->data,
                                     &ret->len);
        if (r < 0)
                return r == -ENOMEM ? r : -EBADMSG;
        ret->kind = CLIENT_RECORD_OUTPUT;
        return 0;
}

void client_record_clear(struct client_record *r)
{
        free(r->data);
        r->data = NULL;
        r->len = 0;
}

/* A cell of the table: @s made safe and cut. */
static void cell(const char *s, size_t len, char out[4 * CLIENT_CELL_MAX + 4])
{
        client_text_safe(s, len, CLIENT_CELL_MAX, out);
        if (!*out)
                strcpy(out, "-");
}

/* metadata "created": a number of seconds since the epoch as UTC, any other string as it is. */
static void created_cell(json_t *meta, char out[4 * CLIENT_CELL_MAX + 4])
{
        json_t *c = json_object_get(meta, "created");
        const char *s = json_string_value(c);
        if (!s) {
                strcpy(out, "-");
                return;
        }
        char *end;
        errno = 0;
        long long t = strtoll(s, &end, 10);
        struct tm tm;
        time_t tt = (time_t)t;
        if (*s >= '0' && *s <= '9' && !*end && !errno && gmtime_r(&tt, &tm) &&
            strftime(out, 4 * CLIENT_CELL_MAX + 4, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
                return;
        cell(s, json_string_length(c), out);
}

/* metadata "label.K": "K=V,K=V", cut at CLIENT_CELL_MAX. */
static void labels_cell(json_t *meta, char out[4 * CLIENT_CELL_MAX + 4])
{
        char joined[CLIENT_CELL_MAX + 2] = "";
        size_t n = 0;
        bool cut = false;
        const char *key;
        json_t *v;
        json_object_foreach(meta, key, v)
        {
                const char *k = startswith(key, "label.");
                if (!k || !json_is_string(v))
                        continue;
                int w = snprintf(joined + n, sizeof(joined) - n, "%s%s=%s", n ? "," : "", k,
                                 json_string_value(v));
                if (w < 0 || (size_t)w >= sizeof(joined) - n) {
                        cut = true;
                        n = sizeof(joined) - 1;
                        break;
                }
                n += (size_t)w;
        }
        /* One byte over CLIENT_CELL_MAX tells cell() to add its "...". */
        cell(joined, cut ? CLIENT_CELL_MAX + 1 : n, out);
}

int client_sessions_table(json_t *list, FILE *f)
{
        if (!json_is_array(list))
                return -EBADMSG;
        size_t i;
        json_t *s;
        json_array_foreach(list, i, s)
        {
                json_t *id = json_object_get(s, "id"), *state = json_object_get(s, "state"),
                       *backend = json_object_get(s, "backend");
                if (!json_is_string(id) || !json_is_string(state) || !json_is_string(backend))
                        return -EBADMSG;
        }
        fprintf(f, "%-32s %-11s %-9s %-20s %s\n", "ID", "STATE", "BACKEND", "CREATED", "LABELS");
        json_array_foreach(list, i, s)
        {
                char c[5][4 * CLIENT_CELL_MAX + 4];
                json_t *meta = json_object_get(s, "metadata");
                /* cordon's SandboxSession.backend is "cordon"; which of its backends runs the
                 * session (ns, landlock) is in the metadata. */
                json_t *backend = json_object_get(meta, "backend");
                if (!json_is_string(backend))
                        backend = json_object_get(s, "backend");
                json_t *v[] = {json_object_get(s, "id"), json_object_get(s, "state"), backend};
                for (size_t k = 0; k < ELEMENTSOF(v); k++)
                        cell(json_string_value(v[k]), json_string_length(v[k]), c[k]);
                created_cell(meta, c[3]);
                labels_cell(meta, c[4]);
                fprintf(f, "%-32s %-11s %-9s %-20s %s\n", c[0], c[1], c[2], c[3], c[4]);
        }
        return 0;
}
