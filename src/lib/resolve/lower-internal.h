/* Internals of the lowering (lower.c's step table, the lower-*.c steps): the working state and
 * the helpers the files share (lower-util.c; the host view and planned entries: lower-plan.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "lib/policy/list.h"
#include "lib/resolve/lower.h"
#include "lib/resolve/mail-stub.h"
#include "lib/policy/policy.h"
#include "shared/macro.h"

#define CORDON_BUILTIN CORDON_SETTINGS_BUILTIN

/* Directories this resolve has found to be their own realpath (no symlink on the way): below one
 * of them, a realpath takes one lstat() per further component instead of glibc's readlink() of
 * every component from the root. It lives for one resolve only and decides nothing alone: the
 * launch still opens every path with RESOLVE_NO_SYMLINKS and checks what it finds. */
struct lower_real_dirs {
        char **dirs;
};

/* What lstat() said of each path this resolve looked at, failures included: resolve changes
 * nothing on the host, and the same paths come up again and again (an agent's state in the home
 * entries, the agent profiles, the carving and the realpaths on the way). Like @lower_real_dirs
 * it decides nothing alone. Open addressing on a hash of the path; @n_slots a power of two. */
struct lower_stat_entry {
        int err; /* 0, or the errno of lstat() */
        struct stat st;
        char path[]; /* as asked */
};
struct lower_stat_slot {
        uint64_t hash;
        struct lower_stat_entry *e; /* NULL: empty */
};
struct lower_stat_cache {
        struct lower_stat_slot *slots; /* small, so that a start does not fault in a big table */
        size_t n_slots, n;
};

/* One listing of a directory (lower-home.c): a hash table of its names, folded to lower case;
 * trusted only when complete. */
#define LOWER_DIR_NAMES_SLOTS 1024
struct lower_dir_names {
        uint64_t *slots; /* LOWER_DIR_NAMES_SLOTS hashes, 0 for an empty slot */
        size_t n;
        bool complete;
};

struct lower {
        const struct cordon_settings *s;
        const struct cordon_host *h;
        struct cordon_policy *p;
        char **warnings;
        struct cordon_diag *diag;
        char *home_guest;         /* $HOME as the sandbox sees it */
        char *home_real;          /* its host realpath */
        char *account_home_real;  /* realpath of the account's home, when not home_real */
        struct cordon_list masks; /* host realpaths to hide, with their origin */
        bool warn_failed;         /* a warning of cordon_policy_apply() could not be kept */
        struct lower_real_dirs *real_dirs; /* NULL: every realpath goes to glibc */
        struct lower_stat_cache *stats;    /* NULL: every lstat() goes to the kernel */
        struct lower_dir_names home_names; /* the listing of home_real */
        const char *mail_stub_dir;         /* the directory of mail stubs, once planned */
        /* Per agent of the settings (the first 64): 0 not known yet, 1 not installed, 2 installed
         * (lower-agents.c). */
        unsigned char agent_installed[64];
        /* Carried from one step of lower.c's table to a later one: whether the variables bind
         * /dev/pts (cordon_lower_vars() for cordon_lower_devices()), and the settings as
         * BLOCKED_FILES sees them, where agents that are not installed leave out their missing
         * instruction files (cordon_lower_agents_blocked()): a shallow copy of the settings
         * with another list, never freed as settings, that @s then points to. */
        bool dev_pts;
        struct cordon_list blocked;
        struct cordon_settings blocked_view;
};

static inline bool cordon_lower_is_builtin(const char *origin)
{
        return streq_ptr(origin, CORDON_BUILTIN);
}

/* Adds a warning line for the caller to print. */
_printf_(2, 3) int cordon_lower_warn(struct lower *l, const char *fmt, ...);
/* Calls @fn with the name of every entry of directory @dir ("." and ".." included) until it
 * returns non-zero, which is returned. 0, or -errno when @dir cannot be opened or read, or
 * -EFBIG when @max_size is not 0 and the directory's st_size is larger. */
int cordon_lower_read_dir(const char *dir, off_t max_size,
                          int (*fn)(const char *name, void *userdata), void *userdata);
/* Absolute, lexically normalised form of @path; relative paths are taken from the caller's
 * working directory, ".." is resolved by realpath where the path exists. */
