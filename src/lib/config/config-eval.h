/* Evaluating the configuration files: one bash child per load, confined by cordon's own
 * launcher as lib/launch/confined-child.h says (nothing writable, no network, a read-only view
 * of the system and of the directories holding the files, an environment of HOME, _PROJECT_DIR
 * and PATH only, a time limit, a pids limit, bounded output), which prints `declare -p` of the
 * registry's variables after each file. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"
#include "lib/config/config-files.h"
#include "lib/launch/confined-child.h"

#define CORDON_CONFIG_EVAL_TIMEOUT_USEC (5ULL * 1000 * 1000)
#define CORDON_CONFIG_EVAL_STDOUT_MAX   (1024u * 1024)
#define CORDON_CONFIG_EVAL_STDERR_MAX   (64u * 1024)
#define CORDON_CONFIG_EVAL_PIDS         64

/* Markers: "#cordon-layer K STATUS" on stdout before layer K's dump (0: the defaults),
 * "#cordon-end" after the last; "#cordon-stderr K" on stderr before file K runs. K counts
 * the evaluated files (those with code) from 1. */
#define CORDON_CONFIG_MARK_LAYER  "#cordon-layer "
#define CORDON_CONFIG_MARK_END    "#cordon-end"
#define CORDON_CONFIG_MARK_STDERR "#cordon-stderr "

/* The bash script: the registry's defaults (@home for "$HOME"), then each of @n_files files
 * (positional parameters 1..n, the first @n_admin sourced as admin baselines) with a dump after
 * each. The caller frees it. */
char *cordon_config_script(const char *home, size_t n_files, size_t n_admin);

struct cordon_config_eval_args {
        char *const *paths; /* the files the child reads, absolute and resolved */
        size_t n;
        size_t n_admin;                            /* paths[0..n_admin-1] are admin baselines */
        const char *home, *project_dir, *path_env; /* the child's environment */
        const char *default_home;    /* what "$HOME" in a default expands to (the settings') */
        enum cordon_backend backend; /* CORDON_BACKEND_AUTO: cordon's choice */
        /* Another bash script to run in the same child, the files its positional parameters
         * (agent folders' config.conf, lib/profiles/agent-conf.c); NULL:
         * cordon_config_script()'s. */
        const char *script;
};

/* Runs the child (confined-child.h). Returns 0 with @ret filled (however the child ended), or
 * -errno when it could not be started (@diag says why). Release @ret with
 * cordon_confined_output_clear(). */
int cordon_config_eval(const struct cordon_config_eval_args *a, struct cordon_confined_output *ret,
                       struct cordon_diag *diag);
