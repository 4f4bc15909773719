/* The configuration as every command loads it, and the readers `cordon config` and
 * `cordon run --dry-run` share (see cli-config.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli-config.h"
#include "shared/log.h"
#include "shared/macro.h"
#include "shared/strv.h"

#define BUILTIN_ORIGIN "built-in default"

static void log_warnings(char **warnings)
{
        STRV_FOREACH (w, warnings)
                log_warning("%s", *w);
}

int cli_config_load(struct cordon_settings *s, char *const *envp, const char *project_dir,
                    unsigned flags)
{
        const struct cordon_config_options o = {
            .envp = envp,
            .project_dir = project_dir,
            .flags = flags,
        };
        _cleanup_strv_free_ char **warnings = NULL;
        struct cordon_diag diag = {0};
        int r = cordon_settings_load_config(s, &o, &warnings, &diag);
        log_warnings(warnings);
        if (r < 0)
                return log_error_errno(r, "%s", *diag.message ? diag.message : strerror(-r));
        return 0;
}

int cli_config_finalize(struct cordon_settings *s)
{
        _cleanup_strv_free_ char **warnings = NULL;
        struct cordon_diag diag = {0};
        int r = cordon_settings_finalize(s, &warnings, &diag);
        log_warnings(warnings);
        if (r < 0)
                return log_error_errno(r, "%s", *diag.message ? diag.message : strerror(-r));
        return 0;
}

int cli_path_absolute(const char *dir, const char *cwd, char **ret)
{
        size_t n = strlen(dir) + (dir[0] == '/' ? 0 : strlen(cwd) + 1) + 2;
        _cleanup_free_ char *in = malloc(n), *out = malloc(n);
        if (!in || !out)
                return -ENOMEM;
        if (dir[0] == '/')
                strcpy(in, dir);
        else
                snprintf(in, n, "%s/%s", cwd, dir);
        /* Lexically: "." dropped, ".." takes the component before it ("/.." stays "/"). */
        size_t len = 0;
        for (char *save = NULL, *c = strtok_r(in, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
                if (streq(c, "."))
                        continue;
                if (streq(c, "..")) {
                        while (len > 0 && out[len - 1] != '/')
                                len--;
                        if (len > 0)
                                len--;
                        continue;
                }
                out[len++] = '/';
                memcpy(out + len, c, strlen(c));
                len += strlen(c);
        }
        if (len == 0)
                out[len++] = '/';
        out[len] = 0;
        *ret = TAKE_PTR(out);
        return 0;
}

int cli_path_from_arg(const char *arg, const char *home, const char *cwd, char **ret)
{
        _cleanup_free_ char *joined = NULL;
        if (arg[0] == '~') {
                if (arg[1] != 0 && arg[1] != '/')
                        return -EINVAL;
                if (!home || home[0] != '/')
                        return -ENOENT;
                if (asprintf(&joined, "%s/%s", home, arg + 1) < 0)
                        return -ENOMEM;
                arg = joined;
        }
        return cli_path_absolute(arg, cwd, ret);
}

int cli_settings_get(const struct cordon_settings *s, const char *name, char **ret,
                     const char **ret_origin)
{
        for (size_t size = 256;; size *= 4) {
                _cleanup_free_ char *buf = malloc(size);
                if (!buf)
                        return -ENOMEM;
                int r = cordon_settings_get(s, name, buf, size, ret_origin);
                if (r == -ENOBUFS && size < (1u << 24))
                        continue;
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(buf);
                return 0;
        }
}

