/* Lowering a capability policy (cordon run --policy): its roots and process presets become
 * binds in place of the project directory. Each capability grants exactly the rights it names,
 * or less where a backend cannot express them: workspace roots are readable only with a read
 * capability (read_text, list, exists), writable only with write_text, and delete alone gives
 * removal without creation (Landlock only); read-only roots are never writable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/policy/diag.h"
#include "lib/resolve/lower-internal.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* Presets on Linux. Home-relative entries are taken below the caller's $HOME; all are optional
 * (a toolchain that is not installed is simply not bound) and always read-only. */
static const char *const developer_toolchains[] = {
    "~/.local/share/uv",          "~/.rustup", "~/.cargo", "~/.pyenv", "~/.nvm", "~/.volta", "~/go",
    "/home/linuxbrew/.linuxbrew",
};

/* Without the credential files the spec lists with it (.npmrc, .netrc, .pypirc, cargo
 * credentials): those stay hidden like ~/.ssh unless the policy names them, see below. The
 * credential stores inside ~/.config stay masked by the always-hidden list. */
static const char *const package_manager_config[] = {
    "~/.gitconfig",      "~/.yarnrc.yml", "~/.config",       "~/.npm",
    "~/.cache",          "~/.pip",        "~/.cargo/config", "~/.cargo/config.toml",
    "~/.cargo/registry", "~/.cargo/git",
};

/* The credential part of package_manager_config: handed over only when the policy names the
 * file itself as a read root (read_roots or read_only_roots), never by a preset. */
static const char *const package_manager_credentials[] = {
    ".npmrc", ".netrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
};

bool cordon_lower_cap_hands_over(const struct lower *l, const char *home_rel)
{
        if (!l->s->policy || !l->home_real)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(package_manager_credentials); i++) {
                if (!streq(home_rel, package_manager_credentials[i]))
                        continue;
                _cleanup_free_ char *path = path_join(l->home_real, home_rel);
                return path && (cordon_list_find(&l->s->read_roots, path) ||
                                cordon_list_find(&l->s->read_only_roots, path));
        }
        return false;
}

/* Each root's origin is the JSON pointer it came from (settings-policy.c). */
static int bind_list(struct lower *l, const struct cordon_list *roots, const char *key,
                     enum cordon_access access, unsigned flags)
{
        CORDON_LIST_FOREACH (it, roots) {
                const char *root = it->value, *origin = it->origin;
                /* A root must be its own resolved path: a link on the way, planted by an
                 * earlier sandbox or not, would move the grant elsewhere unseen. */
                _cleanup_free_ char *real = realpath(root, NULL);
                if (real && !streq(real, root))
                        return cordon_diag_set(l->diag, -EPERM,
                                               "%s (root '%s') resolves to '%s' through a symlink; "
                                               "name the resolved path instead",
                                               origin, root, real);
                int r;
                /* A writable root is a project: not the home, not a parent of it, not outside
                 * ALLOWED_PROJECT_PARENTS (else a policy would override HOME_ACCESS unseen). */
                if ((access == CORDON_ACCESS_RW || (flags & CORDON_FS_REMOVE)) && real) {
                        char what[256];
                        snprintf(what, sizeof(what), "%s (root)", origin);
                        if ((r = cordon_lower_check_writable_root(l, real, what)) < 0)
                                return r;
                }
                r = cordon_lower_bind_same_path(l, root, access, origin, key);
                if (r < 0)
                        return r;
                for (size_t i = 0; flags && i < l->p->n_fs; i++)
                        if (streq(l->p->fs[i].guest, root) && l->p->fs[i].access == access)
                                l->p->fs[i].flags |= flags;
        }
        return 0;
}

