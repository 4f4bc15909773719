/* The sandbox.conf loader's internal entry, for tests: cordon_settings_load_config() with the
 * admin baselines' paths and owner, and the child's backend, chosen by the caller. */
#pragma once

#include "cordon/settings.h"
#include "lib/config/config-files.h"

struct cordon_config_load_params {
        const char *agent_admin_path; /* NULL: CORDON_AGENT_SANDBOX_ADMIN_CONF_PATH */
        const char *admin_path;       /* NULL: CORDON_ADMIN_CONF_PATH */
        const char *admin_profile;    /* cordon_settings_load_config_with_admin(); NULL: none */
        uid_t admin_owner;            /* 0 */
        uid_t caller;                 /* getuid() */
        enum cordon_backend backend;  /* of the child; CORDON_BACKEND_AUTO: cordon's choice */
};

int cordon_config_load_with(struct cordon_settings *s, const struct cordon_config_options *o,
                            const struct cordon_config_load_params *params, char ***ret_warnings,
                            struct cordon_diag *diag);
