/* Lowering of the sandbox.conf model into a policy: resolves host paths, applies HOME_ACCESS,
 * maps every blocked path to each place it is visible inside, and builds the environment. */
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/policy/diag.h"
#include "lib/policy/output-file.h"
#include "lib/resolve/env-filter.h"
#include "lib/resolve/host-action.h"
#include "lib/resolve/lower-internal.h"
#include "lib/policy/net-modes.h"
#include "lib/resolve/passwd-filter.h"
#include "lib/policy/policy.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define BUILTIN CORDON_BUILTIN

_printf_(2, 3) int cordon_lower_warn(struct lower *l, const char *fmt, ...)
{
        char *m = NULL;
        va_list ap;
        va_start(ap, fmt);
        int k = vasprintf(&m, fmt, ap);
        va_end(ap);
        return k < 0 ? -ENOMEM : strv_consume(&l->warnings, m);
}

/* Absolute, lexically normalised form of @path (relative ones are taken from the caller's
 * working directory); ".." is resolved by realpath only where the path exists. */
int cordon_lower_absolute(struct lower *l, const char *path, char **ret)
{
        _cleanup_free_ char *joined =
            path_is_absolute(path) ? strdup(path) : path_join(l->h->cwd, path);
        if (!joined)
                return -ENOMEM;
        int r = path_normalize(joined, ret);
        if (r == -EINVAL) {
                /* ".." components: only realpath can say where they lead. */
                char *real = realpath(joined, NULL);
                if (!real)
                        return -errno;
                *ret = real;
                return 0;
        }
        return r;
}

/* Adds a rule, replacing an earlier non-mask rule for the same guest path: later sources
 * (flags after defaults) win. */
int cordon_lower_put(struct lower *l, const char *guest, const char *host,
                     enum cordon_access access, unsigned flags, const char *origin)
{
        struct cordon_policy *p = l->p;
        if (access != CORDON_ACCESS_MASKED)
                for (size_t i = 0; i < p->n_fs; i++) {
                        struct cordon_fs_rule *r = &p->fs[i];
                        if (r->access == CORDON_ACCESS_MASKED || !streq(r->guest, guest))
                                continue;
                        char *h = host ? strdup(host) : NULL, *o = strdup(origin);
                        if ((host && !h) || !o) {
                                free(h);
                                free(o);
                                return -ENOMEM;
                        }
                        free(r->host);
                        free(r->origin);
                        *r = (struct cordon_fs_rule){.guest = r->guest,
                                                     .host = h,
                                                     .access = access,
                                                     .flags = flags,
                                                     .origin = o};
                        return 0;
                }
        else
                /* Already masked there (a configuration copy may lie over the mask). */
                for (size_t i = 0; i < p->n_fs; i++)
                        if (p->fs[i].access == CORDON_ACCESS_MASKED && streq(p->fs[i].guest, guest))
                                return 0;
        return cordon_policy_add_fs(p, guest, host, access, flags, origin);
}

bool cordon_lower_sandbox_can_write(const struct lower *l, const char *host)
{
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->access == CORDON_ACCESS_RW && r->host && path_is_below(host, r->host))
                        return true;
        }
        return false;
}

/* True when some sandbox could write directory @dir (a host realpath) and so could have planted a
 * symlink there: @dir is at or below a read-write bind of the policy being lowered, or strictly
 * below an allowed project parent, where it is, or lies inside, a possible project of another
 * run. The parents themselves are never projects, nor are the home directories and their
 * parents (lower_project() refuses them), so no project contains those. */
static bool sandbox_could_write(const struct lower *l, const char *dir)
{
        if (cordon_lower_sandbox_can_write(l, dir))
                return true;
        if ((l->home_real && path_is_below(l->home_real, dir)) ||
            (l->account_home_real && path_is_below(l->account_home_real, dir)))
                return false;
        CORDON_LIST_FOREACH (it, &l->s->allowed_project_parents) {
                _cleanup_free_ char *parent = cordon_lower_parent_realpath(l, it->value);
                if (parent && path_is_below(dir, parent) && !streq(dir, parent))
                        return true;
        }
        return false;
}

/* What sandbox_could_write() knows beyond the policy's binds, kept in the policy for the files
 * written on the host after the lowering (cordon_policy_could_write_dir()). */
