/* Environment filtering: blocklist names, glob patterns, the allow list and added values. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "lib/env-filter.h"
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

bool cordon_env_pattern_matches(const char *pattern, const char *name)
{
        size_t l = strlen(pattern);
        if (l >= 2 && streq(pattern + l - 2, "/i")) {
                char buf[256];
                if (l - 2 >= sizeof(buf))
                        return false;
                memcpy(buf, pattern, l - 2);
                buf[l - 2] = 0;
                return fnmatch(buf, name, FNM_CASEFOLD) == 0;
        }
        return fnmatch(pattern, name, 0) == 0;
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

static ssize_t env_find(char **envp, const char *name, size_t len)
{
        for (size_t i = 0; envp && envp[i]; i++)
                if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
                        return (ssize_t)i;
        return -1;
}

int cordon_env_filter(const struct cordon_env_rules *rules, char *const *envp, char ***ret_envp,
                      size_t *ret_n_blocked)
{
        _cleanup_strv_free_ char **out = calloc(1, sizeof(char *));
        size_t blocked = 0;
        if (!out)
                return -ENOMEM;

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
                if (cordon_env_is_blocked(rules, name)) {
                        blocked++;
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
        return 0;
}
