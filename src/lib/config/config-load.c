/* The sandbox.conf front end (cordon_settings_load_config()): finds the layers
 * (config-files.c), has one confined bash child evaluate them (config-eval.c), parses its dumps
 * (declare-parse.c) and writes every variable a layer changed into the settings, each value with
 * the file and line that set it. Everything is parsed and checked, and the new values built in
 * a scratch settings object, before the caller's settings change: they are unchanged on
 * failure. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config/config-eval.h"
#include "lib/config/config-files.h"
#include "lib/config/config-load.h"
#include "lib/config/config-scan.h"
#include "lib/config/declare-parse.h"
#include "lib/policy/diag.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"
#include "shared/strv.h"

/* Names a file may assign without being told that cordon does not know them: the environment's
 * own and agent-sandbox's environment-only switches. */
static const char *const not_unknown[] = {
    "PATH",
    "HOME",
    "CORDON_CONF",
    "SANDBOX_CONF",
    "CLEANUP_MATERIALIZED_BLOCKED_FILES",
    "NETWORK_FILTER_VERBOSE",
    /* bash's own, which a file may set for its own use */
    "IFS",
    "CDPATH",
    "GLOBIGNORE",
    "OPTIND",
    "OPTARG",
    "OPTERR",
    "REPLY",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_COLLATE",
    "TZ",
    "TMPDIR",
};

/* At most this many lines of one file's stderr become warnings. */
#define STDERR_LINES_MAX 10

struct load {
        struct cordon_config_files files;
        size_t *layer_file;                 /* evaluated layer k (from 1) -> index in files */
        size_t n_layers;                    /* evaluated files */
        struct cordon_declare_value *dumps; /* (n_layers + 1) * cordon_vars_count */
        char **warnings;
        struct cordon_diag *diag;
};

static void load_clear(struct load *l)
{
        if (l->dumps)
                cordon_declare_values_clear(l->dumps, (l->n_layers + 1) * cordon_vars_count);
        free(l->dumps);
        free(l->layer_file);
        cordon_config_files_clear(&l->files);
        strv_free(l->warnings);
}

static const struct cordon_config_file *layer_file(const struct load *l, size_t k)
{
        return &l->files.files[l->layer_file[k]];
}

static const struct cordon_declare_value *dump(const struct load *l, size_t k, size_t var)
{
        return &l->dumps[k * cordon_vars_count + var];
}

/* "FILE:LINE" of the last assignment of @name in file @f, or "FILE". */
static char *origin_of(const struct cordon_config_file *f, const char *name)
{
        unsigned line = cordon_config_last_assignment(f->text, name);
        char *o = NULL;
        int r = line ? asprintf(&o, "%s:%u", f->path, line) : asprintf(&o, "%s", f->path);
        if (r < 0)
                return NULL;
        return o;
}

/* ---- reading the child's output ---- */

/* @line with the resolved path the child read replaced by the path as found. */
static void shown_line(const struct cordon_config_file *f, const char *line, size_t len, char *buf,
                       size_t size)
{
        const char *read = f->real_path ? f->real_path : f->path;
        size_t rl = strlen(read);
        if (len >= rl && strncmp(line, read, rl) == 0 && line[rl] == ':')
                snprintf(buf, size, "%s%.*s", f->path, (int)(len - rl), line + rl);
        else
                snprintf(buf, size, "%s: %.*s", f->path, (int)len, line);
}

/* The stderr sections: an admin file refuses on any output, a syntax error anywhere refuses,
 * a user file's other lines are warnings. Sets *@ret_last to the last layer that started. */