static int lower_link_dirs(struct lower *l)
{
        int r;
        CORDON_LIST_FOREACH (it, &l->s->allowed_project_parents) {
                _cleanup_free_ char *parent = cordon_lower_parent_realpath(l, it->value);
                if (parent && (r = strv_extend(&l->p->link_parents, parent)) < 0)
                        return r;
        }
        if ((l->home_real && (r = strv_extend(&l->p->link_homes, l->home_real)) < 0) ||
            (l->account_home_real &&
             (r = strv_extend(&l->p->link_homes, l->account_home_real)) < 0))
                return r;
        return 0;
}

static bool could_write(const char *dir, const void *userdata)
{
        return sandbox_could_write(userdata, dir);
}

/* cordon_path_find_link() with this lowering's notion of where a sandbox could write. */
int cordon_lower_find_planted_link(struct lower *l, const char *path, char **ret_link,
                                   char **ret_target)
{
        if (!path_is_absolute(path) && !l->h->cwd)
                return 0;
        return cordon_path_find_link(path, l->h->cwd, could_write, l, ret_link, ret_target);
}

/* Refuses @path (an entry of @variable) when it passes through a symlink some sandbox could
 * have planted: a link `sub -> ~` left in a project would otherwise turn a later bind of "sub"
 * into all of the home directory. */
static int refuse_planted_link(struct lower *l, const char *path, const char *what,
                               const char *origin)
{
        _cleanup_free_ char *link = NULL, *target = NULL;
        int r = cordon_lower_find_planted_link(l, path, &link, &target);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "%s '%s' (from %s): %s", what, path, origin,
                                       strerror(-r));
        if (r > 0)
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '%s' (from %s) goes through symlink '%s' -> '%s' in a "
                                       "directory a sandbox can write; name the resolved path "
                                       "instead",
                                       what, path, origin, link, target);
        return 0;
}

/* The mounts the sandbox makes for itself: a bind over them would silently replace them with
 * the host's (its processes, all of its devices, every other program's /tmp). */
static int refuse_private_mount(struct lower *l, const char *path, const char *given,
                                const char *variable, const char *origin)
{
        const char *what = NULL, *hint = NULL;
        if (path_is_below(path, "/proc"))
                what = "/proc", hint = "it cannot be bound";
        else if (path_is_below(path, "/dev"))
                what = "/dev", hint = "expose device nodes through DEVICES";
        else if (l->s->private_tmp && streq(path, "/tmp"))
                what = "/tmp", hint = "turn PRIVATE_TMP off to share the host's /tmp";
        if (!what)
                return 0;
        return cordon_diag_set(l->diag, -EINVAL,
                               "%s entry '%s' (from %s) would replace the sandbox's own %s; %s",
                               variable, given, origin, what, hint);
}

/* True when @real is already visible read-only or read-write at the same path via a bind. */
static bool covered(struct lower *l, const char *real, enum cordon_access access)
{
        for (size_t i = 0; i < l->p->n_fs; i++) {
                const struct cordon_fs_rule *r = &l->p->fs[i];
                if (r->access == access && r->host && streq(r->host, r->guest) &&
                    path_is_below(real, r->host))
                        return true;
        }
        return false;
}

/* bind_same_path()'s answer for a grant whose path does not exist, with @missing_ok. */
#define BIND_MISSING 1

/* Binds host @path at the same path inside. A symlink is recreated as a symlink and its target
 * bound as well (the usr-merge links /bin, /lib, ... come out right this way). A missing path
 * (ENOENT, a dangling symlink included) is skipped for a built-in entry, BIND_MISSING with
 * @missing_ok (nothing bound, no message), else an error; any other failure is an error. */
