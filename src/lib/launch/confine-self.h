/* cordon_confine_self()'s decisions that read the policy alone (confine-self.c), for its unit
 * test. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct cordon_diag;
struct cordon_policy;

/* Whether @p asks for something only a process of cordon's around the command could give (a
 * supervisor, the proxy, pasta, a TMPDIR to remove, a pty relay, ...): -EOPNOTSUPP with @diag
 * naming the variable, else 0. @stdin_tty: the caller's stdin is a terminal; @uid: its real
 * uid. The list is cordon/confine.h's. */
int cordon_confine_self_check(const struct cordon_policy *p, bool stdin_tty, uid_t uid,
                              struct cordon_diag *diag);
