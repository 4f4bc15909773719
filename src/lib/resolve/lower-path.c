/* Lowering of the command's PATH: the directories below the home it names are shown read-only,
 * with what their programs need beside them, so that programs installed in the home (npm's user
 * prefix, nvm, volta, bun, cargo, pyenv, pip --user, pipx, uv tools, go) are found. Nothing
 * hidden is ever shown: an entry in a hidden path is left out with a warning, and the masks
 * (cordon_lower_masks(), after this) cover what the shown directories hold. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/resolve/lower-internal.h"
#include "lib/resolve/path-entries.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* A PATH directory with more entries than this has its links left alone (a warning says so). */
#define PATH_DIR_MAX_ENTRIES 4096

/* The PATH the command gets: SANDBOX_ENV's last assignment, else the caller's. SANDBOX_MODULES
 * may change it later (lower_env()); what a module adds is not looked at. */
static const char *command_path(const struct lower *l)
{
        const char *path = NULL;
        CORDON_LIST_FOREACH (it, &l->s->sandbox_env)
                if (startswith(it->value, "PATH="))
                        path = it->value + 5;
        if (path)
                return path;
        STRV_FOREACH (e, l->h->envp)
                if (startswith(*e, "PATH="))
                        path = *e + 5;
        return path;
}

/* The hidden path (a mask's host realpath) @real lies at or in, or NULL. */
static const struct cordon_item *hidden_by(const struct lower *l, const char *real)
{
        CORDON_LIST_FOREACH (m, &l->masks)
                if (path_is_below(real, m->value))
                        return m;
        return NULL;
}

char *cordon_lower_guest_of(const struct lower *l, const char *real)
{
        const char *rest = real + strlen(l->home_real);
        while (*rest == '/')
                rest++;
        return *rest ? path_join(l->home_guest, rest) : strdup(l->home_guest);
}

/* True when @real (a realpath) lies strictly below the home. */
static bool in_home(const struct lower *l, const char *real)
{
        return path_is_below(real, l->home_real) && !streq(real, l->home_real);
}

/* Shows @real (a realpath strictly below the home) read-only at @guest (NULL: its place below
 * $HOME), as @what (for warnings) with @origin. Never a hidden path (a warning); nothing for
 * what shows already. 1: it shows now, 0: it does not, or -errno. */
static int expose_at(struct lower *l, const char *guest_or_null, const char *real, const char *what,
                     const char *origin)
{
        const struct cordon_item *m = hidden_by(l, real);
        if (m) {
                int r =
                    cordon_lower_warn(l, "%s '%s' lies in hidden path '%s' (from %s); not shown",
                                      what, real, m->value, m->origin);
                return r < 0 ? r : 0;
        }
        _cleanup_free_ char *own = guest_or_null ? NULL : cordon_lower_guest_of(l, real);
        const char *guest = guest_or_null ?: own;
        if (!guest)
                return -ENOMEM;
        int s = cordon_policy_guest_shown(l->p, guest);
        if (s < 0) {
                int r =
                    cordon_lower_warn(l, "%s '%s' lies in a hidden path; not shown", what, real);
                return r < 0 ? r : 0;
        }
        if (s > 0)
                return 1;
        int r = cordon_lower_put(l, guest, real, CORDON_ACCESS_RO, 0, origin);
        return r < 0 ? r : 1;
}

static int expose(struct lower *l, const char *real, const char *what, const char *origin)
{
        return expose_at(l, NULL, real, what, origin);
}

