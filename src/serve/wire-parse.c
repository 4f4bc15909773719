/* cordon-serve's request bodies (wire.h): SandboxSpec, FilesystemMount, NetworkPolicy and
 * ExecRequest parsed strictly from hostile JSON. Every refusal is SERVE_ERR_INVALID_REQUEST with
 * a message that starts with the JSON key path ("mounts[2].target: must be absolute"). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/wire.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* Room for a key path: the fixed names are short and a user's key is cut to KEY_SHOWN bytes. */
#define PATH_LEN  192
#define KEY_SHOWN 64

/* The length of the longest prefix of @s (@len bytes) of at most @max bytes that does not end
 * inside a UTF-8 sequence, so that a cut key still reads as text. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
        if (len <= max)
                return len;
        size_t n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
                n--;
        return n;
}

static void path_key(char buf[static PATH_LEN], const char *prefix, const char *key)
{
        size_t n = utf8_cut(key, strlen(key), KEY_SHOWN);
        snprintf(buf, PATH_LEN, "%s%s%.*s", prefix, *prefix ? "." : "", (int)n, key);
}

static void path_index(char buf[static PATH_LEN], const char *prefix, size_t i)
{
        /* The prefix is a path built here, never near the limit; cut only to prove it fits. */
        snprintf(buf, PATH_LEN, "%.*s[%zu]", PATH_LEN - 24, prefix, i);
}

_printf_(3, 4) static int refuse(struct serve_error *err, const char *path, const char *fmt, ...)
{
        char what[384];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        if (*path)
                return serve_error_set(err, SERVE_ERR_INVALID_REQUEST, "%s: %s", path, what);
        return serve_error_set(err, SERVE_ERR_INVALID_REQUEST, "%s", what);
}

/* One code point of valid UTF-8 (jansson checked the text); its length in bytes. */
static size_t utf8_next(const char *s, uint32_t *ret_cp)
{
        const unsigned char *u = (const unsigned char *)s;
        if (u[0] < 0x80) {
                *ret_cp = u[0];
                return 1;
        }
        if (u[0] < 0xe0) {
                *ret_cp = (uint32_t)(u[0] & 0x1f) << 6 | (u[1] & 0x3f);
                return 2;
        }
        if (u[0] < 0xf0) {
                *ret_cp =
                    (uint32_t)(u[0] & 0x0f) << 12 | (uint32_t)(u[1] & 0x3f) << 6 | (u[2] & 0x3f);
                return 3;
        }
        *ret_cp = (uint32_t)(u[0] & 0x07) << 18 | (uint32_t)(u[1] & 0x3f) << 12 |
                  (uint32_t)(u[2] & 0x3f) << 6 | (u[3] & 0x3f);
        return 4;
}

/* Rust's char::is_whitespace (Unicode White_Space), which str::trim() strips: harn trims
 * session ids and mount targets with it, so the same strings must count as blank here. */
