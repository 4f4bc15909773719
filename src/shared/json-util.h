/* Small jansson helpers shared by the JSON writers (doctor --json, receipts, policies).
 * Header-only: only code that links jansson includes it. */
#pragma once

#include <jansson.h>

#include "shared/macro.h"

/* json_decrefp() comes with jansson >= 2.9 (the build requires 2.13). */
#define _cleanup_json_ _cleanup_(json_decrefp)

/* A JSON string, or null for NULL and for strings jansson refuses (not UTF-8: a path can be
 * any bytes). Never NULL unless even json_null() fails. */
static inline json_t *json_string_or_null(const char *s)
{
        json_t *j = s ? json_string(s) : NULL;
        return j ? j : json_null();
}

/* "an object", "a string", ... for messages that say what was found instead. */
static inline const char *json_type_name(const json_t *v)
{
        switch (json_typeof(v)) {
        case JSON_OBJECT:
                return "an object";
        case JSON_ARRAY:
                return "an array";
        case JSON_STRING:
                return "a string";
        case JSON_INTEGER:
        case JSON_REAL:
                return "a number";
        case JSON_TRUE:
        case JSON_FALSE:
                return "a boolean";
        case JSON_NULL:
                break;
        }
        return "null";
}
