/* An agent folder's config.conf (agent-sandbox's agents/<name>/config.conf): bash, evaluated in
 * config-eval.c's confined child and never in cordon's process, several files in one child (each
 * in a subshell of its own), its AGENT_* variables read back by declare-parse.c and mapped onto
 * the profile model. */
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

/* The longest AGENT_LOGIN_HINT; the most config.conf files one child evaluates. */
#define CORDON_AGENT_HINT_MAX  512u
#define CORDON_AGENT_CONFS_MAX 64u

/* The variable's name ("AGENT_REQUIRED_WRITABLE_PATHS", ...). */
const char *cordon_agent_conf_var_name(enum cordon_agent_conf_var v);

/* The bash script that evaluates @n files (its positional parameters), each sourced in a
 * subshell with the variables declared empty, and prints for file K "#cordon-layer K STATUS"
 * and `declare -p` of the variables, then "#cordon-end"; "#cordon-stderr K" on stderr before
 * file K. The caller frees it. */
char *cordon_agent_conf_script(size_t n);

/* Parses the child's stdout @out (@len bytes) for the @n files @files (as the user knows them,
 * for messages) into @ret (@n * _CORDON_AGENT_CONF_MAX slots, file K's at K *
 * _CORDON_AGENT_CONF_MAX; release with cordon_declare_values_clear()). -EINVAL with the reason
 * in @diag, naming the file whose section is missing or malformed. */
int cordon_agent_conf_parse_dump(const char *const *files, size_t n, const char *out, size_t len,
                                 struct cordon_declare_value *ret, struct cordon_diag *diag);

/* Evaluates the @n config.conf files @files (their texts @texts, as read) with HOME=@home in one
 * confined child; a file without code is not run (its variables stay empty). Fills @ret as
 * cordon_agent_conf_parse_dump() does. Each file's stderr lines (at most 8) are appended to
 * *@warnings, "FILE: line"; a syntax error, an early exit, the time or output limits refuse
 * (-EINVAL, -ETIME, -EFBIG with the file in @diag). Single-threaded callers only. */
int cordon_agent_conf_evaluate(const char *const *files, const char *const *texts, size_t n,
                               const char *home, struct cordon_declare_value *ret, char ***warnings,
                               struct cordon_diag *diag);

/* Maps the values @v (one per variable, as parsed) onto profile @a: paths must lie below @home
 * (the $HOME the file saw; one that is the home itself is left out of the writable and readable
 * lists with a warning), variable names be names, the hint printable and short. Each item's
 * origin is "profile NAME (FILE:LINE)", LINE the variable's last assignment in @text (config.conf
 * as read). @base, when not NULL, is the profile the folder extends: a writable entry for a path
 * it keeps itself (its dir, state, a file it copies or merges) is left out. Returns 0, -EINVAL
 * with "FILE:LINE: VARIABLE entry 'ENTRY': reason" in @diag, -E2BIG past
 * CORDON_PROFILE_ITEMS_MAX, -ENOMEM. Pure. */
int cordon_agent_conf_map(struct cordon_agent_profile *a, const struct cordon_agent_profile *base,
                          const char *file, const char *text, const char *home,
                          const struct cordon_declare_value *v, char ***warnings,
                          struct cordon_diag *diag);