static int check_stderr(struct load *l, const char *err, bool locate_only, size_t *ret_last)
{
        size_t layer = 0, shown = 0;
        const size_t mark_len = strlen(CORDON_CONFIG_MARK_STDERR);
        for (const char *p = err; *p;) {
                size_t len = strcspn(p, "\n");
                const char *next = p[len] ? p + len + 1 : p + len;
                if (len == 0) {
                        p = next;
                        continue;
                }
                if (len > mark_len && strncmp(p, CORDON_CONFIG_MARK_STDERR, mark_len) == 0) {
                        size_t k = strtoul(p + mark_len, NULL, 10);
                        /* In order, as the script writes them; a file printing the next one
                         * itself only mislabels its own lines. */
                        if (k == layer + 1 && k <= l->n_layers) {
                                layer = k;
                                shown = 0;
                        }
                        p = next;
                        continue;
                }
                char line[1024];
                if (locate_only) {
                        p = next;
                        continue;
                }
                if (layer == 0) {
                        snprintf(line, sizeof(line), "%.*s", (int)len, p);
                        if (strv_extendf(&l->warnings, "reading the configuration: %s", line) < 0)
                                return -ENOMEM;
                        p = next;
                        continue;
                }
                const struct cordon_config_file *f = layer_file(l, layer);
                shown_line(f, p, len, line, sizeof(line));
                /* bash's syntax errors; an unterminated quote or list says only the second */
                bool unterminated = strstr(line, "unexpected EOF while looking for matching");
                if (streq(f->layer, "admin"))
                        return cordon_diag_set(l->diag, -EINVAL,
                                               "admin baseline %s is malformed (it wrote to "
                                               "stderr): %s%s",
                                               f->path, line,
                                               unterminated ? " (a syntax error)" : "");
                if (strstr(line, "syntax error"))
                        return cordon_diag_set(l->diag, -EINVAL, "%s", line);
                if (unterminated)
                        return cordon_diag_set(l->diag, -EINVAL, "%s (a syntax error)", line);
                if (shown < STDERR_LINES_MAX && strv_extendf(&l->warnings, "%s", line) < 0)
                        return -ENOMEM;
                if (++shown == STDERR_LINES_MAX + 1 &&
                    strv_extendf(&l->warnings, "%s: more output not shown", f->path) < 0)
                        return -ENOMEM;
                p = next;
        }
        *ret_last = layer;
        return 0;
}

/* Expects "@mark@k..." and a newline at *@pos; returns the rest of the line's text in @rest. */
static bool expect_mark(const char *out, size_t len, size_t *pos, const char *mark, char *rest,
                        size_t size)
{
        size_t ml = strlen(mark);
        if (len - *pos < ml || strncmp(out + *pos, mark, ml) != 0)
                return false;
        const char *s = out + *pos + ml;
        size_t l = strcspn(s, "\n");
        if (s[l] != '\n')
                return false;
        snprintf(rest, size, "%.*s", (int)l, s);
        *pos = (size_t)(s + l + 1 - out);
        return true;
}

static int parse_stdout(struct load *l, const struct cordon_confined_output *o)
{
        const char **names = calloc(cordon_vars_count, sizeof(*names));
        if (!names)
                return -ENOMEM;
        for (size_t i = 0; i < cordon_vars_count; i++)
                names[i] = cordon_vars[i].name;
        size_t pos = 0;
        int r = 0;
        for (size_t k = 0; k <= l->n_layers && r >= 0; k++) {
                const char *path = k ? layer_file(l, k)->path : "the built-in defaults";
                char rest[64], want[32];
                snprintf(want, sizeof(want), "%zu ", k);
                if (!expect_mark(o->out, o->out_len, &pos, CORDON_CONFIG_MARK_LAYER, rest,
                                 sizeof(rest)) ||
                    strncmp(rest, want, strlen(want)) != 0) {
                        r = cordon_diag_set(l->diag, -EINVAL,
                                            "%s: reading the configuration stopped in this file "
                                            "(it called exit or exec, or broke the shell): "
                                            "cordon cannot tell what it and the files after it "
                                            "set",
                                            k ? layer_file(l, k)->path : "(start)");
                        break;
                }
                int status = atoi(rest + strlen(want));
                if (k && streq(layer_file(l, k)->layer, "admin") && status != 0) {
                        r = cordon_diag_set(l->diag, -EINVAL,
                                            "admin baseline %s is malformed: it ended with "
                                            "status %d",
                                            path, status);
                        break;
                }
                struct cordon_diag d = {0};
                r = cordon_declare_parse(o->out, o->out_len, &pos, names, cordon_vars_count,
                                         &l->dumps[k * cordon_vars_count], &d);
                if (r == -EINVAL)
                        r = cordon_diag_set(l->diag, r, "%s: reading back its variables: %s", path,
                                            d.message);
        }
        free(names);
        if (r < 0)
                return r;
        char rest[8];
        if (!expect_mark(o->out, o->out_len, &pos, CORDON_CONFIG_MARK_END, rest, sizeof(rest)) ||
            *rest || pos != o->out_len)
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s: reading the configuration did not end cleanly (a "
                                       "file printed to the variables' dump or broke the shell)",
                                       layer_file(l, l->n_layers)->path);
        return 0;
}

