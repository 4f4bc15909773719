/* Lowering of the agent profiles of ENABLED_AGENTS (profiles/<name>/): nothing an agent writes
 * inside may run later on the host. An agent's directory is read-only but for the state the
 * profile names (sessions, history, caches, its login), wherever the sandbox could otherwise write
 * it; files of commands (hooks, MCP servers, notify programs) are private copies inside (the host
 * file, read-only, under the landlock backend), directories of programs are read-only,
 * instruction files are shown as a merged copy (the user's file and the profile's agent.md) in
 * place of their BLOCKED_FILES mask, and each agent's *_CONFIG_DIR variable names its directory
 * as the sandbox sees it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/backend-traits.h"
#include "lib/profiles/profiles.h"
#include "lib/resolve/lower-internal.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* The largest instruction file merged; a larger one is shown as the note alone, with a warning. */
#define INSTRUCTIONS_MAX (256u << 10)

/* $HOME/@rel as the sandbox sees it (normalised; "." is the home itself). */
char *cordon_lower_agent_guest_path(const struct lower *l, const char *rel)
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
        size_t n = strlen(guest);
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (!path_is_below_n(guest, n, r->guest))
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
        /* Both backends: the landlock one grants the copies as the host files, read-only. */
        return l->home_real && l->home_guest;
}

/* Whether @name is an executable regular file in a directory of @path (a PATH value; only its
 * absolute entries count). */
bool cordon_lower_on_path(const char *path, const char *name)
{
        for (const char *p = path; p && *p;) {
                size_t n = strcspn(p, ":");
                if (n > 0 && p[0] == '/' && n < PATH_MAX - 66) {
                        char file[PATH_MAX];
                        struct stat st;
                        snprintf(file, sizeof(file), "%.*s/%s", (int)n, p, name);
                        if (stat(file, &st) == 0 && S_ISREG(st.st_mode) && access(file, X_OK) == 0)
                                return true;
                }
                p += n + (p[n] == ':');
        }
        return false;
}

/* Whether agent @i of the settings is installed here: one of its directories is on the host
 * (its `dir` entries, or for a profile without one its first `writable` entry: an agent folder
 * of agent-sandbox's), one of its commands is on the caller's PATH, or its profile names no
 * command (a profile from before the key). An agent that is not gets nothing made or bound for
 * its state: there is nothing of it to keep, and every bind costs the start. */
bool cordon_lower_agent_installed(struct lower *l, size_t i)
{
        const struct cordon_agent_profile *a = &l->s->agents[i];
        if (i < ELEMENTSOF(l->agent_installed) && l->agent_installed[i])
                return l->agent_installed[i] == 2;
        bool yes = a->items[CORDON_PROFILE_COMMAND].n == 0;
        const struct cordon_list *dirs = &a->items[CORDON_PROFILE_DIR];
        const struct cordon_list *writable = &a->items[CORDON_PROFILE_WRITABLE];
        for (size_t k = 0; !yes && k < (dirs->n ? dirs->n : writable->n ? 1 : 0); k++) {
                const char *d = dirs->n ? dirs->items[k].value : writable->items[0].value;
                _cleanup_free_ char *path = path_join(l->home_real, d);
                struct stat st;
                yes = path && cordon_lower_host_lstat(l, path, &st) == 0;
        }
        const char *path = NULL;
        STRV_FOREACH (e, l->h->envp)
                if (startswith(*e, "PATH="))
                        path = *e + 5;
        CORDON_LIST_FOREACH (c, &a->items[CORDON_PROFILE_COMMAND])
                yes = yes || cordon_lower_on_path(path, c->value);
        if (i < ELEMENTSOF(l->agent_installed))
                l->agent_installed[i] = yes ? 2 : 1;
        return yes;
}

