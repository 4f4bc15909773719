/* Unit tests for src/lib/resolve/env-filter.c: blocked names, glob patterns, the allow list and
 * "set". */
#include <criterion/criterion.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "lib/resolve/env-filter.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/strv.h"
#include "test-helpers.h"

static struct cordon_env_rules rules;

static void teardown(void)
{
        cordon_list_clear(&rules.blocked_names);
        cordon_list_clear(&rules.blocked_patterns);
        cordon_list_clear(&rules.allowed);
        cordon_list_clear(&rules.set);
        rules.block_url_credentials = false;
        rules.block_token_values = false;
}

TestSuite(env, .fini = teardown);

static void add(struct cordon_list *l, const char *v)
{
        cr_assert_eq(cordon_list_add(l, v, "test"), 0);
}

/* The value of @name in @envp, or NULL. */
static const char *env_get(char **envp, const char *name)
{
        size_t l = strlen(name);
        STRV_FOREACH (e, envp) {
                if (strncmp(*e, name, l) == 0 && (*e)[l] == '=')
                        return *e + l + 1;
        }
        return NULL;
}

static size_t env_count(char **envp, const char *name)
{
        size_t n = 0, l = strlen(name);
        STRV_FOREACH (e, envp) {
                if (strncmp(*e, name, l) == 0 && (*e)[l] == '=')
                        n++;
        }
        return n;
}

Test(env, name_is_valid)
{
        const char *good[] = {"A", "_", "PATH", "a_b", "_1", "x9", "LC_ALL"};
        const char *bad[] = {"", "1A", "9", "A-B", "A.B", "A B", "A=B", "Ä", "A\n"};
        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                cr_assert(cordon_env_name_is_valid(good[i], strlen(good[i])), "'%s'", good[i]);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                cr_assert_not(cordon_env_name_is_valid(bad[i], strlen(bad[i])), "'%s'", bad[i]);
        /* Only the first @len bytes count. */
        cr_assert(cordon_env_name_is_valid("AB=1", 2));
        cr_assert_not(cordon_env_name_is_valid("AB", 0));
}

Test(env, pattern_globs)
{
        cr_assert(cordon_env_pattern_matches("SSH_*", "SSH_AUTH_SOCK"));
        cr_assert(cordon_env_pattern_matches("SSH_*", "SSH_"));
        cr_assert_not(cordon_env_pattern_matches("SSH_*", "XSSH_AUTH_SOCK"));
        cr_assert_not(cordon_env_pattern_matches("SSH_*", "ssh_auth_sock"));
        cr_assert(cordon_env_pattern_matches("*_TOKEN", "GH_TOKEN"));
        cr_assert_not(cordon_env_pattern_matches("*_TOKEN", "GH_TOKENS"));
        cr_assert_not(cordon_env_pattern_matches("*_TOKEN", "TOKEN"));
        cr_assert(cordon_env_pattern_matches("A?C", "ABC"));
        cr_assert_not(cordon_env_pattern_matches("A?C", "AC"));
        cr_assert(cordon_env_pattern_matches("[XY]_KEY", "Y_KEY"));
        cr_assert_not(cordon_env_pattern_matches("[XY]_KEY", "Z_KEY"));
        cr_assert(cordon_env_pattern_matches("EXACT", "EXACT"));
        cr_assert_not(cordon_env_pattern_matches("EXACT", "EXACTLY"));
}

Test(env, pattern_case_insensitive_suffix)
{
        cr_assert(cordon_env_pattern_matches("*_token/i", "GH_TOKEN"));
        cr_assert(cordon_env_pattern_matches("*_token/i", "gh_Token"));
        cr_assert(cordon_env_pattern_matches("*_TOKEN/i", "gh_token"));
        cr_assert_not(cordon_env_pattern_matches("*_token/i", "gh_tokens"));
        cr_assert_not(cordon_env_pattern_matches("*_token", "GH_TOKEN"), "no /i: case matters");
        /* "/i" is a suffix marker only at the very end. */
        cr_assert_not(cordon_env_pattern_matches("*_token/i ", "GH_TOKEN"));
        cr_assert_not(cordon_env_pattern_matches("*_token/I", "GH_TOKEN"));
}

