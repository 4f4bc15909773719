/* A credential-free copy of ~/.gitconfig: git-config(1)'s syntax parsed strictly, the sections
 * of an allow list kept (http, url and remote key by key), never credential.*, include and
 * includeIf (a file this copy does not see), http.extraHeader or a URL with a user part. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/resolve/tool-config.h"
#include "shared/macro.h"

/* Sections kept whole: what they hold is behaviour, not a login. */
static const char *const git_sections[] = {
    "advice",      "alias",   "am",        "apply",  "blame",       "branch",   "checkout",
    "clean",       "color",   "column",    "commit", "core",        "diff",     "difftool",
    "fetch",       "feature", "filter",    "format", "gc",          "gpg",      "grep",
    "help",        "i18n",    "index",     "init",   "interactive", "lfs",      "log",
    "maintenance", "merge",   "mergetool", "notes",  "pack",        "pager",    "pretty",
    "protocol",    "pull",    "push",      "rebase", "rerere",      "safe",     "sequence",
    "stash",       "status",  "submodule", "tag",    "trailer",     "transfer", "user",
    "versionsort", "web",     "worktree",  NULL,
};

/* http.* and http.<url>.*: the transport's settings. Not extraHeader (a bearer token),
 * cookieFile, sslKey, sslCert and their passwords, proxyAuthMethod. */
static const char *const http_keys[] = {
    "sslverify",   "sslcainfo",      "sslcapath",    "sslbackend", "sslversion",
    "postbuffer",  "lowspeedlimit",  "lowspeedtime", "version",    "followredirects",
    "maxrequests", "minsessions",    "proxy",        "useragent",  "schannelcheckrevoke",
    "delegation",  "curloptresolve", NULL,
};

static const char *const remote_keys[] = {
    "url",          "pushurl",  "fetch",
    "push",         "tagopt",   "prune",
    "prunetags",    "mirror",   "skipdefaultupdate",
    "skipfetchall", "promisor", "partialclonefilter",
    NULL,
};

static bool in_list(const char *s, size_t len, const char *const *list)
{
        for (; *list; list++)
                if (strlen(*list) == len && strncasecmp(s, *list, len) == 0)
                        return true;
        return false;
}

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\r';
}

static bool is_name_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-';
}

struct section {
        char name[64];
        size_t name_len;
        char sub[1024]; /* the subsection, unescaped */
        size_t sub_len;
        bool has_sub;
};

/* [name], [name "sub"] or the old [name.sub]; nothing may follow on the line but a comment.
 * A key on the same line as its header is legal git, but rare enough to refuse. */
static int parse_header(const char *t, size_t len, struct section *sec)
{
        size_t i = 1;
        *sec = (struct section){0};
        while (i < len && (is_name_char(t[i]) || t[i] == '.')) {
                if (sec->name_len + 1 >= sizeof(sec->name))
                        return -EINVAL;
                sec->name[sec->name_len++] = t[i++];
        }
        if (sec->name_len == 0)
                return -EINVAL;
        char *dot = memchr(sec->name, '.', sec->name_len);
        if (dot) { /* [name.sub] */
                sec->sub_len = sec->name_len - (size_t)(dot - sec->name) - 1;
                memcpy(sec->sub, dot + 1, sec->sub_len);
                sec->name_len = (size_t)(dot - sec->name);
                sec->has_sub = true;
        }
        if (i < len && t[i] == ' ' && !dot) {
                while (i < len && t[i] == ' ')
                        i++;
                if (i >= len || t[i++] != '"')
                        return -EINVAL;
                for (;; i++) {
                        if (i >= len || sec->sub_len + 1 >= sizeof(sec->sub))
                                return -EINVAL;
                        if (t[i] == '"')
                                break;
                        if (t[i] == '\\' && ++i >= len)
                                return -EINVAL;
                        sec->sub[sec->sub_len++] = t[i];
                }
                i++;
                sec->has_sub = true;
        }
        if (i >= len || t[i++] != ']')
                return -EINVAL;
        while (i < len && is_space(t[i]))
                i++;
        if (i < len && t[i] != '#' && t[i] != ';')
                return -EINVAL;
        return 0;
}

/* Whether key @k (@kl bytes) of @sec is kept, judged by its names (its value is judged apart). */
static bool key_allowed(const struct section *sec, const char *k, size_t kl)
{
        const char *n = sec->name;
        size_t nl = sec->name_len;
        if (in_list(n, nl, git_sections))
                return true;
        if (in_list(n, nl, (const char *const[]){"http", NULL}))
                return in_list(k, kl, http_keys) &&
                       !cordon_tool_config_value_secret(sec->sub, sec->sub_len);
        if (in_list(n, nl, (const char *const[]){"url", NULL}))
                return sec->has_sub &&
                       in_list(k, kl, (const char *const[]){"insteadof", "pushinsteadof", NULL}) &&
                       !cordon_tool_config_value_secret(sec->sub, sec->sub_len);
        if (in_list(n, nl, (const char *const[]){"remote", NULL}))
                return sec->has_sub && in_list(k, kl, remote_keys);
        return false; /* credential, include, includeIf, sendemail, github, anything else */
}

