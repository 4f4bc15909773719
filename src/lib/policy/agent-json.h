/* The JSON side of the agents' private copies: the overlay merged onto a copy before the run, and
 * the allow list by which keys of the copy flow back into the host's file after it. Pure
 * functions on jansson values: no I/O. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Changed keys named at most, and their names' length. */
#define CORDON_AGENT_JSON_NAMES_MAX 32u
#define CORDON_AGENT_JSON_NAME_MAX  80u

/* Merges object @overlay onto object @doc: objects key by key, arrays by appending the
 * overlay's elements @doc's array lacks (so the user's entries stay, and stay first), anything
 * else replaced. 0, -EINVAL when either is not an object, -ENOMEM. */
int cordon_agent_json_overlay(json_t *doc, json_t *overlay);

/* Adds Claude Code's @hooks (an object of events, each an array of groups {"matcher": ...,
 * "hooks": [{"type": "command", "command": ...}]}) to @doc's "hooks": per event, each group
 * appended with its hooks whose command the event does not run yet (a group left with none is
 * not added). 0, -EINVAL when @doc's "hooks" or an event of it has another shape (nothing is
 * changed then), -ENOMEM. */
int cordon_agent_json_add_hooks(json_t *doc, json_t *hooks);

/* Sets in object @doc each leaf of object @overlay that @doc lacks (objects key by key); the
 * dotted names of the leaves @doc has already, which keep their values, are added to
 * *@ret_kept. 0, -EINVAL, -ENOMEM. */
int cordon_agent_json_fill_missing(json_t *doc, json_t *overlay, char ***ret_kept);

/* Whether dotted @pattern matches the key path @steps[0..n) exactly or a prefix of it; a step
 * of the pattern is a key, `*` (any key), `PREFIX*` (any key that starts with PREFIX), `*SUFFIX`
 * (that ends with it) or
 * `$PROJECT` (@project, when not NULL). Sets *@ret_len to the steps it covers. */
bool cordon_agent_json_pattern_match(const char *pattern, const char *const *steps, size_t n,
                                     const char *project, size_t *ret_len);

struct cordon_agent_json_result {
        size_t kept;    /* keys set or removed in the host document */
        char **dropped; /* names of changed keys no pattern allows (printable, bounded) */
        bool more;      /* more than CORDON_AGENT_JSON_NAMES_MAX were dropped */
};

/* What the run changed in the copy (@final against @base, the copy as handed in) flows into
 * @host where one of @patterns (NULL-terminated) allows it: at the steps the pattern covers,
 * @host takes @final's value, or loses the key where @final has none. Every other change is
 * named in @ret->dropped. Objects only; a key path deeper than 32 steps counts as a change at
 * that depth. 0 or -ENOMEM (or -EINVAL when @host is not an object). */
int cordon_agent_json_writeback(json_t *base, json_t *final, json_t *host, char *const *patterns,
                                const char *project, struct cordon_agent_json_result *ret);

void cordon_agent_json_result_clear(struct cordon_agent_json_result *r);
