/* A credential-free copy of ~/.cargo/config.toml: a strict subset of TOML (tables, dotted and
 * quoted keys, strings on one line, numbers, booleans, arrays over lines, inline tables) with
 * the tables of an allow list kept; never [registry] token, [registries.NAME] token or
 * credential-provider, [env] (variables can be secrets) or a value that carries a credential.
 * Multi-line strings and arrays of tables are refused: cargo's configuration has no use for
 * them, and the whole file is then left out. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/resolve/tool-config.h"
#include "shared/macro.h"

#define MAX_PARTS    8
#define MAX_PART_LEN 128
#define MAX_DEPTH    16

struct key_path {
        char parts[MAX_PARTS][MAX_PART_LEN];
        size_t n;
};

/* Tables kept whole: build and target settings, aliases, profiles, the network's and sources'
 * settings (http.proxy with a user part is caught by its value). */
static const char *const cargo_tables[] = {
    "alias",  "build",   "cache", "cargo-new", "doc",     "future-incompat-report",
    "http",   "install", "net",   "patch",     "profile", "resolver",
    "source", "target",  "term",  "unstable",  NULL,
};

static bool is_bare(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
}

static const char *skip_ws(const char *c, const char *end)
{
        while (c < end && (*c == ' ' || *c == '\t'))
                c++;
        return c;
}

/* A string on one line at @c ('"' basic with escapes, '\'' literal); its text goes to @buf
 * (@size bytes, truncation refused) when @buf is not NULL. Returns the position after it. */
static const char *parse_string(const char *c, const char *end, char *buf, size_t size)
{
        char q = *c;
        size_t n = 0;
        if (c + 2 < end && c[1] == q && c[2] == q)
                return NULL; /* a multi-line string */
        for (c++; c < end && *c != q; c++) {
                if (*c == '\n' || *c == '\r')
                        return NULL;
                if (q == '"' && *c == '\\') {
                        if (++c >= end || *c == '\n')
                                return NULL;
                }
                if (buf) {
                        if (n + 1 >= size)
                                return NULL;
                        buf[n++] = *c;
                }
        }
        if (c >= end)
                return NULL;
        if (buf)
                buf[n] = 0;
        return c + 1;
}

/* A dotted key at @c, its parts appended to @k. */
static const char *parse_key(const char *c, const char *end, struct key_path *k)
{
        for (;;) {
                c = skip_ws(c, end);
                if (c >= end || k->n >= MAX_PARTS)
                        return NULL;
                char *part = k->parts[k->n];
                if (*c == '"' || *c == '\'') {
                        if (!(c = parse_string(c, end, part, MAX_PART_LEN)))
                                return NULL;
                } else {
                        size_t n = 0;
                        while (c < end && is_bare(*c)) {
                                if (n + 1 >= MAX_PART_LEN)
                                        return NULL;
                                part[n++] = *c++;
                        }
                        if (n == 0)
                                return NULL;
                        part[n] = 0;
                }
                k->n++;
                c = skip_ws(c, end);
                if (c >= end || *c != '.')
                        return c;
                c++;
        }
}

/* After a value or a header: blanks, a comment, then the end of the line (consumed). */
static const char *line_rest(const char *c, const char *end)
{
        c = skip_ws(c, end);
        if (c < end && *c == '#')
                while (c < end && *c != '\n')
                        c++;
        if (c < end && *c == '\r')
                c++;
        if (c < end && *c != '\n')
                return NULL;
        return c < end ? c + 1 : end;
}

/* Inside an array: blanks, newlines and comments. */
static const char *skip_array_space(const char *c, const char *end)
{
        for (;;) {
                c = skip_ws(c, end);
                if (c < end && (*c == '\n' || *c == '\r'))
                        c++;
                else if (c < end && *c == '#')
                        while (c < end && *c != '\n')
                                c++;
                else
                        return c;
        }
}

static const char *parse_value(const char *c, const char *end, unsigned depth);

static const char *parse_inline_table(const char *c, const char *end, unsigned depth)
{
        c = skip_ws(c + 1, end);
        if (c < end && *c == '}')
                return c + 1;
        for (;;) {
                struct key_path k = {0};
                if (!(c = parse_key(c, end, &k)) || c >= end || *c != '=')
                        return NULL;
                if (!(c = parse_value(skip_ws(c + 1, end), end, depth + 1)))
                        return NULL;
                c = skip_ws(c, end);
                if (c < end && *c == '}')
                        return c + 1;
                if (c >= end || *c != ',')
                        return NULL;
                c = skip_ws(c + 1, end);
        }
}