/* Patterns of letters and '*' take a fast path; it must say what fnmatch() says. Every pattern
 * of up to 5 characters over {A, a, _, *} against every name of up to 5 over {A, a, _}. */
static void each_string(const char *alphabet, size_t max, void (*fn)(const char *, const void *),
                        const void *userdata)
{
        size_t k = strlen(alphabet);
        char s[8];
        for (size_t len = 0; len <= max; len++) {
                size_t total = 1;
                for (size_t i = 0; i < len; i++)
                        total *= k;
                for (size_t n = 0; n < total; n++) {
                        size_t v = n;
                        for (size_t i = 0; i < len; i++, v /= k)
                                s[i] = alphabet[v % k];
                        s[len] = 0;
                        fn(s, userdata);
                }
        }
}

static void check_name(const char *name, const void *userdata)
{
        const char *pattern = userdata;
        char folded[16];
        snprintf(folded, sizeof(folded), "%s/i", pattern);
        cr_assert_eq(cordon_env_pattern_matches(pattern, name), fnmatch(pattern, name, 0) == 0,
                     "'%s' against '%s'", pattern, name);
        cr_assert_eq(cordon_env_pattern_matches(folded, name),
                     fnmatch(pattern, name, FNM_CASEFOLD) == 0, "'%s' against '%s'", folded, name);
}

static void check_pattern(const char *pattern, const void *userdata)
{
        (void)userdata;
        each_string("Aa_", 5, check_name, pattern);
}

Test(env, star_patterns_agree_with_fnmatch)
{
        each_string("Aa_*", 5, check_pattern, NULL);
}

/* cordon_env_filter() takes its patterns apart once per call; what it keeps must be what fnmatch()
 * says, for every pattern of up to 4 characters over {A, a, _, *} (as written and with "/i")
 * against an environment of every name of 1 to 4 characters over {A, a, _}. */
static char **all_names_env;

static void add_name(const char *name, const void *userdata)
{
        (void)userdata;
        char entry[16];
        snprintf(entry, sizeof(entry), "%s=v", name);
        if (*name)
                cr_assert_eq(strv_extend(&all_names_env, entry), 0);
}

static void check_filter_pattern(const char *pattern, const void *userdata)
{
        (void)userdata;
        for (int casefold = 0; casefold < 2; casefold++) {
                struct cordon_env_rules r = {0};
                char p[16];
                snprintf(p, sizeof(p), "%s%s", pattern, casefold ? "/i" : "");
                cr_assert_eq(cordon_list_add(&r.blocked_patterns, p, "test"), 0);
                _cleanup_strv_free_ char **out = NULL;
                size_t blocked = 0;
                cr_assert_eq(cordon_env_filter(&r, all_names_env, &out, &blocked), 0);
                size_t want_blocked = 0;
                STRV_FOREACH (e, all_names_env) {
                        char name[8];
                        snprintf(name, sizeof(name), "%.*s", (int)(strchr(*e, '=') - *e), *e);
                        bool match = fnmatch(pattern, name, casefold ? FNM_CASEFOLD : 0) == 0;
                        want_blocked += match;
                        cr_assert_eq(strv_contains(out, *e), !match, "'%s' against '%s'", p, name);
                }
                cr_assert_eq(blocked, want_blocked, "'%s'", p);
                cordon_list_clear(&r.blocked_patterns);
        }
}

Test(env, filter_patterns_agree_with_fnmatch)
{
        each_string("Aa_", 4, add_name, NULL);
        each_string("Aa_*", 4, check_filter_pattern, NULL);
        strv_free(all_names_env);
        all_names_env = NULL;
}

Test(env, long_case_insensitive_pattern)
{
        /* A pattern that does not fit the internal buffer must not overflow it. */
        char pattern[400];
        memset(pattern, 'A', sizeof(pattern));
        memcpy(pattern + sizeof(pattern) - 4, "*/i", 4);
        (void)cordon_env_pattern_matches(pattern, "AAAA");
        cr_assert_not(cordon_env_pattern_matches(pattern, "B"));
}

