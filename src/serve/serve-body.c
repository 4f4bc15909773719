/* cordon-serve's own small request shapes (see serve-body.h). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-body.h"
#include "shared/json-util.h"
#include "shared/macro.h"

int serve_percent_decode(const char *s, size_t len, char **ret)
{
        char *out = malloc(len + 1);
        if (!out)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (c == '%') {
                        int a = i + 1 < len ? unhexchar(s[i + 1]) : -1;
                        int b = i + 2 < len ? unhexchar(s[i + 2]) : -1;
                        if (a < 0 || b < 0) {
                                free(out);
                                return -EINVAL;
                        }
                        c = (char)(a << 4 | b);
                        i += 2;
                }
                if (c == 0) {
                        free(out);
                        return -EINVAL;
                }
                out[k++] = c;
        }
        out[k] = 0;
        *ret = out;
        return 0;
}

_printf_(3, 4) static int refuse(struct serve_error *err, const char *key, const char *fmt, ...)
{
        char msg[sizeof(err->message)];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return serve_error_set(err, SERVE_ERR_INVALID_REQUEST, "%s%s%s", key, *key ? ": " : "",
                               msg);
}

int serve_after_seq_parse(const char *text, uint64_t *ret, struct serve_error *err)
{
        uint64_t v = 0;
        if (!*text)
                return refuse(err, "after_seq", "empty");
        for (const char *p = text; *p; p++) {
                if (*p < '0' || *p > '9')
                        return refuse(err, "after_seq", "must be a non-negative integer");
                uint64_t d = (uint64_t)(*p - '0');
                if (v > ((uint64_t)INT64_MAX - d) / 10)
                        return refuse(err, "after_seq", "too large");
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

/* The body as a JSON object whose keys are all in @fields (NULL-terminated). */
static int load(const char *body, size_t len, const char *const *fields, json_t **ret,
                struct serve_error *err)
{
        json_t *j = NULL;
        int r = serve_body_load_object(body, len, false, &j, err);
        if (r < 0)
                return r;
        const char *key;
        json_t *v;
        json_object_foreach(j, key, v)
        {
                bool known = false;
                for (const char *const *f = fields; *f && !known; f++)
                        known = streq(key, *f);
                if (!known) {
                        char shown[64];
                        snprintf(shown, sizeof(shown), "%s", key);
                        json_decref(j);
                        return refuse(err, shown, "unknown field");
                }
        }
        *ret = j;
        return 0;
}

int serve_empty_body_check(const char *body, size_t len, struct serve_error *err)
{
        size_t i = 0;
        while (body && i < len && strchr(" \t\r\n", body[i]) && body[i])
                i++;
        if (!body || i == len)
                return 0;
        static const char *const none[] = {NULL};
        json_t *j = NULL;
        int r = load(body, len, none, &j, err);
        json_decref(j);
        return r;
}

static bool base64_valid(const char *s, size_t len)
{
        if (len % 4)
                return false;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                             (c >= '0' && c <= '9') || c == '+' || c == '/';
                /* '=' only as the last one or two. */
                bool pad = c == '=' && i >= len - 2 && (i == len - 1 || s[len - 1] == '=');
                if (!alpha && !pad)
                        return false;
        }
        return true;
}

int serve_stdin_parse(const char *body, size_t len, json_t **ret, struct serve_error *err)
{
        static const char *const fields[] = {"data", "eof", NULL};
        _cleanup_json_ json_t *j = NULL;
        int r = load(body, len, fields, &j, err);
        if (r < 0)
                return r;
        const json_t *data = json_object_get(j, "data"), *eof = json_object_get(j, "eof");
        if (data && !json_is_null(data) &&
            (!json_is_string(data) ||
             !base64_valid(json_string_value(data), json_string_length(data))))
                return refuse(err, "data", "must be a string of standard base64 (with padding)");
        if (eof && !json_is_null(eof) && !json_is_boolean(eof))
                return refuse(err, "eof", "must be a boolean, not %s", json_type_name(eof));
        json_t *args =
            json_pack("{s:s, s:b}", "data", json_is_string(data) ? json_string_value(data) : "",
                      "eof", json_is_true(eof));
        if (!args)
                return -ENOMEM;
        *ret = args;
        return 0;
}

static const struct {
        const char *name;
        int sig;
} signals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT},   {"KILL", SIGKILL}, {"USR1", SIGUSR1},
    {"USR2", SIGUSR2}, {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},   {"TERM", SIGTERM}, {"CONT", SIGCONT},
    {"STOP", SIGSTOP}, {"TSTP", SIGTSTP}, {"WINCH", SIGWINCH},
};

int serve_signal_parse(const char *body, size_t len, int *ret, struct serve_error *err)
{
        static const char *const fields[] = {"signal", NULL};
        _cleanup_json_ json_t *j = NULL;
        int r = load(body, len, fields, &j, err);
        if (r < 0)
                return r;
        const json_t *v = json_object_get(j, "signal");
        if (!v)
                return refuse(err, "signal", "missing");
        if (json_is_integer(v)) {
                json_int_t s = json_integer_value(v);
                if (s < 1 || s > 64)
                        return refuse(err, "signal", "must be from 1 to 64");
                *ret = (int)s;
                return 0;
        }
        if (!json_is_string(v))
                return refuse(err, "signal", "must be a number or a name, not %s",
                              json_type_name(v));
        const char *name = json_string_value(v);
        const char *bare = startswith(name, "SIG") ?: name;
        for (size_t i = 0; i < ELEMENTSOF(signals); i++)
                if (streq(bare, signals[i].name)) {
                        *ret = signals[i].sig;
                        return 0;
                }
        return refuse(err, "signal", "unknown signal name (give its number)");
}

int serve_resize_parse(const char *body, size_t len, unsigned *ret_rows, unsigned *ret_cols,
                       struct serve_error *err)
{
        static const char *const fields[] = {"rows", "cols", NULL};
        _cleanup_json_ json_t *j = NULL;
        int r = load(body, len, fields, &j, err);
        if (r < 0)
                return r;
        unsigned out[2];
        for (size_t i = 0; i < 2; i++) {
                const json_t *v = json_object_get(j, fields[i]);
                if (!v)
                        return refuse(err, fields[i], "missing");
                if (!json_is_integer(v) || json_integer_value(v) < 1 ||
                    json_integer_value(v) > 65535)
                        return refuse(err, fields[i], "must be an integer from 1 to 65535");
                out[i] = (unsigned)json_integer_value(v);
        }
        *ret_rows = out[0];
        *ret_cols = out[1];
        return 0;
}
