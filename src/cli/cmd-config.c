/* `cordon config show|explain`: the effective configuration as `cordon run` would load it
 * (sandbox.conf layers, the environment, the admin rules), every value with its origin. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli-config.h"
#include "cli/cli-options.h"
#include "cli/commands.h"
#include "cli/config-explain.h"
#include "cordon/settings.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "shared/macro.h"

extern char **environ;

enum config_option_id {
        CONFIG_OPT_JSON = CLI_OPTION_FIRST_ID,
        CONFIG_OPT_PROJECT_DIR,
        CONFIG_OPT_HELP,
};

static const struct cli_option config_options[] = {
    {"json", 0, NULL, CONFIG_OPT_JSON, "show: print one JSON object (see cordon-config(5))"},
    {"project-dir", 'p', "DIR", CONFIG_OPT_PROJECT_DIR,
     "the project the configuration is read for (_PROJECT_DIR; default: the working directory)"},
    {"help", 'h', NULL, CONFIG_OPT_HELP, "show this help and exit"},
};
CLI_OPTIONS_ASSERT_FITS(config_options);

static void config_help(FILE *f)
{
        fprintf(f, "Usage: cordon config show [--json] [--project-dir DIR]\n"
                   "       cordon config explain [--project-dir DIR] KEY|PATH\n\n"
                   "The effective configuration, as `cordon run` loads it: the sandbox.conf files\n"
                   "(admin, user, conf.d), the environment, and the admin rules.\n"
                   "  show     every variable with its value and origin, the files read and what\n"
                   "           the admin rules changed\n"
                   "  explain  KEY: the layer, file and line that set the variable, and the admin\n"
                   "           rules that changed it; PATH (starting with /, ~ or .): every rule\n"
                   "           that touches it, in mount order, and which one wins\n\n"
                   "Options:\n");
        cli_options_print(f, config_options, ELEMENTSOF(config_options), 20);
        fprintf(f, "\nExit status: 0 on success, 2 for a usage error or an unknown KEY, 125 when\n"
                   "the configuration cannot be loaded or resolved.\n");
}

struct config_args {
        bool json, help;
        const char *project_dir;
        char **args; /* the subcommand and its operands, pointers into argv */
        int n;
};

/* Returns 0, or -EINVAL after the usage error's line. */
static int config_parse(int argc, char **argv, struct config_args *a)
{
        struct cli_getopt g;
        cli_options_prepare(config_options, ELEMENTSOF(config_options), ":", &g);
        for (;;) {
                int c =
                    cli_options_next(config_options, ELEMENTSOF(config_options), &g, argc, argv);
                if (c == -1)
                        break;
                switch (c) {
                case CONFIG_OPT_JSON:
                        a->json = true;
                        break;
                case CONFIG_OPT_PROJECT_DIR:
                        a->project_dir = optarg;
                        break;
                case CONFIG_OPT_HELP:
                        a->help = true;
                        return 0;
                default: {
                        char err[256];
                        cli_options_error(c, config_options, ELEMENTSOF(config_options), argv, err,
                                          sizeof(err));
                        usage_error("config", "%s", err);
                        return -EINVAL;
                }
                }
        }
        a->args = argv + optind;
        a->n = argc - optind;
        return 0;
}

/* Defaults, sandbox.conf, the environment, --project-dir, the admin rules: what `cordon run`
 * would have before its other flags. Returns 0 or the exit status after logging. */
static int config_load(const struct config_args *a, const struct cordon_host *h,
                       struct cordon_settings **ret)
{
        struct cordon_settings *s = NULL;
        _cleanup_free_ char *project_dir = NULL;
        if (cordon_settings_new(getenv("HOME"), &s) < 0 ||
            (a->project_dir && cli_path_absolute(a->project_dir, h->cwd, &project_dir) < 0)) {
                cordon_settings_free(s);
                log_error("out of memory");
                return EXIT_SETUP;
        }
        struct cordon_diag diag = {0};
        int r = cli_config_load(s, environ, project_dir, 0);
        if (r >= 0 && (r = cordon_settings_apply_environment(s, environ, &diag)) < 0)
                log_error("%s", *diag.message ? diag.message : strerror(-r));
        if (r >= 0 && project_dir &&
            (r = cordon_settings_set(s, "PROJECT_DIR", project_dir, "--project-dir", &diag)) < 0) {
                cordon_settings_diag_respell(&diag, "PROJECT_DIR", "--project-dir");
                log_error("%s", *diag.message ? diag.message : strerror(-r));
        }
        if (r >= 0)
                r = cli_config_finalize(s);
        if (r < 0) {
                cordon_settings_free(s);
                return EXIT_SETUP;
        }
        *ret = s;
        return 0;
}

