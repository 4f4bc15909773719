/* Lowering of the sandbox.conf model into a policy: resolves host paths, applies HOME_ACCESS,
 * maps every blocked path to each place it is visible inside, and builds the environment. One
 * table of steps run in order (lower_steps[]); the steps by topic in the lower-*.c files, the
 * helpers they share in lower-util.c. */
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

#include "lib/policy/backend-traits.h"
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

static int lower_project(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        const char *given = s->project_dir ?: l->h->cwd;
        const char *origin = s->project_dir ? strempty(s->project_dir_origin) : "working directory";
        /* The path as given, before anything resolves it: a link on the way that an earlier
         * sandbox could have planted would hand this one another directory. The working
         * directory comes from getcwd() and has no links. */
        int r = cordon_lower_refuse_planted_link(l, given, "project directory", origin);
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
                        int r = cordon_lower_refuse_planted_link(l, it->value, variables[i],
                                                                 it->origin);
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
            !cordon_backend_traits(l->s->backend)->mount_ns)
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
        /* Slurm's token (auth/jwt): the chaperon runs Slurm's commands on the host, and nothing
         * inside needs it (SLURM_SCOPE); an allow list entry still lets it through. */
        if (!cordon_list_find(&e->allowed, "SLURM_JWT") &&
            (r = cordon_list_add_unique(&e->blocked_names, "SLURM_JWT", "SLURM_SCOPE")) < 0)
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
                r = cordon_lower_bind_lstated(l, it->value, found ? &st : NULL, CORDON_ACCESS_RO,
                                              it->origin, "READONLY_MOUNTS", true);
                if (r == CORDON_LOWER_BIND_MISSING)
                        r = add_missing(&missing, &n_missing, it, NULL);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < n_links; i++) {
                r = cordon_lower_bind_lstated(l, links[i].it->value, &links[i].st, CORDON_ACCESS_RO,
                                              links[i].it->origin, "READONLY_MOUNTS", true);
                if (r == CORDON_LOWER_BIND_MISSING)
                        r = add_missing(&missing, &n_missing, links[i].it, &links[i].st);
                if (r < 0)
                        return r;
        }
        if (n_missing == 0)
                return 0;
        return cordon_lower_warn(l, "READONLY_MOUNTS %s not on this host, not shown inside: %s",
                                 n_missing > 1 ? "entries" : "entry", missing);
}

/* Built-in system paths, unless a capability policy leaves out the system_runtime preset
 * (then the command has to come from one of its roots). */
static int lower_builtin_mounts(struct lower *l)
{
        bool system_runtime = !l->s->policy || cordon_list_find(&l->s->presets, "system_runtime");
        return system_runtime ? lower_readonly_mounts(l, true) : 0;
}

static int lower_user_mounts(struct lower *l)
{
        return lower_readonly_mounts(l, false);
}

static int lower_extra_writable(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        int r;
        CORDON_LIST_FOREACH (it, &s->extra_writable_paths) {
                /* Finalize stripped these already; checked again, a relative entry from the
                 * caller's working directory (a daemon's own may differ), and for a link changed
                 * since. */
                const struct cordon_item *hit = NULL;
                _cleanup_free_ char *abs = NULL;
                if (cordon_lower_absolute(l, it->value, &abs) < 0)
                        abs = NULL; /* the bind below says why */
                if ((r = cordon_settings_path_denied(&s->denied_writable_paths,
                                                     abs ? abs : it->value, &hit)) > 0)
                        r = cordon_diag_set(l->diag, -EPERM,
                                            "EXTRA_WRITABLE_PATHS entry '%s' (from %s) overlaps "
                                            "admin-denied DENIED_WRITABLE_PATHS entry '%s' (from "
                                            "%s)",
                                            it->value, it->origin, hit->value, hit->origin);
                if (r < 0 ||
                    (r = cordon_lower_bind_same_path(l, it->value, CORDON_ACCESS_RW, it->origin,
                                                     "EXTRA_WRITABLE_PATHS")) < 0)
                        return r;
        }
        return 0;
}

/* The capability policy's roots, or the project directory. */
static int lower_workspace(struct lower *l)
{
        return l->s->policy ? cordon_lower_cap_policy(l) : lower_project(l);
}

/* From here on the settings are those BLOCKED_FILES sees (struct lower's @blocked_view). */
static int lower_agents_blocked(struct lower *l)
{
        int r = cordon_lower_agents_blocked(l, &l->blocked);
        if (r > 0) {
                l->blocked_view = *l->s;
                l->blocked_view.blocked_files = l->blocked;
                l->s = &l->blocked_view;
        }
        return r < 0 ? r : 0;
}

