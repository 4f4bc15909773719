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

int cordon_config_scan(const char *text,
                       int (*fn)(const struct cordon_config_assignment *a, void *userdata),
                       void *userdata)
{
        unsigned line = 1;
        for (const char *p = text; *p; line++) {
                const char *eol = p + strcspn(p, "\n");
                const char *q = skip_blanks(p);
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
                if (len > 0 && q < eol && *q == '=') {
                        struct cordon_config_assignment a = {.name = name,
                                                             .name_len = len,
                                                             .line = line,
                                                             .element = element,
                                                             .value = q + 1};
                        int r = fn(&a, userdata);
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
