/* libcordon: the settings model. Every way of describing a sandbox (built-in defaults, the
 * environment, command-line flags, a capability policy JSON, later sandbox.conf layers and
 * session specs) writes variables into one struct cordon_settings through cordon_settings_set(),
 * driven by one registry of variables (the names of sandbox.conf: HOME_ACCESS, READONLY_MOUNTS,
 * TMP_SIZE, ...). Every scalar and every list item remembers its origin ("built-in default",
 * "--ro", "env SANDBOX_BACKEND", "file:line", "policy.json: /read_roots/2"). Lowering turns the
 * settings plus facts about the host into a struct cordon_policy.
 *
 * Conventions as in cordon/cordon.h: >= 0 on success, a negative errno on failure, context in
 * the optional struct cordon_diag; nothing prints, nothing exits. Messages name the variable
 * (TMP_SIZE), never a command-line flag: a front end renders its own spelling. A settings object
 * is not thread-safe: use one per thread or lock around it. The registry itself is constant and
 * may be read from any thread. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cordon/cordon.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cordon_settings;

/* A new settings object holding the built-in defaults of every variable (origin "built-in
 * default"). @home is the caller's home directory: the defaults that name "$HOME" (an entry of
 * ALLOWED_PROJECT_PARENTS) expand to it, and are left out when @home is NULL or not absolute.
 * Returns 0 and the object in @ret (the caller frees it with cordon_settings_free()), or
 * -ENOMEM. Thread-safe (touches no shared state). */
int cordon_settings_new(const char *home, struct cordon_settings **ret);
/* Frees @s; accepts NULL; returns NULL. Not thread-safe against other users of @s. */
struct cordon_settings *cordon_settings_free(struct cordon_settings *s);

/* The one way a value gets in. @name is a registry variable; @value its text as sandbox.conf
 * would hold it ("read", "64M", "true", "/opt/data"); @origin says where it came from and is
 * copied. A scalar is replaced. A list (READONLY_MOUNTS, SANDBOX_ENV, ...) gets @value appended
 * as one item with its own origin: every front end adds items one by one; a front end that
 * replaces a whole list (a plain `NAME=(...)` in a configuration file) calls
 * cordon_settings_reset() first.
 * Variables of the registry that cordon does not enforce yet (the network filter's lists,
 * lmod) accept their default value and refuse any other with -EOPNOTSUPP, so nothing
 * pretends to work; a documented no-op (BIND_DEV_PTS) accepts any valid value and changes
 * nothing.
 * Returns 0; -ENOENT for an unknown variable; -EINVAL for a value the variable's parser refuses;
 * -EOPNOTSUPP as above; -ENOMEM. On -EINVAL and -EOPNOTSUPP @diag's message has the form
 * "NAME 'value': reason", so that a front end can replace the leading NAME with its own spelling
 * of the variable (see cordon_settings_diag_respell()). Nothing changes on failure. Not
 * thread-safe on one @s. */
int cordon_settings_set(struct cordon_settings *s, const char *name, const char *value,
                        const char *origin, struct cordon_diag *diag);
/* Puts variable @name back to its built-in default (a list: its default items), with origin
 * "built-in default". Returns 0, -ENOENT for an unknown variable, -ENOMEM, or -EOPNOTSUPP for a
 * list cordon does not enforce whose default is not empty: emptying it would pretend to switch
 * its defaults off. Not thread-safe on one @s. */
int cordon_settings_reset(struct cordon_settings *s, const char *name);

/* Rewrites a message of cordon_settings_set() that starts with variable @name so that it starts
 * with @spelling instead ("--tmp-size", "TMP_SIZE="): "TMP_SIZE 'x': ..." becomes
 * "--tmp-size 'x': ..." (a @spelling ending in '=' takes no space). A message that does not start
 * with @name is left alone. Thread-safe. */
void cordon_settings_diag_respell(struct cordon_diag *diag, const char *name, const char *spelling);