bool cordon_lower_agent_item_absent(struct lower *l, const struct cordon_item *it)
{
        const char *name = startswith(it->origin, "profile ");
        if (!name || !l->home_real)
                return false;
        size_t n = strcspn(name, " ");
        for (size_t i = 0; i < l->s->n_agents; i++)
                if (strlen(l->s->agents[i].name) == n &&
                    strncmp(l->s->agents[i].name, name, n) == 0)
                        return !cordon_lower_agent_installed(l, i);
        return false;
}

/* True when home-relative @rel lies in one of @a's directories (`dir`), which are read-only
 * inside: the sandbox cannot create there, but the agent still gets copies of its files of
 * commands, and its instruction file. */
static bool in_agent_dir(const struct cordon_agent_profile *a, const char *rel)
{
        CORDON_LIST_FOREACH (d, &a->items[CORDON_PROFILE_DIR])
                if (path_is_below(rel, d->value))
                        return true;
        return false;
}

/* Moves rule @i to the end of the mount order, where it is mounted over every earlier one. */
static int move_last(struct lower *l, size_t i)
{
        struct cordon_fs_rule r = l->p->fs[i];
        memmove(&l->p->fs[i], &l->p->fs[i + 1], (l->p->n_fs - i - 1) * sizeof(r));
        l->p->fs[l->p->n_fs - 1] = r;
        return 0;
}

/* Adds a rule at the end of the mount order, replacing one at the same guest path. */
static int put_last(struct lower *l, const char *guest, const char *host, enum cordon_access access,
                    const char *origin)
{
        for (size_t i = 0; i < l->p->n_fs; i++)
                if (l->p->fs[i].access != CORDON_ACCESS_MASKED && streq(l->p->fs[i].guest, guest))
                        move_last(l, i);
        return cordon_lower_put(l, guest, host, access, 0, origin);
}

/* Host path of the agent's directory, home-relative @rel: its realpath, which must lie in the
 * home (a link out of it, or one some sandbox could have planted, is not followed). NULL with a
 * warning, or with errno ENOMEM. */
char *cordon_lower_agent_host_path(struct lower *l, const char *rel, const char *origin)
{
        _cleanup_free_ char *host = path_join(l->home_real, rel), *link = NULL, *target = NULL;
        if (!host)
                return NULL;
        int r = cordon_lower_find_planted_link(l, host, &link, &target);
        if (r < 0) {
                errno = -r;
                return NULL;
        }
        _cleanup_free_ char *real = r == 0 ? cordon_lower_realpath(l, host) : NULL;
        if (real && path_is_below(real, l->home_real) && !streq(real, l->home_real))
                return TAKE_PTR(real);
        if (r == 0 && !real && errno == ENOMEM)
                return NULL;
        r = r > 0 ? cordon_lower_warn(l,
                                      "agent directory '%s' (%s) goes through symlink '%s' -> "
                                      "'%s' in a directory a sandbox can write; not kept "
                                      "read-only",
                                      host, origin, link, target)
                  : cordon_lower_warn(l,
                                      "agent directory '%s' (%s) does not resolve to a directory "
                                      "in the home; not kept read-only",
                                      host, origin);
        errno = r < 0 ? ENOMEM : EPERM;
        return NULL;
}

/* The agent's state @it (a `state` directory) in its read-only directory @dir_host (a realpath
 * in the home) at @dir_guest, where nothing showed it yet: made when missing (never through a
 * link), bound read-write. */
static int state_dir(struct lower *l, const struct cordon_item *it, const char *dir_rel,
                     const char *dir_host)
{
        _cleanup_free_ char *guest = cordon_lower_agent_guest_path(l, it->value);
        _cleanup_free_ char *host = path_join(dir_host, it->value + strlen(dir_rel) + 1);
        if (!guest || !host)
                return -ENOMEM;
        for (size_t i = 0; i < l->p->n_fs; i++)
                if (streq(l->p->fs[i].guest, guest))
                        return 0; /* HOME_WRITABLE's bind, moved with the directory's */
        struct stat st;
        int r;
        if (cordon_lower_lstat(l, host, &st) < 0) {
                if (errno != ENOENT)
                        return 0;
                if ((r = cordon_lower_plan_mkdir_p(l, host, it->origin)) < 0)
                        return r;
        } else if (!S_ISDIR(st.st_mode))
                return 0; /* a link or a file: left as the read-only directory shows it */
        _cleanup_free_ char *real = cordon_lower_realpath(l, host);
        if (!real || !path_is_below(real, dir_host))
                return real || errno != ENOMEM ? 0 : -ENOMEM;
        return put_last(l, guest, real, CORDON_ACCESS_RW, it->origin);
}