/* The name of a dropped key as git spells it: section[.sub].key. */
static int drop(struct tool_config_out *o, const struct section *sec, const char *k, size_t kl)
{
        char name[1200];
        int n = sec->has_sub ? snprintf(name, sizeof(name), "%.*s.%.*s.%.*s", (int)sec->name_len,
                                        sec->name, (int)sec->sub_len, sec->sub, (int)kl, k)
                             : snprintf(name, sizeof(name), "%.*s.%.*s", (int)sec->name_len,
                                        sec->name, (int)kl, k);
        if (n < 0)
                return -EINVAL;
        return cordon_tool_config_drop(o, name, strnlen(name, sizeof(name) - 1));
}

/* The end of the value that starts at @v (up to @end): a value continues on the next line after
 * an unescaped backslash at the end of a line; quotes may not span lines. Returns where the
 * statement ends (after its last newline, or @end), or NULL when the value does not parse. */
static const char *value_end(const char *v, const char *end)
{
        bool quoted = false, comment = false;
        for (const char *c = v; c < end; c++) {
                if (*c == '\n') {
                        if (quoted)
                                return NULL;
                        return c + 1;
                }
                if (comment)
                        continue;
                if (*c == '\\') {
                        if (c + 1 >= end)
                                return NULL;
                        c++;
                        if (*c == '\n') {
                                if (quoted)
                                        return NULL;
                                continue; /* a continuation */
                        }
                        if (*c == '\r' && c + 1 < end && c[1] == '\n') {
                                c++;
                                continue;
                        }
                        if (!strchr("\"\\ntb", *c))
                                return NULL;
                        continue;
                }
                if (*c == '"')
                        quoted = !quoted;
                else if (!quoted && (*c == '#' || *c == ';'))
                        comment = true;
        }
        return quoted ? NULL : end;
}

int cordon_tool_config_git(const char *in, size_t n, struct tool_config_out *o)
{
        const char *end = in + n;
        struct section sec = {0};
        bool have_section = false, secret_section = false;
        int r;
        for (const char *s = in; s < end;) {
                const char *nl = memchr(s, '\n', (size_t)(end - s));
                size_t len = (size_t)((nl ? nl : end) - s);
                const char *t = s;
                while (t < s + len && is_space(*t))
                        t++;
                size_t tl = (size_t)(s + len - t);
                while (tl && is_space(t[tl - 1]))
                        tl--;
                const char *next = nl ? nl + 1 : end;
                /* Comments are left out: a commented-out token is still a token. */
                if (tl == 0 || t[0] == '#' || t[0] == ';') {
                        if (tl == 0 && (r = cordon_tool_config_keep(o, s, len)) < 0)
                                return r;
                        s = next;
                        continue;
                }
                if (t[0] == '[') {
                        if ((r = parse_header(t, tl, &sec)) < 0)
                                return r;
                        /* A header that names a secret (url."https://user:token@host/") is
                         * left out, and every key below it. */
                        secret_section = cordon_tool_config_value_secret(s, len);
                        r = secret_section ? 0 : cordon_tool_config_keep(o, s, len);
                        if (r < 0)
                                return r;
                        have_section = true;
                        s = next;
                        continue;
                }
                /* name [= value] */
                const char *k = t;
                size_t kl = 0;
                while (kl < tl && is_name_char(k[kl]))
                        kl++;
                if (!have_section || kl == 0 ||
                    !((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z')))
                        return -EINVAL;
                const char *after = k + kl;
                while (after < t + tl && is_space(*after))
                        after++;
                const char *stmt_end = next;
                if (after < t + tl && *after == '=')
                        stmt_end = value_end(after + 1, end);
                else if (after < t + tl && *after != '#' && *after != ';')
                        return -EINVAL;
                if (!stmt_end)
                        return -EINVAL;
                bool keep = !secret_section && key_allowed(&sec, k, kl) &&
                            !cordon_tool_config_value_secret(s, (size_t)(stmt_end - s));
                r = 0;
                if (!keep)
                        r = drop(o, &sec, k, kl);
                else
                        for (const char *l = s; r >= 0 && l < stmt_end;) {
                                const char *lnl = memchr(l, '\n', (size_t)(stmt_end - l));
                                size_t ll = (size_t)((lnl ? lnl : stmt_end) - l);
                                r = cordon_tool_config_keep(o, l, ll);
                                l = lnl ? lnl + 1 : stmt_end;
                        }
                if (r < 0)
                        return r;
                s = stmt_end;
        }
        return 0;
}
