/* The registry of settings variables: one row per variable of sandbox.conf's index
 * (agent-sandbox-configuration) plus cordon's own, with its type, built-in default, merge rule,
 * admin rule, parser and field. Nothing else holds a default. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/settings/cap-policy-internal.h"
#include "lib/resolve/env-filter.h"
#include "lib/mech/res-limits.h"
#include "lib/settings/settings.h"
#include "lib/settings/settings-defaults.h"
#include "lib/profiles/profiles.h"
#include "lib/net/net-rules.h"
#include "lib/net/net-server.h"
#include "shared/macro.h"

#define ONE(v) ((const char *const[]){v, NULL})

/* ---- parsers: one value (or list item) each, -EINVAL when it is not valid ---- */

static int parse_bool(const char *v, union cordon_var_value *ret)
{
        if (!streq(v, "true") && !streq(v, "false"))
                return -EINVAL;
        ret->b = streq(v, "true");
        return 0;
}

static int parse_home_access(const char *v, union cordon_var_value *ret)
{
        return (ret->e = cordon_home_access_from_string(v)) < 0 ? -EINVAL : 0;
}

static int parse_net_mode(const char *v, union cordon_var_value *ret)
{
        return (ret->e = cordon_net_mode_from_string(v)) < 0 ? -EINVAL : 0;
}

static int parse_backend(const char *v, union cordon_var_value *ret)
{
        return (ret->e = cordon_backend_from_string(v)) < 0 ? -EINVAL : 0;
}

static int parse_profile(const char *v, union cordon_var_value *ret)
{
        return (ret->e = cordon_profile_from_string(v)) < 0 ? -EINVAL : 0;
}

static int parse_fallback(const char *v, union cordon_var_value *ret)
{
        return (ret->e = cordon_fallback_from_string(v)) < 0 ? -EINVAL : 0;
}

static int parse_side_effect(const char *v, union cordon_var_value *ret)
{
        return (ret->e = cordon_side_effect_from_string(v)) < 0 ? -EINVAL : 0;
}

static const char *home_access_name(int v)
{
        return cordon_home_access_to_string((enum cordon_home_access)v);
}
static const char *net_mode_name(int v)
{
        return cordon_net_mode_to_string((enum cordon_net_mode)v);
}
static const char *backend_name(int v)
{
        return cordon_backend_to_string((enum cordon_backend)v);
}
static const char *profile_name(int v)
{
        return cordon_profile_to_string((enum cordon_profile)v);
}
static const char *fallback_name(int v)
{
        return cordon_fallback_to_string((enum cordon_fallback)v);
}
static const char *side_effect_name(int v)
{
        return cordon_side_effect_to_string((enum cordon_side_effect)v);
}

static int parse_one_of(const char *v, const char *const *names, union cordon_var_value *ret)
{
        for (int i = 0; names[i]; i++)
                if (streq(v, names[i])) {
                        ret->e = i;
                        return 0;
                }
        return -EINVAL;
}

/* In ladder order (enum cordon_net_fallback), weakest first. */
static int parse_filter_fallback(const char *v, union cordon_var_value *ret)
{
        return parse_one_of(v, (const char *const[]){"open", "stricter", "strict", NULL}, ret);
}

static const char *filter_fallback_name(int v)
{
        return cordon_net_fallback_to_string((enum cordon_net_fallback)v);
}

static const char *mail_block_name(int v)
{
        return cordon_mail_block_to_string((enum cordon_mail_block)v);
}

static const char *zero_one_name(int v)
{
        return v == 0 ? "0" : v == 1 ? "1" : NULL;
}

/* A NETWORK_BLOCKLIST(_EXCEPT) pattern; the full reason, with the item's origin, comes from
 * resolving (cordon_net_rules_add()). */
static int parse_net_pattern(const char *v, union cordon_var_value *ret)
{
        struct cordon_net_rule rule;
        ret->str = v;
        int r = cordon_net_rule_parse(v, false, "", &rule, NULL);
        if (r >= 0)
                cordon_net_rule_clear(&rule);
        return r < 0 ? -EINVAL : 0;
}

/* Why parse_net_pattern() refuses @v: the parser's reason ("CIDR prefix length out of range
 * (0-128)"), said with the entry before the forms a pattern may take. */
static const char *net_pattern_why(const char *v)
{
        const char *why = NULL;
        return cordon_net_pattern_check(v, &why) < 0 ? why : NULL;
}

static int describe_block(const char *v, char *buf, size_t size)
{
        return cordon_net_pattern_describe(v, false, buf, size);
}