static int bind_same_path(struct lower *l, const char *path, const struct stat *lstated,
                          enum cordon_access access, const char *origin, const char *variable,
                          bool missing_ok)
{
        _cleanup_free_ char *abs = NULL;
        int r = cordon_lower_absolute(l, path, &abs);
        struct stat st;
        /* @lstated: what lstat() of @path gave the caller, good for @abs if it is the same. */
        bool known = r >= 0 && lstated && streq(abs, path);
        if (known)
                st = *lstated;
        else if (r >= 0 && cordon_lower_lstat(l, abs, &st) < 0)
                r = -errno;
        if (r < 0) {
                if (r == -ENOENT && cordon_lower_is_builtin(origin))
                        return 0;
                if (r == -ENOENT && missing_ok)
                        return BIND_MISSING;
                return cordon_diag_set(l->diag, r, "%s entry '%s' (from %s): %s", variable, path,
                                       origin, strerror(-r));
        }
        if (streq(abs, "/"))
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s entry '%s' (from %s): the host root cannot be bound",
                                       variable, path, origin);
        _cleanup_free_ char *real = cordon_lower_realpath_lstated(l, abs, known ? &st : NULL);
        /* A symlink to nothing grants nothing either (so would a path removed since lstat()):
         * a built-in entry is skipped, as a missing one is. */
        if (!real && errno == ENOENT && cordon_lower_is_builtin(origin))
                return 0;
        if (!real && errno == ENOENT && missing_ok)
                return BIND_MISSING;
        if (!real)
                return cordon_diag_set(l->diag, -errno, "%s entry '%s' (from %s): %m", variable,
                                       path, origin);
        if (!cordon_lower_is_builtin(origin) &&
            ((r = refuse_private_mount(l, abs, path, variable, origin)) < 0 ||
             (r = refuse_private_mount(l, real, path, variable, origin)) < 0))
                return r;
        if (S_ISLNK(st.st_mode)) {
                char target[PATH_MAX];
                ssize_t n = readlink(abs, target, sizeof(target) - 1);
                if (n < 0)
                        return cordon_diag_set(l->diag, -errno, "%s entry '%s': %m", variable,
                                               path);
                target[n] = 0;
                r = cordon_lower_put(l, abs, target, CORDON_ACCESS_SYMLINK, 0, origin);
                if (r < 0)
                        return r;
                if (covered(l, real, access))
                        return 0;
        }
        if (streq(real, "/"))
                return cordon_diag_set(l->diag, -EINVAL,
                                       "%s entry '%s' (from %s): the host root cannot be bound",
                                       variable, path, origin);
        r = cordon_lower_put(l, real, real, access, 0, origin);
        return r < 0 ? r : 0; /* never BIND_MISSING */
}

int cordon_lower_bind_same_path(struct lower *l, const char *path, enum cordon_access access,
                                const char *origin, const char *variable)
{
        return bind_same_path(l, path, NULL, access, origin, variable, false);
}

/* What a directory the sandbox may write must not be (@real resolved, @what names it in the
 * message): the root, the home or a parent of it, or anything not strictly below an allowed
 * project parent. The project directory and every writable root of a capability policy are
 * held to it alike. */
int cordon_lower_check_writable_root(struct lower *l, const char *real, const char *what)
{
        const struct cordon_settings *s = l->s;
        if (streq(real, "/"))
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '/' is not allowed: it would make the whole host "
                                       "writable",
                                       what);
        /* Checked on the resolved path, against $HOME and the account's home alike. */
        const char *const homes[] = {l->home_real, l->account_home_real};
        for (size_t i = 0; i < ELEMENTSOF(homes); i++) {
                if (!homes[i] || !path_is_below(homes[i], real))
                        continue;
                if (streq(real, homes[i]))
                        return cordon_diag_set(l->diag, -EPERM,
                                               "%s '%s' is the home directory; use a "
                                               "directory below it",
                                               what, real);
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '%s' is a parent of the home directory '%s'; use a "
                                       "directory below the home directory",
                                       what, real, homes[i]);
        }

        bool allowed = false;
        char list[1024] = "";
        CORDON_LIST_FOREACH (it, &s->allowed_project_parents) {
                _cleanup_free_ char *parent = cordon_lower_parent_realpath(l, it->value);
                if (strlen(list) + strlen(it->value) + 3 < sizeof(list)) {
                        if (*list)
                                strcat(list, ", ");
                        strcat(list, it->value);
                }
                /* Strictly below: /tmp itself would share every other program's files. */
                if (parent && path_is_below(real, parent) && !streq(real, parent))
                        allowed = true;
        }
        if (!allowed)
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '%s' is not below an allowed parent (%s; the "
                                       "parent itself does not count); add one to "
                                       "ALLOWED_PROJECT_PARENTS",
                                       what, real, *list ? list : "none");

        /* The admin baseline's DENIED_WRITABLE_PATHS (the working directory as project is only
         * known here). */
        const struct cordon_item *hit = NULL;
        int r = cordon_settings_path_denied(&s->denied_writable_paths, real, &hit);
        if (r < 0)
                return r;
        if (r > 0)
                return cordon_diag_set(l->diag, -EPERM,
                                       "%s '%s' overlaps admin-denied DENIED_WRITABLE_PATHS "
                                       "entry '%s' (from %s)",
                                       what, real, hit->value, hit->origin);

        return 0;
}