int cordon_lower_absolute(struct lower *l, const char *path, char **ret);
/* Adds a rule; a later non-mask rule for the same guest path replaces the earlier one. */
int cordon_lower_put(struct lower *l, const char *guest, const char *host,
                     enum cordon_access access, unsigned flags, const char *origin);
/* Refuses (-EPERM, naming @what) a resolved directory the sandbox may write that is the root,
 * the home or a parent of it, or not strictly below an allowed project parent. */
int cordon_lower_check_writable_root(struct lower *l, const char *real, const char *what);
/* Binds @path (made absolute, symlinks resolved) at the same place. A missing path is an error
 * naming @variable and @origin, except for built-in entries. */
int cordon_lower_bind_same_path(struct lower *l, const char *path, enum cordon_access access,
                                const char *origin, const char *variable);
/* cordon_lower_bind_same_path()'s answer for a grant whose path does not exist, with @missing_ok:
 * nothing bound, no message. */
#define CORDON_LOWER_BIND_MISSING 1
/* The same, with @lstated (or NULL) what lstat() of @path gave the caller, and a missing path
 * (ENOENT, a dangling symlink included) CORDON_LOWER_BIND_MISSING with @missing_ok. */
int cordon_lower_bind_lstated(struct lower *l, const char *path, const struct stat *lstated,
                              enum cordon_access access, const char *origin, const char *variable,
                              bool missing_ok);
/* True when host path @host lies below a read-write bind, i.e. the sandbox can write there. */
bool cordon_lower_sandbox_can_write(const struct lower *l, const char *host);
/* Resolves @path component by component; returns 1 with the symlink in @ret_link (and its target
 * in @ret_target) when one on the way sits in a directory some sandbox could write, else 0, or
 * -errno. */
int cordon_lower_find_planted_link(struct lower *l, const char *path, char **ret_link,
                                   char **ret_target);
/* Refuses (-EPERM) @path, named @what (from @origin) in the message, when it passes through a
 * symlink some sandbox could have planted (cordon_lower_find_planted_link()). */
int cordon_lower_refuse_planted_link(struct lower *l, const char *path, const char *what,
                                     const char *origin);

/* lower-plan.c: what resolving would create becomes a host action of the policy (nothing is
 * created here); lstat() and realpath() that see a planned entry as if it existed. */
int cordon_lower_plan(struct lower *l, enum cordon_host_action_kind kind, const char *path,
                      mode_t mode, const char *contents, const char *reason, const char *warning);
/* Plans directory @path and its missing parents (0700, silently), as mkdir -p would make them. */
int cordon_lower_plan_mkdir_p(struct lower *l, const char *path, const char *reason);
/* lstat() of @path on the host through the resolve's cache: 0, or -1 with errno. */
int cordon_lower_host_lstat(const struct lower *l, const char *path, struct stat *ret);
void cordon_lower_stat_cache_clear(struct lower_stat_cache *c);
/* lstat(): 0, or -1 with errno; a planned directory or file counts as existing. */
int cordon_lower_lstat(const struct lower *l, const char *path, struct stat *ret);
/* realpath() of @path as it is on the host (planned entries do not count); NULL with errno. */
char *cordon_lower_host_realpath(const struct lower *l, const char *path);
/* The guest path of host path @real at or below the home's realpath: the same place below
 * $HOME (a malloc'd string, NULL on ENOMEM). */
char *cordon_lower_guest_of(const struct lower *l, const char *real);
/* The host realpath() of ALLOWED_PROJECT_PARENTS entry @value, its home spelling ("$HOME",
 * "~/") expanded with the settings' home; NULL with errno (ENOENT for a home spelling without a
 * home). */
char *cordon_lower_parent_realpath(const struct lower *l, const char *value);
/* realpath() of a path that may end in planned entries; NULL with errno. */
char *cordon_lower_realpath(const struct lower *l, const char *path);
/* The same, with @st (or NULL) what lstat() of @path gave just before (a real lstat(), not
 * cordon_lower_lstat() of a planned entry): one system call fewer. */
char *cordon_lower_realpath_lstated(const struct lower *l, const char *path, const struct stat *st);

/* lower-caches.c: PACKAGE_CACHES, once the user's binds and the project are known, before the
 * credential stores and the carving: cordon's own package caches bound
 * read-write where the tools look (ns) and named in the tools' variables (both backends). */
