/* NetworkPolicy: the JSON parser (every error names the source and the JSON pointer), the
 * writer, and the rules a limited policy stands for. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/net/net-policy.h"
#include "lib/policy/diag.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

static const char *const mode_names[] = {
    [CORDON_NET_POLICY_UNRESTRICTED] = "unrestricted",
    [CORDON_NET_POLICY_LIMITED] = "limited",
};

void cordon_net_policy_init(struct cordon_net_policy *p)
{
        *p = (struct cordon_net_policy){.mode = CORDON_NET_POLICY_UNRESTRICTED};
}

void cordon_net_policy_clear(struct cordon_net_policy *p)
{
        if (!p)
                return;
        strv_free(p->allowed_hosts);
        cordon_net_policy_init(p);
}

/* Fails with -EINVAL: "SOURCE: POINTER: MESSAGE". */
_printf_(4, 5) static int fail(struct cordon_diag *diag, const char *source, const char *ptr,
                               const char *fmt, ...)
{
        char msg[sizeof(diag->message)];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return cordon_diag_set(diag, -EINVAL, "%s: %s: %s", source, ptr, msg);
}

/* The mode named by the string @v at @ptr. */
static int parse_mode(json_t *v, const char *source, const char *ptr, struct cordon_diag *diag,
                      enum cordon_net_policy_mode *ret)
{
        if (!json_is_string(v))
                return fail(diag, source, ptr, "expected a string, got %s", json_type_name(v));
        const char *s = json_string_value(v);
        size_t len = json_string_length(v);
        for (size_t i = 0; i < ELEMENTSOF(mode_names); i++)
                if (strlen(mode_names[i]) == len && memcmp(s, mode_names[i], len) == 0) {
                        *ret = (enum cordon_net_policy_mode)i;
                        return 0;
                }
        char q[CORDON_NET_QUOTE_MAX];
        cordon_net_quote(q, sizeof(q), s, len);
        return fail(diag, source, ptr, "unknown mode \"%s\" (expected unrestricted or limited)", q);
}

