/* PROTECT_AGENT_PROJECT_FILES: the files of a project that make the host run commands or
 * instruct an agent later, without the user running anything of the project: an agent's hooks,
 * MCP servers and commands (.claude, .mcp.json, .codex, .gemini), an editor's tasks that run when
 * the folder opens (.vscode), direnv's .envrc, a dev container's host command, hooks that git runs
 * through a hooks path the project already set (.husky). At the root of each writable place the
 * user named (the project, a capability policy's write roots, an EXTRA_WRITABLE_PATHS entry) they
 * are read-only; the missing ones whose mere presence runs something are made first (empty) so
 * that the sandbox cannot create them. The namespace backend only: the landlock backend cannot
 * keep one name read-only in a directory it lets the sandbox write without carving that
 * directory's grant, and carving the project's root takes away making, removing and renaming
 * anything directly in it (every new file at the top of the project, every save by rename there).
 * It leaves them writable, as it leaves .git/config; cordon doctor names the gap. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/policy/backend-traits.h"
#include "lib/resolve/lower-internal.h"
#include "shared/macro.h"
#include "shared/path-util.h"

static const struct project_file {
        const char *name;
        bool dir;
        /* Made when missing (what it holds, for a file); NULL: protected only where it exists,
         * since it does nothing on its own (a hooks directory git is not pointed at, a dev
         * container the user has to open, an agent's file its user would have to add). */
        const char *placeholder;
} project_files[] = {
    {".claude", true, ""}, /* settings(.local).json with hooks, commands, agents, skills */
    {".codex", true, ""},  /* config.toml with MCP servers and notify, prompts */
    {".gemini", true, ""}, /* settings.json with MCP servers and hooks, .env, commands */
    {".vscode", true, ""}, /* tasks.json (runOn folderOpen), launch.json, settings.json */
    {".mcp.json", false, "{\"mcpServers\":{}}\n"}, /* claude's project MCP servers */
    {".envrc", false, ""},                         /* direnv: run by the shell on cd */
    {".devcontainer", true, NULL},                 /* initializeCommand runs on the host */
    {".husky", true, NULL},
    {".cursor", true, NULL},
    {".opencode", true, NULL},
    {".pi", true, NULL},
    {"opencode.json", false, NULL},
    {"opencode.jsonc", false, NULL},
    {".aider.conf.yml", false, NULL},
    {".pre-commit-config.yaml", false, NULL},
    {"lefthook.yml", false, NULL},
};

static int protect_in(struct lower *l, const char *root)
{
        if (!cordon_lower_sandbox_can_write(l, root))
                return 0;
        struct stat st;
        if (cordon_lower_lstat(l, root, &st) < 0 || !S_ISDIR(st.st_mode))
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(project_files); i++) {
                const struct project_file *f = &project_files[i];
                _cleanup_free_ char *path = path_join(root, f->name);
                if (!path)
                        return -ENOMEM;
                int r;
                if (cordon_lower_lstat(l, path, &st) < 0) {
                        if (errno != ENOENT || !f->placeholder)
                                continue;
                        /* Silently, like the agents' placeholders in the home: a line for each
                         * on the first start in every project would drown the real warnings
                         * (--dry-run lists them, cordon(1) names them). */
                        r = cordon_lower_plan(l, f->dir ? CORDON_HOST_MKDIR : CORDON_HOST_FILE,
                                              path, f->dir ? 0755 : 0644,
                                              f->dir ? NULL : f->placeholder,
                                              "PROTECT_AGENT_PROJECT_FILES", NULL);
                        if (r < 0)
                                return r;
                        if (cordon_lower_lstat(l, path, &st) < 0)
                                continue;
                }
                /* A mount cannot cover a symlink, which the sandbox could replace: left with a
                 * warning, as the other protected files. */
                if (S_ISLNK(st.st_mode) || (f->dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
                        r = cordon_lower_warn(l,
                                              "PROTECT_AGENT_PROJECT_FILES: '%s' is not a %s, so "
                                              "it cannot be kept read-only; the sandbox can "
                                              "replace it",
                                              path, f->dir ? "directory" : "regular file");
                        if (r < 0)
                                return r;
                        continue;
                }
                r = cordon_lower_put(l, path, path, CORDON_ACCESS_RO, CORDON_FS_NS_ONLY,
                                     "PROTECT_AGENT_PROJECT_FILES");
                if (r < 0)
                        return r;
        }
        return 0;
}

static int protect_list(struct lower *l, const struct cordon_list *roots, bool user_only)
{
        CORDON_LIST_FOREACH (it, roots) {
                if (user_only && cordon_lower_is_builtin(it->origin))
                        continue;
                _cleanup_free_ char *real = cordon_lower_host_realpath(l, it->value);
                int r = real ? protect_in(l, real) : 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

int cordon_lower_agents_project(struct lower *l)
{
        if (!l->s->protect_agent_files)
                return 0;
        /* An explicit landlock backend would drop the rules: nothing is made for them, and the
         * gap is reported instead. */
        if (!cordon_backend_traits(l->s->backend)->mount_ns) {
                l->p->agent_files_unkept = true;
                return 0;
        }
        int r;
        if (l->p->project_dir && (r = protect_in(l, l->p->project_dir)) < 0)
                return r;
        if ((r = protect_list(l, &l->s->workspace_roots, false)) < 0 ||
            (r = protect_list(l, &l->s->write_roots, false)) < 0)
                return r;
        return protect_list(l, &l->s->extra_writable_paths, true);
}
