/* Unit tests for src/lib/settings/settings-finalize.c and settings-admin-paths.c: each admin rule
 * with its positive control (the same input without the admin value changes nothing), symlink
 * tricks, values of the command line, idempotence, resolving a copy, and cordon_settings_copy().
 * The admin baseline is built by hand, as the loader fills it: its values in s->admin and, as
 * the first layer, in s itself. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/net/net-rules.h"
#include "lib/policy/policy.h"
#include "lib/resolve/lower.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/strv.h"
#include "test-helpers.h"

#define ADMIN "/etc/cordon/sandbox.conf:7"

static struct cordon_settings *s;
static char root[PATH_MAX]; /* realpath of a scratch directory */
static char home[PATH_MAX + 8];
static char **warnings;
static struct cordon_diag diag;
static char **garbage;

static void setup(void)
{
        char tmpl[] = "/tmp/cordon-finalize-XXXXXX";
        cr_assert_not_null(mkdtemp(tmpl));
        cr_assert_not_null(realpath(tmpl, root));
        snprintf(home, sizeof(home), "%s/home", root);
        cr_assert_eq(mkdir(home, 0700), 0);
        cr_assert_eq(cordon_settings_new(home, &s), 0);
}

static void teardown(void)
{
        cordon_settings_free(s);
        strv_free(warnings);
        warnings = NULL;
        strv_free(garbage);
        garbage = NULL;
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        cr_assert_eq(system(cmd), 0);
}

TestSuite(finalize, .init = setup, .fini = teardown);

_printf_(1, 2) static const char *fmt(const char *f, ...)
{
        char *m = NULL;
        va_list ap;
        va_start(ap, f);
        cr_assert_geq(vasprintf(&m, f, ap), 0);
        va_end(ap);
        cr_assert_eq(strv_consume(&garbage, m), 0);
        return m;
}

static const char *in_root(const char *rel)
{
        return fmt("%s/%s", root, rel);
}

static void mkdirs(const char *path)
{
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
        cr_assert_eq(system(cmd), 0);
}

static void link_to(const char *target, const char *link)
{
        cr_assert_eq(symlink(target, link), 0, "symlink %s: %m", link);
}

/* The admin baseline assigns @name: a plain NAME=(...) with @reset (the layer's list replaced),
 * else NAME+=(...); @value NULL assigns nothing more. In s->admin and in s alike. */
static void admin(const char *name, const char *value, bool reset)
{
        if (!s->admin) {
                s->admin = calloc(1, sizeof(*s->admin));
                cr_assert_not_null(s->admin);
                cr_assert_eq(cordon_settings_init_defaults(s->admin, home), 0);
                s->admin_set = calloc(cordon_vars_count, sizeof(bool));
                cr_assert_not_null(s->admin_set);
        }
        const struct cordon_var *v = cordon_var_find(name);
        cr_assert_not_null(v, "%s", name);
        s->admin_set[v - cordon_vars] = true;
        struct cordon_settings *layers[] = {s->admin, s};
        for (size_t i = 0; i < ELEMENTSOF(layers); i++) {
                if (reset)
                        cr_assert_eq(cordon_settings_reset(layers[i], name), 0);
                if (v->type == CORDON_VAR_LIST && reset)
                        cordon_list_clear(
                            (struct cordon_list *)(void *)((char *)layers[i] + v->offset));
                if (value)
                        cr_assert_eq(cordon_settings_set(layers[i], name, value, ADMIN, &diag), 0,
                                     "%s=%s: %s", name, value, diag.message);
        }
}

static void user(const char *name, const char *value, const char *origin)
{
        cr_assert_eq(cordon_settings_set(s, name, value, origin, &diag), 0, "%s=%s: %s", name,
                     value, diag.message);
}

/* A user layer's plain NAME=() */
static void user_clear(const char *name)
{
        const struct cordon_var *v = cordon_var_find(name);
        cr_assert_eq(cordon_settings_reset(s, name), 0);
        cordon_list_clear((struct cordon_list *)(void *)((char *)s + v->offset));
}

static int finalize(void)
{
        strv_free(warnings);
        warnings = NULL;
        diag = (struct cordon_diag){0};
        return cordon_settings_finalize(s, &warnings, &diag);
}

static const char *scalar(const char *name, const char **ret_origin)
{
        static char buf[64];
        cr_assert_eq(cordon_settings_get(s, name, buf, sizeof(buf), ret_origin), 0);
        return buf;
}

/* The origin of item @value of list @name, or NULL when it is not there. */
static const char *item(const char *name, const char *value)
{
        ssize_t n = cordon_settings_count(s, name);
        cr_assert_geq(n, 0);
        for (size_t i = 0; i < (size_t)n; i++) {
                const char *v, *o;
                cr_assert_eq(cordon_settings_get_item(s, name, i, &v, &o), 0);
                if (streq(v, value))
                        return o;
        }
        return NULL;
}

static void assert_warned(const char *needle)
{
        size_t hits = 0;
        STRV_FOREACH (w, warnings)
                if (strstr(*w, needle))
                        hits++;
        cr_assert_eq(hits, 1, "one warning with '%s' among %zu", needle, strv_length(warnings));
}

static void assert_quiet(void)
{
        cr_assert_eq(strv_length(warnings), 0, "no warning, got '%s'", warnings ? warnings[0] : "");
        cr_assert_eq(cordon_settings_admin_change_count(s), 0);
}

