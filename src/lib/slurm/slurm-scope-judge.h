/* The judge's state and helpers, shared by slurm-scope.c (the commands but scontrol) and
 * slurm-scope-scontrol.c. Not for callers: include slurm-scope.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/slurm/slurm-scope.h"
#include "shared/macro.h"

struct cordon_slurm_judge {
        const struct cordon_slurm_scope_request *req;
        struct cordon_slurm_scope_parsed p;
        uint32_t *ids; /* sorted, unique */
        size_t n_ids;
        bool narrow; /* SLURM_SCOPE session or project: only the listed ids */
        char **out;  /* the options of the command to run */
        char **tail; /* its operands, after "--" */
        enum cordon_slurm_filter filter;
        unsigned header_lines;
        const char **ret_rule;
        struct cordon_diag *diag;
        /* what the uses said */
        bool info, nojobs, noheader, parsable, structured, verbose, script, long_list;
        bool jobs_flag, steps_flag; /* squeue, sprio: -j / -s without a value */
        bool user_jobs;             /* the user named jobs (all in scope) */
        /* the use that asked for structured or verbose output (the last) */
        const struct cordon_slurm_scope_use *structured_use, *verbose_use;
};

/* "argv[N]: 'WORD' (OPTION): what [rule]"; returns @r. */
_printf_(5, 6) int cordon_slurm_judge_fail_use(struct cordon_slurm_judge *J, int r,
                                               const char *rule,
                                               const struct cordon_slurm_scope_use *u,
                                               const char *fmt, ...);
/* "argv[N]: 'WORD': what [rule]". */
_printf_(5, 6) int cordon_slurm_judge_fail_word(struct cordon_slurm_judge *J, int r,
                                                const char *rule, size_t argi, const char *fmt,
                                                ...);

bool cordon_slurm_judge_in_scope(const struct cordon_slurm_judge *J, uint32_t id);
/* Why an id is out of scope, in words: "SLURM_SCOPE=session: jobs this sandbox session
 * submitted". */
const char *cordon_slurm_judge_scope_words(const struct cordon_slurm_judge *J);

/* Parses the job id list @list found in argv[@argi] (@what names it in messages: "'-j'",
 * "the operand") and, in a narrow scope, checks every id. Errors: -EINVAL "job-id-invalid",
 * -E2BIG "too-many-ids", -EPERM "job-out-of-scope". */
int cordon_slurm_judge_jobs(struct cordon_slurm_judge *J, const char *list, bool allow_step,
                            bool single, size_t argi, const char *what);

/* scontrol's words read before getopt, then its subcommand. */
int cordon_slurm_judge_scontrol_words(struct cordon_slurm_judge *J);
int cordon_slurm_judge_scontrol(struct cordon_slurm_judge *J);