static int describe_except(const char *v, char *buf, size_t size)
{
        return cordon_net_pattern_describe(v, true, buf, size);
}

/* ADDR, ADDR:PORT or [V6]:PORT, canonical addresses only. */
static int parse_dns_server(const char *v, union cordon_var_value *ret)
{
        struct cordon_net_addr a;
        uint16_t port;
        ret->str = v;
        return cordon_net_parse_server(v, &a, &port) < 0 ? -EINVAL : 0;
}

static int parse_mail_block(const char *v, union cordon_var_value *ret)
{
        return parse_one_of(v, (const char *const[]){"off", "auto", "on", NULL}, ret);
}

static const char *const slurm_scopes[] = {"session", "project", "user", "none", NULL};
static const char *const log_levels[] = {"debug", "info", "warn", "error", NULL};

static const char *slurm_scope_name(int v)
{
        return v >= 0 && v < 4 ? slurm_scopes[v] : NULL;
}

_Static_assert(ELEMENTSOF(log_levels) == _CORDON_CHAPERON_LEVEL_MAX + 1,
               "CHAPERON_LOG_LEVEL's names and enum cordon_chaperon_level differ");

const char *cordon_chaperon_level_name(int v)
{
        return v >= 0 && v < _CORDON_CHAPERON_LEVEL_MAX ? log_levels[v] : NULL;
}

/* true/false, or 1/0 as the spec spells CLEANUP_MATERIALIZED_BLOCKED_FILES. */
static int parse_bool01(const char *v, union cordon_var_value *ret)
{
        if (streq(v, "1") || streq(v, "0")) {
                ret->b = streq(v, "1");
                return 0;
        }
        return parse_bool(v, ret);
}

/* An Lmod module name (name or name/version): no spaces, no shell metacharacters, not an
 * option. It goes to `module load` as one argument, never through a shell's parser, but a
 * name starting with '-' would still be read as an option. */
static int parse_module(const char *v, union cordon_var_value *ret)
{
        ret->str = v;
        if (!*v || *v == '-' || strlen(v) > 256)
                return -EINVAL;
        for (const char *c = v; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                      (*c >= '0' && *c <= '9') || strchr("._-+/@:", *c)))
                        return -EINVAL;
        return 0;
}

static int parse_slurm_scope(const char *v, union cordon_var_value *ret)
{
        return parse_one_of(v, slurm_scopes, ret);
}

static int parse_log_level(const char *v, union cordon_var_value *ret)
{
        return parse_one_of(v, log_levels, ret);
}

static int parse_zero_one(const char *v, union cordon_var_value *ret)
{
        return parse_one_of(v, (const char *const[]){"0", "1", NULL}, ret);
}

static int parse_preset(const char *v, union cordon_var_value *ret)
{
        for (size_t i = 0; i < ELEMENTSOF(cordon_cap_preset_names); i++)
                if (streq(v, cordon_cap_preset_names[i])) {
                        ret->e = (int)i;
                        return 0;
                }
        return -EINVAL;
}

/* A whole number from 1 to @max. */
static int parse_count(const char *v, uint64_t max, uint64_t *ret)
{
        char *end;
        if (*v < '0' || *v > '9')
                return -EINVAL;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 10);
        if (errno || *end || n == 0 || n > max)
                return -EINVAL;
        *ret = n;
        return 0;
}

static int parse_pids(const char *v, union cordon_var_value *ret)
{
        return parse_count(v, 4194304, &ret->u64);
}

static int parse_cpus(const char *v, union cordon_var_value *ret)
{
        uint64_t n;
        int r = parse_count(v, 4096, &n);
        if (r >= 0)
                ret->u = (unsigned)n;
        return r;
}

/* "" (no limit) or a whole number above 0. */
static int parse_optional_count(const char *v, union cordon_var_value *ret)
{
        ret->u64 = 0;
        return *v ? parse_count(v, UINT32_MAX, &ret->u64) : 0;
}

static int parse_days(const char *v, union cordon_var_value *ret)
{
        return parse_count(v, 36500, &ret->u64);
}

/* "30", "0.5", "1.25": seconds with up to 6 decimals, above 0 and at most a year. */
static int parse_seconds(const char *s, union cordon_var_value *ret)
{
        uint64_t whole = 0, frac = 0, scale = 1000000;
        const char *p = s;
        if (*p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                whole = whole * 10 + (uint64_t)(*p - '0');
                if (whole > 366ULL * 24 * 3600)
                        return -EINVAL;
        }
        if (*p == '.') {
                p++;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                for (; *p >= '0' && *p <= '9'; p++)
                        if (scale > 1) {
                                scale /= 10;
                                frac += (uint64_t)(*p - '0') * scale;
                        }
        }
        if (*p)
                return -EINVAL;
        uint64_t usec = whole * 1000000 + frac;
        if (usec == 0)
                return -EINVAL;
        ret->u64 = usec;
        return 0;
}

