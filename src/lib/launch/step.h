/* What a failed launcher step (enum cordon_step, cordon/cordon.h) says to a person: one table
 * row per step. */
#pragma once

#include "cordon/cordon.h"

struct cordon_launch;

/* A child step's report, as it came over the control channel. */
struct cordon_step_report {
        int step; /* enum cordon_step */
        int err;  /* positive errno */
        int rule; /* the policy's fs rule (mount steps), the Landlock rule (CORDON_STEP_LANDLOCK),
                   * the user namespace limit (CORDON_STEP_NS_LIMITS); -1: none */
};

/* Fills @diag (step and message) for @rep of a launch @l running @argv0. @l->p must still be
 * valid. */
void cordon_step_describe(const struct cordon_launch *l, const struct cordon_step_report *rep,
                          const char *argv0, struct cordon_diag *diag);
