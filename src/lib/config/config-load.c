/* PLACEHOLDER for issue 14's loader (helper H1 replaces this file): reads nothing yet. */
#include <errno.h>

#include "lib/settings/settings.h"
#include "shared/macro.h"

_public_ int cordon_settings_load_config(struct cordon_settings *s,
                                         const struct cordon_config_options *o,
                                         char ***ret_warnings, struct cordon_diag *diag)
{
        (void)s, (void)o, (void)diag;
        if (ret_warnings)
                *ret_warnings = NULL;
        return 0;
}

_public_ ssize_t cordon_settings_config_file_count(const struct cordon_settings *s)
{
        return (ssize_t)s->config_files.n;
}

_public_ int cordon_settings_get_config_file(const struct cordon_settings *s, size_t i,
                                             const char **ret_path, const char **ret_layer)
{
        (void)s, (void)i, (void)ret_path, (void)ret_layer;
        return -ERANGE;
}
