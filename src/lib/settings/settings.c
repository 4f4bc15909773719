/* The settings object: built-in defaults from the registry, cordon_settings_set() (the one way a
 * value gets in), reset and the getters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/diag.h"
#include "lib/profiles/profiles.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"

/* Enum fields are written as int: every enum here has int's size. */
_Static_assert(sizeof(enum cordon_home_access) == sizeof(int), "enum size");
_Static_assert(sizeof(enum cordon_profile) == sizeof(int), "enum size");

static void *field(struct cordon_settings *s, const struct cordon_var *v)
{
        return (char *)s + v->offset;
}

static const void *cfield(const struct cordon_settings *s, const struct cordon_var *v)
{
        return (const char *)s + v->offset;
}

static char **origin_field(struct cordon_settings *s, const struct cordon_var *v)
{
        return (char **)(void *)((char *)s + v->origin_offset);
}

static bool has_field(const struct cordon_var *v)
{
        return v->offset != SIZE_MAX;
}

/* The built-in default of a scalar, "" when it has none. */
static const char *scalar_default(const struct cordon_var *v)
{
        return v->defaults && v->defaults[0] ? v->defaults[0] : "";
}

/* Stores parsed @val in the field of scalar @v, with @origin. */
static int store_scalar(struct cordon_settings *s, const struct cordon_var *v,
                        const union cordon_var_value *val, const char *origin)
{
        char *o = strdup(origin);
        if (!o)
                return -ENOMEM;
        switch (v->type) {
        case CORDON_VAR_BOOL:
                *(bool *)field(s, v) = val->b;
                break;
        case CORDON_VAR_ENUM:
                *(int *)field(s, v) = val->e;
                break;
        case CORDON_VAR_U64:
                *(uint64_t *)field(s, v) = val->u64;
                break;
        case CORDON_VAR_UNSIGNED:
                *(unsigned *)field(s, v) = val->u;
                break;
        case CORDON_VAR_STRING: {
                char *dup = val->str ? strdup(val->str) : NULL;
                if (val->str && !dup) {
                        free(o);
                        return -ENOMEM;
                }
                char **f = field(s, v);
                free(*f);
                *f = dup;
                break;
        }
        case CORDON_VAR_LIST:
                free(o);
                return -EINVAL;
        }
        char **of = origin_field(s, v);
        free(*of);
        *of = o;
        return 0;
}

/* Puts @v to its default ("$HOME" expanded to @home; left out when @home is not absolute). */
static int reset_var(struct cordon_settings *s, const struct cordon_var *v, const char *home)
{
        if (!has_field(v))
                return 0;
        if (v->type == CORDON_VAR_LIST) {
                struct cordon_list *l = field(s, v);
                cordon_list_clear(l);
                size_t count = 0;
                for (const char *const *d = v->defaults; d && *d; d++)
                        count++;
                if (count == 0)
                        return 0;
                /* One array for all of them: cordon_list_add() would realloc() it once per item,
                 * for the 150-odd defaults of every start. */
                l->items = calloc(count, sizeof(*l->items));
                if (!l->items)
                        return -ENOMEM;
                for (const char *const *d = v->defaults; d && *d; d++) {
                        char *val = NULL, *origin = NULL;
                        int k = cordon_settings_expand_home(*d, home, &val);
                        if (k == 0)
                                continue; /* names $HOME, and there is none */
                        if (k > 0)
                                origin = strdup(CORDON_SETTINGS_BUILTIN);
                        if (!val || !origin) {
                                free(val);
                                free(origin);
                                return -ENOMEM;
                        }
                        l->items[l->n++] = (struct cordon_item){.value = val, .origin = origin};
                }
                return 0;
        }
        union cordon_var_value val = {0};
        const char *d = scalar_default(v);
        /* An unset scalar (no default) is zero; a default always parses (unit-tested). */
        if (*d && v->parse && v->parse(d, &val) < 0)
                return -EINVAL;
        if (!*d && v->type == CORDON_VAR_STRING)
                val.str = NULL;
        else if (v->type == CORDON_VAR_STRING)
                val.str = d;
        return store_scalar(s, v, &val, CORDON_SETTINGS_BUILTIN);
}

