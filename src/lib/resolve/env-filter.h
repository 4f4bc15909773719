/* Environment rules: which inherited variables reach the sandboxed command. Pure functions. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "lib/policy/policy.h"

/* True when @name matches glob @pattern; a trailing "/i" on the pattern matches ignoring case. */
bool cordon_env_pattern_matches(const char *pattern, const char *name);
/* True when the rules remove @name (a variable name without "="), whatever its value. */
bool cordon_env_is_blocked(const struct cordon_env_rules *rules, const char *name);
/* True when @value holds a URL with a password: "://", then a user part, ':', anything and '@'
 * before the host, that is before any '/', '?', '#', whitespace or list separator (',' ';' and
 * quotes) ends the authority. Every "://" in the value counts (lists, "proxy=..." forms). */
bool cordon_env_value_has_url_credentials(const char *value);
/* True when the rules remove the entry NAME=VALUE: by name, or by value (block_url_credentials)
 * unless the name is on the allow list. */
bool cordon_env_entry_is_blocked(const struct cordon_env_rules *rules, const char *name,
                                 const char *value);
/* Builds the command's environment from @envp: blocked entries removed, then the rules' "set"
 * entries (KEY=VALUE) applied, replacing any variable of the same name. Entries without "=" in
 * @envp are dropped. Returns 0 or -ENOMEM, -EINVAL for a "set" entry without a valid name. */
int cordon_env_filter(const struct cordon_env_rules *rules, char *const *envp, char ***ret_envp,
                      size_t *ret_n_blocked);
/* True when @s is a valid variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool cordon_env_name_is_valid(const char *s, size_t len);