static int lower_project(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        const char *given = s->project_dir ?: l->h->cwd;
        const char *origin = s->project_dir ? strempty(s->project_dir_origin) : "working directory";
        /* The path as given, before anything resolves it: a link on the way that an earlier
         * sandbox could have planted would hand this one another directory. The working
         * directory comes from getcwd() and has no links. */
        int r = refuse_planted_link(l, given, "project directory", origin);
        if (r < 0)
                return r;
        _cleanup_free_ char *abs = NULL;
        r = cordon_lower_absolute(l, given, &abs);
        _cleanup_free_ char *real = r >= 0 ? cordon_lower_host_realpath(l, abs) : NULL;
        if (!real)
                return cordon_diag_set(l->diag, r < 0 ? r : -errno,
                                       "project directory '%s' (from %s): %s", given, origin,
                                       strerror(r < 0 ? -r : errno));
        struct stat st;
        if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
                return cordon_diag_set(l->diag, -ENOTDIR,
                                       "project directory '%s' is not a directory", real);
        if ((r = cordon_lower_check_writable_root(l, real, "project directory")) < 0)
                return r;

        r = cordon_lower_put(l, real, real, CORDON_ACCESS_RW, 0, origin);
        if (r < 0)
                return r;
        l->p->project_dir = strdup(real);
        return cordon_policy_set_cwd(l->p, real);
}

/* READONLY_MOUNTS and EXTRA_WRITABLE_PATHS given by the user, once every read-write bind (the
 * project's included) is known: a link planted in any of them is refused. */
static int check_user_binds(struct lower *l)
{
        const struct cordon_list *lists[] = {&l->s->readonly_mounts, &l->s->extra_writable_paths};
        const char *const variables[] = {"READONLY_MOUNTS entry", "EXTRA_WRITABLE_PATHS entry"};
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                CORDON_LIST_FOREACH (it, lists[i]) {
                        if (cordon_lower_is_builtin(it->origin))
                                continue;
                        int r = refuse_planted_link(l, it->value, variables[i], it->origin);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static int lower_passwd(struct lower *l)
{
        const struct cordon_host *h = l->h;
        /* The landlock backend has no mount namespace to put the filtered files in (a gap
         * `cordon doctor` lists); skip the lookups it would throw away. */
        if (!l->s->filter_passwd || !cordon_policy_find_fs(l->p, "/etc") ||
            l->s->backend == CORDON_BACKEND_LANDLOCK)
                return 0;
        _cleanup_free_ char *pw = NULL, *gr = NULL, *pw_out = NULL, *gr_out = NULL;
        _cleanup_free_ char *self_pw = NULL, *self_gr = NULL;
        int r = read_full_file(h->passwd_path ?: "/etc/passwd", 16u << 20, &pw, NULL);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "cannot read the passwd database: %s",
                                       strerror(-r));
        r = read_full_file(h->group_path ?: "/etc/group", 16u << 20, &gr, NULL);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "cannot read the group database: %s",
                                       strerror(-r));

        /* The caller's own entries: the files' lines when they have them (kept by the filter
         * as they are), else from NSS, for directory users. NSS only when needed: its lookup
         * code is a good part of libc, which the supervisor would otherwise keep mapped. */
        if (!cordon_passwd_db_has_id(pw, h->uid)) {
                struct passwd *pwd = getpwuid(h->uid);
                if (pwd)
                        r = asprintf(&self_pw, "%s:x:%u:%u:%s:%s:%s", pwd->pw_name,
                                     (unsigned)pwd->pw_uid, (unsigned)pwd->pw_gid,
                                     strempty(pwd->pw_gecos), strempty(pwd->pw_dir),
                                     strempty(pwd->pw_shell));
                else
                        r = asprintf(&self_pw, "user:x:%u:%u::%s:/bin/sh", (unsigned)h->uid,
                                     (unsigned)h->gid, l->home_guest ?: "/");
                if (r < 0)
                        return -ENOMEM;
        }
        if (!cordon_passwd_db_has_id(gr, h->gid)) {
                struct group *grp = getgrgid(h->gid);
                if (asprintf(&self_gr, "%s:x:%u:", grp ? grp->gr_name : "user", (unsigned)h->gid) <
                    0)
                        return -ENOMEM;
        }
        if ((r = cordon_passwd_filter(pw, h->uid, self_pw, &pw_out)) < 0 ||
            (r = cordon_group_filter(gr, h->gid, self_gr, &gr_out)) < 0)
                return r;
        if ((r = cordon_lower_put(l, "/etc/passwd", pw_out, CORDON_ACCESS_DATA, 0,
                                  "FILTER_PASSWD")) < 0 ||
            (r = cordon_lower_put(l, "/etc/group", gr_out, CORDON_ACCESS_DATA, 0,
                                  "FILTER_PASSWD")) < 0 ||
            (r = cordon_lower_put(l, "/etc/nsswitch.conf", cordon_nsswitch_files_only(),
                                  CORDON_ACCESS_DATA, 0, "FILTER_PASSWD")) < 0)
                return r;
        /* Password hashes are empty inside: a sandbox started by root would otherwise read
         * them, as the owner of the files (that needs no capability). */
        static const char *const shadows[] = {"/etc/shadow", "/etc/gshadow"};
        for (size_t i = 0; i < ELEMENTSOF(shadows); i++) {
                struct stat st;
                if (lstat(shadows[i], &st) == 0 && S_ISREG(st.st_mode) &&
                    (r = cordon_lower_put(l, shadows[i], "", CORDON_ACCESS_DATA, 0,
                                          "FILTER_PASSWD")) < 0)
                        return r;
        }
        return 0;
}