/* The environment front end: SANDBOX_BACKEND, SANDBOX_QUIET, HOME_ACCESS, SLURM_SCOPE,
 * CLEANUP_MATERIALIZED_BLOCKED_FILES, NETWORK_FILTER_SKIP_HELPER_PROBE (the overrides of
 * agent-sandbox's configuration), PROTECT_GIT_CONFIG, and the worktree fallback
 * CORDON_HANDLER_SANDBOX (or harn's HARN_HANDLER_SANDBOX when that is unset), each with origin
 * "env NAME". @envp is a NULL-terminated KEY=VALUE vector (environ). Returns 0 or the
 * error of cordon_settings_set(); the message then names the environment variable as
 * "NAME='value': reason". Reads @envp, never the process environment; not thread-safe on one
 * @s. */
int cordon_settings_apply_environment(struct cordon_settings *s, char *const *envp,
                                      struct cordon_diag *diag);

/* The capability policy front end (cordon-policy(5)): reads the JSON policy at @path ("-" is
 * standard input, named "<stdin>" in messages), at most 1 MiB, and writes its roots, presets,
 * capabilities, side-effect level and profile into the settings, each item with an origin of
 * the form "FILE: /json/pointer". The profile is strictest-wins against the value already set;
 * the other policy variables are replaced, so loading a second policy replaces the first.
 * Once a policy is loaded the sandbox is confined to its roots instead of a project directory.
 * Returns 0, -EFBIG, -errno of reading, or -EINVAL of parsing, with the reason in @diag; on
 * failure of reading or parsing the settings are unchanged. Reads standard input for "-"; not
 * thread-safe on one @s. */
int cordon_settings_load_policy(struct cordon_settings *s, const char *path,
                                struct cordon_diag *diag);

/* The NetworkPolicy front end (harn-hostlib's sandbox API): reads the JSON at @path ("-" is
 * standard input), at most 1 MiB. {"mode":"unrestricted"} sets NETWORK_FILTER_MODE=open;
 * {"mode":"limited","allowed_hosts":[...]} sets proxied, adds `*` to NETWORK_BLOCKLIST and each
 * host to NETWORK_BLOCKLIST_EXCEPT (an empty list denies everything). `type` is accepted for
 * `mode`. Either way NETWORK_FILTER_FALLBACK becomes strict: the mode is delivered or the sandbox
 * does not start. Origins are "FILE: /json/pointer". Returns 0, -EFBIG, -errno of reading, or
 * -EINVAL (unknown mode or field, a malformed host) with @diag naming the file and the JSON
 * pointer; the settings are unchanged on failure of reading or parsing. */
int cordon_settings_load_network_policy(struct cordon_settings *s, const char *path,
                                        struct cordon_diag *diag);

/* ---- sandbox.conf: the layered configuration files (cordon-config(5)) ---- */

/* Flags of struct cordon_config_options. */
enum {
        /* Write a commented default sandbox.conf to the user's configuration directory when it
         * has none (what `cordon run` does on a first run). */
        CORDON_CONFIG_WRITE_DEFAULT = 1u << 0,
        /* With CORDON_CONFIG_WRITE_DEFAULT: say so in a warning line when the file is written
         * (the `cordon` program sets it when its standard error is a terminal). A failure to
         * write it is always a warning. */
        CORDON_CONFIG_ANNOUNCE_DEFAULT = 1u << 1,
};

struct cordon_config_options {
        /* HOME, CORDON_CONF, SANDBOX_CONF, CORDON_ADMIN_CONF and PATH are read from here, never
         * from the process environment; NULL: none. */
        char *const *envp;
        /* _PROJECT_DIR while the files are read; NULL: the working directory. */
        const char *project_dir;
        unsigned flags; /* CORDON_CONFIG_* */
};

/* The sandbox.conf front end: the admin baseline (/etc/cordon/sandbox.conf), the user's
 * sandbox.conf (user.conf beside an admin baseline; CORDON_CONF or SANDBOX_CONF name another),
 * and conf.d/ *.conf in lexical order, each layer adding to the one before, written into @s with
 * origins "FILE:LINE". The files are bash, evaluated in a confined child; nothing is started
 * when there is no file. Call it before the environment and command-line front ends, and
 * cordon_settings_finalize() after them. Warnings (an unknown variable, the agent-sandbox files
 * used instead of cordon's own, a default file written) go to @ret_warnings (a NULL-terminated
 * vector the caller frees with each string; may be NULL). Returns 0, or -errno with the file,
 * line and reason in @diag; the settings are unchanged on failure. */
