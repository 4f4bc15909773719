/* Shared fixture of the lowering tests (test-lower*.c): a scratch root with a home and a
 * project, settings with the built-in defaults, and helpers to lower and inspect the policy. */
#pragma once

#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/resolve/lower.h"
#include "lib/settings/settings-policy.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"
#include "test-helpers.h"

static char *root;    /* realpath of the scratch directory */
static char *home;    /* root/home */
static char *project; /* root/home/proj */
static char **garbage;
static char **envp;
static struct cordon_settings s;
static struct cordon_host h;
static struct cordon_policy *p;
static char **warnings;
static struct cordon_diag diag;
/* A capability policy lower() applies through the policy front end first, when set. */
static struct cordon_cap_policy *fixture_cap;

/* A formatted string freed at teardown. */
_printf_(1, 2) static inline const char *fmt(const char *f, ...)
{
        char *m = NULL;
        va_list ap;
        va_start(ap, f);
        int k = vasprintf(&m, f, ap);
        va_end(ap);
        cr_assert_geq(k, 0);
        cr_assert_eq(strv_consume(&garbage, m), 0);
        return m;
}

static inline const char *in_root(const char *rel)
{
        return fmt("%s/%s", root, rel);
}

static inline void mkdir_p(const char *path)
{
        _cleanup_free_ char *buf = strdup(path);
        cr_assert_not_null(buf);
        for (char *c = buf + 1; *c; c++) {
                if (*c != '/')
                        continue;
                *c = 0;
                cr_assert(mkdir(buf, 0700) == 0 || errno == EEXIST, "mkdir %s: %m", buf);
                *c = '/';
        }
        cr_assert(mkdir(buf, 0700) == 0 || errno == EEXIST, "mkdir %s: %m", buf);
}

static inline void write_file(const char *path, const char *contents)
{
        _cleanup_free_ char *dir = strdup(path);
        cr_assert_not_null(dir);
        *strrchr(dir, '/') = 0;
        mkdir_p(dir);
        FILE *f = fopen(path, "we");
        cr_assert_not_null(f, "fopen %s: %m", path);
        fputs(contents, f);
        cr_assert_eq(fclose(f), 0);
}

static inline bool exists(const char *path)
{
        struct stat st;
        return lstat(path, &st) == 0;
}

static inline int rm_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
        (void)sb;
        (void)ftw;
        return type == FTW_DP ? rmdir(path) : unlink(path);
}

static inline void setup(void)
{
        char tmpl[] = "/tmp/cordon-test-lower-XXXXXX";
        cr_assert_not_null(mkdtemp(tmpl), "mkdtemp: %m");
        root = realpath(tmpl, NULL);
        cr_assert_not_null(root);
        home = strdup(in_root("home"));
        project = strdup(in_root("home/proj"));
        cr_assert(home && project);
        mkdir_p(project);

        write_file(in_root("passwd"), "root:x:0:0:root:/root:/bin/bash\n"
                                      "daemon:x:1:1::/:/usr/sbin/nologin\n"
                                      "someoneelse:x:4242:4242::/home/x:/bin/sh\n"
                                      "nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n");
        write_file(in_root("group"), "root:x:0:\nwheel:x:10:someoneelse\nsomeoneelse:x:4242:\n");

        envp = STRV_MAKE("PATH=/usr/bin:/bin", "HOME=/ignored", "GH_TOKEN=ghp_secret",
                         "GITHUB_PAT=pat", "SSH_AUTH_SOCK=/run/ssh.sock",
                         "ANTHROPIC_API_KEY=sk-allowed", "TERM=xterm", "NOEQUALS");
#ifdef LOWER_FIXTURE_AGENTS_INSTALLED
        /* The default agents are installed (their commands on PATH): their profiles make and
         * bind their state (lower-agents.c). */
        static const char *const agents[] = {"claude", "codex", "gemini"};
        for (size_t i = 0; i < ELEMENTSOF(agents); i++) {
                write_file(fmt("%s/bin/%s", root, agents[i]), "#!/bin/sh\n");
                cr_assert_eq(chmod(fmt("%s/bin/%s", root, agents[i]), 0755), 0);
        }
        char *path = NULL;
        cr_assert_geq(asprintf(&path, "PATH=%s/bin:/usr/bin:/bin", root), 0);
        free(envp[0]);
        envp[0] = path;
#endif
        h = (struct cordon_host){
            .home = home,
            .cwd = project,
            .envp = envp,
            .uid = getuid(),
            .gid = getgid(),
            .passwd_path = in_root("passwd"),
            .group_path = in_root("group"),
        };
        cr_assert_eq(cordon_settings_init_defaults(&s, home), 0);
        /* Whatever package tools this host has on /usr/bin, and the tools' configuration in
         * the scratch home, are left to their own tests (test-lower-caches.c,
         * test-lower-configs.c). */
        s.package_caches = false;
        s.tool_config_copies = false;
        diag = (struct cordon_diag){0};
}

