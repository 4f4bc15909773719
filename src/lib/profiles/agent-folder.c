/* agent-sandbox's agent folders (see agent-folder.h): finding one, reading agent.md,
 * settings.json and config.conf (evaluated by agent-conf.c), and overlay.sh's line. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/policy/diag.h"
#include "lib/profiles/agent-folder.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

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
        const size_t plen = strlen(placeholder);
        for (const char *line = note; *line;) {
                const char *end = line + strcspn(line, "\n");
                const char *next = end + (*end == '\n');
                if (!help_dir && memmem(line, (size_t)(end - line), placeholder, plen)) {
                        line = next; /* the line naming it is left out */
                        continue;
                }
                const char *c = line;
                for (const char *p; (p = memmem(c, (size_t)(end - c), placeholder, plen));
                     c = p + plen) {
                        fwrite(c, 1, (size_t)(p - c), f);
                        fputs(help_dir, f);
                }
                fwrite(c, 1, (size_t)(end - c), f);
                if (*end == '\n')
                        fputc('\n', f);
                line = next;
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

void cordon_agent_pending_clear(struct cordon_agent_pending *p)
{
        free(p->folder);
        free(p->conf_path);
        free(p->conf_text);
        *p = (struct cordon_agent_pending){0};
}

int cordon_agent_folder_load(const char *name, const char *folder, bool extend,
                             struct cordon_agent_profile *a,
                             struct cordon_agent_pending *ret_pending, char ***warnings,
                             struct cordon_diag *diag)
{
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile p = {0};
        _cleanup_(cordon_agent_pending_clear) struct cordon_agent_pending pending = {.extend =
                                                                                         extend};
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
        if (!(pending.folder = strdup(folder)))
                return -ENOMEM;
        if ((r = read_optional(folder, "config.conf", CORDON_PROFILE_FILE_MAX, &pending.conf_path,
                               &pending.conf_text, NULL, diag)) < 0)
                return r;
        _cleanup_free_ char *note = NULL;
        if ((r = read_optional(folder, "agent.md", CORDON_PROFILE_FILE_MAX, NULL, &note, NULL,
                               diag)) < 0)
                return r;
        if (r > 0) {
                free(p.note);
                p.note = TAKE_PTR(note);
        }
        if ((r = folder_settings(folder, &p, &w, diag)) < 0)
                return r;
        if (warnings && (r = strv_extend_strv(warnings, w)) < 0)
                return r;
        cordon_agent_profile_clear(a);
        *a = p;
        p = (struct cordon_agent_profile){0};
        *ret_pending = pending;
        pending = (struct cordon_agent_pending){0};
        return 0;
}

int cordon_agent_folder_finish(struct cordon_agent_profile *a, const struct cordon_agent_pending *p,
                               const struct cordon_declare_value *v, const char *home,
                               char ***warnings, struct cordon_diag *diag)
{
        _cleanup_strv_free_ char **w = NULL;
        struct cordon_agent_profile *c = NULL;
        int r = cordon_agent_profiles_copy(a, 1, &c);
        if (r < 0)
                return r;
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile q = *c;
        free(c);
        /* A config.conf without code left its values empty: nothing to map. */
        if (p->conf_path && v &&
            (r = cordon_agent_conf_map(&q, p->extend ? a : NULL, p->conf_path, p->conf_text, home,
                                       v, &w, diag)) < 0)
                return r;
        if (!p->quiet && (r = folder_overlay(p->folder, &q, &w)) < 0)
                return r;
        if (warnings && (r = strv_extend_strv(warnings, w)) < 0)
                return r;
        cordon_agent_profile_clear(a);
        *a = q;
        q = (struct cordon_agent_profile){0};
        return 0;
}