/* The agent's directory @d read-only, wherever a bind would show it writable (a HOME_ACCESS
 * of write, a read-write bind over it) or the scratch home would (it was missing): the rules
 * inside it (its state, HOME_WRITABLE entries below it) move after it in the mount order, and
 * the state the profile names is bound read-write. A HOME_WRITABLE entry of the configuration
 * for the directory itself keeps it writable as a whole. */
static int invert_dir(struct lower *l, const struct cordon_agent_profile *a,
                      const struct cordon_item *d, bool installed)
{
        const struct cordon_item *w = cordon_list_find(&l->s->home_writable, d->value);
        if (w && !startswith(w->origin, "profile "))
                return 0;
        _cleanup_free_ char *guest = cordon_lower_agent_guest_path(l, d->value), *path = NULL,
                            *host = NULL;
        if (!guest || !(path = path_join(l->home_real, d->value)))
                return -ENOMEM;
        const struct cordon_fs_rule *eff = effective_rule(l, guest, false);
        if (!eff || eff->access == CORDON_ACCESS_MASKED)
                return 0; /* not shown */
        /* An agent that is not installed has nothing in the scratch home; where the sandbox
         * could write its directory on the host, it is made read-only all the same, so that
         * nothing waits there for the agent installed later. */
        if (!installed && eff->access != CORDON_ACCESS_RW)
                return 0;
        struct stat st;
        int r;
        bool exists = cordon_lower_lstat(l, path, &st) == 0;
        if (!exists && errno != ENOENT)
                return 0;
        _cleanup_free_ char *real = exists ? cordon_lower_realpath(l, path) : NULL;
        if (eff->access == CORDON_ACCESS_RO && (!real || !cordon_lower_sandbox_can_write(l, real)))
                return 0; /* read-only as it is */
        /* An EXTRA_WRITABLE_PATHS entry of the user's for the directory itself: writable as a
         * whole, as asked (one over a parent of it is not asking for this one). */
        CORDON_LIST_FOREACH (x, &l->s->extra_writable_paths) {
                if (!real || cordon_lower_is_builtin(x->origin))
                        continue;
                _cleanup_free_ char *xr = cordon_lower_host_realpath(l, x->value);
                if (xr && streq(xr, real))
                        return 0;
        }
        if (exists && !real)
                return errno == ENOMEM ? -ENOMEM : 0;
        /* Made (mkdir -p) only where nothing on the way is a link. */
        if (!exists) {
                _cleanup_free_ char *parent = strdup(path), *preal = NULL;
                if (!parent)
                        return -ENOMEM;
                *strrchr(parent, '/') = 0;
                while (!(preal = cordon_lower_realpath(l, parent)) && errno == ENOENT &&
                       strlen(parent) > strlen(l->home_real))
                        *strrchr(parent, '/') = 0; /* mkdir -p makes the rest */
                if (!preal || !streq(preal, parent))
                        return 0;
                if ((r = cordon_lower_plan_mkdir_p(l, path, d->origin)) < 0)
                        return r;
        }
        if (!(host = cordon_lower_agent_host_path(l, d->value, d->origin)))
                return errno == ENOMEM ? -ENOMEM : 0;
        if (cordon_lower_lstat(l, host, &st) < 0 || !S_ISDIR(st.st_mode))
                return cordon_lower_warn(l,
                                         "agent directory '%s' (%s) is not a directory; not "
                                         "kept read-only",
                                         host, d->origin);
        if ((r = put_last(l, guest, host, CORDON_ACCESS_RO, d->origin)) < 0)
                return r;
        /* What was put inside it before (HOME_WRITABLE's binds of its state) goes on top. */
        for (size_t i = 0, n = l->p->n_fs - 1; i < n;) {
                const struct cordon_fs_rule *q = &l->p->fs[i];
                if (q->access != CORDON_ACCESS_MASKED && !streq(q->guest, guest) &&
                    path_is_below(q->guest, guest)) {
                        move_last(l, i);
                        n--;
                } else
                        i++;
        }
        if (!installed)
                return 0;
        CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_STATE])
                /* Only what HOME_WRITABLE still holds after finalize (the admin's rules). */
                if (path_is_below(it->value, d->value) && !streq(it->value, d->value) &&
                    cordon_list_find(&l->s->home_writable, it->value) &&
                    (r = state_dir(l, it, d->value, host)) < 0)
                        return r;
        return 0;
}