const char *cli_origin_layer(const struct cordon_settings *s, const char *origin,
                             const char **ret_file, unsigned *ret_line)
{
        if (ret_file)
                *ret_file = NULL;
        if (ret_line)
                *ret_line = 0;
        if (!origin)
                return "other";
        ssize_t n = cordon_settings_config_file_count(s);
        for (ssize_t i = 0; i < n; i++) {
                const char *path = NULL, *layer = NULL;
                if (cordon_settings_get_config_file(s, (size_t)i, &path, &layer) < 0 || !path)
                        continue;
                const char *rest = startswith(origin, path);
                if (!rest || rest[0] != ':' || rest[1] < '0' || rest[1] > '9' ||
                    rest[1 + strspn(rest + 1, "0123456789")] != 0)
                        continue;
                if (ret_file)
                        *ret_file = path;
                if (ret_line)
                        *ret_line = (unsigned)strtoul(rest + 1, NULL, 10);
                return layer ?: "file";
        }
        if (streq(origin, BUILTIN_ORIGIN))
                return "built-in";
        if (startswith(origin, "env "))
                return "environment";
        if (startswith(origin, "--"))
                return "command line";
        /* A capability or network policy: "FILE: /json/pointer". */
        const char *pointer = strstr(origin, ": /");
        if (pointer && pointer != origin)
                return "policy file";
        return "other";
}

/* Lists, counted: how many items of @name carry the built-in origin. */
static size_t builtin_items(const struct cordon_settings *s, const char *name)
{
        size_t k = 0;
        ssize_t n = cordon_settings_count(s, name);
        for (ssize_t i = 0; i < n; i++) {
                const char *origin = NULL;
                if (cordon_settings_get_item(s, name, (size_t)i, NULL, &origin) >= 0 &&
                    streq_ptr(origin, BUILTIN_ORIGIN))
                        k++;
        }
        return k;
}

void cli_config_print_origins(FILE *f, const struct cordon_settings *s,
                              const struct cordon_settings *defaults)
{
        ssize_t nf = cordon_settings_config_file_count(s);
        if (nf <= 0)
                fputs("configuration files read: none (built-in defaults only)\n", f);
        else
                fprintf(f, "configuration files read, in order (%zd):\n", nf);
        for (ssize_t i = 0; i < nf; i++) {
                const char *path = NULL, *layer = NULL;
                if (cordon_settings_get_config_file(s, (size_t)i, &path, &layer) >= 0)
                        fprintf(f, "  %-7s %s\n", strempty(layer), strempty(path));
        }

        fputs("settings not at their built-in default:\n", f);
        bool any = false;
        for (size_t v = 0; cordon_settings_variable(v); v++) {
                const char *name = cordon_settings_variable(v);
                ssize_t n = cordon_settings_count(s, name);
                if (n == -ENOTDIR) {
                        _cleanup_free_ char *value = NULL;
                        const char *origin = NULL;
                        if (cli_settings_get(s, name, &value, &origin) < 0 ||
                            streq_ptr(origin, BUILTIN_ORIGIN))
                                continue;
                        fprintf(f, "  %s=%s  (from %s)\n", name, value, strempty(origin));
                        any = true;
                        continue;
                }
                for (ssize_t i = 0; i < n; i++) {
                        const char *value = NULL, *origin = NULL;
                        if (cordon_settings_get_item(s, name, (size_t)i, &value, &origin) < 0 ||
                            streq_ptr(origin, BUILTIN_ORIGIN))
                                continue;
                        fprintf(f, "  %s += %s  (from %s)\n", name, strempty(value),
                                strempty(origin));
                        any = true;
                }
                size_t had = defaults ? builtin_items(defaults, name) : 0;
                size_t kept = n > 0 ? builtin_items(s, name) : 0;
                if (kept < had) {
                        fprintf(f, "  %s: %zu of its %zu built-in default items removed\n", name,
                                had - kept, had);
                        any = true;
                }
        }
        if (!any)
                fputs("  none\n", f);

        ssize_t na = cordon_settings_admin_change_count(s);
        if (na <= 0)
                fputs("admin rules changed: nothing\n", f);
        else
                fprintf(f, "admin rules changed (%zd):\n", na);
        for (ssize_t i = 0; i < na; i++) {
                const char *name = NULL, *message = NULL;
                if (cordon_settings_get_admin_change(s, (size_t)i, &name, &message) >= 0)
                        fprintf(f, "  %s: %s\n", strempty(name), strempty(message));
        }
}
