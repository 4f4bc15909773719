/* Reading a configuration file's text without running it: whether it holds any code at all, and
 * where it assigns which variable (for origins, unknown names and the admin checks). A plain
 * scan, not a bash parser: it sees the usual forms (NAME=, NAME+=, NAME[i]=, after export,
 * declare/typeset with options, readonly, local) at the start of a line. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Does @text hold anything but blank lines and comments? */
bool cordon_config_has_code(const char *text);

struct cordon_config_assignment {
        const char *name; /* points into the text; @name_len bytes */
        size_t name_len;
        unsigned line;     /* from 1 */
        bool element;      /* NAME[i]=...: one element of an array */
        const char *value; /* just after the '=' */
};

/* Calls @fn for every assignment found, in order; stops when it returns non-zero and returns
 * that. */
int cordon_config_scan(const char *text,
                       int (*fn)(const struct cordon_config_assignment *a, void *userdata),
                       void *userdata);

/* The last line of @text that assigns @name; 0 when none does. */
unsigned cordon_config_last_assignment(const char *text, const char *name);

/* Does the assigned value at @value (an assignment's) use command substitution, $( or a
 * backtick? A (...) array is read to its closing parenthesis, over quotes and lines; a
 * scalar to the end of its line. */
bool cordon_config_value_substitutes(const char *value);
