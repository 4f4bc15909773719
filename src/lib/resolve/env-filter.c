/* Environment filtering: blocklist names, glob patterns, credentials in values (env-value.c),
 * the allow list and added values. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "lib/resolve/env-filter.h"
#include "shared/macro.h"
#include "shared/strv.h"

bool cordon_env_name_is_valid(const char *s, size_t len)
{
        if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
                return false;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '_'))
                        return false;
        }
        return true;
}

static char fold(char c, bool casefold)
{
        return casefold && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Patterns of literal characters and '*' only (all the built-in ones) are matched here instead
 * of by fnmatch(), which was most of the cost of filtering an environment. The classic
 * backtracking match: on a mismatch, the last '*' swallows one more character. It answers as
 * fnmatch() without flags (or with FNM_CASEFOLD, folding ASCII letters) does for such patterns. */
static bool star_match(const char *p, size_t plen, const char *s, bool casefold)
{
        size_t pi = 0, star_pi = 0;
        const char *star_s = NULL;
        while (*s) {
                if (pi < plen && p[pi] == '*') {
                        star_pi = ++pi;
                        star_s = s;
                } else if (pi < plen && fold(p[pi], casefold) == fold(*s, casefold)) {
                        pi++;
                        s++;
                } else if (star_s) {
                        pi = star_pi;
                        s = ++star_s;
                } else
                        return false;
        }
        while (pi < plen && p[pi] == '*')
                pi++;
        return pi == plen;
}

bool cordon_env_pattern_matches(const char *pattern, const char *name)
{
        size_t l = strlen(pattern);
        bool casefold = l >= 2 && streq(pattern + l - 2, "/i");
        if (casefold)
                l -= 2;
        if (!memchr(pattern, '?', l) && !memchr(pattern, '[', l) && !memchr(pattern, '\\', l))
                return star_match(pattern, l, name, casefold);
        if (!casefold)
                return fnmatch(pattern, name, 0) == 0;
        /* Without its "/i". A pattern too long for the stack copy gets a heap one; should that
         * fail, the variable counts as matched: a blocking pattern must not fail open. */
        char buf[256], *heap = NULL;
        const char *pat = buf;
        if (l < sizeof(buf)) {
                memcpy(buf, pattern, l);
                buf[l] = 0;
        } else if (!(pat = heap = strndup(pattern, l)))
                return true;
        bool m = fnmatch(pat, name, FNM_CASEFOLD) == 0;
        free(heap);
        return m;
}

bool cordon_env_is_blocked(const struct cordon_env_rules *rules, const char *name)
{
        if (cordon_list_find(&rules->allowed, name))
                return false;
        if (cordon_list_find(&rules->blocked_names, name))
                return true;
        CORDON_LIST_FOREACH (it, &rules->blocked_patterns)
                if (cordon_env_pattern_matches(it->value, name))
                        return true;
        return false;
}

bool cordon_env_value_is_blocked(const struct cordon_env_rules *rules, const char *value)
{
        return (rules->block_url_credentials && cordon_env_value_has_url_credentials(value)) ||
               (rules->block_token_values && cordon_env_value_has_token(value));
}

bool cordon_env_entry_is_blocked(const struct cordon_env_rules *rules, const char *name,
                                 const char *value)
{
        if (cordon_list_find(&rules->allowed, name))
                return false;
        if (cordon_env_is_blocked(rules, name))
                return true;
        return cordon_env_value_is_blocked(rules, value);
}

/* A blocked pattern taken apart once per cordon_env_filter() call instead of once per variable:
 * the built-in ones are all a literal with a '*' at one end, both ends or neither, which memcmp()
 * or memmem() answers on a name folded once. Anything else keeps cordon_env_pattern_matches(). */
struct env_pattern {
        enum { EP_GENERAL, EP_EXACT, EP_PREFIX, EP_SUFFIX, EP_INFIX } kind;
        bool casefold;
        const char *raw;
        size_t len;
        char lit[256]; /* folded when casefold */
};

static void env_pattern_compile(const char *pattern, struct env_pattern *ep)
{
        *ep = (struct env_pattern){.kind = EP_GENERAL, .raw = pattern};
        size_t l = strlen(pattern);
        bool casefold = l >= 2 && streq(pattern + l - 2, "/i");
        if (casefold)
                l -= 2;
        if (l >= sizeof(ep->lit) || memchr(pattern, '?', l) || memchr(pattern, '[', l) ||
            memchr(pattern, '\\', l))
                return;
        size_t start = 0, end = l;
        bool lead = l > 0 && pattern[0] == '*';
        if (lead)
                start = 1;
        bool trail = end > start && pattern[end - 1] == '*';
        if (trail)
                end--;
        if (memchr(pattern + start, '*', end - start))
                return; /* a '*' inside */
        ep->kind = lead && trail ? EP_INFIX : lead ? EP_SUFFIX : trail ? EP_PREFIX : EP_EXACT;
        ep->casefold = casefold;
        ep->len = end - start;
        for (size_t i = 0; i < ep->len; i++)
                ep->lit[i] = fold(pattern[start + i], casefold);
}

