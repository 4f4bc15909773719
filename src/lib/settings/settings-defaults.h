/* The built-in defaults of the registry's list variables (settings-registry.c), as
 * NULL-terminated arrays; cordon_settings_new() is what fills a model from them. */
#pragma once

extern const char *const cordon_default_readonly_mounts[];
extern const char *const cordon_default_home_readonly[];
extern const char *const cordon_default_home_writable[];
extern const char *const cordon_default_home_seeded[];
extern const char *const cordon_default_home_always_blocked[];
extern const char *const cordon_default_devices[];
extern const char *const cordon_default_devices_blacklist[];
extern const char *const cordon_default_blocked_env_vars[];
extern const char *const cordon_default_blocked_env_patterns[];
extern const char *const cordon_default_allowed_env_vars[];
extern const char *const cordon_default_allowed_project_parents[];
extern const char *const cordon_default_enabled_agents[];
extern const char *const cordon_default_presets[];
