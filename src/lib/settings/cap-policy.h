/* Capability policies (the JSON shape of harn-process-sandboxing): parsing, serialising and the
 * strictest-wins intersection. Pure code: no filesystem access, no printing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"

#define CORDON_CAP_POLICY_MAX_BYTES (1024 * 1024)
/* Entries in one JSON array (a root list, a capability or preset list). */
#define CORDON_CAP_POLICY_MAX_ENTRIES 4096

/* capabilities.workspace / capabilities.process operations, as bits. */
enum {
        CORDON_CAP_READ_TEXT = 1u << 0,
        CORDON_CAP_LIST = 1u << 1,
        CORDON_CAP_EXISTS = 1u << 2,
        CORDON_CAP_WRITE_TEXT = 1u << 3,
        CORDON_CAP_DELETE = 1u << 4,
        CORDON_CAP_EXEC = 1u << 5, /* process.exec */
        CORDON_CAP_ALL = (1u << 6) - 1,
};

/* process_sandbox.presets, as bits. */
enum {
        CORDON_PRESET_SYSTEM_RUNTIME = 1u << 0,
        CORDON_PRESET_DEVELOPER_TOOLCHAINS = 1u << 1,
        CORDON_PRESET_PACKAGE_MANAGER_CONFIG = 1u << 2,
        CORDON_PRESET_USER_TEMP = 1u << 3,
        CORDON_PRESETS_ALL = (1u << 4) - 1,
};

struct cordon_cap_policy {
        /* false: `capabilities` omitted or {} -- no ceiling (every operation allowed). */
        bool has_capabilities;
        unsigned capabilities; /* CORDON_CAP_* */

        char **workspace_roots; /* strv, normalised absolute paths; NULL/empty: none given */
        char **read_only_roots;

        enum cordon_profile profile; /* omitted: CORDON_PROFILE_WORKTREE */
        bool has_side_effect_level;  /* false: omitted -- no ceiling */
        enum cordon_side_effect side_effect_level;

        /* process_sandbox */
        bool presets_default; /* presets null or omitted: the runtime defaults (all four) */
        unsigned presets;     /* CORDON_PRESET_*; meaningful when !presets_default */
        char **read_roots;
        char **write_roots;
};

void cordon_cap_policy_init(struct cordon_cap_policy *c); /* an empty policy, defaults applied */
void cordon_cap_policy_clear(struct cordon_cap_policy *c);

/* Parses @len bytes of JSON. @source names the input in messages (a file name). Unknown keys,
 * wrong types, relative roots and ".." components fail with -EINVAL and a message in @diag
 * that names @source, the key and its JSON pointer (e.g. "/process_sandbox/read_roots/2").
 * Input longer than CORDON_CAP_POLICY_MAX_BYTES fails with -EFBIG. On success @ret is
 * initialised and owned by the caller. */
int cordon_cap_policy_parse(const char *json, size_t len, const char *source,
                            struct cordon_cap_policy *ret, struct cordon_diag *diag);

/* The canonical JSON form (every field explicit, stable order), NUL-terminated, caller frees.
 * Returns 0, -ENOMEM, or -EINVAL for a hand-built policy no parse could give (an enum out of
 * range, a root that is not UTF-8). Parsing the output gives back an equal policy. */
int cordon_cap_policy_to_json(const struct cordon_cap_policy *c, char **ret);

/* Strictest-wins intersection of @a and @b into @ret (initialised by the call): profiles by the
 * ladder, capabilities and presets by their common bits, root lists narrowed to the paths both
 * sides cover (workspace_roots/read_only_roots: an empty list defers to the other side;
 * read_roots/write_roots: an empty list means none). Commutative; never looser than either
 * side. Fails with -EINVAL (reason in @diag) when both sides list workspace roots and none are
 * in common, since an empty list would read as "no ceiling". Returns 0, -EINVAL, -ENOMEM. */
int cordon_cap_policy_intersect(const struct cordon_cap_policy *a,
                                const struct cordon_cap_policy *b, struct cordon_cap_policy *ret,
                                struct cordon_diag *diag);

/* Whether @a and @b are the same policy: flags and the named bits alike, and root lists that
 * cover the same paths (order, duplicates and nested entries do not matter). */
bool cordon_cap_policy_equal(const struct cordon_cap_policy *a, const struct cordon_cap_policy *b);
