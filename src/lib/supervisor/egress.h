/* The sandbox's egress proxy, supervisor side (see egress.c). */
#pragma once

#include "lib/net/net-rules.h"

#include "cordon/cordon.h"

struct cordon_sandbox;
struct cordon_policy;

/* A new rule set holding the built-in rules and those of @from past them (the user's and the
 * admin's), for the proxy and the resolver (@from is the policy's, which is not kept). Returns
 * 0 or -errno. */
int cordon_egress_copy_rules(const struct cordon_net_rules *from, struct cordon_net_rules **ret);

/* Prepare phase, once the delivered mode is known: copies the rules, opens the log. */
int cordon_egress_prepare(struct cordon_sandbox *sb, const struct cordon_policy *p,
                          struct cordon_diag *diag);
/* Once the command runs: the proxy on the socket PID 1 handed over. */
int cordon_egress_start(struct cordon_sandbox *sb, struct cordon_diag *diag);
/* Copies the proxy's counters into the report. */
void cordon_egress_report(struct cordon_sandbox *sb);
void cordon_egress_free(struct cordon_sandbox *sb);
