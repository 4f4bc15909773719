/* cordon-chaperon: the host side of a sandbox's Slurm commands (docs/ARCHITECTURE.md, "The
 * chaperon"). The supervisor starts it the first time a stub rings the doorbell; it serves each
 * call in a process of its own, judges it against the sandbox's policy and scope, runs the real
 * command and relays the answer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/policy/list.h"
#include "shared/macro.h"
#include "lib/slurm/chaperon-log.h"

/* What the supervisor tells the chaperon (a JSON object on descriptor 4, chaperon-main.c). */
struct chaperon_config {
        int scope;     /* SLURM_SCOPE: 0 session, 1 project, 2 user, 3 none */
        char *session; /* this sandbox's id: the scope "session" */
        char *project; /* the project directory (host path): the scope "project" */
        char *user;    /* the user's name, for sacct and --me */
        uid_t uid;
        struct cordon_list read_roots, write_roots, blocked_env, blocked_env_pat;
        /* The wrapper that confines a job on the node: the cordon program and the arguments
         * that come before the job's command ("run", "-q", ...). */
        char *cordon;
        char **wrap_args;
        char *net_mode;  /* the sandbox's network mode, for the SPANK plugin's --cordon-network */
        char *state_dir; /* where jobs' scripts and the registry go (0700, ours) */
        int log_level;   /* enum cordon_chaperon_level */
        uint64_t log_retain_days;
        struct cordon_chaperon_log *log;
};

/* The config (chaperon-config.c). Whatever the answer, @c is cleared with
 * chaperon_config_clear() afterwards. */
/* The most settings the configuration may hand a job's wrapper. */
#define CHAPERON_SETTINGS_MAX 4096

void chaperon_config_clear(struct chaperon_config *c);
/* Reads the config from @fd (at most 1 MiB of JSON) and parses it. 0 or -errno, with @why
 * saying what. */
int chaperon_config_read(int fd, struct chaperon_config *c, char *why, size_t why_size);
/* Parses @text (@len bytes, at most 1 MiB): 0, -EINVAL for a missing key or a value of a wrong
 * type or range, -EFBIG past the limit, -ENOMEM; @why says what. */
int chaperon_config_parse(const char *text, size_t len, struct chaperon_config *c, char *why,
                          size_t why_size);
/* "session", "project", "user", "none" for SLURM_SCOPE @scope (0..3), else NULL. */
const char *chaperon_config_scope_name(int scope);

/* A stub's request (chaperon-request.c): JSON {"argv": [...], "cwd": "/...", "env": {...}}. */
struct chaperon_request {
        char **argv; /* argv[0] one of Slurm's commands (slurm-names.h) */
        char *cwd;   /* absolute */
        char **envp; /* NAME=VALUE of the allowed names only; others are dropped */
};

/* Parses @text (@len bytes, at most CORDON_CHAPERON_REQUEST_MAX). 0, -EBADMSG for anything
 * else than the shape above (unknown command, relative cwd, an argument with a NUL or over
 * CORDON_SLURM_MAX_ARG_SIZE, too many), -ENOMEM. */
int chaperon_request_parse(const char *text, size_t len, struct chaperon_request *ret);
void chaperon_request_clear(struct chaperon_request *r);
/* The registry's spelling of command @name, or NULL when it is none of Slurm's. */
const char *chaperon_request_command(const char *name);

/* Serves one call on @fd (the stub's end of its pair) and returns the process's exit code. */
int chaperon_call(const struct chaperon_config *c, int fd);

/* ---- a batch job's standard streams (chaperon-stdio.c) ---- */

struct cordon_slurm_submit;
/* Slurm's file name pattern @spec (%j, %4a, %x...) as one double-quoted shell word that expands
 * to what Slurm would make of it in a batch job, from the job's environment. -EINVAL for what
 * cannot be given so (a backslash, an unknown letter, a width over 10); -ENOMEM. */
int chaperon_stdio_pattern(const char *spec, char **ret);
/* Whether option @name (a long name) is one of the streams' (--output, --error, --input,
 * --open-mode), which the job gets from chaperon_stdio_redirects() instead. */
bool chaperon_stdio_option(const char *name);
/* The shell line that opens the job's streams as Slurm would have (the last --output, --error,
 * --input and --open-mode of @s; slurm-%j.out, or slurm-%A_%a.out for an array, by default;
 * stderr with stdout without --error), for the job to run first inside its confinement. 0, or
 * -EINVAL with @why, -ENOMEM. */
int chaperon_stdio_redirects(const struct cordon_slurm_submit *s, char **ret, char *why,
                             size_t why_size);
/* Whether batch script @script starts with a #! line naming a shell (sh, bash, dash, ksh, zsh,
 * mksh, ash; directly or through env), so that a line can be put after it. */
bool chaperon_stdio_shell_script(const char *script, size_t size);

/* ---- the job registry (chaperon-jobs.c): which jobs a sandbox session or project made ---- */

/* Records job @id as submitted by this session for this project. */
int chaperon_jobs_add(const struct chaperon_config *c, uint32_t id);
/* The ids in scope (session or project) into @ret (sorted, unique), their number in @ret_n. */
int chaperon_jobs_in_scope(const struct chaperon_config *c, uint32_t **ret, size_t *ret_n);

/* ---- running a real command (chaperon-exec.c) ---- */

struct chaperon_run {
        char **argv; /* argv[0]: a name looked up on the chaperon's PATH */
        char **envp; /* the whole environment */
        const char *cwd;
        bool
            capture; /* collect stdout in @out (at most CHAPERON_CAPTURE_MAX) instead of relaying */
        char *out;
        size_t out_len;
};

#define CHAPERON_CAPTURE_MAX (16u * 1024 * 1024)

/* Runs @run, relaying its stderr (and stdout unless captured) to the stub on @fd as it comes;
 * kills it when the stub goes away. Returns the exit status to report (0..255) or -errno. */
int chaperon_exec(int fd, struct chaperon_run *run);

/* struct cordon_slurm_policy's recheck_path (chaperon-paths.c), @userdata the config: @path
 * (absolute, below a root of the config) opened from its root by descriptor, with no symbolic
 * link followed on the way nor at its end. 0, or -ELOOP for a link, -errno. */
int chaperon_recheck_path(const void *userdata, const char *path, bool write);

/* Whether the site's Slurm runs cordon's SPANK plugin (chaperon-spank.c). */
bool chaperon_spank_present(void);

/* Messages to the stub. */
int chaperon_send(int fd, char type, const void *data, size_t len);
_printf_(2, 3) int chaperon_say(int fd, const char *fmt, ...);