/* Every dump holds each variable with its type: an array for a list, a plain value for a
 * scalar. */
static int check_types(struct load *l)
{
        for (size_t k = 1; k <= l->n_layers; k++) {
                const struct cordon_config_file *f = layer_file(l, k);
                /* Nothing at all: `declare` itself was disabled or replaced. */
                bool any = false;
                for (size_t i = 0; i < cordon_vars_count && !any; i++)
                        any = dump(l, k, i)->present;
                if (!any)
                        return cordon_diag_set(l->diag, -EINVAL,
                                               "%s: cordon could not read back any variable "
                                               "after this file (it disabled or replaced "
                                               "`declare`?)",
                                               f->path);
                for (size_t i = 0; i < cordon_vars_count; i++) {
                        const struct cordon_declare_value *v = dump(l, k, i);
                        bool list = cordon_vars[i].type == CORDON_VAR_LIST;
                        /* An unset list is empty; an unset scalar has no value to give. */
                        if (!v->present && !list) {
                                _cleanup_free_ char *o = origin_of(f, cordon_vars[i].name);
                                return cordon_diag_set(
                                    l->diag, -EINVAL,
                                    "%s: %s is unset after this file; give it a value instead",
                                    o ? o : f->path, cordon_vars[i].name);
                        }
                        if (!v->present || v->array == list)
                                continue;
                        _cleanup_free_ char *o = origin_of(f, cordon_vars[i].name);
                        return cordon_diag_set(
                            l->diag, -EINVAL, "%s%s: %s must be %s", o ? o : f->path,
                            streq(f->layer, "admin") ? " (admin baseline)" : "",
                            cordon_vars[i].name,
                            list ? "an array, NAME=(...)" : "a plain value, not an array");
                }
        }
        return 0;
}

/* ---- text checks ---- */

struct scan_ctx {
        struct load *l;
        const struct cordon_config_file *f;
        char **seen;
        int error;
};

static bool is_upper_name(const char *n, size_t len)
{
        if (len == 0 || n[0] < 'A' || n[0] > 'Z')
                return false;
        for (size_t i = 0; i < len; i++)
                if (!((n[i] >= 'A' && n[i] <= 'Z') || (n[i] >= '0' && n[i] <= '9') || n[i] == '_'))
                        return false;
        return true;
}

static int unknown_cb(const struct cordon_config_assignment *a, void *userdata)
{
        struct scan_ctx *c = userdata;
        if (!is_upper_name(a->name, a->name_len))
                return 0;
        char name[128];
        snprintf(name, sizeof(name), "%.*s", (int)a->name_len, a->name);
        if (cordon_var_find(name) || strv_contains(c->seen, name))
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(not_unknown); i++)
                if (streq(not_unknown[i], name))
                        return 0;
        if (strv_extend(&c->seen, name) < 0 ||
            strv_extendf(&c->l->warnings, "%s:%u: %s is not a variable cordon knows; it is ignored",
                         c->f->path, a->line, name) < 0)
                return c->error = -ENOMEM;
        return 0;
}