static int lower_env(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        struct cordon_env_rules *e = &l->p->env_rules;
        int r;
        if ((r = cordon_list_copy(&l->p->denied_writable, &s->denied_writable_paths)) < 0 ||
            (r = cordon_list_copy(&e->blocked_names, &s->blocked_env_vars)) < 0 ||
            (r = cordon_list_copy(&e->blocked_patterns, &s->blocked_env_patterns)) < 0 ||
            (r = cordon_list_copy(&e->allowed, &s->allowed_env_vars)) < 0)
                return r;
        e->block_url_credentials = s->block_env_url_credentials;
        e->block_token_values = s->block_env_token_values;
        /* Before SANDBOX_ENV, which may still override what a module set. */
        if ((r = cordon_lower_modules(l, &e->set)) < 0)
                return r;
        CORDON_LIST_FOREACH (it, &s->sandbox_env) {
                const char *eq = strchr(it->value, '=');
                if (!eq || !cordon_env_name_is_valid(it->value, (size_t)(eq - it->value)))
                        return cordon_diag_set(l->diag, -EINVAL,
                                               "environment entry '%s' (from %s) is not NAME=VALUE",
                                               it->value, it->origin);
                if ((r = cordon_list_add(&e->set, it->value, it->origin)) < 0)
                        return r;
        }
        _cleanup_free_ char *pwd = NULL, *project = NULL, *profile = NULL, *net = NULL;
        if (asprintf(&pwd, "PWD=%s", strempty(l->p->cwd)) < 0 ||
            asprintf(&profile, "SANDBOX_PROFILE=%s", cordon_profile_to_string(s->profile)) < 0 ||
            asprintf(&net, "SANDBOX_NETWORK_MODE=%s", cordon_net_mode_to_string(s->net_mode)) < 0)
                return -ENOMEM;
        if ((r = cordon_lower_agents_env(l)) < 0)
                return r;
        /* What scripts written for agent-sandbox look for, and what the sandbox is: set last,
         * so neither the caller's environment nor SANDBOX_ENV can forge them, and the filter
         * never sees them. SANDBOX_BACKEND, SANDBOX_PROFILE and SANDBOX_NETWORK_MODE are the
         * launch's to decide: it rewrites them with what it delivers (build_env()). */
        if (l->p->project_dir &&
            ((r = asprintf(&project, "SANDBOX_PROJECT_DIR=%s", l->p->project_dir)) < 0 ||
             (r = cordon_list_add(&e->set, project, "cordon")) < 0))
                return r < 0 ? -ENOMEM : r;
        if ((r = cordon_list_add(&e->set, "SANDBOX_ACTIVE=1", "cordon")) < 0 ||
            (r = cordon_list_add(&e->set, "SANDBOX_BACKEND=ns", "cordon")) < 0 ||
            (r = cordon_list_add(&e->set, profile, "cordon")) < 0 ||
            (r = cordon_list_add(&e->set, net, "cordon")) < 0 ||
            (l->p->cwd && (r = cordon_list_add(&e->set, pwd, "cordon")) < 0))
                return r;
        r = cordon_env_filter_names(e, l->h->envp, &l->p->envp, &l->p->n_env_blocked,
                                    &l->p->env_blocked_names);
        if (r < 0)
                return cordon_diag_set(l->diag, r, "cannot build the environment: %s",
                                       strerror(-r));
        return 0;
}

