/* Agent profiles (profiles/<name>/): what each agent of ENABLED_AGENTS adds to the settings.
 * profile-parse.c reads one profile file (pure), profiles.c finds the folders and loads them
 * (the settings fold them in: settings/settings-profiles.c, above this layer),
 * profiles-builtin.c (generated at build time from profiles/) holds the built-in ones. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"
#include "lib/policy/list.h"

/* The keys of a profile file, one per line: KEY VALUE. */
enum cordon_profile_key {
        CORDON_PROFILE_WRITABLE,       /* home-relative: HOME_WRITABLE */
        CORDON_PROFILE_READONLY,       /* home-relative: HOME_READONLY */
        CORDON_PROFILE_INSTRUCTIONS,   /* home-relative: BLOCKED_FILES, seen as a merged copy */
        CORDON_PROFILE_EXEC_CONFIG,    /* home-relative file of commands: a private copy inside */
        CORDON_PROFILE_EXEC_DIR,       /* home-relative directory of programs: read-only inside */
        CORDON_PROFILE_CONFIG_DIR_VAR, /* "NAME=PATH": NAME set inside to $HOME/PATH */
        CORDON_PROFILE_CREDENTIAL_ENV, /* a variable name: ALLOWED_ENV_VARS */
        CORDON_PROFILE_AUTH_PATH,      /* home-relative: reachable inside means logged in */
        CORDON_PROFILE_DIR,            /* home-relative: the agent's directory, read-only inside */
        CORDON_PROFILE_STATE,          /* home-relative directory the agent writes: HOME_WRITABLE */
        CORDON_PROFILE_STATE_FILE,     /* home-relative file the agent writes in place */
        CORDON_PROFILE_COMMAND,        /* a program name: on PATH, the agent is installed */
        /* The agent's private home (the directory config_dir_var names inside, a mirror of its
         * directory made for each run): "FILE NAME", home-relative FILE handed as a private
         * copy at NAME there, which the agent may replace by rename. */
        CORDON_PROFILE_PRIVATE_COPY,
        /* "FILE PATTERN": a key of private copy FILE (JSON) that flows back to the host file
         * after the run (dotted, `*` a whole step or the tail of one, $PROJECT the project). */
        CORDON_PROFILE_WRITEBACK,
        /* "FILE DOCUMENT": merged onto private copy FILE before the run (a JSON object); kept
         * out of it with AGENT_SETTINGS_UNTOUCHED. */
        CORDON_PROFILE_OVERLAY,
        /* FILE: the agent folder's settings.json (agent-folder.h) is merged onto private copy
         * FILE before the run: its permissions.allow rules and its hooks (Claude Code's
         * settings); kept out with AGENT_SETTINGS_UNTOUCHED, as the overlay is. */
        CORDON_PROFILE_FOLDER_SETTINGS,
        _CORDON_PROFILE_KEY_MAX,
};

/* Largest profile file and agent.md read; more items than this in one file is refused. */
#define CORDON_PROFILE_FILE_MAX  (64u * 1024)
#define CORDON_PROFILE_ITEMS_MAX 256u
#define CORDON_PROFILE_NAME_MAX  64u

struct cordon_agent_profile {
        char *name;
        char *note; /* agent.md ("" when the folder has none) */
        /* One list per key; each item's origin is "profile NAME (FILE:LINE)". */
        struct cordon_list items[_CORDON_PROFILE_KEY_MAX];
        /* From an agent folder (agent-folder.h), NULL without: its AGENT_LOGIN_HINT, said in
         * the warning about a login inside; its settings.json reduced to what is merged
         * (a JSON object of permissions.allow and hooks), and that file's path. */
        char *login_hint;
        char *settings;
        char *settings_file;
};

/* The key's spelling in a profile file ("writable", ...). */
const char *cordon_profile_key_name(enum cordon_profile_key k);

/* True for a valid agent name: [a-z0-9_-]+, at most CORDON_PROFILE_NAME_MAX bytes. */
bool cordon_profile_name_is_valid(const char *name);

/* True for a path a profile may name: relative to $HOME, no "." or ".." component, no empty
 * one, printable ASCII. */
bool cordon_profile_path_is_valid(const char *path);

