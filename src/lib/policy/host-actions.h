/* Host actions as data: what a policy needs created on the host before a sandbox starts
 * (HOME_WRITABLE directories, BLOCKED_FILES placeholders, credential-directory placeholders,
 * read-only git and agent files). Lowering plans them (resolve); the launcher takes them
 * (lib/resolve/host-action.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cordon_policy;

enum cordon_host_action_kind {
        CORDON_HOST_MKDIR, /* a directory */
        CORDON_HOST_FILE,  /* a regular file holding @contents */
};

struct cordon_host_action {
        enum cordon_host_action_kind kind;
        /* Absolute, normalised, with no symlink in any component; its parent exists when the
         * action runs (an earlier action creates a missing one). */
        char *path;
        mode_t mode;
        char *contents; /* CORDON_HOST_FILE: "" for an empty placeholder */
        char *reason;   /* what it is for, with the origin: "BLOCKED_FILES placeholder (from
                           --mask)" */
        char *warning;  /* the line reported when it is created; NULL: created silently */
        /* A BLOCKED_FILES placeholder or a parent made for one: what
         * CLEANUP_MATERIALIZED_BLOCKED_FILES removes after the run. */
        bool materialized;
};

/* Appends an action to @p, copying the strings (@warning may be NULL). An action for a path
 * that is already planned is not added again. Returns 0 or -ENOMEM. */
int cordon_policy_add_host_action(struct cordon_policy *p, enum cordon_host_action_kind kind,
                                  const char *path, mode_t mode, const char *contents,
                                  const char *reason, const char *warning);
/* The action planned for exactly @path, or NULL. */
const struct cordon_host_action *cordon_policy_find_host_action(const struct cordon_policy *p,
                                                                const char *path);
void cordon_host_actions_free(struct cordon_host_action *a, size_t n);
