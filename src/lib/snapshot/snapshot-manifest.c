/* The snapshot manifest and the naming rules the writer and the restorer share. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/policy/diag.h"
#include "lib/snapshot/snapshot-manifest.h"
#include "shared/json-util.h"
#include "shared/macro.h"

const struct cordon_snapshot_limits cordon_snapshot_limits_default = {
    .max_entries = 500000,
    .max_total_bytes = UINT64_C(16) << 30,
    .max_file_bytes = UINT64_C(4) << 30,
    .max_path = 4096,
    .max_manifest = UINT64_C(64) << 20,
};

bool cordon_snapshot_tree_name_is_valid(const char *name)
{
        if (!name || !*name || *name == '.' || strlen(name) > SNAPSHOT_TREE_NAME_MAX ||
            streq(name, CORDON_SNAPSHOT_MANIFEST_NAME))
                return false;
        for (const char *p = name; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
                        return false;
        return true;
}

int cordon_snapshot_check_dirs(const struct cordon_snapshot_dir *dirs, size_t n,
                               struct cordon_diag *diag)
{
        if (!dirs || n == 0 || n > CORDON_SNAPSHOT_TREES_MAX)
                return cordon_diag_set(diag, -EINVAL, "a snapshot holds 1 to %d trees, not %zu",
                                       CORDON_SNAPSHOT_TREES_MAX, dirs ? n : 0);
        for (size_t i = 0; i < n; i++) {
                if (!cordon_snapshot_tree_name_is_valid(dirs[i].name))
                        return cordon_diag_set(diag, -EINVAL,
                                               "tree name '%s' is not letters, digits, '.', '_' "
                                               "and '-' (at most %d, not starting with '.', "
                                               "not the manifest's name)",
                                               strempty(dirs[i].name), SNAPSHOT_TREE_NAME_MAX);
                if (dirs[i].dirfd < 0)
                        return cordon_diag_set(diag, -EINVAL, "tree '%s' has no descriptor",
                                               dirs[i].name);
                for (size_t j = 0; j < i; j++)
                        if (streq(dirs[i].name, dirs[j].name))
                                return cordon_diag_set(diag, -EINVAL, "tree '%s' is named twice",
                                                       dirs[i].name);
        }
        return 0;
}

bool cordon_snapshot_link_is_safe(const char *target, size_t depth)
{
        if (!target || !*target || *target == '/')
                return false;
        bool leading = true;
        size_t up = 0;
        for (const char *p = target; *p;) {
                const char *e = strchrnul(p, '/');
                size_t len = (size_t)(e - p);
                if (len == 2 && p[0] == '.' && p[1] == '.') {
                        if (!leading || ++up > depth)
                                return false;
                } else if (len > 0 && !(len == 1 && p[0] == '.'))
                        leading = false;
                p = *e ? e + 1 : e;
        }
        return true;
}

char *cordon_snapshot_path_key(const char *path)
{
        size_t n = 0;
        for (const unsigned char *p = (const unsigned char *)path; *p; p++)
                n += (*p >= 0x20 && *p < 0x7f && *p != '%') ? 1 : 3;
        char *key = malloc(n + 1), *q = key;
        if (!key)
                return NULL;
        static const char hex[] = "0123456789ABCDEF";
        for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
                if (*p >= 0x20 && *p < 0x7f && *p != '%')
                        *q++ = (char)*p;
                else {
                        *q++ = '%';
                        *q++ = hex[*p >> 4];
                        *q++ = hex[*p & 15];
                }
        }
        *q = 0;
        return key;
}

void cordon_snapshot_hex(const uint8_t digest[SNAPSHOT_SHA256_SIZE], char ret[65])
{
        static const char hex[] = "0123456789abcdef";
        for (size_t i = 0; i < SNAPSHOT_SHA256_SIZE; i++) {
                ret[2 * i] = hex[digest[i] >> 4];
                ret[2 * i + 1] = hex[digest[i] & 15];
        }
        ret[64] = 0;
}

int cordon_snapshot_manifest_new(const char *extra_json, json_t **ret, struct cordon_diag *diag)
{
        _cleanup_json_ json_t *extra = NULL;
        if (extra_json) {
                json_error_t err;
                extra = json_loads(extra_json, JSON_REJECT_DUPLICATES, &err);
                if (!extra)
                        return cordon_diag_set(diag, -EINVAL,
                                               "manifest_extra_json: line %d column %d: %s",
                                               err.line, err.column, err.text);
                if (!json_is_object(extra))
                        return cordon_diag_set(diag, -EINVAL,
                                               "manifest_extra_json is %s, not an object",
                                               json_type_name(extra));
        }
        char created[32];
        struct tm tm;
        time_t now = time(NULL);
        if (!gmtime_r(&now, &tm) ||
            strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                return -EINVAL;
        _cleanup_json_ json_t *m =
            json_pack("{s:s, s:i, s:s, s:O?, s:{}, s:[]}", "format", CORDON_SNAPSHOT_FORMAT,
                      "version", (json_int_t)CORDON_SNAPSHOT_VERSION, "created", created, "extra",
                      extra, "files", "skipped");
        if (!m)
                return -ENOMEM;
        *ret = TAKE_PTR(m);
        return 0;
}

int cordon_snapshot_manifest_finish(json_t *m, const struct cordon_snapshot_dir *dirs,
                                    const struct snapshot_tree_counts *counts, size_t n,
                                    uint64_t max, char **ret_text, size_t *ret_len,
                                    struct cordon_diag *diag)
{
        json_t *trees = json_array();
        if (!trees || json_object_set_new(m, "trees", trees) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const struct snapshot_tree_counts *c = &counts[i];
                json_t *t =
                    json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "name", dirs[i].name,
                              "entries", (json_int_t)c->entries, "files", (json_int_t)c->files,
                              "dirs", (json_int_t)c->dirs, "symlinks", (json_int_t)c->symlinks,
                              "bytes", (json_int_t)c->bytes, "skipped", (json_int_t)c->skipped);
                if (!t || json_array_append_new(trees, t) < 0)
                        return -ENOMEM;
        }
        /* Compact: the sha256 of every file makes it long enough. */
        char *text = json_dumps(m, JSON_COMPACT);
        if (!text)
                return -ENOMEM;
        size_t len = strlen(text);
        if (len > max) {
                free(text);
                return cordon_diag_set(diag, -EFBIG,
                                       "the manifest would be %zu bytes, more than the %llu a "
                                       "restore reads",
                                       len, (unsigned long long)max);
        }
        *ret_text = text;
        *ret_len = len;
        return 0;
}

