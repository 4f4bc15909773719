/* Lowering of the agent profiles of ENABLED_AGENTS (profiles/<name>/): nothing an agent writes
 * inside may run later on the host. Files of commands (hooks, MCP servers, notify programs) are
 * private copies inside, directories of programs are read-only, instruction files are shown as a
 * merged copy (the user's file and the profile's agent.md) in place of their BLOCKED_FILES mask,
 * and each agent's *_CONFIG_DIR variable names its directory as the sandbox sees it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/profiles/profiles.h"
#include "lib/resolve/lower-internal.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* The largest instruction file merged; a larger one is shown as the note alone, with a warning. */
#define INSTRUCTIONS_MAX (256u << 10)

/* $HOME/@rel as the sandbox sees it (normalised; "." is the home itself). */
static char *guest_path(const struct lower *l, const char *rel)
{
        _cleanup_free_ char *joined =
            streq(rel, ".") ? strdup(l->home_guest) : path_join(l->home_guest, rel);
        char *norm = NULL;
        if (!joined || path_normalize(joined, &norm) < 0)
                return NULL;
        return norm;
}

/* The rule that decides what @guest is inside: a mask over it wins wherever it is (masks are
 * mounted last), else the deepest rule at or above it, the later of two at one path. A mask at
 * @guest itself is skipped when @skip_own_mask. NULL: nothing shows it. */
static const struct cordon_fs_rule *effective_rule(const struct lower *l, const char *guest,
                                                   bool skip_own_mask)
{
        const struct cordon_fs_rule *best = NULL;
        unsigned best_depth = 0;
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (!path_is_below(guest, r->guest))
                        continue;
                if (r->access == CORDON_ACCESS_MASKED) {
                        if (skip_own_mask && streq(r->guest, guest))
                                continue;
                        return r;
                }
                unsigned d = path_depth(r->guest);
                if (!best || d >= best_depth) {
                        best = r;
                        best_depth = d;
                }
        }
        return best;
}

/* Where @guest comes from on the host, when a bind of a host path shows it: 0 with the path in
 * @ret_host and whether the bind is read-write in @ret_rw; -ENOENT when no bind does. */
static int host_of(const struct lower *l, const char *guest, bool skip_own_mask, char **ret_host,
                   bool *ret_rw)
{
        const struct cordon_fs_rule *r = effective_rule(l, guest, skip_own_mask);
        if (!r || !r->host || !cordon_access_is_bind(r->access))
                return -ENOENT;
        const char *suffix = guest + strlen(r->guest);
        char *host = *suffix ? path_join(r->host, suffix) : strdup(r->host);
        if (!host)
                return -ENOMEM;
        *ret_host = host;
        *ret_rw = r->access == CORDON_ACCESS_RW;
        return 0;
}

/* An empty document of the kind the file name says: JSON files get "{}". */
static const char *empty_document(const char *path)
{
        const char *dot = strrchr(path, '.');
        return dot && (streq(dot, ".json") || streq(dot, ".jsonc")) ? "{}\n" : "";
}

static bool planning_applies(const struct lower *l)
{
        /* An explicit landlock backend drops the rules only a mount namespace gives: the files
         * planned for them would protect nothing there (the sandbox can write them). */
        return l->home_real && l->home_guest && l->s->backend != CORDON_BACKEND_LANDLOCK;
}

/* Plans @rel of an agent, missing where the sandbox could create it: a file holding @contents, or
 * a directory (@contents NULL). Silently, like the HOME_WRITABLE directory it is in. */
static int plan_missing(struct lower *l, const struct cordon_item *it, const char *contents)
{
        _cleanup_free_ char *guest = guest_path(l, it->value), *host = NULL;
        if (!guest)
                return -ENOMEM;
        bool rw = false;
        int r = host_of(l, guest, false, &host, &rw);
        if (r == -ENOENT || (r >= 0 && !rw))
                return 0; /* not shown, or shown read-only: the sandbox cannot create it */
        if (r < 0)
                return r;
        struct stat st;
        if (cordon_lower_lstat(l, host, &st) == 0 || errno != ENOENT)
                return 0;
        _cleanup_free_ char *reason = NULL, *parent = strdup(host);
        if (!parent || asprintf(&reason, "kept from the host: %s", it->origin) < 0)
                return -ENOMEM;
        *strrchr(parent, '/') = 0;
        /* The directories on the way as mkdir -p makes them; they are inside the writable bind
         * (the sandbox could make them too). */
        if (cordon_lower_lstat(l, parent, &st) < 0 &&
            (r = cordon_lower_plan_mkdir_p(l, parent, reason)) < 0)
                return r;
        if (cordon_lower_lstat(l, parent, &st) < 0 || !S_ISDIR(st.st_mode))
                return 0;
        return cordon_lower_plan(l, contents ? CORDON_HOST_FILE : CORDON_HOST_MKDIR, host,
                                 contents ? 0600 : 0755, contents, reason, NULL);
}