static const char *parse_array(const char *c, const char *end, unsigned depth)
{
        c = skip_array_space(c + 1, end);
        for (;;) {
                if (c < end && *c == ']')
                        return c + 1;
                if (!(c = parse_value(c, end, depth + 1)))
                        return NULL;
                c = skip_array_space(c, end);
                if (c < end && *c == ',')
                        c = skip_array_space(c + 1, end);
                else if (c >= end || *c != ']')
                        return NULL;
        }
}

static const char *parse_value(const char *c, const char *end, unsigned depth)
{
        if (c >= end || depth > MAX_DEPTH)
                return NULL;
        switch (*c) {
        case '"':
        case '\'':
                return parse_string(c, end, NULL, 0);
        case '[':
                return parse_array(c, end, depth);
        case '{':
                return parse_inline_table(c, end, depth);
        }
        /* true, false, numbers, dates: a bare token. */
        const char *start = c;
        while (c < end && (is_bare(*c) || *c == '+' || *c == '.' || *c == ':'))
                c++;
        return c > start ? c : NULL;
}

static bool part_is(const struct key_path *k, size_t i, const char *name)
{
        return i < k->n && streq(k->parts[i], name);
}

static bool path_allowed(const struct key_path *k)
{
        for (const char *const *t = cargo_tables; *t; t++)
                if (part_is(k, 0, *t))
                        return k->n > 1;
        /* [registries.NAME] index and protocol; [registry] default. */
        if (part_is(k, 0, "registries"))
                return k->n == 3 && (part_is(k, 2, "index") || part_is(k, 2, "protocol"));
        if (part_is(k, 0, "registry"))
                return k->n == 2 && part_is(k, 1, "default");
        return false; /* env, credential-alias, and what cargo does not know */
}

static int drop(struct tool_config_out *o, const struct key_path *k)
{
        char name[MAX_PARTS * (MAX_PART_LEN + 1)] = "";
        for (size_t i = 0; i < k->n; i++) {
                if (i)
                        strcat(name, ".");
                strcat(name, k->parts[i]);
        }
        return cordon_tool_config_drop(o, name, strlen(name));
}

int cordon_tool_config_cargo(const char *in, size_t n, struct tool_config_out *o)
{
        const char *end = in + n;
        struct key_path table = {0};
        bool secret_table = false;
        int r;
        for (const char *s = in; s < end;) {
                const char *c = skip_ws(s, end);
                const char *stmt_end;
                bool keep = true;
                struct key_path k = table;
                if (c >= end || *c == '\n' || *c == '\r' || *c == '#') {
                        /* Comments are left out: a commented-out token is still a token. */
                        stmt_end = line_rest(c, end);
                        keep = c >= end || *c != '#';
                        if (!keep && stmt_end) {
                                s = stmt_end;
                                continue;
                        }
                } else if (*c == '[') {
                        if (c + 1 < end && c[1] == '[')
                                return -EINVAL; /* an array of tables */
                        table = (struct key_path){0};
                        if (!(c = parse_key(c + 1, end, &table)) || c >= end || *c != ']')
                                return -EINVAL;
                        stmt_end = line_rest(c + 1, end);
                        /* A table named by a secret is left out, and every key in it. */
                        secret_table =
                            stmt_end && cordon_tool_config_value_secret(s, (size_t)(stmt_end - s));
                        if (secret_table) {
                                r = drop(o, &table);
                                if (r < 0)
                                        return r;
                                s = stmt_end;
                                continue;
                        }
                } else {
                        if (!(c = parse_key(c, end, &k)) || c >= end || *c != '=')
                                return -EINVAL;
                        if (!(c = parse_value(skip_ws(c + 1, end), end, 0)))
                                return -EINVAL;
                        stmt_end = line_rest(c, end);
                        keep = !secret_table && path_allowed(&k) && stmt_end &&
                               !cordon_tool_config_value_secret(s, (size_t)(stmt_end - s));
                }
                if (!stmt_end)
                        return -EINVAL;
                r = 0;
                if (!keep)
                        r = drop(o, &k);
                else
                        for (const char *l = s; r >= 0 && l < stmt_end;) {
                                const char *nl = memchr(l, '\n', (size_t)(stmt_end - l));
                                r = cordon_tool_config_keep(o, l,
                                                            (size_t)((nl ? nl : stmt_end) - l));
                                l = nl ? nl + 1 : stmt_end;
                        }
                if (r < 0)
                        return r;
                s = stmt_end;
        }
        return 0;
}
