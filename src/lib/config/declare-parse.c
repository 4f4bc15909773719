/* A strict parser of bash's `declare -p` output (see declare-parse.h): what bash prints for the
 * configuration's variables, nothing more. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config/declare-parse.h"
#include "lib/policy/diag.h"
#include "shared/macro.h"

struct parser {
        const char *s;
        size_t len, pos;
        unsigned line; /* of the section, from 1 */
        struct cordon_diag *diag;
};

/* A value being decoded. */
struct buf {
        char *data;
        size_t n, cap;
};

static int fail(struct parser *p, const char *what)
{
        return cordon_diag_set(p->diag, -EINVAL, "line %u of the variables' dump: %s", p->line,
                               what);
}

static int peek(const struct parser *p)
{
        return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int buf_put(struct parser *p, struct buf *b, char c)
{
        if (c == 0)
                return fail(p, "a value holds a NUL byte");
        if (b->n >= CORDON_DECLARE_VALUE_MAX)
                return fail(p, "a value is longer than 64 KiB");
        if (b->n + 2 > b->cap) {
                size_t cap = b->cap ? b->cap * 2 : 64;
                char *d = realloc(b->data, cap);
                if (!d)
                        return -ENOMEM;
                b->data = d;
                b->cap = cap;
        }
        b->data[b->n++] = c;
        b->data[b->n] = 0;
        return 0;
}

/* "...": bash escapes \, ", $ and ` with a backslash and nothing else. A raw newline is
 * allowed: older bash prints them so. */
static int parse_double(struct parser *p, struct buf *b)
{
        p->pos++; /* " */
        for (;;) {
                int c = peek(p);
                if (c < 0)
                        return fail(p, "unterminated double-quoted value");
                p->pos++;
                if (c == '"')
                        return 0;
                if (c == '\\') {
                        int e = peek(p);
                        if (e != '\\' && e != '"' && e != '$' && e != '`')
                                return fail(p, "an escape bash does not print in a \"...\" value");
                        p->pos++;
                        c = e;
                } else if (c == '\n')
                        p->line++;
                int r = buf_put(p, b, (char)c);
                if (r < 0)
                        return r;
        }
}

/* $'...': ANSI-C quoting, with the escapes bash's ansic_quote() writes and the others of
 * $'...' that decode to one byte. \u and \U (locale-dependent) are refused. */
static int parse_ansic(struct parser *p, struct buf *b)
{
        p->pos += 2; /* $' */
        for (;;) {
                int c = peek(p);
                if (c < 0)
                        return fail(p, "unterminated $'...' value");
                p->pos++;
                if (c == '\'')
                        return 0;
                if (c == '\n')
                        p->line++;
                if (c == '\\') {
                        int e = peek(p);
                        if (e < 0)
                                return fail(p, "unterminated $'...' value");
                        p->pos++;
                        switch (e) {
                        case 'a':
                                c = '\a';
                                break;
                        case 'b':
                                c = '\b';
                                break;
                        case 'e':
                        case 'E':
                                c = 0x1b;
                                break;
                        case 'f':
                                c = '\f';
                                break;
                        case 'n':
                                c = '\n';
                                break;
                        case 'r':
                                c = '\r';
                                break;
                        case 't':
                                c = '\t';
                                break;
                        case 'v':
                                c = '\v';
                                break;
                        case '\\':
                        case '\'':
                        case '"':
                        case '?':
                                c = e;
                                break;
                        case 'c': {
                                int x = peek(p);
                                if (x < 0 || x == '\'')
                                        return fail(p, "a \\c escape without its character");
                                p->pos++;
                                c = x == '?' ? 0x7f : (x & 0x1f);
                                break;
                        }
                        case 'x': {
                                int v = 0, digits = 0, h;
                                while (digits < 2 && (h = unhexchar((char)peek(p))) >= 0) {
                                        v = v * 16 + h;
                                        digits++;
                                        p->pos++;
                                }
                                if (digits == 0)
                                        return fail(p, "a \\x escape without digits");
                                c = v;
                                break;
                        }
                        default:
                                if (e >= '0' && e <= '7') {
                                        int v = e - '0';
                                        for (int d = 1; d < 3 && peek(p) >= '0' && peek(p) <= '7';
                                             d++)
                                                v = v * 8 + (p->s[p->pos++] - '0');
                                        c = v & 0xff;
                                        break;
                                }
                                return fail(p, "an escape bash does not print in a $'...' value");
                        }
                }
                int r = buf_put(p, b, (char)c);
                if (r < 0)
                        return r;
        }
}

/* One quoted value into a new string in @ret. */
static int parse_value(struct parser *p, char **ret)
{
        struct buf b = {0};
        int r;
        if (peek(p) == '"')
                r = parse_double(p, &b);
        else if (peek(p) == '$' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\'')
                r = parse_ansic(p, &b);
        else
                r = fail(p, "a value that is neither \"...\" nor $'...'");
        if (r < 0) {
                free(b.data);
                return r;
        }
        if (!b.data && !(b.data = strdup("")))
                return -ENOMEM;
        *ret = b.data;
        return 0;
}

static int add_item(struct parser *p, struct cordon_declare_value *v, char *item)
{
        if (v->n >= CORDON_DECLARE_ITEMS_MAX) {
                free(item);
                return fail(p, "an array with more than 4096 elements");
        }
        char **items = realloc(v->items, (v->n + 2) * sizeof(*items));
        if (!items) {
                free(item);
                return -ENOMEM;
        }
        v->items = items;
        v->items[v->n++] = item;
        v->items[v->n] = NULL;
        return 0;
}

/* ([0]="a" [3]="b"): indexes in increasing order, as bash prints them. */
static int parse_array(struct parser *p, struct cordon_declare_value *v)
{
        p->pos++; /* ( */
        uint64_t last = 0;
        bool first = true;
        for (;;) {
                if (peek(p) == ')') {
                        p->pos++;
                        return 0;
                }
                if (!first) {
                        if (peek(p) != ' ')
                                return fail(p, "array elements not separated by a space");
                        p->pos++;
                        if (peek(p) == ')') /* bash 4 writes a space before the ')' */
                                continue;
                }
                if (peek(p) != '[')
                        return fail(p, "an array element without its [index]");
                p->pos++;
                uint64_t idx = 0;
                size_t digits = 0;
                while (peek(p) >= '0' && peek(p) <= '9') {
                        if (++digits > 18)
                                return fail(p, "an array index out of range");
                        idx = idx * 10 + (uint64_t)(p->s[p->pos++] - '0');
                }
                if (digits == 0 || peek(p) != ']')
                        return fail(p, "an array index that is not a number");
                p->pos++;
                if (!first && idx <= last)
                        return fail(p, "array indexes out of order");
                if (peek(p) != '=')
                        return fail(p, "an array element without '='");
                p->pos++;
                char *item = NULL;
                int r = parse_value(p, &item);
                if (r < 0)
                        return r;
                if ((r = add_item(p, v, item)) < 0)
                        return r;
                last = idx;
                first = false;
        }
}

static bool name_char(int c, bool first)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
               (!first && c >= '0' && c <= '9');
}