static int substitution_cb(const struct cordon_config_assignment *a, void *userdata)
{
        struct scan_ctx *c = userdata;
        static const char name[] = "ALLOWED_PROJECT_PARENTS";
        if (a->name_len != sizeof(name) - 1 || strncmp(a->name, name, a->name_len) != 0)
                return 0;
        /* bash keeps an array an array when a plain value is assigned (it replaces element 0):
         * the dump cannot tell, the text can. */
        if (!a->element && a->value[0] != '(')
                return c->error = cordon_diag_set(c->l->diag, -EINVAL,
                                                  "admin baseline %s:%u is malformed: %s must be "
                                                  "an array, %s=(...)",
                                                  c->f->path, a->line, name, name);
        if (!cordon_config_value_substitutes(a->value))
                return 0;
        return c->error = cordon_diag_set(c->l->diag, -EINVAL,
                                          "admin baseline %s:%u is malformed: %s uses command "
                                          "substitution ($(...) or `...`); its entries must be "
                                          "literal paths",
                                          c->f->path, a->line, name);
}

static int check_texts(struct load *l)
{
        for (size_t i = 0; i < l->files.n; i++) {
                struct scan_ctx c = {.l = l, .f = &l->files.files[i]};
                if (!c.f->code)
                        continue;
                if (streq(c.f->layer, "admin")) {
                        (void)cordon_config_scan(c.f->text, substitution_cb, &c);
                        if (c.error < 0)
                                return c.error;
                }
                (void)cordon_config_scan(c.f->text, unknown_cb, &c);
                strv_free(c.seen);
                if (c.error < 0)
                        return c.error;
        }
        return 0;
}

/* ---- into the settings ---- */

/* Variable @i's value in layer @k: the items, and their count (a scalar: one, "" when unset). */
static size_t values(const struct load *l, size_t k, size_t i, char *const **ret)
{
        static char none[1];
        static char *const empty[] = {none, NULL};
        const struct cordon_declare_value *v = dump(l, k, i);
        if (cordon_vars[i].type != CORDON_VAR_LIST && (!v->present || v->n == 0)) {
                *ret = empty;
                return 1;
        }
        *ret = v->items;
        return v->present ? v->n : 0;
}

static bool same(const struct load *l, size_t a, size_t b, size_t i)
{
        char *const *x, *const *y;
        size_t nx = values(l, a, i, &x), ny = values(l, b, i, &y);
        if (nx != ny)
                return false;
        for (size_t j = 0; j < nx; j++)
                if (!streq(x[j], y[j]))
                        return false;
        return true;
}

static bool contains(const struct load *l, size_t k, size_t i, const char *item)
{
        char *const *x;
        size_t n = values(l, k, i, &x);
        for (size_t j = 0; j < n; j++)
                if (streq(x[j], item))
                        return true;
        return false;
}

static void *field(struct cordon_settings *s, const struct cordon_var *v)
{
        return (char *)s + v->offset;
}

static int set_failed(struct load *l, const char *origin, const struct cordon_diag *d, int r)
{
        return cordon_diag_set(l->diag, r, "%s: %s", origin, d->message);
}

/* Writes variable @i as layers 1..@last_layer leave it into @t (fresh defaults). Returns 1 when
 * a layer changed it, 0 when none did, -errno. */
