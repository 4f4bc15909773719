/* Credential-free copies of the package tools' and git's configuration files (~/.npmrc,
 * pip.conf, ~/.gitconfig, ~/.cargo/config.toml): a strict parser per format keeps the lines of
 * the keys on its allow list whose values carry no credential, and names the keys it drops.
 * Pure functions, no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum cordon_tool_config {
        CORDON_TOOL_CONFIG_NPMRC, /* npm's ini: key = value, comments ; and # */
        CORDON_TOOL_CONFIG_PIP,   /* configparser: [section], key = value or key: value */
        CORDON_TOOL_CONFIG_GIT,   /* git-config(1)'s syntax */
        CORDON_TOOL_CONFIG_CARGO, /* a TOML subset: tables, dotted keys, one-line values and arrays
                                   */
        _CORDON_TOOL_CONFIG_MAX,
};

/* The largest file taken: a configuration file is a few KiB. */
#define CORDON_TOOL_CONFIG_MAX_SIZE (256u * 1024u)
/* The most key names a copy reports as dropped; more are counted in the last one. */
#define CORDON_TOOL_CONFIG_MAX_DROPPED 64

/* The copy of @in (@n bytes, NULs refused) in format @f: the lines of the kept keys and every
 * blank line and section header (never a comment: a commented-out token is one), byte for
 * byte, each ended by a newline. *@ret_text
 * is a NUL-terminated string the caller frees; *@ret_dropped a strv of the dropped keys' names
 * (as the format spells them, one that holds a credential replaced by "<redacted>"; never a
 * value), NULL when nothing was dropped. Returns 0; -EINVAL when the text is not in the format
 * (nothing of it may be handed over), -E2BIG above CORDON_TOOL_CONFIG_MAX_SIZE, -ENOMEM. */
int cordon_tool_config_sanitize(enum cordon_tool_config f, const char *in, size_t n,
                                char **ret_text, char ***ret_dropped);

/* Internals shared by the format files (tool-config.c, tool-config-git.c, tool-config-toml.c). */
struct tool_config_out {
        char *text;
        size_t len, size;
        char **dropped;
        size_t n_dropped;
};
int cordon_tool_config_keep(struct tool_config_out *o, const char *line, size_t len);
/* Names a dropped key (@name, @len bytes); one that holds a credential becomes "<redacted>". */
int cordon_tool_config_drop(struct tool_config_out *o, const char *name, size_t len);
/* True when @v (@len bytes) holds a credential: userinfo in a URL, or a token of a published
 * shape (env-value.c's rules). */
bool cordon_tool_config_value_secret(const char *v, size_t len);
int cordon_tool_config_git(const char *in, size_t n, struct tool_config_out *o);
int cordon_tool_config_cargo(const char *in, size_t n, struct tool_config_out *o);
