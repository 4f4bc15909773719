/* The profile file of an agent (profiles/<name>/profile): `KEY VALUE` lines, parsed strictly.
 * Pure: no file is opened here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/diag.h"
#include "lib/profiles/profiles.h"
#include "lib/resolve/env-filter.h"
#include "shared/macro.h"

static const char *const key_names[_CORDON_PROFILE_KEY_MAX] = {
    [CORDON_PROFILE_WRITABLE] = "writable",
    [CORDON_PROFILE_READONLY] = "readonly",
    [CORDON_PROFILE_INSTRUCTIONS] = "instructions",
    [CORDON_PROFILE_EXEC_CONFIG] = "exec_config",
    [CORDON_PROFILE_EXEC_DIR] = "exec_dir",
    [CORDON_PROFILE_CONFIG_DIR_VAR] = "config_dir_var",
    [CORDON_PROFILE_CREDENTIAL_ENV] = "credential_env",
    [CORDON_PROFILE_AUTH_PATH] = "auth_path",
    [CORDON_PROFILE_DIR] = "dir",
    [CORDON_PROFILE_STATE] = "state",
    [CORDON_PROFILE_STATE_FILE] = "state_file",
    [CORDON_PROFILE_COMMAND] = "command",
    [CORDON_PROFILE_PRIVATE_COPY] = "private_copy",
    [CORDON_PROFILE_WRITEBACK] = "writeback",
    [CORDON_PROFILE_OVERLAY] = "overlay",
    [CORDON_PROFILE_FOLDER_SETTINGS] = "folder_settings",
};

const char *cordon_profile_key_name(enum cordon_profile_key k)
{
        return (unsigned)k < _CORDON_PROFILE_KEY_MAX ? key_names[k] : NULL;
}

bool cordon_profile_name_is_valid(const char *name)
{
        size_t n = name ? strlen(name) : 0;
        if (n == 0 || n > CORDON_PROFILE_NAME_MAX)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = name[i];
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
                        return false;
        }
        return true;
}

/* A path relative to $HOME: not absolute, no "." or ".." component other than a lone ".", no
 * empty component, printable ASCII only (a control byte would reach messages and the terminal). */
static bool home_path_is_valid(const char *v, bool dot_ok)
{
        if (!*v || v[0] == '/')
                return false;
        if (streq(v, "."))
                return dot_ok;
        for (const char *c = v; *c; c++)
                if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
                        return false;
        for (const char *p = v;;) {
                size_t n = strcspn(p, "/");
                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                if (!p[n])
                        return true;
                p += n + 1;
        }
}

bool cordon_profile_path_is_valid(const char *v)
{
        return v && home_path_is_valid(v, false);
}

void cordon_agent_profile_clear(struct cordon_agent_profile *a)
{
        if (!a)
                return;
        free(a->name);
        free(a->note);
        free(a->login_hint);
        free(a->settings);
        free(a->settings_file);
        for (size_t k = 0; k < _CORDON_PROFILE_KEY_MAX; k++)
                cordon_list_clear(&a->items[k]);
        *a = (struct cordon_agent_profile){0};
}

struct cordon_agent_profile *cordon_agent_profiles_free(struct cordon_agent_profile *a, size_t n)
{
        for (size_t i = 0; a && i < n; i++)
                cordon_agent_profile_clear(&a[i]);
        free(a);
        return NULL;
}

int cordon_agent_profiles_copy(const struct cordon_agent_profile *a, size_t n,
                               struct cordon_agent_profile **ret)
{
        *ret = NULL;
        if (n == 0)
                return 0;
        struct cordon_agent_profile *c = calloc(n, sizeof(*c));
        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                c[i].name = strdup(a[i].name);
                c[i].note = strdup(a[i].note);
                bool ok = c[i].name && c[i].note;
                const char *const from[] = {a[i].login_hint, a[i].settings, a[i].settings_file};
                char **to[] = {&c[i].login_hint, &c[i].settings, &c[i].settings_file};
                for (size_t k = 0; ok && k < ELEMENTSOF(from); k++)
                        ok = !from[k] || (*to[k] = strdup(from[k]));
                for (size_t k = 0; ok && k < _CORDON_PROFILE_KEY_MAX; k++)
                        ok = cordon_list_copy(&c[i].items[k], &a[i].items[k]) >= 0;
                if (!ok) {
                        cordon_agent_profiles_free(c, n);
                        return -ENOMEM;
                }
        }
        *ret = c;
        return 0;
}