/* One "declare -FLAGS NAME[=VALUE]" record, up to and including its newline. */
static int parse_record(struct parser *p, const char *const *names, size_t n_names,
                        struct cordon_declare_value *ret)
{
        static const char prefix[] = "declare -";
        if (p->len - p->pos < sizeof(prefix) - 1 ||
            memcmp(p->s + p->pos, prefix, sizeof(prefix) - 1) != 0)
                return fail(p, "a line that is not a declaration");
        p->pos += sizeof(prefix) - 1;
        bool array = false;
        size_t nflags = 0;
        for (int c; (c = peek(p)) != ' '; p->pos++, nflags++) {
                switch (c) {
                case 'a':
                        array = true;
                        break;
                case '-':
                case 'x':
                case 'r':
                case 'i':
                case 'l':
                case 'u':
                case 't':
                        break;
                case 'A':
                        return fail(p, "an associative array (declare -A)");
                case 'n':
                        return fail(p, "a name reference (declare -n)");
                default:
                        return fail(p, "an attribute bash does not print for a variable");
                }
                if (nflags > 8)
                        return fail(p, "too many attributes");
        }
        if (nflags == 0)
                return fail(p, "a declaration without attributes");
        p->pos++; /* the space */
        size_t start = p->pos;
        while (name_char(peek(p), p->pos == start))
                p->pos++;
        size_t nlen = p->pos - start;
        if (nlen == 0)
                return fail(p, "a declaration without a name");
        size_t idx = n_names;
        for (size_t i = 0; i < n_names; i++)
                if (strlen(names[i]) == nlen && memcmp(names[i], p->s + start, nlen) == 0)
                        idx = i;
        if (idx == n_names)
                return fail(p, "a variable that was not asked for");
        struct cordon_declare_value *v = &ret[idx];
        if (v->present)
                return fail(p, "a variable declared twice");
        v->present = true;
        v->array = array;
        int r = 0;
        if (peek(p) == '=') {
                p->pos++;
                if (array) {
                        if (peek(p) != '(')
                                return fail(p, "an array (declare -a) without (...)");
                        r = parse_array(p, v);
                } else {
                        char *item = NULL;
                        if ((r = parse_value(p, &item)) >= 0)
                                r = add_item(p, v, item);
                }
                if (r < 0)
                        return r;
        }
        if (peek(p) >= 0 && peek(p) != '\n')
                return fail(p, "trailing text after a declaration");
        if (peek(p) == '\n') {
                p->pos++;
                p->line++;
        }
        return 0;
}

int cordon_declare_parse(const char *text, size_t len, size_t *pos, const char *const *names,
                         size_t n_names, struct cordon_declare_value *ret, struct cordon_diag *diag)
{
        struct parser p = {.s = text, .len = len, .pos = *pos, .line = 1, .diag = diag};
        if (len > CORDON_DECLARE_TEXT_MAX)
                return cordon_diag_set(diag, -EINVAL, "the variables' dump is larger than 1 MiB");
        if (memchr(text + p.pos, 0, len - p.pos))
                return fail(&p, "the dump holds a NUL byte");
        while (p.pos < p.len && p.s[p.pos] != '#') {
                int r = parse_record(&p, names, n_names, ret);
                if (r < 0)
                        return r;
        }
        *pos = p.pos;
        return 0;
}

void cordon_declare_values_clear(struct cordon_declare_value *v, size_t n)
{
        for (size_t i = 0; v && i < n; i++) {
                for (size_t j = 0; j < v[i].n; j++)
                        free(v[i].items[j]);
                free(v[i].items);
                v[i] = (struct cordon_declare_value){0};
        }
}