Test(env, blocked_by_name_is_exact)
{
        add(&rules.blocked_names, "GITHUB_PAT");
        cr_assert(cordon_env_is_blocked(&rules, "GITHUB_PAT"));
        cr_assert_not(cordon_env_is_blocked(&rules, "GITHUB_PATH"));
        cr_assert_not(cordon_env_is_blocked(&rules, "github_pat"));
        cr_assert_not(cordon_env_is_blocked(&rules, "PATH"));
}

Test(env, blocked_by_pattern)
{
        add(&rules.blocked_patterns, "*_TOKEN");
        add(&rules.blocked_patterns, "aws_*/i");
        cr_assert(cordon_env_is_blocked(&rules, "GH_TOKEN"));
        cr_assert(cordon_env_is_blocked(&rules, "AWS_REGION"));
        cr_assert(cordon_env_is_blocked(&rules, "aws_region"));
        cr_assert_not(cordon_env_is_blocked(&rules, "HOME"));
}

Test(env, allow_list_wins)
{
        add(&rules.blocked_names, "ANTHROPIC_API_KEY");
        add(&rules.blocked_patterns, "*_API_KEY");
        add(&rules.blocked_patterns, "ANTHROPIC_*");
        add(&rules.allowed, "ANTHROPIC_API_KEY");
        cr_assert_not(cordon_env_is_blocked(&rules, "ANTHROPIC_API_KEY"));
        cr_assert(cordon_env_is_blocked(&rules, "OTHER_API_KEY"));
        cr_assert(cordon_env_is_blocked(&rules, "ANTHROPIC_BASE_URL"));
        cr_assert(cordon_env_is_blocked(&rules, "anthropic_api_key") == false,
                  "case-sensitive pattern does not match lower case");
}

Test(env, empty_rules_block_nothing)
{
        cr_assert_not(cordon_env_is_blocked(&rules, "AWS_SECRET_ACCESS_KEY"));
}

Test(env, filter_removes_and_counts)
{
        add(&rules.blocked_names, "GITHUB_PAT");
        add(&rules.blocked_patterns, "*_TOKEN");
        add(&rules.blocked_patterns, "SSH_*");
        _cleanup_strv_free_ char **envp =
            STRV_MAKE("PATH=/usr/bin", "GITHUB_PAT=ghp_x", "HOME=/home/u", "GH_TOKEN=t",
                      "SSH_AUTH_SOCK=/run/ssh", "TERM=xterm");
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 99;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, &n), 0);
        cr_assert_eq(n, 3);
        cr_assert_eq(strv_length(out), 3);
        cr_assert_str_eq(out[0], "PATH=/usr/bin");
        cr_assert_str_eq(out[1], "HOME=/home/u");
        cr_assert_str_eq(out[2], "TERM=xterm");
}

Test(env, filter_blocks_on_name_not_value)
{
        add(&rules.blocked_patterns, "*_TOKEN");
        _cleanup_strv_free_ char **envp = STRV_MAKE("NOTE=GH_TOKEN", "X=A_TOKEN=1");
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 99;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, &n), 0);
        cr_assert_eq(n, 0);
        cr_assert_str_eq(env_get(out, "X"), "A_TOKEN=1");
        cr_assert_str_eq(env_get(out, "NOTE"), "GH_TOKEN");
}

Test(env, filter_allow_list_wins)
{
        add(&rules.blocked_patterns, "*_API_KEY");
        add(&rules.allowed, "OPENAI_API_KEY");
        _cleanup_strv_free_ char **envp = STRV_MAKE("OPENAI_API_KEY=sk", "OTHER_API_KEY=x");
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 0;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, &n), 0);
        cr_assert_eq(n, 1);
        cr_assert_str_eq(env_get(out, "OPENAI_API_KEY"), "sk");
        cr_assert_null(env_get(out, "OTHER_API_KEY"));
}

