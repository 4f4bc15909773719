/* Lowering of PROTECT_GIT_CONFIG: the git directories a sandbox could write are kept so that
 * nothing in them runs code or changes configuration at the host's next git command, while the
 * parts git writes to commit, branch, fetch, merge and rebase stay writable. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/policy/backend-traits.h"
#include "lib/policy/diag.h"
#include "lib/policy/git-state.h"
#include "lib/resolve/lower-internal.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define VAR "PROTECT_GIT_CONFIG"
/* A .git file or commondir holds one path; git itself reads no more than a page of either. */
#define GIT_LINK_MAX 4096
/* A linked worktree's gitdir names a commondir, which names no further one. */
#define GIT_DIR_DEPTH 2
/* Submodules within submodules: git directories kept inside one another. */
#define GIT_NEST_MAX 8

/* The directory a one-line file of git names (a .git file's "gitdir: X", a commondir's "X"),
 * X taken relative to @base: its realpath in *@ret. 0, or -errno. */
static int git_link_target(struct lower *l, const char *file, const char *prefix, const char *base,
                           char **ret)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_regular_file_at(AT_FDCWD, file, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
                                     GIT_LINK_MAX, NULL, &text, &len);
        if (r < 0)
                return r;
        if (strlen(text) != len)
                return -EINVAL;
        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
                text[--len] = 0;
        if (strncmp(text, prefix, strlen(prefix)) != 0 || !text[strlen(prefix)])
                return -EINVAL;
        const char *target = text + strlen(prefix);
        _cleanup_free_ char *joined =
            path_is_absolute(target) ? strdup(target) : path_join(base, target);
        if (!joined)
                return -ENOMEM;
        char *real = cordon_lower_host_realpath(l, joined);
        struct stat st;
        if (!real)
                return -errno;
        if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
                free(real);
                return -ENOTDIR;
        }
        *ret = real;
        return 0;
}

static int cmp_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

struct git_walk {
        struct lower *l;
        const char *dir;
        char **ro; /* names to bind read-only */
        int r;
};

/* Every existing entry outside the allow list is read-only. A symlink cannot be covered by a
 * mount (the sandbox could replace it): it is named in a warning. Sockets and FIFOs are not
 * files git reads. */
static int git_walk_entry(const char *name, void *userdata)
{
        struct git_walk *w = userdata;
        if (streq(name, ".") || streq(name, "..") || cordon_git_entry_writable(name))
                return 0;
        _cleanup_free_ char *path = path_join(w->dir, name);
        struct stat st;
        if (!path)
                return w->r = -ENOMEM;
        if (lstat(path, &st) < 0)
                return 0; /* gone since the listing */
        if (S_ISLNK(st.st_mode)) {
                w->r = cordon_lower_warn(w->l,
                                         "%s: '%s' is a symbolic link, so it cannot be kept "
                                         "read-only; the sandbox can replace it",
                                         VAR, path);
                return w->r < 0 ? w->r : 0;
        }
        if ((S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) && strv_extend(&w->ro, name) < 0)
                return w->r = -ENOMEM;
        return 0;
}

/* The names git reads as configuration or as code that a missing entry would let the sandbox
 * create in a writable directory, with what stands in for them: config and config.worktree
 * (empty; git reads the second once extensions.worktreeConfig is set, which the host's
 * `git sparse-checkout` does on its own), hooks, info, modules and worktrees (empty
 * directories: a repository the sandbox made there is one the host's git would enter),
 * commondir ("." names the directory itself, which is what git assumes without one; a
 * commondir elsewhere would take the whole configuration with it). A linked worktree's gitdir
 * (@linked) has its commondir, and git reads the rest from the common directory. */
struct git_stand_in {
        const char *name;
        const char *contents; /* NULL: a directory */
        bool linked;          /* also in a linked worktree's gitdir */
};
static const struct git_stand_in git_stand_ins[] = {
    {"config", "", false},         {"commondir", ".\n", false}, {"hooks", NULL, false},
    {"info", NULL, false},         {"modules", NULL, false},    {"worktrees", NULL, false},
    {"config.worktree", "", true},
};