static bool cp_is_space(uint32_t c)
{
        return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680 ||
               (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
               c == 0x205f || c == 0x3000;
}

/* @s (@len bytes of UTF-8) without leading and trailing whitespace: start and length. */
static const char *utf8_trim(const char *s, size_t len, size_t *ret_len)
{
        size_t i = 0, start = len, end = 0;
        while (i < len) {
                uint32_t cp;
                size_t n = utf8_next(s + i, &cp);
                if (!cp_is_space(cp)) {
                        if (start == len)
                                start = i;
                        end = i + n;
                }
                i += n;
        }
        *ret_len = start == len ? 0 : end - start;
        return start == len ? s + len : s + start;
}

/* Keys of @obj must be among @known (NULL-terminated); a key with a NUL byte is unknown. */
static int check_fields(json_t *obj, const char *prefix, const char *const *known,
                        struct serve_error *err)
{
        const char *key;
        size_t key_len;
        json_t *v;
        json_object_keylen_foreach(obj, key, key_len, v)
        {
                bool ok = strlen(key) == key_len;
                for (size_t i = 0; ok && known[i]; i++)
                        if (streq(known[i], key))
                                goto next;
                char p[PATH_LEN];
                path_key(p, prefix, key);
                return refuse(err, p, "unknown field");
        next:;
        }
        return 0;
}

/* A string of at most @max bytes into a new buffer; NUL bytes only with @allow_nul. */
static int get_string(json_t *v, const char *path, size_t max, bool allow_nul, char **ret,
                      size_t *ret_len, struct serve_error *err)
{
        if (!json_is_string(v))
                return refuse(err, path, "must be a string, not %s", json_type_name(v));
        size_t len = json_string_length(v);
        const char *s = json_string_value(v);
        if (len > max)
                return refuse(err, path, "longer than %zu bytes", max);
        if (!allow_nul && memchr(s, 0, len))
                return refuse(err, path, "must not contain a NUL byte");
        char *c = malloc(len + 1);
        if (!c)
                return -ENOMEM;
        memcpy(c, s, len);
        c[len] = 0;
        *ret = c;
        if (ret_len)
                *ret_len = len;
        return 0;
}

static int get_u32(json_t *v, const char *path, uint32_t *ret, struct serve_error *err)
{
        if (!json_is_integer(v))
                return refuse(err, path, "must be an integer, not %s", json_type_name(v));
        json_int_t n = json_integer_value(v);
        if (n < 0 || n > UINT32_MAX)
                return refuse(err, path, "must be between 0 and %u", UINT32_MAX);
        *ret = (uint32_t)n;
        return 0;
}

/* Option<Duration>: absent or null, {"secs":N,"nanos":N}, or a number of seconds. */
static int get_duration(json_t *v, const char *path, struct serve_duration *ret,
                        struct serve_error *err)
{
        *ret = (struct serve_duration){};
        if (!v || json_is_null(v))
                return 0;
        if (json_is_integer(v)) {
                if (json_integer_value(v) < 0)
                        return refuse(err, path, "must not be negative");
                *ret = (struct serve_duration){.set = true, .secs = json_integer_value(v)};
                return 0;
        }
        if (json_is_real(v)) {
                double d = json_real_value(v);
                if (!(d >= 0))
                        return refuse(err, path, "must not be negative");
                if (d >= 18446744073709551616.0)
                        return refuse(err, path, "too large");
                uint64_t secs = (uint64_t)d;
                double nanos = round((d - (double)secs) * 1e9);
                /* A fraction that rounds up to a whole second carries (doubles this large have
                 * no fraction, so secs + 1 cannot overflow here). */
                if (nanos >= 1e9) {
                        secs++;
                        nanos = 0;
                }
                *ret = (struct serve_duration){.set = true, .secs = secs, .nanos = (uint32_t)nanos};
                return 0;
        }
        if (!json_is_object(v))
                return refuse(err, path,
                              "must be {\"secs\":N,\"nanos\":N} or a number of seconds, not %s",
                              json_type_name(v));
        static const char *const fields[] = {"secs", "nanos", NULL};
        int r = check_fields(v, path, fields, err);
        if (r < 0)
                return r;
        char p[PATH_LEN];
        json_t *secs = json_object_get(v, "secs"), *nanos = json_object_get(v, "nanos");
        path_key(p, path, "secs");
        if (!secs)
                return refuse(err, p, "missing");
        if (!json_is_integer(secs) || json_integer_value(secs) < 0)
                return refuse(err, p, "must be a non-negative integer");
        path_key(p, path, "nanos");
        if (!nanos)
                return refuse(err, p, "missing");
        if (!json_is_integer(nanos) || json_integer_value(nanos) < 0 ||
            json_integer_value(nanos) >= 1000000000)
                return refuse(err, p, "must be an integer from 0 to 999999999");
        *ret = (struct serve_duration){.set = true,
                                       .secs = (uint64_t)json_integer_value(secs),
                                       .nanos = (uint32_t)json_integer_value(nanos)};
        return 0;
}

int serve_body_load_object(const char *body, size_t len, bool allow_nul, json_t **ret,
                           struct serve_error *err)
{
        if (len > SERVE_BODY_MAX)
                return refuse(err, "", "request body is larger than %u bytes", SERVE_BODY_MAX);
        json_error_t jerr;
        /* Duplicate keys are refused: serde errors on a repeated field and lets the last
         * repeated map key win, and a reader that keeps the first would see another request. */
        json_t *j = json_loadb(body ?: "", body ? len : 0,
                               JSON_REJECT_DUPLICATES | (allow_nul ? JSON_ALLOW_NUL : 0), &jerr);
        if (!j) {
                if (json_error_code(&jerr) == json_error_out_of_memory)
                        return -ENOMEM;
                return refuse(err, "", "malformed JSON at line %d, column %d: %s", jerr.line,
                              jerr.column, jerr.text);
        }
        if (!json_is_object(j)) {
                int r = refuse(err, "", "request body must be a JSON object, not %s",
                               json_type_name(j));
                json_decref(j);
                return r;
        }
        *ret = j;
        return 0;
}

/* FilesystemMount at @path; target normalised as harn's normalized_mount_target(). */
static int mount_from_json(json_t *v, const char *path, struct serve_mount *m,
                           struct serve_error *err)
{
        static const char *const fields[] = {"source", "target", "access", NULL};
        char p[PATH_LEN];
        if (!json_is_object(v))
                return refuse(err, path, "must be an object, not %s", json_type_name(v));
        int r = check_fields(v, path, fields, err);
        if (r < 0)
                return r;
        for (size_t i = 0; fields[i]; i++)
                if (!json_object_get(v, fields[i])) {
                        path_key(p, path, fields[i]);
                        return refuse(err, p, "missing");
                }

        path_key(p, path, "source");
        r = get_string(json_object_get(v, "source"), p, SERVE_STRING_MAX, false, &m->source, NULL,
                       err);
        if (r < 0)
                return r;

        path_key(p, path, "target");
        _cleanup_free_ char *raw = NULL;
        size_t raw_len;
        r = get_string(json_object_get(v, "target"), p, SERVE_STRING_MAX, false, &raw, &raw_len,
                       err);
        if (r < 0)
                return r;
        size_t n;
        const char *t = utf8_trim(raw, raw_len, &n);
        while (n > 0 && t[n - 1] == '/')
                n--;
        if (n == 0 || t[0] != '/')
                return refuse(err, p, "must be absolute");
        for (size_t i = 0; i < n;) {
                const char *slash = memchr(t + i, '/', n - i);
                size_t seg = slash ? (size_t)(slash - (t + i)) : n - i;
                if (seg == 2 && t[i] == '.' && t[i + 1] == '.')
                        return refuse(err, p, "must not contain a \"..\" component");
                i += seg + 1;
        }
        m->target = strndup(t, n);
        if (!m->target)
                return -ENOMEM;

        path_key(p, path, "access");
        json_t *a = json_object_get(v, "access");
        const char *s = json_string_value(a);
        if (s && streq(s, "read_only") && json_string_length(a) == 9)
                m->access = SERVE_READ_ONLY;
        else if (s && streq(s, "read_write") && json_string_length(a) == 10)
                m->access = SERVE_READ_WRITE;
        else
                return refuse(err, p, "must be \"read_only\" or \"read_write\"");
        return 0;
}

static bool host_is_valid(const char *s, size_t len)
{
        if (len == 0 || len > 253)
                return false;
        for (size_t i = 0; i < len;) {
                uint32_t cp;
                i += utf8_next(s + i, &cp);
                if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp_is_space(cp))
                        return false;
        }
        return true;
}

