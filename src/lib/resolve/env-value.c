/* Credentials recognised by their value, whatever the variable is called: userinfo in a URL and
 * the published shapes of service tokens. Pure functions. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "lib/resolve/env-filter.h"
#include "shared/macro.h"

static bool is_alnum(char c)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_upper_alnum(char c)
{
        return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_b64url(char c)
{
        return is_alnum(c) || c == '-' || c == '_';
}

static bool is_scheme_char(char c)
{
        return is_alnum(c) || c == '+' || c == '-' || c == '.';
}

/* Where the authority of a URL ends for this rule: the URL syntax ('/', '?', '#'), and what
 * separates a URL from the next one in a list value. */
static bool ends_authority(char c)
{
        return c == 0 || c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' ||
               c == '\r' || c == ',' || c == ';' || c == '"' || c == '\'' || c == '<' || c == '>';
}

/* Schemes whose user part is a login name, never a secret: ssh authenticates with keys and
 * agents, so ssh://git@host carries nothing to steal. */
static bool scheme_is_login(const char *value, const char *sep)
{
        static const char *const login[] = {"ssh", "git+ssh", "ssh+git", "sftp", "scp"};
        const char *s = sep;
        while (s > value && is_scheme_char(s[-1]))
                s--;
        size_t len = (size_t)(sep - s);
        for (size_t i = 0; i < ELEMENTSOF(login); i++)
                if (len == strlen(login[i]) && strncasecmp(s, login[i], len) == 0)
                        return true;
        return false;
}

bool cordon_env_value_has_url_credentials(const char *value)
{
        for (const char *p = value; (p = strstr(p, "://"));) {
                const char *sep = p;
                p += 3;
                if (scheme_is_login(value, sep))
                        continue;
                /* userinfo "@" before the end of the authority: a user name alone is often a
                 * token (https://ghp_...@github.com), so any userinfo counts. */
                for (const char *q = p; !ends_authority(*q); q++)
                        if (*q == '@')
                                return true;
        }
        return false;
}

/* The length of the run of characters @ok accepts at @s. */
static size_t span(const char *s, bool (*ok)(char))
{
        size_t n = 0;
        while (ok(s[n]))
                n++;
        return n;
}

static bool has_digit(const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (s[i] >= '0' && s[i] <= '9')
                        return true;
        return false;
}

static bool has_letter(const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z'))
                        return true;
        return false;
}

/* A prefix and the body that must follow it: at least @min characters @ok accepts (and exactly
 * @min when @exact), and a digit among them where @digit (the random part of every real token
 * has one; words and paths mostly do not). */
struct token_shape {
        const char *prefix;
        bool (*ok)(char);
        size_t min;
        bool exact;
        bool digit;
};

static const struct token_shape token_shapes[] = {
    /* GitHub: 36 (classic) or 82 (fine-grained) characters after the prefix. */
    {"ghp_", is_alnum, 30, false, true},
    {"gho_", is_alnum, 30, false, true},
    {"ghu_", is_alnum, 30, false, true},
    {"ghs_", is_alnum, 30, false, true},
    {"ghr_", is_alnum, 30, false, true},
    {"github_pat_", is_b64url, 40, false, true},
    {"glpat-", is_b64url, 20, false, false},
    /* Slack: xoxb-<team>-<bot>-<secret>; app-level tokens xapp-1-... */
    {"xoxb-", is_b64url, 20, false, true},
    {"xoxp-", is_b64url, 20, false, true},
    {"xoxa-", is_b64url, 20, false, true},
    {"xoxr-", is_b64url, 20, false, true},
    {"xoxs-", is_b64url, 20, false, true},
    {"xapp-", is_b64url, 20, false, true},
    /* Anthropic and OpenAI (sk-ant-, sk-proj-, sk-svcacct-, the older sk-<48>). */
    {"sk-", is_b64url, 32, false, true},
    /* AWS access key ids: AKIA (long-term) or ASIA (session) and 16 more. */
    {"AKIA", is_upper_alnum, 16, true, false},
    {"ASIA", is_upper_alnum, 16, true, false},
    /* Google API keys: AIza and 35 more. */
    {"AIza", is_b64url, 35, true, false},
    {"hf_", is_alnum, 30, false, false},
    {"npm_", is_alnum, 30, false, true},
};

