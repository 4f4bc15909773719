/* Capabilities and no-new-privs. */
#pragma once

#include <stdbool.h>

/* Drops every capability for good: bounding set, ambient, inheritable, permitted, effective,
 * and locks the securebits so uid 0 inside regains nothing at execve. */
int cordon_caps_drop_all(void);
/* True when the caller holds any permitted or effective capability. */
bool cordon_caps_any(void);
int cordon_caps_set_no_new_privs(void);
