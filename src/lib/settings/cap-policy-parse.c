/* Capability policies: the JSON parser. Every error names the source, the key and its JSON
 * pointer; root lists come out canonical (see cap-policy.c). */
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/settings/cap-policy-internal.h"
#include "lib/policy/diag.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

struct parse_ctx {
        const char *source;
        struct cordon_diag *diag;
        char ptr[512]; /* JSON pointer of the value being parsed, for messages */
        size_t ptr_len;
};

static size_t ptr_push(struct parse_ctx *c, const char *key)
{
        size_t old = c->ptr_len;
        char esc[QUOTE_MAX * 4 + 8];
        cordon_cap_escape(esc, sizeof(esc), key, strlen(key), ESCAPE_POINTER);
        snprintf(c->ptr + old, sizeof(c->ptr) - old, "/%s", esc);
        c->ptr_len = strlen(c->ptr);
        return old;
}

static size_t ptr_push_index(struct parse_ctx *c, size_t i)
{
        size_t old = c->ptr_len;
        snprintf(c->ptr + old, sizeof(c->ptr) - old, "/%zu", i);
        c->ptr_len = strlen(c->ptr);
        return old;
}

static void ptr_pop(struct parse_ctx *c, size_t old)
{
        c->ptr_len = old;
        c->ptr[old] = 0;
}

/* Fails with -EINVAL: "SOURCE: POINTER: MESSAGE". */
_printf_(2, 3) static int fail(struct parse_ctx *c, const char *fmt, ...)
{
        char msg[sizeof(c->diag->message)];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return cordon_diag_set(c->diag, -EINVAL, "%s: %s: %s", c->source,
                               c->ptr_len ? c->ptr : "top level", msg);
}

/* A string value without NUL bytes (the parser allows \u0000 so that it can say where). */
static int get_string(struct parse_ctx *c, json_t *v, const char **ret, size_t *ret_len)
{
        /* Set on every path: fail() returns whatever cordon_diag_set() does, which the compiler
         * cannot see is negative. */
        *ret = NULL;
        if (ret_len)
                *ret_len = 0;
        if (!json_is_string(v))
                return fail(c, "expected a string, got %s", json_type_name(v));
        const char *s = json_string_value(v);
        size_t len = json_string_length(v);
        if (memchr(s, 0, len))
                return fail(c, "a NUL byte is not allowed in a string");
        *ret = s;
        if (ret_len)
                *ret_len = len;
        return 0;
}

static int get_array(struct parse_ctx *c, json_t *v)
{
        if (!json_is_array(v))
                return fail(c, "expected an array, got %s", json_type_name(v));
        if (json_array_size(v) > CORDON_CAP_POLICY_MAX_ENTRIES)
                return fail(c, "more than %d entries (the limit)", CORDON_CAP_POLICY_MAX_ENTRIES);
        return 0;
}

static int fail_unknown_key(struct parse_ctx *c, const char *key, const char *expected)
{
        char esc[QUOTE_MAX * 4 + 8];
        cordon_cap_escape(esc, sizeof(esc), key, strlen(key), ESCAPE_QUOTED);
        return fail(c, "unknown key \"%s\" (expected %s)", esc, expected);
}

static void join_names(char *buf, size_t size, const char *const *names, size_t n)
{
        size_t o = 0;
        buf[0] = 0;
        for (size_t i = 0; i < n && o < size; i++)
                o += (size_t)snprintf(buf + o, size - o, "%s%s",
                                      i == 0       ? ""
                                      : i + 1 == n ? " or "
                                                   : ", ",
                                      names[i]);
}

/* An array of names from @names; sets bit (i + @shift) for names[i]. Repeats are harmless. */
static int parse_names(struct parse_ctx *c, json_t *v, const char *const *names, size_t n,
                       unsigned shift, const char *what, unsigned *ret)
{
        int r = get_array(c, v);
        if (r < 0)
                return r;
        unsigned bits = 0;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
                size_t old = ptr_push_index(c, i);
                const char *s;
                r = get_string(c, e, &s, NULL);
                if (r < 0)
                        return r;
                size_t k = 0;
                while (k < n && !streq(s, names[k]))
                        k++;
                if (k == n) {
                        char esc[QUOTE_MAX * 4 + 8], expected[256];
                        cordon_cap_escape(esc, sizeof(esc), s, strlen(s), ESCAPE_QUOTED);
                        join_names(expected, sizeof(expected), names, n);
                        return fail(c, "unknown %s \"%s\" (expected %s)", what, esc, expected);
                }
                bits |= 1u << (k + shift);
                ptr_pop(c, old);
        }
        *ret = bits;
        return 0;
}

