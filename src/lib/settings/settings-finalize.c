/* PLACEHOLDER for issue 14's admin rules (helper H2 replaces this file). */
#include <errno.h>

#include "lib/profiles/profiles.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"

_public_ int cordon_settings_finalize(struct cordon_settings *s, char ***ret_warnings,
                                      struct cordon_diag *diag)
{
        if (ret_warnings)
                *ret_warnings = NULL;
        int r = cordon_profiles_fold(s, ret_warnings, diag);
        if (r < 0)
                return r;
        s->finalized = true;
        return 0;
}

_public_ ssize_t cordon_settings_admin_change_count(const struct cordon_settings *s)
{
        (void)s;
        return 0;
}

_public_ int cordon_settings_get_admin_change(const struct cordon_settings *s, size_t i,
                                              const char **ret_name, const char **ret_message)
{
        (void)s, (void)i, (void)ret_name, (void)ret_message;
        return -ERANGE;
}