static int lower_system(struct lower *l)
{
        int r;
        /* Under a capability policy /tmp is the user_temp preset's scratch, writable only with
         * workspace writes (write_text); otherwise an empty read-only tmpfs (the landlock
         * backend then makes no private TMPDIR), or the host's /tmp read-only. */
        bool tmp_writable = !l->s->policy || (l->s->workspace_writes &&
                                              cordon_list_find(&l->s->presets, "user_temp"));
        const char *tmp_origin = tmp_writable ? "PRIVATE_TMP" : "POLICY_PRESETS (user_temp)";
        if (l->s->private_tmp)
                r = cordon_lower_put(l, "/tmp", NULL, CORDON_ACCESS_TMPFS,
                                     tmp_writable ? 0 : CORDON_FS_SEAL, tmp_origin);
        else
                r = cordon_lower_put(l, "/tmp", "/tmp",
                                     tmp_writable ? CORDON_ACCESS_RW : CORDON_ACCESS_RO, 0,
                                     tmp_origin);
        if (r < 0)
                return r;
        if ((r = cordon_lower_put(l, "/dev", NULL, CORDON_ACCESS_DEV, 0, BUILTIN)) < 0 ||
            (r = cordon_lower_put(l, "/proc", NULL, CORDON_ACCESS_PROC, 0, BUILTIN)) < 0)
                return r;
        if (!l->s->private_ipc && (r = cordon_lower_put(l, "/dev/shm", "/dev/shm", CORDON_ACCESS_RW,
                                                        0, "PRIVATE_IPC")) < 0)
                return r;
        /* Kernel knobs stay read-only even for root inside the user namespace. The host-wide
         * entries (/proc/keys, timer_list, ...) are masked where the ns backend mounts its own
         * procfs (proc_masked[] in ns-mount.c), not by rules here: the landlock backend shows
         * the host's /proc, and a mask below it would carve /proc into one grant per entry,
         * leaving every process started later unreachable. */
        static const char *const proc_ro[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
                                              "/proc/bus"};
        for (size_t i = 0; i < ELEMENTSOF(proc_ro); i++)
                if ((r = cordon_policy_add_fs(l->p, proc_ro[i], NULL, CORDON_ACCESS_RO,
                                              CORDON_FS_OPTIONAL, BUILTIN)) < 0)
                        return r;
        return 0;
}

/* Adds READONLY_MOUNTS entry @it to *@names, the entries the host does not have so far
 * ("'PATH' (from ORIGIN), ..."), and counts it in *@n. */
static int add_missing(char **names, size_t *n, const struct cordon_item *it,
                       const struct stat *lstated)
{
        char *joined = NULL;
        if (asprintf(&joined, "%s%s'%s' (from %s%s)", strempty(*names), *names ? ", " : "",
                     it->value, it->origin,
                     lstated && S_ISLNK(lstated->st_mode) ? ", a symlink to nothing" : "") < 0)
                return -ENOMEM;
        free(*names);
        *names = joined;
        (*n)++;
        return 0;
}

/* READONLY_MOUNTS, either the built-in entries or the others: plain directories first, then
 * symlinks, so that a usr-merge link finds its target already bound. An entry the host does not
 * have is a read-only grant of nothing: the sandbox starts without it, and one warning line names
 * every such entry with its origin (a built-in one is skipped without a word, as agent-sandbox's
 * /app on a host without it). Only ENOENT is that: an entry that exists but cannot be looked at
 * or resolved (EACCES, ELOOP, a link loop) still refuses, and so does whatever the launch later
 * finds changed. */
static int lower_readonly_mounts(struct lower *l, bool builtin)
{
        /* Each entry is lstat()ed once; the symlinks wait in @links, with what lstat() said. */
        const struct cordon_list *list = &l->s->readonly_mounts;
        struct pending {
                const struct cordon_item *it;
                struct stat st;
        };
        _cleanup_free_ struct pending *links = calloc(list->n ?: 1, sizeof(*links));
        if (!links)
                return -ENOMEM;
        _cleanup_free_ char *missing = NULL;
        size_t n_links = 0, n_missing = 0;
        int r;
        CORDON_LIST_FOREACH (it, list) {
                if (cordon_lower_is_builtin(it->origin) != builtin)
                        continue;
                struct stat st;
                bool found = lstat(it->value, &st) == 0;
                if (found && S_ISLNK(st.st_mode)) {
                        links[n_links++] = (struct pending){.it = it, .st = st};
                        continue;
                }
                /* A missing built-in entry (an absolute path) is skipped, as below. */
                if (!found && errno == ENOENT && builtin && l->p->n_actions == 0)
                        continue;
                r = bind_same_path(l, it->value, found ? &st : NULL, CORDON_ACCESS_RO, it->origin,
                                   "READONLY_MOUNTS", true);
                if (r == BIND_MISSING)
                        r = add_missing(&missing, &n_missing, it, NULL);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < n_links; i++) {
                r = bind_same_path(l, links[i].it->value, &links[i].st, CORDON_ACCESS_RO,
                                   links[i].it->origin, "READONLY_MOUNTS", true);
                if (r == BIND_MISSING)
                        r = add_missing(&missing, &n_missing, links[i].it, &links[i].st);
                if (r < 0)
                        return r;
        }
        if (n_missing == 0)
                return 0;
        return cordon_lower_warn(l, "READONLY_MOUNTS %s not on this host, not shown inside: %s",
                                 n_missing > 1 ? "entries" : "entry", missing);
}

