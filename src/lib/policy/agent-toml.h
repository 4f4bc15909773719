/* The TOML side of the agents' private copies (codex's config.toml): a TOML text read as a JSON
 * document, so that agent-json.c's allow list decides what flows back, and the host's text
 * edited in place to hold the merged document, its comments and formatting kept. Pure
 * functions on text and jansson values (agent-toml.cc, C++ for toml++, Debian's only TOML
 * parser): no I/O, nothing printed, no exception leaves them. */
#pragma once

#include <jansson.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tables nested at most in a document read (deeper: -EINVAL). */
#define CORDON_AGENT_TOML_DEPTH_MAX 48u
/* Key separators ('.') on one line at most, before a document is parsed: the parser builds a
 * table per key segment, and frees them recursively. */
#define CORDON_AGENT_TOML_LINE_DOTS_MAX 128u
/* The size of the @why buffers the functions fill. */
#define CORDON_AGENT_TOML_WHY_MAX 160u

/* TOML text @text (@len bytes, UTF-8) as a JSON object in *@ret: tables become objects, arrays
 * arrays, strings, integers, floats and booleans themselves. A value JSON cannot hold as
 * itself (an offset or local date-time, a date, a time; nan and inf) becomes the array
 * [null, "TEXT"] with TEXT its TOML form: TOML has no null, so no other value reads the same,
 * and a changed date is a changed value. 0; -EINVAL (not TOML, nested deeper than
 * CORDON_AGENT_TOML_DEPTH_MAX, a line with more than CORDON_AGENT_TOML_LINE_DOTS_MAX dots, a key
 * holding a NUL) with @why (CORDON_AGENT_TOML_WHY_MAX bytes, printable) saying why; -ENOMEM. */
int cordon_agent_toml_to_json(const char *text, size_t len, json_t **ret, char *why);

/* Host TOML text @text (@len bytes) edited so that its JSON form (as above) becomes @want,
 * into *@ret (NUL-terminated, *@ret_len bytes; the caller frees it). Only what differs is
 * edited; every other byte stays: a changed value's text is replaced (an inline table or an
 * array whole); a removed key loses its line(s) (a table removed: its header line and its
 * keys' lines); a new key becomes a line after its table's [header] line (for the root table,
 * after the last top-level key's line), or, where its table has no header of its own, a
 * `[table]` header appended at the end with its keys. The result is parsed again and must read
 * as @want. 0; -EINVAL when @text is not TOML or @want not an object; -ENOTSUP when the edit
 * needs something this does not do (a key added to or removed from a table made by dotted
 * keys, a table replaced by a value, arrays of tables, a result that does not read as @want),
 * with @why saying what; -ENOMEM. An inline table is a value: replaced whole. */
int cordon_agent_toml_edit(const char *text, size_t len, json_t *want, char **ret, size_t *ret_len,
                           char *why);

#ifdef __cplusplus
}
#endif