Test(env, filter_drops_entries_without_name)
{
        _cleanup_strv_free_ char **envp = STRV_MAKE("NOEQUALS", "=value", "", "A=1", "B=");
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 99;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, &n), 0);
        cr_assert_eq(n, 0, "malformed entries are dropped, not counted as blocked");
        cr_assert_eq(strv_length(out), 2);
        cr_assert_str_eq(out[0], "A=1");
        cr_assert_str_eq(out[1], "B=");
}

Test(env, filter_duplicates_first_wins)
{
        add(&rules.blocked_names, "SECRET");
        _cleanup_strv_free_ char **envp =
            STRV_MAKE("PATH=/first", "SECRET=1", "PATH=/second", "SECRET=2", "PATHX=3");
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 0;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, &n), 0);
        cr_assert_eq(env_count(out, "PATH"), 1);
        cr_assert_str_eq(env_get(out, "PATH"), "/first", "getenv() sees the first definition");
        cr_assert_str_eq(env_get(out, "PATHX"), "3");
        cr_assert_eq(env_count(out, "SECRET"), 0);
        cr_assert_eq(n, 2, "every blocked definition counts");
}

Test(env, filter_set_replaces_in_place_and_appends)
{
        add(&rules.set, "HOME=/sandbox/home");
        add(&rules.set, "SANDBOX_ACTIVE=1");
        _cleanup_strv_free_ char **envp = STRV_MAKE("PATH=/usr/bin", "HOME=/home/u", "TERM=xterm");
        _cleanup_strv_free_ char **out = NULL;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, NULL), 0);
        cr_assert_eq(strv_length(out), 4);
        cr_assert_str_eq(out[1], "HOME=/sandbox/home", "replaced at its place");
        cr_assert_str_eq(out[3], "SANDBOX_ACTIVE=1");
        cr_assert_eq(env_count(out, "HOME"), 1);
}

Test(env, filter_set_later_entry_wins)
{
        add(&rules.set, "A=1");
        add(&rules.set, "A=2");
        _cleanup_strv_free_ char **out = NULL;
        cr_assert_eq(cordon_env_filter(&rules, NULL, &out, NULL), 0);
        cr_assert_eq(strv_length(out), 1);
        cr_assert_str_eq(out[0], "A=2");
}

Test(env, filter_set_beats_blocklist)
{
        /* Values the user sets explicitly are not inherited secrets. */
        add(&rules.blocked_patterns, "*_TOKEN");
        add(&rules.set, "GH_TOKEN=fake");
        _cleanup_strv_free_ char **envp = STRV_MAKE("GH_TOKEN=real");
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 0;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, &n), 0);
        cr_assert_eq(n, 1);
        cr_assert_str_eq(env_get(out, "GH_TOKEN"), "fake");
        cr_assert_eq(env_count(out, "GH_TOKEN"), 1);
}

Test(env, filter_set_invalid_names)
{
        const char *bad[] = {"NOEQUALS", "=x", "1A=x", "A-B=x", "A B=x", ""};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                struct cordon_env_rules r = {0};
                cr_assert_eq(cordon_list_add(&r.set, bad[i], "t"), 0);
                char **out = (char **)0x1;
                size_t n = 42;
                cr_assert_eq(cordon_env_filter(&r, NULL, &out, &n), -EINVAL, "set entry '%s'",
                             bad[i]);
                cr_assert_eq(out, (char **)0x1, "ret_envp untouched on failure");
                cr_assert_eq(n, 42, "ret_n_blocked untouched on failure");
                cordon_list_clear(&r.set);
        }
}

Test(env, filter_set_value_may_contain_equals)
{
        add(&rules.set, "OPTS=a=b=c");
        _cleanup_strv_free_ char **out = NULL;
        cr_assert_eq(cordon_env_filter(&rules, NULL, &out, NULL), 0);
        cr_assert_str_eq(env_get(out, "OPTS"), "a=b=c");
}