/* NetworkPolicy at @path: internally tagged by "mode" (or "type", not both). */
static int policy_from_json(json_t *v, const char *path, struct serve_network_policy *np,
                            struct serve_error *err)
{
        static const char *const fields[] = {"mode", "type", "allowed_hosts", NULL};
        char p[PATH_LEN];
        if (!json_is_object(v))
                return refuse(err, path, "must be an object, not %s", json_type_name(v));
        int r = check_fields(v, path, fields, err);
        if (r < 0)
                return r;
        json_t *mode = json_object_get(v, "mode"), *type = json_object_get(v, "type");
        path_key(p, path, mode ? "mode" : "type");
        if (mode && type)
                return refuse(err, p, "\"mode\" and \"type\" are the same field: give one");
        if (!mode && !type) {
                path_key(p, path, "mode");
                return refuse(err, p, "missing");
        }
        json_t *m = mode ?: type;
        const char *s = json_string_value(m);
        if (s && json_string_length(m) == strlen("unrestricted") && streq(s, "unrestricted"))
                np->limited = false;
        else if (s && json_string_length(m) == strlen("limited") && streq(s, "limited"))
                np->limited = true;
        else
                return refuse(err, p, "must be \"unrestricted\" or \"limited\"");

        json_t *hosts = json_object_get(v, "allowed_hosts");
        path_key(p, path, "allowed_hosts");
        if (!np->limited) {
                if (hosts)
                        return refuse(err, p, "only with mode \"limited\"");
                return 0;
        }
        if (!hosts)
                return refuse(err, p, "missing (an empty list denies all hosts)");
        if (!json_is_array(hosts))
                return refuse(err, p, "must be an array, not %s", json_type_name(hosts));
        size_t n = json_array_size(hosts);
        if (n > SERVE_HOSTS_MAX)
                return refuse(err, p, "more than %u hosts", SERVE_HOSTS_MAX);
        np->allowed_hosts = calloc(n + 1, sizeof(char *));
        if (!np->allowed_hosts)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                char pi[PATH_LEN];
                size_t len;
                path_index(pi, p, i);
                r = get_string(json_array_get(hosts, i), pi, 253, false,
                               &np->allowed_hosts[np->n_hosts], &len, err);
                if (r < 0)
                        return r;
                np->n_hosts++;
                if (!host_is_valid(np->allowed_hosts[i], len))
                        return refuse(err, pi,
                                      "must be a host name: not empty, no whitespace or control "
                                      "characters");
        }
        return 0;
}