static int apply_var(struct load *l, struct cordon_settings *t, size_t i, size_t last_layer)
{
        const struct cordon_var *v = &cordon_vars[i];
        size_t last = 0;
        for (size_t k = 1; k <= last_layer; k++)
                if (!same(l, k, k - 1, i))
                        last = k;
        if (last == 0)
                return 0;
        _cleanup_free_ char *origin = origin_of(layer_file(l, last), v->name);
        if (!origin)
                return -ENOMEM;
        char *const *items;
        size_t n = values(l, last_layer, i, &items);
        struct cordon_diag d = {0};
        int r;
        if (v->type != CORDON_VAR_LIST) {
                if (same(l, last_layer, 0, i))
                        r = cordon_settings_reset(t, v->name);
                else if ((r = cordon_settings_set(t, v->name, items[0], origin, &d)) < 0)
                        return set_failed(l, origin, &d, r);
                return r < 0 ? r : 1;
        }
        if (v->offset != SIZE_MAX)
                cordon_list_clear(field(t, v));
        else if (v->status == CORDON_VAR_UNSUPPORTED)
                /* A list cordon does not enforce takes its default items only, all of them:
                 * dropping one would pretend to switch it off. */
                for (const char *const *dflt = v->defaults; dflt && *dflt; dflt++) {
                        bool kept = false;
                        for (size_t j = 0; j < n && !kept; j++)
                                kept = streq(items[j], *dflt);
                        if (!kept)
                                return cordon_diag_set(l->diag, -EOPNOTSUPP,
                                                       "%s: %s without '%s': %s is not enforced "
                                                       "by cordon yet; only its default is "
                                                       "accepted",
                                                       origin, v->name, *dflt, v->name);
                }
        for (size_t j = 0; j < n; j++) {
                /* The layer the item first appeared in, of the run of layers that kept it. */
                size_t from = last_layer;
                while (from > 0 && contains(l, from - 1, i, items[j]))
                        from--;
                _cleanup_free_ char *item_origin = from == 0
                                                       ? strdup(CORDON_SETTINGS_BUILTIN)
                                                       : origin_of(layer_file(l, from), v->name);
                if (!item_origin)
                        return -ENOMEM;
                if ((r = cordon_settings_set(t, v->name, items[j], item_origin, &d)) < 0)
                        return set_failed(l, item_origin, &d, r);
        }
        return 1;
}

/* Moves variable @v's value (and origin) from @from to @to, and @to's old one to @from. */
static void swap_var(struct cordon_settings *to, struct cordon_settings *from,
                     const struct cordon_var *v)
{
        if (v->offset == SIZE_MAX)
                return;
        size_t size = 0;
        switch (v->type) {
        case CORDON_VAR_LIST:
                size = sizeof(struct cordon_list);
                break;
        case CORDON_VAR_BOOL:
                size = sizeof(bool);
                break;
        case CORDON_VAR_ENUM:
                size = sizeof(int);
                break;
        case CORDON_VAR_STRING:
                size = sizeof(char *);
                break;
        case CORDON_VAR_U64:
                size = sizeof(uint64_t);
                break;
        case CORDON_VAR_UNSIGNED:
                size = sizeof(unsigned);
                break;
        }
        char tmp[sizeof(struct cordon_list)];
        _Static_assert(sizeof(struct cordon_list) >= sizeof(uint64_t), "swap buffer");
        memcpy(tmp, field(to, v), size);
        memcpy(field(to, v), field(from, v), size);
        memcpy(field(from, v), tmp, size);
        if (v->type != CORDON_VAR_LIST) {
                char **a = (char **)(void *)((char *)to + v->origin_offset);
                char **b = (char **)(void *)((char *)from + v->origin_offset);
                char *o = *a;
                *a = *b;
                *b = o;
        }
}

static void settings_freep(struct cordon_settings **s)
{
        cordon_settings_free(*s);
}

/* A variable naming a program the supervisor runs outside the sandbox (the registry's
 * host_program rows: NETWORK_FILTER_HELPER) comes from the admin baseline or the command line,
 * never from a user's file: sandbox.conf, user.conf and conf.d are files a sandbox with the
 * user's ~/.config writable could have planted (issue 22), and the next ordinary run would
 * execute its choice unconfined. Refused, naming the file and line, whatever the program. */
static int check_host_programs(struct load *l)
{
        for (size_t k = 1; k <= l->n_layers; k++) {
                const struct cordon_config_file *f = layer_file(l, k);
                if (streq(f->layer, "admin"))
                        continue;
                for (size_t i = 0; i < cordon_vars_count; i++) {
                        if (!cordon_vars[i].host_program || same(l, k, k - 1, i))
                                continue;
                        _cleanup_free_ char *o = origin_of(f, cordon_vars[i].name);
                        if (!o)
                                return -ENOMEM;
                        return cordon_diag_set(l->diag, -EPERM,
                                               "%s: %s names a program cordon runs outside the "
                                               "sandbox; it is taken from the admin baseline or "
                                               "the command line only, never from a file a "
                                               "sandbox could have written",
                                               o, cordon_vars[i].name);
                }
        }
        return 0;
}

