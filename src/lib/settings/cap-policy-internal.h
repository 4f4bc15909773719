/* Capability policies: the pieces cap-policy.c (model, writer, intersection) and
 * cap-policy-parse.c (the JSON parser) share. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/settings/cap-policy.h"
#include "shared/json-util.h"
#include "shared/macro.h"

/* The JSON names of the CORDON_CAP_* and CORDON_PRESET_* bits, in bit order. The process
 * operations follow the workspace ones: CORDON_CAP_EXEC is bit PROCESS_OP_SHIFT. */
#define CORDON_CAP_N_WORKSPACE_OPS 5
#define CORDON_CAP_N_PROCESS_OPS   1
#define CORDON_CAP_N_PRESETS       4
#define PROCESS_OP_SHIFT           CORDON_CAP_N_WORKSPACE_OPS
extern const char *const cordon_cap_workspace_op_names[CORDON_CAP_N_WORKSPACE_OPS];
extern const char *const cordon_cap_process_op_names[CORDON_CAP_N_PROCESS_OPS];
extern const char *const cordon_cap_preset_names[CORDON_CAP_N_PRESETS];

/* Values quoted in messages are cut here, so a huge key cannot push out the rest of the line. */
#define QUOTE_MAX 160

/* How cordon_cap_escape() writes a value into a message. */
enum escape_mode {
        ESCAPE_POINTER, /* a JSON pointer token: ~ as ~0, / as ~1 (RFC 6901) */
        ESCAPE_QUOTED,  /* inside "...": \" and \\ */
        ESCAPE_TEXT,    /* as is */
};

/* Writes @s (of @len bytes) to @buf for a message, control bytes as \xNN so that a message stays
 * one printable line. Long values are cut with "...". */
void cordon_cap_escape(char *buf, size_t size, const char *s, size_t len, enum escape_mode mode);

/* Sorts the first @n entries of @v in path order and drops every entry equal to or below an
 * earlier one (freeing it when @free_dropped), NULL-terminating the rest. Returns the count. */
size_t cordon_cap_roots_minimize(char **v, size_t n, bool free_dropped);
