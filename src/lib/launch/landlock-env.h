/* The landlock backend's variables for tool directories and configuration copies, and the ns
 * backend's for the writable twins of its read-only copies. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct cordon_policy;

/* NAME=VALUE (strv, NULL when none) the landlock backend sets over the policy's environment:
 * @p->landlock_env as it is, and for each @p->landlock_env_files entry whose DATA rule exists
 * the variable naming a copy of its contents in @tmpdir (a new file, mode 0600, written unless
 * @dry_run; none without @tmpdir). A variable the policy's environment sets already (the
 * caller's own) is left as it is, and no copy is written for it. Returns 0 or -errno. */
int cordon_landlock_env(const struct cordon_policy *p, const char *tmpdir, bool dry_run,
                        char ***ret);

/* The entry of @files (@p->landlock_env_files or @p->ns_env_files, "NAME=GUEST") that names
 * configuration copy @guest, with the length of NAME in *@ret_len and in *@ret_callers whether
 * the policy's environment sets NAME already (then the copy is not named there); NULL when no
 * entry names it (cargo's, or a second file of a tool whose variable the first has). */
const char *cordon_config_env_var(const struct cordon_policy *p, char *const *files,
                                  const char *guest, size_t *ret_len, bool *ret_callers);

/* NAME=VALUE (strv, NULL when none) the ns backend sets over the policy's environment: the
 * @p->ns_env_files entries whose NAME the policy's environment does not set already. Returns 0
 * or -ENOMEM. */
int cordon_ns_config_env(const struct cordon_policy *p, char ***ret);
