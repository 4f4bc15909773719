/* Lowering of the agents' private homes (policy.h's struct cordon_agent_home): each installed
 * agent whose profile has a config_dir_var gets a directory of this run's own in its place,
 * a mirror of its directories (a link per entry, so that its state still lands on the host as
 * the profile allows) holding private copies of its configuration files (with the profile's
 * overlay), which the agent may replace by rename as it does outside. What the launch makes of
 * this is in launch/agent-home.c; what flows back after the run is the profile's `writeback`
 * keys only, from JSON and TOML files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "lib/policy/agent-json.h"
#include "lib/policy/agent-toml.h"
#include "lib/policy/diag.h"
#include "lib/profiles/profiles.h"
#include "lib/resolve/lower-internal.h"
#include "shared/json-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define ORIGIN "agent homes"

/* The part of a two-word profile value ("FILE REST") after FILE, when FILE is @file. */
static const char *rest_for(const char *value, const char *file)
{
        size_t n = strlen(file);
        return strncmp(value, file, n) == 0 && value[n] == ' ' ? value + n + 1 : NULL;
}

static bool is_json_name(const char *path)
{
        const char *dot = strrchr(path, '.');
        return dot && (streq(dot, ".json") || streq(dot, ".jsonc"));
}

static bool is_toml_name(const char *path)
{
        const char *dot = strrchr(path, '.');
        return dot && streq(dot, ".toml");
}

static bool untouched(const struct lower *l, const char *agent)
{
        return cordon_list_find(&l->s->agent_settings_untouched, agent) ||
               cordon_list_find(&l->s->agent_settings_untouched, "all");
}

/* Adds a copy of @host at @name: 1 (and the copy in *@ret), or 0 when one holds the name
 * already (private_copy lines come first), or -ENOMEM. */
