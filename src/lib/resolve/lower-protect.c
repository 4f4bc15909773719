/* Lowering of what keeps a sandbox from leaving something behind for the host: git directories
 * (lower-git.c) and agent configuration (lower-agents.c) inside writable binds, masks over the
 * host's unix sockets, and pins that keep every protected path from being renamed away. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/config/config-files.h"
#include "lib/policy/backend-traits.h"
#include "lib/policy/diag.h"
#include "lib/policy/net-modes.h"
#include "lib/resolve/lower-internal.h"
#include "lib/resolve/proc-net-unix.h"
#include "lib/slurm/chaperon-log.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

/* Larger than any real table (about 100 bytes a socket); a bigger one is refused. */
#define PROC_NET_UNIX_MAX (8u << 20)

/* Directory @real read-only at @guest, for both backends (not CORDON_FS_NS_ONLY): the ns backend
 * binds it, the landlock backend carves the writable grant around it (landlock-host.c), so that
 * the directory holding it can get no new entries there either, and cannot rename it away. */
static int config_ro(struct lower *l, const char *guest, const char *real)
{
        return cordon_lower_put(l, guest, real, CORDON_ACCESS_RO, 0, "sandbox.conf");
}

/* The number of components of @path below @parent (which it lies strictly below). */
static unsigned depth_below(const char *path, const char *parent)
{
        unsigned n = 0;
        for (const char *c = path + (streq(parent, "/") ? 0 : strlen(parent)); *c; c++)
                n += *c == '/';
        return n;
}

/* A read-write bind strictly inside cordon's directory @real, which holds @what (a project of
 * ~/.config/cordon/conf.d, a writable path in ~/.config/agent-sandbox/agents/claude): a read-only
 * bind of the directory cannot cover it, so the start is refused. @writable_from (0: none) is
 * the depth below @real from which one is allowed: 2 in the session store's sessions/, where
 * sessions/NAME/root and the other trees of a session are its sandbox's to write, but not the
 * directory that holds them and the holder's record. */
static int refuse_writable_inside(struct lower *l, const char *real, const char *what,
                                  unsigned writable_from)
{
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->access != CORDON_ACCESS_RW || !r->host || streq(r->host, real) ||
                    !path_is_below(r->host, real))
                        continue;
                if (writable_from && depth_below(r->host, real) >= writable_from)
                        continue;
                return cordon_diag_set(l->diag, -EPERM,
                                       "'%s' (from %s) is writable inside '%s', where cordon keeps "
                                       "%s; a sandbox must not write there: choose a directory "
                                       "elsewhere",
                                       r->host, r->origin, real, what);
        }
        return 0;
}

/* cordon's own configuration (~/.config/cordon: sandbox.conf, conf.d, profiles, agents) and the
 * agent-sandbox files it reads in their place (sandbox.conf, conf.d, agents/<name>/) are bash run
 * at the next start or settings merged into an agent's, so a sandbox that can write there (a
 * project of ~ or ~/.config, HOME_ACCESS=write, a writable extra path over it) would choose the
 * next sandbox's confinement. The chaperon's state (~/.local/state/cordon/chaperon: the job
 * registry, which decides what SLURM_SCOPE lets a later sandbox see and cancel, the jobs'
 * spooled scripts, the logs) is read back by the chaperon on the host, so the same holds; and so
 * does the session daemon's store beside it (serve-store.c): sessions/NAME/ holds a holder's
 * record, which the daemon reads back to re-adopt the session, and snapshots/ the archives and
 * records it lists as genuine and a later session restores. Where the sandbox can write one, it
 * is bound read-only; a missing one is made first (empty, 0700; the state directories with
 * their parent) so the sandbox cannot create it; a writable path inside one refuses the start,
 * except a session's own trees (sessions/NAME/root, .../outputs: its project and its outputs,
 * which its sandbox writes). */
/* One of them: directory @dir (a host path) in @parent, at @guest inside, holding @what;
 * @make_parent: a missing parent is made too (mkdir -p), so that the directory can be made 0700
 * before the sandbox starts; @writable_from: refuse_writable_inside()'s. */
