/* The sandbox's egress proxy, supervisor side (see egress.c). */
#pragma once

#include "cordon/cordon.h"

struct cordon_sandbox;
struct cordon_policy;

/* Prepare phase, once the delivered mode is known: copies the rules, opens the log. */
int cordon_egress_prepare(struct cordon_sandbox *sb, const struct cordon_policy *p,
                          struct cordon_diag *diag);
/* Once the command runs: the proxy on the socket PID 1 handed over. */
int cordon_egress_start(struct cordon_sandbox *sb, struct cordon_diag *diag);
/* Copies the proxy's counters into the report. */
void cordon_egress_report(struct cordon_sandbox *sb);
void cordon_egress_free(struct cordon_sandbox *sb);
