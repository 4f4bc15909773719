/* cordon-serve's store, its pure part (see serve-store.h): the records' parsers and writers,
 * the names of the snapshot directory's entries, the UUID text. No I/O. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "serve/serve-store.h"
#include "shared/json-util.h"
#include "shared/macro.h"

int serve_store_fail(int r, char *err, size_t n, const char *fmt, ...)
{
        if (n > 0) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(err, n, fmt, ap);
                va_end(ap);
        }
        return r;
}
#define fail serve_store_fail

/* A JSON string without NUL, of 1..@max bytes, copied. */
static int take_string(const json_t *o, const char *key, size_t max, char **ret, char *err,
                       size_t n)
{
        const json_t *v = json_object_get(o, key);
        if (!v)
                return fail(-EBADMSG, err, n, "%s: missing", key);
        if (!json_is_string(v))
                return fail(-EBADMSG, err, n, "%s: expected a string, found %s", key,
                            json_type_name(v));
        size_t len = json_string_length(v);
        if (len == 0 || len > max || strlen(json_string_value(v)) != len)
                return fail(-EBADMSG, err, n, "%s: empty, over %zu bytes, or holding a NUL", key,
                            max);
        char *s = strdup(json_string_value(v));
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int take_integer(const json_t *o, const char *key, json_int_t min, json_int_t max,
                        json_int_t *ret, char *err, size_t n)
{
        const json_t *v = json_object_get(o, key);
        if (!v)
                return fail(-EBADMSG, err, n, "%s: missing", key);
        if (!json_is_integer(v))
                return fail(-EBADMSG, err, n, "%s: expected an integer, found %s", key,
                            json_type_name(v));
        json_int_t x = json_integer_value(v);
        if (x < min || x > max)
                return fail(-EBADMSG, err, n, "%s: %lld is out of range", key, (long long)x);
        *ret = x;
        return 0;
}

static bool is_blank(const char *s)
{
        for (; *s; s++)
                if (!strchr(" \t\r\n\v\f", *s))
                        return false;
        return true;
}

static int take_backend(const json_t *o, char **ret, char *err, size_t n)
{
        int r = take_string(o, "backend", BACKEND_MAX, ret, err, n);
        if (r < 0)
                return r;
        for (const char *p = *ret; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
                        return fail(-EBADMSG, err, n, "backend: not a lowercase word");
        return 0;
}

static int take_session_id(const json_t *o, char **ret, char *err, size_t n)
{
        int r = take_string(o, "session_id", SERVE_ID_MAX, ret, err, n);
        if (r < 0)
                return r;
        if (is_blank(*ret))
                return fail(-EBADMSG, err, n, "session_id: blank");
        return 0;
}

static int load_object(const char *text, size_t len, json_t **ret, char *err, size_t n)
{
        if (len > HOLDER_RECORD_MAX)
                return fail(-EBADMSG, err, n, "more than %u bytes", HOLDER_RECORD_MAX);
        json_error_t je;
        json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
        if (!j)
                return fail(-EBADMSG, err, n, "not JSON: %s", je.text);
        if (!json_is_object(j)) {
                json_decref(j);
                return fail(-EBADMSG, err, n, "not a JSON object");
        }
        *ret = j;
        return 0;
}

static int check_version(const json_t *o, char *err, size_t n)
{
        json_int_t v;
        int r = take_integer(o, "version", 0, INT_MAX, &v, err, n);
        if (r < 0)
                return r;
        return v == 1 ? 0 : fail(-EBADMSG, err, n, "version: %lld is not 1", (long long)v);
}

int serve_session_record_parse(const char *text, size_t len, struct serve_session_record *ret,
                               char *err, size_t n)
{
        *ret = (struct serve_session_record){0};
        _cleanup_json_ json_t *o = NULL;
        int r = load_object(text, len, &o, err, n);
        if (r < 0)
                return r;
        if ((r = check_version(o, err, n)) < 0)
                return r;
        _cleanup_free_ char *name = NULL;
        if ((r = take_string(o, "name", HOLDER_NAME_LEN, &name, err, n)) < 0)
                return r;
        if (!holder_name_valid(name))
                return fail(-EBADMSG, err, n, "name: not %d lowercase hex digits", HOLDER_NAME_LEN);
        strcpy(ret->name, name);
        if ((r = take_session_id(o, &ret->session_id, err, n)) < 0)
                return r;
        json_int_t pid, start, created;
        if ((r = take_integer(o, "holder_pid", 1, INT32_MAX, &pid, err, n)) < 0 ||
            (r = take_integer(o, "holder_start", 0, INT64_MAX, &start, err, n)) < 0 ||
            (r = take_integer(o, "created", 0, INT64_MAX, &created, err, n)) < 0)
                return r;
        ret->holder_pid = (pid_t)pid;
        ret->holder_start = (uint64_t)start;
        ret->created = created;
        if ((r = take_string(o, "socket", sizeof(((struct sockaddr_un *)0)->sun_path) - 1,
                             &ret->socket, err, n)) < 0)
                return r;
        if (ret->socket[0] != '/')
                return fail(-EBADMSG, err, n, "socket: not an absolute path");
        return take_backend(o, &ret->backend, err, n);
}

void serve_session_record_clear(struct serve_session_record *r)
{
        free(r->session_id);
        free(r->socket);
        free(r->backend);
        *r = (struct serve_session_record){0};
}

json_t *serve_snapshot_record_to_json(const struct serve_snapshot_record *r)
{
        _cleanup_json_ json_t *md = json_object();
        if (!md)
                return NULL;
        for (size_t i = 0; i < r->n_metadata; i++)
                if (json_object_set_new(md, r->metadata[i].key,
                                        json_string_or_null(r->metadata[i].value)) < 0)
                        return NULL;
        json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:I, s:I, s:O}", "version", 1, "snapshot_id",
                              r->id, "session_id", strempty(r->session_id), "backend",
                              strempty(r->backend), "created", (json_int_t)r->created, "size",
                              (json_int_t)r->size, "metadata", md);
        return o;
}

