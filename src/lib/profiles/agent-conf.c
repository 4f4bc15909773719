/* An agent folder's config.conf (see agent-conf.h): the script that evaluates several in one
 * confined child, reading its output back, and the mapping onto the profile model. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config/config-eval.h"
#include "lib/config/config-scan.h"
#include "lib/policy/diag.h"
#include "lib/profiles/agent-conf.h"
#include "lib/resolve/env-filter.h"
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

char *cordon_agent_conf_script(size_t n)
{
        static const char vars[] = "AGENT_REQUIRED_WRITABLE_PATHS AGENT_REQUIRED_READABLE_PATHS "
                                   "AGENT_BLOCKED_FILES AGENT_CREDENTIAL_ENV_VARS "
                                   "AGENT_AUTH_MARKERS AGENT_LOGIN_HINT";
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        /* The file names cannot be changed by a file. */
        fputs("declare -ar __cordon_f=(\"$@\")\n", f);
        for (size_t k = 1; k <= n; k++)
                /* Each file in a subshell, its variables starting empty as agent-sandbox
                 * declares them: nothing one file does reaches another's values, and its exit
                 * ends only its own section. What it prints goes to stderr (warnings); what it
                 * leaves behind (set -e, -x, traps) is undone before the dump, as config-eval.c
                 * does after each file. */
                fprintf(f,
                        "builtin printf '\\n" CORDON_CONFIG_MARK_STDERR "%zu\\n' >&2\n"
                        "( AGENT_REQUIRED_WRITABLE_PATHS=() AGENT_REQUIRED_READABLE_PATHS=() "
                        "AGENT_BLOCKED_FILES=() AGENT_CREDENTIAL_ENV_VARS=() AGENT_AUTH_MARKERS=() "
                        "AGENT_LOGIN_HINT=''\n"
                        "builtin source -- \"${__cordon_f[%zu]}\" >&2\n"
                        "{ __cordon_st=$?; builtin set +xveuo pipefail; "
                        "builtin trap - ERR DEBUG RETURN EXIT; } >/dev/null 2>&1\n"
                        "builtin printf '" CORDON_CONFIG_MARK_LAYER "%zu %%s\\n' \"$__cordon_st\"\n"
                        "builtin declare -p %s 2>/dev/null )\n",
                        k, k - 1, k, vars);
        fputs("builtin printf '" CORDON_CONFIG_MARK_END "\\n'\nbuiltin exit 0\n", f);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

