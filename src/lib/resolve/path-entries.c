/* The caller's PATH read for the directories below the home, and the rule for what their programs
 * need beside them: pure string work, the file system is lower-path.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/resolve/path-entries.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

int cordon_path_split(const char *path, char ***ret, bool *ret_truncated)
{
        _cleanup_strv_free_ char **entries = NULL;
        size_t n = 0;
        bool truncated = false;
        for (const char *p = path ?: "";;) {
                size_t len = strcspn(p, ":");
                if (n >= CORDON_PATH_ENTRIES_MAX) {
                        truncated = true;
                        break;
                }
                _cleanup_free_ char *e = strndup(p, len);
                if (!e)
                        return -ENOMEM;
                if (!strv_contains(entries, e)) {
                        if (strv_consume(&entries, TAKE_PTR(e)) < 0)
                                return -ENOMEM;
                        n++;
                }
                if (!p[len])
                        break;
                p += len + 1;
        }
        if (!entries && !(entries = calloc(1, sizeof(*entries))))
                return -ENOMEM;
        *ret = TAKE_PTR(entries);
        if (ret_truncated)
                *ret_truncated = truncated;
        return 0;
}

int cordon_path_entry_classify(const char *entry, const char *home, char **ret_norm)
{
        if (!path_is_absolute(entry))
                return CORDON_PATH_ENTRY_RELATIVE;
        /* ".." is not resolved: a lexical answer could be wrong through a link, and no installer
         * writes one. */
        _cleanup_free_ char *norm = NULL;
        int r = path_normalize(entry, &norm);
        if (r == -EINVAL)
                return CORDON_PATH_ENTRY_RELATIVE;
        if (r < 0)
                return r;
        if (path_is_below(home, norm))
                return CORDON_PATH_ENTRY_HOME;
        if (!path_is_below(norm, home))
                return CORDON_PATH_ENTRY_OUTSIDE;
        *ret_norm = TAKE_PTR(norm);
        return CORDON_PATH_ENTRY_BELOW;
}

void cordon_path_entry_plan(const char *rel, unsigned facts, struct cordon_path_plan *ret)
{
        static const char *const none[] = {NULL};
        static const char *const local[] = {".local/lib", NULL};
        static const char *const cargo[] = {".rustup", NULL};
        static const char *const shaped[] = {".volta", ".bun"};
        *ret = (struct cordon_path_plan){.companions = none};
        if (streq(rel, ".local/bin"))
                ret->companions = local;
        else if (streq(rel, ".cargo/bin"))
                ret->companions = cargo;

        const char *slash = strrchr(rel, '/');
        if (!slash)
                return; /* ~/bin: its parent is the home */
        const char *base = slash + 1;
        size_t x = (size_t)(slash - rel);
        bool prefix = false;
        if (streq(base, "bin")) {
                prefix = facts & (CORDON_PATH_FACT_NODE_PREFIX | CORDON_PATH_FACT_VENV |
                                  CORDON_PATH_FACT_PYENV);
                for (size_t i = 0; i < ELEMENTSOF(shaped); i++)
                        prefix |= strlen(shaped[i]) == x && strncmp(rel, shaped[i], x) == 0;
        } else if (streq(base, "shims"))
                prefix = facts & CORDON_PATH_FACT_PYENV;
        if (prefix)
                ret->prefix_len = x;

        /* nvm: N/versions/node/VERSION/bin, N at least one component. */
        static const char marker[] = "/versions/node/";
        if (!streq(base, "bin") || !(facts & CORDON_PATH_FACT_NODE_PREFIX))
                return;
        const char *v = NULL;
        for (const char *m = strstr(rel, marker); m && m < slash; m = strstr(m + 1, marker))
                v = m;
        if (v && v > rel && !memchr(v + strlen(marker), '/', (size_t)(slash - v) - strlen(marker)))
                ret->nvm_len = (size_t)(v - rel);
}

size_t cordon_path_node_modules_root(const char *rel)
{
        static const char nm[] = "node_modules";
        const size_t n = sizeof(nm) - 1;
        for (const char *c = rel; *c;) {
                size_t len = strcspn(c, "/");
                if (len == n && strncmp(c, nm, n) == 0) {
                        const char *end = c + len;
                        if (c != rel)
                                return (size_t)(end - rel);
                        /* ~/node_modules: the package only, NAME or @SCOPE/NAME. */
                        for (int parts = 0; parts < 2 && *end == '/'; parts++) {
                                const char *name = end + 1;
                                size_t k = strcspn(name, "/");
                                if (k == 0)
                                        return 0;
                                end = name + k;
                                if (name[0] != '@')
                                        return (size_t)(end - rel);
                        }
                        return 0;
                }
                c += len;
                c += *c == '/';
        }
        return 0;
}