/* A `state_file` in the agent's read-only directory: bound read-write, made first (empty)
 * when missing, so that the agent can write it in place. Replacing it by rename
 * fails (EBUSY under the ns backend, EACCES under the landlock one): the directory is read-only. */
static int state_file(struct lower *l, const struct cordon_agent_profile *a,
                      const struct cordon_item *it)
{
        if (!in_agent_dir(a, it->value) || cordon_settings_agent_state_is_readonly(l->s, it->value))
                return 0;
        _cleanup_free_ char *guest = cordon_lower_agent_guest_path(l, it->value), *host = NULL;
        if (!guest)
                return -ENOMEM;
        bool rw = false;
        int r = host_of(l, guest, false, &host, &rw);
        if (r == -ENOENT || (r >= 0 && rw))
                return 0; /* not shown, or writable as it is */
        if (r < 0)
                return r;
        /* DENIED_WRITABLE_PATHS holds for the agents' state as for HOME_WRITABLE (finalize
         * strips the state directories). */
        if ((r = cordon_settings_path_denied(&l->s->denied_writable_paths, host, NULL)) != 0)
                return r < 0 ? r : 0;
        struct stat st;
        if (cordon_lower_lstat(l, host, &st) < 0) {
                if (errno != ENOENT)
                        return 0;
                _cleanup_free_ char *parent = strdup(host);
                if (!parent)
                        return -ENOMEM;
                *strrchr(parent, '/') = 0;
                if (cordon_lower_lstat(l, parent, &st) < 0 || !S_ISDIR(st.st_mode))
                        return 0;
                /* Empty, not an empty document: codex takes an auth.json holding {} for a
                 * ChatGPT login and fails; every agent takes an empty file for none. */
                if ((r = cordon_lower_plan(l, CORDON_HOST_FILE, host, 0600, "", it->origin, NULL)) <
                    0)
                        return r;
        } else if (!S_ISREG(st.st_mode))
                return 0; /* a link there points where the read-only directory sent it */
        return put_last(l, guest, host, CORDON_ACCESS_RW, it->origin);
}

/* Each agent's directory read-only around its state, before the placeholders and copies. */
static int agents_state(struct lower *l)
{
        for (size_t i = 0; i < l->s->n_agents; i++) {
                const struct cordon_agent_profile *a = &l->s->agents[i];
                bool installed = cordon_lower_agent_installed(l, i);
                int r;
                CORDON_LIST_FOREACH (d, &a->items[CORDON_PROFILE_DIR])
                        if ((r = invert_dir(l, a, d, installed)) < 0)
                                return r;
                CORDON_LIST_FOREACH (f, &a->items[CORDON_PROFILE_STATE_FILE])
                        if (installed && (r = state_file(l, a, f)) < 0)
                                return r;
        }
        return 0;
}

/* Plans @rel of agent @a, missing where the sandbox could create it: a file holding @contents,
 * or a directory (@contents NULL). Silently, like the HOME_WRITABLE directory it is in. In the
 * agent's read-only directory, files are made too: the merged instruction file and the copies
 * need one to stand on. */