static int protect_dir(struct lower *l, const char *dir, const char *parent, const char *guest,
                       const char *what, bool make_parent, unsigned writable_from)
{
        struct stat st;
        bool exists = cordon_lower_lstat(l, dir, &st) >= 0;
        if (!exists && errno != ENOENT)
                return 0;
        int r;
        if (exists && S_ISLNK(st.st_mode)) {
                /* A link into a dotfiles repository, say: its target is what the next start
                 * reads, so the target is what is kept read-only (writable binds sit at their
                 * host paths). A link that leads nowhere could be given a target by the sandbox:
                 * refused. */
                _cleanup_free_ char *real = cordon_lower_host_realpath(l, dir);
                if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
                        return cordon_diag_set(
                            l->diag, -ELOOP,
                            "'%s' is a symbolic link that does not lead to a directory; cordon "
                            "keeps %s there, so a sandbox could create it: make the target "
                            "directory or remove the link",
                            dir, what);
                /* A mount cannot cover the link itself: where the sandbox can write beside it,
                 * it could put a directory of its own there. */
                if (cordon_lower_sandbox_can_write(l, parent))
                        return cordon_diag_set(
                            l->diag, -ELOOP,
                            "'%s' is a symbolic link in a directory the sandbox can write, which "
                            "could replace it with one of its own for cordon's next start: make "
                            "it a directory, or do not give the sandbox '%s'",
                            dir, parent);
                if ((r = refuse_writable_inside(l, real, what, writable_from)) < 0 ||
                    (cordon_lower_sandbox_can_write(l, real) && (r = config_ro(l, real, real)) < 0))
                        return r;
                return 0;
        }
        if (exists) {
                /* ~/.config may itself be a link: the binds name real paths. */
                _cleanup_free_ char *real = cordon_lower_host_realpath(l, dir);
                if ((r = refuse_writable_inside(l, real ? real : dir, what, writable_from)) < 0)
                        return r;
        }
        if (!cordon_lower_sandbox_can_write(l, exists ? dir : parent))
                return 0;
        if (!exists) {
                if (make_parent && cordon_lower_lstat(l, parent, &st) < 0 && errno == ENOENT &&
                    (r = cordon_lower_plan_mkdir_p(l, parent, "sandbox.conf")) < 0)
                        return r;
                if (cordon_lower_lstat(l, parent, &st) < 0 || !S_ISDIR(st.st_mode))
                        return 0; /* no parent to create it in: nothing to plant into */
                /* Silently, like the HOME_WRITABLE directories: an empty directory of cordon's
                 * own. */
                r = cordon_lower_plan(l, CORDON_HOST_MKDIR, dir, 0700, NULL, "sandbox.conf", NULL);
                if (r < 0)
                        return r;
        }
        return config_ro(l, guest, dir);
}

/* cordon's state directory, the parent of the chaperon's, found as the chaperon finds it from
 * the same environment (cordon_chaperon_log_dir(): $XDG_STATE_HOME/cordon, else
 * $HOME/.local/state/cordon; the session daemon's store finds it the same way), its base
 * followed to its host path; where the sandbox sees it (below the home, the home's guest path).
 * 0 with nothing set where there is no such directory (no absolute base: neither keeps one). */
static int state_dir(struct lower *l, char **ret_dir, char **ret_guest)
{
        const char *base = NULL, *sub = NULL;
        struct cordon_diag ignored = {0};
        if (cordon_chaperon_log_dir(cordon_config_getenv(l->h->envp, "XDG_STATE_HOME"),
                                    cordon_config_getenv(l->h->envp, "HOME"), &base, &sub,
                                    &ignored) < 0)
                return 0;
        _cleanup_free_ char *real = cordon_lower_host_realpath(l, base);
        if (!real && errno == ENOMEM)
                return -ENOMEM;
        if (!real && path_normalize(base, &real) < 0)
                return -ENOMEM;
        _cleanup_free_ char *dir = path_join(real, sub);
        if (!dir)
                return -ENOMEM;
        *strrchr(dir, '/') = 0; /* sub ends in "/chaperon" */
        char *guest = NULL;
        if (l->home_real && l->home_guest && path_is_below(dir, l->home_real))
                guest = cordon_lower_guest_of(l, dir);
        else
                guest = strdup(dir);
        if (!guest)
                return -ENOMEM;
        *ret_dir = TAKE_PTR(dir);
        *ret_guest = guest;
        return 0;
}