static int resolve_finalized(const struct cordon_settings *s, const struct cordon_host *h,
                             struct cordon_policy **ret, char ***ret_warnings,
                             struct cordon_diag *diag)
{
        struct lower_real_dirs real_dirs = {0};
        struct lower_stat_cache stats = {0};
        struct lower l = {.s = s, .h = h, .diag = diag, .real_dirs = &real_dirs, .stats = &stats};
        /* The settings as BLOCKED_FILES sees them, where agents that are not installed leave
         * out their missing instruction files (cordon_lower_agents_blocked()): a shallow copy
         * of @s with another list, never freed as settings. */
        struct cordon_settings blocked_view;
        struct cordon_list blocked = {0};
        int r;
        bool dev_pts = false;

        l.p = cordon_policy_new();
        if (!l.p)
                return -ENOMEM;
        l.p->identity.uid = h->uid;
        l.p->identity.gid = h->gid;

        /* Built-in system paths, then the home directory, then what the user asked for, so an
         * explicit --ro or --rw of a path wins over the defaults for that same path. */
        /* A capability policy without the system_runtime preset keeps the system directories
         * out too; then the command has to come from one of its roots. */
        bool system_runtime = !s->policy || cordon_list_find(&s->presets, "system_runtime");
        if ((system_runtime && (r = lower_readonly_mounts(&l, true)) < 0) ||
            (r = lower_system(&l)) < 0 || (r = cordon_lower_home(&l)) < 0 ||
            (r = lower_readonly_mounts(&l, false)) < 0)
                goto fail;
        CORDON_LIST_FOREACH (it, &s->extra_writable_paths) {
                /* Finalize stripped these already; checked again, a relative entry from the
                 * caller's working directory (a daemon's own may differ), and for a link changed
                 * since. */
                const struct cordon_item *hit = NULL;
                _cleanup_free_ char *abs = NULL;
                if (cordon_lower_absolute(&l, it->value, &abs) < 0)
                        abs = NULL; /* the bind below says why */
                if ((r = cordon_settings_path_denied(&s->denied_writable_paths,
                                                     abs ? abs : it->value, &hit)) > 0)
                        r = cordon_diag_set(diag, -EPERM,
                                            "EXTRA_WRITABLE_PATHS entry '%s' (from %s) overlaps "
                                            "admin-denied DENIED_WRITABLE_PATHS entry '%s' (from "
                                            "%s)",
                                            it->value, it->origin, hit->value, hit->origin);
                if (r < 0 ||
                    (r = cordon_lower_bind_same_path(&l, it->value, CORDON_ACCESS_RW, it->origin,
                                                     "EXTRA_WRITABLE_PATHS")) < 0)
                        goto fail;
        }
        /* Credential directories and placeholders come after every read-write bind is known, so
         * that "could the sandbox create this?" sees all of them. */
        r = s->policy ? cordon_lower_cap_policy(&l) : lower_project(&l);
        if (r < 0 || (r = cordon_lower_caches(&l)) < 0 || (r = check_user_binds(&l)) < 0 ||
            (r = cordon_lower_home_blocked(&l)) < 0 || (r = cordon_lower_extra_blocked(&l)) < 0 ||
            (r = cordon_lower_agents_plan(&l)) < 0 ||
            (r = cordon_lower_agents_blocked(&l, &blocked)) < 0)
                goto fail;
        if (r > 0) {
                blocked_view = *s;
                blocked_view.blocked_files = blocked;
                l.s = &blocked_view;
        }
        if ((r = cordon_lower_blocked_files(&l)) < 0 || (r = cordon_lower_path(&l)) < 0 ||
            (r = cordon_lower_check_project(&l)) < 0 || (r = cordon_lower_vars(&l, &dev_pts)) < 0 ||
            (r = cordon_lower_devices(&l, dev_pts)) < 0 || (r = lower_passwd(&l)) < 0 ||
            (r = cordon_lower_protect(&l)) < 0 || (r = cordon_lower_configs(&l)) < 0 ||
            (r = cordon_lower_masks(&l)) < 0 || (r = cordon_lower_agents_instructions(&l)) < 0 ||
            (r = cordon_lower_agent_homes(&l)) < 0 || (r = cordon_lower_mail_stub(&l)) < 0 ||
            (r = cordon_lower_pins(&l)) < 0 || (r = lower_env(&l)) < 0 ||
            (r = cordon_lower_agents_warn(&l)) < 0 || (r = cordon_lower_mail_path(&l)) < 0)
                goto fail;
        if ((r = cordon_policy_set_hostname(l.p, "cordon")) < 0 || (r = cordon_lower_net(&l)) < 0 ||
            (r = lower_link_dirs(&l)) < 0 || (r = cordon_lower_configs_elsewhere(&l)) < 0)
                goto fail;
        l.p->limits = s->limits;
        l.p->process.pty = !s->no_pty;
        l.p->process.terminal_passthrough = s->terminal_passthrough;
        if (s->cgroup_path && !(l.p->cgroup_path = strdup(s->cgroup_path))) {
                r = -ENOMEM;
                goto fail;
        }
        l.p->backend = s->backend;
        l.p->landlock_only = s->backend == CORDON_BACKEND_LANDLOCK;
        l.p->fallback = s->fallback;
        /* SANDBOX_PROFILE already holds the strictest of --profile and a capability policy's
         * sandbox_profile (settings-policy.c). */
        l.p->profile = s->profile;
        l.p->side_effect_level = s->side_effect_level;
        if ((r = cordon_policy_validate(l.p, diag)) < 0)
                goto fail;

