/* Agent profiles (profiles/<name>/): what each agent of ENABLED_AGENTS adds to the settings. */
#pragma once

#include "cordon/cordon.h"

struct cordon_settings;

/* Folds the profile of every agent of ENABLED_AGENTS into @s (HOME_WRITABLE, HOME_READONLY,
 * BLOCKED_FILES, ALLOWED_ENV_VARS, ...), each item with origin "profile NAME (FILE:LINE)".
 * Warnings are appended to *@warnings (a NULL-terminated vector, may start NULL). Returns 0 or
 * -errno with the reason in @diag. Called by cordon_settings_finalize(). */
int cordon_profiles_fold(struct cordon_settings *s, char ***warnings, struct cordon_diag *diag);