static bool is_dir(const struct lower *l, const char *path)
{
        struct stat st;
        return cordon_lower_host_lstat(l, path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const struct lower *l, const char *path)
{
        struct stat st;
        return cordon_lower_host_lstat(l, path, &st) == 0 && S_ISREG(st.st_mode);
}

/* What cordon_path_entry_plan() wants to know of directory @x (a realpath). */
static unsigned prefix_facts(const struct lower *l, const char *x)
{
        _cleanup_free_ char *nm = path_join(x, "lib/node_modules");
        _cleanup_free_ char *cfg = path_join(x, "pyvenv.cfg");
        _cleanup_free_ char *pyenv = path_join(x, "libexec/pyenv");
        struct stat st;
        unsigned facts = 0;
        if (nm && is_dir(l, nm))
                facts |= CORDON_PATH_FACT_NODE_PREFIX;
        if (cfg && is_file(l, cfg))
                facts |= CORDON_PATH_FACT_VENV;
        if (pyenv && cordon_lower_host_lstat(l, pyenv, &st) == 0)
                facts |= CORDON_PATH_FACT_PYENV;
        return facts;
}

/* npm reads PREFIX/etc/npmrc as its global configuration, which can hold a registry token like
 * ~/.npmrc: hidden wherever the prefix @x (a realpath) is shown. */
static int hide_npmrc(struct lower *l, const char *x)
{
        _cleanup_free_ char *rc = path_join(x, "etc/npmrc");
        struct stat st;
        if (!rc)
                return -ENOMEM;
        if (cordon_lower_host_lstat(l, rc, &st) < 0)
                return 0;
        _cleanup_free_ char *real = cordon_lower_host_realpath(l, rc);
        if (!real)
                return 0;
        return cordon_list_add_unique(
            &l->masks, real, "PATH (npm's global configuration can hold a registry token)");
}

/* A virtualenv @venv (a realpath) runs the interpreter its bin/python leads to: when that lies
 * in the home (pyenv's versions, uv's own pythons), its install prefix is shown as well. */
static int expose_interpreter(struct lower *l, const char *venv, const char *origin_for)
{
        _cleanup_free_ char *py = path_join(venv, "bin/python");
        if (!py)
                return -ENOMEM;
        _cleanup_free_ char *real = cordon_lower_host_realpath(l, py);
        if (!real || !in_home(l, real) || path_is_below(real, venv))
                return 0;
        /* PREFIX/bin/pythonX.Y: PREFIX holds the standard library. */
        char *slash = strrchr(real, '/');
        *slash = 0;
        slash = strrchr(real, '/');
        if (!streq(slash + 1, "bin"))
                return 0;
        *slash = 0;
        if (!in_home(l, real))
                return 0;
        _cleanup_free_ char *origin = NULL;
        if (asprintf(&origin, "PATH (the interpreter of '%s')", origin_for) < 0)
                return -ENOMEM;
        return expose(l, real, "the interpreter's prefix", origin);
}

/* The tree a program at @t (a realpath strictly below the home, reached through a link in a
 * PATH directory) needs: the node_modules tree it imports from, the virtualenv it lies in, the
 * install prefix of PREFIX/bin/NAME, else the file alone. *@ret_venv: a virtualenv. */
static char *target_root(const struct lower *l, const char *t, bool *ret_venv)
{
        const char *rel = t + strlen(l->home_real) + 1;
        size_t k = cordon_path_node_modules_root(rel);
        *ret_venv = false;
        if (k > 0)
                return strndup(t, (size_t)(rel - t) + k);
        _cleanup_free_ char *d = strdup(t);
        if (!d)
                return NULL;
        for (char *slash; (slash = strrchr(d, '/')) && (*slash = 0, in_home(l, d));) {
                _cleanup_free_ char *cfg = path_join(d, "pyvenv.cfg");
                if (!cfg)
                        return NULL;
                if (is_file(l, cfg)) {
                        *ret_venv = true;
                        return TAKE_PTR(d);
                }
        }
        /* PREFIX/bin/NAME of an npm prefix or a pyenv root. */
        free(d);
        if (!(d = strdup(t)))
                return NULL;
        char *slash = strrchr(d, '/');
        *slash = 0;
        slash = strrchr(d, '/');
        if (streq(slash + 1, "bin")) {
                *slash = 0;
                if (in_home(l, d) &&
                    prefix_facts(l, d) & (CORDON_PATH_FACT_NODE_PREFIX | CORDON_PATH_FACT_PYENV))
                        return TAKE_PTR(d);
        }
        return strdup(t);
}

struct names {
        char **v;
        size_t n;
};

static int add_name(const char *name, void *userdata)
{
        struct names *ns = userdata;
        if (streq(name, ".") || streq(name, ".."))
                return 0;
        if (ns->n >= PATH_DIR_MAX_ENTRIES)
                return -E2BIG;
        int r = strv_extend(&ns->v, name);
        if (r < 0)
                return r;
        ns->n++;
        return 0;
}

/* The links in PATH directory @dir (a realpath, shown at @entry) whose targets lie elsewhere
 * in the home: npm's bin/claude -> ../lib/node_modules/..., pipx's and uv's ~/.local/bin/NAME ->
 * ~/.local/share/.../bin/NAME. Each target's tree is shown (target_root()). */
static int follow_links(struct lower *l, const char *dir, const char *entry)
{
        _cleanup_strv_free_ char **v = NULL;
        struct names ns = {0};
        int r = cordon_lower_read_dir(dir, 0, add_name, &ns);
        v = ns.v;
        if (r == -E2BIG)
                return cordon_lower_warn(l,
                                         "PATH entry '%s' holds more than %d entries; the links "
                                         "in it are not followed",
                                         entry, PATH_DIR_MAX_ENTRIES);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0; /* unreadable: nothing of it would show anyway */
        STRV_FOREACH (name, v) {
                _cleanup_free_ char *path = path_join(dir, *name);
                if (!path)
                        return -ENOMEM;
                struct stat st;
                if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
                        continue;
                _cleanup_free_ char *t = realpath(path, NULL);
                if (!t) {
                        if (errno == ENOMEM)
                                return -ENOMEM;
                        continue; /* dangling */
                }
                if (!in_home(l, t))
                        continue; /* the system's, or the home itself: never shown from here */
                _cleanup_free_ char *guest = cordon_lower_guest_of(l, t);
                if (!guest)
                        return -ENOMEM;
                if (cordon_policy_guest_shown(l->p, guest) > 0)
                        continue;
                const struct cordon_item *m = hidden_by(l, t);
                if (m) {
                        if ((r = cordon_lower_warn(l,
                                                   "PATH entry '%s': '%s' links to '%s' in hidden "
                                                   "path '%s' (from %s); not shown",
                                                   entry, *name, t, m->value, m->origin)) < 0)
                                return r;
                        continue;
                }
                bool venv = false;
                _cleanup_free_ char *root = target_root(l, t, &venv);
                _cleanup_free_ char *origin = NULL, *link = path_join(entry, *name);
                if (!root || !link || asprintf(&origin, "PATH (what '%s' links to)", link) < 0)
                        return -ENOMEM;
                if ((r = expose(l, root, "link target", origin)) < 0 ||
                    (r > 0 && venv && (r = expose_interpreter(l, root, link)) < 0))
                        return r;
        }
        return 0;
}

/* One PATH entry @entry (normalised, strictly below $HOME). */
static int path_entry(struct lower *l, const char *entry)
{
        const char *rel = entry + strlen(l->home_guest) + 1;
        _cleanup_free_ char *host = path_join(l->home_real, rel);
        if (!host)
                return -ENOMEM;
        struct stat st;
        if (cordon_lower_dir_names_absent(l, &l->home_names, l->home_real, rel) ||
            cordon_lower_host_lstat(l, host, &st) < 0)
                return 0; /* missing: PATH often names directories that are not there */
        _cleanup_free_ char *real = cordon_lower_host_realpath(l, host);
        if (!real || !is_dir(l, real))
                return 0;
        /* Through a link: only where no sandbox could have planted it (as for HOME_READONLY),
         * and then the entry alone. */
        bool direct = streq(real, host);
        if (!direct) {
                _cleanup_free_ char *link = NULL, *target = NULL;
                int r = cordon_lower_find_planted_link(l, host, &link, &target);
                if (r < 0)
                        return r;
                if (r > 0)
                        return cordon_lower_warn(l,
                                                 "PATH entry '%s' goes through symlink '%s' -> "
                                                 "'%s' in a directory a sandbox can write; not "
                                                 "shown",
                                                 entry, link, target);
                if (!in_home(l, real))
                        return cordon_lower_warn(l, "PATH entry '%s' resolves to '%s'; not shown",
                                                 entry, real);
        }
        /* Writable here (a project's .venv/bin): shown as it is; its links are not followed,
         * since this sandbox or an earlier one could have planted them. */
        if (cordon_lower_sandbox_can_write(l, real))
                return 0;
        _cleanup_free_ char *parent = strdup(real), *origin = NULL;
        if (!parent || asprintf(&origin, "PATH (for '%s')", entry) < 0)
                return -ENOMEM;
        *strrchr(parent, '/') = 0;
        unsigned facts = direct && in_home(l, parent) ? prefix_facts(l, parent) : 0;
        struct cordon_path_plan plan;
        cordon_path_entry_plan(rel, facts, &plan);
        /* The prefix first: the entry inside it then shows already and needs no rule. */
        int r = 1;
        if (direct && plan.prefix_len > 0) {
                if ((r = expose(l, parent, "install prefix", origin)) < 0)
                        return r;
                if (r > 0 && (facts & CORDON_PATH_FACT_NODE_PREFIX) &&
                    (r = hide_npmrc(l, parent)) < 0)
                        return r;
                if (r > 0 && (facts & CORDON_PATH_FACT_VENV) &&
                    (r = expose_interpreter(l, parent, entry)) < 0)
                        return r;
        }
        /* At the entry's own place: through a link, the sandbox has no link there. */
        if ((r = expose_at(l, entry, real, "PATH entry", "PATH")) <= 0 || !direct)
                return r;
        for (const char *const *c = plan.companions; *c; c++) {
                _cleanup_free_ char *p = path_join(l->home_real, *c);
                if (!p)
                        return -ENOMEM;
                /* Only where it is its own realpath: no link to follow. */
                if (is_dir(l, p) && (r = expose(l, p, "directory", origin)) < 0)
                        return r;
        }
        if (plan.nvm_len > 0) {
                static const char *const nvm[] = {"nvm.sh", "nvm-exec", "alias"};
                for (size_t i = 0; i < ELEMENTSOF(nvm); i++) {
                        _cleanup_free_ char *p = NULL;
                        if (asprintf(&p, "%s/%.*s/%s", l->home_real, (int)plan.nvm_len, rel,
                                     nvm[i]) < 0)
                                return -ENOMEM;
                        if (cordon_lower_host_lstat(l, p, &st) == 0 && !S_ISLNK(st.st_mode) &&
                            (r = expose(l, p, "nvm's file", origin)) < 0)
                                return r;
                }
        }
        return follow_links(l, real, entry);
}

int cordon_lower_path(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        /* The home shows whole in read and write modes; a capability policy's roots decide
         * alone what it shows. */
        if (!l->home_real || !l->home_guest || s->policy ||
            (s->home_access != CORDON_HOME_TMPWRITE && s->home_access != CORDON_HOME_RESTRICTED))
                return 0;
        _cleanup_strv_free_ char **entries = NULL;
        int r = cordon_path_split(command_path(l), &entries, NULL);
        if (r < 0)
                return r;
        STRV_FOREACH (e, entries) {
                _cleanup_free_ char *norm = NULL;
                r = cordon_path_entry_classify(*e, l->home_guest, &norm);
                if (r < 0)
                        return r;
                if (r == CORDON_PATH_ENTRY_HOME && path_normalize(*e, &norm) >= 0 &&
                    streq(norm, l->home_guest))
                        r = cordon_lower_warn(l,
                                              "PATH entry '%s' is the home directory; not shown "
                                              "(name what it needs in HOME_READONLY)",
                                              *e);
                else if (r == CORDON_PATH_ENTRY_BELOW)
                        r = path_entry(l, norm);
                else
                        r = 0;
                if (r < 0)
                        return r;
        }
        return 0;
}