static int plan_stand_ins(struct lower *l, const char *git, bool linked)
{
        const struct git_stand_in *missing[ELEMENTSOF(git_stand_ins)];
        size_t n = 0;
        struct stat st;
        for (size_t i = 0; i < ELEMENTSOF(git_stand_ins); i++) {
                if (linked && !git_stand_ins[i].linked)
                        continue;
                _cleanup_free_ char *path = path_join(git, git_stand_ins[i].name);
                if (!path)
                        return -ENOMEM;
                if (cordon_lower_lstat(l, path, &st) < 0 && errno == ENOENT)
                        missing[n++] = &git_stand_ins[i];
        }
        if (n == 0)
                return 0;
        /* One line for all of them: the first action carries it. */
        _cleanup_free_ char *names = NULL;
        for (size_t i = 0; i < n; i++) {
                char *more = NULL;
                if (asprintf(&more, "%s%s%s", strempty(names), i ? ", " : "", missing[i]->name) < 0)
                        return -ENOMEM;
                free(names);
                names = more;
        }
        _cleanup_free_ char *warning = NULL;
        if (asprintf(&warning, "created %s in '%s' so the sandbox cannot create them", names, git) <
            0)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *path = path_join(git, missing[i]->name);
                if (!path)
                        return -ENOMEM;
                /* Made by the launch through an fd of the git directory, so that one swapped
                 * for a symlink meanwhile fails instead of getting them somewhere else. */
                int r = missing[i]->contents
                            ? cordon_lower_plan(l, CORDON_HOST_FILE, path, 0644,
                                                missing[i]->contents, VAR, i ? NULL : warning)
                            : cordon_lower_plan(l, CORDON_HOST_MKDIR, path, 0755, NULL, VAR,
                                                i ? NULL : warning);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int refuse_landlock(struct lower *l, const char *git)
{
        return cordon_diag_set(l->diag, -EOPNOTSUPP,
                               "%s cannot be enforced by the landlock backend: it cannot keep "
                               "git's '%s' read-only inside a writable directory "
                               "(use the ns backend, or set %s=false)",
                               VAR, git, VAR);
}

/* Marks @path (a git directory, or a .git file) as kept by mounts: the landlock backend is
 * refused, at once when it was asked for, at the launch when an `auto` start falls back to it. */
static int keep(struct lower *l, const char *path)
{
        if (!cordon_backend_traits(l->s->backend)->mount_ns)
                return refuse_landlock(l, path);
        if (!l->p->git_protected && !(l->p->git_protected = strdup(path)))
                return -ENOMEM;
        return strv_contains(l->p->git_kept, path) || strv_extend(&l->p->git_kept, path) >= 0
                   ? 0
                   : -ENOMEM;
}

static int keep_ro(struct lower *l, const char *path)
{
        int r = keep(l, path);
        return r < 0 ? r
                     : cordon_lower_put(l, path, path, CORDON_ACCESS_RO, CORDON_FS_NS_ONLY, VAR);
}

static int add_name(const char *name, void *userdata)
{
        if (streq(name, ".") || streq(name, ".."))
                return 0;
        return strv_extend(userdata, name) < 0 ? -ENOMEM : 0;
}

static int keep_git_dir(struct lower *l, const char *git, bool linked, bool reopen, unsigned depth);

/* The git directories below @dir (a read-only modules/ or worktrees/ now): a submodule's, or a
 * linked worktree's, each found by its HEAD, @levels deep at most (a submodule's name may hold
 * slashes). Each is opened again and kept like any other, so that git still commits there. */
static int reopen_git_dirs(struct lower *l, const char *dir, unsigned levels, unsigned depth)
{
        _cleanup_strv_free_ char **names = NULL;
        int r = cordon_lower_read_dir(dir, 0, add_name, &names);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0)
                return cordon_diag_set(l->diag, r, "%s: cannot list '%s': %s", VAR, dir,
                                       strerror(-r));
        STRV_FOREACH (it, names) {
                _cleanup_free_ char *child = path_join(dir, *it);
                _cleanup_free_ char *head = child ? path_join(child, "HEAD") : NULL;
                _cleanup_free_ char *commondir = child ? path_join(child, "commondir") : NULL;
                if (!head || !commondir)
                        return -ENOMEM;
                struct stat st;
                if (lstat(child, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                if (lstat(head, &st) >= 0 && S_ISREG(st.st_mode))
                        r = keep_git_dir(l, child, lstat(commondir, &st) >= 0, true, depth + 1);
                else
                        r = levels > 1 ? reopen_git_dirs(l, child, levels - 1, depth) : 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Keeps git directory @git (a realpath the sandbox can write) as the allow list says; @linked:
 * a linked worktree's (it has a commondir), @reopen: it lies in a read-only directory. */
static int keep_git_dir(struct lower *l, const char *git, bool linked, bool reopen, unsigned depth)
{
        if (depth >= GIT_NEST_MAX)
                return cordon_diag_set(l->diag, -ELOOP,
                                       "%s: git directories nested deeper than %u at '%s'", VAR,
                                       GIT_NEST_MAX, git);
        int r = keep(l, git);
        if (r < 0)
                return r;
        if (reopen &&
            (r = cordon_lower_put(l, git, git, CORDON_ACCESS_RW, CORDON_FS_NS_ONLY, VAR)) < 0)
                return r;
        if ((r = plan_stand_ins(l, git, linked)) < 0)
                return r;
        struct git_walk w = {.l = l, .dir = git};
        r = cordon_lower_read_dir(git, 0, git_walk_entry, &w);
        _cleanup_strv_free_ char **ro = w.ro;
        if (r >= 0)
                r = w.r;
        if (r < 0)
                return cordon_diag_set(l->diag, r, "%s: cannot list '%s': %s", VAR, git,
                                       strerror(-r));
        /* The planned stand-ins are not in the listing. */
        for (size_t i = 0; i < l->p->n_actions; i++) {
                const struct cordon_host_action *a = &l->p->actions[i];
                const char *slash = strrchr(a->path, '/');
                _cleanup_free_ char *parent = slash ? strndup(a->path, slash - a->path) : NULL;
                if (parent && streq(parent, git) && streq(a->reason, VAR) &&
                    !strv_contains(ro, slash + 1) && strv_extend(&ro, slash + 1) < 0)
                        return -ENOMEM;
        }
        /* In name order: the rules come out the same whether the stand-ins are planned or
         * made already. */
        qsort(ro, strv_length(ro), sizeof(*ro), cmp_names);
        STRV_FOREACH (it, ro) {
                _cleanup_free_ char *path = path_join(git, *it);
                if (!path)
                        return -ENOMEM;
                if ((r = cordon_lower_put(l, path, path, CORDON_ACCESS_RO, CORDON_FS_NS_ONLY,
                                          VAR)) < 0)
                        return r;
        }
        _cleanup_free_ char *modules = path_join(git, "modules");
        _cleanup_free_ char *worktrees = path_join(git, "worktrees");
        if (!modules || !worktrees)
                return -ENOMEM;
        if ((r = reopen_git_dirs(l, modules, 3, depth)) < 0)
                return r;
        /* A linked worktree's gitdir has no worktrees of its own. */
        return linked ? 0 : reopen_git_dirs(l, worktrees, 1, depth);
}

/* Keeps git directory @git (a realpath), and first the common directory its commondir names. */
static int protect_git_dir(struct lower *l, const char *git, unsigned depth)
{
        if (depth >= GIT_DIR_DEPTH)
                return 0;
        _cleanup_free_ char *commondir = path_join(git, "commondir");
        if (!commondir)
                return -ENOMEM;
        _cleanup_free_ char *common = NULL;
        struct stat st;
        int r;
        if (lstat(commondir, &st) >= 0) {
                r = git_link_target(l, commondir, "", git, &common);
                if (r < 0 && r != -ENOMEM)
                        return cordon_diag_set(l->diag, r,
                                               "%s: cannot follow '%s' to the common git "
                                               "directory it names: %s",
                                               VAR, commondir, strerror(-r));
                if (r < 0)
                        return r;
                if (streq(common, git))
                        common = (free(common), NULL);
                else if ((r = protect_git_dir(l, common, depth + 1)) < 0)
                        return r;
        }
        if (!cordon_lower_sandbox_can_write(l, git))
                return 0;
        /* A linked worktree's gitdir in the common directory's worktrees/ was kept with it. */
        if (common && cordon_lower_sandbox_can_write(l, common) && cordon_policy_find_fs(l->p, git))
                return 0;
        /* Elsewhere below the common directory (read-only there now) it is opened again. */
        return keep_git_dir(l, git, common != NULL, common && path_is_below(git, common), 0);
}

static int count_entry(const char *name, void *userdata)
{
        if (!streq(name, ".") && !streq(name, ".."))
                ++*(size_t *)userdata;
        return 0;
}

/* The repository of worktree @root (a realpath): its .git directory, or the directory a .git
 * file names (a linked worktree, a submodule), whose file is then read-only too, since
 * rewriting it would move the repository somewhere unprotected. A @root without .git gets an
 * empty read-only .git directory when @stand_in: git passes over it when it looks for a
 * repository (a project inside another repository stays part of that one; `git init` on the
 * host fills it), and the sandbox can put nothing in it, so it cannot make a repository there
 * for the host's git to enter. */
static int protect_git_root(struct lower *l, const char *root, bool stand_in)
{
        _cleanup_free_ char *dotgit = path_join(root, ".git");
        if (!dotgit)
                return -ENOMEM;
        struct stat st;
        bool writable = cordon_lower_sandbox_can_write(l, root);
        /* The landlock backend cannot keep a stand-in (a gap cordon(1) names), and does not
         * refuse for one. */
        bool keep_stand_in = writable && cordon_backend_traits(l->s->backend)->mount_ns;
        /* Whatever is kept here, the check after the run looks for repositories the sandbox
         * made or changed below the root (git-after.h). */
        if (writable && !strv_contains(l->p->git_roots, root) &&
            strv_extend(&l->p->git_roots, root) < 0)
                return -ENOMEM;
        if (cordon_lower_lstat(l, dotgit, &st) < 0) {
                if (errno != ENOENT || !stand_in || !keep_stand_in)
                        return 0;
                /* Silently, like the HOME_WRITABLE directories: made in every project without
                 * one, a line each first start would drown the others; --dry-run lists it. */
                int r = cordon_lower_plan(l, CORDON_HOST_MKDIR, dotgit, 0755, NULL, VAR, NULL);
                if (r < 0)
                        return r;
                if (strv_extend(&l->p->git_kept, dotgit) < 0)
                        return -ENOMEM;
                return cordon_lower_put(l, dotgit, dotgit, CORDON_ACCESS_RO, CORDON_FS_NS_ONLY,
                                        VAR);
        }
        if (S_ISDIR(st.st_mode)) {
                size_t n = 0;
                int r = cordon_lower_read_dir(dotgit, 0, count_entry, &n);
                if (r < 0)
                        return cordon_diag_set(l->diag, r, "%s: cannot list '%s': %s", VAR, dotgit,
                                               strerror(-r));
                if (n > 0)
                        return protect_git_dir(l, dotgit, 0);
                return keep_stand_in ? cordon_lower_put(l, dotgit, dotgit, CORDON_ACCESS_RO,
                                                        CORDON_FS_NS_ONLY, VAR)
                                     : 0;
        }
        if (S_ISLNK(st.st_mode)) {
                if (!writable)
                        return 0;
                return cordon_diag_set(l->diag, -ELOOP,
                                       "%s: '%s' is a symbolic link, which the sandbox could "
                                       "replace with a repository of its own: make it a "
                                       "directory or a gitdir file, or set %s=false",
                                       VAR, dotgit, VAR);
        }
        if (!S_ISREG(st.st_mode))
                return 0;
        /* Empty: git refuses it ("invalid gitfile format"); kept like the stand-in. */
        if (st.st_size == 0)
                return keep_stand_in ? cordon_lower_put(l, dotgit, dotgit, CORDON_ACCESS_RO,
                                                        CORDON_FS_NS_ONLY, VAR)
                                     : 0;
        _cleanup_free_ char *git = NULL;
        int r = git_link_target(l, dotgit, "gitdir: ", root, &git);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return cordon_diag_set(l->diag, r,
                                       "%s: cannot follow '%s' to the git directory it names: %s",
                                       VAR, dotgit, strerror(-r));
        if ((r = protect_git_dir(l, git, 0)) < 0)
                return r;
        return writable ? keep_ro(l, dotgit) : 0;
}

/* The project (or every workspace root of a capability policy), with a stand-in where it has
 * no .git; and the repository at the root of every writable path the user named (--rw, a
 * policy write root, a home under HOME_ACCESS=write). */
int cordon_lower_git(struct lower *l)
{
        if (!l->s->protect_git)
                return 0;
        int r;
        if (!l->s->policy && l->p->project_dir &&
            (r = protect_git_root(l, l->p->project_dir, true)) < 0)
                return r;
        /* HOME_ACCESS=write binds the home at its own path: a home that is a repository (dotfiles
         * kept in git) is one the user gave the sandbox. */
        if (l->s->home_access == CORDON_HOME_WRITE && l->home_real &&
            streq_ptr(l->home_guest, l->home_real) &&
            (r = protect_git_root(l, l->home_real, false)) < 0)
                return r;
        const struct cordon_list *lists[] = {&l->s->workspace_roots, &l->s->write_roots,
                                             &l->s->extra_writable_paths};
        for (size_t i = 0; i < ELEMENTSOF(lists); i++) {
                bool workspace = lists[i] == &l->s->workspace_roots;
                if (workspace && !l->s->policy)
                        continue;
                CORDON_LIST_FOREACH (it, lists[i]) {
                        if (cordon_lower_is_builtin(it->origin))
                                continue;
                        _cleanup_free_ char *real = cordon_lower_host_realpath(l, it->value);
                        struct stat st;
                        if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
                                continue;
                        if ((r = protect_git_root(l, real, workspace)) < 0)
                                return r;
                }
        }
        return 0;
}
