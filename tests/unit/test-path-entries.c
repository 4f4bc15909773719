/* Unit tests for src/lib/resolve/path-entries.c: the PATH entries below the home and the rule for
 * what their programs need beside them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/resolve/path-entries.h"
#include "shared/macro.h"
#include "shared/strv.h"

Test(path_entries, split_keeps_order_drops_repeats)
{
        char **v = NULL;
        bool truncated = true;
        cr_assert_eq(cordon_path_split("/a:/b::/a:rel:/b", &v, &truncated), 0);
        cr_assert_eq(strv_length(v), 4);
        cr_assert_str_eq(v[0], "/a");
        cr_assert_str_eq(v[1], "/b");
        cr_assert_str_eq(v[2], "");
        cr_assert_str_eq(v[3], "rel");
        cr_assert_not(truncated);
        strv_free(v);

        cr_assert_eq(cordon_path_split(NULL, &v, NULL), 0);
        cr_assert_eq(strv_length(v), 1, "an unset PATH is one empty entry");
        strv_free(v);
}

Test(path_entries, split_is_bounded)
{
        char buf[CORDON_PATH_ENTRIES_MAX * 8 + 64] = "";
        for (int i = 0; i < CORDON_PATH_ENTRIES_MAX + 5; i++) {
                char e[16];
                snprintf(e, sizeof(e), "%s/d%d", i ? ":" : "", i);
                strcat(buf, e);
        }
        char **v = NULL;
        bool truncated = false;
        cr_assert_eq(cordon_path_split(buf, &v, &truncated), 0);
        cr_assert_eq(strv_length(v), CORDON_PATH_ENTRIES_MAX);
        cr_assert(truncated);
        strv_free(v);
}

static int classify(const char *entry, char **norm)
{
        *norm = NULL;
        return cordon_path_entry_classify(entry, "/home/u", norm);
}

Test(path_entries, classify_never_the_home)
{
        char *n = NULL;
        cr_assert_eq(classify("/home/u", &n), CORDON_PATH_ENTRY_HOME);
        cr_assert_eq(classify("/home/u/", &n), CORDON_PATH_ENTRY_HOME);
        cr_assert_eq(classify("/home/u/.", &n), CORDON_PATH_ENTRY_HOME);
        cr_assert_eq(classify("//home//u", &n), CORDON_PATH_ENTRY_HOME);
        cr_assert_eq(classify("/home", &n), CORDON_PATH_ENTRY_HOME, "a parent of the home");
        cr_assert_eq(classify("/", &n), CORDON_PATH_ENTRY_HOME);
        cr_assert_null(n);
        cr_assert_eq(classify("", &n), CORDON_PATH_ENTRY_RELATIVE);
        cr_assert_eq(classify(".", &n), CORDON_PATH_ENTRY_RELATIVE);
        cr_assert_eq(classify("bin", &n), CORDON_PATH_ENTRY_RELATIVE);
        cr_assert_eq(classify("./node_modules/.bin", &n), CORDON_PATH_ENTRY_RELATIVE);
        cr_assert_eq(classify("/home/u/x/../.ssh", &n), CORDON_PATH_ENTRY_RELATIVE,
                     "'..' is never resolved by string");
        cr_assert_eq(classify("/home/u/..", &n), CORDON_PATH_ENTRY_RELATIVE);
        cr_assert_eq(classify("/usr/bin", &n), CORDON_PATH_ENTRY_OUTSIDE);
        cr_assert_eq(classify("/home/user/bin", &n), CORDON_PATH_ENTRY_OUTSIDE,
                     "a component boundary, not a string prefix");
        cr_assert_null(n);
        cr_assert_eq(classify("/home/u//.npm-global/bin/", &n), CORDON_PATH_ENTRY_BELOW);
        cr_assert_str_eq(n, "/home/u/.npm-global/bin");
        free(n);
}

static struct cordon_path_plan plan(const char *rel, unsigned facts)
{
        struct cordon_path_plan p;
        cordon_path_entry_plan(rel, facts, &p);
        cr_assert_not_null(p.companions);
        return p;
}

Test(path_entries, plan_prefixes)
{
        cr_assert_eq(plan(".npm-global/bin", CORDON_PATH_FACT_NODE_PREFIX).prefix_len,
                     strlen(".npm-global"));
        cr_assert_eq(plan(".npm-global/bin", 0).prefix_len, 0, "no npm prefix there");
        cr_assert_eq(plan("venv/bin", CORDON_PATH_FACT_VENV).prefix_len, strlen("venv"));
        cr_assert_eq(plan(".pyenv/shims", CORDON_PATH_FACT_PYENV).prefix_len, strlen(".pyenv"));
        cr_assert_eq(plan(".pyenv/bin", CORDON_PATH_FACT_PYENV).prefix_len, strlen(".pyenv"));
        cr_assert_eq(plan("x/shims", CORDON_PATH_FACT_NODE_PREFIX).prefix_len, 0,
                     "shims only of a pyenv root");
        cr_assert_eq(plan(".volta/bin", 0).prefix_len, strlen(".volta"));
        cr_assert_eq(plan(".bun/bin", 0).prefix_len, strlen(".bun"));
        cr_assert_eq(plan("a/.bun/bin", 0).prefix_len, 0, "by name only right in the home");
        cr_assert_eq(plan(".bunx/bin", 0).prefix_len, 0);
        cr_assert_eq(plan("x/.volta/bin", 0).prefix_len, 0);
        cr_assert_eq(plan("x/lib", CORDON_PATH_FACT_NODE_PREFIX).prefix_len, 0);
}

Test(path_entries, plan_never_a_broad_parent)
{
        /* Their parents hold credentials (~/.cargo, ~/.local) or everything (~). */
        cr_assert_eq(plan(".cargo/bin", 0).prefix_len, 0);
        cr_assert_eq(plan(".local/bin", 0).prefix_len, 0);
        cr_assert_eq(plan("go/bin", 0).prefix_len, 0);
        cr_assert_eq(plan("bin", ~0u).prefix_len, 0, "~/bin: the parent is the home");
        cr_assert_eq(plan("shims", ~0u).prefix_len, 0);
}