int cordon_lower_caches(struct lower *l);
/* Whether @name is an executable regular file in an absolute directory of @path (a PATH
 * value; lower-agents.c). */
bool cordon_lower_on_path(const char *path, const char *name);

/* lower-configs.c: TOOL_CONFIG_COPIES, before cordon_lower_masks(): the credential-free copies
 * of the tools' configuration files, and the originals that held a credential masked. */
int cordon_lower_configs(struct lower *l);
/* lower-configs.c, once every rule is in: a copy the ns backend cannot make a writable file
 * at its own path (a read-only directory there, such as the built-in ~/.config/git) gets a
 * second one on the private /tmp, named in the tool's variable (policy->ns_env_files). */
int cordon_lower_configs_elsewhere(struct lower *l);

/* lower-home.c: $HOME per HOME_ACCESS, and the credential directories hidden in every mode. */
int cordon_lower_home(struct lower *l);
void cordon_lower_dir_names_clear(struct lower_dir_names *dn);
/* True when @dn, the listing of @base, says nothing is at @rel below it (nor planned there). */
bool cordon_lower_dir_names_absent(const struct lower *l, const struct lower_dir_names *dn,
                                   const char *base, const char *rel);
int cordon_lower_home_blocked(struct lower *l);

/* lower-path.c: the directories below the home that the command's PATH names, read-only with
 * what their programs need, never a hidden path. Once the masks of the home, BLOCKED_FILES and
 * EXTRA_BLOCKED_PATHS are known, before cordon_lower_masks() (which covers what they hold). */
int cordon_lower_path(struct lower *l);

/* lower-carve.c: every read-write bind at or below the home that holds a missing credential
 * store, HOME_READONLY or HOME_SEEDED_FILES entry is made read-only with its entries bound
 * read-write, down to the missing path, so the sandbox cannot create it. Once every read-write
 * bind is known, before the masks. */
int cordon_lower_keep_absent(struct lower *l, const struct lower_dir_names *account_names);

/* lower-blocked.c: BLOCKED_FILES and EXTRA_BLOCKED_PATHS, masks wherever they are visible. */
int cordon_lower_extra_blocked(struct lower *l);
int cordon_lower_blocked_files(struct lower *l);
int cordon_lower_check_project(struct lower *l);
int cordon_lower_masks(struct lower *l);

/* lower-git.c: PROTECT_GIT_CONFIG, the git directories of the project and of the writable
 * paths the user named (from cordon_lower_protect()); refuses an explicit landlock backend where
 * one is writable. */
int cordon_lower_git(struct lower *l);
/* lower-protect.c: read-only git metadata and agent settings, masks over the host's unix
 * sockets (before cordon_lower_masks()), then pins for every rule inside a read-write bind
 * (once every rule is known). */
int cordon_lower_protect(struct lower *l);
int cordon_lower_pins(struct lower *l);
/* lower-agents.c: the agent profiles of ENABLED_AGENTS. Before BLOCKED_FILES: silent
 * placeholders for missing instruction and command files the sandbox could create, once the
 * read-write binds are known. From cordon_lower_protect(): private copies of the files of
 * commands, read-only directories of programs. After cordon_lower_masks(): the merged copy in
 * place of each instruction file's mask. From lower_env(): the *_CONFIG_DIR variables. After the
 * environment: the warning for an agent whose credentials cannot reach the sandbox. */
int cordon_lower_agents_plan(struct lower *l);
/* BLOCKED_FILES without the instruction files of agents that are not installed which are
 * missing on the host where the sandbox could not create them: BLOCKED_FILES would get an empty
 * placeholder in the real home for each (a home shown read-only by a bind), and there is
 * nothing to hide or merge. 1 with that list in @ret (items copied), 0 when it is BLOCKED_FILES
 * as it is, -ENOMEM. After cordon_lower_agents_plan(). */