static inline char *mfree(char *m)
{
        free(m);
        return NULL;
}

static inline void teardown(void)
{
        p = cordon_policy_free(p);
        warnings = strv_free(warnings);
        cordon_settings_clear(&s);
        if (fixture_cap) {
                cordon_cap_policy_clear(fixture_cap);
                free(fixture_cap);
                fixture_cap = NULL;
        }
        if (root)
                nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
        root = mfree(root);
        home = mfree(home);
        project = mfree(project);
        envp = strv_free(envp);
        garbage = strv_free(garbage);
}

/* Probes for a launch planned without asking the kernel: Landlock ABI 6 and seccomp. */
static inline int fixture_landlock_abi6(void)
{
        return 6;
}

static inline bool fixture_have_seccomp(void)
{
        return true;
}

/* Each test file declares the suite: TestSuite(lower..., .init = setup, .fini = teardown). */

static inline int lower(void)
{
        p = cordon_policy_free(p);
        warnings = strv_free(warnings);
        diag = (struct cordon_diag){0};
        if (fixture_cap) {
                int r = cordon_settings_apply_cap_policy(&s, fixture_cap, "policy.json", &diag);
                cr_assert_eq(r, 0, "the policy front end: %d (%s)", r, diag.message);
        }
        return cordon_settings_lower(&s, &h, &p, &warnings, &diag);
}

static inline void lower_ok(void)
{
        int r = lower();
        cr_assert_eq(r, 0, "cordon_settings_lower: %d (%s)", r, diag.message);
        cr_assert_not_null(p);
        cr_assert_eq(cordon_policy_validate(p, NULL), 0, "the lowered policy validates");
}

/* The last rule for @guest with @access, or NULL. */
static inline const struct cordon_fs_rule *rule(const char *guest, enum cordon_access access)
{
        const struct cordon_fs_rule *found = NULL;
        for (size_t i = 0; p && i < p->n_fs; i++)
                if (streq(p->fs[i].guest, guest) && p->fs[i].access == access)
                        found = &p->fs[i];
        return found;
}

static inline void dump(void)
{
        for (size_t i = 0; p && i < p->n_fs; i++)
                cr_log_info("%-8s %s <- %s (%s)", cordon_access_to_string(p->fs[i].access),
                            p->fs[i].guest,
                            p->fs[i].access == CORDON_ACCESS_DATA ? "…" : strempty(p->fs[i].host),
                            p->fs[i].origin);
}

static inline void assert_masked(const char *guest)
{
        if (!rule(guest, CORDON_ACCESS_MASKED))
                dump();
        cr_assert_not_null(rule(guest, CORDON_ACCESS_MASKED), "no mask at '%s'", guest);
}

static inline bool warned(const char *needle)
{
        STRV_FOREACH (w, warnings) {
                if (strstr(*w, needle))
                        return true;
        }
        return false;
}

/* The one line of what was made without a line of its own ("created ..."), or NULL. */
static inline const char *created_line(void)
{
        const char *found = NULL;
        STRV_FOREACH (w, warnings)
                if (strncmp(*w, "created ", 8) == 0 && strstr(*w, "(they stay, for the next runs)"))
                        found = found ? "twice" : *w;
        return found;
}

/* Warnings other than that line. */
static inline size_t other_warnings(void)
{
        size_t n = 0;
        const char *c = created_line();
        STRV_FOREACH (w, warnings)
                n += !c || strcmp(*w, c) != 0;
        return n;
}

static inline const char *env_get(const char *name)
{
        size_t l = strlen(name);
        STRV_FOREACH (e, p->envp) {
                if (strncmp(*e, name, l) == 0 && (*e)[l] == '=')
                        return *e + l + 1;
        }
        return NULL;
}
