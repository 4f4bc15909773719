/* Host-name globs of the network rules, as bash matches a word against a pattern: `*` matches
 * any run of characters, dots included (so "email.*.example.com" matches
 * "email.a.b.example.com"), `?` exactly one character; every other byte matches itself. Bracket
 * expressions are not part of this syntax (the rule parser refuses them). Globs and names are
 * lower case, without a trailing dot (the parser normalises both). Pure and thread-safe. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Whether @name (no wildcards) matches @glob. Linear in practice (one backtrack point). */
bool cordon_net_glob_match(const char *glob, const char *name);

/* Whether every name @inner matches is matched by @outer (both globs). Decided conservatively:
 * true only when @outer matches @inner's text with @inner's `*` consumed by a `*` of @outer and
 * its `?` by a `?` or a `*`; a few equal languages written differently ("*?" and "?*") answer
 * false. */
bool cordon_net_glob_includes(const char *outer, const char *inner);

/* Whether some string matches both globs @a and @b (symmetric). */
bool cordon_net_glob_intersects(const char *a, const char *b);

/* How specific @glob is: its length without its `*`s (each `?` fixes one character's place). */
size_t cordon_net_glob_weight(const char *glob);