static void labels_free(struct serve_label *l, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(l[i].key);
                free(l[i].value);
        }
        free(l);
}

int serve_snapshot_record_parse(const char *text, size_t len, struct serve_snapshot_record *ret,
                                char *err, size_t n)
{
        *ret = (struct serve_snapshot_record){0};
        _cleanup_json_ json_t *o = NULL;
        int r = load_object(text, len, &o, err, n);
        if (r < 0)
                return r;
        static const char *const known[] = {"version", "snapshot_id", "session_id", "backend",
                                            "created", "size",        "metadata"};
        const char *key;
        json_t *v;
        json_object_foreach(o, key, v)
        {
                bool found = false;
                for (size_t i = 0; i < ELEMENTSOF(known); i++)
                        found = found || streq(key, known[i]);
                if (!found)
                        return fail(-EBADMSG, err, n, "%s: unknown field", key);
        }
        if ((r = check_version(o, err, n)) < 0)
                return r;
        _cleanup_free_ char *id = NULL;
        if ((r = take_string(o, "snapshot_id", HOLDER_NAME_LEN, &id, err, n)) < 0)
                return r;
        if (!holder_name_valid(id))
                return fail(-EBADMSG, err, n, "snapshot_id: not %d lowercase hex digits",
                            HOLDER_NAME_LEN);
        strcpy(ret->id, id);
        json_int_t created, size;
        if ((r = take_session_id(o, &ret->session_id, err, n)) < 0 ||
            (r = take_backend(o, &ret->backend, err, n)) < 0 ||
            (r = take_integer(o, "created", 0, INT64_MAX, &created, err, n)) < 0 ||
            (r = take_integer(o, "size", 0, INT64_MAX, &size, err, n)) < 0)
                return r;
        ret->created = created;
        ret->size = (uint64_t)size;
        json_t *md = json_object_get(o, "metadata");
        if (!json_is_object(md))
                return fail(-EBADMSG, err, n, "metadata: expected an object, found %s",
                            md ? json_type_name(md) : "nothing");
        if (json_object_size(md) > SERVE_SNAPSHOT_METADATA_MAX)
                return fail(-EBADMSG, err, n, "metadata: more than %d entries",
                            SERVE_SNAPSHOT_METADATA_MAX);
        ret->metadata = calloc(json_object_size(md) ?: 1, sizeof(*ret->metadata));
        if (!ret->metadata)
                return -ENOMEM;
        json_object_foreach(md, key, v)
        {
                if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v) ||
                    json_string_length(v) > SERVE_STRING_MAX)
                        return fail(-EBADMSG, err, n, "metadata.%s: not a string", key);
                struct serve_label *l = &ret->metadata[ret->n_metadata];
                l->key = strdup(key);
                l->value = strdup(json_string_value(v));
                ret->n_metadata++;
                if (!l->key || !l->value)
                        return -ENOMEM;
        }
        return 0;
}