static int lower_vars(struct lower *l)
{
        return cordon_lower_vars(l, &l->dev_pts);
}

static int lower_devices(struct lower *l)
{
        return cordon_lower_devices(l, l->dev_pts);
}

static int lower_hostname(struct lower *l)
{
        return cordon_policy_set_hostname(l->p, "cordon");
}

/* What the policy takes from the settings as they are. */
static int lower_process(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        l->p->limits = s->limits;
        l->p->process.pty = !s->no_pty;
        l->p->process.terminal_passthrough = s->terminal_passthrough;
        if (s->cgroup_path && !(l->p->cgroup_path = strdup(s->cgroup_path)))
                return -ENOMEM;
        l->p->backend = s->backend;
        l->p->landlock_only = !cordon_backend_traits(s->backend)->mount_ns;
        l->p->fallback = s->fallback;
        /* SANDBOX_PROFILE already holds the strictest of --profile and a capability policy's
         * sandbox_profile (settings-policy.c). */
        l->p->profile = s->profile;
        l->p->side_effect_level = s->side_effect_level;
        return 0;
}

static int lower_validate(struct lower *l)
{
        return cordon_policy_validate(l->p, l->diag);
}

struct lower_step {
        const char *name;
        int (*run)(struct lower *l);
};

/* The lowering, in order. Built-in system paths, then the home directory, then what the user
 * asked for, so an explicit --ro or --rw of a path wins over the defaults for that same path.
 * Credential directories and placeholders come after every read-write bind is known (the
 * workspace and the caches included), so that "could the sandbox create this?" sees all of
 * them. */
static const struct lower_step lower_steps[] = {
    {"builtin-mounts", lower_builtin_mounts},
    {"system", lower_system},
    {"home", cordon_lower_home},
    {"readonly-mounts", lower_user_mounts},
    {"extra-writable", lower_extra_writable},
    {"workspace", lower_workspace},
    {"caches", cordon_lower_caches},
    {"user-binds", check_user_binds},
    {"home-blocked", cordon_lower_home_blocked},
    {"extra-blocked", cordon_lower_extra_blocked},
    {"agents-plan", cordon_lower_agents_plan},
    {"agents-blocked", lower_agents_blocked},
    {"blocked-files", cordon_lower_blocked_files},
    {"path", cordon_lower_path},
    {"check-project", cordon_lower_check_project},
    {"vars", lower_vars},
    {"devices", lower_devices},
    {"passwd", lower_passwd},
    {"protect", cordon_lower_protect},
    {"configs", cordon_lower_configs},
    {"masks", cordon_lower_masks},
    {"agents-instructions", cordon_lower_agents_instructions},
    {"agent-homes", cordon_lower_agent_homes},
    {"mail-stub", cordon_lower_mail_stub},
    {"pins", cordon_lower_pins},
    {"env", lower_env},
    {"agents-warn", cordon_lower_agents_warn},
    {"mail-path", cordon_lower_mail_path},
    {"slurm", cordon_lower_slurm},
    {"hostname", lower_hostname},
    {"net", cordon_lower_net},
    {"link-dirs", lower_link_dirs},
    {"configs-elsewhere", cordon_lower_configs_elsewhere},
    {"process", lower_process},
    {"validate", lower_validate},
};

static int resolve_finalized(const struct cordon_settings *s, const struct cordon_host *h,
                             struct cordon_policy **ret, char ***ret_warnings,
                             struct cordon_diag *diag)
{
        struct lower_real_dirs real_dirs = {0};
        struct lower_stat_cache stats = {0};
        struct lower l = {.s = s, .h = h, .diag = diag, .real_dirs = &real_dirs, .stats = &stats};
        int r = 0;

        l.p = cordon_policy_new();
        if (!l.p)
                return -ENOMEM;
        l.p->identity.uid = h->uid;
        l.p->identity.gid = h->gid;

        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(lower_steps); i++)
                r = lower_steps[i].run(&l);
        if (r >= 0) {
                *ret = TAKE_PTR(l.p);
                if (ret_warnings)
                        *ret_warnings = TAKE_PTR(l.warnings);
                r = 0;
        }
        if (r == -ENOMEM && diag && !*diag->message)
                cordon_diag_set(diag, r, "out of memory");
        cordon_policy_free(l.p);
        strv_free(l.warnings);
        free(l.home_guest);
        free(l.home_real);
        free(l.account_home_real);
        cordon_list_clear(&l.masks);
        cordon_list_clear(&l.blocked);
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