Test(path_entries, plan_companions)
{
        struct cordon_path_plan p = plan(".local/bin", 0);
        cr_assert_str_eq(p.companions[0], ".local/lib");
        cr_assert_null(p.companions[1]);
        p = plan(".cargo/bin", 0);
        cr_assert_str_eq(p.companions[0], ".rustup");
        cr_assert_null(p.companions[1]);
        cr_assert_null(plan("go/bin", 0).companions[0]);
        cr_assert_null(plan("x/.local/bin", 0).companions[0]);
}

Test(path_entries, plan_nvm)
{
        cr_assert_eq(plan(".nvm/versions/node/v22.1.0/bin", CORDON_PATH_FACT_NODE_PREFIX).nvm_len,
                     strlen(".nvm"));
        cr_assert_eq(
            plan(".config/nvm/versions/node/v20/bin", CORDON_PATH_FACT_NODE_PREFIX).nvm_len,
            strlen(".config/nvm"));
        cr_assert_eq(plan(".nvm/versions/node/v22/bin", 0).nvm_len, 0, "not an npm prefix");
        cr_assert_eq(plan("versions/node/v22/bin", CORDON_PATH_FACT_NODE_PREFIX).nvm_len, 0,
                     "nvm's directory would be the home");
        cr_assert_eq(plan(".nvm/versions/node/a/b/bin", CORDON_PATH_FACT_NODE_PREFIX).nvm_len, 0);
        cr_assert_eq(plan(".nvm/versions/node/v22/shims", CORDON_PATH_FACT_NODE_PREFIX).nvm_len, 0);
}

Test(path_entries, node_modules_root)
{
        const char *a = ".npm-global/lib/node_modules/@anthropic-ai/claude-code/cli.js";
        cr_assert_eq(cordon_path_node_modules_root(a), strlen(".npm-global/lib/node_modules"));
        const char *b = ".bun/install/global/node_modules/x/node_modules/y/bin.js";
        cr_assert_eq(cordon_path_node_modules_root(b), strlen(".bun/install/global/node_modules"),
                     "the outermost tree");
        cr_assert_eq(cordon_path_node_modules_root("node_modules/pkg/bin/x.js"),
                     strlen("node_modules/pkg"), "right in the home: the package only");
        cr_assert_eq(cordon_path_node_modules_root("node_modules/@s/pkg/x.js"),
                     strlen("node_modules/@s/pkg"));
        cr_assert_eq(cordon_path_node_modules_root("node_modules"), 0);
        cr_assert_eq(cordon_path_node_modules_root("node_modules/@s"), 0);
        cr_assert_eq(cordon_path_node_modules_root("a/my_node_modules/x"), 0);
        cr_assert_eq(cordon_path_node_modules_root("a/node_modulesx/x"), 0);
        cr_assert_eq(cordon_path_node_modules_root(".local/bin/x"), 0);
}
