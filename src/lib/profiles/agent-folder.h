/* agent-sandbox's agent folders, agents/<name>/ in the user's configuration directory, read as
 * they are: config.conf (bash, evaluated in config-eval.c's confined child and never in cordon's
 * process; its AGENT_* variables mapped onto the profile model), agent.md (the note), overlay.sh
 * (host code, never run: one warning says so) and settings.json (merged onto the private copy a
 * profile's folder_settings line names). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"
#include "lib/config/declare-parse.h"
#include "lib/profiles/profiles.h"

/* The variables config.conf sets, in the order of the dump. */
enum cordon_agent_conf_var {
        CORDON_AGENT_CONF_WRITABLE,    /* AGENT_REQUIRED_WRITABLE_PATHS: writable */
        CORDON_AGENT_CONF_READABLE,    /* AGENT_REQUIRED_READABLE_PATHS: readonly */
        CORDON_AGENT_CONF_BLOCKED,     /* AGENT_BLOCKED_FILES: instructions */
        CORDON_AGENT_CONF_CREDENTIALS, /* AGENT_CREDENTIAL_ENV_VARS: credential_env */
        CORDON_AGENT_CONF_AUTH,        /* AGENT_AUTH_MARKERS: auth_path */
        CORDON_AGENT_CONF_HINT,        /* AGENT_LOGIN_HINT: the profile's login_hint */
        _CORDON_AGENT_CONF_MAX,
};

/* The longest AGENT_LOGIN_HINT, and settings.json read. */
#define CORDON_AGENT_HINT_MAX     512u
#define CORDON_AGENT_SETTINGS_MAX (64u * 1024)

/* The variable's name ("AGENT_REQUIRED_WRITABLE_PATHS", ...). */
const char *cordon_agent_conf_var_name(enum cordon_agent_conf_var v);

/* The bash script that sources config.conf (its $1) in the confined child and prints
 * "#cordon-layer 1 STATUS", `declare -p` of the variables, "#cordon-end". Static text. */
const char *cordon_agent_conf_script(void);

/* Parses the child's stdout @out (@len bytes) into @ret (_CORDON_AGENT_CONF_MAX slots; release
 * with cordon_declare_values_clear()). -EINVAL with the reason in @diag, naming @file. */
int cordon_agent_conf_parse_dump(const char *file, const char *out, size_t len,
                                 struct cordon_declare_value *ret, struct cordon_diag *diag);

/* Maps the values @v (one per variable, as parsed) onto profile @a: paths must lie below @home
 * (the $HOME the file saw; one that is the home itself is left out of the writable and readable
 * lists with a warning), variable names be names, the hint printable and short. Each item's
 * origin is "profile NAME (FILE:LINE)", LINE the variable's last assignment in @text (config.conf
 * as read). @base, when not NULL, is the profile the folder extends: a writable entry for a path
 * it keeps itself (its dir, state, a file it copies or merges) is left out. Returns
 * 0, -EINVAL with "FILE:LINE: VARIABLE entry 'ENTRY': reason" in @diag, -E2BIG past
 * CORDON_PROFILE_ITEMS_MAX, -ENOMEM. Pure. */
int cordon_agent_conf_map(struct cordon_agent_profile *a, const struct cordon_agent_profile *base,
                          const char *file, const char *text, const char *home,
                          const struct cordon_declare_value *v, char ***warnings,
                          struct cordon_diag *diag);

/* settings.json reduced to what is merged: {"permissions":{"allow":[...]},"hooks":{...}} with
 * the parts it has, in *@ret (NULL when it has neither). -EINVAL with the reason in @diag
 * (naming @file) when it is not a JSON object, or those keys have another shape. Pure. */
int cordon_agent_settings_reduce(const char *file, const char *text, size_t len, char **ret,
                                 struct cordon_diag *diag);

/* @note with each line holding "__SANDBOX_DIR__" (agent-sandbox's install directory) given
 * @help_dir in its place, or left out when @help_dir is NULL. A newly allocated string. */
char *cordon_agent_note_resolve(const char *note, const char *help_dir);

/* The agent folder of @name: the first of @dirs (NULL entries skipped) holding a directory
 * <name>. 1 with its path in *@ret, 0 when none does, -errno. */
int cordon_agent_folder_find(const char *name, const char *const *dirs, size_t n, char **ret);

/* Reads folder @folder of agent @name into *@a: onto @a as it is when @extend (the profile the
 * folder extends: its items added, the note replaced by an agent.md), else as a profile of its
 * own (a `command NAME` line: the agent is installed when NAME is on PATH or its first writable
 * path exists). config.conf is evaluated with HOME=@home in the confined child. Warnings (the
 * overlay.sh line, a settings.json that nothing takes) are appended to *@warnings. @a is left as
 * it was on failure. Returns 0 or -errno with the reason in @diag. Single-threaded callers only
 * (the child is a sandbox). */
int cordon_agent_folder_load(const char *name, const char *folder, const char *home, bool extend,
                             struct cordon_agent_profile *a, char ***warnings,
                             struct cordon_diag *diag);
