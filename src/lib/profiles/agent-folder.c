/* agent-sandbox's agent folders (see agent-folder.h): config.conf evaluated in the confined bash
 * child of config-eval.c and mapped onto the profile model; agent.md, overlay.sh and
 * settings.json read as data. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/config/config-eval.h"
#include "lib/config/config-scan.h"
#include "lib/policy/diag.h"
#include "lib/profiles/agent-folder.h"
#include "lib/resolve/env-filter.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

static const char *const var_names[_CORDON_AGENT_CONF_MAX] = {
    [CORDON_AGENT_CONF_WRITABLE] = "AGENT_REQUIRED_WRITABLE_PATHS",
    [CORDON_AGENT_CONF_READABLE] = "AGENT_REQUIRED_READABLE_PATHS",
    [CORDON_AGENT_CONF_BLOCKED] = "AGENT_BLOCKED_FILES",
    [CORDON_AGENT_CONF_CREDENTIALS] = "AGENT_CREDENTIAL_ENV_VARS",
    [CORDON_AGENT_CONF_AUTH] = "AGENT_AUTH_MARKERS",
    [CORDON_AGENT_CONF_HINT] = "AGENT_LOGIN_HINT",
};

/* The profile key each list variable fills. */
static const enum cordon_profile_key var_keys[] = {
    [CORDON_AGENT_CONF_WRITABLE] = CORDON_PROFILE_WRITABLE,
    [CORDON_AGENT_CONF_READABLE] = CORDON_PROFILE_READONLY,
    [CORDON_AGENT_CONF_BLOCKED] = CORDON_PROFILE_INSTRUCTIONS,
    [CORDON_AGENT_CONF_CREDENTIALS] = CORDON_PROFILE_CREDENTIAL_ENV,
    [CORDON_AGENT_CONF_AUTH] = CORDON_PROFILE_AUTH_PATH,
};

/* At most this many lines of config.conf's stderr become warnings. */
#define STDERR_LINES_MAX 8

const char *cordon_agent_conf_var_name(enum cordon_agent_conf_var v)
{
        return (unsigned)v < _CORDON_AGENT_CONF_MAX ? var_names[v] : NULL;
}

const char *cordon_agent_conf_script(void)
{
        /* The variables start empty, as agent-sandbox declares them; what the file prints goes
         * to stderr (warnings), and whatever it leaves behind (set -e, -x, traps) is undone
         * before the dump, as config-eval.c does after each file. */
        return "AGENT_REQUIRED_WRITABLE_PATHS=() AGENT_REQUIRED_READABLE_PATHS=() "
               "AGENT_BLOCKED_FILES=() AGENT_CREDENTIAL_ENV_VARS=() AGENT_AUTH_MARKERS=() "
               "AGENT_LOGIN_HINT=''\n"
               "builtin source -- \"$1\" >&2\n"
               "{ __cordon_st=$?; builtin set +xveuo pipefail; "
               "builtin trap - ERR DEBUG RETURN EXIT; } >/dev/null 2>&1\n"
               "builtin printf '" CORDON_CONFIG_MARK_LAYER "1 %s\\n' \"$__cordon_st\"\n"
               "builtin declare -p AGENT_REQUIRED_WRITABLE_PATHS AGENT_REQUIRED_READABLE_PATHS "
               "AGENT_BLOCKED_FILES AGENT_CREDENTIAL_ENV_VARS AGENT_AUTH_MARKERS "
               "AGENT_LOGIN_HINT 2>/dev/null\n"
               "builtin printf '" CORDON_CONFIG_MARK_END "\\n'\n"
               "builtin exit 0\n";
}