Test(finalize, restored_lists_put_admin_entries_back)
{
        admin("BLOCKED_FILES", "/srv/site/CLAUDE.md", false);
        admin("HOME_ALWAYS_BLOCKED", ".site-token", false);
        user_clear("BLOCKED_FILES");
        user("BLOCKED_FILES", "/x/mine", "~/.config/cordon/sandbox.conf:2");
        user_clear("HOME_ALWAYS_BLOCKED");
        cr_assert_eq(finalize(), 0, "%s", diag.message);
        cr_assert_str_eq(item("BLOCKED_FILES", "/srv/site/CLAUDE.md"), ADMIN);
        cr_assert_not_null(item("BLOCKED_FILES", "/x/mine"), "user entries stay on top");
        assert_warned(
            "removed admin-enforced BLOCKED_FILES entry '/srv/site/CLAUDE.md' (from " ADMIN
            "): restored");
        /* The admin's list holds the built-in defaults too: all of them come back. */
        cr_assert_str_eq(item("HOME_ALWAYS_BLOCKED", ".site-token"), ADMIN);
        cr_assert_str_eq(item("HOME_ALWAYS_BLOCKED", ".ssh"), "built-in default");
        /* The user's own entry on top only adds to the admin's restrictions, which stay in
         * force whole: no line for it. */
        STRV_FOREACH (w, warnings)
                cr_assert_null(strstr(*w, "changed by a later layer"), "%s", *w);
        /* In registry order: HOME_ALWAYS_BLOCKED's first, then BLOCKED_FILES. */
        const char *name, *msg;
        size_t n = (size_t)cordon_settings_admin_change_count(s);
        cr_assert_eq(cordon_settings_get_admin_change(s, n - 1, &name, &msg), 0);
        cr_assert_str_eq(name, "BLOCKED_FILES");
        cr_assert(strstr(msg, "'/srv/site/CLAUDE.md'"), "%s", msg);
        cr_assert_eq((size_t)cordon_settings_admin_change_count(s), strv_length(warnings));
        cr_assert_eq(cordon_settings_get_admin_change(s, strv_length(warnings), NULL, NULL),
                     -ERANGE);
}

Test(finalize, restored_lists_control_without_admin)
{
        user("BLOCKED_FILES", "/srv/site/CLAUDE.md", "~/.config/cordon/sandbox.conf:1");
        user_clear("BLOCKED_FILES");
        user_clear("HOME_ALWAYS_BLOCKED");
        /* No agent either: each profile adds its instruction files to BLOCKED_FILES. */
        user_clear("ENABLED_AGENTS");
        cr_assert_eq(finalize(), 0);
        cr_assert_eq(cordon_settings_count(s, "BLOCKED_FILES"), 0);
        cr_assert_eq(cordon_settings_count(s, "HOME_ALWAYS_BLOCKED"), 0);
        assert_quiet();
}

Test(finalize, restored_network_blocklist_and_env)
{
        admin("NETWORK_BLOCKLIST", "*.paste.example", false);
        admin("BLOCKED_ENV_VARS", "SITE_SECRET", false);
        user_clear("NETWORK_BLOCKLIST");
        user_clear("BLOCKED_ENV_VARS");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(item("NETWORK_BLOCKLIST", "*.paste.example"), ADMIN);
        cr_assert_str_eq(item("BLOCKED_ENV_VARS", "SITE_SECRET"), ADMIN);
        cr_assert_str_eq(item("BLOCKED_ENV_VARS", "GITHUB_PAT"), "built-in default");
}

Test(finalize, harden_only_booleans)
{
        admin("PRIVATE_TMP", "true", false);
        admin("FILTER_PASSWD", "true", false);
        user("PRIVATE_TMP", "false", "--share-tmp");
        const char *origin;
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("PRIVATE_TMP", &origin), "true");
        cr_assert_str_eq(origin, ADMIN);
        assert_warned("weakened admin-enforced PRIVATE_TMP=true (from " ADMIN
                      ") to false (from --share-tmp): restored");
        cr_assert_eq(strv_length(warnings), 1, "FILTER_PASSWD was not weakened");
}

Test(finalize, harden_only_control_without_admin)
{
        user("PRIVATE_TMP", "false", "--share-tmp");
        user("NETWORK_FILTER_MODE", "open", "--net");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("PRIVATE_TMP", NULL), "false");
        cr_assert_str_eq(scalar("NETWORK_FILTER_MODE", NULL), "open");
        assert_quiet();
}

Test(finalize, harden_only_ladders_of_the_network)
{
        admin("NETWORK_FILTER_MODE", "proxied", false);
        admin("NETWORK_FILTER_FALLBACK", "stricter", false);
        admin("NETWORK_MAIL_BLOCK", "on", false);
        /* The command line is a layer like any other. */
        user("NETWORK_FILTER_MODE", "filtered", "--net");
        user("NETWORK_FILTER_FALLBACK", "open", "~/.config/cordon/sandbox.conf:4");
        user("NETWORK_MAIL_BLOCK", "auto", "~/.config/cordon/sandbox.conf:5");
        const char *origin;
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("NETWORK_FILTER_MODE", &origin), "proxied");
        cr_assert_str_eq(origin, ADMIN);
        cr_assert_str_eq(scalar("NETWORK_FILTER_FALLBACK", NULL), "stricter");
        cr_assert_str_eq(scalar("NETWORK_MAIL_BLOCK", NULL), "on");
        assert_warned("NETWORK_FILTER_MODE=proxied (from " ADMIN ") to filtered (from --net)");
        cr_assert_eq(strv_length(warnings), 3);
}

