/* Reading a configuration file's text without running it (see config-scan.h). */
#include <string.h>

#include "lib/config/config-scan.h"
#include "shared/macro.h"

static const char *skip_blanks(const char *p)
{
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

static bool name_char(char c, bool first)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
               (!first && c >= '0' && c <= '9');
}

bool cordon_config_has_code(const char *text)
{
        for (const char *p = text; *p;) {
                p = skip_blanks(p);
                if (*p == '#')
                        p += strcspn(p, "\n");
                else if (*p == '\n' || *p == '\r')
                        p++;
                else if (*p)
                        return true;
        }
        return false;
}

/* The word at @p when it is one of the commands an assignment may follow, with the blanks
 * after it skipped; NULL otherwise. */
static const char *after_keyword(const char *p)
{
        static const char *const kw[] = {"export", "declare", "typeset", "readonly", "local"};
        for (size_t i = 0; i < ELEMENTSOF(kw); i++) {
                size_t n = strlen(kw[i]);
                if (strncmp(p, kw[i], n) == 0 && (p[n] == ' ' || p[n] == '\t'))
                        return skip_blanks(p + n);
        }
        return NULL;
}

/* An assignment at @q (a command's start, blanks skipped) on the line ending at @eol: calls
 * @fn and returns its result, or 0 when there is none. */
static int assignment_at(const char *q, const char *eol, unsigned line,
                         int (*fn)(const struct cordon_config_assignment *a, void *userdata),
                         void *userdata)
{
        for (const char *k; (k = after_keyword(q));) {
                q = k;
                /* options of declare and the like: -a, -gx, -- */
                while (*q == '-') {
                        q += strcspn(q, " \t\n");
                        q = skip_blanks(q);
                }
        }
        const char *name = q;
        while (q < eol && name_char(*q, q == name))
                q++;
        size_t len = (size_t)(q - name);
        bool element = len > 0 && *q == '[';
        if (element) {
                const char *close = memchr(q, ']', (size_t)(eol - q));
                q = close ? close + 1 : eol;
        }
        if (*q == '+')
                q++;
        if (len == 0 || q >= eol || *q != '=')
                return 0;
        struct cordon_config_assignment a = {
            .name = name, .name_len = len, .line = line, .element = element, .value = q + 1};
        return fn(&a, userdata);
}

/* Where the next command on the line starts after @p: past `;`, `&&`, `||`, `{` or a word
 * then/do/else, outside quotes and comments; NULL when none does. A rough reading of bash's
 * grammar, enough for origins (`[ -d /x ] && READONLY_MOUNTS+=(/x)`), never for deciding. */
static const char *next_command(const char *start, const char *eol)
{
        char quote = 0;
        for (const char *p = start; p < eol; p++) {
                /* A word begins here: the command's start, or after a blank or `;`. */
                bool word = p == start || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ';';
                if (quote) {
                        if (*p == quote)
                                quote = 0;
                        else if (quote == '"' && *p == '\\' && p + 1 < eol)
                                p++;
                        continue;
                }
                if (*p == '\\' && p + 1 < eol)
                        p++;
                else if (*p == '\'' || *p == '"')
                        quote = *p;
                else if (*p == '#' && word)
                        return NULL;
                else if (*p == ';' || *p == '{')
                        return p + 1;
                else if ((*p == '&' || *p == '|') && p[1] == *p)
                        return p + 2;
                else if (word && (strncmp(p, "then", 4) == 0 || strncmp(p, "else", 4) == 0) &&
                         (p[4] == ' ' || p[4] == '\t'))
                        return p + 4;
                else if (word && strncmp(p, "do", 2) == 0 && (p[2] == ' ' || p[2] == '\t'))
                        return p + 2;
        }
        return NULL;
}

int cordon_config_scan(const char *text,
                       int (*fn)(const struct cordon_config_assignment *a, void *userdata),
                       void *userdata)
{
        unsigned line = 1;
        for (const char *p = text; *p; line++) {
                const char *eol = p + strcspn(p, "\n");
                const char *q = skip_blanks(p);
                if (*q != '#')
                        for (const char *c = q; c; c = next_command(c, eol)) {
                                int r = assignment_at(skip_blanks(c), eol, line, fn, userdata);
                                if (r)
                                        return r;
                        }
                p = *eol ? eol + 1 : eol;
        }
        return 0;
}

struct last_ctx {
        const char *name;
        unsigned line;
};

static int last_cb(const struct cordon_config_assignment *a, void *userdata)
{
        struct last_ctx *c = userdata;
        if (a->name_len == strlen(c->name) && strncmp(a->name, c->name, a->name_len) == 0)
                c->line = a->line;
        return 0;
}

unsigned cordon_config_last_assignment(const char *text, const char *name)
{
        struct last_ctx c = {.name = name};
        (void)cordon_config_scan(text, last_cb, &c);
        return c.line;
}

bool cordon_config_value_substitutes(const char *value)
{
        const char *p = value;
        if (*p != '(') {
                const char *eol = p + strcspn(p, "\n");
                for (; p < eol; p++)
                        if (*p == '`' || (*p == '$' && p[1] == '('))
                                return true;
                return false;
        }
        int depth = 0;
        char quote = 0;
        for (; *p; p++) {
                if (quote == '\'') { /* nothing is special inside '...' */
                        if (*p == '\'')
                                quote = 0;
                        continue;
                }
                if (*p == '`' || (*p == '$' && p[1] == '('))
                        return true;
                if (quote) {
                        if (*p == '\\' && p[1])
                                p++;
                        else if (*p == '"')
                                quote = 0;
                        continue;
                }
                if (*p == '\\' && p[1])
                        p++;
                else if (*p == '\'' || *p == '"')
                        quote = *p;
                else if (*p == '#' && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n'))
                        p += strcspn(p, "\n") - 1; /* a comment inside the list */
                else if (*p == '(')
                        depth++;
                else if (*p == ')' && --depth == 0)
                        return false;
        }
        return false;
}
