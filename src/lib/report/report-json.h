/* The internal side of the library's JSON encodings (cordon_report_to_json(),
 * cordon_doctor_to_json()): what their builders share. */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "shared/json-util.h"

/* "ENOENT" for -ENOENT (or ENOENT); "unknown" for a number libc has no name for. */
const char *cordon_errno_name(int r);

/* Adds @v to @o under @key; any failure (including @o or @v being NULL after a failed
 * allocation) sets *@oom. Consumes @v either way. */
static inline void cordon_json_put(json_t *o, const char *key, json_t *v, bool *oom)
{
        if (!o || !v || json_object_set_new(o, key, v) < 0) {
                if (!o)
                        json_decref(v);
                *oom = true;
        }
}

/* Appends @v to array @a, the same way. */
static inline void cordon_json_append(json_t *a, json_t *v, bool *oom)
{
        if (!a || !v || json_array_append_new(a, v) < 0) {
                if (!a)
                        json_decref(v);
                *oom = true;
        }
}

/* @root as compact JSON text in *@ret_json (the caller frees it), or -ENOMEM; drops @root. */
int cordon_json_finish(json_t *root, bool oom, char **ret_json);