/* "$HOME", "${HOME}" or "~", alone or followed by '/': the length of that prefix, else 0. */
static size_t home_prefix(const char *value)
{
        static const char *const prefixes[] = {"${HOME}", "$HOME", "~"};
        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++) {
                size_t n = strlen(prefixes[i]);
                if (strncmp(value, prefixes[i], n) == 0 && (value[n] == 0 || value[n] == '/'))
                        return n;
        }
        return 0;
}

bool cordon_settings_names_home(const char *value)
{
        return value && home_prefix(value) > 0;
}

int cordon_settings_expand_home(const char *value, const char *home, char **ret)
{
        size_t n = home_prefix(value);
        char *out;
        if (n == 0)
                out = strdup(value);
        else if (!home || home[0] != '/')
                return 0;
        else if (asprintf(&out, "%s%s", home, value + n) < 0)
                out = NULL;
        if (!out)
                return -ENOMEM;
        *ret = out;
        return 1;
}

int cordon_settings_init_defaults(struct cordon_settings *s, const char *home)
{
        *s = (struct cordon_settings){0};
        if (home && !(s->home = strdup(home)))
                return -ENOMEM;
        for (size_t i = 0; i < cordon_vars_count; i++) {
                int r = reset_var(s, &cordon_vars[i], home);
                if (r < 0) {
                        cordon_settings_clear(s);
                        return r;
                }
        }
        return 0;
}

void cordon_settings_clear(struct cordon_settings *s)
{
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (!has_field(v))
                        continue;
                if (v->type == CORDON_VAR_LIST) {
                        cordon_list_clear(field(s, v));
                        continue;
                }
                if (v->type == CORDON_VAR_STRING)
                        free(*(char **)field(s, v));
                free(*origin_field(s, v));
        }
        free(s->home);
        cordon_list_clear(&s->config_files);
        cordon_list_clear(&s->admin_changes);
        if (s->admin) {
                cordon_settings_clear(s->admin);
                free(s->admin);
        }
        free(s->admin_set);
        cordon_agent_profiles_free(s->agents, s->n_agents);
        *s = (struct cordon_settings){0};
}

int cordon_settings_copy(struct cordon_settings *dst, const struct cordon_settings *src)
{
        /* The plain values (booleans, enums, limits) at once; then every pointer is replaced by
         * a copy of its own before anything can fail, so that clearing @dst on failure never
         * frees what @src holds. */
        *dst = *src;
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (!has_field(v))
                        continue;
                if (v->type == CORDON_VAR_LIST) {
                        *(struct cordon_list *)field(dst, v) = (struct cordon_list){0};
                        continue;
                }
                if (v->type == CORDON_VAR_STRING)
                        *(char **)field(dst, v) = NULL;
                *origin_field(dst, v) = NULL;
        }
        dst->home = NULL;
        dst->config_files = dst->admin_changes = (struct cordon_list){0};
        dst->admin = NULL;
        dst->admin_set = NULL;
        dst->agents = NULL;
        dst->n_agents = 0;

        int r = 0;
        for (size_t i = 0; r >= 0 && i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (!has_field(v))
                        continue;
                if (v->type == CORDON_VAR_LIST) {
                        r = cordon_list_copy(field(dst, v), cfield(src, v));
                        continue;
                }
                const char *str =
                    v->type == CORDON_VAR_STRING ? *(char *const *)cfield(src, v) : NULL;
                const char *origin =
                    *(char *const *)(const void *)((const char *)src + v->origin_offset);
                if ((str && !(*(char **)field(dst, v) = strdup(str))) ||
                    (origin && !(*origin_field(dst, v) = strdup(origin))))
                        r = -ENOMEM;
        }
        if (r >= 0 && src->home && !(dst->home = strdup(src->home)))
                r = -ENOMEM;
        if (r >= 0)
                r = cordon_list_copy(&dst->config_files, &src->config_files);
        if (r >= 0)
                r = cordon_list_copy(&dst->admin_changes, &src->admin_changes);
        if (r >= 0 &&
            (r = cordon_agent_profiles_copy(src->agents, src->n_agents, &dst->agents)) >= 0)
                dst->n_agents = src->n_agents;
        if (r >= 0 && src->admin_set) {
                dst->admin_set = malloc(sizeof(bool) * cordon_vars_count);
                if (dst->admin_set)
                        memcpy(dst->admin_set, src->admin_set, sizeof(bool) * cordon_vars_count);
                else
                        r = -ENOMEM;
        }
        if (r >= 0 && src->admin) {
                dst->admin = malloc(sizeof(*dst->admin));
                if (!dst->admin)
                        r = -ENOMEM;
                else if ((r = cordon_settings_copy(dst->admin, src->admin)) < 0) {
                        free(dst->admin);
                        dst->admin = NULL;
                }
        }
        if (r < 0)
                cordon_settings_clear(dst);
        return r;
}

