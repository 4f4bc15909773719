/* Credential-free copies of tool configuration: the shared part, and the two ini formats
 * (~/.npmrc, pip.conf). Each keeps the keys of an allow list, never a credential's key, and no
 * value that carries one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/resolve/env-filter.h"
#include "lib/resolve/tool-config.h"
#include "shared/macro.h"
#include "shared/strv.h"

int cordon_tool_config_keep(struct tool_config_out *o, const char *line, size_t len)
{
        if (o->len + len + 2 > o->size) {
                size_t size = (o->size ?: 256) * 2;
                while (size < o->len + len + 2)
                        size *= 2;
                char *t = realloc(o->text, size);
                if (!t)
                        return -ENOMEM;
                o->text = t;
                o->size = size;
        }
        memcpy(o->text + o->len, line, len);
        o->len += len;
        o->text[o->len++] = '\n';
        o->text[o->len] = 0;
        return 0;
}

int cordon_tool_config_drop(struct tool_config_out *o, const char *name, size_t len)
{
        if (o->n_dropped >= CORDON_TOOL_CONFIG_MAX_DROPPED) {
                o->n_dropped++;
                return 0;
        }
        char *copy = len ? strndup(name, len) : strdup("\"\""); /* TOML's empty key */
        if (!copy)
                return -ENOMEM;
        /* A name can hold a URL, and a URL a password (git's url.<base>.insteadOf), or be a
         * token itself. */
        if (cordon_tool_config_value_secret(copy, len)) {
                free(copy);
                copy = strdup("<redacted>");
                if (!copy)
                        return -ENOMEM;
        }
        if (strv_contains(o->dropped, copy)) {
                free(copy);
                return 0;
        }
        int r = strv_consume(&o->dropped, copy);
        if (r >= 0)
                o->n_dropped++;
        return r;
}

bool cordon_tool_config_value_secret(const char *v, size_t len)
{
        char *copy = strndup(v, len);
        if (!copy)
                return true; /* fail closed */
        bool secret =
            cordon_env_value_has_url_credentials(copy) || cordon_env_value_has_token(copy);
        free(copy);
        return secret;
}

static bool is_space(char c)
{
        return c == ' ' || c == '\t';
}

static void trim(const char **s, size_t *len)
{
        while (*len && is_space(**s))
                (*s)++, (*len)--;
        while (*len && (is_space((*s)[*len - 1]) || (*s)[*len - 1] == '\r'))
                (*len)--;
}

static bool key_is(const char *k, size_t len, const char *name)
{
        return strlen(name) == len && strncasecmp(k, name, len) == 0;
}

static bool key_in(const char *k, size_t len, const char *const *names)
{
        for (; *names; names++)
                if (key_is(k, len, *names))
                        return true;
        return false;
}

/* npm's settings that carry no credential. Not: _auth, _authToken, _password, username, email
 * (the legacy login's), certfile, keyfile, cert, key (a client's key), any per-registry
 * "//host/:name" (that is where the tokens live), cache (the sandbox has its own). */
static const char *const npm_keys[] = {
    "registry",
    "strict-ssl",
    "ca",
    "cafile",
    "proxy",
    "https-proxy",
    "noproxy",
    "no-proxy",
    "fetch-retries",
    "fetch-retry-factor",
    "fetch-retry-mintimeout",
    "fetch-retry-maxtimeout",
    "fetch-timeout",
    "maxsockets",
    "prefer-offline",
    "prefer-online",
    "offline",
    "save",
    "save-exact",
    "save-prefix",
    "engine-strict",
    "legacy-peer-deps",
    "strict-peer-deps",
    "audit",
    "audit-level",
    "fund",
    "progress",
    "loglevel",
    "package-lock",
    "lockfile-version",
    "ignore-scripts",
    "update-notifier",
    "color",
    "unicode",
    "init-license",
    "init-version",
    "init-author-name",
    "init-author-url",
    "script-shell",
    "git",
    "sign-git-tag",
    "sign-git-commit",
    "tag-version-prefix",
    "message",
    "omit",
    "include",
    "install-strategy",
    "install-links",
    "foreground-scripts",
    "prefix",
    "node-options",
    "python",
    NULL,
};

static bool npm_allowed(const char *k, size_t len)
{
        /* A scope's registry: @scope:registry. */
        if (len > 10 && k[0] == '@' && strncmp(k + len - 9, ":registry", 9) == 0 &&
            !memchr(k, '/', len))
                return true;
        /* "key[]" (an ini list) is the key's own. */
        if (len > 2 && k[len - 2] == '[' && k[len - 1] == ']')
                len -= 2;
        return key_in(k, len, npm_keys);
}

/* pip's options that carry no credential (any section: [global], [install], ...; '_' and '-'
 * alike). Not: client-cert (a client key), keyring-provider, cache-dir (the sandbox's own). */
static const char *const pip_keys[] = {
    "index-url",
    "extra-index-url",
    "find-links",
    "trusted-host",
    "no-index",
    "cert",
    "timeout",
    "default-timeout",
    "retries",
    "proxy",
    "disable-pip-version-check",
    "break-system-packages",
    "require-virtualenv",
    "user",
    "no-binary",
    "only-binary",
    "prefer-binary",
    "pre",
    "progress-bar",
    "no-input",
    "quiet",
    "verbose",
    "use-feature",
    "use-deprecated",
    "root-user-action",
    "upgrade-strategy",
    "no-build-isolation",
    "no-color",
    "python-version",
    "platform",
    NULL,
};

