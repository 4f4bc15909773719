/* The built-in rules of every rule set as data: the floor (never liftable) and the
 * default-blocked ranges (liftable by an exception). Internal to src/lib/net. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct cordon_net_builtin {
        const char *pattern; /* in the syntax of net-rules.h */
        bool floor;          /* false: blocked by default, an exception may lift it */
        const char *reason;  /* the verdict's reason when this rule decides */
};

extern const struct cordon_net_builtin cordon_net_builtins[];
extern const size_t cordon_net_n_builtins;

#define CORDON_NET_ORIGIN_FLOOR   "built-in floor"
#define CORDON_NET_ORIGIN_DEFAULT "built-in default"
