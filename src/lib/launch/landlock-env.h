/* The landlock backend's variables for tool directories and configuration copies. */
#pragma once

#include <stdbool.h>

struct cordon_policy;

/* NAME=VALUE (strv, NULL when none) the landlock backend sets over the policy's environment:
 * @p->landlock_env as it is, and for each @p->landlock_env_files entry whose DATA rule exists
 * the variable naming a copy of its contents in @tmpdir (written, mode 0600, unless @dry_run;
 * none without @tmpdir). Returns 0 or -errno. */
int cordon_landlock_env(const struct cordon_policy *p, const char *tmpdir, bool dry_run,
                        char ***ret);