static int bind_preset(struct lower *l, const char *const *entries, size_t n, const char *name)
{
        const char *home = l->h->home;
        char origin[512];
        snprintf(origin, sizeof(origin), "%s: preset %s", strempty(l->s->policy), name);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL;
                if (startswith(entries[i], "~/")) {
                        if (!home || !path_is_absolute(home))
                                continue;
                        path = path_join(home, entries[i] + 2);
                } else
                        path = strdup(entries[i]);
                if (!path)
                        return -ENOMEM;
                struct stat st;
                if (lstat(path, &st) < 0)
                        continue;
                /* An entry reached through a link some sandbox could have planted is left out,
                 * as a missing one is, with a warning. */
                _cleanup_free_ char *link = NULL, *target = NULL;
                int r = cordon_lower_find_planted_link(l, path, &link, &target);
                if (r < 0)
                        return r;
                if (r > 0) {
                        r = cordon_lower_warn(l,
                                              "%s: '%s' goes through symlink '%s' -> '%s' in a "
                                              "directory a sandbox can write; not bound",
                                              origin, path, link, target);
                        if (r < 0)
                                return r;
                        continue;
                }
                r = cordon_lower_bind_same_path(l, path, CORDON_ACCESS_RO, origin,
                                                "process_sandbox.presets");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The working directory stays where the caller is when a root covers it; otherwise the
 * command starts in the first workspace root. */
static int choose_cwd(struct lower *l)
{
        const struct cordon_list *ws = &l->s->workspace_roots;
        _cleanup_free_ char *cwd = l->h->cwd ? realpath(l->h->cwd, NULL) : NULL;
        for (size_t i = 0; cwd && i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *f = &l->p->fs[i];
                if ((f->access == CORDON_ACCESS_RO || f->access == CORDON_ACCESS_RW) &&
                    !streq(f->guest, "/") && path_is_below(cwd, f->guest) &&
                    !cordon_lower_is_builtin(f->origin))
                        return cordon_policy_set_cwd(l->p, cwd);
        }
        /* Unreadable workspace roots are not bound (cordon_lower_cap_policy()): start in the
         * root directory instead of one the command cannot list. */
        if (ws->n > 0 && !l->s->workspace_read)
                return cordon_policy_set_cwd(l->p, "/");
        if (ws->n == 0)
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s: the working directory '%s' is outside every root of "
                                       "the policy, and it names no workspace_roots to start in",
                                       strempty(l->s->policy), strempty(l->h->cwd));
        _cleanup_free_ char *first = realpath(ws->items[0].value, NULL);
        if (!first)
                return cordon_diag_set(l->diag, -errno, "%s: workspace root '%s': %m",
                                       strempty(l->s->policy), ws->items[0].value);
        return cordon_policy_set_cwd(l->p, first);
}

int cordon_lower_cap_policy(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        const char *src = strempty(s->policy);
        int r;

        if (!s->process_exec)
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s: the policy does not grant process.exec, so it allows "
                                       "no command to run",
                                       strempty(s->process_exec_origin));
        /* write_text: the roots are writable (which a bind cannot give without reading). delete
         * alone: read-only, plus removal where Landlock can give it (CORDON_FS_REMOVE). */
        enum cordon_access ws = s->workspace_writes ? CORDON_ACCESS_RW : CORDON_ACCESS_RO;
        unsigned ws_flags = !s->workspace_writes && s->workspace_delete ? CORDON_FS_REMOVE : 0;
        /* No read capability: the workspace roots are not bound at all. Landlock could give
         * writes without reads, a bind cannot; both backends grant less, not more. The
         * process-only roots (process_sandbox) and read_only_roots stay readable, as the
         * capability model says. */
        static const struct cordon_list none = {0};
        const struct cordon_list *workspace = s->workspace_read ? &s->workspace_roots : &none;

        if (cordon_list_find(&s->presets, "developer_toolchains")) {
                r = bind_preset(l, developer_toolchains, ELEMENTSOF(developer_toolchains),
                                "developer_toolchains");
                if (r < 0)
                        return r;
        }
        if (cordon_list_find(&s->presets, "package_manager_config")) {
                r = bind_preset(l, package_manager_config, ELEMENTSOF(package_manager_config),
                                "package_manager_config");
                if (r < 0)
                        return r;
        }
        /* Roots after the presets, so that a root wins over a preset for the same path; the
         * read-only ones last, so that they stay read-only when a writable list names them too. */
        if ((r = bind_list(l, &s->read_roots, "process_sandbox/read_roots", CORDON_ACCESS_RO, 0)) <
                0 ||
            (r = bind_list(l, &s->write_roots, "process_sandbox/write_roots", ws, ws_flags)) < 0 ||
            (r = bind_list(l, workspace, "workspace_roots", ws, ws_flags)) < 0 ||
            (r = bind_list(l, &s->read_only_roots, "read_only_roots", CORDON_ACCESS_RO, 0)) < 0)
                return r;

        if (s->workspace_roots.n > 0) {
                const char *first = s->workspace_roots.items[0].value;
                l->p->project_dir = realpath(first, NULL);
                if (!l->p->project_dir)
                        return cordon_diag_set(l->diag, -errno, "%s: workspace root '%s': %m", src,
                                               first);
        } else if (!(l->p->project_dir = strdup("(none)")))
                return -ENOMEM;
        return choose_cwd(l);
}