/* ---- show ---- */

static int show_json(const struct cordon_settings *s)
{
        _cleanup_json_ json_t *root = json_object(), *files = json_array(), *vars = json_object(),
                              *changes = json_array();
        if (!root || !files || !vars || !changes)
                return log_error_errno(-ENOMEM, "out of memory");
        ssize_t n = cordon_settings_config_file_count(s);
        for (ssize_t i = 0; i < n; i++) {
                const char *path = NULL, *layer = NULL;
                if (cordon_settings_get_config_file(s, (size_t)i, &path, &layer) >= 0)
                        json_array_append_new(files, json_pack("{s:o,s:o}", "path",
                                                               json_string_or_null(path), "layer",
                                                               json_string_or_null(layer)));
        }
        for (size_t v = 0; cordon_settings_variable(v); v++) {
                const char *name = cordon_settings_variable(v);
                ssize_t count = cordon_settings_count(s, name);
                json_t *entry = NULL;
                if (count == -ENOTDIR) {
                        _cleanup_free_ char *value = NULL;
                        const char *origin = NULL;
                        if (cli_settings_get(s, name, &value, &origin) < 0)
                                continue;
                        entry = json_pack("{s:o,s:o}", "value", json_string_or_null(value),
                                          "origin", json_string_or_null(origin));
                } else {
                        json_t *items = json_array();
                        for (ssize_t i = 0; items && i < count; i++) {
                                const char *value = NULL, *origin = NULL;
                                if (cordon_settings_get_item(s, name, (size_t)i, &value, &origin) >=
                                    0)
                                        json_array_append_new(
                                            items, json_pack("{s:o,s:o}", "value",
                                                             json_string_or_null(value), "origin",
                                                             json_string_or_null(origin)));
                        }
                        entry = items ? json_pack("{s:o}", "items", items) : NULL;
                }
                if (!entry)
                        return log_error_errno(-ENOMEM, "out of memory");
                json_object_set_new(vars, name, entry);
        }
        n = cordon_settings_admin_change_count(s);
        for (ssize_t i = 0; i < n; i++) {
                const char *name = NULL, *message = NULL;
                if (cordon_settings_get_admin_change(s, (size_t)i, &name, &message) >= 0)
                        json_array_append_new(
                            changes, json_pack("{s:o,s:o}", "variable", json_string_or_null(name),
                                               "message", json_string_or_null(message)));
        }
        json_object_set(root, "files", files);
        json_object_set(root, "variables", vars);
        json_object_set(root, "admin_changes", changes);
        if (json_dumpf(root, stdout, JSON_INDENT(2)) < 0 || putchar('\n') == EOF ||
            fflush(stdout) != 0)
                return log_error_errno(-EIO, "cannot write the configuration");
        return 0;
}

static void show_row(const char *name, int name_width, const char *value, int value_width,
                     const char *origin)
{
        printf("  %-*s %-*s  %s\n", name_width, name, value_width, value, origin);
}

static int show_text(const struct cordon_settings *s)
{
        ssize_t n = cordon_settings_config_file_count(s);
        if (n <= 0)
                printf("configuration files read: none (built-in defaults only)\n");
        else
                printf("configuration files read, in order:\n");
        for (ssize_t i = 0; i < n; i++) {
                const char *path = NULL, *layer = NULL;
                if (cordon_settings_get_config_file(s, (size_t)i, &path, &layer) >= 0)
                        printf("  %-7s %s\n", strempty(layer), strempty(path));
        }

        /* The columns: the longest name; values up to 40 wide (a longer one pushes its own
         * origin to the right). */
        int nw = 0, vw = 2;
        for (size_t v = 0; cordon_settings_variable(v); v++) {
                const char *name = cordon_settings_variable(v);
                if ((int)strlen(name) > nw)
                        nw = (int)strlen(name);
                ssize_t count = cordon_settings_count(s, name);
                for (ssize_t i = 0; i < count; i++) {
                        const char *value = NULL;
                        if (cordon_settings_get_item(s, name, (size_t)i, &value, NULL) >= 0)
                                if ((int)strlen(strempty(value)) > vw)
                                        vw = (int)strlen(strempty(value));
                }
        }
        if (vw > 40)
                vw = 40;

        printf("\nvariables (value, origin):\n");
        for (size_t v = 0; cordon_settings_variable(v); v++) {
                const char *name = cordon_settings_variable(v);
                ssize_t count = cordon_settings_count(s, name);
                if (count == -ENOTDIR) {
                        _cleanup_free_ char *value = NULL;
                        const char *origin = NULL;
                        if (cli_settings_get(s, name, &value, &origin) >= 0)
                                show_row(name, nw, *value ? value : "\"\"", vw, strempty(origin));
                        continue;
                }
                if (count <= 0)
                        show_row(name, nw, "()", vw, "");
                for (ssize_t i = 0; i < count; i++) {
                        const char *value = NULL, *origin = NULL;
                        if (cordon_settings_get_item(s, name, (size_t)i, &value, &origin) >= 0)
                                show_row(i == 0 ? name : "", nw, strempty(value), vw,
                                         strempty(origin));
                }
        }

        n = cordon_settings_admin_change_count(s);
        if (n <= 0)
                printf("\nadmin rules changed: nothing\n");
        else
                printf("\nadmin rules changed:\n");
        for (ssize_t i = 0; i < n; i++) {
                const char *name = NULL, *message = NULL;
                if (cordon_settings_get_admin_change(s, (size_t)i, &name, &message) >= 0)
                        printf("  %s: %s\n", strempty(name), strempty(message));
        }
        return fflush(stdout) == 0 ? 0 : -EIO;
}