/* A JWT at @s: three base64url parts, the header a JSON object ("eyJ" is base64 of '{"'). */
static bool is_jwt(const char *s)
{
        if (strncmp(s, "eyJ", 3) != 0)
                return false;
        size_t h = span(s, is_b64url);
        if (h < 10 || s[h] != '.')
                return false;
        s += h + 1;
        size_t p = span(s, is_b64url);
        return p >= 10 && s[p] == '.';
}

static bool is_token68(char c)
{
        return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
}

static int b64_digit(char c)
{
        if (c >= 'A' && c <= 'Z')
                return c - 'A';
        if (c >= 'a' && c <= 'z')
                return c - 'a' + 26;
        if (c >= '0' && c <= '9')
                return c - '0' + 52;
        return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Whether @n characters of base64 at @s decode to printable text holding a ':' (user:password),
 * which is what an HTTP Basic credential is; an English word after "Basic " decodes to noise. */
static bool is_basic_credential(const char *s, size_t n)
{
        unsigned acc = 0, bits = 0;
        bool colon = false;
        size_t out = 0;
        for (size_t i = 0; i < n; i++) {
                int d = b64_digit(s[i]);
                if (d < 0)
                        return false;
                acc = (acc << 6) | (unsigned)d;
                bits += 6;
                if (bits >= 8) {
                        bits -= 8;
                        unsigned char c = (unsigned char)(acc >> bits);
                        acc &= (1u << bits) - 1;
                        if (c < 0x20 || c == 0x7f)
                                return false;
                        colon |= c == ':';
                        out++;
                }
        }
        return colon && out >= 3;
}

/* "Bearer <token>" or "Basic <base64>" at @s (an HTTP Authorization value, also after
 * "Authorization: "), the scheme in any case. */
static bool is_authorization(const char *s)
{
        bool basic = strncasecmp(s, "basic", 5) == 0;
        size_t k = basic ? 5 : strncasecmp(s, "bearer", 6) == 0 ? 6 : 0;
        if (k == 0 || (s[k] != ' ' && s[k] != '\t'))
                return false;
        s += k;
        while (*s == ' ' || *s == '\t')
                s++;
        size_t n = span(s, is_token68);
        size_t pad = strspn(s + n, "=");
        if (basic)
                return n >= 4 && is_basic_credential(s, n);
        /* A bearer token is long and not a word: a sentence such as "Bearer tokens are ..." is
         * not one. */
        bool symbol = false;
        for (size_t i = 0; i < n; i++)
                symbol |= !is_alnum(s[i]);
        return n + pad >= 16 && (has_digit(s, n) || pad > 0 || symbol);
}

static bool token_at(const char *s)
{
        for (size_t i = 0; i < ELEMENTSOF(token_shapes); i++) {
                const struct token_shape *t = &token_shapes[i];
                size_t pl = strlen(t->prefix);
                if (strncmp(s, t->prefix, pl) != 0)
                        continue;
                const char *body = s + pl;
                size_t n = span(body, t->ok);
                if (t->exact ? n != t->min : n < t->min)
                        continue;
                /* The body runs to the end of the word: AKIA... inside a longer identifier
                 * is not a key id. */
                if (t->exact && is_b64url(body[n]))
                        continue;
                if (t->digit && !has_digit(body, n))
                        continue;
                if (!has_letter(body, n) && !has_digit(body, n))
                        continue;
                return true;
        }
        return is_jwt(s) || is_authorization(s);
}

bool cordon_env_value_has_token(const char *value)
{
        /* Shapes start a word: a token embedded in a longer identifier (task-sk-...) is not
         * one, but one after '=', ':', '/', '@', a quote or a space is. */
        for (const char *s = value; *s; s++)
                if ((s == value || !is_b64url(s[-1])) && token_at(s))
                        return true;
        return false;
}
