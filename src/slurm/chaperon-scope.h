/* SLURM_SCOPE for the chaperon's query commands (squeue, scancel, scontrol, sstat, sacct, sinfo,
 * sprio, sshare): the call's argv judged and rewritten so that the real command sees and touches
 * only the jobs in scope. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"
#include "slurm/chaperon.h"

struct chaperon_scope_result {
        char **argv;      /* the command to run */
        const char *rule; /* on a refusal: the rule's key */
        bool empty;       /* no job is in scope: print the first @header_lines lines only */
        unsigned header_lines;
        /* Applied to the captured output, when the command cannot be told to filter itself. */
        int (*filter)(const char *out, size_t len, const uint32_t *ids, size_t n_ids, char **ret,
                      size_t *ret_len);
};

/* Judges @argv (argv[0] the command's name) for @c's scope, @ids the jobs in it (session and
 * project scopes). 0 with @res filled, -EPERM with @res->rule and @diag, -ENOMEM. */
int chaperon_scope_judge(const struct chaperon_config *c, char *const *argv, const uint32_t *ids,
                         size_t n_ids, struct chaperon_scope_result *res, struct cordon_diag *diag);
void chaperon_scope_result_clear(struct chaperon_scope_result *res);
/* The length of the first @lines lines of @out. */
size_t chaperon_scope_head(const char *out, size_t len, unsigned lines);
