/* Placeholder: implemented by issue 15. */
#include "lib/mech/seccomp-notify.h"
