/* Agent profiles (profiles/<name>/): what each agent of ENABLED_AGENTS adds to the settings.
 * profile-parse.c reads one profile file (pure), profiles.c finds the folders and folds them in,
 * profiles-builtin.c (generated at build time from profiles/) holds the built-in ones. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"
#include "lib/policy/list.h"

struct cordon_settings;

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
};

/* The key's spelling in a profile file ("writable", ...). */
const char *cordon_profile_key_name(enum cordon_profile_key k);

/* True for a valid agent name: [a-z0-9_-]+, at most CORDON_PROFILE_NAME_MAX bytes. */
bool cordon_profile_name_is_valid(const char *name);

/* Parses profile file text @text (@len bytes, need not be NUL-terminated) of agent @name into
 * @ret (cleared first), naming it @file in origins and messages. Lines are `KEY VALUE` with one
 * space or tab between, `#` comments and blank lines; values have no whitespace. Returns 0, or
 * -EINVAL with "FILE:LINE: reason" in @diag (unknown key, a path that is absolute or climbs, a
 * bad variable name, a NUL byte, a line without a value), -E2BIG past CORDON_PROFILE_FILE_MAX or
 * CORDON_PROFILE_ITEMS_MAX, -ENOMEM. @ret is cleared on failure. */
int cordon_profile_parse(const char *name, const char *file, const char *text, size_t len,
                         struct cordon_agent_profile *ret, struct cordon_diag *diag);

/* Whether the agent state @value (home-relative) stays read-only: HOME_READONLY holds it, or an
 * entry of the configuration (not of a profile) holds a directory above it. */
bool cordon_profile_state_is_readonly(const struct cordon_settings *s, const char *value);

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

/* Where profile folders are looked for before the built-in ones: @user_dir first, then
 * @admin_dir (each holds <name>/profile and <name>/agent.md); NULL skips one. */
struct cordon_profile_dirs {
        const char *user_dir;
        const char *admin_dir;
};
/* The admin directory of the real lookup. */
#define CORDON_PROFILES_ADMIN_DIR "/etc/cordon/profiles"

/* Finds and parses the profile of agent @name: the first of @dirs holding <name>/profile wins
 * as a whole, else the built-in one. Returns 0, -ENOENT (no profile anywhere; @diag names the
 * agent and every place searched), -EINVAL for a bad name or file (with file:line), -errno of
 * reading. */
int cordon_profile_load(const char *name, const struct cordon_profile_dirs *dirs,
                        struct cordon_agent_profile *ret, struct cordon_diag *diag);

/* Folds the profile of every agent of ENABLED_AGENTS into @s (HOME_WRITABLE, HOME_READONLY,
 * BLOCKED_FILES, ALLOWED_ENV_VARS, ...), each item with origin "profile NAME (FILE:LINE)".
 * Warnings are appended to *@warnings (a NULL-terminated vector, may start NULL). Returns 0 or
 * -errno with the reason in @diag. Called by cordon_settings_finalize(). */
int cordon_profiles_fold(struct cordon_settings *s, char ***warnings, struct cordon_diag *diag);
/* The same, looking in @dirs instead of ~/.config/cordon/profiles and /etc/cordon/profiles. */
int cordon_profiles_fold_in(struct cordon_settings *s, const struct cordon_profile_dirs *dirs,
                            char ***warnings, struct cordon_diag *diag);
