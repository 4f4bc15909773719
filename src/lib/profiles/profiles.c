/* Finding agent profiles (the user's folder, the admin's, the built-in ones) and loading a list of
 * them; folding them into the settings is the settings' (settings/settings-profiles.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/profiles/agent-folder.h"
#include "lib/profiles/profiles.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

int cordon_profile_read_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
        /* Non-blocking: a FIFO or device there would block or be read forever. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL; /* a FIFO, device or directory */
        int r = read_full_fd(fd, max, ret, ret_len);
        return r == -EFBIG ? -E2BIG : r;
}

/* The profile in folder @dir/@name, when there is one: 1 with @ret filled, 0 when @dir has no
 * such folder, or -errno. */
static int load_from_dir(const char *dir, const char *name, struct cordon_agent_profile *ret,
                         struct cordon_diag *diag)
{
        _cleanup_free_ char *folder = path_join(dir, name);
        _cleanup_free_ char *file = folder ? path_join(folder, "profile") : NULL;
        _cleanup_free_ char *note_path = folder ? path_join(folder, "agent.md") : NULL;
        if (!file || !note_path)
                return -ENOMEM;
        _cleanup_free_ char *text = NULL, *note = NULL;
        size_t len = 0;
        int r = cordon_profile_read_file(file, CORDON_PROFILE_FILE_MAX, &text, &len);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0)
                return cordon_diag_set(diag, r, "ENABLED_AGENTS: profile of '%s': %s: %s", name,
                                       file, strerror(-r));
        if ((r = cordon_profile_parse(name, file, text, len, ret, diag)) < 0)
                return r;
        r = cordon_profile_read_file(note_path, CORDON_PROFILE_FILE_MAX, &note, NULL);
        if (r == -ENOENT)
                return 1;
        if (r < 0) {
                cordon_agent_profile_clear(ret);
                return cordon_diag_set(diag, r, "ENABLED_AGENTS: profile of '%s': %s: %s", name,
                                       note_path, strerror(-r));
        }
        free(ret->note);
        ret->note = TAKE_PTR(note);
        return 1;
}

/* The base profile of @name: the admin's folder, else the built-in one. 1 with @ret filled, 0
 * when there is none, -errno. */
static int load_base(const char *name, const char *admin_dir, struct cordon_agent_profile *ret,
                     struct cordon_diag *diag)
{
        int r = admin_dir ? load_from_dir(admin_dir, name, ret, diag) : 0;
        if (r != 0)
                return r;
        for (size_t i = 0; i < cordon_builtin_profiles_count; i++) {
                const struct cordon_builtin_profile *b = &cordon_builtin_profiles[i];
                if (!streq(b->name, name))
                        continue;
                _cleanup_free_ char *file = NULL;
                if (asprintf(&file, "<built-in>/%s/profile", name) < 0)
                        return -ENOMEM;
                r = cordon_profile_parse(name, file, b->profile, strlen(b->profile), ret, diag);
                if (r < 0)
                        return r;
                free(ret->note);
                if (!(ret->note = strdup(b->note))) {
                        cordon_agent_profile_clear(ret);
                        return -ENOMEM;
                }
                return 1;
        }
        return 0;
}

/* The note as the agent reads it: agent-sandbox's placeholder for its install directory given
 * cordon's directory of help for agents, when that is installed. */
static int resolve_note(struct cordon_agent_profile *a, const char *help_dir)
{
        char *note = cordon_agent_note_resolve(a->note, help_dir);
        if (!note)
                return -ENOMEM;
        free(a->note);
        a->note = note;
        return 0;
}

/* cordon_profile_load() but for an agent folder's config.conf, which is left in @pending
 * (evaluated by the caller, with others, before cordon_agent_folder_finish()). */
static int load_one(const char *name, const struct cordon_profile_dirs *dirs,
                    struct cordon_agent_profile *ret, struct cordon_agent_pending *pending,
                    char ***warnings, struct cordon_diag *diag)
{
        if (!cordon_profile_name_is_valid(name))
                return cordon_diag_set(diag, -EINVAL,
                                       "ENABLED_AGENTS '%.64s': expected an agent name "
                                       "([a-z0-9_-]+)",
                                       strempty(name));
        _cleanup_free_ char *folder = NULL;
        int r =
            cordon_agent_folder_find(name, dirs->agent_dirs, ELEMENTSOF(dirs->agent_dirs), &folder);
        if (r < 0)
                return cordon_diag_set(diag, r, "ENABLED_AGENTS: agent folder of '%s': %s", name,
                                       strerror(-r));
        /* 1. The user's own profile, in cordon's format, replaces everything else. */
        r = dirs->user_dir ? load_from_dir(dirs->user_dir, name, ret, diag) : 0;
        if (r < 0)
                return r;
        if (r > 0) {
                if (folder && warnings &&
                    strv_extendf(warnings,
                                 "agent folder %s is not read: %s/%s/profile, cordon's own "
                                 "format, is %s's profile",
                                 folder, dirs->user_dir, name, name) < 0)
                        r = -ENOMEM;
                if (r < 0 || (r = resolve_note(ret, dirs->help_dir)) < 0) {
                        cordon_agent_profile_clear(ret);
                        return r;
                }
                return 0;
        }
        /* 2. The admin's profile or the built-in one; 3. an agent folder extends it, or is a
         * profile of its own. */
        if ((r = load_base(name, dirs->admin_dir, ret, diag)) < 0)
                return r;
        bool base = r > 0;
        if (folder &&
            (r = cordon_agent_folder_load(name, folder, base, ret, pending, warnings, diag)) < 0) {
                cordon_agent_profile_clear(ret);
                return r;
        }
        if (base || folder) {
                if ((r = resolve_note(ret, dirs->help_dir)) < 0)
                        cordon_agent_profile_clear(ret);
                return r < 0 ? r : 0;
        }
        char where[2048] = "";
        const char *const order[] = {dirs->user_dir, dirs->admin_dir, dirs->agent_dirs[0],
                                     dirs->agent_dirs[1]};
        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                if (order[i])
                        snprintf(where + strlen(where), sizeof(where) - strlen(where), "%s/%s, ",
                                 order[i], name);
        return cordon_diag_set(diag, -ENOENT,
                               "ENABLED_AGENTS: no profile for agent '%s' (searched %sand the "
                               "built-in profiles); add a folder with a profile file or remove "
                               "the name",
                               name, where);
}