Test(finalize, harden_only_allows_stricter)
{
        admin("NETWORK_FILTER_MODE", "filtered", false);
        admin("NETWORK_FILTER_FALLBACK", "stricter", false);
        user("NETWORK_FILTER_MODE", "isolated", "--net");
        user("NETWORK_FILTER_FALLBACK", "strict", "--net");
        const char *origin;
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("NETWORK_FILTER_MODE", &origin), "isolated");
        cr_assert_str_eq(origin, "--net");
        cr_assert_str_eq(scalar("NETWORK_FILTER_FALLBACK", NULL), "strict");
        /* Allowed, and said: the value in force is not the admin's. */
        assert_warned("admin-set NETWORK_FILTER_MODE=filtered (from " ADMIN
                      ") changed to isolated (from --net) by a later layer");
        assert_warned("admin-set NETWORK_FILTER_FALLBACK=stricter (from " ADMIN
                      ") changed to strict (from --net) by a later layer");
        cr_assert_eq(strv_length(warnings), 2);
}

Test(finalize, harden_only_cordons_own_ladders)
{
        /* SANDBOX_PROFILE and CORDON_HANDLER_SANDBOX climb their enum order... */
        admin("SANDBOX_PROFILE", "os_hardened", false);
        admin("CORDON_HANDLER_SANDBOX", "enforce", false);
        user("SANDBOX_PROFILE", "worktree", "--profile");
        user("CORDON_HANDLER_SANDBOX", "warn", "env CORDON_HANDLER_SANDBOX");
        /* ...a capability policy's grants run the other way: fewer is stricter. */
        admin("POLICY_PROCESS_EXEC", "false", false);
        admin("SIDE_EFFECT_LEVEL", "read_only", false);
        admin("POLICY_WORKSPACE_WRITES", "true", false);
        user("POLICY_PROCESS_EXEC", "true", "policy.json: /capabilities");
        user("SIDE_EFFECT_LEVEL", "network", "policy.json: /side_effect_level");
        user("POLICY_WORKSPACE_WRITES", "false", "policy.json: /capabilities");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("SANDBOX_PROFILE", NULL), "os_hardened");
        cr_assert_str_eq(scalar("CORDON_HANDLER_SANDBOX", NULL), "enforce");
        cr_assert_str_eq(scalar("POLICY_PROCESS_EXEC", NULL), "false");
        cr_assert_str_eq(scalar("SIDE_EFFECT_LEVEL", NULL), "read_only");
        cr_assert_str_eq(scalar("POLICY_WORKSPACE_WRITES", NULL), "false",
                         "false is stricter than the admin's true: kept");
        assert_warned("admin-set POLICY_WORKSPACE_WRITES=true (from " ADMIN ") changed to false");
        cr_assert_eq(strv_length(warnings), 5);
}

Test(finalize, home_readonly_cannot_become_writable)
{
        admin("HOME_READONLY", ".config/site", false);
        user("HOME_WRITABLE", ".config/site", "~/.config/cordon/conf.d/a.conf:3");
        user("HOME_WRITABLE", ".bashrc", "--home-rw");
        user_clear("HOME_READONLY");
        cr_assert_eq(finalize(), 0);
        cr_assert_null(item("HOME_WRITABLE", ".config/site"));
        cr_assert_null(item("HOME_WRITABLE", ".bashrc"), "the admin's list holds the defaults");
        cr_assert_str_eq(item("HOME_READONLY", ".config/site"), ADMIN);
        cr_assert_str_eq(item("HOME_READONLY", ".bashrc"), "built-in default");
        cr_assert_not_null(item("HOME_WRITABLE", ".claude/projects"), "other entries stay");
        assert_warned("admin-enforced HOME_READONLY entry '.config/site' (from " ADMIN
                      ") cannot be writable: removed from HOME_WRITABLE (from "
                      "~/.config/cordon/conf.d/a.conf:3)");
}

Test(finalize, home_readonly_control_without_admin)
{
        user("HOME_WRITABLE", ".bashrc", "--home-rw");
        cr_assert_eq(finalize(), 0);
        cr_assert_not_null(item("HOME_WRITABLE", ".bashrc"));
        assert_quiet();
}

Test(finalize, denied_writable_paths_strip_literal_and_symlinked_entries)
{
        const char *denied = in_root("clinical");
        mkdirs(fmt("%s/study", denied));
        mkdirs(in_root("scratch"));
        link_to(denied, in_root("innocent")); /* a writable entry that is a link */
        link_to(in_root("clinical/study"), fmt("%s/.cache", home)); /* a home entry */
        link_to(denied, fmt("%s/later", home)); /* a home entry that does not exist yet */
        admin("DENIED_WRITABLE_PATHS", denied, false);
        user("EXTRA_WRITABLE_PATHS", fmt("%s/study", denied), "--rw");
        user("EXTRA_WRITABLE_PATHS", in_root("innocent/study"), "--rw");
        user("EXTRA_WRITABLE_PATHS", root, "--rw"); /* a parent makes it writable too */
        user("EXTRA_WRITABLE_PATHS", in_root("scratch"), "--rw");
        user("HOME_WRITABLE", ".cache", "--home-rw");
        user("HOME_WRITABLE", "later/new/dir", "--home-rw");
        cr_assert_eq(finalize(), 0, "%s", diag.message);
        cr_assert_eq(cordon_settings_count(s, "EXTRA_WRITABLE_PATHS"), 1);
        cr_assert_not_null(item("EXTRA_WRITABLE_PATHS", in_root("scratch")));
        cr_assert_null(item("HOME_WRITABLE", ".cache"));
        cr_assert_null(item("HOME_WRITABLE", "later/new/dir"));
        cr_assert_not_null(item("HOME_WRITABLE", ".claude/projects"));
        assert_warned(fmt("EXTRA_WRITABLE_PATHS entry '%s' (from --rw) overlaps admin-denied "
                          "DENIED_WRITABLE_PATHS entry '%s' (from " ADMIN "): removed",
                          in_root("innocent/study"), denied));
        cr_assert_eq(strv_length(warnings), 5);
}