int cordon_agent_conf_parse_dump(const char *file, const char *out, size_t len,
                                 struct cordon_declare_value *ret, struct cordon_diag *diag)
{
        const size_t mark = strlen(CORDON_CONFIG_MARK_LAYER "1 ");
        const char *nl = memchr(out, '\n', len);
        if (len < mark || memcmp(out, CORDON_CONFIG_MARK_LAYER "1 ", mark) != 0 || !nl)
                return cordon_diag_set(diag, -EINVAL,
                                       "%s: reading it stopped in the file (it called exit or "
                                       "exec, or broke the shell): cordon cannot tell what it "
                                       "sets",
                                       file);
        size_t pos = (size_t)(nl - out) + 1;
        struct cordon_diag d = {0};
        int r = cordon_declare_parse(out, len, &pos, var_names, _CORDON_AGENT_CONF_MAX, ret, &d);
        if (r == -EINVAL)
                return cordon_diag_set(diag, r, "%s: reading back its variables: %s", file,
                                       d.message);
        if (r < 0)
                return r;
        const char *end = CORDON_CONFIG_MARK_END "\n";
        if (len - pos != strlen(end) || memcmp(out + pos, end, strlen(end)) != 0)
                return cordon_diag_set(diag, -EINVAL,
                                       "%s: reading it did not end cleanly (the file printed "
                                       "into the variables' dump or broke the shell)",
                                       file);
        return 0;
}

/* "profile NAME (FILE:LINE)", LINE the last assignment of @var in @text. */
static char *origin_of(const char *name, const char *file, const char *text, const char *var)
{
        unsigned line = text ? cordon_config_last_assignment(text, var) : 0;
        char *o = NULL;
        int r = line ? asprintf(&o, "profile %s (%s:%u)", name, file, line)
                     : asprintf(&o, "profile %s (%s)", name, file);
        return r < 0 ? NULL : o;
}

/* The origin without "profile NAME (" and ")": where a message points. */
static const char *where_of(const char *origin, char *buf, size_t size)
{
        const char *open = strchr(origin, '(');
        snprintf(buf, size, "%s", open ? open + 1 : origin);
        size_t n = strlen(buf);
        if (n && buf[n - 1] == ')')
                buf[n - 1] = 0;
        return buf;
}

/* A string safe to show on a terminal: no control byte (C0, DEL, or C1 as UTF-8). */
static bool printable(const char *s)
{
        for (const unsigned char *c = (const unsigned char *)s; *c; c++)
                if (*c < 0x20 || *c == 0x7f || (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f))
                        return false;
        return true;
}

/* @path (absolute, as bash expanded it) relative to @home: 1 with the relative path in *@ret,
 * 0 when it is the home itself, -EINVAL with the reason in *@why. */
static int home_relative(const char *path, const char *home, char **ret, const char **why)
{
        _cleanup_free_ char *norm = NULL;
        *why = "not below $HOME: an agent folder names paths in the home only (outside it, "
               "EXTRA_WRITABLE_PATHS or READONLY_MOUNTS of sandbox.conf)";
        if (!path_is_absolute(path))
                return -EINVAL;
        /* Trailing slashes are not part of the name; "." and ".." are refused below. */
        if (!(norm = strdup(path)))
                return -ENOMEM;
        for (size_t n = strlen(norm); n > 1 && norm[n - 1] == '/'; n--)
                norm[n - 1] = 0;
        if (streq(norm, home))
                return 0;
        if (!path_is_below(norm, home))
                return -EINVAL;
        const char *rel = norm + strlen(home) + (streq(home, "/") ? 0 : 1);
        *why = "expected a plain path below $HOME (no '.' or '..' component, no empty one, "
               "printable ASCII)";
        if (!cordon_profile_path_is_valid(rel))
                return -EINVAL;
        return (*ret = strdup(rel)) ? 1 : -ENOMEM;
}

/* Whether the profile a folder extends names @rel itself: its directory, its state, a file it
 * keeps a private copy of or merges. A writable entry for such a path would undo that (or make
 * a missing file a directory, as HOME_WRITABLE makes what is missing), so it is left out. */
static bool is_base_own(const struct cordon_agent_profile *base, const char *rel)
{
        static const enum cordon_profile_key own[] = {
            CORDON_PROFILE_DIR,         CORDON_PROFILE_STATE,    CORDON_PROFILE_STATE_FILE,
            CORDON_PROFILE_EXEC_CONFIG, CORDON_PROFILE_EXEC_DIR, CORDON_PROFILE_INSTRUCTIONS,
        };
        if (!base)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(own); i++)
                if (cordon_list_find(&base->items[own[i]], rel))
                        return true;
        size_t n = strlen(rel);
        CORDON_LIST_FOREACH (it, &base->items[CORDON_PROFILE_PRIVATE_COPY])
                if (strncmp(it->value, rel, n) == 0 && it->value[n] == ' ')
                        return true;
        return false;
}