int cordon_lower_agents_plan(struct lower *l)
{
        if (!planning_applies(l))
                return 0;
        for (size_t i = 0; i < l->s->n_agents; i++) {
                const struct cordon_agent_profile *a = &l->s->agents[i];
                int r;
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_INSTRUCTIONS])
                        if ((r = plan_missing(l, it, "")) < 0)
                                return r;
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_EXEC_CONFIG])
                        if ((r = plan_missing(l, it, empty_document(it->value))) < 0)
                                return r;
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_EXEC_DIR])
                        if ((r = plan_missing(l, it, NULL)) < 0)
                                return r;
        }
        return 0;
}

/* One file of commands (@dir false) or directory of programs (@dir true) the sandbox could
 * write: a private copy of the file, the directory bound read-only. A mount cannot cover a
 * symlink, which the sandbox could then replace: such an entry is left with a warning
 * (refusing would stop every user who keeps these as links into a dotfiles repository). */
static int protect_one(struct lower *l, const struct cordon_item *it, bool dir)
{
        _cleanup_free_ char *guest = guest_path(l, it->value), *host = NULL;
        if (!guest)
                return -ENOMEM;
        bool rw = false;
        int r = host_of(l, guest, false, &host, &rw);
        if (r == -ENOENT || (r >= 0 && !rw))
                return 0;
        if (r < 0)
                return r;
        struct stat st;
        if (cordon_lower_lstat(l, host, &st) < 0)
                return 0; /* missing and not planned: nothing on the host to keep */
        if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
                return cordon_lower_warn(l,
                                         "agent file '%s' (%s) is not a regular %s, so it cannot "
                                         "be kept from the host; the sandbox can replace it",
                                         host, it->origin, dir ? "directory" : "file");
        return cordon_lower_put(l, guest, host, dir ? CORDON_ACCESS_RO : CORDON_ACCESS_COPY,
                                CORDON_FS_NS_ONLY, it->origin);
}

int cordon_lower_agents_protect(struct lower *l)
{
        if (!planning_applies(l))
                return 0;
        for (size_t i = 0; i < l->s->n_agents; i++) {
                const struct cordon_agent_profile *a = &l->s->agents[i];
                int r;
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_EXEC_CONFIG])
                        if ((r = protect_one(l, it, false)) < 0)
                                return r;
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_EXEC_DIR])
                        if ((r = protect_one(l, it, true)) < 0)
                                return r;
        }
        return 0;
}

/* The user's instruction file at host path @host, for the merged copy: "" when it is missing or
 * only planned. Opened without following a final symlink, and only a regular file is read, so a
 * link planted in the writable agent directory cannot pull another file's contents in. */
static int read_instructions(struct lower *l, const char *host, const char *origin, char **ret)
{
        _cleanup_close_ int fd =
            open(host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
        struct stat st;
        if (fd < 0 && errno == ENOENT)
                return (*ret = strdup("")) ? 0 : -ENOMEM;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                *ret = strdup("");
                return *ret ? cordon_lower_warn(l,
                                                "instruction file '%s' (%s) is not a regular file; "
                                                "the sandbox sees the note alone",
                                                host, origin)
                            : -ENOMEM;
        }
        int r = read_full_fd(fd, INSTRUCTIONS_MAX, ret, NULL);
        if (r == -EFBIG) {
                *ret = strdup("");
                return *ret ? cordon_lower_warn(l,
                                                "instruction file '%s' (%s) is larger than %u "
                                                "bytes; the sandbox sees the note alone",
                                                host, origin, INSTRUCTIONS_MAX)
                            : -ENOMEM;
        }
        return r;
}

/* The merged copy: the user's file, a blank line, the profile's note. */
static char *merge(const char *user, const char *note)
{
        size_t n = strlen(user);
        const char *sep = !n ? "" : user[n - 1] == '\n' ? "\n" : "\n\n";
        char *m = NULL;
        return asprintf(&m, "%s%s%s", user, *note ? sep : "", note) < 0 ? NULL : m;
}