static int label_cmp(const void *a, const void *b)
{
        return strcmp(((const struct serve_label *)a)->key, ((const struct serve_label *)b)->key);
}

static int labels_from_json(json_t *v, const char *path, struct serve_spec *s,
                            struct serve_error *err)
{
        if (!json_is_object(v))
                return refuse(err, path, "must be an object, not %s", json_type_name(v));
        size_t n = json_object_size(v);
        if (n > SERVE_LABELS_MAX)
                return refuse(err, path, "more than %u labels", SERVE_LABELS_MAX);
        s->labels = calloc(n ?: 1, sizeof(struct serve_label));
        if (!s->labels)
                return -ENOMEM;
        const char *key;
        size_t key_len;
        json_t *val;
        json_object_keylen_foreach(v, key, key_len, val)
        {
                char p[PATH_LEN];
                path_key(p, path, key);
                if (key_len > SERVE_STRING_MAX)
                        return refuse(err, p, "key longer than %u bytes", SERVE_STRING_MAX);
                if (strlen(key) != key_len)
                        return refuse(err, p, "key must not contain a NUL byte");
                struct serve_label *l = &s->labels[s->n_labels];
                l->key = strdup(key);
                if (!l->key)
                        return -ENOMEM;
                s->n_labels++;
                int r = get_string(val, p, SERVE_STRING_MAX, false, &l->value, NULL, err);
                if (r < 0)
                        return r;
        }
        /* BTreeMap order; keys are unique (duplicates were refused by the reader). */
        qsort(s->labels, s->n_labels, sizeof(struct serve_label), label_cmp);
        return 0;
}

static int limits_from_json(json_t *v, const char *path, struct serve_limits *l,
                            struct serve_error *err)
{
        static const char *const fields[] = {"wall_time", "cpu_count", "memory_mb", "idle_timeout",
                                             NULL};
        char p[PATH_LEN];
        if (!json_is_object(v))
                return refuse(err, path, "must be an object, not %s", json_type_name(v));
        int r = check_fields(v, path, fields, err);
        if (r < 0)
                return r;
        path_key(p, path, "wall_time");
        r = get_duration(json_object_get(v, "wall_time"), p, &l->wall_time, err);
        if (r < 0)
                return r;
        path_key(p, path, "idle_timeout");
        r = get_duration(json_object_get(v, "idle_timeout"), p, &l->idle_timeout, err);
        if (r < 0)
                return r;
        json_t *c = json_object_get(v, "cpu_count"), *m = json_object_get(v, "memory_mb");
        if (c && !json_is_null(c)) {
                path_key(p, path, "cpu_count");
                r = get_u32(c, p, &l->cpu_count, err);
                if (r < 0)
                        return r;
                l->has_cpu_count = true;
        }
        if (m && !json_is_null(m)) {
                path_key(p, path, "memory_mb");
                r = get_u32(m, p, &l->memory_mb, err);
                if (r < 0)
                        return r;
                l->has_memory_mb = true;
        }
        return 0;
}

/* An Option<String> id: absent or null leaves *@ret NULL; blank is refused. */
static int get_id(json_t *v, const char *path, char **ret, struct serve_error *err)
{
        if (!v || json_is_null(v))
                return 0;
        size_t len, tl;
        int r = get_string(v, path, SERVE_ID_MAX, false, ret, &len, err);
        if (r < 0)
                return r;
        utf8_trim(*ret, len, &tl);
        if (tl == 0)
                return refuse(err, path, "must not be empty or blank");
        return 0;
}