Test(env, filter_null_and_empty_envp)
{
        char *empty[] = {NULL};
        _cleanup_strv_free_ char **a = NULL;
        _cleanup_strv_free_ char **b = NULL;
        size_t n = 7;
        cr_assert_eq(cordon_env_filter(&rules, NULL, &a, &n), 0);
        cr_assert_not_null(a);
        cr_assert_null(a[0]);
        cr_assert_eq(n, 0);
        cr_assert_eq(cordon_env_filter(&rules, empty, &b, NULL), 0);
        cr_assert_not_null(b);
        cr_assert_null(b[0]);
}

Test(env, filter_huge_name_is_dropped)
{
        size_t len = 5000;
        char *big = malloc(len + 3);
        cr_assert_not_null(big);
        memset(big, 'A', len);
        memcpy(big + len, "=1", 3);
        char b2[] = "B=2";
        char *envp[] = {big, b2, NULL};
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 0;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, &n), 0);
        cr_assert_eq(n, 1);
        cr_assert_eq(strv_length(out), 1);
        cr_assert_str_eq(out[0], "B=2");
        free(big);
}

Test(env, filter_copies_strings)
{
        char a[] = "A=1";
        char *envp[] = {a, NULL};
        _cleanup_strv_free_ char **out = NULL;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, NULL), 0);
        cr_assert_neq(out[0], a);
        a[2] = '9';
        cr_assert_str_eq(out[0], "A=1");
}

/* ---- passwords in URL values, and the built-in defaults ---- */

Test(env, url_credentials_in_values)
{
        static const char *const with[] = {
            "https://alice:s3cret@example.com/repo.git", "postgres://u:p@db:5432/x",
            "https://:ghp_token@github.com/", /* a token as the password */
            "http://u:p@ss@host",             /* '@' inside the password */
            "http://u::@host", "x://u:p@", "proxy=http://u:p@proxy:3128", /* a "key=URL" form */
            "a://x:1,b://u:p@h;c",           /* the second URL of a list */
            "/opt/bin:https://u:p@h/x:/bin", /* inside a PATH-style list */
            "\"mongodb://u:p@h/db\"",
            /* Any userinfo: a user part alone is often a token. */
            "https://token@github.com/", "https://ghp_x@github.com/o/r", "http://git@h:b@c",
            "HTTPS://u@h", "git+https://u@h/x",
            "ssh://git@h a://u@h", /* a second URL after an ssh one */
        };
        static const char *const without[] = {
            "",
            "/usr/bin:/bin",
            "http://proxy:3128",
            "http://proxy:3128/",
            "https://example.com/a:b@c",    /* '@' in the path */
            "http://h:1?u=a:b@c",           /* '@' in the query */
            "http://h#a:b@c",               /* '@' in the fragment */
            "ssh://git@github.com/x/y.git", /* a login name: ssh authenticates with keys */
            "git+ssh://git@h/x",
            "SSH://git@h/x",
            "sftp://u@h/x",
            "http://[::1]:8080/",
            "user:pass@host", /* no scheme: not a URL */
            "a:// b:c@d",     /* whitespace ends the authority */
            "a://b,c:d@e",    /* so does a list separator */
            "mailto:u:p@h",
            "://",
        };
        for (size_t i = 0; i < ELEMENTSOF(with); i++)
                cr_expect(cordon_env_value_has_url_credentials(with[i]), "'%s'", with[i]);
        for (size_t i = 0; i < ELEMENTSOF(without); i++)
                cr_expect_not(cordon_env_value_has_url_credentials(without[i]), "'%s'", without[i]);
}

