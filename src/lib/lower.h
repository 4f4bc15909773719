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

/* Builds the policy for @s on @h. Creates on the host what the configuration asks to exist:
 * missing HOME_WRITABLE directories silently (agents expect them), BLOCKED_FILES placeholders
 * and credential directories the sandbox could otherwise create with one line each in
 * @ret_warnings, as are entries that were skipped. Returns 0, or -errno with the reason in
 * @diag. */
int cordon_settings_lower(const struct cordon_settings *s, const struct cordon_host *h,
                          struct cordon_policy **ret, char ***ret_warnings,
                          struct cordon_diag *diag);