static void format_seconds(uint64_t usec, char *buf, size_t size)
{
        if (usec % 1000000 == 0)
                snprintf(buf, size, "%llu", (unsigned long long)(usec / 1000000));
        else {
                snprintf(buf, size, "%llu.%06llu", (unsigned long long)(usec / 1000000),
                         (unsigned long long)(usec % 1000000));
                for (char *e = buf + strlen(buf) - 1; *e == '0'; e--)
                        *e = 0;
        }
}

static int parse_memory(const char *v, union cordon_var_value *ret)
{
        return cordon_parse_size(v, &ret->u64) < 0 || ret->u64 == 0 ? -EINVAL : 0;
}

/* 0 would mean "no size" downstream; above 1E the kernel's page rounding can wrap. */
static int parse_tmp_size(const char *v, union cordon_var_value *ret)
{
        return cordon_parse_size(v, &ret->u64) < 0 || ret->u64 == 0 ||
                       ret->u64 > CORDON_TMP_SIZE_MAX
                   ? -EINVAL
                   : 0;
}

static int parse_absolute(const char *v, union cordon_var_value *ret)
{
        ret->str = v;
        return v[0] == '/' ? 0 : -EINVAL;
}

/* Absolute, or below the home directory ("$HOME/src", "${HOME}", "~/src"; expanded by
 * cordon_settings_expand_home() where the home is known). */
static int parse_project_parent(const char *v, union cordon_var_value *ret)
{
        ret->str = v;
        return v[0] == '/' || cordon_settings_names_home(v) ? 0 : -EINVAL;
}

static int parse_nonempty(const char *v, union cordon_var_value *ret)
{
        ret->str = v;
        return *v ? 0 : -EINVAL;
}

/* An entry below $HOME: relative, and no ".." component to climb out with. */
static int parse_home_relative(const char *v, union cordon_var_value *ret)
{
        ret->str = v;
        if (!*v || v[0] == '/')
                return -EINVAL;
        for (const char *c = v; (c = strstr(c, "..")); c += 2)
                if ((c == v || c[-1] == '/') && (c[2] == 0 || c[2] == '/'))
                        return -EINVAL;
        return 0;
}

static int parse_env_assignment(const char *v, union cordon_var_value *ret)
{
        const char *eq = strchr(v, '=');
        ret->str = v;
        return eq && cordon_env_name_is_valid(v, (size_t)(eq - v)) ? 0 : -EINVAL;
}

static int parse_agent_name(const char *v, union cordon_var_value *ret)
{
        ret->str = v;
        return cordon_profile_name_is_valid(v) ? 0 : -EINVAL;
}

/* ---- the table ---- */

#define F(field)        offsetof(struct cordon_settings, field)
#define NO_FIELD        SIZE_MAX
#define EXPECT_PATH     "must be an absolute path"
#define EXPECT_HOME_REL "expected a path relative to $HOME without '..'"
#define EXPECT_BOOL     "expected true or false"
#define EXPECT_NET_PATTERN                                                                         \
        "expected HOST[:PORT][/PATH] (HOST a name, *.suffix or a glob of * and ?), an address "    \
        "or CIDR with :PORT if wanted ([v6]/LEN:PORT), a port, or *"

/* Lists: merge by appending; scalars by replacing unless the spec makes them harden-only. */
#define LIST(n, field, adm, dflt, p, exp)                                                          \
        {                                                                                          \
                .name = n, .type = CORDON_VAR_LIST, .merge = CORDON_MERGE_APPEND, .admin = adm,    \
                .status = CORDON_VAR_ENFORCED, .defaults = dflt, .parse = p, .expected = exp,      \
                .offset = F(field), .origin_offset = NO_FIELD                                      \
        }
/* A list of network patterns: a refusal says the parser's reason. */
#define NET_LIST(n, field, adm, desc)                                                              \
        {                                                                                          \
                .name = n, .type = CORDON_VAR_LIST, .merge = CORDON_MERGE_APPEND, .admin = adm,    \
                .status = CORDON_VAR_ENFORCED, .parse = parse_net_pattern,                         \
                .expected = EXPECT_NET_PATTERN, .why = net_pattern_why, .describe = desc,          \
                .offset = F(field), .origin_offset = NO_FIELD                                      \
        }