static int plan_missing(struct lower *l, const struct cordon_agent_profile *a,
                        const struct cordon_item *it, const char *contents, bool installed)
{
        _cleanup_free_ char *guest = cordon_lower_agent_guest_path(l, it->value), *host = NULL;
        if (!guest)
                return -ENOMEM;
        bool rw = false;
        int r = host_of(l, guest, false, &host, &rw);
        /* Not shown, or shown read-only: the sandbox cannot create it. An installed agent's
         * read-only directory gets its files all the same, for the merged copy and the private
         * copies to stand on; one that is not installed needs neither. */
        if (r == -ENOENT ||
            (r >= 0 && !rw && !(installed && contents && in_agent_dir(a, it->value))))
                return 0;
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
        int r = agents_state(l);
        if (r < 0)
                return r;
        for (size_t i = 0; i < l->s->n_agents; i++) {
                const struct cordon_agent_profile *a = &l->s->agents[i];
                bool installed = cordon_lower_agent_installed(l, i);
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_INSTRUCTIONS])
                        if ((r = plan_missing(l, a, it, "", installed)) < 0)
                                return r;
                /* An installed agent with a private home gets its missing files of commands
                 * there (empty), never on the host. */
                bool home = a->items[CORDON_PROFILE_CONFIG_DIR_VAR].n > 0 && installed;
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_EXEC_CONFIG])
                        if (!home &&
                            (r = plan_missing(l, a, it, empty_document(it->value), installed)) < 0)
                                return r;
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_EXEC_DIR])
                        if ((r = plan_missing(l, a, it, NULL, installed)) < 0)
                                return r;
        }
        return 0;
}

/* Whether BLOCKED_FILES entry @it is the instruction file of an agent that is not installed,
 * missing on the host, where nothing writable shows it (its read-only directory, a home bound
 * read-only, or not shown at all). */
static bool unneeded_instructions(struct lower *l, const struct cordon_item *it)
{
        if (!cordon_lower_agent_item_absent(l, it) || !l->home_guest)
                return false;
        const char *rel = path_is_below(it->value, l->s->home) && !streq(it->value, l->s->home)
                              ? it->value + strlen(l->s->home) + (streq(l->s->home, "/") ? 0 : 1)
                              : NULL;
        _cleanup_free_ char *guest = rel ? cordon_lower_agent_guest_path(l, rel) : NULL;
        _cleanup_free_ char *host = NULL;
        bool rw = false;
        struct stat st;
        if (!guest || host_of(l, guest, false, &host, &rw) == -ENOMEM)
                return false;
        return !rw && (!host || (cordon_lower_lstat(l, host, &st) < 0 && errno == ENOENT));
}

int cordon_lower_agents_blocked(struct lower *l, struct cordon_list *ret)
{
        bool any = false;
        CORDON_LIST_FOREACH (it, &l->s->blocked_files)
                any = any || unneeded_instructions(l, it);
        if (!any)
                return 0;
        CORDON_LIST_FOREACH (it, &l->s->blocked_files) {
                int r =
                    unneeded_instructions(l, it) ? 0 : cordon_list_add(ret, it->value, it->origin);
                if (r < 0)
                        return r;
        }
        return 1;
}

/* One file of commands (@dir false) or directory of programs (@dir true) the sandbox could
 * write: a private copy of the file, the directory bound read-only. A file of commands in the
 * agent's read-only directory is a copy as well, so that the agent can still change its
 * settings for the session. Neither is ns-only: the landlock backend grants a copy as the host
 * file, read-only. A mount cannot cover a symlink, which the sandbox could then replace: such an
 * entry is left with a warning (refusing would stop every user who keeps these as links into a
 * dotfiles repository). */
static int protect_one(struct lower *l, const struct cordon_agent_profile *a,
                       const struct cordon_item *it, bool dir)
{
        _cleanup_free_ char *guest = cordon_lower_agent_guest_path(l, it->value), *host = NULL;
        if (!guest)
                return -ENOMEM;
        bool rw = false;
        int r = host_of(l, guest, false, &host, &rw);
        if (r == -ENOENT || (r >= 0 && !rw && (dir || !in_agent_dir(a, it->value))))
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
        return cordon_lower_put(l, guest, host, dir ? CORDON_ACCESS_RO : CORDON_ACCESS_COPY, 0,
                                it->origin);
}