static int evaluate(struct load *l, const struct cordon_config_options *o,
                    const struct cordon_config_load_params *params, const char *default_home)
{
        const char *home = cordon_config_getenv(o->envp, "HOME");
        char cwd[4096];
        const char *project = o->project_dir ? o->project_dir : getcwd(cwd, sizeof(cwd));
        _cleanup_free_ char **paths = calloc(l->files.n + 1, sizeof(*paths));
        l->layer_file = calloc(l->files.n + 1, sizeof(*l->layer_file));
        if (!paths || !l->layer_file)
                return -ENOMEM;
        size_t n_admin = 0;
        for (size_t i = 0; i < l->files.n; i++) {
                const struct cordon_config_file *f = &l->files.files[i];
                if (!f->code)
                        continue;
                n_admin += streq(f->layer, "admin");
                paths[l->n_layers] = f->real_path ? f->real_path : f->path;
                l->layer_file[++l->n_layers] = i;
        }
        if (l->n_layers == 0)
                return 0;
        l->dumps = calloc((l->n_layers + 1) * cordon_vars_count, sizeof(*l->dumps));
        if (!l->dumps)
                return -ENOMEM;
        struct cordon_config_eval_args a = {
            .paths = paths,
            .n = l->n_layers,
            .n_admin = n_admin,
            .home = home && home[0] == '/' ? home : NULL,
            .default_home = default_home,
            .project_dir = project,
            .path_env = cordon_config_getenv(o->envp, "PATH"),
            .backend = params->backend,
        };
        struct cordon_confined_output out = {0};
        int r = cordon_config_eval(&a, &out, l->diag);
        if (r < 0)
                return r;
        size_t running = 0;
        /* Killed: only which file was running counts, not what it printed. */
        r = check_stderr(l, out.err, out.timed_out || out.out_over || out.err_over, &running);
        const char *where = running ? layer_file(l, running)->path : "the configuration";
        if (r >= 0 && out.timed_out)
                r = cordon_diag_set(l->diag, -ETIME,
                                    "%s: reading it took longer than %llu s (a loop, or a "
                                    "command that waits?)",
                                    where, CORDON_CONFIG_EVAL_TIMEOUT_USEC / 1000000);
        else if (r >= 0 && (out.out_over || out.err_over))
                r = cordon_diag_set(l->diag, -EFBIG, "%s: printed more than %s while it was read",
                                    where,
                                    out.out_over ? "1 MiB of variables"
                                                 : "64 KiB of "
                                                   "messages");
        if (r >= 0)
                r = parse_stdout(l, &out);
        cordon_confined_output_clear(&out);
        if (r >= 0)
                r = check_types(l);
        if (r >= 0)
                r = check_host_programs(l);
        return r;
}

int cordon_config_load_with(struct cordon_settings *s, const struct cordon_config_options *o,
                            const struct cordon_config_load_params *params, char ***ret_warnings,
                            struct cordon_diag *diag)
{
        static const struct cordon_config_options none = {0};
        if (!o)
                o = &none;
        if (ret_warnings)
                *ret_warnings = NULL;
        struct load l = {.diag = diag};
        struct cordon_config_where w = {
            .envp = o->envp,
            .agent_admin_path = params->agent_admin_path,
            .admin_path = params->admin_path,
            .admin_profile = params->admin_profile,
            .admin_owner = params->admin_owner,
            .caller = params->caller,
            .write_default = o->flags & CORDON_CONFIG_WRITE_DEFAULT,
            .announce_default = o->flags & CORDON_CONFIG_ANNOUNCE_DEFAULT,
        };
        int r = cordon_config_find(&w, &l.files, &l.warnings, diag);
        if (r >= 0)
                r = evaluate(&l, o, params, s->home);
        if (r >= 0)
                r = check_texts(&l);