Test(env, filter_url_credentials_rule)
{
        add(&rules.allowed, "GIT_REMOTE_OK");
        _cleanup_strv_free_ char **envp =
            STRV_MAKE("MIRROR=https://u:p@mirror/", "GIT_REMOTE_OK=https://u:p@h/",
                      "HTTP_PROXY=http://proxy:3128", "PATH=/usr/bin");
        _cleanup_strv_free_ char **off = NULL, **on = NULL;
        size_t n = 99;
        /* Off: the value is not looked at. */
        cr_assert_eq(cordon_env_filter(&rules, envp, &off, &n), 0);
        cr_assert_eq(n, 0);
        cr_assert_str_eq(env_get(off, "MIRROR"), "https://u:p@mirror/");
        /* On: removed and counted, unless allowed by name. */
        rules.block_url_credentials = true;
        cr_assert_eq(cordon_env_filter(&rules, envp, &on, &n), 0);
        cr_assert_eq(n, 1);
        cr_assert_null(env_get(on, "MIRROR"));
        cr_assert_str_eq(env_get(on, "GIT_REMOTE_OK"), "https://u:p@h/", "the allow list wins");
        cr_assert_str_eq(env_get(on, "HTTP_PROXY"), "http://proxy:3128");
        cr_assert_str_eq(env_get(on, "PATH"), "/usr/bin");
        cr_assert(cordon_env_entry_is_blocked(&rules, "X", "ftp://a:b@c"));
        cr_assert_not(cordon_env_entry_is_blocked(&rules, "GIT_REMOTE_OK", "ftp://a:b@c"));
}

/* The rules cordon starts from: the built-in BLOCKED_ENV_VARS, BLOCKED_ENV_PATTERNS,
 * ALLOWED_ENV_VARS and BLOCK_ENV_URL_CREDENTIALS. */
static void default_rules(void)
{
        struct cordon_settings s;
        cr_assert_eq(cordon_settings_init_defaults(&s, "/home/u"), 0);
        cr_assert_eq(cordon_list_copy(&rules.blocked_names, &s.blocked_env_vars), 0);
        cr_assert_eq(cordon_list_copy(&rules.blocked_patterns, &s.blocked_env_patterns), 0);
        cr_assert_eq(cordon_list_copy(&rules.allowed, &s.allowed_env_vars), 0);
        rules.block_url_credentials = s.block_env_url_credentials;
        rules.block_token_values = s.block_env_token_values;
        cordon_settings_clear(&s);
}

Test(env, defaults_block_credentials)
{
        default_rules();
        static const char *const blocked[] = {
            "PASSWORD=x",
            "password=x",
            "PASSWD=x",
            "PASSPHRASE=x",
            "TOKEN=x",
            "token=x",
            "SECRET=x",
            "API_KEY=x",
            "api_key=x",
            "GPG_PASSPHRASE=x",
            "borg_passphrase=x",
            "DB_PASS=x",
            "BW_SESSION=x",
            "BW_CLIENTSECRET=x",
            "OP_SESSION_my_team=x",
            "npm_config__authToken=x",
            "NPM_CONFIG__AUTHTOKEN=x",
            "npm_config_//registry.example.com/:_authToken=x",
            "npm_config__auth=dTpw",
            "npm_config_//registry.example.com/:_auth=dTpw",
            "npm_config__password=x",
            "YARN_NPM_AUTH_TOKEN=x",
            "YARN_NPM_AUTH_IDENT=u:p",
            "NODE_AUTH_TOKEN=x",
            "GITHUB_TOKEN=x",
            "MIRROR_URL=https://u:p@mirror.example/",
            "https_proxy=http://u:p@proxy:3128",
            "REMOTE=https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r",
            "C=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "AUTH_HEADER=Bearer abcdef0123456789abcdef",
            "COOKIE=sid=1",
            "cookies=x",
            "SESSION=x",
            "SESSION_ID=x",
            "APP_SESSION=x",
            "HTTP_COOKIE=x",
            "SITE_SESSIONID=x",
        };
        _cleanup_strv_free_ char **envp = NULL;
        for (size_t i = 0; i < ELEMENTSOF(blocked); i++)
                cr_assert_eq(strv_extend(&envp, blocked[i]), 0);
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 0;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, &n), 0);
        STRV_FOREACH (e, out)
                cr_expect_fail("'%s' passed", *e);
        cr_expect_eq(n, ELEMENTSOF(blocked));
}