static int merge_one(struct lower *l, const struct cordon_agent_profile *a,
                     const struct cordon_item *it)
{
        _cleanup_free_ char *guest = guest_path(l, it->value), *host = NULL;
        if (!guest)
                return -ENOMEM;
        /* The mask BLOCKED_FILES put at the guest path; without one (a symlink, whose target
         * was masked instead; or nothing shows the file) there is no place for the copy. */
        struct cordon_fs_rule *mask = NULL;
        for (size_t i = 0; i < l->p->n_fs && !mask; i++)
                if (l->p->fs[i].access == CORDON_ACCESS_MASKED && streq(l->p->fs[i].guest, guest))
                        mask = &l->p->fs[i];
        if (!mask)
                return 0;
        bool rw = false;
        int r = host_of(l, guest, true, &host, &rw);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        _cleanup_free_ char *user = NULL;
        if ((r = read_instructions(l, host, it->origin, &user)) < 0)
                return r;
        _cleanup_free_ char *merged = merge(user, a->note);
        _cleanup_free_ char *origin = strdup(it->origin);
        if (!merged || !origin)
                return -ENOMEM;
        free(mask->host);
        free(mask->origin);
        mask->host = TAKE_PTR(merged);
        mask->origin = TAKE_PTR(origin);
        mask->access = CORDON_ACCESS_DATA;
        mask->flags = CORDON_FS_NS_ONLY; /* as the other protected files: mounts only */
        return 0;
}

int cordon_lower_agents_instructions(struct lower *l)
{
        /* An explicit landlock backend keeps the masks: the copy would be left out there. */
        if (!l->home_guest || l->s->backend == CORDON_BACKEND_LANDLOCK)
                return 0;
        for (size_t i = 0; i < l->s->n_agents; i++) {
                const struct cordon_agent_profile *a = &l->s->agents[i];
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_INSTRUCTIONS]) {
                        int r = merge_one(l, a, it);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int cordon_lower_agents_env(struct lower *l)
{
        if (!l->home_guest)
                return 0;
        for (size_t i = 0; i < l->s->n_agents; i++)
                CORDON_LIST_FOREACH (it, &l->s->agents[i].items[CORDON_PROFILE_CONFIG_DIR_VAR]) {
                        const char *eq = strchr(it->value, '=');
                        _cleanup_free_ char *dir = eq ? guest_path(l, eq + 1) : NULL;
                        _cleanup_free_ char *assignment = NULL;
                        if (!dir || asprintf(&assignment, "%.*s=%s", (int)(eq - it->value),
                                             it->value, dir) < 0)
                                return -ENOMEM;
                        int r = cordon_list_add(&l->p->env_rules.set, assignment, it->origin);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static bool env_has(char *const *envp, const char *name)
{
        size_t n = strlen(name);
        STRV_FOREACH (e, envp)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=' && (*e)[n + 1])
                        return true;
        return false;
}

/* SUPPRESS_AGENT_WARNINGS: startup warnings for an agent whose login cannot reach the sandbox:
 * none of its credential variables passes the environment filter, and none of its auth paths
 * shows inside from the host (where a login inside would also persist). */
int cordon_lower_agents_warn(struct lower *l)
{
        if (cordon_list_find(&l->s->suppress_agent_warnings, "all"))
                return 0;
        for (size_t i = 0; i < l->s->n_agents; i++) {
                const struct cordon_agent_profile *a = &l->s->agents[i];
                const struct cordon_list *creds = &a->items[CORDON_PROFILE_CREDENTIAL_ENV];
                const struct cordon_list *auth = &a->items[CORDON_PROFILE_AUTH_PATH];
                if (cordon_list_find(&l->s->suppress_agent_warnings, a->name) ||
                    (creds->n == 0 && auth->n == 0))
                        continue;
                bool reachable = false;
                CORDON_LIST_FOREACH (it, creds)
                        reachable |= env_has(l->p->envp, it->value);
                CORDON_LIST_FOREACH (it, auth) {
                        _cleanup_free_ char *guest =
                            l->home_guest ? guest_path(l, it->value) : NULL;
                        _cleanup_free_ char *host = NULL;
                        bool rw = false;
                        struct stat st;
                        if (reachable || !guest)
                                break;
                        int r = host_of(l, guest, false, &host, &rw);
                        if (r < 0 && r != -ENOENT)
                                return r;
                        reachable = r >= 0 && cordon_lower_lstat(l, host, &st) == 0;
                }
                if (reachable)
                        continue;
                char names[512] = "";
                CORDON_LIST_FOREACH (it, creds)
                        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                                 *names ? ", " : "", it->value);
                const char *path = auth->n ? auth->items[0].value : NULL;
                _cleanup_free_ char *why = NULL;
                if (asprintf(&why, "%s%s%s%s%s%s%s", *names ? "none of " : "", names,
                             *names ? " reaches it" : "", *names && path ? " and " : "",
                             path ? "~/" : "", path ? path : "", path ? " is not visible" : "") < 0)
                        return -ENOMEM;
                int r = cordon_lower_warn(l,
                                          "agent %s will have to log in inside the sandbox (%s); "
                                          "SUPPRESS_AGENT_WARNINGS=(%s) or (all) silences this",
                                          a->name, why, a->name);
                if (r < 0)
                        return r;
        }
        return 0;
}
