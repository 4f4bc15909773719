/* cordon_tool_config_sanitize(): the copies of ~/.npmrc, pip.conf, ~/.gitconfig and
 * ~/.cargo/config.toml keep the settings and drop every credential, naming keys only. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lib/resolve/tool-config.h"
#include "shared/macro.h"
#include "shared/strv.h"

static char *text;
static char **dropped;

static void fini(void)
{
        free(text);
        text = NULL;
        dropped = strv_free(dropped);
}

TestSuite(tool_config, .fini = fini);

static int run(enum cordon_tool_config f, const char *in)
{
        fini();
        return cordon_tool_config_sanitize(f, in, strlen(in), &text, &dropped);
}

static void ok(enum cordon_tool_config f, const char *in, const char *want, const char *names)
{
        int r = run(f, in);
        cr_assert_eq(r, 0, "sanitize: %d for:\n%s", r, in);
        cr_assert_str_eq(text, want);
        char joined[4096] = "";
        STRV_FOREACH (d, dropped) {
                if (*joined)
                        strcat(joined, ",");
                strcat(joined, *d);
        }
        cr_assert_str_eq(joined, names);
}

Test(tool_config, npmrc_keeps_settings_drops_tokens)
{
        ok(CORDON_TOOL_CONFIG_NPMRC,
           "; mine\n"
           "registry=https://npm.example/\n"
           "@corp:registry = https://npm.corp.example/\n"
           "//npm.corp.example/:_authToken=${NPM_TOKEN}\n"
           "//npm.example/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789\n"
           "_auth=dXNlcjpwYXNz\n"
           "email=me@example.org\n"
           "strict-ssl=false\n"
           "cafile=/etc/ssl/corp.pem\n"
           "proxy=http://user:secret@proxy.example:3128/\n"
           "save-exact\n"
           "[section]\n"
           "registry=https://other.example/\n",
           "registry=https://npm.example/\n"
           "@corp:registry = https://npm.corp.example/\n"
           "strict-ssl=false\n"
           "cafile=/etc/ssl/corp.pem\n"
           "save-exact\n",
           "//npm.corp.example/:_authToken,//npm.example/:_authToken,_auth,email,proxy,"
           "[section]");
        cr_assert_null(strstr(text, "secret"));
}

Test(tool_config, npmrc_registry_with_userinfo_dropped)
{
        ok(CORDON_TOOL_CONFIG_NPMRC, "registry = https://u:p@npm.example/\n", "", "registry");
}

Test(tool_config, pip_conf_sections_and_continuations)
{
        ok(CORDON_TOOL_CONFIG_PIP,
           "[global]\n"
           "index-url = https://pypi.corp.example/simple\n"
           "extra-index-url =\n"
           "    https://mirror.example/simple\n"
           "    https://user:pw@private.example/simple\n"
           "timeout: 60\n"
           "client-cert = /home/me/key.pem\n"
           "\n"
           "[install]\n"
           "trusted_host = pypi.corp.example\n",
           "[global]\n"
           "index-url = https://pypi.corp.example/simple\n"
           "timeout: 60\n"
           "\n"
           "[install]\n"
           "trusted_host = pypi.corp.example\n",
           "extra-index-url,client-cert");
}

Test(tool_config, pip_conf_refuses_what_configparser_would)
{
        cr_assert_eq(run(CORDON_TOOL_CONFIG_PIP, "[global]\nnovalue\n"), -EINVAL);
        cr_assert_eq(run(CORDON_TOOL_CONFIG_PIP, "  indented = 1\n"), -EINVAL);
        cr_assert_eq(run(CORDON_TOOL_CONFIG_PIP, "[global\n"), -EINVAL);
}

Test(tool_config, gitconfig_keeps_identity_drops_credentials)
{
        ok(CORDON_TOOL_CONFIG_GIT,
           "[user]\n"
           "\tname = Host User\n"
           "\temail = me@example.org\n"
           "[credential]\n"
           "\thelper = store\n"
           "[credential \"https://git.example\"]\n"
           "\tusername = me\n"
           "[url \"https://me:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/\"]\n"
           "\tinsteadOf = https://github.com/\n"
           "[url \"git@github.com:\"]\n"
           "\tinsteadOf = gh:\n"
           "[http]\n"
           "\textraHeader = Authorization: Bearer abc\n"
           "\tsslVerify = true\n"
           "[include]\n"
           "\tpath = ~/.gitconfig.local\n"
           "[alias]\n"
           "\tst = status \\\n"
           "\t  --short # a comment\n"
           "[core]\n"
           "\tpager\n",
           "[user]\n"
           "\tname = Host User\n"
           "\temail = me@example.org\n"
           "[credential]\n"
           "[credential \"https://git.example\"]\n"
           "[url \"git@github.com:\"]\n"
           "\tinsteadOf = gh:\n"
           "[http]\n"
           "\tsslVerify = true\n"
           "[include]\n"
           "[alias]\n"
           "\tst = status \\\n"
           "\t  --short # a comment\n"
           "[core]\n"
           "\tpager\n",
           "credential.helper,credential.https://git.example.username,<redacted>,http.extraHeader,"
           "include.path");
        cr_assert_null(strstr(text, "ghp_"));
}

Test(tool_config, gitconfig_header_with_credentials_is_never_kept_as_a_name)
{
        /* Neither the header nor its keys are kept, and the name reported is no URL. */
        ok(CORDON_TOOL_CONFIG_GIT,
           "[url \"https://u:p@h/\"]\n\tinsteadOf = x\n[branch \"main\"]\n\tremote = o\n",
           "[branch \"main\"]\n\tremote = o\n", "<redacted>");
}

