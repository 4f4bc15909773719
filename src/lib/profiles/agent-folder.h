/* agent-sandbox's agent folders, agents/<name>/ in the user's configuration directory, read as
 * they are: config.conf (bash, agent-conf.h), agent.md (the note), overlay.sh (host code, never
 * run: one warning says so) and settings.json (merged onto the private copy a profile's
 * folder_settings line names). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"
#include "lib/profiles/agent-conf.h"
#include "lib/profiles/profiles.h"

/* The largest settings.json read. */
#define CORDON_AGENT_SETTINGS_MAX (64u * 1024)

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

/* What cordon_agent_folder_load() leaves for cordon_agent_folder_finish(): the folder, and its
 * config.conf as read (NULL: none), evaluated in between (several folders in one child). */
struct cordon_agent_pending {
        char *folder;
        char *conf_path;
        char *conf_text;
        bool extend;
        bool quiet; /* SUPPRESS_AGENT_WARNINGS names the agent: no overlay.sh line */
};
void cordon_agent_pending_clear(struct cordon_agent_pending *p);

/* Reads folder @folder of agent @name into *@a: onto @a as it is when @extend (the profile the
 * folder extends: its agent.md replaces the note), else as a profile of its own (a `command
 * NAME` line: the agent is installed when NAME is on PATH or its first writable path exists).
 * config.conf is read into @ret_pending, not evaluated. A settings.json that nothing takes is a
 * warning appended to *@warnings. @a is left as it was on failure. Returns 0 or -errno with the
 * reason in @diag. */
int cordon_agent_folder_load(const char *name, const char *folder, bool extend,
                             struct cordon_agent_profile *a,
                             struct cordon_agent_pending *ret_pending, char ***warnings,
                             struct cordon_diag *diag);

/* Maps config.conf's values @v (its _CORDON_AGENT_CONF_MAX slots, as
 * cordon_agent_conf_evaluate() left them for @p; NULL when it had none) onto @a, with HOME
 * @home, and adds overlay.sh's line to *@warnings. @a is left as it was on failure. */
int cordon_agent_folder_finish(struct cordon_agent_profile *a, const struct cordon_agent_pending *p,
                               const struct cordon_declare_value *v, const char *home,
                               char ***warnings, struct cordon_diag *diag);
