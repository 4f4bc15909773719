/* SLURM_SCOPE: which jobs the Slurm commands a sandbox runs through the chaperon (squeue,
 * scancel, scontrol, sstat, sacct, sinfo, sprio, sshare, sacctmgr) see and touch. The command
 * line is parsed as Slurm 22.05 parses it (each command's own getopt_long table) and either
 * refused or rewritten into one the host can run as is. Pure code: no files, no processes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cordon/cordon.h"

/* The registry's SLURM_SCOPE values, in the registry's order (settings-registry.c,
 * slurm_scopes[]: the settings store the index). */
enum cordon_slurm_scope {
        CORDON_SLURM_SCOPE_SESSION, /* jobs this sandbox session submitted */
        CORDON_SLURM_SCOPE_PROJECT, /* jobs of any sandbox session of the same project dir */
        CORDON_SLURM_SCOPE_USER,    /* all of the calling user's jobs */
        CORDON_SLURM_SCOPE_NONE,    /* no restriction beyond the user's own (squeue --me) */
        _CORDON_SLURM_SCOPE_MAX,
};

/* The commands the sandbox's stubs forward. */
enum cordon_slurm_query {
        CORDON_SLURM_SQUEUE,
        CORDON_SLURM_SCANCEL,
        CORDON_SLURM_SCONTROL,
        CORDON_SLURM_SSTAT,
        CORDON_SLURM_SACCT,
        CORDON_SLURM_SINFO,
        CORDON_SLURM_SPRIO,
        CORDON_SLURM_SSHARE,
        CORDON_SLURM_SACCTMGR,
        _CORDON_SLURM_QUERY_MAX,
};

/* What the caller does with the output of the rewritten command. */
enum cordon_slurm_filter {
        CORDON_SLURM_FILTER_NONE, /* print stdout as it is */
        /* No job is in scope: print only the first @header_lines lines of stdout (0: print
         * nothing, the command need not run). The rewritten command is already restricted to
         * the user's own jobs, so a mistake here shows no more than the user scope. */
        CORDON_SLURM_FILTER_HEADER_ONLY,
        /* scontrol show job|step without an id: pass stdout through
         * cordon_slurm_scope_filter_scontrol(). */
        CORDON_SLURM_FILTER_SCONTROL,
};

/* What the caller knows. Everything is borrowed. */
struct cordon_slurm_scope_request {
        enum cordon_slurm_query command;
        char *const *argv; /* argv[0] the command's name (kept as given), NULL-terminated */
        enum cordon_slurm_scope scope;
        const char *user; /* the calling user's name */
        uid_t uid;        /* and uid */
        /* SCOPE_SESSION and SCOPE_PROJECT: the base job ids in scope (what sbatch, srun and
         * salloc printed); any order, duplicates allowed. Ignored for the other scopes. */
        const uint32_t *ids;
        size_t n_ids;
};

struct cordon_slurm_scope_result {
        char **argv; /* the command to run (argv[0] as given), owned */
        enum cordon_slurm_filter filter;
        unsigned header_lines; /* FILTER_HEADER_ONLY */
};

/* Limits (each a refusal with a rule, -E2BIG). The argument limits are slurm-submit.h's. */
#define CORDON_SLURM_SCOPE_MAX_IDS        10000u                /* ids in scope, ids in a list */
#define CORDON_SLURM_SCOPE_MAX_OUTPUT     (16u * 1024u * 1024u) /* the filter's input */
#define CORDON_SLURM_SCOPE_MAX_LIST_ITEMS 10000u                /* items of one user or id list */

/* Judges @req. On success stores the command to run in @ret (free its argv with
 * cordon_slurm_scope_result_clear()) and returns 0. The command is written out canonically:
 * argv[0], the options in their order as `--long=value` (`-Xvalue` for the few without a long
 * name), the options the scope adds, then `--` and the operands (scontrol's words with
 * abbreviations written out), so that the host's getopt_long reads exactly what was judged,
 * also with POSIXLY_CORRECT set or a later Slurm that adds option names.
 * Errors: -EPERM for a refusal (an option, a subcommand, a job id or user out of scope, a
 * command that is never available), -EINVAL for what the command itself would refuse or read
 * in a way not modelled (an unknown or ambiguous option, a missing value, a malformed job id),
 * -E2BIG for a limit, -ENOMEM; -EINVAL too for a request with an invalid enum, no argv or no
 * user. On an error @ret is untouched, @ret_rule (may be NULL) is set to the rule's key (a
 * static string) and @diag says "argv[N]: 'WORD' (--OPTION): why [key]". Thread-safe. */
int cordon_slurm_scope_check(const struct cordon_slurm_scope_request *req,
                             struct cordon_slurm_scope_result *ret, const char **ret_rule,
                             struct cordon_diag *diag);
void cordon_slurm_scope_result_clear(struct cordon_slurm_scope_result *r);