int cordon_settings_load_config(struct cordon_settings *s, const struct cordon_config_options *o,
                                char ***ret_warnings, struct cordon_diag *diag);
/* cordon_settings_load_config() with one more admin file, @admin_profile (absolute), read
 * after the admin baselines as the last of them: a site's profile for one kind of run (the
 * Slurm plugin's policy_dir/PROFILE.conf). It is held to the baselines' checks (root's, not
 * writable by group or others, in directories only root can change, no symlink on its path),
 * what it sets is enforced by cordon_settings_finalize() as the baselines' values are, and the
 * user's file beside it is user.conf. Returns as cordon_settings_load_config(), and also -ENOENT
 * (the profile does not exist), -EPERM (it fails the checks) and -EINVAL (a relative path, '.' or
 * '..' in it, or NULL), with @diag naming the file. */
int cordon_settings_load_config_with_admin(struct cordon_settings *s,
                                           const struct cordon_config_options *o,
                                           const char *admin_profile, char ***ret_warnings,
                                           struct cordon_diag *diag);
/* The configuration files read by cordon_settings_load_config(), in order: item @i's path and
 * layer ("admin", "user" or "conf.d"). Count: 0 when none; the getter returns 0 or -ERANGE. */
ssize_t cordon_settings_config_file_count(const struct cordon_settings *s);
int cordon_settings_get_config_file(const struct cordon_settings *s, size_t i,
                                    const char **ret_path, const char **ret_layer);

/* After every front end: folds the ENABLED_AGENTS profiles in and applies the admin baseline's
 * rules (cordon-config(5)), so that no layer, the environment or the command line included,
 * lifts an admin rule. One warning line per entry the rules restored or stripped. An agent
 * folder's config.conf is evaluated in a confined child: single-threaded callers then, as for
 * cordon_sandbox_start(). Idempotent;
 * any later cordon_settings_set() or _reset() makes it due again, and
 * cordon_settings_resolve() finalizes a copy itself when it is due. Returns 0, or -errno with
 * the reason in @diag (-EPERM: no allowed project parent is left). */
int cordon_settings_finalize(struct cordon_settings *s, char ***ret_warnings,
                             struct cordon_diag *diag);
/* What the admin rules changed at the last finalize: item @i's variable and message. Count: 0
 * when nothing; the getter returns 0 or -ERANGE. */
ssize_t cordon_settings_admin_change_count(const struct cordon_settings *s);
int cordon_settings_get_admin_change(const struct cordon_settings *s, size_t i,
                                     const char **ret_name, const char **ret_message);

/* Getters, for explanations and the startup banner. cordon_settings_get() writes the value of
 * scalar @name in its sandbox.conf spelling to @buf ("" for an unset one) and stores its origin
 * in @ret_origin (owned by @s, valid until @s changes; may be NULL). Returns 0, -ENOENT for an
 * unknown variable, -EISDIR for a list, -ENOBUFS when @buf is too small. */
int cordon_settings_get(const struct cordon_settings *s, const char *name, char *buf, size_t size,
                        const char **ret_origin);
/* The number of items of list @name, or -ENOENT / -ENOTDIR (a scalar). The getters only read
 * @s: several threads may read one settings object while nobody writes it. */
ssize_t cordon_settings_count(const struct cordon_settings *s, const char *name);
/* Item @i of list @name: value and origin, owned by @s and valid until @s changes. Returns 0,
 * -ENOENT, -ENOTDIR, or -ERANGE past the end. */
int cordon_settings_get_item(const struct cordon_settings *s, const char *name, size_t i,
                             const char **ret_value, const char **ret_origin);

/* What item @value of list variable @name means, in one line of text into @buf (always
 * terminated, cut at @size): for NETWORK_BLOCKLIST and NETWORK_BLOCKLIST_EXCEPT the destinations
 * the pattern matches and the network modes that apply it, and where not; "" for the items of
 * other lists (the value says it all). Returns the length it would have (0: nothing to add),
 * -ENOENT for an unknown variable, -ENOTDIR for a scalar, or -EINVAL for an item that is not
 * valid (the reason in @buf). Thread-safe. */