static int parse_hosts(json_t *v, const char *source, struct cordon_diag *diag, char ***ret)
{
        if (!json_is_array(v))
                return fail(diag, source, "/allowed_hosts", "expected an array, got %s",
                            json_type_name(v));
        if (json_array_size(v) > CORDON_NET_POLICY_MAX_HOSTS)
                return fail(diag, source, "/allowed_hosts", "more than %d hosts (the limit)",
                            CORDON_NET_POLICY_MAX_HOSTS);
        _cleanup_strv_free_ char **l = calloc(json_array_size(v) + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
                char ptr[64];
                snprintf(ptr, sizeof(ptr), "/allowed_hosts/%zu", i);
                if (!json_is_string(e))
                        return fail(diag, source, ptr, "expected a string, got %s",
                                    json_type_name(e));
                const char *s = json_string_value(e), *why = NULL;
                size_t len = json_string_length(e);
                char q[CORDON_NET_QUOTE_MAX];
                cordon_net_quote(q, sizeof(q), s, len);
                if (memchr(s, 0, len))
                        return fail(diag, source, ptr, "\"%s\": a NUL byte is not allowed", q);
                if (cordon_net_pattern_check(s, &why) < 0)
                        return fail(diag, source, ptr, "\"%s\": %s", q, why);
                l[i] = strdup(s);
                if (!l[i])
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

static int parse_top(json_t *root, const char *source, struct cordon_diag *diag,
                     struct cordon_net_policy *p)
{
        if (!json_is_object(root))
                return fail(diag, source, "top level", "expected an object, got %s",
                            json_type_name(root));
        json_t *mode = json_object_get(root, "mode"), *type = json_object_get(root, "type"),
               *hosts = json_object_get(root, "allowed_hosts");
        const char *key;
        json_t *e;
        json_object_foreach(root, key, e)
        {
                if (streq(key, "mode") || streq(key, "type") || streq(key, "allowed_hosts"))
                        continue;
                char q[CORDON_NET_QUOTE_MAX];
                /* A key with a NUL byte is cut there; the message names the part before. */
                cordon_net_quote(q, sizeof(q), key, strlen(key));
                /* Its JSON pointer (RFC 6901: "~" is "~0", "/" is "~1"), of the quoted form. */
                char ptr[2 * CORDON_NET_QUOTE_MAX + 2] = "/";
                size_t n = 1;
                for (const char *c = q; *c && n + 3 < sizeof(ptr); c++) {
                        if (*c == '~' || *c == '/') {
                                ptr[n++] = '~';
                                ptr[n++] = *c == '~' ? '0' : '1';
                        } else
                                ptr[n++] = *c;
                }
                ptr[n] = 0;
                return fail(diag, source, ptr,
                            "unknown key (expected mode, type or allowed_hosts)");
        }
        if (!mode && !type)
                return fail(diag, source, "top level", "missing key \"mode\"");
        enum cordon_net_policy_mode m = CORDON_NET_POLICY_UNRESTRICTED, t = m;
        int r;
        if (mode && (r = parse_mode(mode, source, "/mode", diag, &m)) < 0)
                return r;
        if (type && (r = parse_mode(type, source, "/type", diag, &t)) < 0)
                return r;
        if (mode && type && m != t)
                return fail(diag, source, "/type", "\"%s\" disagrees with mode \"%s\"",
                            mode_names[t], mode_names[m]);
        if (!mode)
                m = t;

        if (m == CORDON_NET_POLICY_UNRESTRICTED) {
                if (hosts)
                        return fail(diag, source, "/allowed_hosts",
                                    "not allowed with mode \"unrestricted\"");
                p->mode = m;
                return 0;
        }
        if (!hosts)
                return fail(diag, source, "top level",
                            "missing key \"allowed_hosts\" (required with mode \"limited\"; "
                            "[] denies everything)");
        r = parse_hosts(hosts, source, diag, &p->allowed_hosts);
        if (r < 0)
                return r;
        p->mode = m;
        return 0;
}

int cordon_net_policy_parse(const char *json, size_t len, const char *source,
                            struct cordon_net_policy *ret, struct cordon_diag *diag)
{
        source = source ?: "network policy";
        if (!json)
                return cordon_diag_set(diag, -EINVAL, "%s: no input", source);
        if (len > CORDON_NET_POLICY_MAX_BYTES)
                return cordon_diag_set(diag, -EFBIG, "%s: larger than %d bytes", source,
                                       CORDON_NET_POLICY_MAX_BYTES);
        /* Duplicate keys are refused rather than resolved: two readers of one file must not
         * disagree about which value counts. NUL is let through the JSON parser so that the
         * message can say where it is. */
        json_error_t err;
        _cleanup_json_ json_t *root =
            json_loadb(json, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_ANY, &err);
        if (!root) {
                if (json_error_code(&err) == json_error_out_of_memory)
                        return -ENOMEM;
                /* jansson quotes the input near the error: keep the message one printable line. */
                char text[sizeof(err.text)];
                size_t i = 0;
                for (; err.text[i] && i + 1 < sizeof(text); i++) {
                        unsigned char c = (unsigned char)err.text[i];
                        text[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
                }
                text[i] = 0;
                if (err.line > 0)
                        return cordon_diag_set(diag, -EINVAL, "%s:%d:%d: %s", source, err.line,
                                               err.column, text);
                return cordon_diag_set(diag, -EINVAL, "%s: %s", source, text);
        }
        struct cordon_net_policy p;
        cordon_net_policy_init(&p);
        int r = parse_top(root, source, diag, &p);
        if (r < 0) {
                cordon_net_policy_clear(&p);
                return r;
        }
        *ret = p;
        return 0;
}

int cordon_net_policy_to_json(const struct cordon_net_policy *p, char **ret)
{
        if (!p ||
            (p->mode != CORDON_NET_POLICY_UNRESTRICTED && p->mode != CORDON_NET_POLICY_LIMITED))
                return -EINVAL;
        _cleanup_json_ json_t *root = json_object();
        if (!root || json_object_set_new(root, "mode", json_string(mode_names[p->mode])) < 0)
                return -ENOMEM;
        if (p->mode == CORDON_NET_POLICY_LIMITED) {
                json_t *a = json_array();
                if (!a || json_object_set_new(root, "allowed_hosts", a) < 0)
                        return -ENOMEM;
                STRV_FOREACH (h, p->allowed_hosts) {
                        json_t *s = json_string(*h);
                        if (!s) {
                                /* Not UTF-8 (no parse gives that), or out of memory. */
                                json_t *probe = json_string_nocheck(*h);
                                int k = probe ? -EINVAL : -ENOMEM;
                                json_decref(probe);
                                return k;
                        }
                        if (json_array_append_new(a, s) < 0)
                                return -ENOMEM;
                }
        }
        char *s = json_dumps(root, JSON_COMPACT);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int cordon_net_policy_add_rules(const struct cordon_net_policy *p, struct cordon_net_rules *rules,
                                const char *source, struct cordon_diag *diag)
{
        if (!p || !rules)
                return -EINVAL;
        if (p->mode != CORDON_NET_POLICY_LIMITED)
                return 0;
        source = source ?: "network policy";
        _cleanup_free_ char *origin = NULL;
        if (asprintf(&origin, "%s /mode", source) < 0)
                return -ENOMEM;
        int r = cordon_net_rules_add(rules, "*", false, origin, diag);
        if (r < 0)
                return r;
        for (size_t i = 0; p->allowed_hosts && p->allowed_hosts[i]; i++) {
                free(origin);
                origin = NULL;
                if (asprintf(&origin, "%s /allowed_hosts/%zu", source, i) < 0)
                        return -ENOMEM;
                r = cordon_net_rules_add(rules, p->allowed_hosts[i], true, origin, diag);
                if (r < 0)
                        return r;
        }
        return 0;
}