void serve_snapshot_record_clear(struct serve_snapshot_record *r)
{
        free(r->session_id);
        free(r->backend);
        labels_free(r->metadata, r->n_metadata);
        *r = (struct serve_snapshot_record){0};
}

json_t *serve_snapshot_record_view(const struct serve_snapshot_record *r)
{
        return serve_snapshot_to_json(&(struct serve_snapshot_view){.session_id = r->session_id,
                                                                    .backend = r->backend,
                                                                    .snapshot_id = r->id,
                                                                    .metadata = r->metadata,
                                                                    .n_metadata = r->n_metadata});
}

/* ".tar.zst.HEX.tmp", HEX 16 hex digits: the rest of the name snapshot-publish.c gives the
 * archive while it is written. */
static bool archive_temp(const char *rest)
{
        const char *p = startswith(rest, ARCHIVE_SUFFIX ".");
        if (!p || strlen(p) != 16 + 4 || !streq(p + 16, ".tmp"))
                return false;
        for (size_t i = 0; i < 16; i++)
                if (unhexchar(p[i]) < 0)
                        return false;
        return true;
}

enum serve_snapshot_entry serve_snapshot_entry_kind(const char *name,
                                                    char ret_id[HOLDER_NAME_LEN + 1])
{
        /* ".ID.json.tmp" (ours) or ".ID.tar.zst.HEX.tmp" (the archive writer's). */
        bool temp = name[0] == '.';
        const char *p = temp ? name + 1 : name;
        if (strlen(p) < HOLDER_NAME_LEN)
                return SERVE_SNAPSHOT_ENTRY_OTHER;
        char id[HOLDER_NAME_LEN + 1];
        memcpy(id, p, HOLDER_NAME_LEN);
        id[HOLDER_NAME_LEN] = 0;
        if (!holder_name_valid(id))
                return SERVE_SNAPSHOT_ENTRY_OTHER;
        const char *rest = p + HOLDER_NAME_LEN;
        enum serve_snapshot_entry kind = SERVE_SNAPSHOT_ENTRY_OTHER;
        if (!temp && streq(rest, RECORD_SUFFIX))
                kind = SERVE_SNAPSHOT_ENTRY_RECORD;
        else if (!temp && streq(rest, ARCHIVE_SUFFIX))
                kind = SERVE_SNAPSHOT_ENTRY_ARCHIVE;
        else if (temp && (streq(rest, RECORD_SUFFIX ".tmp") || archive_temp(rest)))
                kind = SERVE_SNAPSHOT_ENTRY_TEMP;
        if (kind != SERVE_SNAPSHOT_ENTRY_OTHER)
                strcpy(ret_id, id);
        return kind;
}

void serve_uuid_format(const uint8_t b[16], char ret[37])
{
        uint8_t u[16];
        memcpy(u, b, 16);
        u[6] = (uint8_t)((u[6] & 0x0f) | 0x40); /* version 4 */
        u[8] = (uint8_t)((u[8] & 0x3f) | 0x80); /* variant 10 */
        static const char hex[] = "0123456789abcdef";
        char *p = ret;
        for (int i = 0; i < 16; i++) {
                if (i == 4 || i == 6 || i == 8 || i == 10)
                        *p++ = '-';
                *p++ = hex[u[i] >> 4];
                *p++ = hex[u[i] & 15];
        }
        *p = 0;
}
