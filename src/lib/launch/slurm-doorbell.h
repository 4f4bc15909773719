/* The supervisor's side of the chaperon (SLURM_SCOPE): the doorbell between the sandbox's Slurm
 * stubs and cordon's chaperon program on the host, which it starts on the first call. */
#pragma once

#include <sys/types.h>

#include "cordon/cordon.h"

struct cordon_launch;
struct cordon_policy;
struct cordon_sandbox;
struct cordon_loop_io;
struct json_t;

/* Held in struct cordon_launch. */
struct cordon_launch_slurm {
        int fd[2];                 /* the doorbell: [0] the chaperon's end, [1] the sandbox's; -1 */
        struct json_t *config;     /* what the chaperon is told, but the wrapper's flags */
        char *program;             /* the chaperon program */
        struct cordon_loop_io *io; /* until the first ring */
        pid_t pid;                 /* the chaperon, once started; 0 */
};

/* Prepare phase: the doorbell and the chaperon's configuration, when the policy asks for the
 * chaperon (cordon_policy_set_slurm()) and the host has Slurm. 0 or -errno with @diag. */
int cordon_chaperon_prepare(struct cordon_launch *l, const struct cordon_policy *p,
                            struct cordon_diag *diag);
/* "CORDON_SLURM_FD=N" for the command's environment in @ret, or NULL without a doorbell. */
int cordon_chaperon_env(const struct cordon_launch *l, char **ret);
/* In the child before its exec (async-signal-safe): the sandbox's end stays open across the
 * exec, the chaperon's end goes. 0 or -errno. */
int cordon_chaperon_child_step(const struct cordon_launch *l);
/* After the clone: the supervisor drops the sandbox's end and waits for the first ring. */
int cordon_chaperon_watch(struct cordon_sandbox *sb);
void cordon_chaperon_clear(struct cordon_launch *l);