/* The agent folders' config.conf of @n profiles (@pending[i] for @a[i]) evaluated in one
 * confined child, then each folder finished. */
static int finish_folders(struct cordon_agent_profile *a, struct cordon_agent_pending *pending,
                          size_t n, const char *home, char ***warnings, struct cordon_diag *diag)
{
        _cleanup_free_ const char **files = calloc(n + 1, sizeof(*files));
        _cleanup_free_ const char **texts = calloc(n + 1, sizeof(*texts));
        _cleanup_free_ size_t *which = calloc(n + 1, sizeof(*which));
        if (!files || !texts || !which)
                return -ENOMEM;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
                if (pending[i].conf_path) {
                        files[m] = pending[i].conf_path;
                        texts[m] = pending[i].conf_text;
                        which[i] = m++;
                }
        _cleanup_free_ struct cordon_declare_value *v =
            calloc(m * _CORDON_AGENT_CONF_MAX + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        int r = m ? cordon_agent_conf_evaluate(files, texts, m, home, v, warnings, diag) : 0;
        for (size_t i = 0; r >= 0 && i < n; i++)
                if (pending[i].folder)
                        r = cordon_agent_folder_finish(
                            &a[i], &pending[i],
                            pending[i].conf_path ? &v[which[i] * _CORDON_AGENT_CONF_MAX] : NULL,
                            home, warnings, diag);
        cordon_declare_values_clear(v, m * _CORDON_AGENT_CONF_MAX);
        return r;
}

int cordon_profile_load(const char *name, const struct cordon_profile_dirs *dirs,
                        struct cordon_agent_profile *ret, char ***warnings,
                        struct cordon_diag *diag)
{
        static const struct cordon_profile_dirs none = {0};
        if (!dirs)
                dirs = &none;
        _cleanup_(cordon_agent_pending_clear) struct cordon_agent_pending pending = {0};
        int r = load_one(name, dirs, ret, &pending, warnings, diag);
        if (r >= 0 && (r = finish_folders(ret, &pending, 1, dirs->home, warnings, diag)) < 0)
                cordon_agent_profile_clear(ret);
        return r;
}

int cordon_profiles_load_list(const struct cordon_list *names, const struct cordon_list *quiet,
                              const struct cordon_profile_dirs *dirs,
                              struct cordon_agent_profile **ret, size_t *ret_n, char ***warnings,
                              struct cordon_diag *diag)
{
        static const struct cordon_profile_dirs none = {0};
        if (!dirs)
                dirs = &none;
        size_t n = names->n;
        if (n == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        _cleanup_free_ struct cordon_agent_profile *agents = calloc(n, sizeof(*agents));
        if (!agents)
                return -ENOMEM;
        struct cordon_agent_pending *pending = calloc(n, sizeof(*pending));
        if (!pending)
                return -ENOMEM;
        size_t k = 0;
        int r = 0;
        CORDON_LIST_FOREACH (it, names) {
                bool seen = false;
                for (size_t i = 0; i < k && !seen; i++)
                        seen = streq(agents[i].name, it->value);
                if (seen)
                        continue;
                if ((r = load_one(it->value, dirs, &agents[k], &pending[k], warnings, diag)) < 0)
                        break;
                pending[k].quiet =
                    quiet && (cordon_list_find(quiet, it->value) || cordon_list_find(quiet, "all"));
                k++;
        }
        /* Every agent folder's config.conf in one child: a start pays for one, not one each. */
        if (r >= 0)
                r = finish_folders(agents, pending, k, dirs->home, warnings, diag);
        for (size_t i = 0; i < n; i++)
                cordon_agent_pending_clear(&pending[i]);
        free(pending);
        if (r < 0) {
                cordon_agent_profiles_free(TAKE_PTR(agents), k);
                return r;
        }
        *ret = TAKE_PTR(agents);
        *ret_n = k;
        return 0;
}
