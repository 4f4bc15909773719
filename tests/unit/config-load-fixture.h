/* Shared fixture of the sandbox.conf loader tests (test-config-load.c, test-config-admin.c): a
 * temporary HOME, stand-ins for the two admin baselines, and a load run in a fork()ed child that
 * writes what it got as text through a pipe: the return value, the message, the warnings, the
 * files and every variable with its origin (and the admin snapshot, when there is one). */
#pragma once

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/config/config-files.h"
#include "lib/config/config-load.h"
#include "lib/config/config-scan.h"
#include "lib/settings/settings.h"
#include "test-helpers.h"

static char root[256];  /* the temporary directory of a test */
static char home[300];  /* root/home */
static char admin[300]; /* root/admin/sandbox.conf: the stand-in baseline (absent by default) */
/* root/agent/sandbox.conf: the stand-in for agent-sandbox's baseline (absent by default) */
static char agent_admin[300];
/* The caller's admin profile (cordon_settings_load_config_with_admin()); NULL: none. */
static const char *admin_profile;

static void setup(void)
{
        snprintf(root, sizeof(root), "/tmp/cordon-test-config-XXXXXX");
        cr_assert_not_null(mkdtemp(root));
        chmod(root, 0755);
        admin_profile = NULL;
        snprintf(home, sizeof(home), "%s/home", root);
        snprintf(admin, sizeof(admin), "%s/admin/sandbox.conf", root);
        snprintf(agent_admin, sizeof(agent_admin), "%s/agent/sandbox.conf", root);
        cr_assert_eq(mkdir(home, 0700), 0);
}

static void teardown(void)
{
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        (void)!system(cmd);
}

TestSuite(config, .init = setup, .fini = teardown, .timeout = 60);

/* Writes @text to @path (relative to home when not absolute), making its directories. */
static void put(const char *path, const char *text)
{
        char full[600];
        if (path[0] == '/')
                snprintf(full, sizeof(full), "%s", path);
        else
                snprintf(full, sizeof(full), "%s/%s", home, path);
        for (char *s = full + 1; (s = strchr(s, '/')); s++) {
                *s = 0;
                (void)mkdir(full, 0755);
                *s = '/';
        }
        FILE *f = fopen(full, "w");
        cr_assert_not_null(f, "%s", full);
        fputs(text, f);
        fclose(f);
}

/* Writes admin file @path as put() does, mode 0644 (as a baseline must be). */
static void put_admin(const char *path, const char *text)
{
        put(path, text);
        cr_assert_eq(chmod(path, 0644), 0, "%s", path);
}

struct result {
        int r;
        char text[1 << 17];
};

static void emit(FILE *f, struct cordon_settings *s)
{
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const char *name = cordon_vars[i].name;
                if (cordon_vars[i].type == CORDON_VAR_LIST) {
                        ssize_t n = cordon_settings_count(s, name);
                        for (ssize_t j = 0; j < n; j++) {
                                const char *v, *o;
                                cordon_settings_get_item(s, name, (size_t)j, &v, &o);
                                fprintf(f, "%s[]=%s @%s\n", name, v, o);
                        }
                } else {
                        char buf[4096];
                        const char *o = NULL;
                        if (cordon_settings_get(s, name, buf, sizeof(buf), &o) == 0)
                                fprintf(f, "%s=%s @%s\n", name, buf, o);
                }
        }
}

/* Loads with @envp (HOME and PATH added) in a child; @flags: CORDON_CONFIG_*. */
static void load(struct result *res, unsigned flags, enum cordon_backend backend,
                 const char *const *extra_env)
{
        int pfd[2];
        cr_assert_eq(pipe(pfd), 0);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
                close(pfd[0]);
                FILE *f = fdopen(pfd[1], "w");
                char h[400];
                snprintf(h, sizeof(h), "HOME=%s", home);
                char **env = STRV_MAKE(h, "PATH=/usr/bin:/bin");
                for (const char *const *e = extra_env; e && *e; e++)
                        strv_extend(&env, *e);
                struct cordon_settings *s = NULL;
                if (cordon_settings_new(home, &s) < 0)
                        _exit(3);
                struct cordon_config_options o = {
                    .envp = env, .project_dir = "/srv/project", .flags = flags};
                struct cordon_config_load_params params = {.agent_admin_path = agent_admin,
                                                           .admin_path = admin,
                                                           .admin_profile = admin_profile,
                                                           .admin_owner = getuid(),
                                                           .caller = getuid(),
                                                           .backend = backend};
                char **warnings = NULL;
                struct cordon_diag d = {0};
                int r = cordon_config_load_with(s, &o, &params, &warnings, &d);
                fprintf(f, "r=%d\nmsg=%s\n", r, d.message);
                STRV_FOREACH (w, warnings)
                        fprintf(f, "warning=%s\n", *w);
                for (ssize_t i = 0; i < cordon_settings_config_file_count(s); i++) {
                        const char *p, *l;
                        cordon_settings_get_config_file(s, (size_t)i, &p, &l);
                        fprintf(f, "file=%s %s\n", l, p);
                }
                if (s->admin) {
                        fputs("admin:\n", f);
                        emit(f, s->admin);
                        for (size_t i = 0; i < cordon_vars_count; i++)
                                if (s->admin_set[i])
                                        fprintf(f, "admin_set=%s\n", cordon_vars[i].name);
                        fputs("all:\n", f);
                }
                emit(f, s);
                fclose(f);
                _exit(0);
        }
        close(pfd[1]);
        size_t n = 0;
        ssize_t k;
        while ((k = read(pfd[0], res->text + n, sizeof(res->text) - 1 - n)) > 0)
                n += (size_t)k;
        res->text[n] = 0;
        close(pfd[0]);
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child failed: %d", st);
        cr_assert_eq(sscanf(res->text, "r=%d", &res->r), 1);
}

static void has(const struct result *res, const char *line)
{
        cr_assert_not_null(strstr(res->text, line), "missing '%s' in:\n%.4000s", line, res->text);
}

static void lacks(const struct result *res, const char *line)
{
        cr_assert_null(strstr(res->text, line), "unexpected '%s' in:\n%.4000s", line, res->text);
}

static void ok(struct result *res, unsigned flags)
{
        load(res, flags, CORDON_BACKEND_AUTO, NULL);
        cr_assert_eq(res->r, 0, "load failed:\n%.3000s", res->text);
}

static struct result res;
