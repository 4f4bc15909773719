/* Judging a Slurm submission (sbatch, srun, salloc) before the host runs it: the command line
 * and a batch script's directives parsed as Slurm 22.05 parses them (getopt_long, #SBATCH lines),
 * then checked against a small policy. Pure code: no files, no processes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"
#include "lib/policy/list.h"

enum cordon_slurm_command {
        CORDON_SLURM_SBATCH,
        CORDON_SLURM_SRUN,
        CORDON_SLURM_SALLOC,
        _CORDON_SLURM_COMMAND_MAX,
};

/* getopt's has_arg. */
enum cordon_slurm_arg {
        CORDON_SLURM_ARG_NONE,
        CORDON_SLURM_ARG_REQUIRED,
        CORDON_SLURM_ARG_OPTIONAL,
};

/* What the checker does with an option (ARCHITECTURE.md, "Slurm submissions"). */
enum cordon_slurm_rule {
        CORDON_SLURM_RULE_NONE,       /* no host path, nothing run: allowed */
        CORDON_SLURM_RULE_WRITE_PATH, /* a file Slurm writes: below the project or a write root */
        CORDON_SLURM_RULE_READ_PATH,  /* a file read on the submitting host: below any root */
        CORDON_SLURM_RULE_CHDIR,      /* the job's directory: below any root; a base of the above */
        CORDON_SLURM_RULE_STDIO,      /* srun's -i/-o/-e: "none", "all" or a task id, else WRITE */
        CORDON_SLURM_RULE_NODELIST,   /* a node list, or with a '/' a file of them (READ) */
        CORDON_SLURM_RULE_EXPORT,     /* the environment list: no blocked name */
        CORDON_SLURM_RULE_BCAST,      /* srun --bcast: a destination (WRITE); the command is READ */
        CORDON_SLURM_RULE_MULTI_PROG, /* srun --multi-prog: the command is a file (READ) */
        CORDON_SLURM_RULE_JOB_NAME,   /* a name that %x puts into file names */
        CORDON_SLURM_RULE_NO_SHELL,   /* salloc --no-shell (salloc needs it) */
        CORDON_SLURM_RULE_IGNORE_PBS, /* sbatch --ignore-pbs (#PBS and #BSUB lines then harmless) */
        CORDON_SLURM_RULE_WRAP,       /* sbatch --wrap: the text becomes the script's body */
        CORDON_SLURM_RULE_REFUSED,    /* always refused, for the reason in the table */
};

/* One row of the option table (slurm-options.c), written from Slurm 22.05's slurm_opt.c. */
struct cordon_slurm_option {
        const char *name; /* the long name, without "--" */
        char short_name;  /* 0 when the option has none */
        enum cordon_slurm_arg arg;
        unsigned commands; /* mask of 1u << enum cordon_slurm_command */
        enum cordon_slurm_rule rule;
        /* getopt_long takes a prefix matching several options as one when they share has_arg
         * and val: the rows of such aliases name the same @same_as (else NULL). */
        const char *same_as;
        const char *why; /* RULE_REFUSED: the rule in words; "" otherwise */
};

/* The table, ending with a row whose name is NULL. */
extern const struct cordon_slurm_option cordon_slurm_options[];
const char *cordon_slurm_command_name(enum cordon_slurm_command c);

/* One option as the user wrote it. */
struct cordon_slurm_use {
        const struct cordon_slurm_option *option;
        char *spelling;     /* "--out", "-o": the option's own word as written */
        char *value;        /* NULL when the option has none */
        unsigned component; /* the heterogeneous job component (":" or "#SBATCH hetjob") */
        unsigned line;      /* the script line (1-based), 0 for the command line */
        size_t argi;        /* the argv index, for the command line */
};

/* A parsed submission. The uses are in the order Slurm applies them, the script's directives
 * of a component before the command line's, so the last use of an option wins (except the few
 * options Slurm adds up, -v -Q). */
struct cordon_slurm_submit {
        enum cordon_slurm_command command;
        struct cordon_slurm_use *uses;
        size_t n_uses;
        size_t n_components;
        /* argv indexes of each component's first operand: sbatch's script, srun's and salloc's
         * command (srun: one per component that has one). */
        size_t *operands;
        size_t n_operands;
        char **argv;  /* a copy of the command line */
        char *script; /* the batch script (sbatch; with --wrap the one sbatch writes), or NULL */
        size_t script_size;
        /* The first script line sbatch would translate (#PBS, #BSUB), and the first a burst
         * buffer plugin would read (#BB, #DW), anywhere in the script; 0 when none. */
        unsigned pbs_line;
        unsigned bb_line;
};

