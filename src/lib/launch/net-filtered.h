/* The filtered network mode's hooks in the launcher (the FILTERED row of net-mode-hooks.c): pasta
 * attached to the sandbox's network namespace by the supervisor, the address and port rules
 * loaded as nftables rules by the child. */
#pragma once

#include <sys/types.h>

#include "cordon/cordon.h"

struct cordon_launch;

/* Prepare (supervisor): refuses a backend without a network namespace and a missing pasta,
 * builds the ruleset from the policy's rules (the floor and the default-blocked ranges when it
 * has none), the host's own addresses and resolvers, and warns once (through @l->warn) about
 * the host-name rules it cannot apply and a resolver it cannot reach. */
int cordon_net_filtered_prepare(struct cordon_launch *l, struct cordon_diag *diag);
/* Parent step: starts pasta attached to @child's namespaces, without waiting for it. */
int cordon_net_filtered_parent(struct cordon_launch *l, pid_t child, struct cordon_diag *diag);
struct cordon_loop;
struct cordon_loop_io;

/* While the sandbox runs: a pasta that exits on its own (the command may have started before it
 * was ready, and it can fail later too) is said once through cordon_net_filtered_lost(), as
 * the sandbox has no network from then on. *@ret (the caller's to free, before @l is cleared)
 * watches pasta's pidfd on @loop; NULL when no pasta runs. 0, or -errno of
 * cordon_loop_add_io(). */
int cordon_net_filtered_watch(struct cordon_launch *l, struct cordon_loop *loop,
                              struct cordon_loop_io **ret);

/* The filtered network is gone (@why: what pasta did) while the command may be running: no
 * fallback can follow, since the command is in its own network namespace, which has only its
 * loopback now. Records it in @l->net_lost (the report's mode becomes isolated) and says so
 * once through the launch's warning callback, naming the mode the command has. */
void cordon_net_filtered_lost(struct cordon_launch *l, const char *why);

/* After the release: waits for pasta to say it is ready (killed and reaped on failure), or for
 * the child to say that pasta has configured its namespace (a byte on @child_up): 1 then. */
int cordon_net_filtered_ready(struct cordon_launch *l, int child_up, struct cordon_diag *diag);
/* Child step: loads the ruleset into the child's network namespace. */
int cordon_net_filtered_child(const struct cordon_launch *l);
/* Stops pasta (idempotent). */
void cordon_net_filtered_teardown(struct cordon_launch *l);