Test(tool_config, gitconfig_refuses_what_git_would)
{
        cr_assert_eq(run(CORDON_TOOL_CONFIG_GIT, "name = x\n"), -EINVAL, "no section");
        cr_assert_eq(run(CORDON_TOOL_CONFIG_GIT, "[user\n"), -EINVAL);
        cr_assert_eq(run(CORDON_TOOL_CONFIG_GIT, "[user]\n\tname = \"open\n"), -EINVAL);
        cr_assert_eq(run(CORDON_TOOL_CONFIG_GIT, "[user] name = x\n"), -EINVAL);
        cr_assert_eq(run(CORDON_TOOL_CONFIG_GIT, "[user]\n\t1name = x\n"), -EINVAL);
}

Test(tool_config, cargo_keeps_sources_drops_tokens)
{
        ok(CORDON_TOOL_CONFIG_CARGO,
           "# mine\n"
           "[source.crates-io]\n"
           "replace-with = \"mirror\"\n"
           "[source.mirror]\n"
           "registry = \"sparse+https://mirror.example/index/\"\n"
           "[registries.corp]\n"
           "index = \"sparse+https://cargo.corp.example/\"\n"
           "token = \"cio_abcdefghijklmnopqrstuvwxyz\"\n"
           "credential-provider = \"cargo:token\"\n"
           "[registry]\n"
           "default = \"corp\"\n"
           "token = \"abc\"\n"
           "[net]\n"
           "git-fetch-with-cli = true\n"
           "retry = 3\n"
           "[build]\n"
           "rustflags = [\n"
           "  \"-C\", # the flag\n"
           "  \"target-cpu=native\",\n"
           "]\n"
           "[env]\n"
           "SECRET = { value = \"x\", force = true }\n"
           "[http]\n"
           "proxy = \"http://u:p@proxy.example:3128\"\n"
           "alias.b = 'build'\n",
           "[source.crates-io]\n"
           "replace-with = \"mirror\"\n"
           "[source.mirror]\n"
           "registry = \"sparse+https://mirror.example/index/\"\n"
           "[registries.corp]\n"
           "index = \"sparse+https://cargo.corp.example/\"\n"
           "[registry]\n"
           "default = \"corp\"\n"
           "[net]\n"
           "git-fetch-with-cli = true\n"
           "retry = 3\n"
           "[build]\n"
           "rustflags = [\n"
           "  \"-C\", # the flag\n"
           "  \"target-cpu=native\",\n"
           "]\n"
           "[env]\n"
           "[http]\n"
           "alias.b = 'build'\n",
           "registries.corp.token,registries.corp.credential-provider,registry.token,env.SECRET,"
           "http.proxy");
}

Test(tool_config, comments_are_left_out)
{
        ok(CORDON_TOOL_CONFIG_NPMRC, "; //h/:_authToken=npm_abc\n# x\nregistry=r\n", "registry=r\n",
           "");
        ok(CORDON_TOOL_CONFIG_GIT, "# token ghp_x\n[user]\n; y\n\tname = n\n",
           "[user]\n\tname = n\n", "");
        ok(CORDON_TOOL_CONFIG_CARGO, "# old: token = \"x\"\n[net]\nretry = 2 # two\n",
           "[net]\nretry = 2 # two\n", "");
}

Test(tool_config, cargo_table_named_by_a_secret)
{
        ok(CORDON_TOOL_CONFIG_CARGO,
           "[source.\"https://u:p@x.example/\"]\nregistry = \"r\"\n[net]\nretry = 1\n",
           "[net]\nretry = 1\n", "<redacted>");
}

Test(tool_config, cargo_inline_registry_table_dropped_whole)
{
        ok(CORDON_TOOL_CONFIG_CARGO,
           "registries.corp = { index = \"https://c.example/\", token = \"t\" }\n", "",
           "registries.corp");
}

Test(tool_config, cargo_refuses_what_it_does_not_parse)
{
        cr_assert_eq(run(CORDON_TOOL_CONFIG_CARGO, "[[bin]]\nname = \"x\"\n"), -EINVAL);
        cr_assert_eq(run(CORDON_TOOL_CONFIG_CARGO, "[a]\nb = \"\"\"\nx\n\"\"\"\n"), -EINVAL);
        cr_assert_eq(run(CORDON_TOOL_CONFIG_CARGO, "[a]\nb = \"open\n"), -EINVAL);
        cr_assert_eq(run(CORDON_TOOL_CONFIG_CARGO, "[a]\nb = [1,\n"), -EINVAL);
        cr_assert_eq(run(CORDON_TOOL_CONFIG_CARGO, "[a]\nb = 1 c\n"), -EINVAL);
}

Test(tool_config, limits)
{
        char *big = malloc(CORDON_TOOL_CONFIG_MAX_SIZE + 2);
        cr_assert_not_null(big);
        memset(big, '#', CORDON_TOOL_CONFIG_MAX_SIZE + 1);
        big[CORDON_TOOL_CONFIG_MAX_SIZE + 1] = 0;
        cr_assert_eq(run(CORDON_TOOL_CONFIG_NPMRC, big), -E2BIG);
        free(big);
        cr_assert_eq(
            cordon_tool_config_sanitize(CORDON_TOOL_CONFIG_NPMRC, "a\0b", 3, &text, &dropped),
            -EINVAL, "a NUL");
        ok(CORDON_TOOL_CONFIG_NPMRC, "", "", "");
        ok(CORDON_TOOL_CONFIG_NPMRC, "registry=x", "registry=x\n", "");
}