int cordon_agent_conf_parse_dump(const char *const *files, size_t n, const char *out, size_t len,
                                 struct cordon_declare_value *ret, struct cordon_diag *diag)
{
        size_t pos = 0;
        for (size_t k = 1; k <= n; k++) {
                char mark[64];
                int m = snprintf(mark, sizeof(mark), CORDON_CONFIG_MARK_LAYER "%zu ", k);
                const char *nl = pos < len ? memchr(out + pos, '\n', len - pos) : NULL;
                if (len - pos < (size_t)m || memcmp(out + pos, mark, (size_t)m) != 0 || !nl)
                        return cordon_diag_set(diag, -EINVAL,
                                               "%s: reading it stopped in the file (it called "
                                               "exit or exec, or broke the shell): cordon cannot "
                                               "tell what it sets",
                                               files[k - 1]);
                pos = (size_t)(nl - out) + 1;
                struct cordon_diag d = {0};
                int r = cordon_declare_parse(out, len, &pos, var_names, _CORDON_AGENT_CONF_MAX,
                                             &ret[(k - 1) * _CORDON_AGENT_CONF_MAX], &d);
                if (r == -EINVAL)
                        return cordon_diag_set(diag, r, "%s: reading back its variables: %s",
                                               files[k - 1], d.message);
                if (r < 0)
                        return r;
        }
        const char *end = CORDON_CONFIG_MARK_END "\n";
        if (len - pos != strlen(end) || memcmp(out + pos, end, strlen(end)) != 0)
                return cordon_diag_set(diag, -EINVAL,
                                       "%s: reading it did not end cleanly (a file printed into "
                                       "the variables' dump or broke the shell)",
                                       n ? files[n - 1] : "config.conf");
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

/* The stderr of the child, in sections "#cordon-stderr K" per file: a syntax error refuses,
 * other lines are warnings (at most STDERR_LINES_MAX a file), the path the child read (@reals)
 * shown as found (@files). */
static int check_stderr(const char *err, const char *const *files, char *const *reals, size_t n,
                        char ***warnings, struct cordon_diag *diag)
{
        size_t k = 0, shown = 0;
        const size_t mark_len = strlen(CORDON_CONFIG_MARK_STDERR);
        for (const char *p = err; *p;) {
                size_t len = strcspn(p, "\n");
                const char *next = p + len + (p[len] == '\n');
                if (len > mark_len && strncmp(p, CORDON_CONFIG_MARK_STDERR, mark_len) == 0 &&
                    strtoul(p + mark_len, NULL, 10) == k + 1 && k < n) {
                        /* In order, as the script writes them; a file printing the next one
                         * itself only mislabels its own lines. */
                        k++;
                        shown = 0;
                        p = next;
                        continue;
                }
                if (len == 0 || k == 0) {
                        p = next;
                        continue;
                }
                const char *file = files[k - 1], *real = reals[k - 1];
                size_t rl = strlen(real);
                char line[1024];
                if (len >= rl && strncmp(p, real, rl) == 0 && p[rl] == ':')
                        snprintf(line, sizeof(line), "%s%.*s", file, (int)(len - rl), p + rl);
                else
                        snprintf(line, sizeof(line), "%s: %.*s", file, (int)len, p);
                for (char *c = line; *c; c++)
                        if ((unsigned char)*c < 0x20 || *c == 0x7f)
                                *c = '?';
                if (strstr(line, "syntax error"))
                        return cordon_diag_set(diag, -EINVAL, "%s", line);
                if (strstr(line, "unexpected EOF while looking for matching"))
                        return cordon_diag_set(diag, -EINVAL, "%s (a syntax error)", line);
                if (shown++ < STDERR_LINES_MAX && strv_extendf(warnings, "%s", line) < 0)
                        return -ENOMEM;
                p = next;
        }
        return 0;
}

static void strvp_free(char ***l)
{
        strv_free(*l);
}

int cordon_agent_conf_evaluate(const char *const *files, const char *const *texts, size_t n,
                               const char *home, struct cordon_declare_value *ret, char ***warnings,
                               struct cordon_diag *diag)
{
        /* Only the files with code run (the others' variables stay empty). */
        _cleanup_free_ size_t *which = calloc(n + 1, sizeof(*which));
        _cleanup_free_ const char **shown = calloc(n + 1, sizeof(*shown));
        _cleanup_(strvp_free) char **reals = calloc(n + 1, sizeof(*reals));
        if (!which || !shown || !reals)
                return -ENOMEM;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
                if (!cordon_config_has_code(texts[i]))
                        continue;
                if (m >= CORDON_AGENT_CONFS_MAX)
                        return cordon_diag_set(diag, -E2BIG,
                                               "%s: more than %u agent folders' config.conf to "
                                               "read",
                                               files[i], CORDON_AGENT_CONFS_MAX);
                if (!(reals[m] = realpath(files[i], NULL)))
                        return cordon_diag_set(diag, -errno, "%s: %s", files[i], strerror(errno));
                shown[m] = files[i];
                which[m++] = i;
        }
        if (m == 0)
                return 0;
        _cleanup_free_ char *script = cordon_agent_conf_script(m);
        if (!script)
                return -ENOMEM;
        const struct cordon_config_eval_args a = {
            .paths = reals,
            .n = m,
            .home = home,
            .project_dir = "",
            .backend = CORDON_BACKEND_AUTO,
            .script = script,
        };
        struct cordon_confined_output out = {0};
        int r = cordon_config_eval(&a, &out, diag);
        if (r < 0)
                return r;
        _cleanup_free_ struct cordon_declare_value *v =
            calloc(m * _CORDON_AGENT_CONF_MAX, sizeof(*v));
        r = v ? check_stderr(out.err, shown, reals, m, warnings, diag) : -ENOMEM;
        if (r >= 0 && out.timed_out)
                r = cordon_diag_set(diag, -ETIME,
                                    "%s: reading the agent folders' config.conf took longer than "
                                    "%llu s (a loop, or a command that waits?)",
                                    shown[m - 1], CORDON_CONFIG_EVAL_TIMEOUT_USEC / 1000000);
        else if (r >= 0 && (out.out_over || out.err_over))
                r = cordon_diag_set(diag, -EFBIG,
                                    "%s: the agent folders' config.conf printed too much while "
                                    "they were read",
                                    shown[m - 1]);
        if (r >= 0)
                r = cordon_agent_conf_parse_dump(shown, m, out.out, out.out_len, v, diag);
        cordon_confined_output_clear(&out);
        /* Each file's values in its own slot. */
        for (size_t j = 0; j < m && r >= 0; j++)
                for (size_t x = 0; x < _CORDON_AGENT_CONF_MAX; x++) {
                        struct cordon_declare_value *from = &v[j * _CORDON_AGENT_CONF_MAX + x];
                        ret[which[j] * _CORDON_AGENT_CONF_MAX + x] = *from;
                        *from = (struct cordon_declare_value){0};
                }
        if (v)
                cordon_declare_values_clear(v, m * _CORDON_AGENT_CONF_MAX);
        return r;
}