void serve_spec_clear(struct serve_spec *s)
{
        if (!s)
                return;
        free(s->session_id);
        for (size_t i = 0; i < s->n_labels; i++) {
                free(s->labels[i].key);
                free(s->labels[i].value);
        }
        free(s->labels);
        serve_network_policy_clear(&s->network);
        for (size_t i = 0; i < s->n_mounts; i++)
                serve_mount_clear(&s->mounts[i]);
        free(s->mounts);
        free(s->from_snapshot);
        *s = (struct serve_spec){};
}

int serve_spec_parse(const char *body, size_t len, struct serve_spec *ret, struct serve_error *err)
{
        static const char *const fields[] = {
            "session_id", "labels", "network_policy", "mounts", "limits", "from_snapshot", NULL};
        *ret = (struct serve_spec){};
        _cleanup_json_ json_t *j = NULL;
        int r = serve_body_load_object(body, len, true, &j, err);
        if (r < 0)
                return r;
        r = check_fields(j, "", fields, err);
        if (r < 0)
                return r;

        r = get_id(json_object_get(j, "session_id"), "session_id", &ret->session_id, err);
        if (r < 0)
                return r;
        r = get_id(json_object_get(j, "from_snapshot"), "from_snapshot", &ret->from_snapshot, err);
        if (r < 0)
                return r;
        json_t *v = json_object_get(j, "labels");
        if (v && (r = labels_from_json(v, "labels", ret, err)) < 0)
                return r;
        v = json_object_get(j, "network_policy");
        if (v && (r = policy_from_json(v, "network_policy", &ret->network, err)) < 0)
                return r;
        v = json_object_get(j, "limits");
        if (v && (r = limits_from_json(v, "limits", &ret->limits, err)) < 0)
                return r;
        v = json_object_get(j, "mounts");
        if (v) {
                if (!json_is_array(v))
                        return refuse(err, "mounts", "must be an array, not %s", json_type_name(v));
                size_t n = json_array_size(v);
                if (n > SERVE_MOUNTS_MAX)
                        return refuse(err, "mounts", "more than %u mounts", SERVE_MOUNTS_MAX);
                ret->mounts = calloc(n ?: 1, sizeof(struct serve_mount));
                if (!ret->mounts)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++) {
                        char p[PATH_LEN];
                        path_index(p, "mounts", i);
                        ret->n_mounts++;
                        r = mount_from_json(json_array_get(v, i), p, &ret->mounts[i], err);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

void serve_mount_clear(struct serve_mount *m)
{
        if (!m)
                return;
        free(m->source);
        free(m->target);
        *m = (struct serve_mount){};
}

int serve_mount_parse(const char *body, size_t len, struct serve_mount *ret,
                      struct serve_error *err)
{
        *ret = (struct serve_mount){};
        _cleanup_json_ json_t *j = NULL;
        int r = serve_body_load_object(body, len, true, &j, err);
        if (r < 0)
                return r;
        return mount_from_json(j, "", ret, err);
}

void serve_network_policy_clear(struct serve_network_policy *p)
{
        if (!p)
                return;
        strv_free(p->allowed_hosts);
        *p = (struct serve_network_policy){};
}

int serve_network_policy_parse(const char *body, size_t len, struct serve_network_policy *ret,
                               struct serve_error *err)
{
        *ret = (struct serve_network_policy){};
        _cleanup_json_ json_t *j = NULL;
        int r = serve_body_load_object(body, len, true, &j, err);
        if (r < 0)
                return r;
        return policy_from_json(j, "", ret, err);
}

static bool env_name_is_valid(const char *s)
{
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
                return false;
        for (s++; *s; s++)
                if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
                      (*s >= '0' && *s <= '9') || *s == '_'))
                        return false;
        return true;
}