Test(env, defaults_pass_ordinary_variables)
{
        default_rules();
        /* Ordinary variables, some close to the credential words, and the agents' own keys. */
        static const char *const passed[] = {
            "PATH=/usr/local/bin:/usr/bin:/bin",
            "HOME=/home/u",
            "LANG=C.UTF-8",
            "LC_ALL=C",
            "TERM=xterm-256color",
            "EDITOR=vim",
            "SHELL=/bin/bash",
            "USER=u",
            "PWD=/home/u/proj",
            "HTTP_PROXY=http://proxy:3128",
            "https_proxy=http://proxy.example:8080/",
            "NO_PROXY=localhost,127.0.0.1",
            "GIT_AUTHOR_NAME=A U Thor",
            "GIT_AUTHOR_EMAIL=a@example.com",
            "PYTHONPATH=/opt/lib",
            "XDG_RUNTIME_DIR=/run/user/1000",
            "XDG_CONFIG_HOME=/home/u/.config",
            "TOKENIZERS_PARALLELISM=false",
            "KEY_TIMEOUT=5",
            "SECRETS_DIR=/run/secrets",
            "PASSWORD_STORE_DIR=/home/u/.password-store",
            "PASSWORDLESS=1",
            "TOKEN_LIMIT=4096",
            "MAX_TOKENS=4096",
            "API_KEY_FILE_HINT=see docs",
            "BYPASS=1",
            "GIT_ASKPASS=/usr/bin/ksshaskpass",
            "COMPASS=1",
            "npm_config_registry=https://registry.example.org/",
            "npm_config_cache=/home/u/.npm",
            "OP_BIOMETRIC_UNLOCK_ENABLED=true",
            "BW_NOINTERACTION=true",
            "REPO=ssh://git@github.com/x/y.git",
            "XDG_SESSION_ID=3",
            "XDG_SESSION_TYPE=wayland",
            "LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:*.tar=01;31",
            "MANPATH=/usr/share/man:/usr/local/share/man",
            "HISTCONTROL=ignoreboth",
            "GIT_PAGER=less -FRX",
            "AUTH_MODE=Basic authentication",
            "NOTE=Bearer tokens are supported",
            "JUPYTER_URL=http://localhost:8888/?token=abc",
            "ANTHROPIC_API_KEY=sk-a",
            "OPENAI_API_KEY=sk-o",
            "CODEX_API_KEY=sk-c",
            "GOOGLE_API_KEY=g",
            "GEMINI_API_KEY=g",
            "CLAUDE_CODE_OAUTH_TOKEN=t",
            "ANTHROPIC_AUTH_TOKEN=t",
        };
        _cleanup_strv_free_ char **envp = NULL;
        for (size_t i = 0; i < ELEMENTSOF(passed); i++)
                cr_assert_eq(strv_extend(&envp, passed[i]), 0);
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 0;
        cr_assert_eq(cordon_env_filter(&rules, envp, &out, &n), 0);
        for (size_t i = 0; i < ELEMENTSOF(passed); i++)
                cr_expect(strv_contains(out, passed[i]), "'%s' was removed", passed[i]);
        cr_expect_eq(n, 0);
}

/* A case-insensitive pattern longer than the matcher's stack buffer still blocks. */
Test(env, long_casefold_pattern_still_matches)
{
        char pattern[400], name[400];
        memset(pattern, 'A', 300);
        memcpy(pattern + 300, "[XY]/i", 7);
        memset(name, 'a', 300);
        memcpy(name + 300, "x", 2);
        cr_assert(cordon_env_pattern_matches(pattern, name));
        name[300] = 'z';
        cr_assert_not(cordon_env_pattern_matches(pattern, name), "control: another name");
}

/* ---- tokens recognised by their value ---- */

