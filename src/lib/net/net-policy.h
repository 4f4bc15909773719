/* NetworkPolicy, the egress policy of harn-hostlib's sandbox API: {"mode":"unrestricted"} or
 * {"mode":"limited","allowed_hosts":[...]}. Parser, writer, and the rules a limited policy
 * stands for. Pure code: no filesystem access, no printing. Not thread-safe per object. */
#pragma once

#include <stddef.h>

#include "cordon/cordon.h"
#include "lib/net/net-rules.h"

#define CORDON_NET_POLICY_MAX_BYTES (1024 * 1024)
#define CORDON_NET_POLICY_MAX_HOSTS 4096 /* entries in allowed_hosts */

enum cordon_net_policy_mode {
        CORDON_NET_POLICY_UNRESTRICTED, /* no egress restriction: the open network mode */
        CORDON_NET_POLICY_LIMITED,      /* proxied, `*` blocked, the hosts as exceptions */
};

struct cordon_net_policy {
        enum cordon_net_policy_mode mode;
        /* LIMITED: the hosts as written (each a valid NETWORK_BLOCKLIST_EXCEPT pattern), a
         * strv that is never NULL after a parse and may be empty (deny everything).
         * UNRESTRICTED: NULL. */
        char **allowed_hosts;
};

void cordon_net_policy_init(struct cordon_net_policy *p); /* unrestricted, no hosts */
void cordon_net_policy_clear(struct cordon_net_policy *p);

/* Parses @len bytes of JSON (read by the caller). `type` is accepted for `mode` (both present
 * and different: an error). Unknown modes, unknown keys, duplicate keys, wrong types, a missing
 * mode, a missing allowed_hosts for "limited", allowed_hosts for "unrestricted" and malformed
 * hosts (see cordon_net_rule_parse()) fail with -EINVAL and a one-line message in @diag naming
 * @source and the JSON pointer, e.g. `policy.json: /allowed_hosts/2: "127.1": not a canonical IP
 * address`. Input over CORDON_NET_POLICY_MAX_BYTES: -EFBIG; more hosts than
 * CORDON_NET_POLICY_MAX_HOSTS: -EINVAL. -ENOMEM. On success *@ret is set and owned by the
 * caller (cordon_net_policy_clear()); on failure it is untouched. */
int cordon_net_policy_parse(const char *json, size_t len, const char *source,
                            struct cordon_net_policy *ret, struct cordon_diag *diag);

/* Writes @p as compact JSON, NUL-terminated, caller frees: {"mode":"unrestricted"} or
 * {"mode":"limited","allowed_hosts":[...]} (`mode`, never `type`). Returns 0, -ENOMEM, or
 * -EINVAL for a policy no parse could give (a mode out of range, a host that is not UTF-8). */
int cordon_net_policy_to_json(const struct cordon_net_policy *p, char **ret);

/* Adds the rules @p stands for to @rules: for LIMITED a `*` block and each host as an
 * exception (origin "@source /allowed_hosts/N"); nothing for UNRESTRICTED. Returns 0 or the
 * error of cordon_net_rules_add() with @diag set. */
int cordon_net_policy_add_rules(const struct cordon_net_policy *p, struct cordon_net_rules *rules,
                                const char *source, struct cordon_diag *diag);
