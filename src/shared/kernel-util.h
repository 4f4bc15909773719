/* The running kernel's release, for the few features whose probe would cost more than the
 * start it serves (or could not be made safely): the release number stands in. */
#pragma once

#include <stdbool.h>

/* The release's major.minor as a number (5.14 -> 514); 0 when it does not parse. */
unsigned kernel_release_number(const char *release);
/* Is the running kernel's release at least @number (major * 100 + minor)? false when uname()
 * fails or its release does not parse. */
bool kernel_release_at_least(unsigned number);