static int add_copy(struct cordon_agent_home *h, const char *host, const char *name,
                    struct cordon_agent_copy **ret)
{
        for (size_t i = 0; i < h->n_copies; i++)
                if (streq(h->copies[i].name, name))
                        return 0;
        struct cordon_agent_copy *c = reallocarray(h->copies, h->n_copies + 1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        h->copies = c;
        c += h->n_copies;
        *c = (struct cordon_agent_copy){.host = strdup(host),
                                        .name = strdup(name),
                                        .json = is_json_name(name),
                                        .toml = is_toml_name(name)};
        if (!c->host || !c->name) {
                free(c->host);
                free(c->name);
                return -ENOMEM;
        }
        h->n_copies++;
        if (ret)
                *ret = c;
        return 1;
}

/* The overlay keys as "key, key" for the banner (the top two levels). */
static int describe_overlay(const char *doc, char **ret)
{
        json_error_t e;
        _cleanup_(json_decrefp) json_t *j = json_loads(doc, 0, &e);
        _cleanup_free_ char *out = NULL;
        const char *key, *sub;
        json_t *v, *w;
        if (!j)
                return -EINVAL;
        json_object_foreach(j, key, v)
        {
                if (json_is_object(v) && json_object_size(v) > 0) {
                        json_object_foreach(v, sub, w)
                        {
                                char *more = NULL;
                                if (asprintf(&more, "%s%s%s.%s", strempty(out), out ? ", " : "",
                                             key, sub) < 0)
                                        return -ENOMEM;
                                free(out);
                                out = more;
                        }
                } else {
                        char *more = NULL;
                        if (asprintf(&more, "%s%s%s", strempty(out), out ? ", " : "", key) < 0)
                                return -ENOMEM;
                        free(out);
                        out = more;
                }
        }
        *ret = TAKE_PTR(out);
        return 0;
}

/* A TOML overlay: one `KEY = VALUE` line, KEY bare or dotted (`features.x = false`), read as
 * the JSON object it stands for. NULL when it is anything else. */
static json_t *toml_line(const char *doc)
{
        size_t k = strspn(doc, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.");
        const char *eq = doc + k + strspn(doc + k, " ");
        if (k == 0 || *eq != '=' || strchr(doc, '\n') || strchr(doc, '['))
                return NULL;
        json_t *j = NULL;
        char why[CORDON_AGENT_TOML_WHY_MAX];
        return cordon_agent_toml_to_json(doc, strlen(doc), &j, why) < 0 ? NULL : j;
}

/* The agent folder's settings.json for copy @c, when a folder_settings line names @file: its
 * permissions (the allow rules) merged onto @all like an overlay, its hooks kept for the launch
 * (cordon_agent_json_add_hooks(): a command the user's file runs already is not added twice). */
static int plan_folder_settings(struct lower *l, const struct cordon_agent_profile *a,
                                const char *file, struct cordon_agent_copy *c, json_t **all)
{
        const struct cordon_item *it =
            cordon_list_find(&a->items[CORDON_PROFILE_FOLDER_SETTINGS], file);
        if (!it || !a->settings)
                return 0;
        if (!c->json)
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s: folder_settings for '%s': only a JSON file takes "
                                       "settings.json",
                                       it->origin, file);
        json_error_t e;
        _cleanup_(json_decrefp) json_t *settings = json_loads(a->settings, 0, &e);
        if (!settings)
                return -ENOMEM; /* reduced and dumped by cordon itself */
        json_t *perms = json_object_get(settings, "permissions");
        json_t *hooks = json_object_get(settings, "hooks");
        if (perms) {
                _cleanup_(json_decrefp) json_t *part = json_pack("{s:O}", "permissions", perms);
                if (!part)
                        return -ENOMEM;
                if (!*all)
                        *all = json_incref(part);
                else if (cordon_agent_json_overlay(*all, part) < 0)
                        return -ENOMEM;
        }
        if (hooks && !(c->hooks = json_dumps(hooks, JSON_COMPACT)))
                return -ENOMEM;
        return 0;
}

/* The profile's overlays for copy @c of agent @a, as one JSON object: a JSON file's objects
 * merged onto one another in profile order; a TOML file's `KEY = VALUE` lines the same way,
 * each read as the object it stands for (launch/agent-home.c puts them in the copy where the
 * user's file does not set the key). Anything else refuses the profile. Then the agent
 * folder's settings.json. */
static int plan_overlay(struct lower *l, const struct cordon_agent_profile *a, const char *file,
                        struct cordon_agent_copy *c)
{
        _cleanup_(json_decrefp) json_t *all = NULL;
        CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_OVERLAY]) {
                const char *doc = rest_for(it->value, file);
                if (!doc)
                        continue;
                json_error_t e;
                _cleanup_(json_decrefp) json_t *j = c->json   ? json_loads(doc, 0, &e)
                                                    : c->toml ? toml_line(doc)
                                                              : NULL;
                if (!json_is_object(j) && c->toml)
                        return cordon_diag_set(l->diag, -EINVAL,
                                               "%s: the overlay of '%s' must be one KEY = VALUE "
                                               "line",
                                               it->origin, file);
                if (!json_is_object(j))
                        return cordon_diag_set(l->diag, -EINVAL,
                                               "%s: the overlay of '%s' is not a JSON object",
                                               it->origin, file);
                if (!all)
                        all = json_incref(j);
                else if (cordon_agent_json_overlay(all, j) < 0)
                        return -ENOMEM;
        }
        int r = plan_folder_settings(l, a, file, c, &all);
        if (r < 0)
                return r;
        if (!all && !c->hooks)
                return 0;
        if (all && !(c->overlay = json_dumps(all, JSON_COMPACT)))
                return -ENOMEM;
        _cleanup_free_ char *keys = NULL, *line = NULL;
        if (c->overlay && (r = describe_overlay(c->overlay, &keys)) < 0)
                return r;
        if (asprintf(&line, "%s: %s (%s%s%s)", a->name, c->name, strempty(keys),
                     keys && c->hooks ? ", " : "", c->hooks ? "hooks" : "") < 0)
                return -ENOMEM;
        return strv_consume(&l->p->agent_overlaid, TAKE_PTR(line));
}

/* Agent @a's home: its directories below @dir_rel (the config_dir_var's PATH) mirrored, its
 * private copies planned. */
