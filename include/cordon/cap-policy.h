/* libcordon: capability policies, the JSON shape of harn-process-sandboxing (see
 * cordon-policy(5)): parsing and validating, the canonical form, and the strictest-wins
 * intersection of two policies. Nothing here prints or exits; only cordon_cap_policy_load()
 * reads a file.
 *
 * Conventions as in cordon/cordon.h: >= 0 on success, a negative errno on failure, context in
 * the optional struct cordon_diag. A policy object is immutable once made: any number of
 * threads may read one at the same time; the functions keep no state of their own. */
#pragma once

#include <stddef.h>

#include <cordon/cordon.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most JSON text a policy may have. */
#define CORDON_CAP_POLICY_MAX_BYTES (1024 * 1024)

struct cordon_cap_policy;

/* Parses and validates @len bytes of JSON (not necessarily NUL-terminated). @source names the
 * input in messages (a file name; NULL: "policy"). On success stores a new policy in @ret,
 * owned by the caller (cordon_cap_policy_free()). Returns 0; -EINVAL for unknown keys, wrong
 * types, relative roots or ".." components, with a message in @diag that names @source, the key
 * and its JSON pointer (e.g. "/process_sandbox/read_roots/2"); -EFBIG for input longer than
 * CORDON_CAP_POLICY_MAX_BYTES; -ENOMEM. @ret is untouched on failure. */
int cordon_cap_policy_from_json(const char *json, size_t len, const char *source,
                                struct cordon_cap_policy **ret, struct cordon_diag *diag);

/* Reads the policy file @path ("-": standard input; at most CORDON_CAP_POLICY_MAX_BYTES) and
 * parses it as cordon_cap_policy_from_json() does, naming the file ("<stdin>" for "-") in
 * messages. Returns 0 with a new policy in @ret (owned by the caller); the errors of
 * cordon_cap_policy_from_json(), or -errno of reading with the file named in @diag. */
int cordon_cap_policy_load(const char *path, struct cordon_cap_policy **ret,
                           struct cordon_diag *diag);

/* The strictest-wins intersection of @a and @b as a new policy in @ret (owned by the caller):
 * profiles by the ladder, capabilities and presets by their common bits, root lists narrowed
 * to the paths both sides cover. Commutative; never looser than either side. Returns 0;
 * -EINVAL when both sides list workspace roots and none are in common (an empty list would read
 * as "no ceiling"), with the reason in @diag; -ENOMEM. @ret is untouched on failure. */
int cordon_cap_policy_intersection(const struct cordon_cap_policy *a,
                                   const struct cordon_cap_policy *b,
                                   struct cordon_cap_policy **ret, struct cordon_diag *diag);

/* The canonical JSON form of @c (every field explicit, stable order, no trailing newline),
 * NUL-terminated, in @ret, which the caller frees with free(). Parsing it gives back an equal
 * policy. Returns 0 or -ENOMEM. */
int cordon_cap_policy_format_json(const struct cordon_cap_policy *c, char **ret);

/* Frees @c; accepts NULL; returns NULL. */
struct cordon_cap_policy *cordon_cap_policy_free(struct cordon_cap_policy *c);

#ifdef __cplusplus
}
#endif