static int env_from_json(json_t *v, struct serve_exec_request *x, struct serve_error *err)
{
        if (!json_is_object(v))
                return refuse(err, "env", "must be an object, not %s", json_type_name(v));
        size_t n = json_object_size(v);
        if (n > SERVE_ENV_MAX)
                return refuse(err, "env", "more than %u variables", SERVE_ENV_MAX);
        x->env = calloc(n + 1, sizeof(char *));
        if (!x->env)
                return -ENOMEM;
        const char *key;
        size_t key_len;
        json_t *val;
        json_object_keylen_foreach(v, key, key_len, val)
        {
                char p[PATH_LEN];
                path_key(p, "env", key);
                if (strlen(key) != key_len || !env_name_is_valid(key))
                        return refuse(err, p, "not a valid variable name ([A-Za-z_][A-Za-z0-9_]*)");
                if (key_len > SERVE_STRING_MAX)
                        return refuse(err, p, "name longer than %u bytes", SERVE_STRING_MAX);
                _cleanup_free_ char *value = NULL;
                int r = get_string(val, p, SERVE_STRING_MAX, false, &value, NULL, err);
                if (r < 0)
                        return r;
                if (asprintf(&x->env[x->n_env], "%s=%s", key, value) < 0) {
                        x->env[x->n_env] = NULL;
                        return -ENOMEM;
                }
                x->n_env++;
        }
        return 0;
}

void serve_exec_request_clear(struct serve_exec_request *r)
{
        if (!r)
                return;
        free(r->command);
        strv_free(r->args);
        free(r->cwd);
        strv_free(r->env);
        free(r->stdin_data);
        *r = (struct serve_exec_request){};
}

int serve_exec_request_parse(const char *body, size_t len, bool allow_pty,
                             struct serve_exec_request *ret, struct serve_error *err)
{
        static const char *const fields[] = {"command", "args",    "cwd", "env",
                                             "stdin",   "timeout", "pty", NULL};
        *ret = (struct serve_exec_request){};
        _cleanup_json_ json_t *j = NULL;
        int r = serve_body_load_object(body, len, true, &j, err);
        if (r < 0)
                return r;
        r = check_fields(j, "",
                         allow_pty ? fields
                                   : (const char *const[]){"command", "args", "cwd", "env", "stdin",
                                                           "timeout", NULL},
                         err);
        if (r < 0)
                return r;

        /* serde would take an absent command as "" (Default on the struct); empty is refused
         * either way, and so is blank: no program is named by whitespace alone. */
        json_t *v = json_object_get(j, "command");
        if (!v)
                return refuse(err, "command", "missing");
        size_t clen, tl;
        r = get_string(v, "command", SERVE_STRING_MAX, false, &ret->command, &clen, err);
        if (r < 0)
                return r;
        utf8_trim(ret->command, clen, &tl);
        if (tl == 0)
                return refuse(err, "command", "must not be empty");

        v = json_object_get(j, "args");
        if (v) {
                if (!json_is_array(v))
                        return refuse(err, "args", "must be an array, not %s", json_type_name(v));
                size_t n = json_array_size(v);
                if (n > SERVE_ARGS_MAX)
                        return refuse(err, "args", "more than %u arguments", SERVE_ARGS_MAX);
                ret->args = calloc(n + 1, sizeof(char *));
                if (!ret->args)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++) {
                        char p[PATH_LEN];
                        path_index(p, "args", i);
                        r = get_string(json_array_get(v, i), p, SERVE_STRING_MAX, false,
                                       &ret->args[i], NULL, err);
                        if (r < 0)
                                return r;
                        ret->n_args++;
                }
        }

        v = json_object_get(j, "cwd");
        if (v && !json_is_null(v) &&
            (r = get_string(v, "cwd", SERVE_STRING_MAX, false, &ret->cwd, NULL, err)) < 0)
                return r;

        v = json_object_get(j, "env");
        if (v && (r = env_from_json(v, ret, err)) < 0)
                return r;

        /* stdin is bounded by the body alone and may hold NUL bytes (a Rust String can). */
        v = json_object_get(j, "stdin");
        if (v && !json_is_null(v) &&
            (r = get_string(v, "stdin", SERVE_BODY_MAX, true, &ret->stdin_data, &ret->stdin_len,
                            err)) < 0)
                return r;

        r = get_duration(json_object_get(j, "timeout"), "timeout", &ret->timeout, err);
        if (r < 0)
                return r;

        v = json_object_get(j, "pty");
        if (v && !json_is_null(v)) {
                if (!json_is_boolean(v))
                        return refuse(err, "pty", "must be a boolean, not %s", json_type_name(v));
                ret->pty = json_is_true(v);
        }
        return 0;
}