static int plan_home(struct lower *l, const struct cordon_agent_profile *a, const char *dir_rel,
                     struct cordon_agent_home *h)
{
        int r;
        CORDON_LIST_FOREACH (d, &a->items[CORDON_PROFILE_DIR]) {
                if (!streq(dir_rel, ".") && !path_is_below(d->value, dir_rel))
                        continue;
                const char *name = streq(dir_rel, ".")        ? d->value
                                   : streq(d->value, dir_rel) ? ""
                                                              : d->value + strlen(dir_rel) + 1;
                _cleanup_free_ char *host = cordon_lower_agent_host_path(l, d->value, d->origin);
                if (!host) {
                        if (errno == ENOMEM)
                                return -ENOMEM;
                        continue; /* missing, or not the agent's own: the mirror stays empty */
                }
                struct cordon_agent_mirror *m =
                    reallocarray(h->mirrors, h->n_mirrors + 1, sizeof(*m));
                if (!m)
                        return -ENOMEM;
                h->mirrors = m;
                m[h->n_mirrors] = (struct cordon_agent_mirror){
                    .host = TAKE_PTR(host),
                    .guest = cordon_lower_agent_guest_path(l, d->value),
                    .name = strdup(name)};
                if (!m[h->n_mirrors].name || !m[h->n_mirrors++].guest)
                        return -ENOMEM;
        }
        CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_PRIVATE_COPY]) {
                const char *sp = strchr(it->value, ' ');
                _cleanup_free_ char *file = strndup(it->value, (size_t)(sp - it->value));
                _cleanup_free_ char *host = file ? path_join(l->home_real, file) : NULL;
                struct cordon_agent_copy *c = NULL;
                if (!host || (r = add_copy(h, host, sp + 1, &c)) < 0)
                        return -ENOMEM;
                if (r == 0)
                        continue; /* an earlier one holds the name */
                CORDON_LIST_FOREACH (w, &a->items[CORDON_PROFILE_WRITEBACK]) {
                        const char *pattern = rest_for(w->value, file);
                        if (pattern && strv_extend(&c->patterns, pattern) < 0)
                                return -ENOMEM;
                }
                if (c->patterns && !c->json && !c->toml)
                        return cordon_diag_set(l->diag, -EINVAL,
                                               "%s: writeback for '%s': only JSON and TOML "
                                               "files flow back",
                                               it->origin, file);
                if (!untouched(l, a->name) && (r = plan_overlay(l, a, file, c)) < 0)
                        return r;
        }
        /* The files of commands in a mirrored directory: copies as well, never written back. */
        CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_EXEC_CONFIG]) {
                if (!streq(dir_rel, ".") && !path_is_below(it->value, dir_rel))
                        continue;
                const char *name =
                    streq(dir_rel, ".") ? it->value : it->value + strlen(dir_rel) + 1;
                _cleanup_free_ char *host = path_join(l->home_real, it->value);
                if (!host || (r = add_copy(h, host, name, NULL)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* Where the agents' run directories go: /dev/shm when it is a tmpfs open to everyone with the
 * sticky bit (nobody can replace another's entry there) and the sandbox has a /dev/shm of its
 * own (PRIVATE_IPC: with the host's, it would see the run directories of the user's other
 * sandboxes), else /var/tmp, else /tmp. */
static const char *run_dir_base(const struct lower *l)
{
        struct stat st;
        struct statfs sfs;
        if (l->s->private_ipc && statfs("/dev/shm", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC &&
            stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
            (st.st_mode & 01777) == 01777)
                return "/dev/shm";
        return stat("/var/tmp", &st) == 0 && S_ISDIR(st.st_mode) ? "/var/tmp" : "/tmp";
}

static int make_run_dir(struct lower *l)
{
        if (l->p->agent_run_dir)
                return 0;
        uint8_t b[8];
        if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
                return -errno;
        /* Not below /tmp: codex refuses to make its helper commands in a temporary
         * directory there (and its edits need them). In memory where the host has it: a link
         * per entry of each agent's directory is made and removed at every start, which costs
         * tens of microseconds each on a journaling filesystem and a few on a tmpfs. The
         * directory is made 0700 under its random name, failing if the name exists. */
        const char *base = run_dir_base(l);
        if (asprintf(&l->p->agent_run_dir, "%s/cordon-agents-%02x%02x%02x%02x%02x%02x%02x%02x",
                     base, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]) < 0) {
                l->p->agent_run_dir = NULL;
                return -ENOMEM;
        }
        return 0;
}

int cordon_lower_agent_homes(struct lower *l)
{
        /* A capability policy names every root the command may write: no home of the run's
         * own, and nothing flows back into the host's files outside those roots. */
        if (!l->home_real || !l->home_guest || l->s->policy)
                return 0;
        int r;
        for (size_t i = 0; i < l->s->n_agents; i++) {
                const struct cordon_agent_profile *a = &l->s->agents[i];
                const struct cordon_list *vars = &a->items[CORDON_PROFILE_CONFIG_DIR_VAR];
                if (vars->n == 0 || !cordon_lower_agent_installed(l, i))
                        continue;
                const char *eq = strchr(vars->items[0].value, '=');
                if (!eq || (r = make_run_dir(l)) < 0)
                        return eq ? r : -EINVAL;
                struct cordon_agent_home *h =
                    reallocarray(l->p->agent_homes, l->p->n_agent_homes + 1, sizeof(*h));
                if (!h)
                        return -ENOMEM;
                l->p->agent_homes = h;
                h += l->p->n_agent_homes++;
                *h = (struct cordon_agent_home){.agent = strdup(a->name),
                                                .root = path_join(l->p->agent_run_dir, a->name)};
                if (!h->agent || !h->root)
                        return -ENOMEM;
                if ((r = plan_home(l, a, eq + 1, h)) < 0)
                        return r;
        }
        if (!l->p->agent_run_dir)
                return 0;
        return cordon_lower_put(l, l->p->agent_run_dir, l->p->agent_run_dir, CORDON_ACCESS_RW, 0,
                                ORIGIN);
}

const struct cordon_agent_home *cordon_lower_agent_home(const struct lower *l, const char *name)
{
        for (size_t i = 0; i < l->p->n_agent_homes; i++)
                if (streq(l->p->agent_homes[i].agent, name))
                        return &l->p->agent_homes[i];
        return NULL;
}