static bool pip_allowed(const char *k, size_t len)
{
        char buf[64];
        if (len >= sizeof(buf))
                return false;
        for (size_t i = 0; i < len; i++)
                buf[i] = k[i] == '_' ? '-' : k[i];
        return key_in(buf, len, pip_keys);
}

/* The length of the line at @s (up to @end), without its newline. */
static size_t line_len(const char *s, const char *end)
{
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        return (size_t)((nl ? nl : end) - s);
}

static const char *next_line(const char *s, size_t len, const char *end)
{
        return s + len < end ? s + len + 1 : end;
}

/* npm's ini and pip's configparser: comments (';', '#'), sections, key = value (pip also key:
 * value, and a value continued on indented lines). npm reads only the keys outside a section,
 * so a section is dropped whole. */
static int sanitize_ini(bool pip, const char *in, size_t n, struct tool_config_out *o)
{
        const char *end = in + n;
        bool in_section = false; /* npm: inside a section, which npm does not read */
        int r;
        for (const char *s = in; s < end;) {
                size_t len = line_len(s, end);
                const char *t = s;
                size_t tl = len;
                trim(&t, &tl);
                /* Comments are left out: a commented-out token is still a token. */
                if (tl == 0 || t[0] == '#' || t[0] == ';') {
                        if (tl == 0 && (r = cordon_tool_config_keep(o, s, len)) < 0)
                                return r;
                        s = next_line(s, len, end);
                        continue;
                }
                if (t[0] == '[') {
                        if (t[tl - 1] != ']' || tl < 3)
                                return -EINVAL;
                        /* npm does not read sections; a pip section named by a secret is
                         * left out with its keys. */
                        in_section = !pip || cordon_tool_config_value_secret(t, tl);
                        r = in_section ? cordon_tool_config_drop(o, t, tl)
                                       : cordon_tool_config_keep(o, s, len);
                        if (r < 0)
                                return r;
                        s = next_line(s, len, end);
                        continue;
                }
                /* pip: an indented line with nothing before it continues nothing. */
                if (pip && is_space(s[0]))
                        return -EINVAL;
                /* Bounded: the input need not end in a NUL. */
                size_t klen = 0;
                while (klen < tl && t[klen] != '=' && !(pip && t[klen] == ':'))
                        klen++;
                if (pip && klen == tl)
                        return -EINVAL; /* configparser refuses a key without a value */
                const char *k = t;
                size_t kl = klen;
                trim(&k, &kl);
                if (kl == 0)
                        return -EINVAL;
                /* The statement: this line and, for pip, the indented lines after it. */
                const char *stmt_end = next_line(s, len, end);
                while (pip && stmt_end < end && is_space(stmt_end[0])) {
                        size_t cl = line_len(stmt_end, end);
                        const char *c = stmt_end;
                        size_t ctl = cl;
                        trim(&c, &ctl);
                        if (ctl == 0)
                                break;
                        stmt_end = next_line(stmt_end, cl, end);
                }
                size_t stmt_len = (size_t)(stmt_end - s);
                bool keep = !in_section && (pip ? pip_allowed(k, kl) : npm_allowed(k, kl)) &&
                            !cordon_tool_config_value_secret(s, stmt_len);
                r = 0;
                if (!keep)
                        r = in_section ? 0 : cordon_tool_config_drop(o, k, kl);
                else
                        /* Line by line, so each ends in a newline. */
                        for (const char *l = s; r >= 0 && l < stmt_end;) {
                                size_t ll = line_len(l, stmt_end);
                                r = cordon_tool_config_keep(o, l, ll);
                                l = next_line(l, ll, stmt_end);
                        }
                if (r < 0)
                        return r;
                s = stmt_len ? stmt_end : end;
        }
        return 0;
}

int cordon_tool_config_sanitize(enum cordon_tool_config f, const char *in, size_t n,
                                char **ret_text, char ***ret_dropped)
{
        if (n > CORDON_TOOL_CONFIG_MAX_SIZE)
                return -E2BIG;
        if (memchr(in, 0, n))
                return -EINVAL;
        struct tool_config_out o = {0};
        int r;
        switch (f) {
        case CORDON_TOOL_CONFIG_NPMRC:
        case CORDON_TOOL_CONFIG_PIP:
                r = sanitize_ini(f == CORDON_TOOL_CONFIG_PIP, in, n, &o);
                break;
        case CORDON_TOOL_CONFIG_GIT:
                r = cordon_tool_config_git(in, n, &o);
                break;
        case CORDON_TOOL_CONFIG_CARGO:
                r = cordon_tool_config_cargo(in, n, &o);
                break;
        default:
                r = -EINVAL;
        }
        if (r >= 0 && !o.text && !(o.text = strdup("")))
                r = -ENOMEM;
        /* Past the bound, the last name says how many more there were. */
        if (r >= 0 && o.n_dropped > CORDON_TOOL_CONFIG_MAX_DROPPED) {
                char *more = NULL;
                if (asprintf(&more, "(%zu more)", o.n_dropped - CORDON_TOOL_CONFIG_MAX_DROPPED) <
                        0 ||
                    strv_consume(&o.dropped, more) < 0)
                        r = -ENOMEM;
        }
        if (r < 0) {
                free(o.text);
                strv_free(o.dropped);
                return r;
        }
        *ret_text = o.text;
        *ret_dropped = o.dropped;
        return 0;
}
