/* A helper child confined by cordon's own launcher, for code the supervisor must run before a
 * sandbox starts and must not trust: the configuration files (config-eval.c) and the Lmod
 * modules of SANDBOX_MODULES (lower-modules.c). One policy for both: a read-only view of the
 * system directories and of the directories the caller names, nothing writable, no network,
 * Landlock and seccomp required, a process bound; the run has a time limit and output limits. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"

/* What the child printed and how it ended. */
struct cordon_confined_output {
        char *out, *err; /* NUL-terminated */
        size_t out_len, err_len;
        int status;     /* shell-style */
        bool timed_out; /* killed at the time limit */
        bool out_over;  /* killed: stdout above its limit */
        bool err_over;  /* killed: stderr above its limit */
};

struct cordon_confined_limits {
        uint64_t timeout_usec;
        size_t out_max, err_max;
        unsigned pids;
};

/* A new policy under @backend (CORDON_BACKEND_AUTO: cordon's choice) with the environment
 * @env (copied), working directory "/", and the system directories read-only (a merged-/usr
 * symlink stays a symlink), /dev, and the host's password hashes hidden from a caller who
 * could read them; @origin names the rules. Returns 0 or -errno. */
int cordon_confined_policy_new(enum cordon_backend backend, char *const *env,
                               const struct cordon_confined_limits *lim, const char *origin,
                               struct cordon_policy **ret);
/* Adds the directory @dir (absolute; "." and "//" are normalised, ".." refused with -EINVAL)
 * read-only at its realpath, unless a read-only rule already covers it, and @dir itself as a
 * link to it where it is a link. @optional: a missing directory is left out. Returns 0 or
 * -errno. */
int cordon_confined_add_ro(struct cordon_policy *p, const char *dir, bool optional,
                           const char *origin);

/* Starts @argv (argv[0] an absolute path) under @p, stdin /dev/null and stdout/stderr pipes,
 * and reads both until the child ends or a limit of @lim is reached (then it is killed and
 * the output says which). Returns 0 with @ret filled, however the child ended, or -errno when
 * it could not be started (@diag says why, prefixed by @what). Release @ret with
 * cordon_confined_output_clear(). Single-threaded callers only (see cordon_sandbox_start()). */
int cordon_confined_run(struct cordon_policy *p, char *const *argv,
                        const struct cordon_confined_limits *lim, const char *what,
                        struct cordon_confined_output *ret, struct cordon_diag *diag);
void cordon_confined_output_clear(struct cordon_confined_output *o);

/* The first of /bin/bash and /usr/bin/bash that can run, or NULL. */
const char *cordon_confined_bash(void);