        *ret = TAKE_PTR(l.p);
        if (ret_warnings)
                *ret_warnings = TAKE_PTR(l.warnings);
        r = 0;
fail:
        if (r == -ENOMEM && diag && !*diag->message)
                cordon_diag_set(diag, r, "out of memory");
        cordon_policy_free(l.p);
        strv_free(l.warnings);
        free(l.home_guest);
        free(l.home_real);
        free(l.account_home_real);
        cordon_list_clear(&l.masks);
        cordon_list_clear(&blocked);
        strv_free(real_dirs.dirs);
        cordon_lower_stat_cache_clear(&stats);
        cordon_lower_dir_names_clear(&l.home_names);
        return r;
}

_public_ int cordon_settings_resolve(const struct cordon_settings *s, const struct cordon_host *h,
                                     struct cordon_policy **ret, char ***ret_warnings,
                                     struct cordon_diag *diag)
{
        if (s->finalized)
                return resolve_finalized(s, h, ret, ret_warnings, diag);
        /* Finalize is due (a caller that never called it, or set something after): the admin
         * rules apply to a private copy, the caller's settings stay as they are. */
        struct cordon_settings copy;
        int r = cordon_settings_copy(&copy, s);
        if (r < 0)
                return r;
        _cleanup_(strv_freep) char **warnings = NULL;
        char **resolved = NULL;
        struct cordon_policy *p = NULL;
        r = cordon_settings_finalize(&copy, &warnings, diag);
        if (r >= 0)
                r = resolve_finalized(&copy, h, &p, ret_warnings ? &resolved : NULL, diag);
        cordon_settings_clear(&copy);
        if (r < 0)
                return r;
        if (warnings && resolved && (r = strv_extend_strv(&warnings, resolved)) < 0) {
                strv_free(resolved);
                cordon_policy_free(p);
                return r;
        }
        if (!warnings)
                warnings = TAKE_PTR(resolved);
        else
                strv_free(resolved);
        *ret = p;
        if (ret_warnings)
                *ret_warnings = TAKE_PTR(warnings);
        return 0;
}

static void collect_warning(void *userdata, const char *message)
{
        struct lower *l = userdata;
        if (cordon_lower_warn(l, "%s", message) < 0)
                l->warn_failed = true;
}

_public_ int cordon_settings_lower(const struct cordon_settings *s, const struct cordon_host *h,
                                   struct cordon_policy **ret, char ***ret_warnings,
                                   struct cordon_diag *diag)
{
        struct lower l = {.s = s, .h = h, .diag = diag};
        int r = cordon_settings_resolve(s, h, &l.p, ret_warnings ? &l.warnings : NULL, diag);
        if (r >= 0 && (r = cordon_policy_apply(l.p, collect_warning, &l, diag)) >= 0 &&
            l.warn_failed)
                r = -ENOMEM;
        if (r < 0) {
                cordon_policy_free(l.p);
                strv_free(l.warnings);
                return r;
        }
        *ret = TAKE_PTR(l.p);
        if (ret_warnings)
                *ret_warnings = TAKE_PTR(l.warnings);
        else
                strv_free(l.warnings);
        return 0;
}