int cordon_lower_agents_protect(struct lower *l)
{
        int r = cordon_lower_agents_project(l);
        if (r < 0 || !planning_applies(l))
                return r;
        for (size_t i = 0; i < l->s->n_agents; i++) {
                const struct cordon_agent_profile *a = &l->s->agents[i];
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_EXEC_CONFIG])
                        if ((r = protect_one(l, a, it, false)) < 0)
                                return r;
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_EXEC_DIR])
                        if ((r = protect_one(l, a, it, true)) < 0)
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
        _cleanup_free_ char *guest = cordon_lower_agent_guest_path(l, it->value), *host = NULL;
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
        if (!l->home_guest || !cordon_backend_traits(l->s->backend)->mount_ns)
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

/* Where variable @var (config_dir_var's "NAME=PATH") of agent @a points inside: below its
 * private home @h when there is one (the first variable names the home; another one's PATH
 * lies below the first's), else at $HOME/PATH. */
static char *config_dir_of(const struct lower *l, const struct cordon_agent_profile *a,
                           const struct cordon_agent_home *h, const char *var)
{
        const char *path = strchr(var, '=') + 1;
        const char *first = strchr(a->items[CORDON_PROFILE_CONFIG_DIR_VAR].items[0].value, '=') + 1;
        if (h && (streq(path, first) || streq(first, ".")))
                return streq(path, first) ? strdup(h->root) : path_join(h->root, path);
        if (h && path_is_below(path, first))
                return path_join(h->root, path + strlen(first) + 1);
        return cordon_lower_agent_guest_path(l, path);
}

int cordon_lower_agents_env(struct lower *l)
{
        if (!l->home_guest)
                return 0;
        for (size_t i = 0; i < l->s->n_agents; i++) {
                const struct cordon_agent_profile *a = &l->s->agents[i];
                /* The agent's private home when it has one (lower-agent-home.c). */
                const struct cordon_agent_home *h = cordon_lower_agent_home(l, a->name);
                CORDON_LIST_FOREACH (it, &a->items[CORDON_PROFILE_CONFIG_DIR_VAR]) {
                        const char *eq = strchr(it->value, '=');
                        _cleanup_free_ char *dir = eq ? config_dir_of(l, a, h, it->value) : NULL;
                        _cleanup_free_ char *assignment = NULL;
                        if (!dir || asprintf(&assignment, "%.*s=%s", (int)(eq - it->value),
                                             it->value, dir) < 0)
                                return -ENOMEM;
                        int r = cordon_list_add(&l->p->env_rules.set, assignment, it->origin);
                        if (r < 0)
                                return r;
                }
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
                /* Nothing to log in to where the agent is not installed. */
                if (cordon_list_find(&l->s->suppress_agent_warnings, a->name) ||
                    (creds->n == 0 && auth->n == 0) ||
                    (l->home_real && !cordon_lower_agent_installed(l, i)))
                        continue;
                bool reachable = false;
                CORDON_LIST_FOREACH (it, creds)
                        reachable |= env_has(l->p->envp, it->value);
                CORDON_LIST_FOREACH (it, auth) {
                        _cleanup_free_ char *guest =
                            l->home_guest ? cordon_lower_agent_guest_path(l, it->value) : NULL;
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
                /* An agent folder's AGENT_LOGIN_HINT: printable, bounded (agent-folder.c). */
                int r = cordon_lower_warn(
                    l,
                    "agent %s will have to log in inside the sandbox (%s)%s%s; "
                    "SUPPRESS_AGENT_WARNINGS=(%s) or (all) silences this",
                    a->name, why, a->login_hint ? ": " : "", strempty(a->login_hint), a->name);
                if (r < 0)
                        return r;
        }
        return 0;
}