/* @folded is @name (@len bytes) with its ASCII letters folded as fold() does. */
static bool env_pattern_match(const struct env_pattern *ep, const char *name, const char *folded,
                              size_t len)
{
        const char *n = ep->casefold ? folded : name;
        switch (ep->kind) {
        case EP_EXACT:
                return len == ep->len && memcmp(n, ep->lit, len) == 0;
        case EP_PREFIX:
                return len >= ep->len && memcmp(n, ep->lit, ep->len) == 0;
        case EP_SUFFIX:
                return len >= ep->len && memcmp(n + len - ep->len, ep->lit, ep->len) == 0;
        case EP_INFIX:
                return memmem(n, len, ep->lit, ep->len) != NULL;
        case EP_GENERAL:
                break;
        }
        return cordon_env_pattern_matches(ep->raw, name);
}

/* cordon_env_entry_is_blocked() with the patterns compiled. */
static bool entry_blocked(const struct cordon_env_rules *rules, const struct env_pattern *eps,
                          size_t n_eps, const char *name, size_t len, const char *value)
{
        if (cordon_list_find(&rules->allowed, name))
                return false;
        if (cordon_list_find(&rules->blocked_names, name))
                return true;
        char folded[4096];
        for (size_t i = 0; i < len; i++)
                folded[i] = fold(name[i], true);
        for (size_t i = 0; i < n_eps; i++)
                if (env_pattern_match(&eps[i], name, folded, len))
                        return true;
        return cordon_env_value_is_blocked(rules, value);
}

static ssize_t env_find(char **envp, const char *name, size_t len)
{
        for (size_t i = 0; envp && envp[i]; i++)
                if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
                        return (ssize_t)i;
        return -1;
}

int cordon_env_filter_names(const struct cordon_env_rules *rules, char *const *envp,
                            char ***ret_envp, size_t *ret_n_blocked, char ***ret_blocked_names)
{
        _cleanup_strv_free_ char **out = calloc(1, sizeof(char *));
        _cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
        size_t blocked = 0, n_eps = rules->blocked_patterns.n;
        _cleanup_free_ struct env_pattern *eps = calloc(n_eps ?: 1, sizeof(*eps));
        if (!out || !eps || !names)
                return -ENOMEM;
        for (size_t i = 0; i < n_eps; i++)
                env_pattern_compile(rules->blocked_patterns.items[i].value, &eps[i]);

        STRV_FOREACH (e, envp) {
                const char *eq = strchr(*e, '=');
                if (!eq || eq == *e)
                        continue;
                size_t len = (size_t)(eq - *e);
                char name[4096];
                if (len >= sizeof(name)) {
                        blocked++; /* no legitimate variable name is this long */
                        continue;
                }
                memcpy(name, *e, len);
                name[len] = 0;
                if (entry_blocked(rules, eps, n_eps, name, len, eq + 1)) {
                        blocked++;
                        if (ret_blocked_names && !strv_contains(names, name)) {
                                int r = strv_extend(&names, name);
                                if (r < 0)
                                        return r;
                        }
                        continue;
                }
                if (env_find(out, name, len) >= 0)
                        continue; /* first definition wins, as getenv() sees it */
                int r = strv_extend(&out, *e);
                if (r < 0)
                        return r;
        }

        CORDON_LIST_FOREACH (it, &rules->set) {
                const char *eq = strchr(it->value, '=');
                if (!eq || !cordon_env_name_is_valid(it->value, (size_t)(eq - it->value)))
                        return -EINVAL;
                size_t len = (size_t)(eq - it->value);
                ssize_t i = env_find(out, it->value, len);
                char *c = strdup(it->value);
                if (!c)
                        return -ENOMEM;
                if (i >= 0) {
                        free(out[i]);
                        out[i] = c;
                } else {
                        int r = strv_consume(&out, c);
                        if (r < 0)
                                return r;
                }
        }

        *ret_envp = TAKE_PTR(out);
        if (ret_n_blocked)
                *ret_n_blocked = blocked;
        if (ret_blocked_names)
                *ret_blocked_names = TAKE_PTR(names);
        return 0;
}

int cordon_env_filter(const struct cordon_env_rules *rules, char *const *envp, char ***ret_envp,
                      size_t *ret_n_blocked)
{
        return cordon_env_filter_names(rules, envp, ret_envp, ret_n_blocked, NULL);
}