_public_ int cordon_settings_new(const char *home, struct cordon_settings **ret)
{
        struct cordon_settings *s = malloc(sizeof(*s));
        if (!s)
                return -ENOMEM;
        int r = cordon_settings_init_defaults(s, home);
        if (r < 0) {
                free(s);
                return r;
        }
        *ret = s;
        return 0;
}

_public_ struct cordon_settings *cordon_settings_free(struct cordon_settings *s)
{
        if (s) {
                cordon_settings_clear(s);
                free(s);
        }
        return NULL;
}

/* Is @value one of @v's defaults? (What a variable that is not enforced accepts.) */
static bool is_default(const struct cordon_var *v, const char *value)
{
        if (v->type != CORDON_VAR_LIST)
                return streq(scalar_default(v), value);
        for (const char *const *d = v->defaults; d && *d; d++)
                if (streq(*d, value))
                        return true;
        return false;
}

int cordon_settings_set_var(struct cordon_settings *s, const struct cordon_var *v,
                            const char *value, const char *origin, const char *spelling,
                            const char *sep, struct cordon_diag *diag)
{
        if (!value || !origin)
                return -EINVAL;
        union cordon_var_value val = {.str = value};
        if (v->parse && v->parse(value, &val) < 0) {
                const char *why = v->why ? v->why(value) : NULL;
                return cordon_diag_set(diag, -EINVAL, "%s%s'%s': %s%s%s", spelling, sep, value,
                                       strempty(why), why ? "; " : "",
                                       v->expected ? v->expected : "not a valid value");
        }
        if (v->status == CORDON_VAR_UNSUPPORTED && !is_default(v, value))
                return cordon_diag_set(diag, -EOPNOTSUPP,
                                       "%s%s'%s': %s is not enforced by cordon yet; only its "
                                       "default is accepted",
                                       spelling, sep, value, v->name);
        if (!has_field(v)) /* a no-op, or the default of one not enforced */
                return 0;
        /* The admin rules are due again for the new value (cordon_settings_finalize()). */
        s->finalized = false;
        if (v->type == CORDON_VAR_LIST)
                return cordon_list_add(field(s, v), value, origin);
        return store_scalar(s, v, &val, origin);
}

_public_ int cordon_settings_set(struct cordon_settings *s, const char *name, const char *value,
                                 const char *origin, struct cordon_diag *diag)
{
        const struct cordon_var *v = cordon_var_find(name);
        if (!v)
                return cordon_diag_set(diag, -ENOENT, "%s: no such variable",
                                       name ? name : "(null)");
        return cordon_settings_set_var(s, v, value, origin, v->name, " ", diag);
}