static int protect_config(struct lower *l)
{
        static const char *const dirs[] = {".config/cordon", ".config/agent-sandbox"};
        static const char config_what[] =
            "its configuration and agent folders (bash the next start runs)";
        int r;
        for (size_t i = 0; l->home_real && i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *dir = path_join(l->home_real, dirs[i]);
                _cleanup_free_ char *parent = path_join(l->home_real, ".config");
                _cleanup_free_ char *guest =
                    path_join(l->home_guest ? l->home_guest : l->home_real, dirs[i]);
                if (!dir || !parent || !guest)
                        return -ENOMEM;
                if ((r = protect_dir(l, dir, parent, guest, config_what, false, 0)) < 0)
                        return r;
        }
        /* The chaperon's state and the session store's directories, made with their parent. */
        static const struct {
                const char *name, *what;
                unsigned writable_from;
        } state[] = {
            {"chaperon", "the chaperon's state (the job registry, the jobs' scripts, the logs)", 0},
            {"sessions", "the session daemon's sessions (their holders' records)", 2},
            {"snapshots", "the session daemon's snapshots (archives a session restores)", 0},
        };
        _cleanup_free_ char *sdir = NULL, *sguest = NULL;
        if ((r = state_dir(l, &sdir, &sguest)) < 0 || !sdir)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(state); i++) {
                _cleanup_free_ char *dir = path_join(sdir, state[i].name);
                _cleanup_free_ char *guest = path_join(sguest, state[i].name);
                if (!dir || !guest)
                        return -ENOMEM;
                if ((r = protect_dir(l, dir, sdir, guest, state[i].what, true,
                                     state[i].writable_from)) < 0)
                        return r;
        }
        return 0;
}

/* The admin baselines (/app/lib/agent-sandbox, /etc/cordon) are read when they are root's and in
 * directories only root can write. A sandbox run by root makes root's files: where it can write
 * the directory of one, or the nearest existing directory on the way to a missing one (a
 * project at /app, --rw /etc), it could create a baseline that the next start of every user
 * obeys, with a program it runs on the host (NETWORK_FILTER_HELPER). So for root, such a
 * directory is bound read-only, made first where missing (empty, 0755 as an admin would make it,
 * and announced: it may land in the project). A link on the way is left: the loader opens every
 * component without following one, and refuses. */
static int protect_admin_dirs(struct lower *l)
{
        static const char *const files[] = {CORDON_AGENT_SANDBOX_ADMIN_CONF_PATH,
                                            CORDON_ADMIN_CONF_PATH};
        if (l->h->uid != 0)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *dir = strdup(files[i]);
                _cleanup_free_ char *have = dir ? strdup(files[i]) : NULL;
                if (!have)
                        return -ENOMEM;
                *strrchr(dir, '/') = 0;
                *strrchr(have, '/') = 0;
                struct stat st;
                int r;
                /* The nearest directory of the way that exists ("/" at the last). */
                while ((r = cordon_lower_lstat(l, have, &st)) < 0 && errno == ENOENT) {
                        char *slash = strrchr(have, '/');
                        slash[slash == have] = 0;
                }
                if (r < 0 || !S_ISDIR(st.st_mode) || !cordon_lower_sandbox_can_write(l, have))
                        continue;
                for (size_t n = streq(have, "/") ? 0 : strlen(have); n < strlen(dir);) {
                        const char *e = strchrnul(dir + n + 1, '/');
                        _cleanup_free_ char *cur = strndup(dir, (size_t)(e - dir));
                        _cleanup_free_ char *line = NULL;
                        if (!cur || asprintf(&line,
                                             "created '%s' (empty, root's) so that this sandbox, "
                                             "run as root, cannot create an admin baseline there",
                                             cur) < 0)
                                return -ENOMEM;
                        if ((r = cordon_lower_plan(l, CORDON_HOST_MKDIR, cur, 0755, NULL,
                                                   "admin baseline", line)) < 0)
                                return r;
                        n = (size_t)(e - dir);
                }
                if ((r = config_ro(l, dir, dir)) < 0)
                        return r;
        }
        return 0;
}

static bool below_any(const struct lower *l, const struct cordon_list *roots, const char *real)
{
        CORDON_LIST_FOREACH (it, roots) {
                _cleanup_free_ char *named = cordon_lower_host_realpath(l, it->value);
                if (named && path_is_below(real, named))
                        return true;
        }
        return false;
}

/* True when @real lies below a path the user named: an --rw or --ro entry, the project, or a
 * root of a capability policy. */