Test(finalize, denied_writable_path_that_is_a_symlink)
{
        mkdirs(in_root("real/data"));
        link_to(in_root("real"), in_root("denied-link"));
        admin("DENIED_WRITABLE_PATHS", in_root("denied-link"), false);
        user("EXTRA_WRITABLE_PATHS", in_root("real/data"), "--rw");
        cr_assert_eq(finalize(), 0);
        cr_assert_eq(cordon_settings_count(s, "EXTRA_WRITABLE_PATHS"), 0);
        assert_warned("overlaps admin-denied");
}

Test(finalize, denied_writable_paths_refuse_the_project)
{
        mkdirs(in_root("clinical/proj"));
        admin("DENIED_WRITABLE_PATHS", in_root("clinical"), false);
        user("PROJECT_DIR", in_root("clinical/proj"), "--project-dir");
        user("EXTRA_WRITABLE_PATHS", in_root("clinical"), "--rw");
        cr_assert_eq(finalize(), -EPERM);
        cr_assert(strstr(diag.message, "project directory"), "%s", diag.message);
        cr_assert_not(s->finalized);
        cr_assert_eq(cordon_settings_count(s, "EXTRA_WRITABLE_PATHS"), 1,
                     "a refusal leaves the settings as they were");
}

Test(finalize, denied_writable_paths_are_the_admins_alone)
{
        mkdirs(in_root("a"));
        admin("DENIED_WRITABLE_PATHS", in_root("a"), false);
        user("DENIED_WRITABLE_PATHS", in_root("b"), "~/.config/cordon/sandbox.conf:9");
        cr_assert_eq(finalize(), 0);
        cr_assert_eq(cordon_settings_count(s, "DENIED_WRITABLE_PATHS"), 1);
        cr_assert_str_eq(item("DENIED_WRITABLE_PATHS", in_root("a")), ADMIN);
        assert_warned(fmt("DENIED_WRITABLE_PATHS is honoured from the admin baseline only: "
                          "ignored '%s' (from ~/.config/cordon/sandbox.conf:9)",
                          in_root("b")));
}

Test(finalize, denied_writable_paths_control_without_admin)
{
        mkdirs(in_root("a/b"));
        user("DENIED_WRITABLE_PATHS", in_root("a"), "~/.config/cordon/sandbox.conf:9");
        user("EXTRA_WRITABLE_PATHS", in_root("a/b"), "--rw");
        cr_assert_eq(finalize(), 0);
        cr_assert_eq(cordon_settings_count(s, "DENIED_WRITABLE_PATHS"), 0, "ignored");
        cr_assert_not_null(item("EXTRA_WRITABLE_PATHS", in_root("a/b")));
        cr_assert_eq(strv_length(warnings), 1, "only the line saying it is ignored");
}

Test(finalize, allowed_project_parents_narrow_only)
{
        mkdirs(in_root("projects/lab"));
        mkdirs(in_root("projectsfoo"));
        mkdirs(in_root("outside"));
        mkdirs(fmt("%s/src", home));
        link_to(in_root("outside"), in_root("projects/escape"));
        admin("ALLOWED_PROJECT_PARENTS", in_root("projects"), true);
        admin("ALLOWED_PROJECT_PARENTS", "${HOME}", false);
        user("ALLOWED_PROJECT_PARENTS", in_root("projects/lab"), "--allow-parent");
        user("ALLOWED_PROJECT_PARENTS", in_root("projectsfoo"), "--allow-parent");
        user("ALLOWED_PROJECT_PARENTS", in_root("projects/escape"), "--allow-parent");
        user("ALLOWED_PROJECT_PARENTS", "~/src", "~/.config/cordon/sandbox.conf:1");
        user("ALLOWED_PROJECT_PARENTS", "/tmp", "~/.config/cordon/sandbox.conf:2");
        cr_assert_eq(finalize(), 0, "%s", diag.message);
        cr_assert_not_null(item("ALLOWED_PROJECT_PARENTS", in_root("projects")));
        cr_assert_not_null(item("ALLOWED_PROJECT_PARENTS", "${HOME}"));
        cr_assert_not_null(item("ALLOWED_PROJECT_PARENTS", in_root("projects/lab")));
        cr_assert_not_null(item("ALLOWED_PROJECT_PARENTS", "~/src"));
        cr_assert_null(item("ALLOWED_PROJECT_PARENTS", in_root("projectsfoo")), "/foo is not "
                                                                                "/foobar's parent");
        cr_assert_null(item("ALLOWED_PROJECT_PARENTS", in_root("projects/escape")),
                       "under the admin's literally, outside once resolved");
        cr_assert_null(item("ALLOWED_PROJECT_PARENTS", "/tmp"));
        cr_assert_eq(cordon_settings_count(s, "ALLOWED_PROJECT_PARENTS"), 4);
        assert_warned(fmt("admin-set ALLOWED_PROJECT_PARENTS changed by a later layer: added "
                          "'%s' (from --allow-parent), '~/src' (from "
                          "~/.config/cordon/sandbox.conf:1)",
                          in_root("projects/lab")));
        cr_assert_eq(strv_length(warnings), 4);
        assert_warned(fmt("ALLOWED_PROJECT_PARENTS entry '%s' (from --allow-parent) is not at or "
                          "below an admin-enforced ALLOWED_PROJECT_PARENTS entry; it resolves "
                          "to %s: removed",
                          in_root("projects/escape"), in_root("outside")));
}