        /* The admin baseline on its own (defaults + the admin files: agent-sandbox's, then
         * cordon's, evaluated as layers 1..admin_layers), and everything. */
        _cleanup_(settings_freep) struct cordon_settings *admin = NULL, *all = NULL;
        _cleanup_free_ bool *admin_set = NULL, *changed = NULL;
        size_t admin_layers = 0;
        while (r >= 0 && admin_layers < l.n_layers &&
               streq(layer_file(&l, admin_layers + 1)->layer, "admin"))
                admin_layers++;
        if (r >= 0 && l.files.n_admin > 0) {
                r = cordon_settings_new(s->home, &admin);
                if (r >= 0 && !(admin_set = calloc(cordon_vars_count, sizeof(bool))))
                        r = -ENOMEM;
                for (size_t i = 0; r >= 0 && i < cordon_vars_count; i++) {
                        for (size_t k = 0; k < l.files.n_admin && !admin_set[i]; k++)
                                admin_set[i] = cordon_config_last_assignment(
                                                   l.files.files[k].text, cordon_vars[i].name) > 0;
                        if (admin_layers > 0 && (r = apply_var(&l, admin, i, admin_layers)) > 0)
                                admin_set[i] = true;
                }
        }
        if (r >= 0) {
                r = cordon_settings_new(s->home, &all);
                if (r >= 0 && !(changed = calloc(cordon_vars_count, sizeof(bool))))
                        r = -ENOMEM;
                for (size_t i = 0; r >= 0 && l.n_layers && i < cordon_vars_count; i++)
                        if ((r = apply_var(&l, all, i, l.n_layers)) > 0)
                                changed[i] = true;
        }
        struct cordon_list files = {0};
        for (size_t i = 0; r >= 0 && i < l.files.n; i++)
                r = cordon_list_add(&files, l.files.files[i].path, l.files.files[i].layer);
        if (r < 0) {
                cordon_list_clear(&files);
                load_clear(&l);
                return r;
        }

        /* Nothing can fail from here on. */
        for (size_t i = 0; i < cordon_vars_count; i++)
                if (changed[i])
                        swap_var(s, all, &cordon_vars[i]);
        cordon_list_clear(&s->config_files);
        s->config_files = files;
        if (s->admin) {
                cordon_settings_clear(s->admin);
                free(s->admin);
        }
        s->admin = TAKE_PTR(admin);
        free(s->admin_set);
        s->admin_set = TAKE_PTR(admin_set);
        s->finalized = false;
        if (ret_warnings)
                *ret_warnings = TAKE_PTR(l.warnings);
        load_clear(&l);
        return 0;
}

_public_ int cordon_settings_load_config(struct cordon_settings *s,
                                         const struct cordon_config_options *o,
                                         char ***ret_warnings, struct cordon_diag *diag)
{
        struct cordon_config_load_params params = {
            .admin_owner = 0,
            .caller = getuid(),
            .backend = CORDON_BACKEND_AUTO,
        };
        return cordon_config_load_with(s, o, &params, ret_warnings, diag);
}

_public_ int cordon_settings_load_config_with_admin(struct cordon_settings *s,
                                                    const struct cordon_config_options *o,
                                                    const char *admin_profile, char ***ret_warnings,
                                                    struct cordon_diag *diag)
{
        if (!admin_profile)
                return cordon_diag_set(diag, -EINVAL, "no admin profile");
        struct cordon_config_load_params params = {
            .admin_profile = admin_profile,
            .admin_owner = 0,
            .caller = getuid(),
            .backend = CORDON_BACKEND_AUTO,
        };
        return cordon_config_load_with(s, o, &params, ret_warnings, diag);
}

_public_ ssize_t cordon_settings_config_file_count(const struct cordon_settings *s)
{
        return (ssize_t)s->config_files.n;
}

_public_ int cordon_settings_get_config_file(const struct cordon_settings *s, size_t i,
                                             const char **ret_path, const char **ret_layer)
{
        if (i >= s->config_files.n)
                return -ERANGE;
        if (ret_path)
                *ret_path = s->config_files.items[i].value;
        if (ret_layer)
                *ret_layer = s->config_files.items[i].origin;
        return 0;
}