#define SCALAR(n, t, m, adm, dflt, p, exp, field)                                                  \
        {                                                                                          \
                .name = n, .type = t, .merge = m, .admin = adm, .status = CORDON_VAR_ENFORCED,     \
                .defaults = dflt, .parse = p, .expected = exp, .offset = F(field),                 \
                .origin_offset = F(field##_origin)                                                 \
        }
#define ENUM(n, m, adm, dflt, p, names, exp, field)                                                \
        {                                                                                          \
                .name = n, .type = CORDON_VAR_ENUM, .merge = m, .admin = adm,                      \
                .status = CORDON_VAR_ENFORCED, .defaults = dflt, .parse = p, .enum_name = names,   \
                .expected = exp, .offset = F(field), .origin_offset = F(field##_origin)            \
        }
#define LIMIT(n, t, dflt, p, fmt, exp, field, origin)                                              \
        {                                                                                          \
                .name = n, .type = t, .merge = CORDON_MERGE_REPLACE, .admin = CORDON_ADMIN_NONE,   \
                .status = CORDON_VAR_ENFORCED, .defaults = dflt, .parse = p, .format = fmt,        \
                .expected = exp, .offset = F(limits.field), .origin_offset = F(origin)             \
        }
/* A row naming a program the supervisor runs outside the sandbox: settable by the admin
 * baseline, the environment and the command line only (config-load.c refuses it in a user's
 * file), and the program must be root's (host-program.c). */
#define HOST_PROGRAM(n, adm, field)                                                                \
        {                                                                                          \
                .name = n, .type = CORDON_VAR_STRING, .merge = CORDON_MERGE_REPLACE, .admin = adm, \
                .status = CORDON_VAR_ENFORCED, .parse = parse_absolute, .expected = EXPECT_PATH,   \
                .offset = F(field), .origin_offset = F(field##_origin), .host_program = true       \
        }
/* Not enforced yet, or a documented no-op: a row with no field. */
#define NOT_ENFORCED(n, t, m, adm, st, dflt, p, exp)                                               \
        {                                                                                          \
                .name = n, .type = t, .merge = m, .admin = adm, .status = st, .defaults = dflt,    \
                .parse = p, .expected = exp, .offset = NO_FIELD, .origin_offset = NO_FIELD         \
        }

const struct cordon_var cordon_vars[] = {
    /* ---- Project & home ---- */
    /* cordon's default is $HOME, /tmp and /var/tmp, not the Fred Hutch file systems. */
    LIST("ALLOWED_PROJECT_PARENTS", allowed_project_parents, CORDON_ADMIN_NARROW_ONLY,
         cordon_default_allowed_project_parents, parse_project_parent,
         "must be an absolute path, or start with $HOME, ${HOME} or ~/"),
    /* cordon's own: the writable project directory (--project-dir); unset: the working
     * directory. */
    SCALAR("PROJECT_DIR", CORDON_VAR_STRING, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, NULL,
           parse_nonempty, "expected a directory", project_dir),
    /* Harden-only, cordon's own rule (the spec has none): its ladder is write < read < tmpwrite
     * < restricted (settings-finalize.c), whatever the enum's order. */
    ENUM("HOME_ACCESS", CORDON_MERGE_REPLACE, CORDON_ADMIN_HARDEN_ONLY, ONE("tmpwrite"),
         parse_home_access, home_access_name, "expected tmpwrite, restricted, read or write",
         home_access),
    LIST("HOME_READONLY", home_readonly, CORDON_ADMIN_NO_ESCALATION, cordon_default_home_readonly,
         parse_home_relative, EXPECT_HOME_REL),
    LIST("HOME_WRITABLE", home_writable, CORDON_ADMIN_ADDITIVE, cordon_default_home_writable,
         parse_home_relative, EXPECT_HOME_REL),
    LIST("HOME_SEEDED_FILES", home_seeded, CORDON_ADMIN_ADDITIVE, cordon_default_home_seeded,
         parse_home_relative, EXPECT_HOME_REL),
    /* cordon's own: credential stores hidden whatever HOME_ACCESS says. */
    LIST("HOME_ALWAYS_BLOCKED", home_always_blocked, CORDON_ADMIN_RESTORED,
         cordon_default_home_always_blocked, parse_home_relative, EXPECT_HOME_REL),

    /* ---- Mounts ---- */
    /* Relative entries are taken from the working directory, as --ro has always done. */
    LIST("READONLY_MOUNTS", readonly_mounts, CORDON_ADMIN_ADDITIVE, cordon_default_readonly_mounts,
         NULL, NULL),
    LIST("EXTRA_WRITABLE_PATHS", extra_writable_paths, CORDON_ADMIN_ADDITIVE, NULL, NULL, NULL),
    /* Only the admin baseline's value counts (cordon_settings_finalize() puts it back and
     * strips the writable entries below it); a user's value is ignored with a warning. */
    LIST("DENIED_WRITABLE_PATHS", denied_writable_paths, CORDON_ADMIN_ADMIN_ONLY, NULL,
         parse_absolute, EXPECT_PATH),
    LIST("EXTRA_BLOCKED_PATHS", extra_blocked_paths, CORDON_ADMIN_RESTORED, NULL, NULL, NULL),
    LIST("BLOCKED_FILES", blocked_files, CORDON_ADMIN_RESTORED, NULL, NULL, NULL),
    /* After the command exits, the placeholders this launch created for BLOCKED_FILES are
     * removed while still empty. The spec spells it 1; true/false are taken too. */
    SCALAR("CLEANUP_MATERIALIZED_BLOCKED_FILES", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE,
           CORDON_ADMIN_NONE, ONE("false"), parse_bool01, "expected 1, 0, true or false",
           cleanup_materialized),

    /* ---- Devices ---- */
    LIST("DEVICES", devices, CORDON_ADMIN_ADDITIVE, cordon_default_devices, parse_absolute,
         EXPECT_PATH),
    LIST("DEVICES_BLACKLIST", devices_blacklist, CORDON_ADMIN_RESTORED,
         cordon_default_devices_blacklist, parse_absolute, EXPECT_PATH),
    /* Deprecated: the kernel-aware shim of the spec (lower_devices()): on kernel < 5.4 /dev/pts
     * is added to DEVICES (where DEVICES_BLACKLIST still vetoes it), on >= 5.4 a no-op; either
     * way one note line says so. */
    SCALAR("BIND_DEV_PTS", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, ONE("false"),
           parse_bool, EXPECT_BOOL, bind_dev_pts),

    /* ---- Environment ---- */
    LIST("BLOCKED_ENV_VARS", blocked_env_vars, CORDON_ADMIN_RESTORED,
         cordon_default_blocked_env_vars, parse_nonempty, "expected a variable name"),
    LIST("BLOCKED_ENV_PATTERNS", blocked_env_patterns, CORDON_ADMIN_RESTORED,
         cordon_default_blocked_env_patterns, parse_nonempty, "expected a pattern"),
    LIST("ALLOWED_ENV_VARS", allowed_env_vars, CORDON_ADMIN_ADDITIVE,
         cordon_default_allowed_env_vars, parse_nonempty, "expected a variable name"),
    LIST("SANDBOX_ENV", sandbox_env, CORDON_ADMIN_ADDITIVE, NULL, parse_env_assignment,
         "expected NAME=VALUE"),
    /* cordon's own: values that carry userinfo in a URL (scheme://user[:pass]@) are dropped. */
    SCALAR("BLOCK_ENV_URL_CREDENTIALS", CORDON_VAR_BOOL, CORDON_MERGE_HARDEN,
           CORDON_ADMIN_HARDEN_ONLY, ONE("true"), parse_bool, EXPECT_BOOL,
           block_env_url_credentials),
    /* cordon's own: values that hold a token of a published shape (ghp_..., sk-..., AKIA...,
     * a JWT, "Bearer ...") are dropped whatever the variable is called. */
    SCALAR("BLOCK_ENV_TOKEN_VALUES", CORDON_VAR_BOOL, CORDON_MERGE_HARDEN, CORDON_ADMIN_HARDEN_ONLY,
           ONE("true"), parse_bool, EXPECT_BOOL, block_env_token_values),

    /* ---- Backend & isolation ---- */
    /* Pinned (cordon's own rule): an admin's value beats even the environment and --backend. */
    ENUM("SANDBOX_BACKEND", CORDON_MERGE_REPLACE, CORDON_ADMIN_PINNED, ONE("auto"), parse_backend,
         backend_name, "expected auto, ns (or bwrap) or landlock", backend),
    /* Only set inline through SANDBOX_BACKEND in the spec; cordon has two backends and picks
     * between them itself. */
    NOT_ENFORCED("SANDBOX_PREFERRED_BACKENDS", CORDON_VAR_LIST, CORDON_MERGE_REPLACE,
                 CORDON_ADMIN_NONE, CORDON_VAR_UNSUPPORTED, NULL, parse_backend,
                 "expected auto, ns (or bwrap) or landlock"),
    /* Lmod modules loaded (in a child bash) before the sandbox starts; their PATH-like changes
     * are carried into the sandbox (src/lib/launch/lmod.c). */
    LIST("SANDBOX_MODULES", sandbox_modules, CORDON_ADMIN_ADDITIVE, NULL, parse_module,
         "expected a module name"),
    /* cordon's own: the profile ladder (--profile); a capability policy can only raise it. */
    ENUM("SANDBOX_PROFILE", CORDON_MERGE_REPLACE, CORDON_ADMIN_HARDEN_ONLY, ONE("worktree"),
         parse_profile, profile_name, "expected unrestricted, worktree, wasi or os_hardened",
         profile),
    /* cordon's own (harn's name): what the worktree profile does when a layer is missing. */
    ENUM("CORDON_HANDLER_SANDBOX", CORDON_MERGE_HARDEN, CORDON_ADMIN_HARDEN_ONLY, ONE("enforce"),
         parse_fallback, fallback_name, "expected off, warn or enforce", fallback),
    SCALAR("PRIVATE_TMP", CORDON_VAR_BOOL, CORDON_MERGE_HARDEN, CORDON_ADMIN_HARDEN_ONLY,
           ONE("true"), parse_bool, EXPECT_BOOL, private_tmp),
    SCALAR("PRIVATE_IPC", CORDON_VAR_BOOL, CORDON_MERGE_HARDEN, CORDON_ADMIN_HARDEN_ONLY,
           ONE("true"), parse_bool, EXPECT_BOOL, private_ipc),
    SCALAR("FILTER_PASSWD", CORDON_VAR_BOOL, CORDON_MERGE_HARDEN, CORDON_ADMIN_HARDEN_ONLY,
           ONE("true"), parse_bool, EXPECT_BOOL, filter_passwd),
    /* cordon's own: .git/config and .git/hooks of the project read-only. */
    SCALAR("PROTECT_GIT_CONFIG", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_HARDEN_ONLY,
           ONE("true"), parse_bool, EXPECT_BOOL, protect_git),
    /* cordon's own: the project's agent files of commands (.mcp.json, .claude, .envrc, ...)
     * read-only (lower-agent-project.c). */
    SCALAR("PROTECT_AGENT_PROJECT_FILES", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE,
           ONE("true"), parse_bool, EXPECT_BOOL, protect_agent_files),
    /* cordon's own: persistent package caches of the sandboxes' own (npm, pip, uv, cargo, go,
     * yarn) below $XDG_CACHE_HOME/cordon/caches, never the host's (lower-caches.c). Harden-only
     * with a reversed ladder: false, no cache shared between sandboxes, is the stricter. */
    SCALAR("PACKAGE_CACHES", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_HARDEN_ONLY,
           ONE("true"), parse_bool, EXPECT_BOOL, package_caches),
    /* cordon's own: ~/.npmrc, pip.conf, ~/.gitconfig and ~/.cargo/config.toml handed over as
     * copies without their credentials (lower-configs.c). */
    SCALAR("TOOL_CONFIG_COPIES", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE,
           ONE("true"), parse_bool, EXPECT_BOOL, tool_config_copies),
    /* RLIMIT_NPROC of the command: it counts per uid, not per sandbox; PIDS_LIMIT is cordon's
     * per-sandbox bound. */
    SCALAR("SANDBOX_NPROC_LIMIT", CORDON_VAR_U64, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, ONE(""),
           parse_optional_count, "expected a whole number above 0, or nothing", nproc_limit),
    SCALAR("SANDBOX_QUIET", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, ONE("false"),
           parse_bool, EXPECT_BOOL, quiet),

    /* ---- cordon's own: the terminal ---- */
    SCALAR("NO_PTY", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, ONE("false"),
           parse_bool, EXPECT_BOOL, no_pty),
    /* Harden-only with a reversed ladder: false (cordon's own pty) is the stricter. */
    SCALAR("TERMINAL_PASSTHROUGH", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_HARDEN_ONLY,
           ONE("false"), parse_bool, EXPECT_BOOL, terminal_passthrough),

    /* ---- cordon's own: limits (unset: none) ---- */
    LIMIT("TIMEOUT", CORDON_VAR_U64, NULL, parse_seconds, format_seconds,
          "expected a number of seconds above 0 (such as 30 or 0.5)", timeout_usec, timeout_origin),
    LIMIT("MEMORY_LIMIT", CORDON_VAR_U64, NULL, parse_memory, NULL,
          "expected a size such as 512M or 4G", memory_bytes, memory_origin),
    LIMIT("PIDS_LIMIT", CORDON_VAR_U64, NULL, parse_pids, NULL, "expected a whole number above 0",
          pids, pids_origin),
    LIMIT("CPU_LIMIT", CORDON_VAR_UNSIGNED, NULL, parse_cpus, NULL,
          "expected a whole number above 0", cpus, cpus_origin),
    LIMIT("TMP_SIZE", CORDON_VAR_U64, NULL, parse_tmp_size, NULL,
          "expected a size such as 64M or 1G, at most 1E", tmp_size_bytes, tmp_size_origin),
    SCALAR("CGROUP_PATH", CORDON_VAR_STRING, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, NULL,
           parse_absolute, EXPECT_PATH, cgroup_path),

    /* ---- Network filter ---- */
    ENUM("NETWORK_FILTER_MODE", CORDON_MERGE_HARDEN, CORDON_ADMIN_HARDEN_ONLY, ONE("filtered"),
         parse_net_mode, net_mode_name, "expected open, filtered, proxied or isolated", net_mode),
    /* cordon's default is stricter, not the spec's open: its own proxy needs nothing external,
     * so a host that cannot run pasta lands on proxied, not on the open network. */
    ENUM("NETWORK_FILTER_FALLBACK", CORDON_MERGE_HARDEN, CORDON_ADMIN_HARDEN_ONLY, ONE("stricter"),
         parse_filter_fallback, filter_fallback_name, "expected strict, stricter or open",
         net_fallback),
    /* The built-in floor is the rule matcher's (net-rules-floor.c), never an item here, so no
     * list operation can remove it. */
    NET_LIST("NETWORK_BLOCKLIST", net_blocklist, CORDON_ADMIN_RESTORED, describe_block),
    NET_LIST("NETWORK_BLOCKLIST_EXCEPT", net_blocklist_except, CORDON_ADMIN_ADDITIVE,
             describe_except),
    ENUM("NETWORK_MAIL_BLOCK", CORDON_MERGE_HARDEN, CORDON_ADMIN_HARDEN_ONLY, ONE("auto"),
         parse_mail_block, mail_block_name, "expected off, auto or on", mail_block),
    ENUM("NETWORK_FILTER_SKIP_HELPER_PROBE", CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, ONE("0"),
         parse_zero_one, zero_one_name, "expected 0 or 1", net_skip_probe),
    /* cordon's own: pasta's path (unset: searched in the system directories only, never in
     * the caller's PATH), the proxy's DNS server, and the proxy's decision log. The helper runs
     * on the host: a host program (never from a user's file, root's; lib/mech/host-program.h),
     * and both are pinned by an admin's value. */
    HOST_PROGRAM("NETWORK_FILTER_HELPER", CORDON_ADMIN_PINNED, net_filter_helper),
    SCALAR("NETWORK_PROXY_DNS", CORDON_VAR_STRING, CORDON_MERGE_REPLACE, CORDON_ADMIN_PINNED, NULL,
           parse_dns_server, "expected an IP address, optionally with :PORT ([v6]:PORT)",
           net_proxy_dns),
    SCALAR("NETWORK_LOG", CORDON_VAR_STRING, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, NULL,
           parse_nonempty, "expected a file name", net_log),

    /* ---- Slurm and the chaperon (src/lib/slurm/, src/slurm/) ---- */
    ENUM("SLURM_SCOPE", CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, ONE("project"), parse_slurm_scope,
         slurm_scope_name, "expected session, project, user or none", slurm_scope),
    ENUM("CHAPERON_LOG_LEVEL", CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, ONE("info"),
         parse_log_level, cordon_chaperon_level_name, "expected debug, info, warn or error",
         chaperon_log_level),
    SCALAR("CHAPERON_LOG_RETAIN_DAYS", CORDON_VAR_U64, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE,
           ONE("7"), parse_days, "expected a whole number of days above 0",
           chaperon_log_retain_days),

    /* ---- Agent profiles ---- */
    /* Each name's profile (profiles/<name>/, src/lib/profiles/) is folded into HOME_WRITABLE,
     * HOME_READONLY, BLOCKED_FILES and ALLOWED_ENV_VARS by cordon_settings_finalize(). */
    LIST("ENABLED_AGENTS", enabled_agents, CORDON_ADMIN_ADDITIVE, cordon_default_enabled_agents,
         parse_agent_name, "expected an agent name ([a-z0-9_-]+)"),
    /* Names (or all) whose startup warning about unreachable credentials is not printed. */
    LIST("SUPPRESS_AGENT_WARNINGS", suppress_agent_warnings, CORDON_ADMIN_ADDITIVE, NULL,
         parse_agent_name, "expected an agent name ([a-z0-9_-]+) or all"),
    /* Names (or all) whose private settings get no overlay (their own sandbox and permission
     * prompts stay as the user has them). */
    LIST("AGENT_SETTINGS_UNTOUCHED", agent_settings_untouched, CORDON_ADMIN_ADDITIVE, NULL,
         parse_agent_name, "expected an agent name ([a-z0-9_-]+) or all"),

    /* ---- cordon's own: a capability policy (cordon-policy(5), settings-policy.c) ---- */
    /* Set: the sandbox is confined to the roots below instead of a project directory. */
    SCALAR("POLICY", CORDON_VAR_STRING, CORDON_MERGE_REPLACE, CORDON_ADMIN_NONE, NULL,
           parse_nonempty, "expected the policy's name", policy),
    LIST("POLICY_WORKSPACE_ROOTS", workspace_roots, CORDON_ADMIN_NARROW_ONLY, NULL, parse_absolute,
         EXPECT_PATH),
    LIST("POLICY_READ_ONLY_ROOTS", read_only_roots, CORDON_ADMIN_ADDITIVE, NULL, parse_absolute,
         EXPECT_PATH),
    LIST("POLICY_READ_ROOTS", read_roots, CORDON_ADMIN_NARROW_ONLY, NULL, parse_absolute,
         EXPECT_PATH),
    LIST("POLICY_WRITE_ROOTS", write_roots, CORDON_ADMIN_NARROW_ONLY, NULL, parse_absolute,
         EXPECT_PATH),
    LIST("POLICY_PRESETS", presets, CORDON_ADMIN_NARROW_ONLY, cordon_default_presets, parse_preset,
         "expected system_runtime, developer_toolchains, package_manager_config or user_temp"),
    /* The workspace.read_text, list or exists capability: workspace roots are readable. */
    SCALAR("POLICY_WORKSPACE_READ", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_HARDEN_ONLY,
           ONE("true"), parse_bool, EXPECT_BOOL, workspace_read),
    /* The workspace.write_text capability: workspace and write roots are writable, and the
     * user_temp preset's scratch directories. */
    SCALAR("POLICY_WORKSPACE_WRITES", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE,
           CORDON_ADMIN_HARDEN_ONLY, ONE("true"), parse_bool, EXPECT_BOOL, workspace_writes),
    /* The workspace.delete capability: entries of workspace and write roots may be removed
     * (only where the backend can give removal without writes: see lower-cap.c). */
    SCALAR("POLICY_WORKSPACE_DELETE", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE,
           CORDON_ADMIN_HARDEN_ONLY, ONE("true"), parse_bool, EXPECT_BOOL, workspace_delete),
    /* The process.exec capability: without it no command may run. */
    SCALAR("POLICY_PROCESS_EXEC", CORDON_VAR_BOOL, CORDON_MERGE_REPLACE, CORDON_ADMIN_HARDEN_ONLY,
           ONE("true"), parse_bool, EXPECT_BOOL, process_exec),
    ENUM("SIDE_EFFECT_LEVEL", CORDON_MERGE_REPLACE, CORDON_ADMIN_HARDEN_ONLY, ONE("network"),
         parse_side_effect, side_effect_name,
         "expected none, read_only, workspace_write, process_exec or network", side_effect_level),
};
const size_t cordon_vars_count = ELEMENTSOF(cordon_vars);

const struct cordon_var *cordon_var_find(const char *name)
{
        for (size_t i = 0; name && i < cordon_vars_count; i++)
                if (streq(cordon_vars[i].name, name))
                        return &cordon_vars[i];
        return NULL;
}

_public_ const char *cordon_settings_variable(size_t i)
{
        return i < cordon_vars_count ? cordon_vars[i].name : NULL;
}

_public_ int cordon_settings_variable_is_held(const char *name)
{
        const struct cordon_var *v = cordon_var_find(name);
        return !v ? -ENOENT : v->status == CORDON_VAR_HELD;
}

_public_ int cordon_settings_describe_item(const char *name, const char *value, char *buf,
                                           size_t size)
{
        const struct cordon_var *v = cordon_var_find(name);
        if (size > 0)
                buf[0] = 0;
        if (!v)
                return -ENOENT;
        if (v->type != CORDON_VAR_LIST)
                return -ENOTDIR;
        if (!value)
                return -EINVAL;
        return v->describe ? v->describe(value, buf, size) : 0;
}