Test(finalize, allowed_project_parents_refuse_when_none_is_left)
{
        mkdirs(in_root("projects"));
        admin("ALLOWED_PROJECT_PARENTS", in_root("projects"), true);
        user_clear("ALLOWED_PROJECT_PARENTS");
        user("ALLOWED_PROJECT_PARENTS", "/var/tmp", "--allow-parent");
        cr_assert_eq(finalize(), -EPERM);
        cr_assert(strstr(diag.message, "no allowed project parent is left"), "%s", diag.message);
        cr_assert_eq(cordon_settings_count(s, "ALLOWED_PROJECT_PARENTS"), 1, "unchanged");
}

Test(finalize, allowed_project_parents_control_without_admin)
{
        user("ALLOWED_PROJECT_PARENTS", "/opt/anything", "--allow-parent");
        cr_assert_eq(finalize(), 0);
        cr_assert_eq(cordon_settings_count(s, "ALLOWED_PROJECT_PARENTS"), 4);
        assert_quiet();
}

Test(finalize, policy_roots_and_presets_narrow_only)
{
        mkdirs(in_root("work/a"));
        mkdirs(in_root("elsewhere"));
        admin("POLICY_WRITE_ROOTS", in_root("work"), false);
        admin("POLICY_PRESETS", "system_runtime", true);
        user("POLICY_WRITE_ROOTS", in_root("work/a"), "policy.json: /process_sandbox/write/0");
        user("POLICY_WRITE_ROOTS", in_root("elsewhere"), "policy.json: /process_sandbox/write/1");
        user("POLICY_PRESETS", "user_temp", "policy.json: /process_sandbox/presets/0");
        cr_assert_eq(finalize(), 0);
        cr_assert_not_null(item("POLICY_WRITE_ROOTS", in_root("work/a")));
        cr_assert_null(item("POLICY_WRITE_ROOTS", in_root("elsewhere")));
        cr_assert_null(item("POLICY_PRESETS", "user_temp"));
        cr_assert_not_null(item("POLICY_PRESETS", "system_runtime"));
        assert_warned("admin-set POLICY_WRITE_ROOTS changed by a later layer: added");
        cr_assert_eq(strv_length(warnings), 3);
}

Test(finalize, exceptions_under_an_admin_block_are_stripped)
{
        admin("NETWORK_BLOCKLIST", "*.evil.example", false);
        admin("NETWORK_BLOCKLIST_EXCEPT", "ok.evil.example", false);
        user("NETWORK_BLOCKLIST_EXCEPT", "x.evil.example", "--allow-host");
        user("NETWORK_BLOCKLIST_EXCEPT", "github.com", "--allow-host");
        cr_assert_eq(finalize(), 0);
        cr_assert_null(item("NETWORK_BLOCKLIST_EXCEPT", "x.evil.example"));
        cr_assert_not_null(item("NETWORK_BLOCKLIST_EXCEPT", "github.com"));
        cr_assert_str_eq(item("NETWORK_BLOCKLIST_EXCEPT", "ok.evil.example"), ADMIN,
                         "the admin's own exception stays");
        assert_warned(
            "NETWORK_BLOCKLIST_EXCEPT entry 'x.evil.example' (from --allow-host) is "
            "covered by admin-enforced NETWORK_BLOCKLIST entry '*.evil.example' (from " ADMIN
            "): removed");
        assert_warned("admin-set NETWORK_BLOCKLIST_EXCEPT changed by a later layer: added "
                      "'github.com' (from --allow-host)");
        cr_assert_eq(strv_length(warnings), 2);
}

Test(finalize, exceptions_control_without_admin)
{
        user("NETWORK_BLOCKLIST", "*.evil.example", "--block");
        user("NETWORK_BLOCKLIST_EXCEPT", "x.evil.example", "--allow-host");
        cr_assert_eq(finalize(), 0);
        cr_assert_not_null(item("NETWORK_BLOCKLIST_EXCEPT", "x.evil.example"));
        assert_quiet();
}

/* HOME_ACCESS climbs write < read < tmpwrite < restricted, not its enum order. */
Test(finalize, home_access_is_harden_only)
{
        admin("HOME_ACCESS", "tmpwrite", false);
        user("HOME_ACCESS", "write", "--home-access");
        const char *origin;
        cr_assert_eq(finalize(), 0, "%s", diag.message);
        cr_assert_str_eq(scalar("HOME_ACCESS", &origin), "tmpwrite");
        cr_assert_str_eq(origin, ADMIN);
        assert_warned("weakened admin-enforced HOME_ACCESS=tmpwrite (from " ADMIN
                      ") to write (from --home-access): restored");
        user("HOME_ACCESS", "read", "env HOME_ACCESS");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("HOME_ACCESS", NULL), "tmpwrite", "read sees every real file");
        user("HOME_ACCESS", "restricted", "--home-access");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("HOME_ACCESS", NULL), "restricted", "stricter: kept");
        assert_warned("admin-set HOME_ACCESS=tmpwrite (from " ADMIN
                      ") changed to restricted (from --home-access) by a later layer");
        cr_assert_eq(strv_length(warnings), 1);
}

Test(finalize, home_access_ladder_from_read)
{
        admin("HOME_ACCESS", "read", false);
        user("HOME_ACCESS", "write", "--home-access");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("HOME_ACCESS", NULL), "read");
        user("HOME_ACCESS", "tmpwrite", "--home-access");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("HOME_ACCESS", NULL), "tmpwrite");
}

