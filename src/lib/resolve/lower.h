/* Lowering: the sandbox.conf variable model plus facts about the host become a policy. The
 * entry points, cordon_settings_resolve() and cordon_settings_lower(), and struct cordon_host
 * are public (cordon/settings.h). */
#pragma once

#include <sys/types.h>

#include "cordon/cordon.h"
#include "cordon/settings.h"
#include "lib/settings/settings.h"
