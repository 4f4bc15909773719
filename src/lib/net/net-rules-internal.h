/* What the parts of the network rule matcher share (net-addr.c, net-rules-parse.c,
 * net-rules.c). Internal to src/lib/net. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "lib/net/net-rules.h"

/* ::ffff:a.b.c.d becomes a.b.c.d: the kernel sends it to the IPv4 address. */
void cordon_net_addr_unmap(struct cordon_net_addr *a);
/* 32 or 128. */
unsigned cordon_net_addr_bits(int family);
/* Whether the first @prefix bits of @a and @b agree (same family assumed). */
bool cordon_net_prefix_equal(const struct cordon_net_addr *a, const struct cordon_net_addr *b,
                             unsigned prefix);
void cordon_net_clear_host_bits(struct cordon_net_addr *a, unsigned prefix);

/* cordon_net_name_normalize() with the reason for a refusal (static text). */
int cordon_net_name_normalize_why(const char *name, size_t len, char *out, const char **ret_reason);

/* The host part of a name rule as a glob (net-glob.h) into @buf (CORDON_NET_NAME_MAX + 3):
 * HOST its name, SUFFIX "*." and the suffix, GLOB its glob. NULL for other kinds. */
const char *cordon_net_rule_glob(const struct cordon_net_rule *rule, char *buf, size_t size);