/* Pinned: the admin's value, whatever the other layer asks, stricter or not. */
Test(finalize, pinned_scalars_take_the_admins_value)
{
        admin("NETWORK_PROXY_DNS", "192.0.2.53", false);
        admin("SANDBOX_BACKEND", "ns", false);
        admin("NETWORK_FILTER_HELPER", "/usr/bin/pasta", false);
        user("NETWORK_PROXY_DNS", "203.0.113.66:53", "--proxy-dns");
        user("SANDBOX_BACKEND", "landlock", "env SANDBOX_BACKEND");
        user("NETWORK_FILTER_HELPER", "/home/u/proj/evil", "--set NETWORK_FILTER_HELPER");
        const char *origin;
        cr_assert_eq(finalize(), 0, "%s", diag.message);
        cr_assert_str_eq(scalar("NETWORK_PROXY_DNS", &origin), "192.0.2.53");
        cr_assert_str_eq(origin, ADMIN);
        cr_assert_str_eq(scalar("SANDBOX_BACKEND", NULL), "ns");
        cr_assert_str_eq(scalar("NETWORK_FILTER_HELPER", NULL), "/usr/bin/pasta");
        assert_warned("changed admin-pinned NETWORK_PROXY_DNS=192.0.2.53 (from " ADMIN
                      ") to 203.0.113.66:53 (from --proxy-dns): restored");
        assert_warned("changed admin-pinned SANDBOX_BACKEND=ns (from " ADMIN
                      ") to landlock (from env SANDBOX_BACKEND): restored");
        assert_warned("changed admin-pinned NETWORK_FILTER_HELPER=/usr/bin/pasta");
        cr_assert_eq(strv_length(warnings), 3);
}

Test(finalize, git_and_terminal_are_harden_only)
{
        admin("PROTECT_GIT_CONFIG", "true", false);
        admin("TERMINAL_PASSTHROUGH", "false", false);
        user("PROTECT_GIT_CONFIG", "false", "env PROTECT_GIT_CONFIG");
        user("TERMINAL_PASSTHROUGH", "true", "--terminal-passthrough");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("PROTECT_GIT_CONFIG", NULL), "true");
        cr_assert_str_eq(scalar("TERMINAL_PASSTHROUGH", NULL), "false");
        assert_warned("weakened admin-enforced PROTECT_GIT_CONFIG=true");
        assert_warned("weakened admin-enforced TERMINAL_PASSTHROUGH=false");
        cr_assert_eq(strv_length(warnings), 2);
}

Test(finalize, security_scalars_control_without_admin)
{
        user("HOME_ACCESS", "write", "--home-access");
        user("NETWORK_PROXY_DNS", "203.0.113.66", "--proxy-dns");
        user("SANDBOX_BACKEND", "landlock", "env SANDBOX_BACKEND");
        user("PROTECT_GIT_CONFIG", "false", "env PROTECT_GIT_CONFIG");
        user("TERMINAL_PASSTHROUGH", "true", "--terminal-passthrough");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("HOME_ACCESS", NULL), "write");
        cr_assert_str_eq(scalar("NETWORK_PROXY_DNS", NULL), "203.0.113.66");
        cr_assert_str_eq(scalar("SANDBOX_BACKEND", NULL), "landlock");
        cr_assert_str_eq(scalar("PROTECT_GIT_CONFIG", NULL), "false");
        cr_assert_str_eq(scalar("TERMINAL_PASSTHROUGH", NULL), "true");
        assert_quiet();
}

/* A row with no admin rule: the later layer's value stands, with a line saying so. */
Test(finalize, any_change_to_an_admin_value_is_said)
{
        admin("NO_PTY", "true", false);
        admin("SANDBOX_ENV", "SITE=1", false);
        user("NO_PTY", "false", "~/.config/cordon/conf.d/a.conf:2");
        user_clear("SANDBOX_ENV");
        user("SANDBOX_ENV", "MINE=2", "--env");
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("NO_PTY", NULL), "false");
        assert_warned("admin-set NO_PTY=true (from " ADMIN
                      ") changed to false (from ~/.config/cordon/conf.d/a.conf:2) by a later "
                      "layer");
        assert_warned("admin-set SANDBOX_ENV changed by a later layer: added 'MINE=2' (from "
                      "--env); removed 'SITE=1' (from " ADMIN ")");
        cr_assert_eq(strv_length(warnings), 2);
        /* The same value as the admin's is no change. */
        user("NO_PTY", "true", "--no-pty");
        user("SANDBOX_ENV", "SITE=1", "--env");
        cr_assert_eq(finalize(), 0);
        assert_warned("added 'MINE=2'");
        cr_assert_eq(strv_length(warnings), 1);
}

/* HOME_ACCESS=write binds the whole home writable: a denied path in it, at it or above it
 * refuses the start; one elsewhere does not. */
Test(finalize, denied_writable_paths_hold_in_write_mode)
{
        mkdirs(fmt("%s/.config/site", home));
        mkdirs(in_root("elsewhere"));
        admin("DENIED_WRITABLE_PATHS", fmt("%s/.config/site", home), false);
        user("HOME_ACCESS", "write", "--home-access");
        cr_assert_eq(finalize(), -EPERM);
        cr_assert(strstr(diag.message, fmt("HOME_ACCESS=write (from --home-access) would make "
                                           "admin-denied DENIED_WRITABLE_PATHS entry '%s/.config/"
                                           "site' (from " ADMIN ") writable",
                                           home)),
                  "%s", diag.message);
        cr_assert_not(s->finalized);
        /* The other modes bind only HOME_WRITABLE writable, which is stripped instead. */
        user("HOME_ACCESS", "read", "--home-access");
        user("HOME_WRITABLE", ".config", "--home-rw");
        cr_assert_eq(finalize(), 0, "%s", diag.message);
        cr_assert_null(item("HOME_WRITABLE", ".config"));
}

