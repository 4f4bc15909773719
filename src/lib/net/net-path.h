/* URL paths of the network rules: the path part of a pattern such as
 * "discord.com/api/webhooks", and the one form a plain HTTP request's path is compared in.
 * A path entry covers its path and everything under it, on a segment boundary: "/api/webhooks"
 * covers "/api/webhooks" and "/api/webhooks/123", not "/api/webhooksX".
 *
 * A request path is read as the origin server would, and refused where servers read it
 * differently, so that no spelling slips past a prefix (the proxy refuses such a request when a
 * path rule applies to its host): percent-encodings of other bytes are decoded ("%77ebhooks" is
 * "webhooks"); the query is dropped; refused are an encoded '/', '\', '%' (double encoding),
 * '?', '#' or ';', an encoding of a control or non-ASCII byte, a malformed escape, a literal '\',
 * '#' or ';' (path parameters), an empty segment ("//"), a '.' or '..' segment (also encoded),
 * and a segment ending in '.' or a space (which some servers drop). Pure and thread-safe. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Parses the path of a pattern (@len bytes from the first '/') into @out (at least @len + 1
 * bytes): the path as written without a trailing '/'. Refused with a static reason: '%' (write
 * the byte itself), '*' and '?' (a path entry covers what is under it already; no query), ';',
 * '#', '\' and bytes outside RFC 3986's path characters, an empty, '.' or '..' segment, a
 * segment ending in '.', and "/" alone. Returns 0 or -EINVAL with *@ret_reason set. */
int cordon_net_path_pattern(const char *s, size_t len, char *out, const char **ret_reason);

/* Normalises a request's path (@len bytes after the authority of an absolute-form target: the
 * path, maybe empty, and the query) into @out (at least @len + 2 bytes): decoded as above,
 * "/" when empty, the query dropped, a trailing '/' kept. Returns 0 or -EINVAL with
 * *@ret_reason set (static text). */
int cordon_net_path_normalize(const char *s, size_t len, char *out, const char **ret_reason);

/* Whether @path (normalised) is @prefix (a pattern's path) or lies under it. @fold: compare
 * letters without regard to case. */
bool cordon_net_path_under(const char *path, const char *prefix, bool fold);

/* Whether path prefixes @a and @b are nested (one under the other), letters compared without
 * regard to case. */
bool cordon_net_path_nested(const char *a, const char *b);