/* Parses profile file text @text (@len bytes, need not be NUL-terminated) of agent @name into
 * @ret (cleared first), naming it @file in origins and messages. Lines are `KEY VALUE` with one
 * space or tab between, `#` comments and blank lines; values have no whitespace. Returns 0, or
 * -EINVAL with "FILE:LINE: reason" in @diag (unknown key, a path that is absolute or climbs, a
 * bad variable name, a NUL byte, a line without a value), -E2BIG past CORDON_PROFILE_FILE_MAX or
 * CORDON_PROFILE_ITEMS_MAX, -ENOMEM. @ret is cleared on failure. */
int cordon_profile_parse(const char *name, const char *file, const char *text, size_t len,
                         struct cordon_agent_profile *ret, struct cordon_diag *diag);

void cordon_agent_profile_clear(struct cordon_agent_profile *a);
/* Frees @n profiles at @a and the array; returns NULL. */
struct cordon_agent_profile *cordon_agent_profiles_free(struct cordon_agent_profile *a, size_t n);
/* A deep copy of @n profiles (NULL when @n is 0); -ENOMEM. */
int cordon_agent_profiles_copy(const struct cordon_agent_profile *a, size_t n,
                               struct cordon_agent_profile **ret);

/* A built-in profile (profiles-builtin.c, generated from profiles/<name>/ at build time). */
struct cordon_builtin_profile {
        const char *name;
        const char *profile;
        const char *note;
};
extern const struct cordon_builtin_profile cordon_builtin_profiles[];
extern const size_t cordon_builtin_profiles_count;

/* Reads regular file @path, at most @max bytes (-E2BIG beyond; -EINVAL: not a regular file),
 * following links, never blocking on a FIFO. */
int cordon_profile_read_file(const char *path, size_t max, char **ret, size_t *ret_len);

/* Where profiles are looked for (NULL skips one): @user_dir and @admin_dir hold cordon's
 * profile folders (<name>/profile, <name>/agent.md); @agent_dirs hold agent-sandbox's agent
 * folders (<name>/config.conf, agent.md, overlay.sh, settings.json; agent-folder.h), whose
 * config.conf sees HOME=@home; @help_dir stands for agent-sandbox's install directory in the
 * notes (NULL: the lines naming it are left out). */
struct cordon_profile_dirs {
        const char *user_dir;
        const char *admin_dir;
        const char *agent_dirs[2];
        const char *home;
        const char *help_dir;
};
/* The admin directory of the real lookup. */
#define CORDON_PROFILES_ADMIN_DIR "/etc/cordon/profiles"

/* Finds and loads the profile of agent @name, in this order:
 *   1. @user_dir/<name>/profile: used as a whole (an agent folder of the name is not read, with
 *      a warning);
 *   2. else the base, @admin_dir/<name>/profile or the built-in profile, extended by the first
 *      agent folder of @agent_dirs holding <name>: its entries added, its agent.md replacing the
 *      note;
 *   3. else that agent folder alone, as a profile of its own.
 * Returns 0, -ENOENT (no profile anywhere; @diag names the agent and every place searched),
 * -EINVAL for a bad name or file (with file:line), -errno of reading or evaluating. Warnings
 * (the agent folder's) are appended to *@warnings when not NULL. Evaluating a config.conf
 * starts a confined child: single-threaded callers only. */
int cordon_profile_load(const char *name, const struct cordon_profile_dirs *dirs,
                        struct cordon_agent_profile *ret, char ***warnings,
                        struct cordon_diag *diag);

/* Loads the profile of every name of @names, in order, each once (cordon_profile_load() for
 * each), the agent folders' config.conf of all of them in one confined child; the folder of a
 * name in @quiet (or of every name, with "all" in it; @quiet may be NULL) warns nothing. On
 * success *@ret holds *@ret_n profiles (NULL and 0 for an empty list; free with
 * cordon_agent_profiles_free()); on failure nothing, and the errors of cordon_profile_load().
 * Single-threaded callers only. */
int cordon_profiles_load_list(const struct cordon_list *names, const struct cordon_list *quiet,
                              const struct cordon_profile_dirs *dirs,
                              struct cordon_agent_profile **ret, size_t *ret_n, char ***warnings,
                              struct cordon_diag *diag);