/* Limits on what a submission may hold (each a refusal with a rule, -E2BIG). */
#define CORDON_SLURM_MAX_ARGS         4096u
#define CORDON_SLURM_MAX_ARG_SIZE     (128u * 1024u)
#define CORDON_SLURM_MAX_ARGV_SIZE    (1024u * 1024u)
#define CORDON_SLURM_MAX_SCRIPT_SIZE  (4u * 1024u * 1024u)
#define CORDON_SLURM_MAX_LINE         (64u * 1024u)
#define CORDON_SLURM_MAX_DIRECTIVES   1024u /* #SBATCH lines */
#define CORDON_SLURM_MAX_COMPONENTS   128u  /* Slurm's MAX_HET_JOB_COMPONENTS */
#define CORDON_SLURM_MAX_EXPORT_NAMES 1024u

/* Parses @argv (argv[0] the program, ignored) of @command, and for sbatch the batch script
 * @script of @script_size bytes (NULL for srun and salloc, and for sbatch --wrap, whose script
 * is made here as sbatch makes it). On success stores a new submission in @ret (free with
 * cordon_slurm_submit_free()) and returns 0. Errors: -EINVAL for what Slurm would refuse or
 * read differently (an unknown or ambiguous option, a missing value, a script sbatch refuses),
 * -E2BIG for a limit, -ENOMEM. On an error @ret_rule (may be NULL) is set to the rule's key
 * and @diag says where ("argv[3]", "script line 4") and what. */
int cordon_slurm_submit_parse(enum cordon_slurm_command command, char *const *argv,
                              const char *script, size_t script_size,
                              struct cordon_slurm_submit **ret, const char **ret_rule,
                              struct cordon_diag *diag);
/* Where sbatch's command line @argv names its batch script: 0 with the argv index in
 * @ret_index, -ENOENT when it names none (sbatch then reads standard input, unless @ret_wrap
 * says --wrap gives the script), or parse's errors for the command line (@ret_rule, @diag). */
int cordon_slurm_submit_script_operand(char *const *argv, size_t *ret_index, bool *ret_wrap,
                                       const char **ret_rule, struct cordon_diag *diag);
struct cordon_slurm_submit *cordon_slurm_submit_free(struct cordon_slurm_submit *s);
static inline void cordon_slurm_submit_freep(struct cordon_slurm_submit **s)
{
        cordon_slurm_submit_free(*s);
}

/* The last use of the option named @name (its long name) in @component, or NULL. */
const struct cordon_slurm_use *cordon_slurm_submit_last(const struct cordon_slurm_submit *s,
                                                        unsigned component, const char *name);

/* What the checker needs to know of the sandbox. Paths are host paths, absolute; the lists
 * are borrowed. */
struct cordon_slurm_policy {
        const char *project_dir;                   /* readable and writable */
        const struct cordon_list *read_roots;      /* readable (a job may read, Slurm may read) */
        const struct cordon_list *write_roots;     /* readable and writable */
        const struct cordon_list *blocked_env;     /* variable names */
        const struct cordon_list *blocked_env_pat; /* globs, "/i" suffix: ignoring case */
        /* The job's environment is filtered again on the node by the policy: then sbatch's
         * --export=NONE or a name list, which asks the node for the user's login environment,
         * is no leak. False: those forms are refused. */
        bool job_env_filtered;
        /* Called for each path a use names once it passed the lexical check, with the path as
         * judged (absolute, normalised), to look at what is there by descriptor (a symbolic
         * link planted on the way); a negative errno refuses the use (rule "path-link"). NULL:
         * the lexical check alone. */
        int (*recheck_path)(const void *userdata, const char *path, bool write);
        const void *userdata;
};

/* Judges @s, submitted from @cwd (absolute), against @p. Every use is judged, also one a later
 * one overrides. Returns 0 when allowed; -EPERM with @ret_rule set to the rule's key and @diag
 * naming the option as written, where, and the rule; -EINVAL for a @cwd that is not absolute;
 * -ENOMEM. Paths are judged lexically ("..": removed with the component before it; symbolic
 * links are not followed): the caller opens them by descriptor and checks again. */
int cordon_slurm_submit_check(const struct cordon_slurm_submit *s,
                              const struct cordon_slurm_policy *p, const char *cwd,
                              const char **ret_rule, struct cordon_diag *diag);