/* One list variable's entries into @a. */
static int map_list(struct cordon_agent_profile *a, const struct cordon_agent_profile *base,
                    enum cordon_agent_conf_var var, const char *origin, const char *home,
                    const struct cordon_declare_value *v, char ***warnings,
                    struct cordon_diag *diag)
{
        const enum cordon_profile_key k = var_keys[var];
        char where[512];
        for (size_t i = 0; i < v->n; i++) {
                const char *e = v->items[i];
                if (!*e)
                        continue; /* "${X[@]}" of an empty string: agent-sandbox skips it too */
                _cleanup_free_ char *rel = NULL;
                const char *why = NULL;
                int r;
                if (k == CORDON_PROFILE_CREDENTIAL_ENV) {
                        why = "expected a variable name";
                        r = cordon_env_name_is_valid(e, strlen(e)) ? 1 : -EINVAL;
                        if (r > 0 && !(rel = strdup(e)))
                                return -ENOMEM;
                } else
                        r = home_relative(e, home, &rel, &why);
                if (r == -ENOMEM)
                        return r;
                if (r == 0 && (k == CORDON_PROFILE_WRITABLE || k == CORDON_PROFILE_READONLY)) {
                        /* agent-sandbox passes over the whole home too: HOME_ACCESS decides it. */
                        r = strv_extendf(warnings,
                                         "%s: %s entry '%.200s' is the whole home; left out "
                                         "(HOME_ACCESS decides how the home is seen)",
                                         where_of(origin, where, sizeof(where)), var_names[var], e);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (r == 0)
                        why = "the home itself is not a file";
                if (r <= 0)
                        return cordon_diag_set(diag, -EINVAL, "%s: %s entry '%.200s': %s",
                                               where_of(origin, where, sizeof(where)),
                                               var_names[var], e, why);
                /* What the profile it extends keeps itself (its read-only directory, its
                 * copies) stays as that profile keeps it. */
                if (k == CORDON_PROFILE_WRITABLE && is_base_own(base, rel))
                        continue;
                size_t total = 0;
                for (size_t j = 0; j < _CORDON_PROFILE_KEY_MAX; j++)
                        total += a->items[j].n;
                if (total >= CORDON_PROFILE_ITEMS_MAX)
                        return cordon_diag_set(diag, -E2BIG, "%s: more than %u items",
                                               where_of(origin, where, sizeof(where)),
                                               CORDON_PROFILE_ITEMS_MAX);
                if ((r = cordon_list_add_unique(&a->items[k], rel, origin)) < 0)
                        return r;
        }
        return 0;
}

int cordon_agent_conf_map(struct cordon_agent_profile *a, const struct cordon_agent_profile *base,
                          const char *file, const char *text, const char *home,
                          const struct cordon_declare_value *v, char ***warnings,
                          struct cordon_diag *diag)
{
        _cleanup_free_ char *h = NULL;
        int r = home && path_is_absolute(home) ? path_normalize(home, &h) : -EINVAL;
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return cordon_diag_set(diag, -EINVAL, "%s: no absolute $HOME to read it with",
                                       file);
        for (size_t i = 0; i < _CORDON_AGENT_CONF_MAX; i++) {
                _cleanup_free_ char *origin = origin_of(a->name, file, text, var_names[i]);
                if (!origin)
                        return -ENOMEM;
                if (i != CORDON_AGENT_CONF_HINT) {
                        if ((r = map_list(a, base, i, origin, h, &v[i], warnings, diag)) < 0)
                                return r;
                        continue;
                }
                /* A scalar, or an array's first element as "$X" gives it. */
                const char *hint = v[i].n ? v[i].items[0] : "";
                char where[512];
                if (strlen(hint) > CORDON_AGENT_HINT_MAX || !printable(hint))
                        return cordon_diag_set(diag, -EINVAL,
                                               "%s: %s: expected at most %u bytes of text "
                                               "without control characters",
                                               where_of(origin, where, sizeof(where)), var_names[i],
                                               CORDON_AGENT_HINT_MAX);
                free(a->login_hint);
                a->login_hint = NULL;
                if (*hint && !(a->login_hint = strdup(hint)))
                        return -ENOMEM;
        }
        return 0;
}

/* ---- settings.json ---- */

/* hooks: an object of events, each an array of objects whose "hooks" is an array of objects. */
static bool hooks_shape_ok(json_t *hooks)
{
        const char *event;
        json_t *groups;
        if (!json_is_object(hooks))
                return false;
        json_object_foreach(hooks, event, groups)
        {
                size_t i;
                json_t *g;
                if (!json_is_array(groups))
                        return false;
                json_array_foreach(groups, i, g)
                {
                        json_t *list = json_object_get(g, "hooks");
                        size_t j;
                        json_t *hk;
                        if (!json_is_object(g) || !json_is_array(list))
                                return false;
                        json_array_foreach(list, j, hk) if (!json_is_object(hk)) return false;
                }
        }
        return true;
}

int cordon_agent_settings_reduce(const char *file, const char *text, size_t len, char **ret,
                                 struct cordon_diag *diag)
{
        *ret = NULL;
        if (len > CORDON_AGENT_SETTINGS_MAX)
                return cordon_diag_set(diag, -E2BIG, "%s: larger than %u bytes", file,
                                       CORDON_AGENT_SETTINGS_MAX);
        json_error_t e;
        _cleanup_json_ json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
        if (!json_is_object(doc))
                return cordon_diag_set(diag, -EINVAL, "%s:%d: %s", file, doc ? 1 : e.line,
                                       doc ? "expected a JSON object" : e.text);
        json_t *perms = json_object_get(doc, "permissions");
        json_t *allow = json_is_object(perms) ? json_object_get(perms, "allow") : NULL;
        json_t *hooks = json_object_get(doc, "hooks");
        if (perms && !json_is_object(perms))
                return cordon_diag_set(diag, -EINVAL, "%s: permissions: expected an object", file);
        if (allow) {
                size_t i;
                json_t *rule;
                bool ok = json_is_array(allow);
                json_array_foreach(allow, i, rule) ok = ok && json_is_string(rule);
                if (!ok)
                        return cordon_diag_set(diag, -EINVAL,
                                               "%s: permissions.allow: expected an array of "
                                               "strings",
                                               file);
        }
        if (hooks && !hooks_shape_ok(hooks))
                return cordon_diag_set(diag, -EINVAL,
                                       "%s: hooks: expected an object of events, each a list of "
                                       "{\"hooks\": [...]} groups",
                                       file);
        if (!allow && !hooks)
                return 0;
        _cleanup_json_ json_t *out = json_object();
        if (!out ||
            (allow &&
             json_object_set_new(out, "permissions", json_pack("{s:O}", "allow", allow)) < 0) ||
            (hooks && json_object_set(out, "hooks", hooks) < 0))
                return -ENOMEM;
        return (*ret = json_dumps(out, JSON_COMPACT)) ? 0 : -ENOMEM;
}

/* ---- agent.md ---- */

char *cordon_agent_note_resolve(const char *note, const char *help_dir)
{
        static const char placeholder[] = "__SANDBOX_DIR__";
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        for (const char *line = note; *line;) {
                size_t n = strcspn(line, "\n");
                const char *p = memmem(line, n, placeholder, strlen(placeholder));
                if (!p)
                        fwrite(line, 1, n, f);
                else if (help_dir)
                        for (const char *c = line; c < line + n;) {
                                p = memmem(c, (size_t)(line + n - c), placeholder,
                                           strlen(placeholder));
                                if (!p) {
                                        fwrite(c, 1, (size_t)(line + n - c), f);
                                        break;
                                }
                                fwrite(c, 1, (size_t)(p - c), f);
                                fputs(help_dir, f);
                                c = p + strlen(placeholder);
                        }
                if ((!p || help_dir) && line[n] == '\n')
                        fputc('\n', f);
                line += n + (line[n] == '\n');
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* ---- the folder ---- */

int cordon_agent_folder_find(const char *name, const char *const *dirs, size_t n, char **ret)
{
        for (size_t i = 0; i < n; i++) {
                if (!dirs[i])
                        continue;
                _cleanup_free_ char *folder = path_join(dirs[i], name);
                struct stat st;
                if (!folder)
                        return -ENOMEM;
                if (stat(folder, &st) < 0) {
                        if (errno == ENOENT || errno == ENOTDIR)
                                continue;
                        return -errno;
                }
                if (!S_ISDIR(st.st_mode))
                        continue;
                *ret = TAKE_PTR(folder);
                return 1;
        }
        return 0;
}

/* Reads @folder/@file (regular, bounded) into *@ret: 1, or 0 when it is missing. */
static int read_optional(const char *folder, const char *file, size_t max, char **ret_path,
                         char **ret, size_t *ret_len, struct cordon_diag *diag)
{
        _cleanup_free_ char *path = path_join(folder, file);
        if (!path)
                return -ENOMEM;
        int r = cordon_profile_read_file(path, max, ret, ret_len);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return cordon_diag_set(diag, r, "%s: %s", path,
                                       r == -E2BIG    ? "too large"
                                       : r == -EINVAL ? "not a regular file"
                                                      : strerror(-r));
        if (ret_path)
                *ret_path = TAKE_PTR(path);
        return 1;
}

/* The stderr of the child: a syntax error refuses, other lines are warnings, the path the
 * child read (@real) shown as found (@file). */
static int check_stderr(const char *err, const char *file, const char *real, char ***warnings,
                        struct cordon_diag *diag)
{
        unsigned shown = 0;
        for (const char *p = err; *p;) {
                size_t len = strcspn(p, "\n");
                size_t rl = strlen(real);
                char line[1024];
                if (len >= rl && strncmp(p, real, rl) == 0 && p[rl] == ':')
                        snprintf(line, sizeof(line), "%s%.*s", file, (int)(len - rl), p + rl);
                else
                        snprintf(line, sizeof(line), "%s: %.*s", file, (int)len, p);
                for (char *c = line; *c; c++)
                        if ((unsigned char)*c < 0x20 || *c == 0x7f)
                                *c = '?';
                if (len && strstr(line, "syntax error"))
                        return cordon_diag_set(diag, -EINVAL, "%s", line);
                if (len && strstr(line, "unexpected EOF while looking for matching"))
                        return cordon_diag_set(diag, -EINVAL, "%s (a syntax error)", line);
                if (len && shown++ < STDERR_LINES_MAX && strv_extendf(warnings, "%s", line) < 0)
                        return -ENOMEM;
                p += len + (p[len] == '\n');
        }
        return 0;
}

/* config.conf evaluated (when it holds code) and its values in @v. */
static int evaluate(const char *path, const char *text, const char *home,
                    struct cordon_declare_value *v, char ***warnings, struct cordon_diag *diag)
{
        if (!cordon_config_has_code(text))
                return 0;
        _cleanup_free_ char *real = realpath(path, NULL);
        if (!real)
                return cordon_diag_set(diag, -errno, "%s: %s", path, strerror(errno));
        char *paths[] = {real, NULL};
        const struct cordon_config_eval_args a = {
            .paths = paths,
            .n = 1,
            .home = home,
            .project_dir = "",
            .backend = CORDON_BACKEND_AUTO,
            .script = cordon_agent_conf_script(),
        };
        struct cordon_confined_output out = {0};
        int r = cordon_config_eval(&a, &out, diag);
        if (r < 0)
                return r;
        r = check_stderr(out.err, path, real, warnings, diag);
        if (r >= 0 && out.timed_out)
                r = cordon_diag_set(diag, -ETIME,
                                    "%s: reading it took longer than %llu s (a loop, or a "
                                    "command that waits?)",
                                    path, CORDON_CONFIG_EVAL_TIMEOUT_USEC / 1000000);
        else if (r >= 0 && (out.out_over || out.err_over))
                r = cordon_diag_set(diag, -EFBIG, "%s: printed too much while it was read", path);
        if (r >= 0)
                r = cordon_agent_conf_parse_dump(path, out.out, out.out_len, v, diag);
        cordon_confined_output_clear(&out);
        return r;
}

static int folder_config(const char *folder, const char *home, struct cordon_agent_profile *a,
                         const struct cordon_agent_profile *base, char ***warnings,
                         struct cordon_diag *diag)
{
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r =
            read_optional(folder, "config.conf", CORDON_PROFILE_FILE_MAX, &path, &text, NULL, diag);
        if (r <= 0)
                return r;
        struct cordon_declare_value v[_CORDON_AGENT_CONF_MAX] = {0};
        r = evaluate(path, text, home, v, warnings, diag);
        if (r >= 0)
                r = cordon_agent_conf_map(a, base, path, text, home, v, warnings, diag);
        cordon_declare_values_clear(v, _CORDON_AGENT_CONF_MAX);
        return r;
}

/* settings.json, for the private copy a folder_settings line names. */
static int folder_settings(const char *folder, struct cordon_agent_profile *a, char ***warnings,
                           struct cordon_diag *diag)
{
        _cleanup_free_ char *path = NULL, *text = NULL, *reduced = NULL;
        size_t len = 0;
        int r = read_optional(folder, "settings.json", CORDON_AGENT_SETTINGS_MAX, &path, &text,
                              &len, diag);
        if (r <= 0)
                return r;
        if (a->items[CORDON_PROFILE_FOLDER_SETTINGS].n == 0)
                return strv_extendf(warnings,
                                    "%s is not used: %s's profile has no folder_settings line "
                                    "naming the file it goes into",
                                    path, a->name);
        if ((r = cordon_agent_settings_reduce(path, text, len, &reduced, diag)) < 0)
                return r;
        free(a->settings);
        free(a->settings_file);
        a->settings = TAKE_PTR(reduced);
        a->settings_file = TAKE_PTR(path);
        return 0;
}

/* overlay.sh is agent-sandbox's host-side setup: cordon never runs it, and says what it does
 * instead, once. */
static int folder_overlay(const char *folder, const struct cordon_agent_profile *a,
                          char ***warnings)
{
        _cleanup_free_ char *path = path_join(folder, "overlay.sh");
        struct stat st;
        if (!path)
                return -ENOMEM;
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        const struct cordon_list *vars = &a->items[CORDON_PROFILE_CONFIG_DIR_VAR];
        bool merged = a->items[CORDON_PROFILE_INSTRUCTIONS].n > 0;
        const char *v = vars->n ? vars->items[0].value : "";
        char home[160] = "";
        if (vars->n)
                snprintf(home, sizeof(home), "gives %s a private home named by %.*s", a->name,
                         (int)strcspn(v, "="), v);
        return strv_extendf(warnings,
                            "%s is not run (cordon runs no host code of an agent folder): %s%s%s%s",
                            path, merged ? "cordon merges the instruction files with agent.md" : "",
                            merged && vars->n ? " and " : "", vars->n ? home : "",
                            merged || vars->n ? " itself"
                                              : "nothing takes its place (no instruction file, "
                                                "no private home)");
}

int cordon_agent_folder_load(const char *name, const char *folder, const char *home, bool extend,
                             struct cordon_agent_profile *a, char ***warnings,
                             struct cordon_diag *diag)
{
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile p = {0};
        _cleanup_strv_free_ char **w = NULL;
        int r;
        if (extend) {
                struct cordon_agent_profile *c = NULL;
                if ((r = cordon_agent_profiles_copy(a, 1, &c)) < 0)
                        return r;
                p = *c;
                free(c);
        } else {
                _cleanup_free_ char *origin = NULL, *config = path_join(folder, "config.conf");
                if (!config || !(p.name = strdup(name)) || !(p.note = strdup("")) ||
                    asprintf(&origin, "profile %s (%s)", name, config) < 0)
                        return -ENOMEM;
                /* Installed: NAME on PATH, or its first writable path on the host
                 * (lower-agents.c). */
                if ((r = cordon_list_add(&p.items[CORDON_PROFILE_COMMAND], name, origin)) < 0)
                        return r;
        }
        if ((r = folder_config(folder, home, &p, extend ? a : NULL, &w, diag)) < 0)
                return r;
        _cleanup_free_ char *note = NULL;
        if ((r = read_optional(folder, "agent.md", CORDON_PROFILE_FILE_MAX, NULL, &note, NULL,
                               diag)) < 0)
                return r;
        if (r > 0) {
                free(p.note);
                p.note = TAKE_PTR(note);
        }
        if ((r = folder_settings(folder, &p, &w, diag)) < 0 ||
            (r = folder_overlay(folder, &p, &w)) < 0)
                return r;
        if (warnings && (r = strv_extend_strv(warnings, w)) < 0)
                return r;
        cordon_agent_profile_clear(a);
        *a = p;
        p = (struct cordon_agent_profile){0};
        return 0;
}
