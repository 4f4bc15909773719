/* An ordered list of strings that remember where each entry came from ("built-in default",
 * "--ro", "/etc/cordon/sandbox.conf:12"). Used by the settings front end and the policy. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct cordon_item {
        char *value;
        char *origin;
};

struct cordon_list {
        struct cordon_item *items;
        size_t n;
};

int cordon_list_add(struct cordon_list *l, const char *value, const char *origin);
/* Adds unless an equal value is already present (then 0 and nothing changes). */
int cordon_list_add_unique(struct cordon_list *l, const char *value, const char *origin);
/* Keeps the entries @keep returns > 0 for and frees those it returns 0 for, in order. A
 * negative return stops the walk and is returned; the list stays whole (the entries not yet
 * looked at are kept). */
int cordon_list_filter(struct cordon_list *l,
                       int (*keep)(const struct cordon_item *it, void *userdata), void *userdata);
/* Removes every entry equal to @value; returns how many were removed. */
size_t cordon_list_remove(struct cordon_list *l, const char *value);
const struct cordon_item *cordon_list_find(const struct cordon_list *l, const char *value);
void cordon_list_clear(struct cordon_list *l);
int cordon_list_copy(struct cordon_list *dst, const struct cordon_list *src);

/* (Guarded: NULL + 0 is undefined behaviour in C.) */
#define CORDON_LIST_FOREACH(it, l)                                                                 \
        for (const struct cordon_item *it = (l)->items; (l)->items && it < (l)->items + (l)->n;    \
             it++)