static bool is_sha256_hex(const char *s)
{
        size_t i = 0;
        for (; s[i]; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return i == 2 * SNAPSHOT_SHA256_SIZE;
}

int cordon_snapshot_manifest_parse(const char *text, size_t len, uint64_t max_files,
                                   json_t **ret_files, struct cordon_diag *diag)
{
        json_error_t err;
        _cleanup_json_ json_t *m = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
        if (!m)
                return cordon_diag_set(diag, -EBADMSG, "manifest: line %d column %d: %s", err.line,
                                       err.column, err.text);
        if (!json_is_object(m))
                return cordon_diag_set(diag, -EBADMSG, "manifest is %s, not an object",
                                       json_type_name(m));
        const char *format = json_string_value(json_object_get(m, "format"));
        if (!format || !streq(format, CORDON_SNAPSHOT_FORMAT))
                return cordon_diag_set(diag, -EBADMSG, "manifest: /format is not \"%s\"",
                                       CORDON_SNAPSHOT_FORMAT);
        json_t *version = json_object_get(m, "version");
        if (!json_is_integer(version))
                return cordon_diag_set(diag, -EBADMSG, "manifest: /version is not a number");
        if (json_integer_value(version) != CORDON_SNAPSHOT_VERSION)
                return cordon_diag_set(
                    diag, -EOPNOTSUPP, "manifest: /version %lld, this cordon reads version %d",
                    (long long)json_integer_value(version), CORDON_SNAPSHOT_VERSION);
        json_t *files = json_object_get(m, "files");
        if (!json_is_object(files))
                return cordon_diag_set(diag, -EBADMSG, "manifest: /files is not an object");
        if (json_object_size(files) > max_files)
                return cordon_diag_set(diag, -E2BIG,
                                       "manifest: /files lists %zu files, more "
                                       "than the %llu entries allowed",
                                       json_object_size(files), (unsigned long long)max_files);
        const char *key;
        json_t *v;
        json_object_foreach(files, key, v)
        {
                const char *s = json_string_value(v);
                if (!s || !is_sha256_hex(s))
                        return cordon_diag_set(diag, -EBADMSG,
                                               "manifest: /files/%s is not a sha256 in hex", key);
        }
        *ret_files = json_incref(files);
        return 0;
}