/* Keeps of scontrol's `show job` or `show step` output @out (@len bytes, oneliner or not)
 * only the records whose job is in @ids (@n_ids base ids): a job's id, an array task's
 * ArrayJobId, a heterogeneous component's HetJobId; a step's job (StepId=N.S, N_T.S). Output
 * with no record at all (scontrol's "No jobs in the system") is kept as it is; output whose
 * records are all dropped becomes scontrol's own line for that case. On success stores a new
 * NUL-terminated buffer in @ret (its length without the NUL in @ret_len) and returns 0.
 * Errors: -E2BIG for more than CORDON_SLURM_SCOPE_MAX_OUTPUT bytes or more than
 * CORDON_SLURM_SCOPE_MAX_IDS ids, -EINVAL for NULL arguments, -ENOMEM. Thread-safe. */
int cordon_slurm_scope_filter_scontrol(const char *out, size_t len, const uint32_t *ids,
                                       size_t n_ids, char **ret, size_t *ret_len);

const char *cordon_slurm_scope_name(enum cordon_slurm_scope s);
const char *cordon_slurm_query_name(enum cordon_slurm_query q);

/* ---- Shared by slurm-scope*.c (not for callers) ---- */

/* What the judge does with an option. */
enum cordon_slurm_scope_kind {
        CORDON_SCOPE_PASS,      /* no job data selected by it, nothing written */
        CORDON_SCOPE_INFO,      /* help, usage, version: prints no job data and exits */
        CORDON_SCOPE_NOJOBS,    /* the command then prints no job data at all (sprio --weights) */
        CORDON_SCOPE_USER,      /* a list of users or uids: each the caller */
        CORDON_SCOPE_ME,        /* --me */
        CORDON_SCOPE_ALL_USERS, /* every user's jobs or shares */
        CORDON_SCOPE_JOBS,      /* a list of job ids (optional for squeue, sprio) */
        CORDON_SCOPE_STEPS,     /* squeue --steps: a list of steps */
        CORDON_SCOPE_CLUSTER,   /* another cluster's job ids are not the registry's */
        CORDON_SCOPE_ITERATE, /* squeue --iterate: the jobs in scope would be frozen at the start */
        CORDON_SCOPE_VERBOSE, /* squeue -v prints its options to stdout before the header */
        CORDON_SCOPE_STRUCTURED, /* --json, --yaml */
        CORDON_SCOPE_NOHEADER,
        CORDON_SCOPE_PARSABLE, /* sacct -p/-P: a header of one line, no dashes */
        CORDON_SCOPE_SCRIPT,   /* sacct -B, --env-vars: per job text, no header */
        CORDON_SCOPE_REFUSED,  /* always refused, for the reason in the table */
};

struct cordon_slurm_scope_option {
        const char *name; /* long name, NULL for a short-only option */
        int val;          /* getopt's val: the short letter, or 256+ for long-only ones */
        unsigned arg;     /* enum cordon_slurm_arg (slurm-submit.h) */
        enum cordon_slurm_scope_kind kind;
        const char *why; /* CORDON_SCOPE_REFUSED */
};

struct cordon_slurm_scope_use {
        const struct cordon_slurm_scope_option *option;
        char *spelling; /* "--us", "-u": as written */
        char *value;    /* NULL when none */
        size_t argi;
};

struct cordon_slurm_scope_parsed {
        struct cordon_slurm_scope_use *uses;
        size_t n_uses;
        size_t *operands; /* argv indexes, in order */
        size_t n_operands;
};

/* @command's table (ending with a row whose val is 0) and its getopt optstring, copied from
 * Slurm; NULL for sacctmgr. */
const struct cordon_slurm_scope_option *cordon_slurm_scope_table(enum cordon_slurm_query command,
                                                                 const char **ret_optstring);

void cordon_slurm_scope_parsed_clear(struct cordon_slurm_scope_parsed *p);

/* getopt_long as Slurm calls it (permuting, "--" ends the options) over @argv with
 * @command's table. Errors as cordon_slurm_scope_check(). */
int cordon_slurm_scope_getopt(enum cordon_slurm_query command, char *const *argv,
                              struct cordon_slurm_scope_parsed *ret, const char **ret_rule,
                              struct cordon_diag *diag);

/* One item of a job id list: its base job id (the leading number) and its form. */
struct cordon_slurm_job_ref {
        uint32_t id;
        bool has_step; /* ".S" */
};

/* Splits @list at ',' outside brackets and parses each item as
 * ID[_TASK|_[TASKS]|_*|+COMPONENT][.STEP] (ID without leading zeros, at most 4294967293;
 * STEP a number, batch, extern or interactive); @allow_step says whether ".STEP" is allowed.
 * Stores the refs in @ret (free()) and their count in @ret_n. Returns 0, -EINVAL with the
 * offending item in @ret_bad (a pointer into @list, its length in @ret_bad_len), -E2BIG for
 * more than CORDON_SLURM_SCOPE_MAX_LIST_ITEMS, -ENOMEM. */
int cordon_slurm_job_list_parse(const char *list, bool allow_step,
                                struct cordon_slurm_job_ref **ret, size_t *ret_n,
                                const char **ret_bad, size_t *ret_bad_len);