Test(env, token_shapes_in_values)
{
        static const char *const with[] = {
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
            "ghu_abcdefghijklmnopqrstuvwxyz0123456789",
            "ghs_abcdefghijklmnopqrstuvwxyz0123456789",
            "ghr_abcdefghijklmnopqrstuvwxyz0123456789",
            "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
            "glpat-abcdefghij0123456789",
            "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
            "xoxp-123456789012-1234567890123-abcdefghijkl",
            "xoxa-2-1234567890-abcdefghijklmnop",
            "xoxr-1234567890-abcdefghijklmnop",
            "xapp-1-A0123456789-1234567890123-abcdef",
            "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEFGH",
            "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
            "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL",
            "AKIAIOSFODNN7EXAMPLE",
            "ASIAIOSFODNN7EXAMPLE",
            "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
            "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
            "npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
            "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.",
            "Bearer abcdef0123456789abcdef",
            "bearer abc.def-ghi_jkl~mno",
            "Authorization: Bearer abcdef0123456789abcdef",
            "Basic dXNlcjpwYXNz", /* user:pass */
            "BASIC   YWxpY2U6czNjcmV0",
            "--token=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "x:AKIAIOSFODNN7EXAMPLE,y",
            "'ghp_abcdefghijklmnopqrstuvwxyz0123456789'",
        };
        /* Ordinary values, some close to a shape. */
        static const char *const without[] = {
            "",
            "/usr/local/bin:/usr/bin:/bin",
            "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:*.tar=01;31",
            "ghp_short0",
            "ghp_abcdefghijklmnopqrstuvwxyzabcdefghij",         /* no digit: a word */
            "task-sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD", /* inside a longer word */
            "sk-learn",
            "sk-some-long-package-name-without-any-digits",
            "AKIAIOSFODNN7EXAMPLEX", /* 17 after the prefix */
            "AKIAIOSFODNN7EXAMPL",   /* 15 */
            "XAKIAIOSFODNN7EXAMPLE",
            "AIzaShort",
            "hf_short",
            "npm_config_cache",
            "eyJhbGciOiJIUzI1NiJ9",         /* one part */
            "eyJ.a.b",                      /* too short */
            "Bearer tokens are supported",  /* a sentence */
            "Basic authentication enabled", /* not base64 of user:password */
            "Basic settings",
            "Bearer",
            "xoxb-",
            "glpat-short",
            "github_pat_short1",
            "less -FRX",
            "C.UTF-8",
            "xterm-256color",
        };
        for (size_t i = 0; i < ELEMENTSOF(with); i++)
                cr_expect(cordon_env_value_has_token(with[i]), "'%s'", with[i]);
        for (size_t i = 0; i < ELEMENTSOF(without); i++)
                cr_expect_not(cordon_env_value_has_token(without[i]), "'%s'", without[i]);
}

Test(env, filter_token_rule_and_names)
{
        add(&rules.allowed, "ANTHROPIC_API_KEY");
        add(&rules.blocked_names, "GITHUB_PAT");
        _cleanup_strv_free_ char **envp = STRV_MAKE(
            "C=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "GITHUB_PAT=x",
            "GITHUB_PAT=y", "PATH=/usr/bin", "AUTH_HEADER=Bearer abcdef0123456789abc");
        _cleanup_strv_free_ char **off = NULL, **on = NULL, **names = NULL, **names_off = NULL;
        size_t n = 99;
        /* Off: the value is not looked at; the names are still reported. */
        cr_assert_eq(cordon_env_filter_names(&rules, envp, &off, &n, &names_off), 0);
        cr_assert_eq(n, 2);
        cr_assert_str_eq(env_get(off, "C"), "ghp_abcdefghijklmnopqrstuvwxyz0123456789");
        cr_assert_eq(strv_length(names_off), 1, "a name blocked twice is named once");
        cr_assert_str_eq(names_off[0], "GITHUB_PAT");
        rules.block_token_values = true;
        cr_assert_eq(cordon_env_filter_names(&rules, envp, &on, &n, &names), 0);
        cr_assert_eq(n, 4);
        cr_assert_null(env_get(on, "C"));
        cr_assert_null(env_get(on, "AUTH_HEADER"));
        cr_assert_str_eq(env_get(on, "ANTHROPIC_API_KEY"),
                         "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
                         "the agent's own key still reaches it");
        cr_assert_str_eq(env_get(on, "PATH"), "/usr/bin");
        cr_assert_eq(strv_length(names), 3);
        cr_assert_str_eq(names[0], "C");
        cr_assert_str_eq(names[1], "GITHUB_PAT");
        cr_assert_str_eq(names[2], "AUTH_HEADER");
        STRV_FOREACH (nm, names)
                cr_assert_null(strchr(*nm, '='), "names only, never values");
}