int cordon_settings_describe_item(const char *name, const char *value, char *buf, size_t size);

/* The registry, in table order: the name of variable @i, or NULL past the end. Thread-safe. */
const char *cordon_settings_variable(size_t i);
/* Whether variable @name is held for a part of cordon not built yet: any valid value is
 * accepted and kept, and shown by cordon_settings_get(), but changes nothing yet (none is, since
 * the Slurm integration enforces SLURM_SCOPE and the CHAPERON_* variables). Returns 1 held, 0
 * not, -ENOENT for an unknown variable. Thread-safe. */
int cordon_settings_variable_is_held(const char *name);

/* Facts about the host that lowering reads. Fill it by hand (tests, a daemon acting for someone
 * else) or with cordon_host_init_current(). The strings are borrowed, except owned_* below. */
struct cordon_host {
        const char *home;         /* $HOME; may be NULL */
        const char *account_home; /* the account's home (passwd entry of uid); may be NULL */
        const char *cwd;          /* the caller's working directory */
        char *const *envp;
        uid_t uid;
        gid_t gid;
        const char *passwd_path;   /* NULL: /etc/passwd */
        const char *group_path;    /* NULL: /etc/group */
        const char *proc_net_unix; /* NULL: /proc/net/unix */
        /* Set by cordon_host_init_current() and freed by cordon_host_clear(); NULL otherwise. */
        char *owned_cwd;
        char *owned_account_home;
};

/* Fills @h for the calling process: $HOME from @envp, the account's home directory (from
 * /etc/passwd, else NSS), the working directory, @envp, the real uid and gid. Returns 0, or
 * -errno of getcwd() (then @h is cleared). Not thread-safe when the passwd lookup falls through
 * to NSS (getpwuid()). Release with cordon_host_clear(). */
int cordon_host_init_current(struct cordon_host *h, char *const *envp);
void cordon_host_clear(struct cordon_host *h);

/* Resolves the policy for @s on @h, reading the host and changing nothing on it (see
 * cordon_policy_new() for its ownership: the caller frees @ret with cordon_policy_free()). What
 * the configuration asks to exist and is missing becomes a host action of the policy, taken by
 * the launcher in its prepare phase (cordon_sandbox_start()), never by a dry run: missing
 * HOME_WRITABLE directories (silently: agents expect them), BLOCKED_FILES placeholders, and
 * credential directories and read-only git and agent files the sandbox could otherwise create,
 * each announced as a warning when it is created. Every rule is built as if they existed
 * already. Entries that were skipped get one line each in @ret_warnings (a NULL-terminated
 * vector the caller frees, each string and the vector, with free(); may be NULL). Returns 0, or
 * -errno with the reason in @diag (-EOPNOTSUPP for a network mode other than isolated, -ENOENT
 * for a missing path a variable names, -EPERM for a path outside ALLOWED_PROJECT_PARENTS or
 * behind a symlink). Reads @s and @h only; not thread-safe against writers of @s. With
 * SANDBOX_MODULES it loads the modules in a child confined as cordon_sandbox_start() confines
 * (see there for what a multi-threaded caller must ensure). */
int cordon_settings_resolve(const struct cordon_settings *s, const struct cordon_host *h,
                            struct cordon_policy **ret, char ***ret_warnings,
                            struct cordon_diag *diag);

/* cordon_settings_resolve(), then the host actions at once: what the configuration asks to
 * exist is created on the host, each creation announced in @ret_warnings after the resolve
 * warnings (the HOME_WRITABLE directories silently). For callers that lower and launch in
 * separate steps and want the host prepared now; the launch then finds everything in place and
 * is silent. Same errors as cordon_settings_resolve(), plus those of creating an entry (-EEXIST
 * for another kind of object in its place, -ELOOP for a symlink on its path). */
int cordon_settings_lower(const struct cordon_settings *s, const struct cordon_host *h,
                          struct cordon_policy **ret, char ***ret_warnings,
                          struct cordon_diag *diag);

#ifdef __cplusplus
}
#endif