static int parse_value(enum cordon_profile_key k, const char *v, const char **ret_reason)
{
        switch (k) {
        case CORDON_PROFILE_CREDENTIAL_ENV:
                *ret_reason = "expected a variable name";
                return cordon_env_name_is_valid(v, strlen(v)) ? 0 : -EINVAL;
        case CORDON_PROFILE_COMMAND:
                *ret_reason = "expected a program name ([A-Za-z0-9._+-], not starting with '.')";
                if (!*v || v[0] == '.' || strlen(v) > 64)
                        return -EINVAL;
                for (const char *c = v; *c; c++)
                        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                              (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '+' ||
                              *c == '-'))
                                return -EINVAL;
                return 0;
        case CORDON_PROFILE_CONFIG_DIR_VAR: {
                *ret_reason = "expected NAME PATH (PATH relative to $HOME, or .)";
                const char *eq = strchr(v, '=');
                return eq && cordon_env_name_is_valid(v, (size_t)(eq - v)) &&
                               home_path_is_valid(eq + 1, true)
                           ? 0
                           : -EINVAL;
        }
        case CORDON_PROFILE_PRIVATE_COPY:
        case CORDON_PROFILE_WRITEBACK:
        case CORDON_PROFILE_OVERLAY: {
                /* FILE, a space, and a second part (kept as one value "FILE REST"). */
                const char *sp = strchr(v, ' ');
                _cleanup_free_ char *file = sp ? strndup(v, (size_t)(sp - v)) : NULL;
                *ret_reason = k == CORDON_PROFILE_PRIVATE_COPY
                                  ? "expected FILE NAME (both relative, without '.' or '..')"
                              : k == CORDON_PROFILE_WRITEBACK
                                  ? "expected FILE PATTERN (PATTERN: dotted keys, printable)"
                                  : "expected FILE DOCUMENT";
                if (!file || !home_path_is_valid(file, false) || !sp[1])
                        return -EINVAL;
                if (k == CORDON_PROFILE_PRIVATE_COPY)
                        return home_path_is_valid(sp + 1, false) && !strchr(sp + 1, ' ') ? 0
                                                                                         : -EINVAL;
                if (k == CORDON_PROFILE_WRITEBACK)
                        for (const char *c = sp + 1; *c; c++)
                                if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
                                        return -EINVAL;
                return 0;
        }
        default:
                *ret_reason = "expected a path relative to $HOME without '.' or '..'";
                return home_path_is_valid(v, false) ? 0 : -EINVAL;
        }
}

/* One non-comment line (NUL-terminated, no newline) at @lineno. */
static int parse_line(struct cordon_agent_profile *a, const char *file, unsigned lineno, char *line,
                      struct cordon_diag *diag)
{
        size_t klen = strcspn(line, " \t");
        if (!line[klen])
                return cordon_diag_set(diag, -EINVAL, "%s:%u: expected KEY VALUE", file, lineno);
        line[klen] = 0;
        char *value = line + klen + 1;
        enum cordon_profile_key k = _CORDON_PROFILE_KEY_MAX;
        for (size_t i = 0; i < _CORDON_PROFILE_KEY_MAX; i++)
                if (streq(line, key_names[i]))
                        k = (enum cordon_profile_key)i;
        if (k == _CORDON_PROFILE_KEY_MAX)
                return cordon_diag_set(diag, -EINVAL, "%s:%u: unknown key '%.64s'", file, lineno,
                                       line);
        /* config_dir_var takes NAME PATH: two words, kept as NAME=PATH. The keys of private
         * copies take FILE and the rest of the line, kept with one space between. */
        if (k == CORDON_PROFILE_CONFIG_DIR_VAR) {
                size_t n = strcspn(value, " \t");
                if (value[n])
                        value[n] = '=';
        } else if (k == CORDON_PROFILE_PRIVATE_COPY || k == CORDON_PROFILE_WRITEBACK ||
                   k == CORDON_PROFILE_OVERLAY) {
                size_t n = strcspn(value, " \t");
                if (value[n]) {
                        value[n] = ' ';
                        size_t skip = strspn(value + n + 1, " \t");
                        memmove(value + n + 1, value + n + 1 + skip,
                                strlen(value + n + 1 + skip) + 1);
                }
        }
        const char *reason = NULL;
        if (parse_value(k, value, &reason) < 0)
                return cordon_diag_set(diag, -EINVAL, "%s:%u: %s '%.200s': %s", file, lineno,
                                       key_names[k], value, reason);
        size_t total = 0;
        for (size_t i = 0; i < _CORDON_PROFILE_KEY_MAX; i++)
                total += a->items[i].n;
        if (total >= CORDON_PROFILE_ITEMS_MAX)
                return cordon_diag_set(diag, -E2BIG, "%s:%u: more than %u items", file, lineno,
                                       CORDON_PROFILE_ITEMS_MAX);
        _cleanup_free_ char *origin = NULL;
        if (asprintf(&origin, "profile %s (%s:%u)", a->name, file, lineno) < 0)
                return -ENOMEM;
        return cordon_list_add_unique(&a->items[k], value, origin);
}

int cordon_profile_parse(const char *name, const char *file, const char *text, size_t len,
                         struct cordon_agent_profile *ret, struct cordon_diag *diag)
{
        *ret = (struct cordon_agent_profile){0};
        if (!cordon_profile_name_is_valid(name))
                return cordon_diag_set(diag, -EINVAL, "%s: '%.64s' is not an agent name", file,
                                       strempty(name));
        if (len > CORDON_PROFILE_FILE_MAX)
                return cordon_diag_set(diag, -E2BIG, "%s: larger than %u bytes", file,
                                       CORDON_PROFILE_FILE_MAX);
        if (memchr(text, 0, len))
                return cordon_diag_set(diag, -EINVAL, "%s: holds a NUL byte", file);
        _cleanup_(cordon_agent_profile_clear) struct cordon_agent_profile a = {0};
        _cleanup_free_ char *buf = strndup(text, len);
        if (!buf || !(a.name = strdup(name)) || !(a.note = strdup("")))
                return -ENOMEM;
        unsigned lineno = 0;
        for (char *line = buf, *next; line; line = next) {
                lineno++;
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                /* Trailing whitespace (a CR of a file edited elsewhere) is not part of a value. */
                size_t n = strlen(line);
                while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
                        line[--n] = 0;
                if (!*line || line[0] == '#')
                        continue;
                if (line[0] == ' ' || line[0] == '\t')
                        return cordon_diag_set(diag, -EINVAL, "%s:%u: a line starts with a key",
                                               file, lineno);
                int r = parse_line(&a, file, lineno, line, diag);
                if (r < 0)
                        return r;
        }
        *ret = a;
        a = (struct cordon_agent_profile){0};
        return 0;
}