static bool named_by_user(const struct lower *l, const char *real)
{
        if (l->p->project_dir && path_is_below(real, l->p->project_dir))
                return true;
        if (below_any(l, &l->s->workspace_roots, real) ||
            below_any(l, &l->s->read_only_roots, real) || below_any(l, &l->s->read_roots, real) ||
            below_any(l, &l->s->write_roots, real))
                return true;
        const struct cordon_list *lists[] = {&l->s->extra_writable_paths, &l->s->readonly_mounts};
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                CORDON_LIST_FOREACH (it, lists[i]) {
                        if (cordon_lower_is_builtin(it->origin))
                                continue;
                        _cleanup_free_ char *named = cordon_lower_host_realpath(l, it->value);
                        if (named && path_is_below(real, named))
                                return true;
                }
        return false;
}

/* Hides host socket @real at every guest path where a bind shows it. */
static int mask_socket(struct lower *l, const char *real)
{
        size_t n = l->p->n_fs;
        for (size_t i = 0; i < n; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (!r->host || !cordon_access_is_bind(r->access) || !path_is_below(real, r->host))
                        continue;
                const char *suffix = real + strlen(r->host);
                _cleanup_free_ char *guest = *suffix ? path_join(r->guest, suffix) : NULL;
                _cleanup_free_ char *norm = NULL;
                if (!guest || path_normalize(guest, &norm) < 0)
                        return -ENOMEM;
                int k = cordon_lower_put(l, norm, NULL, CORDON_ACCESS_MASKED,
                                         CORDON_FS_NS_ONLY | CORDON_FS_UNREACHABLE_SKIPS,
                                         "unix socket");
                if (k < 0)
                        return k;
        }
        return 0;
}

/* A read-only bind does not stop connect(): every bound unix socket of the host that a bind
 * would show is masked, except below a path the user named, where it is left with a warning.
 * /proc/net/unix lists the sockets of the caller's network namespace only; sockets of other
 * namespaces stay visible. Landlock's own right for this (LANDLOCK_ACCESS_FS_RESOLVE_UNIX) is
 * younger than the kernels this runs on; the landlock backend refuses socket() anyway. */
