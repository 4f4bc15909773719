/* The configuration as every command loads it (sandbox.conf layers, then the environment; the
 * caller's flags; then the admin rules), and the small readers `cordon config` and
 * `cordon run --dry-run` share: a scalar of any length, the layer behind an origin, the origins
 * summary. Only the public API (cordon/settings.h). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "cordon/settings.h"

/* cordon_settings_load_config() with @envp, @project_dir (NULL: the working directory) and
 * @flags (CORDON_CONFIG_*), its warnings logged. Returns 0, or -errno after logging the error
 * (it names the file and line). */
int cli_config_load(struct cordon_settings *s, char *const *envp, const char *project_dir,
                    unsigned flags);
/* cordon_settings_finalize(), its warnings logged. Returns 0 or -errno after logging. */
int cli_config_finalize(struct cordon_settings *s);

/* @dir made absolute against @cwd (lexically, "." and ".." folded): the _PROJECT_DIR the
 * configuration sees. Returns 0 or -ENOMEM; @ret is the caller's to free. */
int cli_path_absolute(const char *dir, const char *cwd, char **ret);

/* @arg as an absolute normalised path, as a shell would have expanded it: "~" and "~/..." from
 * @home, anything relative from @cwd, then cli_path_absolute(). Returns 0, -EINVAL for ~user,
 * -ENOENT when @home is not an absolute path and @arg needs it, -ENOMEM. */
int cli_path_from_arg(const char *arg, const char *home, const char *cwd, char **ret);

/* The value of scalar @name (any length) in @ret (the caller frees it) and its origin. Returns
 * 0 or the error of cordon_settings_get(). */
int cli_settings_get(const struct cordon_settings *s, const char *name, char **ret,
                     const char **ret_origin);

/* What an origin means: "admin", "user" or "conf.d" for "FILE:LINE" of a file the loader read
 * (@ret_file and @ret_line then say which), "built-in", "environment", "command line",
 * "policy file", or "other". */
const char *cli_origin_layer(const struct cordon_settings *s, const char *origin,
                             const char **ret_file, unsigned *ret_line);

/* The configuration's origins, for `cordon run --dry-run`: the files read with their layers,
 * every value that is not the built-in default with its origin (a list: its items that are not,
 * and how many default items are gone), and what the admin rules changed. @defaults holds the
 * built-in defaults only, to count a list's default items against. */
void cli_config_print_origins(FILE *f, const struct cordon_settings *s,
                              const struct cordon_settings *defaults);
