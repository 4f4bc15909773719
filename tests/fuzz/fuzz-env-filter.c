/* Fuzz target for src/lib/resolve/env-filter.c. The input is split on newlines and NULs; a line
 * starting with "b:" is a blocked name, "p:" a blocked pattern, "a:" an allowed name, "s:" a "set"
 * entry, "u:" turns on the rule against userinfo in URL values, "t:" the rule against token
 * shapes, anything else an inherited environment entry. Checks the result against the documented
 * rules, and the URL rule against regular expressions that say the same. */
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/resolve/env-filter.h"
#include "shared/macro.h"
#include "shared/strv.h"

#define MAX_ENTRIES 128

static void rules_clear(struct cordon_env_rules *r)
{
        cordon_list_clear(&r->blocked_names);
        cordon_list_clear(&r->blocked_patterns);
        cordon_list_clear(&r->allowed);
        cordon_list_clear(&r->set);
}

static size_t name_len(const char *e)
{
        const char *eq = strchr(e, '=');
        return eq ? (size_t)(eq - e) : strlen(e);
}

/* True when some "set" entry defines the variable @e names. */
static bool set_defines(const struct cordon_env_rules *r, const char *e, size_t len)
{
        CORDON_LIST_FOREACH (it, &r->set) {
                if (name_len(it->value) == len && strncmp(it->value, e, len) == 0)
                        return true;
        }
        return false;
}

static void check(const struct cordon_env_rules *r, char **envp, char **out, size_t n_blocked)
{
        FUZZ_CHECK(out);
        FUZZ_CHECK(n_blocked <= strv_length(envp));
        size_t n_out = strv_length(out);
        for (size_t i = 0; i < n_out; i++) {
                const char *eq = strchr(out[i], '=');
                FUZZ_CHECK(eq && eq != out[i]);
                size_t len = (size_t)(eq - out[i]);
                /* No variable twice. */
                for (size_t j = 0; j < i; j++)
                        FUZZ_CHECK(!(name_len(out[j]) == len && strncmp(out[j], out[i], len) == 0));
                if (set_defines(r, out[i], len)) {
                        /* The value of the last "set" entry for this name. */
                        const char *want = NULL;
                        CORDON_LIST_FOREACH (it, &r->set) {
                                if (name_len(it->value) == len &&
                                    strncmp(it->value, out[i], len) == 0)
                                        want = it->value;
                        }
                        FUZZ_CHECK(want && streq(want, out[i]));
                        continue;
                }
                /* Otherwise inherited, and then not blocked. */
                FUZZ_CHECK(strv_contains(envp, out[i]));
                char name[4096];
                FUZZ_CHECK(len < sizeof(name));
                memcpy(name, out[i], len);
                name[len] = 0;
                FUZZ_CHECK(!cordon_env_entry_is_blocked(r, name, eq + 1));
                FUZZ_CHECK(!r->block_url_credentials || cordon_list_find(&r->allowed, name) ||
                           !cordon_env_value_has_url_credentials(eq + 1));
                FUZZ_CHECK(!r->block_token_values || cordon_list_find(&r->allowed, name) ||
                           !cordon_env_value_has_token(eq + 1));
        }
        CORDON_LIST_FOREACH (it, &r->set) {
                bool found = false;
                for (size_t i = 0; i < n_out && !found; i++)
                        found = name_len(out[i]) == name_len(it->value) &&
                                strncmp(out[i], it->value, name_len(it->value)) == 0;
                FUZZ_CHECK(found);
        }
        /* The allow list wins over every block. */
        CORDON_LIST_FOREACH (it, &r->allowed) {
                FUZZ_CHECK(!cordon_env_is_blocked(r, it->value));
        }
}

/* The URL rule as regular expressions: after some "://", an '@' before anything that ends the
 * authority (URL_END: / ? # whitespace , ; quotes < >), unless the scheme before it is one of
 * the login-name schemes. */
#define URL_END "/?#\t\r\n ,;\"'<>"
static const char userinfo_re[] = "^[^" URL_END "@]*@";
static const char login_scheme_re[] = "(^|[^A-Za-z0-9+.-])(ssh|git\\+ssh|ssh\\+git|sftp|scp)$";

static void check_url_rule(const char *value)
{
        static regex_t userinfo, login;
        static bool compiled;
        if (!compiled) {
                FUZZ_CHECK(regcomp(&userinfo, userinfo_re, REG_EXTENDED | REG_NOSUB) == 0);
                FUZZ_CHECK(regcomp(&login, login_scheme_re, REG_EXTENDED | REG_NOSUB | REG_ICASE) ==
                           0);
                compiled = true;
        }
        bool want = false;
        for (const char *p = value; !want && (p = strstr(p, "://")); p += 3) {
                _cleanup_free_ char *scheme = strndup(value, (size_t)(p - value));
                if (!scheme)
                        return;
                want = regexec(&login, scheme, 0, NULL, 0) != 0 &&
                       regexec(&userinfo, p + 3, 0, NULL, 0) == 0;
        }
        FUZZ_CHECK(cordon_env_value_has_url_credentials(value) == want);
}

/* Runs the filter on @envp and checks the outcome. */
static void run(const struct cordon_env_rules *rules, char **envp, bool set_valid)
{
        _cleanup_strv_free_ char **out = NULL, **names = NULL;
        size_t n_blocked = 0;
        int r = cordon_env_filter_names(rules, envp, &out, &n_blocked, &names);
        if (r == -ENOMEM)
                return;
        FUZZ_CHECK(set_valid ? r == 0 : r == -EINVAL);
        if (r == 0) {
                check(rules, envp, out, n_blocked);
                /* Each removed variable named once, a name and never a value. */
                FUZZ_CHECK(names && strv_length(names) <= n_blocked);
                STRV_FOREACH (n, names) {
                        FUZZ_CHECK(!strchr(*n, '='));
                }
        } else
                FUZZ_CHECK(!out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        _cleanup_free_ char *buf = malloc(size + 1);
        _cleanup_strv_free_ char **envp = calloc(1, sizeof(char *));
        if (!buf || !envp)
                return 0;
        memcpy(buf, data, size);
        buf[size] = 0;

        struct cordon_env_rules rules = {0};
        bool set_valid = true;
        int r = 0;
        for (size_t start = 0, n = 0; start <= size && n < MAX_ENTRIES && r >= 0; n++) {
                size_t end = start;
                while (end < size && buf[end] != '\n' && buf[end] != 0)
                        end++;
                buf[end] = 0;
                const char *line = buf + start;
                start = end + 1;
                if (startswith(line, "b:"))
                        r = cordon_list_add(&rules.blocked_names, line + 2, "fuzz");
                else if (startswith(line, "p:"))
                        r = cordon_list_add(&rules.blocked_patterns, line + 2, "fuzz");
                else if (startswith(line, "a:"))
                        r = cordon_list_add(&rules.allowed, line + 2, "fuzz");
                else if (streq(line, "u:"))
                        rules.block_url_credentials = true;
                else if (streq(line, "t:"))
                        rules.block_token_values = true;
                else if (startswith(line, "s:")) {
                        const char *eq = strchr(line + 2, '=');
                        if (!eq || !cordon_env_name_is_valid(line + 2, (size_t)(eq - line - 2)))
                                set_valid = false;
                        r = cordon_list_add(&rules.set, line + 2, "fuzz");
                } else {
                        check_url_rule(line);
                        r = strv_extend(&envp, line);
                }
        }
        if (r >= 0)
                run(&rules, envp, set_valid);
        rules_clear(&rules);
        return 0;
}