/* An admin's stricter HOME_ACCESS is put back first: then nothing is refused. */
Test(finalize, write_mode_restored_before_the_denied_check)
{
        mkdirs(fmt("%s/.config/site", home));
        admin("DENIED_WRITABLE_PATHS", fmt("%s/.config/site", home), false);
        admin("HOME_ACCESS", "read", false);
        user("HOME_ACCESS", "write", "--home-access");
        cr_assert_eq(finalize(), 0, "%s", diag.message);
        cr_assert_str_eq(scalar("HOME_ACCESS", NULL), "read");
        assert_warned("weakened admin-enforced HOME_ACCESS=read");
}

Test(finalize, denied_writable_path_above_the_home_in_write_mode)
{
        admin("DENIED_WRITABLE_PATHS", root, false);
        user("HOME_ACCESS", "write", "--home-access");
        cr_assert_eq(finalize(), -EPERM);
        cr_assert(strstr(diag.message, "HOME_ACCESS=write"), "%s", diag.message);
}

Test(finalize, denied_writable_path_elsewhere_in_write_mode)
{
        mkdirs(in_root("elsewhere"));
        admin("DENIED_WRITABLE_PATHS", in_root("elsewhere"), false);
        user("HOME_ACCESS", "write", "--home-access");
        cr_assert_eq(finalize(), 0, "%s", diag.message);
        cr_assert_str_eq(scalar("HOME_ACCESS", NULL), "write");
}

Test(finalize, write_mode_control_without_admin)
{
        mkdirs(fmt("%s/.config/site", home));
        user("DENIED_WRITABLE_PATHS", fmt("%s/.config/site", home), "~/.config/cordon/x.conf:1");
        user("HOME_ACCESS", "write", "--home-access");
        cr_assert_eq(finalize(), 0, "%s", diag.message);
}

Test(finalize, idempotent_and_due_again_after_a_set)
{
        admin("PRIVATE_IPC", "true", false);
        admin("BLOCKED_FILES", "/srv/x", false);
        user("PRIVATE_IPC", "false", "--share-ipc");
        user_clear("BLOCKED_FILES");
        user_clear("ENABLED_AGENTS"); /* the profiles' instruction files would count too */
        cr_assert_eq(finalize(), 0);
        cr_assert_eq(strv_length(warnings), 2);
        cr_assert(s->finalized);
        /* Again: nothing to do. */
        cr_assert_eq(finalize(), 0);
        cr_assert_null(warnings);
        cr_assert_eq(cordon_settings_admin_change_count(s), 2, "the last finalize's changes");
        /* The rules themselves change nothing the second time either. */
        s->finalized = false;
        cr_assert_eq(finalize(), 0);
        cr_assert_null(warnings);
        cr_assert_eq(cordon_settings_count(s, "BLOCKED_FILES"), 1);
        /* A set makes it due; the command line weakening it again is restored again. */
        user("PRIVATE_IPC", "false", "--share-ipc");
        cr_assert_not(s->finalized);
        cr_assert_eq(finalize(), 0);
        cr_assert_str_eq(scalar("PRIVATE_IPC", NULL), "true");
        cr_assert_eq(strv_length(warnings), 1);
        cr_assert_eq(cordon_settings_reset(s, "PRIVATE_IPC"), 0);
        cr_assert_not(s->finalized, "a reset makes it due too");
}

Test(finalize, resolve_finalizes_a_copy)
{
        mkdirs(fmt("%s/proj", home));
        mkdirs(in_root("clinical"));
        admin("DENIED_WRITABLE_PATHS", in_root("clinical"), false);
        admin("PRIVATE_TMP", "true", false);
        user("EXTRA_WRITABLE_PATHS", in_root("clinical"), "--rw");
        user("PRIVATE_TMP", "false", "--share-tmp");
        user("PROJECT_DIR", fmt("%s/proj", home), "--project-dir");
        char *const envp[] = {NULL};
        struct cordon_host h = {
            .home = home, .cwd = root, .envp = envp, .uid = getuid(), .gid = getgid()};
        struct cordon_policy *p = NULL;
        cr_assert_eq(cordon_settings_resolve(s, &h, &p, &warnings, &diag), 0, "%s", diag.message);
        cr_assert_null(cordon_policy_find_fs(p, in_root("clinical")), "not bound writable");
        assert_warned("overlaps admin-denied");
        assert_warned("weakened admin-enforced PRIVATE_TMP=true");
        cordon_policy_free(p);
        /* The caller's settings are untouched. */
        cr_assert_not(s->finalized);
        cr_assert_not_null(item("EXTRA_WRITABLE_PATHS", in_root("clinical")));
        cr_assert_str_eq(scalar("PRIVATE_TMP", NULL), "false");
        cr_assert_eq(cordon_settings_admin_change_count(s), 0);

        /* Finalized first: resolve uses the settings as they are, and says nothing more. */
        cr_assert_eq(finalize(), 0);
        strv_free(warnings);
        warnings = NULL;
        cr_assert_eq(cordon_settings_resolve(s, &h, &p, &warnings, &diag), 0, "%s", diag.message);
        cr_assert_eq(strv_length(warnings), 0);
        cordon_policy_free(p);
}

Test(finalize, resolve_refuses_a_working_directory_under_a_denied_path)
{
        mkdirs(fmt("%s/proj", home));
        admin("DENIED_WRITABLE_PATHS", fmt("%s/proj", home), false);
        char *const envp[] = {NULL};
        struct cordon_host h = {.home = home,
                                .cwd = fmt("%s/proj", home),
                                .envp = envp,
                                .uid = getuid(),
                                .gid = getgid()};
        struct cordon_policy *p = NULL;
        cr_assert_eq(cordon_settings_resolve(s, &h, &p, &warnings, &diag), -EPERM);
        cr_assert(strstr(diag.message, "DENIED_WRITABLE_PATHS"), "%s", diag.message);
}