static bool has_dotdot(const char *s)
{
        for (const char *p = strstr(s, ".."); p; p = strstr(p + 1, ".."))
                if ((p == s || p[-1] == '/') && (p[2] == 0 || p[2] == '/'))
                        return true;
        return false;
}

static int parse_roots(struct parse_ctx *c, json_t *v, char ***ret)
{
        int r = get_array(c, v);
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **l = calloc(json_array_size(v) + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        size_t i, n = 0;
        json_t *e;
        json_array_foreach(v, i, e)
        {
                size_t old = ptr_push_index(c, i);
                const char *s;
                size_t len;
                char esc[QUOTE_MAX * 4 + 8];
                r = get_string(c, e, &s, &len);
                if (r < 0)
                        return r;
                cordon_cap_escape(esc, sizeof(esc), s, len, ESCAPE_QUOTED);
                if (len == 0)
                        return fail(c, "a root must not be empty");
                if (len >= PATH_MAX)
                        return fail(c, "a root must be shorter than %d bytes", PATH_MAX);
                if (!path_is_absolute(s))
                        return fail(c, "a root must be an absolute path: \"%s\"", esc);
                if (has_dotdot(s))
                        return fail(c, "\"..\" is not allowed in a root: \"%s\"", esc);
                r = path_normalize(s, &l[n]);
                if (r < 0)
                        return r;
                n++;
                ptr_pop(c, old);
        }
        cordon_cap_roots_minimize(l, n, true);
        if (!l[0])
                l = strv_free(l);
        *ret = TAKE_PTR(l);
        return 0;
}

static int parse_capabilities(struct parse_ctx *c, json_t *v, struct cordon_cap_policy *p)
{
        if (json_is_null(v))
                return 0;
        if (!json_is_object(v))
                return fail(c, "expected an object or null, got %s", json_type_name(v));
        if (json_object_size(v) == 0)
                return 0; /* {}: no ceiling, like null */
        p->has_capabilities = true;
        const char *key;
        json_t *e;
        json_object_foreach(v, key, e)
        {
                size_t old = ptr_push(c, key);
                unsigned bits = 0;
                int r;
                if (streq(key, "workspace"))
                        r = parse_names(c, e, cordon_cap_workspace_op_names,
                                        ELEMENTSOF(cordon_cap_workspace_op_names), 0,
                                        "workspace capability", &bits);
                else if (streq(key, "process"))
                        r = parse_names(c, e, cordon_cap_process_op_names,
                                        ELEMENTSOF(cordon_cap_process_op_names), PROCESS_OP_SHIFT,
                                        "process capability", &bits);
                else
                        r = fail_unknown_key(c, key, "workspace or process");
                if (r < 0)
                        return r;
                p->capabilities |= bits;
                ptr_pop(c, old);
        }
        return 0;
}

static int parse_process_sandbox(struct parse_ctx *c, json_t *v, struct cordon_cap_policy *p)
{
        if (json_is_null(v))
                return 0;
        if (!json_is_object(v))
                return fail(c, "expected an object or null, got %s", json_type_name(v));
        const char *key;
        json_t *e;
        json_object_foreach(v, key, e)
        {
                size_t old = ptr_push(c, key);
                int r;
                if (streq(key, "presets")) {
                        p->presets_default = json_is_null(e);
                        p->presets = 0;
                        r = json_is_null(e) ? 0
                                            : parse_names(c, e, cordon_cap_preset_names,
                                                          ELEMENTSOF(cordon_cap_preset_names), 0,
                                                          "preset", &p->presets);
                } else if (streq(key, "read_roots"))
                        r = parse_roots(c, e, &p->read_roots);
                else if (streq(key, "write_roots"))
                        r = parse_roots(c, e, &p->write_roots);
                else
                        r = fail_unknown_key(c, key, "presets, read_roots or write_roots");
                if (r < 0)
                        return r;
                ptr_pop(c, old);
        }
        return 0;
}

static int parse_enum(struct parse_ctx *c, json_t *v, int (*from_string)(const char *),
                      const char *what, const char *expected, int *ret)
{
        const char *s;
        int r = get_string(c, v, &s, NULL);
        if (r < 0)
                return r;
        r = from_string(s);
        if (r < 0) {
                char esc[QUOTE_MAX * 4 + 8];
                cordon_cap_escape(esc, sizeof(esc), s, strlen(s), ESCAPE_QUOTED);
                return fail(c, "unknown %s \"%s\" (expected %s)", what, esc, expected);
        }
        *ret = r;
        return 0;
}

static int parse_top(struct parse_ctx *c, json_t *v, struct cordon_cap_policy *p)
{
        if (!json_is_object(v))
                return fail(c, "expected an object, got %s", json_type_name(v));
        const char *key;
        json_t *e;
        json_object_foreach(v, key, e)
        {
                size_t old = ptr_push(c, key);
                int r, value = 0;
                if (streq(key, "capabilities"))
                        r = parse_capabilities(c, e, p);
                else if (streq(key, "workspace_roots"))
                        r = parse_roots(c, e, &p->workspace_roots);
                else if (streq(key, "read_only_roots"))
                        r = parse_roots(c, e, &p->read_only_roots);
                else if (streq(key, "sandbox_profile")) {
                        r = parse_enum(c, e, cordon_profile_from_string, "sandbox profile",
                                       "unrestricted, worktree, wasi or os_hardened", &value);
                        p->profile = (enum cordon_profile)value;
                } else if (streq(key, "side_effect_level")) {
                        p->has_side_effect_level = !json_is_null(e);
                        r = json_is_null(e) ? 0
                                            : parse_enum(c, e, cordon_side_effect_from_string,
                                                         "side-effect level",
                                                         "none, read_only, workspace_write, "
                                                         "process_exec or network",
                                                         &value);
                        p->side_effect_level = (enum cordon_side_effect)value;
                } else if (streq(key, "process_sandbox"))
                        r = parse_process_sandbox(c, e, p);
                else
                        r = fail_unknown_key(c, key,
                                             "capabilities, workspace_roots, read_only_roots, "
                                             "sandbox_profile, side_effect_level or "
                                             "process_sandbox");
                if (r < 0)
                        return r;
                ptr_pop(c, old);
        }
        return 0;
}

int cordon_cap_policy_parse(const char *json, size_t len, const char *source,
                            struct cordon_cap_policy *ret, struct cordon_diag *diag)
{
        struct parse_ctx c = {.source = source ?: "policy", .diag = diag};
        if (len > CORDON_CAP_POLICY_MAX_BYTES)
                return cordon_diag_set(diag, -EFBIG, "%s: larger than %d bytes", c.source,
                                       CORDON_CAP_POLICY_MAX_BYTES);

        /* Duplicate keys are refused rather than resolved: two readers of one file must not
         * disagree about which value counts. */
        json_error_t err;
        _cleanup_json_ json_t *root =
            json_loadb(json, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_ANY, &err);
        if (!root) {
                if (json_error_code(&err) == json_error_out_of_memory)
                        return -ENOMEM;
                char text[sizeof(err.text) * 4];
                cordon_cap_escape(text, sizeof(text), err.text, strlen(err.text), ESCAPE_TEXT);
                if (err.line > 0)
                        return cordon_diag_set(diag, -EINVAL, "%s:%d:%d: %s", c.source, err.line,
                                               err.column, text);
                return cordon_diag_set(diag, -EINVAL, "%s: %s", c.source, text);
        }

        _cleanup_(cordon_cap_policy_clear) struct cordon_cap_policy p;
        cordon_cap_policy_init(&p);
        int r = parse_top(&c, root, &p);
        if (r < 0)
                return r;
        *ret = p;
        cordon_cap_policy_init(&p); /* ownership moved to *ret */
        return 0;
}
