/* Environment rules: which inherited variables reach the sandboxed command. Pure functions. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "lib/policy/policy.h"

/* True when @name matches glob @pattern; a trailing "/i" on the pattern matches ignoring case. */
bool cordon_env_pattern_matches(const char *pattern, const char *name);
/* True when the rules remove @name (a variable name without "="), whatever its value. */
bool cordon_env_is_blocked(const struct cordon_env_rules *rules, const char *name);
/* True when @value holds a URL with userinfo: "://", then an '@' before any '/', '?', '#',
 * whitespace or list separator (',' ';' and quotes) ends the authority. Every "://" in the value
 * counts (lists, "proxy=..." forms), except after the login-name schemes ssh, git+ssh, ssh+git,
 * sftp and scp (any case), whose user part is no secret. (env-value.c) */
bool cordon_env_value_has_url_credentials(const char *value);
/* True when @value holds, at the start of a word, a token of a published shape: GitHub, GitLab,
 * Slack, Anthropic/OpenAI (sk-), AWS access key ids, Google API keys, Hugging Face, npm, a JWT,
 * or an HTTP "Bearer"/"Basic" credential. Each shape has a minimum length and charset (and
 * most a digit) so that ordinary values pass. (env-value.c) */
bool cordon_env_value_has_token(const char *value);
/* True when the value rules (block_url_credentials, block_token_values) remove @value. */
bool cordon_env_value_is_blocked(const struct cordon_env_rules *rules, const char *value);
/* True when the rules remove the entry NAME=VALUE: by name, or by value (the value rules)
 * unless the name is on the allow list. */
bool cordon_env_entry_is_blocked(const struct cordon_env_rules *rules, const char *name,
                                 const char *value);
/* Builds the command's environment from @envp: blocked entries removed, then the rules' "set"
 * entries (KEY=VALUE) applied, replacing any variable of the same name. Entries without "=" in
 * @envp are dropped. Returns 0 or -ENOMEM, -EINVAL for a "set" entry without a valid name. */
int cordon_env_filter(const struct cordon_env_rules *rules, char *const *envp, char ***ret_envp,
                      size_t *ret_n_blocked);
/* cordon_env_filter() that also returns, in @ret_blocked_names (may be NULL), the names of the
 * removed variables (names only, each once, in the order of @envp); a name too long to be a
 * variable's is counted but not named. */
int cordon_env_filter_names(const struct cordon_env_rules *rules, char *const *envp,
                            char ***ret_envp, size_t *ret_n_blocked, char ***ret_blocked_names);
/* True when @s is a valid variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool cordon_env_name_is_valid(const char *s, size_t len);