Test(finalize, copy_is_deep)
{
        admin("BLOCKED_FILES", "/srv/x", false);
        user("PROJECT_DIR", "/srv/p", "--project-dir");
        user("PRIVATE_TMP", "false", "--share-tmp");
        cr_assert_eq(cordon_list_add(&s->config_files, "/etc/cordon/sandbox.conf", "admin"), 0);
        struct cordon_settings c;
        cr_assert_eq(cordon_settings_copy(&c, s), 0);
        cr_assert_str_eq(c.home, s->home);
        cr_assert_neq(c.home, s->home);
        cr_assert_str_eq(c.project_dir, "/srv/p");
        cr_assert_neq(c.project_dir, s->project_dir);
        cr_assert_str_eq(c.private_tmp_origin, "--share-tmp");
        cr_assert_not(c.private_tmp);
        cr_assert_eq(c.blocked_files.n, 1);
        cr_assert_neq(c.blocked_files.items, s->blocked_files.items);
        cr_assert_eq(c.config_files.n, 1);
        cr_assert_not_null(c.admin);
        cr_assert_neq(c.admin, s->admin);
        cr_assert_not_null(cordon_list_find(&c.admin->blocked_files, "/srv/x"));
        cr_assert_neq(c.admin_set, s->admin_set);
        cr_assert(c.admin_set[cordon_var_find("BLOCKED_FILES") - cordon_vars]);
        cr_assert_eq(c.home_readonly.n, s->home_readonly.n);
        /* Changing the copy leaves the original alone. */
        cr_assert_eq(cordon_settings_set(&c, "BLOCKED_FILES", "/srv/y", "--mask", &diag), 0);
        cr_assert_eq(s->blocked_files.n, 1);
        cordon_settings_clear(&c);
        cr_assert_str_eq(s->project_dir, "/srv/p");
}

Test(finalize, home_expansion)
{
        char *out = NULL;
        static const struct {
                const char *in, *out;
        } cases[] = {
            {"$HOME", "/h"},     {"${HOME}", "/h"},       {"~", "/h"},
            {"~/src", "/h/src"}, {"$HOME/a/b", "/h/a/b"}, {"${HOME}/x", "/h/x"},
            {"/abs", "/abs"},    {"$HOMEX", "$HOMEX"},    {"~user/x", "~user/x"},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                cr_assert_eq(cordon_settings_expand_home(cases[i].in, "/h", &out), 1);
                cr_assert_str_eq(out, cases[i].out, "%s", cases[i].in);
                free(out);
        }
        cr_assert_eq(cordon_settings_expand_home("~/src", NULL, &out), 0);
        cr_assert_eq(cordon_settings_expand_home("$HOME", "relative", &out), 0);
        /* The parser takes them for ALLOWED_PROJECT_PARENTS. */
        user("ALLOWED_PROJECT_PARENTS", "~/src", "--allow-parent");
        user("ALLOWED_PROJECT_PARENTS", "${HOME}/x", "--allow-parent");
        cr_assert_eq(cordon_settings_set(s, "ALLOWED_PROJECT_PARENTS", "~user", "x", &diag),
                     -EINVAL);
}

/* The admin's NETWORK_BLOCKLIST entries reach the policy's rule set as the admin tier; a user
 * exception that only partly overlaps one stays, and loses to it there. */
Test(finalize, admin_blocks_reach_the_rules_as_the_admin_tier)
{
        mkdirs(fmt("%s/proj", home));
        admin("NETWORK_BLOCKLIST", "*:18080", false);
        admin("NETWORK_BLOCKLIST_EXCEPT", "198.18.0.9", false);
        user("NETWORK_BLOCKLIST", "198.18.0.0/15", "--block");
        user("NETWORK_BLOCKLIST_EXCEPT", "192.0.2.2", "--allow-host");
        user("PROJECT_DIR", fmt("%s/proj", home), "--project-dir");
        char *const envp[] = {NULL};
        struct cordon_host h = {
            .home = home, .cwd = root, .envp = envp, .uid = getuid(), .gid = getgid()};
        struct cordon_policy *p = NULL;
        cr_assert_eq(cordon_settings_resolve(s, &h, &p, &warnings, &diag), 0, "%s", diag.message);
        const struct cordon_net_rules *r = p->net.rules;
        size_t admin_rules = 0, user_rules = 0;
        for (size_t i = 0; i < cordon_net_rules_count(r); i++) {
                const struct cordon_net_rule *rule = cordon_net_rules_get(r, i);
                if (streq(rule->pattern, "*:18080") || streq(rule->pattern, "198.18.0.9"))
                        admin_rules += rule->admin;
                else if (streq(rule->pattern, "198.18.0.0/15") || streq(rule->pattern, "192.0.2.2"))
                        user_rules += !rule->admin;
        }
        cr_expect_eq(admin_rules, 2);
        cr_expect_eq(user_rules, 2);
        struct cordon_net_addr a;
        struct cordon_net_verdict v;
        cr_assert_eq(cordon_net_addr_parse("192.0.2.2", &a), 0);
        cordon_net_rules_check_addr(r, &a, 18080, false, &v);
        cr_expect_not(v.allow, "the user's exception lifted the admin's *:18080");
        cordon_net_rules_check_addr(r, &a, 443, false, &v);
        cr_expect(v.allow);
        cordon_policy_free(p);
}