/* ---- explain ---- */

/* @arg as an absolute normalised path: "~" and "~/..." from $HOME, "." and "./..." from the
 * working directory. Returns 0, or -EINVAL after logging (~user, no $HOME). */
static int explain_path_arg(const char *arg, const char *cwd, char **ret)
{
        int r = cli_path_from_arg(arg, getenv("HOME"), cwd, ret);
        if (r == -EINVAL)
                log_error("'%s': only ~ and ~/... are understood, not ~user", arg);
        else if (r == -ENOENT)
                log_error("'%s': HOME is not set to an absolute path", arg);
        else if (r < 0)
                log_error("out of memory");
        return r < 0 ? -EINVAL : 0;
}

int cmd_config(int argc, char **argv)
{
        struct config_args a = {0};
        if (config_parse(argc, argv, &a) < 0)
                return EXIT_USAGE;
        if (a.help) {
                config_help(stdout);
                return 0;
        }
        if (a.n == 0)
                return usage_error("config", "no subcommand given (show or explain)");
        if (!streq(a.args[0], "show") && !streq(a.args[0], "explain")) {
                const char *best =
                    cli_suggest_among(a.args[0], (const char *[]){"show", "explain", NULL});
                char dym[CLI_SUGGEST_MAX + 32];
                return usage_error("config", "unknown config subcommand '%s'%s", a.args[0],
                                   cli_did_you_mean("", best, dym, sizeof(dym)));
        }
        if (streq(a.args[0], "show") && a.n != 1)
                return usage_error("config", "'show' takes no operand");
        if (streq(a.args[0], "explain") && a.n != 2)
                return usage_error("config", "'explain' takes one KEY or PATH");
        if (streq(a.args[0], "explain") && a.json)
                return usage_error("config", "--json is an option of 'show'");
        const char *what = a.n == 2 ? a.args[1] : NULL;
        bool is_path = what && (what[0] == '/' || what[0] == '~' || what[0] == '.');
        if (what && !is_path && !config_is_variable(what)) {
                char dym[CLI_SUGGEST_MAX + 32];
                log_error("unknown variable '%s'%s; 'cordon config show' lists them, and a "
                          "path starts with /, ~ or .",
                          what, cli_did_you_mean("", cli_suggest_variable(what), dym, sizeof(dym)));
                return EXIT_USAGE;
        }

        _cleanup_(cordon_host_clear) struct cordon_host host = {0};
        int r = cordon_host_init_current(&host, environ);
        if (r < 0) {
                log_error("cannot determine the working directory: %s", strerror(-r));
                return EXIT_SETUP;
        }
        _cleanup_free_ char *path = NULL;
        if (is_path && explain_path_arg(what, host.cwd, &path) < 0)
                return EXIT_USAGE;

        struct cordon_settings *s = NULL;
        int code = config_load(&a, &host, &s);
        if (code != 0)
                return code;
        if (streq(a.args[0], "show"))
                code = (a.json ? show_json(s) : show_text(s)) < 0 ? EXIT_SETUP : 0;
        else if (is_path)
                code = config_explain_path(s, &host, path);
        else
                code = config_explain_key(s, what);
        cordon_settings_free(s);
        return code;
}