static int mask_unix_sockets(struct lower *l, const char *table)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_full_file(table, PROC_NET_UNIX_MAX, &text, &len);
        if (r == -ENOENT)
                return 0; /* no procfs or no unix sockets in this kernel: nothing to find */
        _cleanup_strv_free_ char **paths = NULL;
        if (r >= 0)
                r = cordon_proc_net_unix_parse(text, len, &paths);
        if (r < 0)
                return cordon_diag_set(l->diag, r,
                                       "cannot list the host's unix sockets in %s to hide them: %s",
                                       table, strerror(-r));
        STRV_FOREACH (it, paths) {
                struct stat st;
                /* Stale entries (the file was removed) and paths of other mount namespaces. */
                if (lstat(*it, &st) < 0 || !S_ISSOCK(st.st_mode))
                        continue;
                _cleanup_free_ char *real = cordon_lower_host_realpath(l, *it);
                if (!real)
                        continue;
                bool visible = false;
                for (size_t i = 0; i < l->p->n_fs && !visible; i++) {
                        const struct cordon_fs_rule *f = &l->p->fs[i];
                        visible = f->host && cordon_access_is_bind(f->access) &&
                                  path_is_below(real, f->host);
                }
                if (!visible)
                        continue;
                if (named_by_user(l, real))
                        r = cordon_lower_warn(l, "unix socket '%s' is reachable inside", real);
                else
                        r = mask_socket(l, real);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The rules added here are for the namespace backend only (CORDON_FS_NS_ONLY), except cordon's
 * own configuration. The landlock backend sees the host's files: a read-only file inside a
 * writable grant would take the rights to create anything in every directory around it, the
 * project root included; it leaves them writable, a gap cordon(1) documents (a warning on every
 * run would drown the others). cordon's configuration directories are worth that price: they
 * choose every later sandbox's confinement. It needs no socket masks: it refuses socket()
 * altogether. */
int cordon_lower_protect(struct lower *l)
{
        /* Git's protection refuses the landlock backend itself where it cannot be kept. */
        int r = cordon_lower_git(l);
        if (r < 0)
                return r;
        /* cordon's own configuration on both backends: the next start runs it. */
        if ((r = protect_config(l)) < 0 || (r = protect_admin_dirs(l)) < 0)
                return r;
        /* Both backends: the landlock one grants these read-only (agent profiles). */
        if ((r = cordon_lower_agents_protect(l)) < 0)
                return r;
        /* A backend without a network namespace (landlock) keeps the command's unix sockets
         * from the host's in every network mode with its socket rule (launch-landlock.c):
         * isolated refuses socket(AF_UNIX), proxied and open admit it where Landlock keeps host
         * sockets out by path or, before that, let it reach only the sockets the command bound
         * (supervisor/notify-unix.h). It has no use for the masks (mounts), and the run is
         * spared reading and parsing the host's whole socket table (every mode has a rule:
         * launch/net-mode-hooks.c, pinned by test-net-mode-hooks.c). */
        if (!cordon_backend_traits(l->s->backend)->net_ns)
                return 0;
        return mask_unix_sockets(l, l->h->proc_net_unix ?: "/proc/net/unix");
}

static bool needs_pins(const struct cordon_fs_rule *r)
{
        return r->access == CORDON_ACCESS_MASKED || r->access == CORDON_ACCESS_DATA ||
               (r->access == CORDON_ACCESS_RO && r->host);
}

/* Pins directory @guest with a bind onto itself, unless a rule already mounts something
 * there. What the sandbox sees there comes from the innermost bind above it, which need not be
 * the read-write one the pins start from (a read-only bind between them: --ro of a directory
 * of a writable home with a mask deeper in it): the pin takes that bind's host path and its
 * access, so it keeps the directory in place without making it writable or showing another. */
static int pin(struct lower *l, const char *guest, const char *origin)
{
        if (cordon_policy_find_fs(l->p, guest))
                return 0;
        const struct cordon_fs_rule *in = NULL;
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (path_is_below(guest, r->guest) && !streq(guest, r->guest) &&
                    (!in || strlen(r->guest) >= strlen(in->guest)))
                        in = r;
        }
        /* Below a mask, a tmpfs or anything but a host directory bound: nothing of the host's
         * to keep there. */
        if (!in || !in->host || (in->access != CORDON_ACCESS_RW && in->access != CORDON_ACCESS_RO))
                return 0;
        enum cordon_access access = in->access;
        _cleanup_free_ char *host =
            path_join(in->host, guest + (streq(in->guest, "/") ? 0 : strlen(in->guest)));
        if (!host)
                return -ENOMEM;
        _cleanup_free_ char *real = cordon_lower_realpath(l, host);
        struct stat st;
        /* Missing, or reached through a symlink: there is no directory of this name to keep. A
         * planned one is kept like one that is there. */
        if (!real || !streq(real, host) || cordon_lower_lstat(l, real, &st) < 0 ||
            !S_ISDIR(st.st_mode))
                return 0;
        return cordon_lower_put(l, guest, real, access,
                                CORDON_FS_NS_ONLY | CORDON_FS_UNREACHABLE_SKIPS, origin);
}

/* A mount sits on one dentry: renaming a directory above it carries it away, and the next run,
 * which finds paths by name, protects nothing at the old name. A directory that is a mount
 * point in the sandbox's namespace cannot be renamed or removed (EBUSY), so every directory
 * between a read-write bind and a rule inside it becomes one. */
int cordon_lower_pins(struct lower *l)
{
        size_t n = l->p->n_fs;
        for (size_t i = 0; i < n; i++) {
                if (l->p->fs[i].access != CORDON_ACCESS_RW || !l->p->fs[i].host)
                        continue;
                for (size_t j = 0; j < n; j++) {
                        /* Copies: pin() adds rules, which may move the array. */
                        const struct cordon_fs_rule *w = &l->p->fs[i], *q = &l->p->fs[j];
                        if (!needs_pins(q) || !path_is_below(q->guest, w->guest) ||
                            streq(q->guest, w->guest))
                                continue;
                        _cleanup_free_ char *target = strdup(q->guest);
                        _cleanup_free_ char *origin = NULL;
                        if (!target || asprintf(&origin, "kept in place for '%s'", q->guest) < 0)
                                return -ENOMEM;
                        /* Each '/' after the root ends one directory on the way down. */
                        size_t start = streq(w->guest, "/") ? 0 : strlen(w->guest);
                        for (char *c = target + start + 1; (c = strchr(c, '/')); c++) {
                                *c = 0;
                                int r = pin(l, target, origin);
                                *c = '/';
                                if (r < 0)
                                        return r;
                        }
                }
        }
        return 0;
}
