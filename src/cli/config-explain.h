/* `cordon config explain`: where a variable's value came from, and which rules of the resolved
 * policy touch a path. */
#pragma once

#include <stdbool.h>

#include "cordon/settings.h"

/* Whether @name is a variable of the registry. */
bool config_is_variable(const char *name);
/* Prints variable @name of @s: its value or items, each with the layer, file and line (or the
 * front end) that set it, and what the admin rules changed. Returns the exit status. */
int config_explain_key(const struct cordon_settings *s, const char *name);
/* Resolves @s on @h (nothing is created) and prints the filesystem rules that touch the
 * absolute normalised @path, in mount order, and which one decides what @path is. Returns the
 * exit status (125 when resolving fails). */
int config_explain_path(const struct cordon_settings *s, const struct cordon_host *h,
                        const char *path);