_public_ int cordon_settings_reset(struct cordon_settings *s, const char *name)
{
        const struct cordon_var *v = cordon_var_find(name);
        if (!v)
                return -ENOENT;
        /* Emptying a list that is not enforced would pretend to remove its default items. */
        if (v->status == CORDON_VAR_UNSUPPORTED && v->type == CORDON_VAR_LIST && v->defaults &&
            v->defaults[0])
                return -EOPNOTSUPP;
        s->finalized = false;
        return reset_var(s, v, s->home);
}

_public_ void cordon_settings_diag_respell(struct cordon_diag *diag, const char *name,
                                           const char *spelling)
{
        if (!diag || !name || !spelling)
                return;
        size_t n = strlen(name);
        if (strncmp(diag->message, name, n) != 0 || diag->message[n] != ' ')
                return;
        size_t sl = strlen(spelling);
        bool glue = sl > 0 && spelling[sl - 1] == '=';
        char buf[sizeof(diag->message)];
        snprintf(buf, sizeof(buf), "%s%s", spelling, diag->message + n + (glue ? 1 : 0));
        memcpy(diag->message, buf, sizeof(buf));
}

_public_ int cordon_settings_get(const struct cordon_settings *s, const char *name, char *buf,
                                 size_t size, const char **ret_origin)
{
        const struct cordon_var *v = cordon_var_find(name);
        if (!v)
                return -ENOENT;
        if (v->type == CORDON_VAR_LIST)
                return -EISDIR;
        char tmp[64];
        const char *text = tmp, *origin = CORDON_SETTINGS_BUILTIN;
        if (!has_field(v))
                text = scalar_default(v);
        else {
                origin = *(char *const *)(const void *)((const char *)s + v->origin_offset);
                switch (v->type) {
                case CORDON_VAR_BOOL:
                        text = *(const bool *)cfield(s, v) ? "true" : "false";
                        break;
                case CORDON_VAR_ENUM:
                        text = strempty(v->enum_name(*(const int *)cfield(s, v)));
                        break;
                case CORDON_VAR_U64: {
                        uint64_t u = *(const uint64_t *)cfield(s, v);
                        if (!u)
                                text = "";
                        else if (v->format)
                                v->format(u, tmp, sizeof(tmp));
                        else
                                snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)u);
                        break;
                }
                case CORDON_VAR_UNSIGNED: {
                        unsigned u = *(const unsigned *)cfield(s, v);
                        if (u)
                                snprintf(tmp, sizeof(tmp), "%u", u);
                        else
                                text = "";
                        break;
                }
                case CORDON_VAR_STRING:
                        text = strempty(*(char *const *)cfield(s, v));
                        break;
                case CORDON_VAR_LIST:
                        return -EISDIR;
                }
        }
        if (strlen(text) >= size)
                return -ENOBUFS;
        strcpy(buf, text);
        if (ret_origin)
                *ret_origin = origin;
        return 0;
}

static const struct cordon_list *list_of(const struct cordon_settings *s, const char *name,
                                         int *ret_err)
{
        static const struct cordon_list empty = {0};
        const struct cordon_var *v = cordon_var_find(name);
        *ret_err = !v ? -ENOENT : v->type != CORDON_VAR_LIST ? -ENOTDIR : 0;
        if (*ret_err)
                return NULL;
        return has_field(v) ? cfield(s, v) : &empty;
}

_public_ ssize_t cordon_settings_count(const struct cordon_settings *s, const char *name)
{
        int r;
        const struct cordon_list *l = list_of(s, name, &r);
        return l ? (ssize_t)l->n : r;
}

_public_ int cordon_settings_get_item(const struct cordon_settings *s, const char *name, size_t i,
                                      const char **ret_value, const char **ret_origin)
{
        int r;
        const struct cordon_list *l = list_of(s, name, &r);
        if (!l)
                return r;
        if (i >= l->n)
                return -ERANGE;
        if (ret_value)
                *ret_value = l->items[i].value;
        if (ret_origin)
                *ret_origin = l->items[i].origin;
        return 0;
}
