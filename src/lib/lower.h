/* Lowering: the sandbox.conf variable model plus facts about the host become a policy. */
#pragma once

#include <sys/types.h>

#include "cordon/cordon.h"
#include "lib/settings.h"

struct cordon_host {
        const char *home;         /* $HOME; may be NULL */
        const char *account_home; /* the account's home (passwd entry of uid); may be NULL */
        const char *cwd;          /* the caller's working directory */
        char *const *envp;
        uid_t uid;
        gid_t gid;
        const char *passwd_path;   /* NULL: /etc/passwd */
        const char *group_path;    /* NULL: /etc/group */
        const char *proc_net_unix; /* NULL: /proc/net/unix */
};

/* Resolves the policy for @s on @h, reading the host and changing nothing on it. What the
 * configuration asks to exist and is missing becomes a host action of the policy (p->actions,
 * see host-action.h), which cordon_launch_prepare() takes: missing HOME_WRITABLE directories
 * (silently: agents expect them), BLOCKED_FILES placeholders, and credential directories and
 * read-only git and agent files the sandbox could otherwise create. Every rule is built as if
 * they existed already. Entries that were skipped get one line each in @ret_warnings (may be
 * NULL). Returns 0, or -errno with the reason in @diag. */
int cordon_settings_resolve(const struct cordon_settings *s, const struct cordon_host *h,
                            struct cordon_policy **ret, char ***ret_warnings,
                            struct cordon_diag *diag);

/* cordon_settings_resolve(), then cordon_policy_apply() at once: what the configuration asks to
 * exist is created on the host, each creation announced in @ret_warnings after the resolve
 * warnings (the HOME_WRITABLE directories silently). For callers that lower and launch in one
 * go; applying again at launch finds everything in place and is silent. */
int cordon_settings_lower(const struct cordon_settings *s, const struct cordon_host *h,
                          struct cordon_policy **ret, char ***ret_warnings,
                          struct cordon_diag *diag);