int cordon_lower_agents_blocked(struct lower *l, struct cordon_list *ret);
int cordon_lower_agents_protect(struct lower *l);
int cordon_lower_agents_instructions(struct lower *l);
int cordon_lower_agents_env(struct lower *l);
/* Whether agent @i of the settings is installed here (its command on PATH, its directory). */
bool cordon_lower_agent_installed(struct lower *l, size_t i);
/* $HOME/@rel as the sandbox sees it; NULL when out of memory. */
char *cordon_lower_agent_guest_path(const struct lower *l, const char *rel);
/* The realpath of the agent's directory $HOME/@rel, which must lie in the home and not go
 * through a link a sandbox could have planted: NULL with a warning (errno EPERM), or with
 * errno ENOMEM. */
char *cordon_lower_agent_host_path(struct lower *l, const char *rel, const char *origin);
/* lower-agent-home.c: each installed agent's private home (policy.h), after the masks. */
int cordon_lower_agent_homes(struct lower *l);
/* The private home made for agent @name, or NULL. */
const struct cordon_agent_home *cordon_lower_agent_home(const struct lower *l, const char *name);
int cordon_lower_agents_warn(struct lower *l);
/* True when @it (a HOME_WRITABLE entry) comes from the profile of an agent that is not installed
 * here: nothing is made or bound for it (lower-home.c skips it). */
bool cordon_lower_agent_item_absent(struct lower *l, const struct cordon_item *it);
/* lower-agent-project.c: PROTECT_AGENT_PROJECT_FILES, from cordon_lower_agents_protect(). */
int cordon_lower_agents_project(struct lower *l);
/* The NETWORK_* variables (lower-net.c): mode, fallback, rules, proxy and pasta settings. */
int cordon_lower_net(struct lower *l);

/* lower-cap.c: the roots and presets of a capability policy (--policy) instead of a project. */
int cordon_lower_cap_policy(struct lower *l);
/* True when the capability policy hands over credential file @home_rel (relative to $HOME) by
 * naming it as a read-only root: the opt-in for the credential part of package_manager_config. */
bool cordon_lower_cap_hands_over(const struct lower *l, const char *home_rel);

/* lower-mail.c: NETWORK_MAIL_BLOCK (the stub itself: mail-stub.h). When the settings ask for it,
 * sets the policy's mail_stub and, unless the backend is an explicit landlock one (whose stubs
 * the launch makes: launch/mail-shadow.h), adds the stub rules: before cordon_lower_pins(),
 * which must see them. */
int cordon_lower_mail_stub(struct lower *l);
/* The same with mailer paths @paths and directory @dir of stubs named @names, for tests. */
int cordon_lower_mail_stub_at(struct lower *l, const char *const *paths, const char *const *names,
                              const char *dir);
/* Puts the directory of stubs first on the command's PATH: after the environment is built. */
int cordon_lower_mail_path(struct lower *l);
/* lower-slurm.c: SLURM_SCOPE and the chaperon's settings into the policy, and which of Slurm's
 * commands the command's PATH leads to on the host. */
int cordon_lower_slurm(struct lower *l);
/* True when host path @real is visible inside at the same path: a same-path bind holds it (the
 * deepest rule above it, masks apart) and no mask hides it. A stub bound anywhere else would
 * cover nothing, or fail to find its mount point in a read-only bind (lower-slurm.c; the mail
 * stubs and Slurm's). */
bool cordon_lower_visible_same_path(const struct cordon_policy *p, const char *real);

/* lower-vars.c: SANDBOX_NPROC_LIMIT, PRIVATE_IPC, the landlock refusals of explicit PRIVATE_IPC
 * and FILTER_PASSWD, the note lines of BIND_DEV_PTS and of the variables held for Slurm.
 * *@ret_dev_pts: BIND_DEV_PTS's shim adds /dev/pts to DEVICES (kernel < 5.4). */
int cordon_lower_vars(struct lower *l, bool *ret_dev_pts);
/* lower-devices.c: DEVICES (and /dev/pts when @bind_dev_pts, BIND_DEV_PTS's shim) under the
 * DEVICES_BLACKLIST veto. */
int cordon_lower_devices(struct lower *l, bool bind_dev_pts);
/* True for a kernel release before 5.4, where BIND_DEV_PTS adds /dev/pts to DEVICES. */
bool cordon_lower_dev_pts_shim_applies(const char *release);
/* lower-modules.c: SANDBOX_MODULES loaded with Lmod in a child bash; what they changed of the
 * PATH-like variables is appended to @set (the environment's "set" list). */
int cordon_lower_modules(struct lower *l, struct cordon_list *set);
